//! Type predicates decided at compile time: `isscalar(x)`, `isreal(x)`, `type(x, "mat")`, …
//! (the `system.q` predicates, manual §2.2). In an instance where `x` has a known type, a
//! branch on one of them is decided by the type checker, and only the branch taken is
//! checked: a generic function written with `if isscalar(x) … else …` type-checks for each
//! instance the code that instance runs (as the original compiler did; real code relies on
//! it). Both back ends then see straight-line code.

use crate::ir::{self, Builtin as B, Callee, Const, ExprKind};
use crate::sema::types::{Rank, Type};

/// The truth of `e` when it is a type predicate whose answer the argument's type decides.
pub fn static_truth(e: &ir::Expr) -> Option<bool> {
    let ExprKind::Call { callee: Callee::Builtin(b), args } = &e.kind else { return None };
    let x = &args.first()?.ty;
    let (elem, rank) = shape_of(x)?;
    let real = elem.is_number() && !matches!(elem, Type::Complex(_));
    let complex = matches!(elem, Type::Complex(_));
    Some(match (b, args.len()) {
        (B::Isscalar, 1) => rank == 0 && elem.is_number(),
        (B::Isreal, 1) => real,
        (B::Iscomplex, 1) => complex,
        (B::Isvector, 1) => rank == 1 && elem.is_number(),
        (B::Ismatrix, 1) => (1..=2).contains(&rank) && elem.is_number(),
        (B::Iscube, 1) => (1..=3).contains(&rank) && elem.is_number(),
        (B::Type, 2) => {
            let named = match &args[1].kind {
                ExprKind::Const(Const::Str(s)) => s.as_str(),
                _ => return None,
            };
            let (want_complex, want_rank) = named_class(named)?;
            elem.is_number() && complex == want_complex && rank == want_rank
        }
        _ => return None,
    })
}

/// The element type and rank of a value whose type is known well enough to decide a
/// predicate; `None` for `??`, type classes, generic parameters and types not yet inferred.
fn shape_of(t: &Type) -> Option<(&Type, u8)> {
    match t {
        t if t.is_number() => Some((t, 0)),
        Type::Array(a) => match (a.rank, &a.elem) {
            (Rank::Fixed(r), e) if e.is_number() => Some((e, r)),
            _ => None,
        },
        Type::String | Type::Class(_) | Type::Function(_) => Some((t, 0)),
        _ => None,
    }
}

/// `type(x, "name")` for the numeric classes: whether complex, and the rank. (An `int` is a
/// `scalar` here, as the manual's `assert(type(1, "scalar"))` shows.)
fn named_class(name: &str) -> Option<(bool, u8)> {
    Some(match name {
        "scalar" => (false, 0),
        "vec" => (false, 1),
        "mat" => (false, 2),
        "cube" => (false, 3),
        "cscalar" => (true, 0),
        "cvec" => (true, 1),
        "cmat" => (true, 2),
        "ccube" => (true, 3),
        _ => return None,
    })
}
