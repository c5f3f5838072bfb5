//! Slices of known length: `x[m, n, :]` over a dimension whose extent the array's type fixes
//! (`img : cube(:, :, 3)`, or `cube(:, :, N)` once a generic function is specialised for
//! `N = 3`, manual §6.7) becomes `x[m, n, 0..2]`, a range of constant length. The loop
//! parallelizer refuses `:` (its length is only known at run time, manual §8.2: "consider
//! using `a..b` instead"), while both back ends compile constant-length ranges in kernels as
//! fixed-size vectors; with this pass the manual's `colortransform[N]` loop is parallelised.
//!
//! Only subscripts with one index per dimension are rewritten (with fewer, the last `:`
//! spans the remaining dimensions, manual §3.2).

use crate::ir::visit::{walk_expr_mut, walk_place_mut, VisitMut};
use crate::ir::{Const, Expr, ExprKind, Index, Module, Place, PlaceKind};
use crate::sema::types::{Dim, Rank, Type};
use crate::span::Span;

/// Rewrites `:` over dimensions of known extent into constant ranges.
pub fn run(module: &mut Module, _cx: &super::PassContext) {
    for f in &mut module.functions {
        if !f.generic {
            KnownSlices.visit_block_mut(&mut f.body);
        }
    }
}

/// `0..n-1` in place of `:` where `base_ty` fixes extent `n` of that dimension.
fn rewrite(base_ty: &Type, indices: &mut [Index], span: Span) {
    let Some(a) = base_ty.as_array() else { return };
    let (Rank::Fixed(r), Some(shape)) = (a.rank, a.shape.as_deref()) else { return };
    if indices.len() != r as usize || shape.len() != indices.len() {
        return;
    }
    for (i, d) in indices.iter_mut().zip(shape) {
        if let (Index::All, Dim::Known(n)) = (&*i, d) {
            if *n >= 1 {
                let int =
                    |v: i64| Box::new(Expr::new(ExprKind::Const(Const::Int(v)), Type::INT, span));
                *i = Index::Range { start: int(0), step: None, end: int(*n as i64 - 1) };
            }
        }
    }
}

struct KnownSlices;

impl VisitMut for KnownSlices {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        walk_expr_mut(self, e);
        let span = e.span;
        if let ExprKind::Index { base, indices } = &mut e.kind {
            rewrite(&base.ty, indices, span);
        }
    }

    fn visit_place_mut(&mut self, p: &mut Place) {
        walk_place_mut(self, p);
        let span = p.span;
        if let PlaceKind::Index { base, indices } = &mut p.kind {
            rewrite(&base.ty, indices, span);
        }
    }
}

#[cfg(test)]
mod tests {
    /// The IR of `src` after this pass (and the ones before it).
    fn after(src: &str) -> String {
        crate::transform::ir_after("known-slices", src)
    }

    #[test]
    fn a_colon_over_a_known_extent_becomes_a_constant_range() {
        let ir = after(
            "function y = f(x : cube(:, :, 3), m : int, n : int)
                 y = x[m, n, :]
                 z = x[:, n, 1]
             endfunction",
        );
        assert!(
            ir.contains("x{cube[scalar'single](:, :, 3)}[m{int}, n{int}, 0{int}..2{int}]"),
            "{ir}"
        );
        // A dimension of unknown extent keeps its `:`.
        assert!(ir.contains("x{cube[scalar'single](:, :, 3)}[:, n{int}, 1{int}]"), "{ir}");
    }

    #[test]
    fn a_specialised_size_parameter_gives_the_extent() {
        let ir = after(
            "function y = g[N](x : cube(:, :, N))
                 y = x[0, 0, :]
             endfunction
             function y = h(x : cube(:, :, 4))
                 y = g(x)
             endfunction",
        );
        assert!(ir.contains("[0{int}, 0{int}, 0{int}..3{int}]"), "{ir}");
    }
}
