//! Subtyping (manual §3.3: dimensional subtyping, size constraints, function types), the join
//! of two types (a variable's type after several assignments), and numeric promotion.

use super::{ArrayMods, ArrayType, Dim, FnType, Precision, Rank, ThreadGroup, Type};
use crate::syntax::ast::FunctionKind;

/// `sub` may be used where `sup` is expected (manual §2.2: `vec ⊂ mat ⊂ cube ⊂ cube{:}`,
/// sizes as constraints, `??` accepts anything, type classes accept their members).
pub fn is_subtype(sub: &Type, sup: &Type) -> bool {
    if sub == sup {
        return true;
    }
    match (sub, sup) {
        (_, Type::Unknown) | (Type::Unknown, _) => true,
        (_, Type::Param(_)) => true,
        (_, Type::Union(members)) => members.iter().any(|m| is_subtype(sub, m)),
        (Type::Union(members), _) => members.iter().all(|m| is_subtype(m, sup)),
        (Type::Int(a, _), Type::Int(b, _)) => a == b,
        (Type::ThreadBlock(_), Type::ThreadBlock(ThreadGroup::Any)) => true,
        (Type::Scalar(a), Type::Scalar(b)) | (Type::Complex(a), Type::Complex(b)) => {
            a == b || *a == Precision::Default || *b == Precision::Default
        }
        (Type::Array(a), Type::Array(b)) => array_subtype(a, b),
        (Type::Null, Type::Pointer(_)) => true,
        // `type(x)` where a string is expected: the type's name (table 14.1).
        (Type::TypeValue(_), Type::String) => true,
        (Type::Pointer(a), Type::Pointer(b)) => is_subtype(a, b),
        (Type::Class(a), Type::Class(b)) => {
            a.id == b.id
                && a.args.len() == b.args.len()
                && a.args.iter().zip(&b.args).all(|(x, y)| is_subtype(x, y) && is_subtype(y, x))
        }
        (Type::Function(a), Type::Function(b)) => fn_subtype(a, b),
        (Type::CellTuple(a), Type::CellTuple(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| is_subtype(x, y))
        }
        (Type::CellTuple(items), Type::Array(b)) if matches!(b.elem, Type::CellTuple(_)) => {
            // `{"a", 1.0}` is a `vec[{string, scalar}]`.
            is_subtype(&Type::CellTuple(items.clone()), &b.elem)
        }
        (Type::CellTuple(items), Type::Array(b)) => {
            // A typed cell `{a, b}` is a `vec[T]` whose elements all fit `T`.
            b.rank != Rank::Fixed(0) && items.iter().all(|t| is_subtype(t, &b.elem))
        }
        (Type::TypeValue(a), Type::TypeValue(b)) => is_subtype(a, b),
        _ => false,
    }
}

fn array_subtype(a: &ArrayType, b: &ArrayType) -> bool {
    let rank_ok = match (a.rank, b.rank) {
        (_, Rank::Any) => true,
        // An array of unknown rank may turn out to have the expected one: checked at run time.
        (Rank::Any, Rank::Fixed(_)) => true,
        (Rank::Fixed(x), Rank::Fixed(y)) => x <= y,
    };
    if !rank_ok || !elem_compatible(&a.elem, &b.elem) {
        return false;
    }
    match (&a.shape, &b.shape) {
        (_, None) => true,
        // Sizes that are not known statically are checked at run time.
        (None, Some(_)) => true,
        (Some(ash), Some(bsh)) => {
            // A vec(3) is a mat(3, 1): missing trailing dimensions have length 1.
            let at = |s: &[Dim], i: usize| s.get(i).cloned().unwrap_or(Dim::Known(1));
            (0..ash.len().max(bsh.len())).all(|i| match (at(ash, i), at(bsh, i)) {
                (_, Dim::Unknown | Dim::Param(_)) | (Dim::Param(_), _) => true,
                (x, y) => x == y,
            })
        }
    }
}

/// Array element types must agree exactly (arrays are shared by reference, so `vec[int]`
/// is not a `vec[scalar]`), except through `??` and type parameters.
fn elem_compatible(a: &Type, b: &Type) -> bool {
    match (a, b) {
        (Type::Unknown, _) | (_, Type::Unknown) | (_, Type::Param(_)) => true,
        (_, Type::Union(_)) => is_subtype(a, b),
        (Type::Int(x, _), Type::Int(y, _)) => x == y,
        _ => is_subtype(a, b) && is_subtype(b, a),
    }
}

fn fn_subtype(a: &FnType, b: &FnType) -> bool {
    let kind_ok = a.kind == b.kind
        || matches!(b.kind, FunctionKind::Host | FunctionKind::ExplicitHost)
        || (b.kind == FunctionKind::Device && a.kind == FunctionKind::Device);
    // A lambda returning a cell `{a, b}` has the two results `a` and `b` (manual §4.6.1).
    let results: &[Type] = match a.results.as_slice() {
        [Type::CellTuple(items)] if b.results.len() > 1 => items,
        r => r,
    };
    kind_ok
        && (a.params.len() == b.params.len() || a.variadic || b.variadic)
        && a.params.iter().zip(&b.params).all(|(x, y)| is_subtype(y, x))
        && results.len() == b.results.len()
        && results.iter().zip(&b.results).all(|(x, y)| is_subtype(x, y))
}

/// The least common type of two values that flow into one variable (at the end of an `if`,
/// around a loop): equal types stay, arrays that differ only in size lose the size, numbers
/// widen `int → scalar → cscalar`, and anything else becomes `??`.
pub fn join(a: &Type, b: &Type) -> Type {
    if a == b {
        return a.clone();
    }
    match (a, b) {
        (Type::Void, t) | (t, Type::Void) => t.clone(),
        (Type::Null, Type::Pointer(_)) => b.clone(),
        (Type::Pointer(_), Type::Null) => a.clone(),
        (x, y) if x.is_number() && y.is_number() => promote(x, y),
        (Type::Array(x), Type::Array(y))
            if x.elem == y.elem || (x.elem.is_number() && y.elem.is_number()) =>
        {
            let elem = if x.elem == y.elem { x.elem.clone() } else { promote(&x.elem, &y.elem) };
            let rank = match (x.rank, y.rank) {
                (Rank::Fixed(p), Rank::Fixed(q)) => Rank::Fixed(p.max(q)),
                _ => Rank::Any,
            };
            let shape = match (&x.shape, &y.shape) {
                (Some(s), Some(t)) if s == t => Some(s.clone()),
                _ => None,
            };
            let mods = if x.mods == y.mods { x.mods.clone() } else { ArrayMods::default() };
            Type::Array(Box::new(ArrayType { elem, rank, shape, mods }))
        }
        _ => Type::Unknown,
    }
}

/// The result type of arithmetic on two numbers: the wider of `int < scalar < cscalar`,
/// keeping the more precise float precision.
pub fn promote(a: &Type, b: &Type) -> Type {
    let prec = |t: &Type| match t {
        Type::Scalar(p) | Type::Complex(p) => *p,
        _ => Precision::Default,
    };
    let p = wider_precision(prec(a), prec(b));
    match (a, b) {
        (Type::Complex(_), _) | (_, Type::Complex(_)) => Type::Complex(p),
        (Type::Scalar(_), _) | (_, Type::Scalar(_)) => Type::Scalar(p),
        (Type::Int(x, o), Type::Int(y, _)) => {
            if x == y {
                Type::Int(*x, *o)
            } else {
                Type::INT
            }
        }
        _ => Type::Unknown,
    }
}

fn wider_precision(a: Precision, b: Precision) -> Precision {
    use Precision::*;
    match (a, b) {
        (Double, _) | (_, Double) => Double,
        (Default, _) | (_, Default) => Default,
        (Single, _) | (_, Single) => Single,
        (Half, Half) => Half,
    }
}
