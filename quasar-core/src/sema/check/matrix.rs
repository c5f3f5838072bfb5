//! Matrix literals `[a, b; c, d]`: the array (or cell) type their items make, spreading
//! nested arrays into a higher rank.

use super::scope::FnLowerer;
use crate::diagnostics::Diagnostic;
use crate::ir;
use crate::sema::types::{promote, ArrayMods, ArrayType, Dim, Rank, Type};
use crate::span::Span;
use crate::syntax::ast::{Expr, ExprKind};

impl<'c, 'a> FnLowerer<'c, 'a> {
    /// `[a, b, c]`: numbers make a vector, equal-sized rows a matrix, and so on.
    pub(super) fn lower_matrix(&mut self, items: &'a [Expr], span: Span) -> ir::Expr {
        let mut lowered = Vec::new();
        let mut spread = false;
        for item in items {
            if let ExprKind::Spread(inner) = &item.kind {
                spread = true;
                lowered.push(self.lower_expr(inner));
            } else {
                lowered.push(self.lower_expr(item));
            }
        }
        let ty = self.matrix_type(&lowered, spread, span);
        ir::Expr::new(ir::ExprKind::Matrix(lowered), ty, span)
    }

    fn matrix_type(&mut self, items: &[ir::Expr], spread: bool, span: Span) -> Type {
        if items.is_empty() {
            return Type::vec_n(Type::SCALAR, 0);
        }
        if spread || items.iter().any(|i| matches!(i.ty, Type::Unknown | Type::Void)) {
            let elem = items
                .iter()
                .map(|i| i.ty.elem().clone())
                .reduce(|a, b| promote(&a, &b))
                .unwrap_or(Type::Unknown);
            // `[...a, 4, ...b]`: the length is known when every spread vector's is.
            let len: Option<u64> = items
                .iter()
                .map(|i| match &i.ty {
                    Type::Array(a) => match a.shape.as_deref() {
                        Some([Dim::Known(n)]) => Some(*n),
                        _ => None,
                    },
                    t if t.is_number() => Some(1),
                    _ => None,
                })
                .sum();
            return match len {
                Some(n) if spread => Type::vec_n(elem, n),
                _ => Type::vec(elem),
            };
        }
        let first = &items[0].ty;
        if items.iter().all(|i| i.ty.is_number()) {
            let elem = items
                .iter()
                .map(|i| i.ty.clone())
                .reduce(|a, b| promote(&a, &b))
                .unwrap_or(Type::INT);
            return Type::vec_n(elem, items.len() as u64);
        }
        if let Type::Array(a) = first {
            // Rows of a matrix (or slices of a cube): all of the same rank.
            let same = items.iter().all(|i| matches!(&i.ty, Type::Array(b) if b.rank == a.rank));
            if same {
                let elem = items
                    .iter()
                    .map(|i| i.ty.elem().clone())
                    .reduce(|x, y| promote(&x, &y))
                    .unwrap_or(Type::Unknown);
                let inner = items
                    .iter()
                    .map(|i| i.ty.as_array().and_then(|x| x.shape.clone()))
                    .reduce(|x, y| if x == y { x } else { None })
                    .flatten();
                let rank = match a.rank {
                    Rank::Fixed(r) => Rank::Fixed((r + 1).min(16)),
                    Rank::Any => Rank::Any,
                };
                let shape = inner.map(|s| {
                    let mut v = vec![Dim::Known(items.len() as u64)];
                    v.extend(s);
                    v
                });
                return Type::Array(Box::new(ArrayType {
                    elem,
                    rank,
                    shape,
                    mods: ArrayMods::default(),
                }));
            }
        }
        if items.iter().all(|i| i.ty == *first) {
            return Type::vec_n(first.clone(), items.len() as u64);
        }
        let types: Vec<String> = items.iter().map(|i| i.ty.to_string()).collect();
        let d = Diagnostic::error(span, "the elements of a matrix must have the same type")
            .with_note(format!("the elements are: {}", types.join(", ")))
            .with_note("use a cell array `{…}` to group values of different types");
        self.report(d);
        Type::Unknown
    }
}
