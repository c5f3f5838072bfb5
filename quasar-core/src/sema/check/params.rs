//! Parameters: the order of defaults (manual §2.1 item 15), variadic functions and spreads
//! (manual §4.8). `f(...v)` and `f(...g(x))`: a spread whose length
//! is known when compiling (a vector of known size, or the several results of a call) becomes
//! that many arguments, so every call form, overload and back end sees plain arguments; a
//! spread of a value that is not a variable is evaluated once, into a temporary, by the first
//! of its arguments. `f(a, b, c)` of `function f(...args : vec)`: the rest arguments are packed
//! into one vector argument, the `args` of the instance.

use super::scope::{refine, FnLowerer};
use crate::diagnostics::Diagnostic;
use crate::ir::{self, ExprKind, LocalRole, PlaceKind};
use crate::sema::types::{promote, Dim, Rank, Type};
use crate::span::Span;
use crate::syntax::ast::{self, FunctionKind};

/// Vectors longer than this stay one spread argument (`f(...args)` of a variadic function).
const MAX_SPREAD: u64 = 64;

impl<'c, 'a> FnLowerer<'c, 'a> {
    /// The arguments that `...v` stands for, or `Err(v)` when its length is not known.
    pub(super) fn spread_elements(
        &mut self,
        v: ir::Expr,
        span: Span,
    ) -> Result<Vec<ir::Expr>, Box<ir::Expr>> {
        // A cell written out (`...{a, b}`, or a variadic reduction's rest arguments): its items.
        let v = match v.kind {
            ExprKind::Cell(items) => return Ok(items),
            kind => ir::Expr { kind, ..v },
        };
        let tuple = matches!(v.ty, Type::Tuple(_));
        let elems: Vec<Type> = match &v.ty {
            Type::Tuple(ts) => ts.clone(),
            // A cell of known items, each taken by its constant index.
            Type::CellTuple(ts) if ts.len() as u64 <= MAX_SPREAD => ts.clone(),
            Type::Array(a) => match a.shape.as_deref() {
                Some([Dim::Known(n)]) if *n <= MAX_SPREAD => vec![a.elem.clone(); *n as usize],
                _ => return Err(Box::new(v)),
            },
            _ => return Err(Box::new(v)),
        };
        if elems.is_empty() {
            return Err(Box::new(v));
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
                    let k =
                        ir::Expr::new(ExprKind::Const(ir::Const::Int(i as i64)), Type::INT, span);
                    ExprKind::Index {
                        base: Box::new(base.clone()),
                        indices: vec![ir::Index::At(k)],
                    }
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
        // `...v` of a vector whose length is known only at run time: its elements, joined
        // with the other rest arguments (host code only, which takes any count).
        let spread_elem = |a: &ir::Expr| match (&a.kind, &a.ty) {
            (ExprKind::Spread(_), Type::Array(arr)) if arr.elem.is_number() => {
                Some(arr.elem.clone())
            }
            _ => None,
        };
        if !rest.iter().all(|a| a.ty.is_number() || spread_elem(a).is_some()) {
            return Self::pack_rest_as_cell(callee, declared, rest);
        }
        let spread = rest.iter().any(|a| spread_elem(a).is_some());
        if spread && matches!(callee, FunctionKind::Device | FunctionKind::Kernel) {
            return None;
        }
        let declared_elem = match declared {
            Some(Type::Array(a)) if a.elem.is_number() => Some(a.elem.clone()),
            _ => None,
        };
        let elem = declared_elem.unwrap_or_else(|| {
            rest.iter()
                .map(|a| spread_elem(a).unwrap_or_else(|| a.ty.clone()))
                .reduce(|a, b| promote(&a, &b))
                .unwrap_or(Type::SCALAR)
        });
        let span = rest.first().map_or(Span::default(), |a| a.span);
        let items: Vec<ir::Expr> = std::mem::take(rest)
            .into_iter()
            .map(|a| {
                let s = a.span;
                match a.kind {
                    ExprKind::Spread(v) => self.convert_to(*v, &Type::vec(elem.clone()), s),
                    kind => self.convert_to(ir::Expr { kind, ..a }, &elem, s),
                }
            })
            .collect();
        if spread && items.len() == 1 {
            // The vector is the rest argument as it is.
            return items.into_iter().next();
        }
        let ty = match callee {
            FunctionKind::Device | FunctionKind::Kernel => Type::vec_n(elem, items.len() as u64),
            _ => Type::vec(elem),
        };
        Some(ir::Expr::new(ExprKind::Matrix(items), ty, span))
    }

    /// Rest arguments of other types than numbers (`func(1, 2, "hello")`, manual §4.8) as one
    /// cell vector, for a host function whose rest parameter has no type or a `??` element
    /// type (`...args : vec[??]`); `args[i]` is then checked at run time.
    fn pack_rest_as_cell(
        callee: FunctionKind,
        declared: Option<&Type>,
        rest: &mut Vec<ir::Expr>,
    ) -> Option<ir::Expr> {
        let untyped = match declared {
            None | Some(Type::Unknown) => true,
            Some(Type::Array(a)) => a.elem == Type::Unknown,
            Some(_) => false,
        };
        let host = matches!(callee, FunctionKind::Host | FunctionKind::ExplicitHost);
        let plain = rest.iter().all(|a| {
            !matches!(a.kind, ExprKind::Spread(_)) && a.ty.is_concrete() && a.ty != Type::Void
        });
        if !untyped || !host || !plain || rest.is_empty() {
            return None;
        }
        let span = rest[0].span;
        let items = std::mem::take(rest);
        let ty = Type::CellTuple(items.iter().map(|a| a.ty.clone()).collect());
        Some(ir::Expr::new(ExprKind::Cell(items), ty, span))
    }

    /// The rest parameter `...args` comes last (manual §4.8).
    /// A default value may use the parameters before it, not later ones (they are
    /// defined in order): `f(a : mat = 2 * b, b : mat)` is an error.
    pub(super) fn check_default_order(&mut self, params: &[ast::Param]) {
        for (i, p) in params.iter().enumerate() {
            let Some(default) = &p.default else { continue };
            let mut used = Vec::new();
            names_used(default, &mut used);
            for (name, span) in used {
                if let Some(later) = params[i + 1..].iter().find(|q| q.name.name == name) {
                    let d = Diagnostic::error(
                        span,
                        format!(
                            "`{name}` is not defined yet when the default value of `{}` is computed",
                            p.name.name
                        ),
                    )
                    .with_secondary(later.span, "defined here, later")
                    .with_note("parameters are defined in order: a default value can use the parameters before it");
                    self.diags.push(d);
                }
            }
        }
    }

    pub(super) fn check_variadic_params(&mut self, params: &[ast::Param]) {
        let n = params.len();
        for p in params.iter().take(n.saturating_sub(1)).filter(|p| p.variadic) {
            let d = Diagnostic::error(
                p.span,
                format!("the variadic parameter `...{}` must be the last parameter", p.name.name),
            )
            .with_note(
                "write the fixed and optional parameters first: `f(a, b, opt = 1.0, ...args)`",
            );
            self.diags.push(d);
        }
    }
}

/// The type of a variadic parameter `...args : vec` (its declaration is the type of the whole
/// rest): the vector a call packed (`overload.rs`), or a vector of the one rest type given.
pub(super) fn variadic_param_type(declared: Option<&Type>, actual: Type) -> Type {
    let packed = matches!(&actual, Type::Array(a)
        if a.rank == Rank::Fixed(1) && a.elem.is_number())
        || matches!(actual, Type::CellTuple(_));
    if packed {
        return actual;
    }
    let elem = match declared {
        Some(Type::Array(a)) => refine(&a.elem, &actual),
        Some(d) => refine(d, &actual),
        None => actual,
    };
    Type::vec(elem)
}

/// The names an expression reads (not inside lambdas, whose parameters shadow them).
pub(super) fn names_used(e: &ast::Expr, out: &mut Vec<(String, Span)>) {
    use ast::ExprKind as K;
    fn all(es: &[&ast::Expr], out: &mut Vec<(String, Span)>) {
        es.iter().for_each(|x| names_used(x, out));
    }
    match &e.kind {
        K::Ident(n) => out.push((n.clone(), e.span)),
        K::Spread(x) | K::Unary { operand: x, .. } | K::Annotated { expr: x, .. } => {
            names_used(x, out)
        }
        K::Field { base, .. } | K::Dims { base, .. } | K::Modified { base, .. } => {
            names_used(base, out)
        }
        K::Range { start, step, end } => {
            all(&[start.as_ref(), end.as_ref()], out);
            step.iter().for_each(|s| names_used(s, out));
        }
        K::Binary { lhs, rhs, .. } | K::Assign { lhs, rhs, .. } => {
            all(&[lhs.as_ref(), rhs.as_ref()], out)
        }
        K::Ternary { cond, then, otherwise } => {
            all(&[cond.as_ref(), then.as_ref(), otherwise.as_ref()], out)
        }
        K::Call { callee, args, .. } => {
            names_used(callee, out);
            args.iter().for_each(|a| names_used(&a.value, out));
        }
        K::Index { base, indices } => {
            names_used(base, out);
            indices.iter().for_each(|a| names_used(&a.value, out));
        }
        K::Matrix(xs) | K::Cell(xs) | K::Paren(xs) | K::Tuple(xs) => {
            xs.iter().for_each(|x| names_used(x, out))
        }
        K::Number(_) | K::Str(_) | K::Placeholder | K::Colon | K::Unknown | K::Lambda(_) => {}
    }
}
