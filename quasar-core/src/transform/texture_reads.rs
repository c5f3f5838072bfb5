//! Reads of hardware-texture arrays at real-valued positions (manual §9.3): in kernel and
//! device code, `x[p]` with `x : mat'hwtex_linear` and `p : vec2` interpolates linearly
//! between the elements around `p`, and with `'hwtex_nearest` reads the nearest element.
//!
//! Both back ends compute this in software, from the IR this pass writes: element `i` lies
//! at position `i` (as in the manual's `interpolate_nonhwtex`, which `interpolate_hwtex`
//! replaces), so that with `i = floor(p)` and `f = p - i` the linear read is
//! `(1-f0)(1-f1) x[i0, i1] + f0(1-f1) x[i0+1, i1] + (1-f0)f1 x[i0, i1+1] + f0 f1 x[i0+1, i1+1]`
//! (the corners in that order, the first dimension fastest, in any number of dimensions),
//! and the nearest read is `x[floor(p + 0.5)]`. Every corner is an ordinary read of `x`, so
//! the array's boundary mode (`'safe` by default, `'clamped`, `'circular`, `'mirror`) applies
//! to each, as the texture unit's address modes do. Integer subscripts among the real ones
//! stay as they are; a read at integer positions only is an ordinary read.
//!
//! The position and the parts of each real component are computed once, into new variables
//! of the function (`ExprKind::Sequence` of assignments, then the value).

use crate::ir::number::clear_expr_ids;
use crate::ir::visit::{walk_expr_mut, VisitMut};
use crate::ir::{
    AssignOp, BinaryOp, Builtin, Callee, Const, Expr, ExprKind, Index, Local, LocalId, LocalRole,
    Module, Place, PlaceKind,
};
use crate::sema::types::{Dim, Rank, TextureFilter as Filter, Type};
use crate::span::Span;
use crate::syntax::ast::FunctionKind;

/// Rewrites the texture reads at real positions of every kernel and device function.
pub fn run(module: &mut Module, _cx: &super::PassContext) {
    for f in &mut module.functions {
        if f.generic || !matches!(f.kind, FunctionKind::Kernel | FunctionKind::Device) {
            continue;
        }
        let mut v = Rewrite { locals: &mut f.locals };
        v.visit_block_mut(&mut f.body);
    }
}

struct Rewrite<'f> {
    locals: &'f mut Vec<Local>,
}

impl VisitMut for Rewrite<'_> {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        walk_expr_mut(self, e);
        if let Some(r) = self.texture_read(e) {
            *e = r;
        }
    }
}

/// One subscript of a corner read: kept, or a real component's integer part and fraction.
enum Corner {
    Keep(Expr),
    Real { int: Expr, frac: Expr },
}

/// One subscript of the read, once its operand is bound.
enum Part {
    /// Kept as it is (an integer or integer vector).
    Keep(Expr),
    /// Real components (one for a number, several for a vector), each a cheap expression.
    Real(Vec<Expr>),
}

impl Rewrite<'_> {
    /// The rewritten read when `e` reads a texture at a real position.
    fn texture_read(&mut self, e: &Expr) -> Option<Expr> {
        let ExprKind::Index { base, indices } = &e.kind else { return None };
        let filter = base.ty.as_array()?.mods.texture()?;
        if !matches!(base.kind, ExprKind::Local(_)) || !e.ty.is_number() {
            return None;
        }
        let real = |t: &Type| t.elem().is_scalar();
        let operands: Vec<&Expr> = indices
            .iter()
            .map(|i| match i {
                Index::At(x) | Index::Spread(x) => Some(x),
                _ => None,
            })
            .collect::<Option<_>>()?;
        if !operands.iter().any(|x| real(&x.ty)) {
            return None;
        }
        // Every real operand is a number or a vector of known length; the linear filter
        // needs real elements (the type checker reports the others).
        let lens: Vec<Option<usize>> = operands.iter().map(|x| real_len(&x.ty)).collect();
        if operands.iter().zip(&lens).any(|(x, n)| real(&x.ty) && n.is_none())
            || (filter == Filter::Linear && !e.ty.is_scalar())
        {
            return None;
        }
        let span = e.span;
        let mut pre = Vec::new();
        let mut parts = Vec::new();
        for (x, n) in operands.into_iter().zip(lens) {
            // The nearest read uses a number once; the linear one uses everything per corner.
            let v = if filter == Filter::Nearest && n.is_none_or(|n| n == 0) {
                x.clone()
            } else {
                self.bind(x.clone(), &mut pre)
            };
            parts.push(match n {
                Some(0) => Part::Real(vec![v]),
                Some(n) => Part::Real((0..n).map(|k| component(&v, k)).collect()),
                None => Part::Keep(v),
            });
        }
        let value = match filter {
            Filter::Nearest => {
                let subs = parts.iter().map(|p| match p {
                    Part::Keep(x) => vec![Index::At(fresh(x))],
                    Part::Real(cs) => cs.iter().map(|c| Index::At(nearest(c))).collect(),
                });
                read(base, subs.flatten().collect(), &e.ty, span)
            }
            Filter::Linear => self.linear(base, &parts, &e.ty, span, &mut pre)?,
        };
        if pre.is_empty() {
            return Some(value);
        }
        pre.push(value);
        Some(Expr::new(ExprKind::Sequence(pre), e.ty.clone(), span))
    }

    /// The weighted sum of the reads at the corners around the position.
    fn linear(
        &mut self,
        base: &Expr,
        parts: &[Part],
        elem: &Type,
        span: Span,
        pre: &mut Vec<Expr>,
    ) -> Option<Expr> {
        // One entry per subscript of the corner reads: kept, or a real component's integer
        // part and fraction.
        let mut subs_of = Vec::new();
        for p in parts {
            match p {
                Part::Keep(x) => subs_of.push(Corner::Keep(x.clone())),
                Part::Real(cs) => {
                    for c in cs {
                        let fl = self.bind(call(Builtin::Floor, fresh(c)), pre);
                        let frac = self.bind(binary(BinaryOp::Sub, fresh(c), fresh(&fl)), pre);
                        let int = self.bind(to_int(fresh(&fl)), pre);
                        subs_of.push(Corner::Real { int, frac });
                    }
                }
            }
        }
        let reals = subs_of.iter().filter(|s| matches!(s, Corner::Real { .. })).count();
        let mut sum: Option<Expr> = None;
        for corner in 0..1usize << reals {
            let mut weight: Option<Expr> = None;
            let mut subs = Vec::new();
            let mut j = 0;
            for s in &subs_of {
                let (int, frac) = match s {
                    Corner::Keep(x) => {
                        subs.push(Index::At(fresh(x)));
                        continue;
                    }
                    Corner::Real { int, frac } => (int, frac),
                };
                let up = corner >> j & 1 == 1;
                j += 1;
                let w = if up {
                    fresh(frac)
                } else {
                    let one = Expr::new(ExprKind::Const(Const::Scalar(1.0)), frac.ty.clone(), span);
                    binary(BinaryOp::Sub, one, fresh(frac))
                };
                weight = Some(match weight {
                    None => w,
                    Some(acc) => binary(BinaryOp::Mul, acc, w),
                });
                subs.push(Index::At(if up { add_one(fresh(int)) } else { fresh(int) }));
            }
            // `texture_read` only comes here with at least one real component.
            let Some(weight) = weight else { continue };
            let weight = if weight.ty == *elem { weight } else { convert(weight, elem) };
            let term = binary(BinaryOp::Mul, weight, read(base, subs, elem, span));
            sum = Some(match sum {
                None => term,
                Some(acc) => binary(BinaryOp::Add, acc, term),
            });
        }
        sum
    }

    /// `x` itself when it is a variable or a constant, else a new variable assigned `x` in
    /// `pre` (so that the value is computed once).
    fn bind(&mut self, x: Expr, pre: &mut Vec<Expr>) -> Expr {
        if matches!(x.kind, ExprKind::Local(_) | ExprKind::Const(_)) {
            return x;
        }
        let id = LocalId(self.locals.len() as u32);
        let (ty, span) = (x.ty.clone(), x.span);
        let name = format!("__tex{}", id.0);
        self.locals.push(Local { name, ty: ty.clone(), role: LocalRole::Var, span });
        let place = Place::new(PlaceKind::Local(id), ty.clone(), span);
        let assign =
            ExprKind::Assign { place: Box::new(place), op: AssignOp::Assign, value: Box::new(x) };
        pre.push(Expr::new(assign, ty.clone(), span));
        Expr::new(ExprKind::Local(id), ty, span)
    }
}

/// The number of components of a real index operand: `Some(0)` for a number, `Some(n)` for
/// a vector of `n`, `None` for integers or an unknown length.
fn real_len(t: &Type) -> Option<usize> {
    match t {
        Type::Scalar(_) => Some(0),
        Type::Array(a) if a.elem.is_scalar() && a.rank == Rank::Fixed(1) => {
            match a.shape.as_deref() {
                Some([Dim::Known(n)]) => Some(*n as usize),
                _ => None,
            }
        }
        _ => None,
    }
}

/// A copy of `x` to use once more (new node ids).
fn fresh(x: &Expr) -> Expr {
    let mut c = x.clone();
    clear_expr_ids(&mut c);
    c
}

/// Component `k` of the vector `v`.
fn component(v: &Expr, k: usize) -> Expr {
    let at = Expr::new(ExprKind::Const(Const::Int(k as i64)), Type::INT, v.span);
    let kind = ExprKind::Index { base: Box::new(fresh(v)), indices: vec![Index::At(at)] };
    Expr::new(kind, v.ty.elem().clone(), v.span)
}

fn binary(op: BinaryOp, lhs: Expr, rhs: Expr) -> Expr {
    let (ty, span) = (lhs.ty.clone(), lhs.span);
    Expr::new(ExprKind::Binary { op, lhs: Box::new(lhs), rhs: Box::new(rhs) }, ty, span)
}

fn call(b: Builtin, x: Expr) -> Expr {
    let (ty, span) = (x.ty.clone(), x.span);
    Expr::new(ExprKind::Call { callee: Callee::Builtin(b), args: vec![x] }, ty, span)
}

fn convert(x: Expr, ty: &Type) -> Expr {
    let span = x.span;
    Expr::new(ExprKind::Convert(Box::new(x)), ty.clone(), span)
}

fn to_int(x: Expr) -> Expr {
    convert(x, &Type::INT)
}

fn add_one(i: Expr) -> Expr {
    let one = Expr::new(ExprKind::Const(Const::Int(1)), Type::INT, i.span);
    binary(BinaryOp::Add, i, one)
}

/// `int(floor(c + 0.5))`: the index of the element nearest to `c` (halves up).
fn nearest(c: &Expr) -> Expr {
    let half = Expr::new(ExprKind::Const(Const::Scalar(0.5)), c.ty.clone(), c.span);
    to_int(call(Builtin::Floor, binary(BinaryOp::Add, fresh(c), half)))
}

/// The ordinary read `base[subs]`.
fn read(base: &Expr, subs: Vec<Index>, elem: &Type, span: Span) -> Expr {
    let kind = ExprKind::Index { base: Box::new(fresh(base)), indices: subs };
    Expr::new(kind, elem.clone(), span)
}

#[cfg(test)]
mod tests {
    /// The IR of `src` after this pass (and the ones before it).
    fn after(src: &str) -> String {
        crate::transform::ir_after("texture-reads", src)
    }

    /// The lines of `ir` that mention `name`.
    fn line_of<'a>(ir: &'a str, name: &str) -> &'a str {
        ir.lines().find(|l| l.contains(name)).unwrap_or_else(|| panic!("{name} in {ir}"))
    }

    #[test]
    fn a_linear_read_weighs_the_four_corners_with_the_first_dimension_fastest() {
        let ir = after(
            "function [] = __kernel__ up(y : mat, x : mat'hwtex_linear, s : scalar, pos : ivec2)
                 y[pos] = x[s * pos]
             endfunction",
        );
        let body = line_of(&ir, "y{mat");
        // The position once, then per component its floor, fraction and integer part.
        assert!(body.contains("(__tex4{vec[scalar'single](2)} = (s{scalar'single} * pos"), "{ir}");
        assert!(body.contains("__tex5{scalar'single} = floor(__tex4"), "{ir}");
        assert!(body.contains("__tex7{int} = convert(__tex5{scalar'single}){int}"), "{ir}");
        let corners: Vec<usize> = [
            "[__tex7{int}, __tex10{int}]",
            "[(__tex7{int} + 1{int}){int}, __tex10{int}]",
            "[__tex7{int}, (__tex10{int} + 1{int}){int}]",
            "[(__tex7{int} + 1{int}){int}, (__tex10{int} + 1{int}){int}]",
        ]
        .iter()
        .map(|c| body.find(c).unwrap_or_else(|| panic!("corner {c} in {body}")))
        .collect();
        assert!(corners.windows(2).all(|w| w[0] < w[1]), "{body}");
        assert!(body.contains("(1.0{scalar'single} - __tex6{scalar'single})"), "{body}");
    }

    #[test]
    fn a_nearest_read_rounds_each_real_subscript_and_keeps_the_integer_ones() {
        let ir = after(
            "function [] = __kernel__ rows(y : mat, x : mat'hwtex_nearest, s : scalar, pos : ivec2)
                 y[pos] = x[s * pos[0], pos[1]]
             endfunction",
        );
        let body = line_of(&ir, "y{mat");
        assert!(!body.contains("__tex"), "nothing is used twice: {body}");
        assert!(
            body.contains("[convert(floor(((s{scalar'single} * pos{ivec2}[0{int}]{int}){scalar'single} + 0.5{scalar'single}){scalar'single}){scalar'single}){int}, pos{ivec2}[1{int}]{int}]"),
            "{body}"
        );
    }

    #[test]
    fn integer_positions_and_arrays_without_a_filter_are_ordinary_reads() {
        let ir = after(
            "function [] = __kernel__ k(y : mat, x : mat'hwtex_linear, c : mat'hwtex_const, p : vec2, pos : ivec2)
                 y[pos] = x[pos] + x[pos[0], 1] + c[p]
             endfunction",
        );
        let body = line_of(&ir, "y{mat");
        assert!(!body.contains("__tex") && !body.contains("floor"), "{body}");
        // `'hwtex_const` only names a cache: a real position addresses its integer parts.
        assert!(
            body.contains(
                "c{mat[scalar'single]'hwtex_const}[convert(p{vec[scalar'single](2)}){ivec2}]"
            ),
            "{body}"
        );
    }

    #[test]
    fn host_code_is_left_alone() {
        let ir = after(
            "function y = f(x : mat'hwtex_linear, p : scalar)
                 y = x[p, 0]
             endfunction",
        );
        assert!(!ir.contains("floor"), "{ir}");
    }
}
