//! Implicit conversions between types (manual §3.2): which assignments convert silently, and
//! the conversion node that makes one explicit in the IR.

use super::scope::FnLowerer;
use crate::ir;
use crate::sema::types::{is_subtype, ArrayType, Dim, Rank, Type};
use crate::span::Span;

/// Whether a value of type `from` may be stored where `to` is expected by an implicit
/// conversion: between number types (`scalar → int` truncates, with a warning), and from or
/// to `??`.
pub fn converts_implicitly(from: &Type, to: &Type) -> bool {
    let number = |f: &Type, t: &Type| {
        f.is_number()
            && t.is_number()
            && !matches!((f, t), (Type::Complex(_), Type::Int(..) | Type::Scalar(_)))
    };
    match (from, to) {
        (Type::Unknown, _) | (_, Type::Unknown) => true,
        // An integer array passed for a scalar array (`[1, 2, 3]` to a `vec` parameter) is
        // converted element by element (into a new array).
        (Type::Array(a), Type::Array(b)) if a.elem.is_int() && number(&a.elem, &b.elem) => {
            let mut as_b = (**a).clone();
            as_b.elem = b.elem.clone();
            is_subtype(&Type::Array(Box::new(as_b)), to)
        }
        // A scalar vector where an integer one is expected (`d : ivec2` given
        // `ceil(size(x) / 2) - 1`): converted element by element, as a scalar is to an `int`
        // (real code relies on it; the original accepted it).
        (Type::Array(a), Type::Array(b)) if a.elem.is_scalar() && b.elem.is_int() => {
            let mut as_b = (**a).clone();
            as_b.elem = b.elem.clone();
            is_subtype(&Type::Array(Box::new(as_b)), to)
        }
        // A `cube` whose trailing dimensions are 1 where a `mat` is expected, a `mat` with one
        // row or column where a `vec` is (checked at run time when the sizes are not known).
        (Type::Array(a), Type::Array(b)) => fits_lower_rank(a, b),
        (f, t) => number(f, t),
    }
}

/// An array of higher rank passed where `to` (of lower rank) is expected: the elements
/// match, and the known sizes do not rule it out (extra trailing dimensions of 1; for a
/// vector, at most one dimension other than 1).
fn fits_lower_rank(from: &ArrayType, to: &ArrayType) -> bool {
    let (Rank::Fixed(k), Rank::Fixed(r)) = (from.rank, to.rank) else { return false };
    let elems = from.elem == to.elem
        || matches!(to.elem, Type::Unknown | Type::Param(_))
        || is_subtype(&from.elem, &to.elem);
    if k <= r || r == 0 || !elems {
        return false;
    }
    let Some(shape) = &from.shape else { return true };
    let is_one = |d: &Dim| matches!(d, Dim::Known(1) | Dim::Unknown | Dim::Param(_));
    let trailing_ones = shape.iter().skip(r as usize).all(is_one);
    let vector = r == 1 && shape.iter().filter(|d| !matches!(d, Dim::Known(1))).count() <= 1;
    trailing_ones || vector
}

impl<'c, 'a> FnLowerer<'c, 'a> {
    /// Converts `value` to `target` where they differ as numbers (explicit in the IR).
    pub fn convert_to(&mut self, value: ir::Expr, target: &Type, span: Span) -> ir::Expr {
        if value.ty == *target || !target.is_number() || !value.ty.is_number() {
            return value;
        }
        ir::Expr::new(ir::ExprKind::Convert(Box::new(value)), target.clone(), span)
    }
}
