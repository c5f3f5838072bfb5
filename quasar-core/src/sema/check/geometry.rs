//! A kernel whose `pos` (or `blkpos`, `blkdim`, …) has another number of components than its
//! launch has dimensions: `parallel_do(size(y), …)` over an `M x N x 4` cube with
//! `pos : ivec2`, or over a vector with `pos : ivec2`. The original compiler accepted both;
//! this is what it does, from manual §2.4.1: `parallel_do` runs the kernel once for every
//! position of the launch (`prod(dimensions)` times, the three nested loops of its sketch)
//! and passes the position as the kernel declares it:
//!
//! * fewer components than dimensions: the first ones (the kernel runs for every index of the
//!   remaining dimensions, each time with the same `pos`);
//! * more components: the launch is seen at that rank as an array is (`Shape::as_rank`): a
//!   one-dimensional launch is a row (`pos = [0, p]`), others gain trailing positions 0
//!   (extents `blkdim`, `blkcnt` gain 1s).
//!
//! The kernel instance takes the launch's geometry as its special parameter and binds the
//! declared name to the fitted value first, so the back ends see an ordinary kernel. The
//! type checker warns, since the kernel may do more work than its author meant.

use super::scope::FnLowerer;
use crate::diagnostics::Diagnostic;
use crate::ir::{self, Const, LocalId, LocalRole, Special};
use crate::sema::types::{Dim, Type};
use crate::syntax::ast;

/// A declared geometry parameter bound from the launch's: (declared local, launch local,
/// which, declared length).
pub type GeometryFit = (LocalId, LocalId, Special, usize);

/// The number of components of a geometry type: `int` is 1, `ivecN` is N.
pub(super) fn components(t: &Type) -> Option<usize> {
    match t {
        t if t.is_int() => Some(1),
        Type::Array(a) if a.elem.is_int() => match a.shape.as_deref() {
            Some([Dim::Known(n)]) => Some(*n as usize),
            _ => None,
        },
        _ => None,
    }
}

/// A geometry parameter declared with real components (`pos : vec3`, manual §11.6) holds
/// integers all the same: it is typed `ivec3`, and reads of it convert where needed.
pub(super) fn integer_geometry(s: Special, ty: Type) -> Type {
    match ty {
        Type::Array(mut a) if s.is_geometry() && a.elem.is_scalar() => {
            a.elem = Type::INT;
            Type::Array(a)
        }
        t if s.is_geometry() && t.is_scalar() => Type::INT,
        t => t,
    }
}

impl<'c, 'a> FnLowerer<'c, 'a> {
    /// Adds the special parameter `p` of this kernel instance, of type `ty` (its declaration,
    /// `declared`, refined by what the launch gives it, `actual`); returns the parameter's
    /// local.
    pub fn add_special_param(
        &mut self,
        p: &ast::Param,
        s: Special,
        declared: Option<&Type>,
        ty: Type,
        actual: Option<&Type>,
    ) -> LocalId {
        let lengths = (declared.and_then(components), actual.and_then(components));
        let (Some(k), Some(r), Some(actual)) = (lengths.0, lengths.1, actual) else {
            return self.add_local(&p.name.name, ty, LocalRole::Special(s), p.span);
        };
        let Some(declared) = declared.filter(|_| s.is_geometry() && k != r) else {
            return self.add_local(&p.name.name, ty, LocalRole::Special(s), p.span);
        };
        let actual = actual.clone();
        let d = Diagnostic::warning(
            p.span,
            format!("`{}` has {k} component(s) but the launch has {r} dimension(s)", p.name.name),
        )
        .with_note(if k < r {
            format!(
                "the kernel runs for every position of the launch, with `{}` its first {k} \
                 component(s) (manual §2.4.1)",
                p.name.name
            )
        } else if r == 1 {
            format!("a one-dimensional launch is a row: `{}` is [0, position, …]", p.name.name)
        } else {
            format!("the components of `{}` past the launch's dimensions are 0", p.name.name)
        });
        self.diags.push(d);
        let launch_name = format!("{}'launch", p.name.name);
        let launch = self.add_local(&launch_name, actual, LocalRole::Special(s), p.span);
        let user = self.add_local(&p.name.name, declared.clone(), LocalRole::Var, p.span);
        self.geometry_fits.push((user, launch, s, k));
        launch
    }

    /// `pos = [pos'launch[0], pos'launch[1]]` for each fitted geometry parameter.
    pub fn lower_geometry_fits(&mut self) -> ir::Block {
        let mut out = Vec::new();
        for (user, launch, s, k) in self.geometry_fits.clone() {
            let l = &self.locals[launch.0 as usize];
            let (span, launch_ty) = (l.span, l.ty.clone());
            let r = components(&launch_ty).unwrap_or(1);
            let pad = i64::from(matches!(s, Special::BlkDim | Special::BlkCnt));
            let int = |v: i64| ir::Expr::new(ir::ExprKind::Const(Const::Int(v)), Type::INT, span);
            let component = |i: usize| {
                let base = ir::Expr::new(ir::ExprKind::Local(launch), launch_ty.clone(), span);
                if r == 1 {
                    return base;
                }
                let kind = ir::ExprKind::Index {
                    base: Box::new(base),
                    indices: vec![ir::Index::At(int(i as i64))],
                };
                ir::Expr::new(kind, Type::INT, span)
            };
            // A one-dimensional launch seen with more dimensions is a row: [0, p, 0, …].
            let offset = usize::from(r == 1 && k >= 2);
            let parts: Vec<ir::Expr> = (0..k)
                .map(|i| match i.checked_sub(offset) {
                    Some(j) if j < r && (offset == 0 || i == 1) => component(j),
                    _ => int(pad),
                })
                .collect();
            let ty = self.locals[user.0 as usize].ty.clone();
            let value = match parts.len() {
                1 => parts.into_iter().next().unwrap_or_else(|| int(0)),
                _ => ir::Expr::new(ir::ExprKind::Matrix(parts), ty.clone(), span),
            };
            let place = ir::Place::new(ir::PlaceKind::Local(user), ty, span);
            out.push(ir::Stmt {
                kind: ir::StmtKind::Assign { place, op: ir::AssignOp::Assign, value },
                span,
            });
        }
        out
    }
}

#[cfg(test)]
mod integer_geometry_tests {
    use super::integer_geometry;
    use crate::ir::Special;
    use crate::sema::types::Type;

    #[test]
    fn real_geometry_parameters_hold_integers() {
        let vec3 = Type::vec_n(Type::SCALAR, 3);
        assert_eq!(integer_geometry(Special::Pos, vec3.clone()), Type::vec_n(Type::INT, 3));
        assert_eq!(integer_geometry(Special::BlkDim, Type::SCALAR), Type::INT);
        assert_eq!(integer_geometry(Special::WarpSize, Type::SCALAR), Type::SCALAR);
        assert_eq!(
            integer_geometry(Special::Pos, Type::vec_n(Type::INT, 2)),
            Type::vec_n(Type::INT, 2)
        );
    }
}
