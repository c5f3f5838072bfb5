//! Shape queries: `size numel ndims ind2pos pos2ind`.

use super::common::{
    args, dim_index, everywhere, expected, is_integer, is_num, is_open, is_real, no_type_args,
};
use super::{BuiltinCall, RuleResult, Signature};
use crate::ir::Builtin as B;
use crate::sema::types::{Dim, Rank, Type};

/// The number of dimensions of a value whose size is asked, `Any` when not known statically.
fn rank_of(name: &str, t: &Type) -> Result<Rank, String> {
    match t {
        Type::Array(a) => Ok(a.rank),
        Type::CellTuple(_) => Ok(Rank::Fixed(1)),
        t if is_open(t) || is_num(t) || matches!(t, Type::String | Type::Union(_)) => Ok(Rank::Any),
        t => Err(expected(name, "an array", t)),
    }
}

/// An integer vector with the given length (`ivec3`), or of unknown length (`ivec`).
fn ivec(len: Option<Dim>) -> Type {
    match len {
        Some(Dim::Unknown) | None => Type::vec(Type::INT),
        Some(d) => Type::array_with_shape(Type::INT, vec![d]),
    }
}

/// `size(x)`: an `ivecN` for an `N`-dimensional `x`; `size(x, d)`: an `int`;
/// `size(x, a..b)` (or any integer vector of dimensions): an integer vector as long as it.
fn size(c: &BuiltinCall) -> RuleResult {
    no_type_args(c, "size")?;
    let a = args(c, "size", 1, 2)?;
    let rank = rank_of("size", &a[0].ty)?;
    let Some(d) = a.get(1) else {
        return Ok(match rank {
            Rank::Fixed(n) => ivec(Some(Dim::Known(n as u64))),
            Rank::Any => ivec(None),
        });
    };
    match &d.ty {
        Type::Array(v)
            if matches!(v.rank, Rank::Fixed(1)) && (is_integer(&v.elem) || is_open(&v.elem)) =>
        {
            Ok(ivec(v.shape.as_ref().and_then(|s| s.first().cloned())))
        }
        // `size(x, [0..1])`: the range in brackets is a 1 x n matrix (real code writes it).
        Type::Array(v)
            if matches!(v.rank, Rank::Fixed(2))
                && matches!(v.shape.as_deref(), Some([Dim::Known(1), _]))
                && (is_integer(&v.elem) || is_open(&v.elem)) =>
        {
            Ok(ivec(v.shape.as_ref().and_then(|s| s.get(1).cloned())))
        }
        t if is_open(t) => Ok(Type::Unknown),
        _ => {
            dim_index("size", d)?;
            Ok(Type::INT)
        }
    }
}

/// `numel(x)`: the number of elements.
fn numel(c: &BuiltinCall) -> RuleResult {
    no_type_args(c, "numel")?;
    let a = args(c, "numel", 1, 1)?;
    rank_of("numel", &a[0].ty)?;
    Ok(Type::INT)
}

/// `ndims(x)`: the number of dimensions.
fn ndims(c: &BuiltinCall) -> RuleResult {
    no_type_args(c, "ndims")?;
    let a = args(c, "ndims", 1, 1)?;
    rank_of("ndims", &a[0].ty)?;
    Ok(Type::INT)
}

/// The dimensions argument of `ind2pos`/`pos2ind`: an integer vector (or `??`); returns the
/// length of the position vectors.
fn dims_vector(name: &str, t: &Type) -> Result<Option<Dim>, String> {
    match t {
        t if is_open(t) => Ok(None),
        Type::Array(v)
            if matches!(v.rank, Rank::Fixed(1)) && (is_real(&v.elem) || is_open(&v.elem)) =>
        {
            Ok(v.shape.as_ref().and_then(|s| s.first().cloned()))
        }
        t if is_real(t) => Ok(Some(Dim::Known(1))),
        t => Err(expected(name, "the dimensions (a vector of integers)", t)),
    }
}

/// `ind2pos(dims, i)`: the position vector of linear index `i` in an array of size `dims`.
fn ind2pos(c: &BuiltinCall) -> RuleResult {
    no_type_args(c, "ind2pos")?;
    let a = args(c, "ind2pos", 2, 2)?;
    let len = dims_vector("ind2pos", &a[0].ty)?;
    if !(is_open(&a[1].ty) || is_real(&a[1].ty)) {
        return Err(expected("ind2pos", "a linear index (an integer)", &a[1].ty));
    }
    Ok(ivec(len))
}

/// `pos2ind(dims, pos)`: the linear index of position `pos`.
fn pos2ind(c: &BuiltinCall) -> RuleResult {
    no_type_args(c, "pos2ind")?;
    let a = args(c, "pos2ind", 2, 2)?;
    dims_vector("pos2ind", &a[0].ty)?;
    dims_vector("pos2ind", &a[1].ty)
        .map_err(|_| expected("pos2ind", "a position (a vector of integers)", &a[1].ty))?;
    Ok(Type::INT)
}

pub(super) const SIGNATURES: &[Signature] = &[
    everywhere(B::Size, "size(x), size(x, dim) or size(x, dims)", size),
    everywhere(B::Numel, "numel(x)", numel),
    everywhere(B::Ndims, "ndims(x)", ndims),
    everywhere(B::Ind2pos, "ind2pos(dims, index)", ind2pos),
    everywhere(B::Pos2ind, "pos2ind(dims, pos)", pos2ind),
];

#[cfg(test)]
mod tests {
    use super::super::test_util::*;

    #[test]
    fn size_has_one_entry_per_dimension() {
        assert_eq!(ok("size", &[a("mat")]), "ivec2");
        assert_eq!(ok("size", &[a("cube(:, :, 3)")]), "ivec3");
        assert_eq!(ok("size", &[a("vec")]), "ivec1");
        assert_eq!(ok("size", &[a("cube{4}")]), "ivec4");
        assert_eq!(ok("size", &[a("cube{:}")]), "ivec");
        assert_eq!(ok("size", &[a("??")]), "ivec");
        assert_eq!(ok("size", &[a("string")]), "ivec");
    }

    #[test]
    fn size_of_one_or_several_dimensions() {
        assert_eq!(ok("size", &[a("cube(:, :, 3)"), n(2)]), "int");
        assert_eq!(ok("size", &[a("mat"), a("int")]), "int");
        assert_eq!(ok("size", &[a("cube"), a("ivec2")]), "ivec2");
        assert_eq!(ok("size", &[a("cube{:}"), a("ivec(N)")]), "ivec(N)");
        assert_eq!(ok("size", &[a("cube"), a("ivec")]), "ivec");
        // `size(x, [0..1])`: a one-row matrix of dimensions.
        assert_eq!(ok("size", &[a("cube"), a("imat(1, 2)")]), "ivec2");
        assert!(err("size", &[a("cube"), a("imat(2, 2)")]).contains("expects a dimension"));
        assert_eq!(
            err("size", &[a("mat"), a("string")]),
            "`size` expects a dimension (an integer), found string"
        );
        assert_eq!(err("size", &[a("mat"), n(-1)]), "`size`: dimension -1 is negative");
        assert_eq!(err("size", &[a("fn")]), "`size` expects an array, found [__kernel__ () -> ()]");
    }

    #[test]
    fn counts_and_positions() {
        assert_eq!(ok("numel", &[a("cube")]), "int");
        assert_eq!(ok("ndims", &[a("cube{:}")]), "int");
        assert_eq!(ok("ind2pos", &[a("ivec3"), a("int")]), "ivec3");
        assert_eq!(ok("ind2pos", &[a("ivec"), a("int")]), "ivec");
        assert_eq!(ok("ind2pos", &[a("ivec(N)"), a("int")]), "ivec(N)");
        assert_eq!(ok("pos2ind", &[a("ivec2"), a("ivec2")]), "int");
        assert_eq!(
            err("ind2pos", &[a("ivec2"), a("string")]),
            "`ind2pos` expects a linear index (an integer), found string"
        );
        assert_eq!(err("numel", &[]), "`numel` expects 1 argument, found 0");
    }
}
