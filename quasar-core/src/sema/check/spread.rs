//! Variadic calls and spreads (manual §4.8). `f(...v)` and `f(...g(x))`: a spread whose length
//! is known when compiling (a vector of known size, or the several results of a call) becomes
//! that many arguments, so every call form, overload and back end sees plain arguments; a
//! spread of a value that is not a variable is evaluated once, into a temporary, by the first
//! of its arguments. `f(a, b, c)` of `function f(...args : vec)`: the rest arguments are packed
//! into one vector argument, the `args` of the instance.

use super::scope::FnLowerer;
use crate::ir::{self, ExprKind, LocalRole, PlaceKind};
use crate::sema::types::{promote, Dim, Type};
use crate::span::Span;
use crate::syntax::ast::FunctionKind;

/// Vectors longer than this stay one spread argument (`f(...args)` of a variadic function).
const MAX_SPREAD: u64 = 64;

impl<'c, 'a> FnLowerer<'c, 'a> {
    /// The arguments that `...v` stands for, or `Err(v)` when its length is not known.
    pub(super) fn spread_elements(
        &mut self,
        v: ir::Expr,
        span: Span,
    ) -> Result<Vec<ir::Expr>, ir::Expr> {
        let tuple = matches!(v.ty, Type::Tuple(_));
        let elems: Vec<Type> = match &v.ty {
            Type::Tuple(ts) => ts.clone(),
            Type::Array(a) => match a.shape.as_deref() {
                Some([Dim::Known(n)]) if *n <= MAX_SPREAD => vec![a.elem.clone(); *n as usize],
                _ => return Err(v),
            },
            _ => return Err(v),
        };
        if elems.is_empty() {
            return Err(v);
        }
        let (base, first) = match v.kind {
            ExprKind::Local(_) => (v, None),
            _ => {
                // One temporary per spread site, kept across the passes of the fixpoint.
                let name = format!("<spread@{}>", span.start);
                let id = match self.names.get(&name) {
                    Some(&id) => id,
                    None => self.add_local(&name, v.ty.clone(), LocalRole::Var, span),
                };
                self.locals[id.0 as usize].ty = v.ty.clone();
                let read = ir::Expr::new(ExprKind::Local(id), v.ty.clone(), span);
                let place = ir::Place::new(PlaceKind::Local(id), v.ty.clone(), span);
                let assign = ir::Expr::new(
                    ExprKind::Assign {
                        place: Box::new(place),
                        op: ir::AssignOp::Assign,
                        value: Box::new(v),
                    },
                    read.ty.clone(),
                    span,
                );
                (read, Some(assign))
            }
        };
        let mut out: Vec<ir::Expr> = elems
            .into_iter()
            .enumerate()
            .map(|(i, ty)| {
                let kind = if tuple {
                    ExprKind::TupleField { tuple: Box::new(base.clone()), index: i }
                } else {
                    let k = ir::Expr::new(ExprKind::Const(ir::Const::Int(i as i64)), Type::INT, span);
                    ExprKind::Index { base: Box::new(base.clone()), indices: vec![ir::Index::At(k)] }
                };
                ir::Expr::new(kind, ty, span)
            })
            .collect();
        if let Some(assign) = first {
            let e0 = out.remove(0);
            let ty = e0.ty.clone();
            out.insert(0, ir::Expr::new(ExprKind::Sequence(vec![assign, e0]), ty, span));
        }
        Ok(out)
    }

    /// The rest arguments of a variadic call as one vector, when they are numbers: of the
    /// declared element type (`...args : vec` takes scalars), of known length for a device
    /// function (kept in registers), of any length on the host (one instance for every count).
    /// `None` leaves them as separate arguments.
    pub(super) fn pack_rest(
        &mut self,
        callee: FunctionKind,
        declared: Option<&Type>,
        rest: &mut Vec<ir::Expr>,
    ) -> Option<ir::Expr> {
        if !rest.iter().all(|a| a.ty.is_number()) {
            return None;
        }
        let declared_elem = match declared {
            Some(Type::Array(a)) if a.elem.is_number() => Some(a.elem.clone()),
            _ => None,
        };
        let elem = declared_elem.unwrap_or_else(|| {
            rest.iter().map(|a| a.ty.clone()).reduce(|a, b| promote(&a, &b)).unwrap_or(Type::SCALAR)
        });
        let span = rest.first().map_or(Span::default(), |a| a.span);
        let items: Vec<ir::Expr> = std::mem::take(rest)
            .into_iter()
            .map(|a| {
                let s = a.span;
                self.convert_to(a, &elem, s)
            })
            .collect();
        let ty = match callee {
            FunctionKind::Device | FunctionKind::Kernel => Type::vec_n(elem, items.len() as u64),
            _ => Type::vec(elem),
        };
        Some(ir::Expr::new(ExprKind::Matrix(items), ty, span))
    }
}
