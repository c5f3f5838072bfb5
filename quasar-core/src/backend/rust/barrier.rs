//! Kernels with `syncthreads` or shared memory on the CPU (ARCHITECTURE §3, the MCUDA
//! technique): the body is cut at each barrier into regions, and each region runs as a loop
//! over all the block's threads, with every local kept per thread. A barrier inside a `for`
//! or `while` loop makes the loop itself run once for the whole block: its bounds or condition
//! are evaluated for thread 0 (CUDA requires every thread of the block to reach the same
//! barriers, so they are uniform in a correct kernel) and each iteration runs the regions of
//! the loop body in turn.

use super::func::FnGen;
use super::kernel::{child_blocks, specials, specials_only};
use super::ty::Repr;
use super::{unsupported, GResult};
use crate::analysis::contains_barrier;
use crate::ir::{Block, Expr, LocalId, LocalRole, Stmt, StmtKind};
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

/// A piece of a block-sensitive kernel body.
enum Segment {
    /// Statements without a barrier, run by every thread in turn.
    Region(Block),
    /// A `for`/`while` loop whose body holds a barrier, run once for the block.
    Loop(Box<Stmt>, Vec<Segment>),
}

/// Cuts `b` at its barriers. `in_loop`: `b` is the body of a block-level loop, where a `break`
/// or `continue` of that loop would have to be uniform across threads (not supported).
fn split(b: &Block, in_loop: bool) -> GResult<Vec<Segment>> {
    let mut out = Vec::new();
    let mut current: Block = Vec::new();
    for s in b {
        match &s.kind {
            StmtKind::SyncThreads => out.push(Segment::Region(std::mem::take(&mut current))),
            StmtKind::ForRange { body, .. } | StmtKind::While { body, .. }
                if contains_barrier(body) =>
            {
                out.push(Segment::Region(std::mem::take(&mut current)));
                out.push(Segment::Loop(Box::new(s.clone()), split(body, true)?));
            }
            _ if child_blocks(s).into_iter().any(|b| contains_barrier(b)) => {
                return Err(unsupported(
                    s.span,
                    "`syncthreads` inside a branch, `repeat` or `for` over values",
                    "call `syncthreads` at the top level of the kernel body or in a `for` range or \
                     `while` loop, and branch around the code between barriers",
));
            }
            StmtKind::Break | StmtKind::Continue if in_loop => {
                return Err(unsupported(
                    s.span,
                    "`break`/`continue` in a loop that contains `syncthreads`",
                    "end the loop through its condition instead of `break`/`continue`",
                ));
            }
            _ => current.push(s.clone()),
        }
    }
    out.push(Segment::Region(current));
    Ok(out)
}

/// The block's extents along CUDA's three axes (1 past the launch rank `d`).
fn block_dims(d: usize) -> [TokenStream; 3] {
    std::array::from_fn(|k| if k < d { quote!(__ctx.blkdim(#k)) } else { quote!(1usize) })
}

/// The positions of thread `#t` of the block.
fn positions(d: usize, t: &Ident) -> TokenStream {
    let blk = block_dims(d);
    let (b1, b2) = (&blk[1], &blk[2]);
    let starts: Vec<TokenStream> = (0..3)
        .map(|k| if k < d { quote!(__ctx.block_start(#k)) } else { quote!(0usize) })
        .collect();
    let (s0, s1, s2) = (&starts[0], &starts[1], &starts[2]);
    quote! {
        let __p0 = #s0 + #t / (#b1 * #b2);
        let __p1 = #s1 + (#t / #b2) % #b1;
        let __p2 = #s2 + #t % #b2;
        let _ = (__p0, __p1, __p2);
    }
}

fn segments(fg: &mut FnGen, d: usize, t: &Ident, segs: &[Segment]) -> GResult<Vec<TokenStream>> {
    let mut code = Vec::new();
    for seg in segs {
        match seg {
            Segment::Region(stmts) if stmts.is_empty() => {}
            Segment::Region(stmts) => {
                let body = fg.block(stmts)?;
                let sp = specials(fg, d);
                let pos = positions(d, t);
                code.push(quote! {
                    for #t in 0..__threads {
                        #pos
                        #sp
                        '__thread: { #body }
                    }
                });
            }
            Segment::Loop(s, inner) => {
                let inner = segments(fg, d, t, inner)?;
                let sp = specials(fg, d);
                let pos = positions(d, t);
                // Thread 0's view, for the loop's bounds or condition.
                let thread0 = quote!(let #t = 0usize; #pos #sp);
                code.push(match &s.kind {
                    StmtKind::ForRange { var, start, step, end, .. } => {
                        // The loop variable is per thread: every thread sees the iteration.
                        let n = fg.names[var.0 as usize].clone();
                        let body = quote! {
                            let __iv = #n[#t];
                            for __u in 0..__threads { #n[__u] = __iv; }
                            #(#inner)*
                        };
                        let lp = fg.for_range_with(*var, start, step, end, body, s.span)?;
                        quote!({ #thread0 #lp })
                    }
                    StmtKind::While { cond, .. } => {
                        let c = fg.truthy(cond)?;
                        quote!(loop {
                            let __c = { #thread0 #c };
                            if !__c { break; }
                            #(#inner)*
                        })
                    }
                    _ => {
                        return Err(unsupported(
                            s.span,
                            "this loop around `syncthreads`",
                            "use a `for` range or a `while` loop around `syncthreads`",
                        ))
                    }
                });
            }
        }
    }
    Ok(code)
}

/// A block-sensitive kernel: each barrier-free region loops over all the block's threads,
/// with every local kept per thread.
pub(super) fn barrier_body(
    fg: &mut FnGen,
    d: usize,
    shared: &[(LocalId, Vec<Expr>)],
) -> GResult<TokenStream> {
    let rt = fg.g.rt.clone();
    if d == 0 {
        return Err(unsupported(
            fg.f.span,
            "a kernel with `syncthreads` or shared memory but no position parameter",
            "add a position parameter (`pos`, or `blkpos` and `blkdim`) to the kernel",
        ));
    }
    let t = format_ident!("__t");
    // Per-thread storage for every variable.
    // Dynamic kernel memory: one arena per variable for the block's threads, which run in
    // this OS thread (`heap.rs`); until its first allocation a variable is an empty view.
    let mut decls = vec![fg.declare_arenas()];
    for (i, l) in fg.f.locals.iter().enumerate() {
        if l.role != LocalRole::Var || shared.iter().any(|(s, _)| s.0 as usize == i) {
            continue;
        }
        let id = LocalId(i as u32);
        let r = fg.local_repr(id).clone();
        if matches!(r, Repr::Unit) {
            continue;
        }
        let ty = fg.rust_type(&r);
        let dv = match &r {
            Repr::View(n, _) if fg.heap_locals.contains(&id) => {
                let nt = n.tokens(&rt);
                quote!(#rt::qstd::rt::kernel_empty::<#nt>()?)
            }
            _ => fg.default_value(&r, l.span)?,
        };
        let n = &fg.names[i];
        decls.push(quote!(let mut #n: ::std::vec::Vec<#ty> = ::std::vec![#dv; __threads];));
    }
    // Parameters the body assigns to: per thread too, from the parameter's value.
    for &l in &fg.assigned_params {
        let ty = fg.rust_type(&fg.local_repr(l).clone());
        let n = &fg.names[l.0 as usize];
        decls.push(quote!(let mut #n: ::std::vec::Vec<#ty> = ::std::vec![#n; __threads];));
    }
    // Shared arrays, carved from the block's shared memory.
    let mut shared_decls = vec![quote!(let mut __shoff = 0usize;)];
    for (l, args) in shared {
        let r = fg.local_repr(*l).clone();
        let Repr::View(n, _) = r else { continue };
        let nt = n.tokens(&rt);
        let dims = fg.shared_dims(args)?;
        let name = &fg.names[l.0 as usize];
        let sp = specials_only(fg, d, &[crate::ir::Special::BlkDim]);
        shared_decls.push(quote! {
            let #name = {
                #sp
                let __dims: ::std::vec::Vec<usize> = #dims;
                let __n: usize = __dims.iter().product();
                let __off = (__shoff + 63) / 64 * 64;
                __shoff = __off + __n * ::core::mem::size_of::<#nt>();
                if __shoff > __ctx.shared_len() {
                    return ::core::result::Result::Err(#rt::run::Error::Unsupported(::std::string::String::from("shared memory larger than computed for the block")));
                }
                // SAFETY: [__off, __shoff) lies inside this block's shared memory, aligned to 64.
                unsafe { #rt::run::KernelView::<#nt>::from_raw(__ctx.shared().add(__off) as *mut #nt, &__dims)? }
            };
        });
    }
    fg.per_thread = Some(t.clone());
    // The shared arrays are bound above, once per block.
    let top: Block = fg.f.body.iter().filter(|s| !is_shared_decl(s, shared)).cloned().collect();
    let segs = split(&top, false);
    let code = segs.and_then(|segs| segments(fg, d, &t, &segs));
    fg.per_thread = None;
    let code = code?;
    let blk = block_dims(d);
    let (b0, b1, b2) = (&blk[0], &blk[1], &blk[2]);
    Ok(quote! {
        let __threads: usize = #b0 * #b1 * #b2;
        #(#shared_decls)*
        #(#decls)*
        #(#code)*
    })
}

/// Whether `s` is the statement of one of the kernel's top-level shared arrays.
fn is_shared_decl(s: &Stmt, shared: &[(LocalId, Vec<Expr>)]) -> bool {
    match &s.kind {
        StmtKind::Assign { place, value, .. } => {
            matches!(place.kind, crate::ir::PlaceKind::Local(l) if shared.iter().any(|(k, _)| *k == l))
                && matches!(
                    value.kind,
                    crate::ir::ExprKind::Call {
                        callee: crate::ir::Callee::Builtin(
                            crate::ir::Builtin::Shared | crate::ir::Builtin::SharedZeros
                        ),
                        ..
                    }
                )
        }
        _ => false,
    }
}
