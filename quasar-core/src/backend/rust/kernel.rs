//! Kernels as CPU kernels over one block (ARCHITECTURE §3), and `parallel_do` launches.
//!
//! * The block function reads its arguments once, then loops over the block's positions with
//!   the innermost loop along the last (contiguous) dimension; per-thread locals are plain
//!   Rust locals inside that loop (no allocation, no closure, no reference count).
//! * The innermost loop is split into border / interior / border when some accesses are
//!   affine in `pos` ([`super::interior`]); the interior copy of the body has no boundary
//!   handling for them.
//! * Kernels with `syncthreads` or `shared` memory: [`super::barrier`].
//! * On x86-64 the block function is compiled three times (baseline, AVX2+FMA, AVX-512) and dispatched
//!   at run time.

use super::expr::V;
use super::func::{Ctx, FnGen};
use super::ty::{Num, Repr};
use super::{unsupported, GResult, Gen};
use crate::ir::{
    Block, Builtin, Expr, ExprKind, FunctionId, LocalId, LocalRole, PlaceKind, Special, StmtKind,
};
use crate::sema::types::Type;
use crate::span::Span;
use crate::syntax::ast::AssignOp;
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use std::collections::HashMap;

/// The launch rank of a kernel, from its special parameters (`pos : ivec2` → 2).
fn launch_rank(g: &Gen, id: FunctionId) -> Option<usize> {
    let f = g.m.function(id);
    f.locals.iter().filter(|l| l.special().is_some_and(Special::is_geometry)).find_map(|l| match &l
        .ty
    {
        Type::Int(..) => Some(1),
        t => t.as_array().and_then(super::ty::known_shape).map(|s| s.iter().product()),
    })
}

/// The slots of a kernel's launch arguments: parameters that are not special, then captures.
pub(crate) fn arg_slots(g: &Gen, id: FunctionId) -> Vec<LocalId> {
    let f = g.m.function(id);
    f.params
        .iter()
        .filter(|p| f.local(**p).special().is_none())
        .chain(&f.captures)
        .copied()
        .collect()
}

/// The reduction of each kernel output, from how the body assigns it.
fn output_ops(f: &crate::ir::Function) -> Vec<(LocalId, AssignOp)> {
    let mut ops: HashMap<LocalId, AssignOp> = HashMap::new();
    fn walk(b: &Block, ops: &mut HashMap<LocalId, AssignOp>) {
        for s in b {
            if let StmtKind::Assign { place, op, .. } = &s.kind {
                if let PlaceKind::Local(l) = place.kind {
                    ops.entry(l).or_insert(*op);
                }
            }
            child_blocks(s).into_iter().for_each(|c| walk(c, ops));
        }
    }
    walk(&f.body, &mut ops);
    f.outputs.iter().map(|o| (*o, ops.get(o).copied().unwrap_or(AssignOp::Add))).collect()
}

fn reduce_tokens(rt: &TokenStream, op: AssignOp) -> Option<TokenStream> {
    Some(match op {
        AssignOp::Add => quote!(#rt::run::Reduce::Sum),
        AssignOp::Max => quote!(#rt::run::Reduce::Max),
        AssignOp::Min => quote!(#rt::run::Reduce::Min),
        _ => return None,
    })
}

fn uses_barriers(b: &Block) -> bool {
    b.iter().any(|s| matches!(s.kind, StmtKind::SyncThreads))
}

/// `local = shared(dims)` / `shared_zeros(dims)` at the top level of a kernel body.
pub(super) fn shared_decl(s: &crate::ir::Stmt) -> Option<(LocalId, &[Expr])> {
    let StmtKind::Assign { place, op: AssignOp::Assign, value } = &s.kind else { return None };
    let PlaceKind::Local(l) = place.kind else { return None };
    match &value.kind {
        ExprKind::Call {
            callee: crate::ir::Callee::Builtin(Builtin::Shared | Builtin::SharedZeros),
            args,
        } => Some((l, args.as_slice())),
        _ => None,
    }
}

pub(crate) fn generate(g: &mut Gen, id: FunctionId) -> GResult<TokenStream> {
    let rt = g.rt.clone();
    let f = g.m.function(id);
    let name = g.fn_ident(id);
    let stat = g.kernel_static(id);
    let kname = super::sanitize(&f.instance_name);
    let rank = launch_rank(g, id);
    let slots = arg_slots(g, id);
    let outs = output_ops(f);
    let barrier = uses_barriers(&f.body);
    let shared: Vec<(LocalId, Vec<Expr>)> =
        f.body.iter().filter_map(shared_decl).map(|(l, a)| (l, a.to_vec())).collect();
    let blk_special = f.locals.iter().any(|l| l.special().is_some_and(Special::is_block_geometry));
    let block_sensitive = barrier || !shared.is_empty() || blk_special;

    let mut fg = FnGen::new(g, id, Ctx::Kernel)?;
    // Arrays passed in are views, whatever their size.
    for &l in &slots {
        let local = fg.f.local(l);
        if let Type::Array(a) = &local.ty {
            let n = Num::of(&a.elem, fg.g.opts.double)
                .ok_or_else(|| unsupported(local.span, format_args!("arrays of {}", a.elem)))?;
            fg.set_repr(l, Repr::View(n, super::ty::rank_of(a)));
        }
    }
    for (k, (o, _)) in outs.iter().enumerate() {
        fg.outputs.insert(*o, k);
    }
    for (l, args) in &shared {
        let n = fg.f.local(*l).ty.as_array().and_then(|a| Num::of(&a.elem, fg.g.opts.double));
        let n = n.ok_or_else(|| unsupported(fg.f.span, "this shared array"))?;
        let rank = args.len().max(1) as u8;
        fg.set_repr(*l, Repr::View(n, Some(rank)));
    }

    // Prologue: arguments.
    let mut prologue = Vec::new();
    for (i, &l) in slots.iter().enumerate() {
        let r = fg.local_repr_checked(l)?;
        let n = &fg.names[l.0 as usize];
        let ty = fg.rust_type(&r);
        prologue.push(match r {
            Repr::View(e, rank) => {
                let et = e.tokens(&rt);
                match rank {
                    Some(r) => {
                        // Extents and strides once per block, not per access.
                        let r = r as usize;
                        fg.geom.insert(l, r);
                        let nn = format_ident!("{}__n", n);
                        let ss = format_ident!("{}__s", n);
                        let ds = (0..r).map(|d| quote!(#n.dim(#d) as i64));
                        let st = (0..r).map(|d| quote!(#n.stride(#d)));
                        quote!(
                            let #n = __args.view_as::<#et>(#i, #r)?;
                            let #nn: [i64; #r] = [#(#ds),*];
                            let #ss: [usize; #r] = [#(#st),*];
                        )
                    }
                    None => quote!(let #n = __args.view::<#et>(#i)?;),
                }
            }
            Repr::Num(_) | Repr::FnVal(_) | Repr::Fixed(..) => {
                quote!(let #n: #ty = __args.scalar(#i)?;)
            }
            _ => return Err(unsupported(fg.f.local(l).span, "a kernel argument of this type")),
        });
    }
    let d = rank.unwrap_or(0);
    if d > 3 {
        return Err(unsupported(fg.f.span, "kernels over more than three dimensions"));
    }
    let check_rank = if d > 0 {
        quote!(if __ctx.ndim() != #d {
            return ::core::result::Result::Err(#rt::run::Error::InvalidLaunch {
                kernel: ::std::string::String::from(#kname),
                reason: ::std::format!("the kernel's position has {} dimensions, the launch {}", #d, __ctx.ndim()),
            });
        })
    } else {
        quote!()
    };

    let make_body = |fg: &mut FnGen, fused: bool| {
        fg.g.fused = fused;
        let body = if block_sensitive {
            super::barrier::barrier_body(fg, d, &shared)
        } else {
            simple_body(fg, d)
        };
        fg.g.fused = false;
        body
    };
    let body = make_body(&mut fg, false)?;
    // The copy for CPUs with FMA, when it differs (it calls math routines that fuse).
    let fused_body = make_body(&mut fg, true)?;
    let fused_body = (fused_body.to_string() != body.to_string()).then_some(fused_body);
    let shared_fn =
        if shared.is_empty() { quote!() } else { shared_bytes_fn(&mut fg, d, &shared)? };
    let sname = format_ident!("{}__shared", name);
    let mut builder = quote!(#rt::run::Kernel::new(#kname, #name));
    if !shared.is_empty() {
        builder = quote!(#builder.with_shared(#sname));
    } else if block_sensitive {
        builder = quote!(#builder.block_sensitive());
    }
    let builder = fg.g.ptx.attach(&fg.f.instance_name, builder, block_sensitive);
    let avx = format_ident!("{}__avx2", name);
    let avx512 = format_ident!("{}__avx512", name);
    let generic = format_ident!("{}__body", name);
    let block_fn = |f: &proc_macro2::Ident, body: &TokenStream| {
        quote! {
            #[allow(unused_mut, unused_variables, unused_assignments, unreachable_code, unused_labels, unused_parens, unused_braces, non_snake_case, clippy::all)]
            #[inline(always)]
            fn #f(__ctx: &#rt::run::BlockCtx<'_>, __args: &#rt::run::KernelArgs<'_>) -> #rt::run::Result<()> {
                #check_rank
                #(#prologue)*
                #body
                ::core::result::Result::Ok(())
            }
        }
    };
    let generic_fn = block_fn(&generic, &body);
    let (fused, fused_fn) = match &fused_body {
        Some(b) => {
            let f = format_ident!("{}__body_fma", name);
            let code = block_fn(&f, b);
            (f, quote!(#[cfg(target_arch = "x86_64")] #code))
        }
        None => (generic.clone(), quote!()),
    };
    Ok(quote! {
        #shared_fn
        #generic_fn
        #fused_fn
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx2,fma")]
        #[allow(non_snake_case)]
        unsafe fn #avx(__ctx: &#rt::run::BlockCtx<'_>, __args: &#rt::run::KernelArgs<'_>) -> #rt::run::Result<()> {
            #fused(__ctx, __args)
        }
        // 512-bit vectors: twice the lanes of AVX2 for the math routines' polynomials.
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl,avx2,fma")]
        #[allow(non_snake_case)]
        unsafe fn #avx512(__ctx: &#rt::run::BlockCtx<'_>, __args: &#rt::run::KernelArgs<'_>) -> #rt::run::Result<()> {
            #fused(__ctx, __args)
        }
        #[allow(non_snake_case)]
        fn #name(__ctx: &#rt::run::BlockCtx<'_>, __args: &#rt::run::KernelArgs<'_>) -> #rt::run::Result<()> {
            #[cfg(target_arch = "x86_64")]
            {
                if #rt::qstd::rt::has_avx512() {
                    // SAFETY: the CPU supports these AVX-512 subsets, AVX2 and FMA (checked).
                    return unsafe { #avx512(__ctx, __args) };
                }
                if #rt::qstd::rt::has_avx2_fma() {
                    // SAFETY: the CPU supports AVX2 and FMA (checked just above).
                    return unsafe { #avx(__ctx, __args) };
                }
            }
            #generic(__ctx, __args)
        }
        #[doc(hidden)]
        #[allow(non_upper_case_globals)]
        static #stat: #rt::run::Kernel = #builder;
    })
}

/// The special parameters of one thread at position `__p0.. ` (already bound).
pub(super) fn specials(fg: &FnGen, d: usize) -> TokenStream {
    use Special as S;
    specials_only(fg, d, &[S::Pos, S::BlkPos, S::BlkIdx, S::BlkDim, S::BlkCnt, S::WarpSize])
}

/// The special parameters named in `names`.
pub(super) fn specials_only(fg: &FnGen, d: usize, names: &[Special]) -> TokenStream {
    let mut out = Vec::new();
    for (i, l) in fg.f.locals.iter().enumerate() {
        let Some(s) = l.special().filter(|s| names.contains(s)) else { continue };
        let n = &fg.names[i];
        let comps: Vec<TokenStream> = (0..d.max(1))
            .map(|k| {
                let p = format_ident!("__p{}", k);
                match s {
                    Special::Pos => quote!((#p as i32)),
                    Special::BlkPos => quote!((__ctx.blkpos(#k, #p) as i32)),
                    Special::BlkIdx => quote!((__ctx.blkidx(#k) as i32)),
                    Special::BlkDim => quote!((__ctx.blkdim(#k) as i32)),
                    Special::BlkCnt => quote!((__ctx.blkcnt(#k) as i32)),
                    // Thread groups make a kernel GPU-only (`gpu_only.rs`): never asked for.
                    _ => quote!((__ctx.warpsize() as i32)),
                }
            })
            .collect();
        let v = if l.ty.is_int() || s == Special::WarpSize {
            comps[0].clone()
        } else {
            quote!([#(#comps),*])
        };
        out.push(quote!(let #n = #v;));
    }
    quote!(#(#out)*)
}

/// A kernel without barriers: nested loops over the block's positions.
fn simple_body(fg: &mut FnGen, d: usize) -> GResult<TokenStream> {
    let locals = fg.declare_locals(|r| !matches!(r, LocalRole::Var))?;
    let sp = specials(fg, d);
    let body = fg.block(&fg.f.body)?;
    let thread = |b: &TokenStream| quote!({ #sp #locals '__thread: { #b } });
    if d == 0 {
        // No position parameter: one thread per position, whatever the launch rank.
        let t = thread(&body);
        return Ok(quote! {
            let __nd = __ctx.ndim();
            let __r0 = if __nd > 0 { __ctx.range(0) } else { 0..1 };
            let __r1 = if __nd > 1 { __ctx.range(1) } else { 0..1 };
            let __r2 = if __nd > 2 { __ctx.range(2) } else { 0..1 };
            for __p0 in __r0 { for __p1 in __r1.clone() { for __p2 in __r2.clone() { let _ = (__p0, __p1, __p2); #t } } }
        });
    }
    let last = d - 1;
    let plast = format_ident!("__p{}", last);
    let general = thread(&body);
    // The interior fast path.
    let views: HashMap<LocalId, usize> =
        fg.f.locals
            .iter()
            .enumerate()
            .filter_map(|(i, _)| {
                let id = LocalId(i as u32);
                match fg.local_repr(id) {
                    Repr::View(_, Some(r)) => Some((id, *r as usize)),
                    _ => None,
                }
            })
            .collect();
    let pos =
        fg.f.locals
            .iter()
            .position(|l| l.special() == Some(Special::Pos))
            .map(|i| LocalId(i as u32));
    let facts = super::interior::analyse(fg.f, pos, &views);
    let mut flat_fast = None;
    let inner = if facts.useful(last) {
        fg.interior = Some(facts.clone());
        let fast_body = fg.block(&fg.f.body);
        fg.interior = None;
        let fast = thread(&fast_body?);
        flat_fast = Some(fast.clone());
        let mut lo = vec![quote!(__r.start as i64)];
        let mut hi = vec![quote!(__r.end as i64)];
        let mut row_ok = vec![quote!(true)];
        for c in &facts.comps {
            let v = &fg.names[c.base.0 as usize];
            let ad = c.array_dim;
            let (clo, chi) = (c.lo.tokens(&fg.names), c.hi.tokens(&fg.names));
            if c.launch_dim == last {
                lo.push(quote!((-(#clo))));
                hi.push(quote!((#v.dim(#ad) as i64 - (#chi))));
            } else {
                let p = format_ident!("__p{}", c.launch_dim);
                row_ok.push(
                    quote!((#p as i64 + (#clo) >= 0 && #p as i64 + (#chi) < #v.dim(#ad) as i64)),
                );
            }
        }
        quote! {
            let __r = __ctx.range(#last);
            let __lo: i64 = [#(#lo),*].into_iter().max().unwrap_or(0);
            let __hi: i64 = [#(#hi),*].into_iter().min().unwrap_or(0);
            if #(#row_ok)&&* && __lo < __hi {
                let (__lo, __hi) = (__lo as usize, __hi as usize);
                for #plast in __r.start..__lo { #general }
                for #plast in __lo..__hi { #fast }
                for #plast in __hi..__r.end { #general }
            } else {
                for #plast in __r { #general }
            }
        }
    } else {
        quote!(for #plast in __ctx.range(#last) { #general })
    };
    let mut code = inner;
    for k in (0..last).rev() {
        let p = format_ident!("__p{}", k);
        code = quote!(for #p in __ctx.range(#k) { #code });
    }
    match (pos, &flat_fast) {
        (Some(p), Some(fast)) if super::collapse::applies(fg.f, p, &facts, d) => {
            Ok(super::collapse::flat_loop(fg, d, &facts, fast, &general, code))
        }
        _ => Ok(code),
    }
}

/// The blocks nested directly in a statement.
pub(super) fn child_blocks(s: &crate::ir::Stmt) -> Vec<&Block> {
    match &s.kind {
        StmtKind::If { then_body, else_body, .. } => vec![then_body, else_body],
        StmtKind::ForRange { body, .. }
        | StmtKind::ForEach { body, .. }
        | StmtKind::While { body, .. }
        | StmtKind::Repeat { body, .. } => vec![body],
        StmtKind::Match { arms, default, .. } => {
            arms.iter().map(|a| &a.body).chain(default.as_ref()).collect()
        }
        StmtKind::Try { body, handler, .. } => vec![body, handler],
        _ => Vec::new(),
    }
}

pub(super) fn contains_barrier(b: &Block) -> bool {
    b.iter().any(|s| {
        matches!(s.kind, StmtKind::SyncThreads) || child_blocks(s).into_iter().any(contains_barrier)
    })
}

/// `fn(blkdim) -> bytes` for the kernel descriptor: the shared arrays' sizes from the block
/// dimensions (each aligned to 64 bytes).
fn shared_bytes_fn(
    fg: &mut FnGen,
    d: usize,
    shared: &[(LocalId, Vec<Expr>)],
) -> GResult<TokenStream> {
    let rt = fg.g.rt.clone();
    let name = format_ident!("{}__shared", fg.g.fn_ident(fg.id));
    let blkdim = fg.f.locals.iter().position(|l| l.special() == Some(Special::BlkDim));
    let bind = match blkdim {
        Some(i) => {
            let n = &fg.names[i];
            let comps = (0..d).map(|k| quote!((*__b.get(#k).unwrap_or(&1) as i32)));
            if fg.f.locals[i].ty.is_int() {
                quote!(let #n: i32 = *__b.first().unwrap_or(&1) as i32;)
            } else {
                quote!(let #n = [#(#comps),*];)
            }
        }
        None => quote!(),
    };
    let mut sizes = Vec::new();
    for (l, args) in shared {
        for a in args {
            check_blkdim_only(fg, a)?;
        }
        let Repr::View(n, _) = fg.local_repr(*l).clone() else { continue };
        let nt = n.tokens(&rt);
        let dims = fg.shared_dims(args)?;
        sizes.push(quote!({
            let __dims: ::std::vec::Vec<usize> = #dims;
            __total = (__total + 63) / 64 * 64 + __dims.iter().product::<usize>() * ::core::mem::size_of::<#nt>();
        }));
    }
    Ok(quote! {
        #[allow(non_snake_case, unused_variables, clippy::all)]
        fn #name(__b: &[usize]) -> usize {
            let __f = || -> #rt::run::Result<usize> {
                #bind
                let mut __total = 0usize;
                #(#sizes)*
                ::core::result::Result::Ok(__total)
            };
            __f().unwrap_or(0)
        }
    })
}

fn check_blkdim_only(fg: &FnGen, e: &Expr) -> GResult<()> {
    let mut bad = None;
    crate::ir::walk::walk_expr(e, &mut |x| {
        if let ExprKind::Local(l) = x.kind {
            let local = fg.f.local(l);
            if local.special() != Some(Special::BlkDim) {
                bad = Some(x.span);
            }
        }
    });
    match bad {
        Some(span) => Err(unsupported(
            span,
            "a shared array whose size depends on something other than `blkdim` and constants",
        )),
        None => Ok(()),
    }
}

impl<'g, 'm> FnGen<'g, 'm> {
    /// The dimensions of `shared(args…)` as a `Vec<usize>` expression.
    pub(super) fn shared_dims(&mut self, args: &[Expr]) -> GResult<TokenStream> {
        let mut pushes = Vec::new();
        for a in args {
            let v = self.expr(a)?;
            let t = v.t;
            match v.r {
                Repr::Num(n) if n.is_int() => pushes.push(quote!(__d.push((#t).max(0) as usize);)),
                Repr::Fixed(n, _) if n.is_int() => {
                    pushes.push(quote!(__d.extend((#t).iter().map(|__v| (*__v).max(0) as usize));))
                }
                _ => return Err(unsupported(a.span, "this shared-array dimension")),
            }
        }
        Ok(
            quote!({ let mut __d: ::std::vec::Vec<usize> = ::std::vec::Vec::new(); #(#pushes)* __d }),
        )
    }

    /// `parallel_do(dims, args…, kernel)` in host code.
    pub fn parallel_do(
        &mut self,
        dims: &Expr,
        block_dims: Option<&Expr>,
        kernel: FunctionId,
        args: &[Expr],
        ty: &Type,
        span: Span,
    ) -> GResult<V> {
        let rt = self.g.rt.clone();
        if self.ctx != Ctx::Host {
            return Err(unsupported(
                span,
                "`parallel_do` inside kernel or device functions (dynamic parallelism)",
            ));
        }
        let slots = arg_slots(self.g, kernel);
        let kf = self.g.m.function(kernel);
        if slots.len() != args.len() {
            return Err(unsupported(
                span,
                format_args!(
                    "this launch: the kernel takes {} arguments, {} are given",
                    slots.len(),
                    args.len()
                ),
            ));
        }
        let dims_t = self.launch_dims(dims)?;
        let block = match block_dims {
            Some(b) => {
                let t = self.launch_dims(b)?;
                quote!(let __l = __l.block(&#t);)
            }
            None => quote!(),
        };
        let access = access_of(kf);
        let mut chain = Vec::new();
        for (a, slot) in args.iter().zip(&slots) {
            let l = kf.local(*slot);
            let v = self.expr(a)?;
            match &l.ty {
                Type::Array(arr) => {
                    let n = Num::of(&arr.elem, self.g.opts.double)
                        .ok_or_else(|| unsupported(a.span, "this kernel argument"))?;
                    let param = format!("argument `{}` of kernel `{}`", l.name, kf.name);
                    let rank = super::ty::rank_of(arr);
                    let x = self.fit_arg(v, &Repr::Array(n, rank), &param, &l.ty, a.span)?;
                    let acc = match access.get(slot).copied().unwrap_or((true, true)) {
                        (true, false) => quote!(Read),
                        (false, true) => quote!(ReadWrite),
                        _ => quote!(ReadWrite),
                    };
                    chain.push(
                        quote!(let __a = #x; let __l = __l.arg(&__a, #rt::run::Access::#acc);),
                    );
                }
                t => {
                    let r = super::expr::repr_in(self.g, t, Ctx::Kernel, l.span)?;
                    let x = self.convert(v, &r, a.span)?;
                    chain.push(quote!(let __l = __l.scalar(#x);));
                }
            }
        }
        let mut outs = Vec::new();
        let mut out_tys = Vec::new();
        for (k, (o, op)) in output_ops(kf).into_iter().enumerate() {
            let l = kf.local(o);
            let r = super::expr::repr_in(self.g, &l.ty, Ctx::Kernel, l.span)?;
            let Repr::Num(n) = r else {
                return Err(unsupported(l.span, "a kernel output that is not a number"));
            };
            let nt = n.tokens(&rt);
            let red = reduce_tokens(&rt, op)
                .ok_or_else(|| unsupported(l.span, "this kernel output reduction"))?;
            chain.push(quote!(let __l = __l.output::<#nt>(#red);));
            outs.push(quote!(__res.output::<#nt>(#k)?));
            out_tys.push(Repr::Num(n));
        }
        let stat = self.g.kernel_static(kernel);
        let result = match outs.len() {
            0 => quote!(()),
            1 => outs[0].clone(),
            _ => quote!((#(#outs),*)),
        };
        let produced = match out_tys.len() {
            0 => Repr::Unit,
            1 => out_tys[0].clone(),
            _ => Repr::Tuple(out_tys),
        };
        let t = quote!({
            let __dims = #dims_t;
            let __l = #rt::run::launch(&#stat).dims(&__dims);
            #block
            #(#chain)*
            let __res = __l.run()?;
            let _ = &__res;
            #result
        });
        let want = self.repr_of(ty, span)?;
        if want == produced || want == Repr::Unit {
            return Ok(V { t, r: produced });
        }
        let t = self.convert(V { t, r: produced }, &want, span)?;
        Ok(V { t, r: want })
    }

    /// Launch dimensions as a `Vec<usize>` expression (an `int`, or a vector of them).
    fn launch_dims(&mut self, e: &Expr) -> GResult<TokenStream> {
        let rt = self.g.rt.clone();
        let v = self.expr(e)?;
        let t = v.t;
        Ok(match v.r {
            Repr::Num(n) if n.is_int() => {
                quote!(#rt::qstd::builtins::to_dims("parallel_do", &[#t as i32])?)
            }
            Repr::Array(n, _) if n.is_int() => {
                quote!(#rt::qstd::builtins::to_dims("parallel_do", &#t.to_vec()?.into_iter().map(|__v| __v as i32).collect::<::std::vec::Vec<i32>>())?)
            }
            _ => return Err(unsupported(e.span, "these launch dimensions")),
        })
    }

    pub fn set_repr(&mut self, id: LocalId, r: Repr) {
        self.set_local_repr(id, r);
    }
}

/// Whether each array parameter of a kernel is read and/or written by its body.
fn access_of(f: &crate::ir::Function) -> HashMap<LocalId, (bool, bool)> {
    let mut acc: HashMap<LocalId, (bool, bool)> = HashMap::new();
    fn walk(b: &Block, acc: &mut HashMap<LocalId, (bool, bool)>) {
        let read = |e: &Expr, acc: &mut HashMap<LocalId, (bool, bool)>| {
            crate::ir::walk::walk_expr(e, &mut |x| {
                if let ExprKind::Local(l) = x.kind {
                    acc.entry(l).or_default().0 = true;
                }
            });
        };
        for s in b {
            match &s.kind {
                StmtKind::Assign { place, op, value } => {
                    if let PlaceKind::Index { base, indices } = &place.kind {
                        if let ExprKind::Local(l) = base.kind {
                            let e = acc.entry(l).or_default();
                            e.1 = true;
                            if *op != AssignOp::Assign {
                                e.0 = true;
                            }
                        } else {
                            read(base, acc);
                        }
                        for i in indices {
                            if let crate::ir::Index::At(x) = i {
                                read(x, acc);
                            }
                        }
                    }
                    read(value, acc);
                }
                StmtKind::Expr(e) | StmtKind::Destructure { value: e, .. } => read(e, acc),
                StmtKind::If { cond, then_body, else_body } => {
                    read(cond, acc);
                    walk(then_body, acc);
                    walk(else_body, acc);
                }
                StmtKind::ForRange { start, step, end, body, .. } => {
                    read(start, acc);
                    read(step, acc);
                    read(end, acc);
                    walk(body, acc);
                }
                StmtKind::ForEach { values, body, .. } => {
                    read(values, acc);
                    walk(body, acc);
                }
                StmtKind::While { cond, body } | StmtKind::Repeat { body, until: cond } => {
                    read(cond, acc);
                    walk(body, acc);
                }
                StmtKind::Match { scrutinee, arms, default } => {
                    read(scrutinee, acc);
                    for a in arms {
                        walk(&a.body, acc);
                    }
                    if let Some(d) = default {
                        walk(d, acc);
                    }
                }
                // Nothing else in a kernel body reads or writes arrays.
                _ => {}
            }
        }
    }
    walk(&f.body, &mut acc);
    acc
}
