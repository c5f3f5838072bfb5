//! Strips: consecutive positions of a row run in lockstep, for the kernels whose positions
//! each run a loop that stays a loop (`analysis::lockstep`: a separable blur's taps, a matrix
//! product's inner sum), which do not vectorise one position at a time.
//!
//! A strip is [`LANES`] positions `__p{last} .. __p{last} + LANES` of the hot loop of a row.
//! Its body is the kernel body once: each varying local is an array with one value per lane
//! (`acc[__l]`), each run of statements that vary is a loop over the lanes, which LLVM
//! vectorises (the lanes are independent, and each keeps its own order of operations, so the
//! results are those of the per-position code), and the statements that do not vary (a tap
//! loop's header, uniform locals) run once per strip. The last strip of a segment of a row
//! ends at the segment's end, overlapping the one before (the overlapped positions write the
//! same values again); a segment shorter than a strip runs the per-position code
//! (`versions::rows`).

use super::func::FnGen;
use super::kernel::specials;
use super::ty::Repr;
use super::GResult;
use crate::analysis::lockstep::Lockstep;
use crate::ir::{LocalRole, Special, Stmt, StmtKind};
use proc_macro2::{Ident, TokenStream, TokenTree};
use quote::{format_ident, quote};

/// Positions per strip: 32 `f32` are four AVX2 vectors (two SSE registers' worth of
/// independent sums more than the latency of an addition needs), so a strip's tap loop issues
/// independent additions back to back instead of waiting on one running sum.
pub(super) const LANES: usize = 32;

/// The code of a strip of a row of a `d`-dimensional kernel (run with `__p{last}` its first
/// position): its locals, then the body with `lockstep`'s varying locals per lane. With
/// `pairs` (`Lockstep::pairs`, whose lockstep `lockstep` then is) the strip holds the same
/// positions of two rows, `__p{d-2}` and the next: each varying local is `[[T; LANES]; 2]`
/// and each run of varying statements a loop over the rows around the loop over the lanes,
/// so that a read the rows share is loaded once for both (LLVM hoists it out of the row
/// loop) while the statements of each position keep their order.
pub(super) fn strip_body(
    fg: &mut FnGen,
    d: usize,
    lockstep: &Lockstep,
    pairs: bool,
) -> GResult<TokenStream> {
    debug_assert!(!pairs || d >= 2);
    fg.lane_rows = pairs;
    let body = strip_code(fg, d, lockstep);
    fg.lane_rows = false;
    body
}

fn strip_code(fg: &mut FnGen, d: usize, lockstep: &Lockstep) -> GResult<TokenStream> {
    let locals = strip_locals(fg, lockstep)?;
    // The locals held per lane: the varying variables (`pos` is bound per lane instead).
    let lanes: Vec<bool> = (fg.f.locals.iter().zip(&lockstep.varying))
        .map(|(l, &v)| v && l.role == LocalRole::Var)
        .collect();
    let f = fg.f;
    let mut uniform_pos = false;
    let body = strip_block(fg, d, lockstep, &lanes, &f.body, &mut uniform_pos)?;
    // `pos` at the strip's first position, when uniform code reads its outer components.
    let sp = if uniform_pos { specials(fg, d) } else { quote!() };
    Ok(quote!(#sp #locals #body))
}

/// Whether `ts` holds the identifier `name` (generated code that reads a local).
fn mentions(ts: &TokenStream, name: &Ident) -> bool {
    ts.clone().into_iter().any(|t| match t {
        TokenTree::Ident(i) => i == *name,
        TokenTree::Group(g) => mentions(&g.stream(), name),
        _ => false,
    })
}

/// The kernel's variables: varying ones as `[T; LANES]`, the others as in a thread.
fn strip_locals(fg: &mut FnGen, lockstep: &Lockstep) -> GResult<TokenStream> {
    let mut out = Vec::new();
    let f = fg.f;
    for (i, l) in f.locals.iter().enumerate() {
        if l.role != LocalRole::Var {
            continue;
        }
        let id = crate::ir::LocalId(i as u32);
        let r = fg.local_repr_checked(id)?;
        if r == Repr::Unit {
            continue;
        }
        let (name, ty, zero) = (&fg.names[i], fg.rust_type(&r), fg.default_value(&r, l.span)?);
        out.push(if lockstep.varies(id) && fg.lane_rows {
            quote!(let mut #name: [[#ty; #LANES]; 2] = [[#zero; #LANES]; 2];)
        } else if lockstep.varies(id) {
            quote!(let mut #name: [#ty; #LANES] = [#zero; #LANES];)
        } else {
            quote!(let mut #name: #ty = #zero;)
        });
    }
    Ok(quote!(#(#out)*))
}

/// A block of a strip: each run of per-lane statements in one loop over the lanes (the lanes
/// do not see each other's values, so running a lane's statements together changes nothing),
/// uniform statements once, `for` loops (uniform bounds) around their body's strip code.
fn strip_block(
    fg: &mut FnGen,
    d: usize,
    lockstep: &Lockstep,
    lanes: &[bool],
    b: &[Stmt],
    uniform_pos: &mut bool,
) -> GResult<TokenStream> {
    let plast = format_ident!("__p{}", d - 1);
    let mut out = Vec::new();
    let mut run: Vec<TokenStream> = Vec::new();
    let sp = specials(fg, d);
    // The name of `pos`: each lane binds it when its statements read it.
    let pos = fg.f.locals.iter().position(|l| l.special() == Some(Special::Pos));
    let pos = pos.map(|p| fg.names[p].clone());
    let prow = format_ident!("__p{}", d.saturating_sub(2));
    let rows = fg.lane_rows;
    let flush = |run: &mut Vec<TokenStream>, out: &mut Vec<TokenStream>| {
        if !run.is_empty() {
            let code = quote!(#(#run)*);
            let sp = if pos.as_ref().is_some_and(|p| mentions(&code, p)) { &sp } else { &quote!() };
            let lanes = quote! {
                for __l in 0..#LANES {
                    let #plast = #plast + __l;
                    #sp
                    #code
                }
            };
            out.push(if rows {
                quote! {
                    for __r in 0..2usize {
                        let #prow = #prow + __r;
                        #lanes
                    }
                }
            } else {
                lanes
            });
            run.clear();
        }
    };
    for s in b {
        if lockstep.per_lane(s) {
            fg.lane_locals = Some(lanes.to_vec());
            let code = fg.stmt(s);
            fg.lane_locals = None;
            run.push(code?);
            continue;
        }
        flush(&mut run, &mut out);
        out.push(match &s.kind {
            StmtKind::ForRange { var, start, step, end, body, .. } => {
                fg.loop_depth += 1;
                let inner = strip_block(fg, d, lockstep, lanes, body, uniform_pos);
                fg.loop_depth -= 1;
                let inner = inner?;
                let header = fg.for_range_with(*var, start, step, end, quote!(), s.span)?;
                *uniform_pos |= pos.as_ref().is_some_and(|p| mentions(&header, p));
                fg.for_range_with(*var, start, step, end, inner, s.span)?
            }
            // A condition the same for every lane: once per strip, around the strip code of
            // its branches (`Lockstep::per_lane` sends a varying one to the lanes whole).
            StmtKind::If { cond, then_body, else_body } => {
                let c = fg.truthy(cond)?;
                *uniform_pos |= pos.as_ref().is_some_and(|p| mentions(&c, p));
                let a = strip_block(fg, d, lockstep, lanes, then_body, uniform_pos)?;
                if else_body.is_empty() {
                    quote!(if #c { #a })
                } else {
                    let b = strip_block(fg, d, lockstep, lanes, else_body, uniform_pos)?;
                    quote!(if #c { #a } else { #b })
                }
            }
            _ => {
                let code = fg.stmt(s)?;
                *uniform_pos |= pos.as_ref().is_some_and(|p| mentions(&code, p));
                code
            }
        });
    }
    flush(&mut run, &mut out);
    Ok(quote!(#(#out)*))
}
