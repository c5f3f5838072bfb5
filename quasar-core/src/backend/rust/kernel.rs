//! Kernels as CPU kernels over one block (ARCHITECTURE §3), and `parallel_do` launches.
//!
//! * The block function reads its arguments once, then loops over the block's positions with
//!   the innermost loop along the last (contiguous) dimension; per-thread locals are plain
//!   Rust locals inside that loop (no allocation, no closure, no reference count).
//! * The innermost loop is split into border / interior / border when some accesses are
//!   affine in `pos` (the partition of `transform::interior`); the interior copy has no boundary
//!   handling for them.
//! * Kernels with `syncthreads` or `shared` memory: [`super::barrier`].
//! * On x86-64 the block function is compiled three times (baseline, AVX2+FMA, AVX-512) and dispatched
//!   at run time.

use super::func::{Ctx, FnGen};
use super::ty::{Num, Repr};
use super::{unsupported, GResult, Gen};
use crate::ir::partition::{Bound, Term};
use crate::ir::{Block, Expr, FunctionId, LocalId, LocalRole, Special, StmtKind};
use crate::sema::types::Type;
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

pub(crate) fn generate(g: &mut Gen, id: FunctionId) -> GResult<TokenStream> {
    let rt = g.rt.clone();
    let f = g.m.function(id);
    let name = g.fn_ident(id);
    let stat = g.kernel_static(id);
    let kname = super::sanitize(&f.instance_name);
    let info = g.info.kernel(id).ok_or_else(|| {
        unsupported(f.span, "this kernel", "give every parameter of the kernel a type")
    })?;
    let rank = info.position_rank;
    let slots = info.arg_slots.clone();
    let outs = info.outputs.clone();
    let shared: Vec<(LocalId, Vec<Expr>)> =
        info.shared.iter().map(|s| (s.local, s.dims.clone())).collect();
    let block_sensitive = info.body_barrier || !shared.is_empty() || info.block_geometry;

    let mut fg = FnGen::new(g, id, Ctx::Kernel)?;
    // Arrays passed in are views, whatever their size.
    for &l in &slots {
        let local = fg.f.local(l);
        if let Type::Array(a) = &local.ty {
            let n = super::expr::elem_num(fg.g, &a.elem).ok_or_else(|| {
                unsupported(
                    local.span,
                    format_args!("arrays of {}", a.elem),
                    "use arrays of numbers (`int`, `scalar`, `cscalar`, …)",
                )
            })?;
            fg.set_repr(l, Repr::View(n, super::ty::rank_of(a)));
        }
    }
    for (k, (o, _)) in outs.iter().enumerate() {
        fg.outputs.insert(*o, k);
    }
    for (l, args) in &shared {
        let n = fg.f.local(*l).ty.as_array().and_then(|a| Num::of(&a.elem, fg.g.opts.double));
        let n = n.ok_or_else(|| {
            unsupported(
                fg.f.span,
                "this shared array",
                "give `shared` arrays a numeric element type",
            )
        })?;
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
            Repr::Num(_) | Repr::FnVal(_) | Repr::Fixed(..) | Repr::Class(_) => {
                quote!(let #n: #ty = __args.scalar(#i)?;)
            }
            _ => {
                return Err(unsupported(
                    fg.f.local(l).span,
                    "a kernel argument of this type",
                    "pass numbers, fixed-size vectors or arrays of numbers to kernels",
                ))
            }
        });
    }
    // Parameters the body assigns to (the manual's `val = acc(val, …)`): per-thread copies.
    fg.assigned_params = assigned_locals(&fg.f.body)
        .into_iter()
        .filter(|l| slots.contains(l))
        .filter(|&l| matches!(fg.local_repr(l), Repr::Num(_) | Repr::Fixed(..)))
        .collect();
    let d = rank.unwrap_or(0);
    if d > 3 {
        return Err(unsupported(
            fg.f.span,
            "kernels over more than three dimensions",
            "launch over at most three dimensions and loop over the others inside the kernel",
        ));
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
    let shared_fn = if shared.is_empty() {
        quote!()
    } else {
        super::shared::shared_bytes_fn(&mut fg, d, &shared)?
    };
    let sname = format_ident!("{}__shared", name);
    // The Quasar names of the launch arguments, for errors and the profile.
    let params: Vec<String> = slots.iter().map(|&l| fg.f.local(l).name.clone()).collect();
    let mut builder = quote!(#rt::run::Kernel::new(#kname, #name).with_params(&[#(#params),*]));
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
/// The locals a block assigns to as a whole (`x = …`, `x op= …`, `[x, …] = …`).
fn assigned_locals(body: &[crate::ir::Stmt]) -> Vec<LocalId> {
    use crate::ir::PlaceKind;
    let mut out = Vec::new();
    crate::ir::walk::walk_block(
        body,
        &mut |s| {
            let places: Vec<&crate::ir::Place> = match &s.kind {
                StmtKind::Assign { place, .. } => vec![place],
                StmtKind::Destructure { places, .. } => places.iter().flatten().collect(),
                _ => Vec::new(),
            };
            for p in places {
                if let PlaceKind::Local(l) = p.kind {
                    out.push(l);
                }
            }
        },
        &mut |_| {},
    );
    out
}

fn simple_body(fg: &mut FnGen, d: usize) -> GResult<TokenStream> {
    let mut locals = fg.declare_locals(|r| !matches!(r, LocalRole::Var))?;
    // Each thread starts from the parameter's value.
    for &l in &fg.assigned_params {
        let n = &fg.names[l.0 as usize];
        locals = quote!(#locals let mut #n = #n;);
    }
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
    // The interior fast path (the kernel's partition, `transform::interior`).
    let facts = fg.f.partition.clone().unwrap_or_default();
    let mut flat_fast = None;
    let inner = if facts.constrains(last) {
        fg.interior = Some(facts.clone());
        let fast_body = fg.block(&fg.f.body);
        fg.interior = None;
        let fast = thread(&fast_body?);
        flat_fast = Some(fast.clone());
        let mut lo = vec![quote!(__r.start as i64)];
        let mut hi = vec![quote!(__r.end as i64)];
        let mut row_ok = vec![quote!(true)];
        for c in &facts.region {
            let v = &fg.names[c.base.0 as usize];
            let ad = c.array_dim;
            let (clo, chi) = (bound_tokens(&c.lo, &fg.names), bound_tokens(&c.hi, &fg.names));
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
    match &flat_fast {
        Some(fast) if facts.flat => {
            Ok(super::collapse::flat_loop(fg, d, &facts, fast, &general, code))
        }
        _ => Ok(code),
    }
}

/// A partition bound as an `i64` expression of the block function, where `names` are the
/// locals' Rust names (arguments are bound before the position loops).
pub(super) fn bound_tokens(b: &Bound, names: &[Ident]) -> TokenStream {
    let c = b.c;
    let terms = b.terms.iter().map(|&(k, t)| {
        let v = match t {
            Term::Local(l) => {
                let n = &names[l.0 as usize];
                quote!((#n as i64))
            }
            Term::Numel(l) => {
                let n = &names[l.0 as usize];
                quote!((#n.numel() as i64))
            }
            Term::Size(l, d) => {
                let n = &names[l.0 as usize];
                quote!((#n.dim(#d) as i64))
            }
        };
        quote!(+ (#k) * #v)
    });
    quote!(((#c) #(#terms)*))
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

impl FnGen<'_, '_> {
    pub fn set_repr(&mut self, id: LocalId, r: Repr) {
        self.set_local_repr(id, r);
    }
}
