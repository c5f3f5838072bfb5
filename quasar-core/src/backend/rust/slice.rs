//! Slices inside kernel and device functions: `x[i, j, 0..2]` with one range (or `:` over a
//! dimension of known extent) reads and writes a fixed-size vector (`vec3` here), element by
//! element, as the type checker types it. The length comes from that type, so no allocation
//! or run-time shape is involved.

use super::expr::cast_num;
use super::func::FnGen;
use super::ty::Repr;
use super::{unsupported, GResult};
use crate::ir::AssignOp;
use crate::ir::BinaryOp;
use crate::ir::NodeId;
use crate::ir::{Const, Expr, ExprKind, Index};
use crate::sema::types::Type;
use crate::span::Span;
use proc_macro2::TokenStream;
use quote::quote;

/// The index lists of the `len` elements of a one-range slice, or an error naming what is
/// not supported.
fn element_indices(indices: &[Index], len: usize, span: Span) -> GResult<Vec<Vec<Index>>> {
    let slices = indices.iter().filter(|i| !matches!(i, Index::At(_) | Index::Spread(_))).count();
    if slices != 1 {
        return Err(unsupported(
            span,
            "a kernel slice over more than one dimension",
            "slice one dimension (`x[i, a..b]`) and loop over the others with `for`",
        ));
    }
    let int = |v: i64| Expr::new(ExprKind::Const(Const::Int(v)), Type::INT, span);
    let mut out = Vec::with_capacity(len);
    for k in 0..len as i64 {
        let mut list = Vec::with_capacity(indices.len());
        for ix in indices {
            list.push(match ix {
                Index::All => Index::At(int(k)),
                Index::Range { start, step, .. } => {
                    let step = match step.as_deref().map(Expr::constant) {
                        None => 1,
                        Some(Some(Const::Int(s))) => *s,
                        Some(_) => {
                            return Err(unsupported(
                                span,
                                "a kernel slice with a variable step",
                                "use a constant step (`a..2..b`), or loop with `for`",
                            ))
                        }
                    };
                    let at = match start.constant() {
                        Some(Const::Int(s)) => int(s + k * step),
                        _ => Expr::new(
                            ExprKind::Binary {
                                op: BinaryOp::Add,
                                lhs: start.clone(),
                                rhs: Box::new(int(k * step)),
                            },
                            Type::INT,
                            span,
                        ),
                    };
                    Index::At(at)
                }
                // A fixed-length vector of indices (`n + (0..3)`): element `k` uses its
                // element `k` (LLVM evaluates the vector once).
                Index::List(list)
                    if crate::backend::small_layout::shape(&list.ty)
                        .is_some_and(|s| s.len() == 1 && s[0] == len) =>
                {
                    let elem = list.ty.as_array().map_or(Type::INT, |a| a.elem.clone());
                    Index::At(Expr::new(
                        ExprKind::Index {
                            base: Box::new(list.clone()),
                            indices: vec![Index::At(int(k))],
                        },
                        elem,
                        span,
                    ))
                }
                Index::List(_) => {
                    return Err(unsupported(
                        span,
                        "a list of indices inside a kernel other than a fixed-length vector \
                         with one index per element",
                        "give the indices as a range of constant length (`n + (0..3)`), or \
                         loop over the indices with `for`",
                    ));
                }
                other => other.clone(),
            });
        }
        out.push(list);
    }
    Ok(out)
}

impl FnGen<'_, '_> {
    /// `base[indices]` read as the fixed-size vector `r`.
    pub(super) fn kernel_slice_read(
        &mut self,
        base: &Expr,
        indices: &[Index],
        r: &Repr,
        span: Span,
        node: NodeId,
    ) -> GResult<TokenStream> {
        let (Some(len), Repr::Fixed(n, _)) = (r.fixed_len(), r) else {
            return Err(unsupported(
                span,
                "a kernel slice whose length is not known",
                "give the slice a constant length (`x[i..i+3]`), or loop with `for`",
            ));
        };
        // Each element is read as the base's element type and converted to the slice's
        // (a slice of a `mat[uint8]` is typed `ivec4`).
        let from = match base.ty.as_array().and_then(|a| super::ty::Num::of(&a.elem)) {
            Some(b) if b.is_int() || b.is_float() => b,
            _ => *n,
        };
        let rt = self.g.rt.clone();
        let mut items = Vec::with_capacity(len);
        for list in element_indices(indices, len, span)? {
            let x = self.index_read(base, &list, Repr::Num(from), span, node)?.t;
            items.push(cast_num(from, *n, x, &rt));
        }
        Ok(quote!([#(#items),*]))
    }

    /// `base[indices] op= value` with a fixed-size vector (or a number, for every element).
    pub(super) fn kernel_slice_write(
        &mut self,
        base: &Expr,
        indices: &[Index],
        op: AssignOp,
        value: &Expr,
        span: Span,
        node: NodeId,
    ) -> GResult<TokenStream> {
        let rt = self.g.rt.clone();
        let v = self.expr(value)?;
        let (len, vn, whole) = match &v.r {
            Repr::Fixed(vn, _) => (v.r.fixed_len().unwrap_or(0), *vn, false),
            Repr::Num(vn) => match crate::ir::slice::constant_range_len(indices) {
                Some(l) => (l, *vn, true),
                None => {
                    return Err(unsupported(
                        span,
                        "a kernel slice whose length is not known",
                        "give the slice a constant length (`x[i..i+3]`), or loop with `for`",
                    ))
                }
            },
            _ => {
                return Err(unsupported(
                    span,
                    "assigning this value to a kernel slice",
                    "assign a number or a vector with the slice's length",
                ))
            }
        };
        let b = self.expr(base)?;
        let vt = v.t;
        let mut writes = Vec::with_capacity(len);
        for (k, list) in element_indices(indices, len, span)?.into_iter().enumerate() {
            let item = if whole { quote!(__sv) } else { quote!(__sv[#k]) };
            writes.push(match b.r.clone() {
                Repr::View(n, rank) => {
                    let x = cast_num(vn, n, item, &rt);
                    let comps = self.view_components(&list, span, node)?;
                    let t =
                        self.view_access(base, &b.t, n, rank, comps, Some((op, x)), span, node)?;
                    quote!(#t;)
                }
                Repr::Fixed(n, shape) => {
                    // `w[a..b] op= v` on a register vector: element by element, as the PTX
                    // back end computes it (no atomics: the vector is the thread's own).
                    let bop = match op {
                        AssignOp::Assign => None,
                        AssignOp::Add
                        | AssignOp::Sub
                        | AssignOp::Mul
                        | AssignOp::Div
                        | AssignOp::ElemMul
                        | AssignOp::ElemDiv => super::stmt::binary_of(op),
                        _ => {
                            return Err(unsupported(
                                span,
                                "this compound assignment to a slice of a vector in a kernel",
                                "write the elements one by one (`w[k] = max(w[k], v[k])`)",
                            ))
                        }
                    };
                    let ExprKind::Local(id) = &base.kind else {
                        return Err(unsupported(
                            span,
                            "writing into a temporary vector",
                            "assign the vector to a variable, write into the variable, then use it",
                        ));
                    };
                    let target = self.local(*id);
                    let mut x = cast_num(vn, n, item, &rt);
                    if let Some(bop) = bop {
                        let comps = self.components(&list, span)?;
                        let cur = self.fixed_access(&target, n, &shape, comps, None, span)?;
                        x = super::arith::num_binary(bop, n, n, cur, x, value, &rt, false);
                    }
                    let comps = self.components(&list, span)?;
                    let t = self.fixed_access(&target, n, &shape, comps, Some(x), span)?;
                    quote!(#t;)
                }
                _ => {
                    return Err(unsupported(
                        span,
                        "this assignment to a slice inside a kernel",
                        "assign with `=`, or loop over the elements with `for`",
                    ))
                }
            });
        }
        Ok(quote!({ let __sv = #vt; #(#writes)* }))
    }
}
