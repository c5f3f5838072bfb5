//! Kernels as CPU kernels over one block (ARCHITECTURE §3), and `parallel_do` launches.
//!
//! * The block function reads its arguments once, then loops over the block's positions with
//!   the innermost loop along the last (contiguous) dimension; per-thread locals are plain
//!   Rust locals inside that loop (no allocation, no closure, no reference count).
//! * The innermost loop is split into border / interior / border when some accesses are
//!   affine in `pos` (the partition of `transform::interior`); the interior copy has no boundary
//!   handling for them.
//! * Kernels with `syncthreads` or `shared` memory: [`super::barrier`].
//! * On x86-64 the hot loop is compiled for AVX2+FMA where that pays and dispatched at run
//!   time; the border code once, which CPUs without AVX2+FMA run over whole rows
//!   ([`super::versions`]). The loops over the rows are `qstd::rt::block_rows`.

use super::func::{Ctx, FnGen};
use super::ty::{Num, Repr};
use super::versions::{self, EnvField};
use super::{unsupported, GResult, Gen};
use crate::analysis::lockstep::Lockstep;
use crate::ir::partition::{Bound, RegionBound, Term};
use crate::ir::{
    AssignOp, Block, Expr, FunctionId, LocalId, LocalRole, PlaceKind, Special, StmtKind,
};
use crate::sema::types::Type;
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

pub(crate) fn generate(g: &mut Gen, id: FunctionId) -> GResult<TokenStream> {
    // Inside the kernel's module the runtime is `__qrt` (short paths, short lines).
    let full = std::mem::replace(&mut g.rt, quote!(__qrt));
    let items = generate_in_module(g, id, &full);
    g.rt = full;
    items
}

fn generate_in_module(g: &mut Gen, id: FunctionId, full_rt: &TokenStream) -> GResult<TokenStream> {
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
    let accumulators = info.accumulators.clone();
    let vectorises = info.vectorises;
    let lockstep = info.lockstep.clone().ok();
    let assigned_args = info.assigned_args.clone();
    let outs = info.outputs.clone();
    let shared: Vec<(LocalId, Vec<Expr>)> =
        info.shared.iter().map(|s| (s.local, s.dims.clone())).collect();
    let block_sensitive = info.body_barrier || !shared.is_empty() || info.block_geometry;

    let mut fg = FnGen::new(g, id, Ctx::Kernel)?;
    // Arrays passed in are views, whatever their size.
    for &l in &slots {
        let local = fg.f.local(l);
        if let Type::Array(a) = &local.ty {
            let n = super::repr::elem_num(fg.g, &a.elem).ok_or_else(|| match &a.elem {
                // (A cell made by a literal is taken element by element: `device_fn_cells.rs`.)
                Type::Function(_) => unsupported(
                    local.span,
                    format_args!(
                        "arrays of {} given to a kernel (`{}`) whose elements are not known \
                         where the cell is made",
                        a.elem, local.name
                    ),
                    "make the cell with a literal (`{f, g}`) where it is given to the function \
                     holding the kernel, which is then specialised for its elements, or give \
                     the kernel each function value on its own",
                ),
                _ => unsupported(
                    local.span,
                    format_args!("arrays of {}", a.elem),
                    "use arrays of numbers (`int`, `scalar`, `cscalar`, …)",
                ),
            })?;
            fg.set_repr(l, Repr::View(n, super::ty::rank_of(a)));
        }
    }
    for (k, (o, _)) in outs.iter().enumerate() {
        fg.outputs.insert(*o, k);
    }
    for (l, args) in &shared {
        let n = fg.f.local(*l).ty.as_array().and_then(|a| Num::of(&a.elem));
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

    // Prologue: arguments, and the fields of the environment that carries them to the row and
    // border functions (`versions`).
    let mut prologue = Vec::new();
    let mut env = Vec::new();
    // The whole block function per version (barriers, or no position), else `rows`/`thread`.
    let whole_block = block_sensitive || rank.unwrap_or(0) == 0;
    for (i, &l) in slots.iter().enumerate() {
        let r = fg.local_repr_checked(l)?;
        let n = fg.names[l.0 as usize].clone();
        let ty = super::ty::rust_type(&r, &rt, &quote!('a));
        prologue.push(match r {
            Repr::View(e, rank) => {
                let et = e.tokens(&rt);
                let geom = rank.map(|r| r as usize);
                env.push(EnvField { name: n.clone(), ty, copy: true, geom });
                match geom {
                    Some(r) => {
                        // Extents and strides once per block (and per row), not per access.
                        fg.geom.insert(l, r);
                        let nn = format_ident!("{}__n", n);
                        let ss = format_ident!("{}__s", n);
                        if whole_block {
                            quote!(let (#n, #nn, #ss) = __args.view_geom::<#et, #r>(#i)?;)
                        } else {
                            // The row and border functions read them from the view.
                            quote!(let #n = __args.view_as::<#et>(#i, #r)?;)
                        }
                    }
                    None => quote!(let #n = __args.view::<#et>(#i)?;),
                }
            }
            Repr::Num(_) | Repr::FnVal(_) | Repr::Fixed(..) | Repr::Class(_) => {
                let copy = !matches!(r, Repr::FnVal(_) | Repr::Class(_));
                env.push(EnvField { name: n.clone(), ty: ty.clone(), copy, geom: None });
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
    fg.assigned_params = assigned_args
        .into_iter()
        .filter(|&l| matches!(fg.local_repr(l), Repr::Num(_) | Repr::Fixed(..)))
        .collect();
    let d = rank.unwrap_or(0);
    if d > 3 {
        return Err(unsupported(
            fg.f.span,
            "this kernel over more than three dimensions (folded into three only when every use \
             is a `parallel_do` with its dimensions written as a vector, a variable or \
             `size(…)`, no block dimensions, and `pos` its only block geometry parameter)",
            "launch the kernel that way, or launch over at most three dimensions and loop over \
             the others inside the kernel",
        ));
    }
    let check_rank = if d > 0 { quote!(__ctx.check_rank(#kname, #d)?;) } else { quote!() };
    let prologue = quote!(#check_rank #(#prologue)*);

    let code = if whole_block {
        let make_body = |fg: &mut FnGen, fused: bool| {
            fg.g.fused = fused;
            let body = if block_sensitive {
                super::barrier::barrier_body(fg, d, &shared)
            } else {
                positionless_body(fg)
            };
            fg.g.fused = false;
            body
        };
        let body = make_body(&mut fg, false)?;
        // The copy for CPUs with FMA, when it differs (it calls math routines that fuse).
        let fused_body = make_body(&mut fg, true)?;
        let fused_body = (fused_body.to_string() != body.to_string()).then_some(fused_body);
        versions::whole_block(&rt, &prologue, &body, fused_body.as_ref())
    } else {
        let (privatise, merge) = privatise(&mut fg, &accumulators, &mut env);
        let prologue = quote!(#prologue #privatise);
        let code = row_code(&mut fg, d, &outs, lockstep.as_ref())?;
        // Strips vectorise whatever the per-position loop does.
        let copies = versions::Copies::of(vectorises || code.strip.is_some(), code.fused());
        versions::rows(&rt, &prologue, &env, d, &code, &merge, copies)
    };
    let shared_fn = if shared.is_empty() {
        quote!()
    } else {
        super::shared::shared_bytes_fn(&mut fg, d, &shared)?
    };
    let sname = format_ident!("{}__shared", name);
    // The Quasar names of the launch arguments, for errors and the profile.
    let params: Vec<String> = slots.iter().map(|&l| fg.f.local(l).name.clone()).collect();
    // The Quasar name, for the run-time errors of the kernel's code.
    let src = &fg.f.name;
    let mut builder = quote!(#full_rt::run::Kernel::new(#kname, #name::run)
        .with_params(&[#(#params),*])
        .with_source_name(#src));
    if !shared.is_empty() {
        builder = quote!(#builder.with_shared(#name::#sname));
    } else if block_sensitive {
        builder = quote!(#builder.block_sensitive());
    } else if d >= 2
        && fg
            .f
            .partition
            .as_ref()
            .is_some_and(|p| p.crosses_rows(|l| fg.geom.get(&l).copied(), d - 1))
    {
        // A transpose: tiles keep the rows it walks across in cache.
        builder = quote!(#builder.with_cpu_tiles());
    }
    let builder = fg.g.ptx.attach(&fg.f.instance_name, builder, block_sensitive);
    // One module per kernel: rustc puts each in its own codegen unit, so LLVM spreads them over
    // the cores, and an incremental build redoes only the kernels that changed.
    Ok(quote! {
        #[allow(unused, non_snake_case, clippy::all)]
        mod #name {
            use super::*;
            use #full_rt as __qrt;
            #shared_fn
            #code
        }
        #[doc(hidden)]
        #[allow(non_upper_case_globals)]
        static #stat: #full_rt::run::Kernel = #builder;
    })
}

/// Private accumulation (`analysis::accumulators`): per accumulated-only view argument, the
/// code after the prologue that gives the block a private copy when that pays (the view's
/// name then means the copy, and a flag field in `Env` says so), and the code after the
/// block's loops that adds the copy into the argument.
fn privatise(
    fg: &mut FnGen,
    accumulators: &[LocalId],
    env: &mut Vec<EnvField>,
) -> (TokenStream, TokenStream) {
    let rt = fg.g.rt.clone();
    let (mut setup, mut merge) = (Vec::new(), Vec::new());
    for &l in accumulators {
        if !matches!(fg.local_repr(l), Repr::View(..)) {
            continue;
        }
        let n = fg.names[l.0 as usize].clone();
        let (sh, buf, flag) =
            (format_ident!("{}__sh", n), format_ident!("{}__buf", n), format_ident!("{}__pv", n));
        setup.push(quote! {
            let #sh = #n;
            let mut #buf = #rt::qstd::rt::private_buf(&#sh, __ctx);
            let (#n, #flag) = #rt::qstd::rt::private_view(#sh, &mut #buf)?;
        });
        merge.push(quote!(#rt::qstd::rt::private_merge(&#buf, &#sh);));
        env.push(EnvField { name: flag.clone(), ty: quote!(bool), copy: true, geom: None });
        fg.private_acc.insert(l, flag);
    }
    (quote!(#(#setup)*), quote!(#(#merge)*))
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

/// The locals of one thread: the kernel's non-`Var` locals, and a per-thread copy of each
/// parameter the body assigns to (each thread starts from the parameter's value).
fn thread_locals(fg: &mut FnGen) -> GResult<TokenStream> {
    let mut locals = fg.declare_locals(|r| !matches!(r, LocalRole::Var))?;
    for &l in &fg.assigned_params {
        let n = &fg.names[l.0 as usize];
        locals = quote!(#locals let mut #n = #n;);
    }
    Ok(locals)
}

/// A kernel without barriers and without a position parameter: one thread per position,
/// whatever the launch rank.
fn positionless_body(fg: &mut FnGen) -> GResult<TokenStream> {
    let locals = thread_locals(fg)?;
    let sp = specials(fg, 0);
    let body = fg.block(&fg.f.body)?;
    Ok(quote! {
        let __nd = __ctx.ndim();
        let __r0 = if __nd > 0 { __ctx.range(0) } else { 0..1 };
        let __r1 = if __nd > 1 { __ctx.range(1) } else { 0..1 };
        let __r2 = if __nd > 2 { __ctx.range(2) } else { 0..1 };
        for __p0 in __r0 { for __p1 in __r1.clone() { for __p2 in __r2.clone() {
            let _ = (__p0, __p1, __p2);
            { #sp #locals '__thread: { #body } }
        } } }
    })
}

/// The code of a kernel without barriers over `d >= 1` dimensions, laid out by
/// [`versions::rows`].
pub(super) struct RowCode {
    /// The block function's loops: `__rows(…)` runs the hot part of a row (the interior, or the
    /// whole row when the kernel has no interior path) and `thread(…)` one border thread.
    pub loops: TokenStream,
    /// One border thread (the body of `thread`), when the kernel has an interior path.
    pub border: Option<TokenStream>,
    /// One thread of the hot loop, and its copy for CPUs with FMA when that differs (it calls
    /// math routines that fuse).
    pub hot: TokenStream,
    pub hot_fma: Option<TokenStream>,
    /// Before and after the hot loop of a row: its local copies of the kernel's outputs.
    pub outputs: (TokenStream, TokenStream),
    /// The lanes of the hot loop's outputs (`qstd::rt::lanes`), when some output has them: the
    /// thread's code then runs in a closure given `(__p{last}, __l)`.
    pub lanes: Option<usize>,
    /// The hot loop in strips of positions run in lockstep ([`super::strip`]), when the kernel
    /// runs so (`analysis::lockstep`): the rest of a row runs `hot`.
    pub strip: Option<Strip>,
    /// Whether the interior may run as flat rows (`Partition::flat`): `rows` then gets flat
    /// indices, which the border code does not take.
    pub flat: bool,
    /// Whether consecutive interior rows run as one (`Partition::merge_rows`,
    /// `qstd::rt::block_runs`): `rows` then gets `[p0, 0, …, j]` with `j` flat along every
    /// dimension but the first, past the end of row `p0`.
    pub merge: bool,
}

/// The code of one strip of a row and its copy for CPUs with FMA when that differs (as
/// `RowCode::hot_fma`).
pub(super) struct Strip {
    pub body: TokenStream,
    pub body_fma: Option<TokenStream>,
    /// The strip of two rows (`Lockstep::pairs`) and its copy with FMA, when the kernel runs
    /// so: `rows2` runs the interior of two rows (`qstd::rt::block_row_pairs`).
    pub pairs: Option<(TokenStream, Option<TokenStream>)>,
}

impl RowCode {
    /// Whether the hot loop calls math routines that fuse (it then has a copy with `fma`).
    pub fn fused(&self) -> bool {
        self.hot_fma.is_some() || self.strip.as_ref().is_some_and(|s| s.body_fma.is_some())
    }
}

/// The hot loop of a row combines each kernel output into a local copy `__out{k}` (kept in
/// registers), read from the block's slot before the loop and written back after it, instead
/// of a checked slot lookup and a store per element (which made kernel-output sums 5 to 6
/// times slower). An output that every assignment combines with one regroupable reduction
/// ([`laned_op`]) gets [`LANES`] running values (`qstd::rt::Lanes`, the loop `qstd::rt::lanes`)
/// so that the loop vectorises; the others a `Cell`, in the order of a serial loop.
fn row_outputs(fg: &mut FnGen, ops: &[(LocalId, AssignOp)]) -> GResult<(TokenStream, TokenStream)> {
    let mut outs: Vec<(usize, LocalId)> = fg.outputs.iter().map(|(&l, &k)| (k, l)).collect();
    outs.sort();
    let rt = fg.g.rt.clone();
    let (mut open, mut close) = (Vec::new(), Vec::new());
    fg.laned.clear();
    for (k, l) in outs {
        let n = fg.local_repr(l).num().ok_or_else(|| {
            let span = fg.f.local(l).span;
            unsupported(span, "this kernel output", "make the output a number (`int` or `scalar`)")
        })?;
        let nt = n.tokens(&rt);
        let (acc, slot) = (format_ident!("__out{}", k), format_ident!("__slot{}", k));
        let op = ops.iter().find(|(o, _)| *o == l).map(|&(_, op)| op);
        let red = op.filter(|&op| laned_op(fg.f, l, op, n)).and_then(reduce_name);
        open.push(quote!(let #slot = __ctx.output::<#nt>(#k)?;));
        match red {
            Some(red) => {
                fg.laned.push(k);
                open.push(quote! {
                    let #acc = #rt::qstd::rt::Lanes::<#nt, #LANES>::new(#slot.get(), #rt::run::Reduce::#red);
                });
                close.push(quote!(#slot.set(#acc.fold());));
            }
            None => {
                open.push(quote!(let #acc = ::core::cell::Cell::new(#slot.get());));
                close.push(quote!(#slot.set(#acc.get());));
            }
        }
    }
    Ok((quote!(#(#open)*), quote!(#(#close)*)))
}

/// Running values per kernel output in a row's hot loop (`qstd::rt::lanes`): 64 `f32` are
/// eight AVX2 vectors, so that each lane's running value is read back 64 positions after it
/// was stored (the store-to-load latency of the chain is spread over eight vector additions).
const LANES: usize = 64;

/// Whether output `l` of kernel `f` (a `n`) may be combined in lanes: every assignment to it
/// combines with `op`, a reduction that may be regrouped: `+=` and `*=` on integers (exact,
/// they wrap), `+=` on real and complex floats and `*=` on real ones (the grouping changes the
/// rounding, as the library's pairwise `sum` and `prod` do), `^^=`/`__=` on real numbers
/// (exact in any order).
fn laned_op(f: &crate::ir::Function, l: LocalId, op: AssignOp, n: Num) -> bool {
    let ok = match op {
        AssignOp::Add => n != Num::F16 && !matches!(n, Num::Class(_)),
        AssignOp::Mul => n.is_int() || matches!(n, Num::F32 | Num::F64),
        AssignOp::Max | AssignOp::Min => n.is_int() || matches!(n, Num::F32 | Num::F64),
        _ => false,
    };
    let mut same = true;
    crate::ir::walk::walk_block(
        &f.body,
        &mut |s| match &s.kind {
            StmtKind::Assign { place, op: o, .. } if matches!(place.kind, PlaceKind::Local(x) if x == l) => {
                same &= *o == op
            }
            StmtKind::Destructure { places, .. } => {
                same &= !places
                    .iter()
                    .flatten()
                    .any(|p| matches!(p.kind, PlaceKind::Local(x) if x == l))
            }
            _ => {}
        },
        &mut |_| {},
    );
    ok && same
}

/// The `Reduce` variant of a laned reduction.
fn reduce_name(op: AssignOp) -> Option<Ident> {
    Some(format_ident!(
        "{}",
        match op {
            AssignOp::Add => "Sum",
            AssignOp::Mul => "Prod",
            AssignOp::Max => "Max",
            AssignOp::Min => "Min",
            _ => return None,
        }
    ))
}

/// The loops over the block's positions, the innermost along the last (contiguous) dimension
/// and split into border / interior / border by the kernel's partition (`transform::interior`).
/// Only the hot loop gets CPU-feature copies; the border code is emitted once.
fn row_code(
    fg: &mut FnGen,
    d: usize,
    ops: &[(LocalId, AssignOp)],
    lockstep: Option<&Lockstep>,
) -> GResult<RowCode> {
    let locals = thread_locals(fg)?;
    let sp = specials(fg, d);
    let facts = fg.f.partition.clone().unwrap_or_default();
    let thread = |fg: &mut FnGen, fused: bool, interior: bool| -> GResult<TokenStream> {
        fg.g.fused = fused;
        fg.interior = interior.then(|| facts.clone());
        let body = fg.block(&fg.f.body);
        fg.g.fused = false;
        fg.interior = None;
        let body = body?;
        // The statements of one thread (the callers brace them).
        Ok(quote!(#sp #locals '__thread: { #body }))
    };
    let last = d - 1;
    let outer: Vec<TokenStream> = (0..last)
        .map(|k| {
            let p = format_ident!("__p{}", k);
            quote!(#p)
        })
        .collect();
    let rows = |outer: &[TokenStream], lo: TokenStream, hi: TokenStream| {
        // SAFETY (generated): `__rows` is a version this CPU supports (checked when chosen).
        quote!(unsafe { __rows(__ctx, &__e, [#(#outer,)* #lo, #hi]) })
    };
    let interior = facts.constrains(last);
    let outputs = row_outputs(fg, ops)?;
    let lanes = (!fg.laned.is_empty()).then_some(LANES);
    fg.row_outputs = true;
    let hot = thread(fg, false, interior);
    let hot_fma = thread(fg, true, interior);
    fg.row_outputs = false;
    let (hot, hot_fma) = (hot?, hot_fma?);
    let hot_fma = (hot_fma.to_string() != hot.to_string()).then_some(hot_fma);
    let strip = match lockstep {
        Some(ls) => {
            let strip = |fg: &mut FnGen, ls: &Lockstep, fused: bool, pairs: bool| {
                fg.g.fused = fused;
                fg.interior = interior.then(|| facts.clone());
                let body = super::strip::strip_body(fg, d, ls, pairs);
                fg.g.fused = false;
                fg.interior = None;
                body
            };
            let body = strip(fg, ls, false, false)?;
            let body_fma = strip(fg, ls, true, false)?;
            let body_fma = (body_fma.to_string() != body.to_string()).then_some(body_fma);
            // Row pairs run in the interior split of `block_row_pairs` (not flat rows).
            let pairs = match ls.of_pairs() {
                Some(pl) if interior && !facts.flat => {
                    let body = strip(fg, &pl, false, true)?;
                    let fma = strip(fg, &pl, true, true)?;
                    let fma = (fma.to_string() != body.to_string()).then_some(fma);
                    Some((body, fma))
                }
                _ => None,
            };
            Some(Strip { body, body_fma, pairs })
        }
        None => None,
    };
    let nest = |mut code: TokenStream| {
        for k in (0..last).rev() {
            let p = format_ident!("__p{}", k);
            code = quote!(for #p in __ctx.range(#k) { #code });
        }
        code
    };
    if !interior {
        let run = rows(&outer, quote!(__r.start), quote!(__r.end));
        let loops = nest(quote!({ let __r = __ctx.range(#last); #run?; }));
        let (flat, merge) = (false, false);
        return Ok(RowCode {
            loops,
            border: None,
            hot,
            hot_fma,
            outputs,
            lanes,
            strip,
            flat,
            merge,
        });
    }
    let border = thread(fg, false, false)?;
    // The reach of the reads (evaluated here, per launch) and the two segment functions; the
    // loops over the rows and their split are `block_rows`, compiled once in quasar-std.
    let rt = fg.g.rt.clone();
    let reach = merged_reach(&facts.region).into_iter().map(|c| {
        let v = &fg.names[c.base.0 as usize];
        let (dim, ad) = (c.launch_dim, c.array_dim);
        let (lo, hi) = (bound_tokens(&c.lo, &fg.names), bound_tokens(&c.hi, &fg.names));
        quote!(#rt::qstd::rt::Reach::new(#dim, #lo, #hi, #v.dim(#ad)))
    });
    let shapes = {
        let mut bases: Vec<LocalId> = facts.region.iter().map(|c| c.base).collect();
        bases.sort_by_key(|b| b.0);
        bases.dedup();
        let shapes = bases.iter().map(|b| {
            let v = &fg.names[b.0 as usize];
            quote!(#v.shape())
        });
        quote!(&[#(#shapes),*])
    };
    let flat = if facts.flat {
        quote!(::core::option::Option::Some(#shapes))
    } else {
        quote!(::core::option::Option::None)
    };
    // Merged rows keep every position's code as it is and only change where rows are cut, so
    // the results are those of one row at a time: not with outputs, whose running values a
    // row combines in its own grouping (lanes), nor with row pairs.
    let pairs = strip.as_ref().is_some_and(|s| s.pairs.is_some());
    let merge = facts.merge_rows && ops.is_empty() && !pairs;
    let o: Vec<TokenStream> = (0..last).map(|k| quote!(__o[#k])).collect();
    let segment = quote!(thread(__ctx, &__e, [#(#o,)* __lo, __hi]));
    let run = rows(&o, quote!(__lo), quote!(__hi));
    // The partition's guards on the launch: when one fails, the border code runs every
    // position (as on a CPU without the hot loop's version), checking every access.
    let guards: Vec<TokenStream> = facts
        .guards
        .iter()
        .map(|g| {
            let v = &fg.names[g.base.0 as usize];
            let (lo, hi) = (bound_tokens(&g.lo, &fg.names), bound_tokens(&g.hi, &fg.names));
            let ad = g.array_dim;
            quote!((#lo >= 0 && #hi < #v.dim(#ad) as i64))
        })
        .collect();
    let guarded = if guards.is_empty() {
        quote!()
    } else {
        quote! {
            let (__rows, __split): (Rows, bool) =
                if #(#guards)&&* { (__rows, __split) } else { (thread, false) };
        }
    };
    let loops = if merge {
        quote! {
            #guarded
            #rt::qstd::rt::block_runs(
                __ctx, #d, __split, &[#(#reach),*], #shapes,
                &mut |__o, __lo, __hi| #segment, &mut |__o, __lo, __hi| #run,
            )?;
        }
    } else if pairs {
        // SAFETY (generated): `__pair` is the version of `__rows` for two rows.
        let pair = quote!(unsafe { __pair(__ctx, &__e, [#(#o,)* __lo, __hi]) });
        quote! {
            #guarded
            #rt::qstd::rt::block_row_pairs(
                __ctx, #d, __split, &[#(#reach),*],
                &mut |__o, __lo, __hi| #segment, &mut |__o, __lo, __hi| #run,
                &mut |__o, __lo, __hi| #pair,
            )?;
        }
    } else {
        quote! {
            #guarded
            #rt::qstd::rt::block_rows(
                __ctx, #d, __split, &[#(#reach),*], #flat,
                &mut |__o, __lo, __hi| #segment, &mut |__o, __lo, __hi| #run,
            )?;
        }
    };
    let (border, flat) = (Some(border), facts.flat);
    Ok(RowCode { loops, border, hot, hot_fma, outputs, lanes, strip, flat, merge })
}

/// The partition's constraints with those of one array dimension and launch dimension whose
/// bounds are constants merged into one (the widest): `x[pos]` and `x[pos + [dy, dx, 0]]`
/// give one reach `[-1, 1]`, not two.
fn merged_reach(region: &[RegionBound]) -> Vec<RegionBound> {
    let mut out: Vec<RegionBound> = Vec::new();
    for c in region {
        let constant = |b: &Bound| b.terms.is_empty();
        let same = out.iter_mut().find(|o| {
            (o.base, o.array_dim, o.launch_dim) == (c.base, c.array_dim, c.launch_dim)
                && [&o.lo, &o.hi, &c.lo, &c.hi].into_iter().all(constant)
        });
        match same {
            Some(o) => {
                o.lo.c = o.lo.c.min(c.lo.c);
                o.hi.c = o.hi.c.max(c.hi.c);
            }
            None => out.push(c.clone()),
        }
    }
    out
}

/// A partition bound as an `i64` expression of the block function, where `names` are the
/// locals' Rust names (arguments are bound before the position loops).
fn bound_tokens(b: &Bound, names: &[Ident]) -> TokenStream {
    let c = b.c;
    let mut parts: Vec<TokenStream> = Vec::new();
    if c != 0 || b.terms.is_empty() {
        parts.push(quote!(#c));
    }
    for &(k, t) in &b.terms {
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
        parts.push(match k {
            1 => v,
            -1 => quote!(-#v),
            _ => quote!(#k * #v),
        });
    }
    quote!((#(#parts)+*))
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
