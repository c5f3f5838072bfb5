//! Array construction and reshaping: `zeros ones uninit rand randn czeros cones cell eye
//! linspace copy deepcopy repmat reshape squeeze shuffledims`.

use super::common::{
    args, const_dim, dims, elem_type_arg, expected, is_num, is_open, is_real, make_array,
    no_type_args, sig, MAX_DIMS,
};
use super::{ArgInfo, BuiltinCall, RuleResult, Signature};
use crate::ir::Builtin as B;
use crate::sema::types::{ArrayType, Dim, Rank, Type};

/// An allocation `name(dims…)` or `name[T](dims…)`: an array of `T` (default `default`) of
/// the requested rank; sizes given as constants are part of the type (`zeros(2, 2)` is a
/// `mat(2, 2)`).
pub(super) fn allocation(
    c: &BuiltinCall,
    name: &str,
    default: Type,
    type_args: bool,
) -> RuleResult {
    let elem = if type_args {
        elem_type_arg(c, name, default)?
    } else {
        no_type_args(c, name)?;
        default
    };
    let a = args(c, name, 1, usize::MAX)?;
    let (rank, shape) = dims(name, a)?;
    Ok(make_array(elem, rank, shape))
}

fn zeros(c: &BuiltinCall) -> RuleResult {
    allocation(c, "zeros", Type::SCALAR, true)
}

fn ones(c: &BuiltinCall) -> RuleResult {
    allocation(c, "ones", Type::SCALAR, true)
}

fn uninit(c: &BuiltinCall) -> RuleResult {
    allocation(c, "uninit", Type::SCALAR, true)
}

fn rand(c: &BuiltinCall) -> RuleResult {
    allocation(c, "rand", Type::SCALAR, false)
}

fn randn(c: &BuiltinCall) -> RuleResult {
    allocation(c, "randn", Type::SCALAR, false)
}

fn czeros(c: &BuiltinCall) -> RuleResult {
    allocation(c, "czeros", Type::CSCALAR, false)
}

fn cones(c: &BuiltinCall) -> RuleResult {
    allocation(c, "cones", Type::CSCALAR, false)
}

/// `cell(dims…)`: an untyped cell array, `vec[??]`, `mat[??]`…
fn cell(c: &BuiltinCall) -> RuleResult {
    allocation(c, "cell", Type::Unknown, false)
}

/// `eye(n)`: the `n × n` identity; `eye(m, n)` or `eye([m, n])` a rectangular one.
fn eye(c: &BuiltinCall) -> RuleResult {
    no_type_args(c, "eye")?;
    let a = args(c, "eye", 1, 2)?;
    if let [one] = a {
        if one.ty.as_array().is_some() {
            return match dims("eye", a)? {
                (Rank::Fixed(2) | Rank::Any, _) => Ok(Type::array(Type::SCALAR, 2)),
                _ => Err(expected("eye", "a size or a vector of two sizes", &one.ty)),
            };
        }
        let (_, shape) = dims("eye", a)?;
        let d = shape.and_then(|s| s.first().cloned()).unwrap_or(Dim::Unknown);
        return Ok(make_array(Type::SCALAR, Rank::Fixed(2), Some(vec![d.clone(), d])));
    }
    let (rank, shape) = dims("eye", a)?;
    Ok(make_array(Type::SCALAR, rank, shape))
}

/// `linspace(a, b, n)`: `n` values evenly spaced from `a` to `b`.
fn linspace(c: &BuiltinCall) -> RuleResult {
    no_type_args(c, "linspace")?;
    let a = args(c, "linspace", 3, 3)?;
    for end in &a[..2] {
        if !(is_open(&end.ty) || is_real(&end.ty)) {
            return Err(expected("linspace", "real numbers as the end points", &end.ty));
        }
    }
    if !(is_open(&a[2].ty) || is_real(&a[2].ty)) {
        return Err(expected("linspace", "a number of points (an integer)", &a[2].ty));
    }
    let n = const_dim("linspace", a[2].constant.as_ref())?;
    Ok(make_array(Type::SCALAR, Rank::Fixed(1), Some(vec![n])))
}

/// `copy(x)`, `deepcopy(x)`: a value of the same type (a fresh array, without `'const`…).
fn copy_like(c: &BuiltinCall, name: &str) -> RuleResult {
    no_type_args(c, name)?;
    let a = args(c, name, 1, 1)?;
    match &a[0].ty {
        Type::Array(arr) => Ok(make_array(arr.elem.clone(), arr.rank, arr.shape.clone())),
        Type::Void | Type::Tuple(_) | Type::TypeValue(_) => {
            Err(expected(name, "a value", &a[0].ty))
        }
        t => Ok(t.clone()),
    }
}

fn copy(c: &BuiltinCall) -> RuleResult {
    copy_like(c, "copy")
}

fn deepcopy(c: &BuiltinCall) -> RuleResult {
    copy_like(c, "deepcopy")
}

/// The array (or number, as a 1-element array) being reshaped or repeated.
fn source<'a>(name: &str, a: &'a ArgInfo) -> Result<Option<(Type, Option<&'a ArrayType>)>, String> {
    match &a.ty {
        t if is_open(t) => Ok(None),
        Type::Array(arr) => Ok(Some((arr.elem.clone(), Some(arr)))),
        t if is_num(t) || matches!(t, Type::Class(_) | Type::Pointer(_)) => {
            Ok(Some((t.clone(), None)))
        }
        t => Err(expected(name, "an array", t)),
    }
}

/// `reshape(x, dims…)`: the same elements in an array of the given dimensions.
fn reshape(c: &BuiltinCall) -> RuleResult {
    no_type_args(c, "reshape")?;
    let a = args(c, "reshape", 2, usize::MAX)?;
    let src = source("reshape", &a[0])?;
    let (rank, shape) = dims("reshape", &a[1..])?;
    let Some((elem, arr)) = src else { return Ok(make_array(Type::Unknown, rank, shape)) };
    let count = |s: &Option<Vec<Dim>>| -> Option<u64> {
        s.as_ref()?.iter().map(|d| if let Dim::Known(k) = d { Some(*k) } else { None }).product()
    };
    if let (Some(from), Some(to)) = (arr.and_then(|arr| count(&arr.shape)), count(&shape)) {
        if from != to {
            return Err(format!(
                "`reshape`: cannot reshape {from} elements ({}) into {to}",
                a[0].ty
            ));
        }
    }
    Ok(make_array(elem, rank, shape))
}

/// `repmat(x, dims…)`: `x` repeated `dims[i]` times along dimension `i`.
fn repmat(c: &BuiltinCall) -> RuleResult {
    no_type_args(c, "repmat")?;
    let a = args(c, "repmat", 2, usize::MAX)?;
    let src = source("repmat", &a[0])?;
    let (rank, reps) = dims("repmat", &a[1..])?;
    let Some((elem, arr)) = src else { return Ok(Type::Unknown) };
    let src_rank = arr.map_or(Rank::Fixed(1), |arr| arr.rank);
    let (Rank::Fixed(r), Rank::Fixed(s)) = (rank, src_rank) else {
        return Ok(make_array(elem, Rank::Any, None));
    };
    let n = r.max(s);
    let src_shape = match arr {
        Some(arr) => arr.shape.clone(),
        None => Some(vec![Dim::Known(1)]),
    };
    let shape = match (src_shape, reps) {
        (Some(s), Some(reps)) => Some(
            (0..n as usize)
                .map(|i| {
                    let x = s.get(i).cloned().unwrap_or(Dim::Known(1));
                    let k = reps.get(i).cloned().unwrap_or(Dim::Known(1));
                    match (x, k) {
                        (Dim::Known(x), Dim::Known(k)) => Dim::Known(x * k),
                        (d, Dim::Known(1)) | (Dim::Known(1), d) => d,
                        _ => Dim::Unknown,
                    }
                })
                .collect(),
        ),
        _ => None,
    };
    Ok(make_array(elem, Rank::Fixed(n), shape))
}

/// `squeeze(x)`: `x` without its singleton dimensions. Dimensions of unknown length are
/// assumed not to be singletons (as in `C * squeeze(img[m, n, :])`, manual §6.7).
fn squeeze(c: &BuiltinCall) -> RuleResult {
    no_type_args(c, "squeeze")?;
    let a = args(c, "squeeze", 1, 1)?;
    match &a[0].ty {
        Type::Array(arr) => match &arr.shape {
            Some(s) => {
                let kept: Vec<Dim> = s.iter().filter(|d| **d != Dim::Known(1)).cloned().collect();
                let kept = if kept.is_empty() { vec![Dim::Known(1)] } else { kept };
                Ok(make_array(arr.elem.clone(), Rank::Fixed(kept.len() as u8), Some(kept)))
            }
            // A lower rank is a subtype of the same rank: `mat` covers whatever remains.
            None => Ok(make_array(arr.elem.clone(), arr.rank, None)),
        },
        t if is_open(t) || is_num(t) => Ok(t.clone()),
        t => Err(expected("squeeze", "an array", t)),
    }
}

/// `shuffledims(x, perm…)`: the dimensions of `x` permuted.
fn shuffledims(c: &BuiltinCall) -> RuleResult {
    no_type_args(c, "shuffledims")?;
    let a = args(c, "shuffledims", 2, 1 + MAX_DIMS as usize)?;
    for p in &a[1..] {
        let ok = match &p.ty {
            t if is_open(t) || is_real(t) => true,
            Type::Array(arr) => is_open(&arr.elem) || is_real(&arr.elem),
            _ => false,
        };
        if !ok {
            return Err(expected("shuffledims", "a permutation of the dimensions", &p.ty));
        }
    }
    match &a[0].ty {
        Type::Array(arr) => Ok(make_array(arr.elem.clone(), arr.rank, None)),
        t if is_open(t) => Ok(Type::Unknown),
        t => Err(expected("shuffledims", "an array", t)),
    }
}

pub(super) const SIGNATURES: &[Signature] = &[
    sig(B::Zeros, true, "zeros(dims...) or zeros[T](dims...)", zeros),
    sig(B::Ones, true, "ones(dims...) or ones[T](dims...)", ones),
    sig(B::Uninit, true, "uninit(dims...) or uninit[T](dims...)", uninit),
    sig(B::Rand, false, "rand(dims...)", rand),
    sig(B::Randn, false, "randn(dims...)", randn),
    sig(B::Czeros, true, "czeros(dims...)", czeros),
    sig(B::Cones, true, "cones(dims...)", cones),
    sig(B::Cell, false, "cell(dims...)", cell),
    sig(B::Eye, false, "eye(n) or eye(m, n)", eye),
    sig(B::Linspace, false, "linspace(a, b, n)", linspace),
    sig(B::Copy, false, "copy(x)", copy),
    sig(B::Deepcopy, false, "deepcopy(x)", deepcopy),
    sig(B::Reshape, false, "reshape(x, dims...)", reshape),
    sig(B::Repmat, false, "repmat(x, dims...)", repmat),
    sig(B::Squeeze, true, "squeeze(x)", squeeze),
    sig(B::Shuffledims, false, "shuffledims(x, perm)", shuffledims),
];

#[cfg(test)]
mod tests {
    use super::super::test_util::*;

    #[test]
    fn allocations_take_their_rank_from_the_dimensions() {
        assert_eq!(ok("zeros", &[n(2), n(2)]), "mat(2, 2)");
        assert_eq!(ok("zeros", &[a("int")]), "vec");
        assert_eq!(ok("zeros", &[n(8)]), "vec8");
        assert_eq!(ok("ones", &[a("int"), n(3)]), "mat(:, 3)");
        assert_eq!(ok("ones", &[n(1), n(2), n(3)]), "cube(1, 2, 3)");
        assert_eq!(ok("uninit", &[a("int"), a("int"), a("int"), a("int")]), "cube{4}");
        assert_eq!(ok("rand", &[n(64), n(64)]), "mat(64, 64)");
        assert_eq!(ok("randn", &[a("int"), a("int")]), "mat");
        assert_eq!(ok("zeros", &[x(3.0)]), "vec3");
    }

    #[test]
    fn a_vector_of_dimensions_gives_the_rank() {
        assert_eq!(ok("zeros", &[a("ivec3")]), "cube");
        assert_eq!(ok("ones", &[a("ivec2")]), "mat");
        assert_eq!(ok("uninit", &[a("vec2")]), "mat");
        assert_eq!(ok("zeros", &[a("ivec")]), "cube{:}");
        assert_eq!(ok("zeros", &[a("??")]), "cube{:}");
        assert_eq!(ok("zeros", &[a("ivec(N)")]), "cube{:}");
    }

    #[test]
    fn type_arguments_choose_the_element_type() {
        assert_eq!(run("zeros", &["int"], &[n(4)], false).unwrap(), "ivec4");
        assert_eq!(run("uninit", &["uint8"], &[a("int"), a("int")], false).unwrap(), "mat[uint8]");
        assert_eq!(run("zeros", &["T"], &[a("int")], false).unwrap(), "vec[T]");
        assert_eq!(
            run("rand", &["int"], &[n(4)], false).unwrap_err(),
            "`rand` takes no type arguments"
        );
        assert_eq!(
            run("zeros", &["int", "int"], &[n(4)], false).unwrap_err(),
            "`zeros` takes one type argument, found 2"
        );
    }

    #[test]
    fn complex_and_cell_allocations() {
        assert_eq!(ok("czeros", &[n(4)]), "cvec4");
        assert_eq!(ok("cones", &[a("int"), a("int")]), "cmat");
        assert_eq!(ok("cell", &[n(2), n(2)]), "mat[??](2, 2)");
        assert_eq!(ok("cell", &[a("int")]), "vec[??]");
    }

    #[test]
    fn identity_and_linspace() {
        assert_eq!(ok("eye", &[n(4)]), "mat(4, 4)");
        assert_eq!(ok("eye", &[a("int")]), "mat");
        assert_eq!(ok("eye", &[n(2), n(3)]), "mat(2, 3)");
        assert_eq!(ok("linspace", &[n(1), n(2), n(5)]), "vec5");
        assert_eq!(ok("linspace", &[x(0.0), a("scalar"), a("int")]), "vec");
    }

    #[test]
    fn copies_reshapes_and_repeats() {
        assert_eq!(ok("copy", &[a("mat(2, 2)")]), "mat(2, 2)");
        assert_eq!(ok("copy", &[a("scalar")]), "scalar");
        assert_eq!(ok("reshape", &[a("mat(2, 3)"), n(3), n(2)]), "mat(3, 2)");
        assert_eq!(ok("reshape", &[a("cube"), a("ivec2")]), "mat");
        assert_eq!(ok("reshape", &[a("ivec"), a("int"), a("int")]), "imat");
        assert_eq!(
            err("reshape", &[a("mat(2, 3)"), n(4), n(2)]),
            "`reshape`: cannot reshape 6 elements (mat(2, 3)) into 8"
        );
        assert_eq!(ok("repmat", &[a("mat(2, 3)"), n(2), n(2)]), "mat(4, 6)");
        assert_eq!(ok("repmat", &[a("vec3"), n(1), n(1), n(4)]), "cube(3, 1, 4)");
        assert_eq!(ok("repmat", &[a("mat"), a("ivec2")]), "mat");
        assert_eq!(ok("squeeze", &[a("cube(1, 1, N)")]), "vec(N)");
        assert_eq!(ok("squeeze", &[a("cube(:, 1, 3)")]), "mat(:, 3)");
        assert_eq!(ok("squeeze", &[a("cube")]), "cube");
        assert_eq!(ok("shuffledims", &[a("cube"), a("ivec3")]), "cube");
    }

    #[test]
    fn bad_dimensions_are_refused() {
        assert_eq!(
            err("zeros", &[a("string")]),
            "`zeros` expects dimensions (integers, or one vector of integers), found string"
        );
        assert_eq!(
            err("zeros", &[a("fn")]),
            "`zeros` expects dimensions (integers, or one vector of integers), found [__kernel__ () -> ()]"
        );
        assert_eq!(
            err("ones", &[a("mat")]),
            "`ones` expects dimensions (integers, or one vector of integers), found mat"
        );
        assert_eq!(
            err("zeros", &[a("ivec2"), n(3)]),
            "`zeros` expects dimensions (integers, or one vector of integers), found ivec2"
        );
        assert_eq!(err("zeros", &[n(-1)]), "`zeros`: dimension -1 is negative");
        assert_eq!(err("zeros", &[]), "`zeros` expects at least 1 argument, found 0");
        assert_eq!(
            err("zeros", &[a("ivec20")]),
            "`zeros`: at most 16 dimensions, found a vector of 20"
        );
        assert_eq!(
            err("eye", &[a("ivec3")]),
            "`eye` expects a size or a vector of two sizes, found ivec3"
        );
    }
}
