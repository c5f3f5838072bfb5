//! Reductions over the elements of an array: `sum prod mean min max` (all elements, or one
//! dimension with `sum(x, d)`), `cumsum cumprod`, `dotprod`, `any all`.

use super::common::{
    args, calc, dim_index, expected, is_num, is_open, is_real, make_array, no_type_args,
    promote_all, sig, NUMBERS, REALS,
};
use super::elementwise::min_max2;
use super::{ArgInfo, BuiltinCall, RuleResult, Signature};
use crate::ir::Builtin as B;
use crate::sema::types::{ArrayType, Dim, Rank, Type};

/// What a reduction does with the element type.
#[derive(Clone, Copy)]
enum Elem {
    /// `sum prod cumsum cumprod`: the (computation) element type.
    Same,
    /// `min max`: ordered, so real only.
    Real,
    /// `mean`: integers give `scalar`.
    Float,
    /// `any all`: a truth value.
    Bool,
}

impl Elem {
    fn expects(self) -> &'static str {
        match self {
            Elem::Real => REALS,
            _ => NUMBERS,
        }
    }

    /// The result element type, `None` when `e` is not accepted.
    fn apply(self, e: &Type) -> Option<Type> {
        if is_open(e) || matches!(e, Type::CellTuple(_)) {
            return Some(Type::Unknown);
        }
        if !is_num(e) || (matches!(self, Elem::Real) && !is_real(e)) {
            return None;
        }
        Some(match self {
            Elem::Same | Elem::Real => calc(e),
            Elem::Float => match calc(e) {
                Type::Int(..) => Type::SCALAR,
                t => t,
            },
            Elem::Bool => Type::INT,
        })
    }
}

/// `sum(x)`: the element type; `sum(x, d)`: `x` with dimension `d` reduced to length 1.
fn reduction(c: &BuiltinCall, name: &str, elem: Elem) -> RuleResult {
    no_type_args(c, name)?;
    let a = args(c, name, 1, 2)?;
    let x = &a[0].ty;
    let bad = || expected(name, elem.expects(), x);
    let arr = match x {
        t if is_open(t) => return Ok(Type::Unknown),
        Type::CellTuple(_) => return Ok(Type::Unknown),
        Type::Array(arr) => arr,
        t if is_num(t) => {
            if let Some(d) = a.get(1) {
                dim_index(name, d)?;
            }
            return elem.apply(t).ok_or_else(bad);
        }
        _ => return Err(bad()),
    };
    let e = elem.apply(&arr.elem).ok_or_else(bad)?;
    match a.get(1) {
        None => Ok(e),
        Some(d) => along(name, arr, d, e),
    }
}

/// The shape of `x` reduced along dimension `d`.
fn along(name: &str, arr: &ArrayType, d: &ArgInfo, elem: Type) -> RuleResult {
    let Some(d) = dim_index(name, d)? else {
        return Ok(make_array(elem, arr.rank, None));
    };
    let rank = match arr.rank {
        Rank::Fixed(r) => Rank::Fixed(r.max(d as u8 + 1)),
        Rank::Any => return Ok(make_array(elem, Rank::Any, None)),
    };
    let Rank::Fixed(r) = rank else { unreachable!() };
    let mut shape: Vec<Dim> = (0..r as usize)
        .map(|i| match &arr.shape {
            Some(s) => s.get(i).cloned().unwrap_or(Dim::Known(1)),
            None if i as u8 >= rank_of(arr) => Dim::Known(1),
            None => Dim::Unknown,
        })
        .collect();
    shape[d as usize] = Dim::Known(1);
    Ok(make_array(elem, rank, Some(shape)))
}

fn rank_of(arr: &ArrayType) -> u8 {
    match arr.rank {
        Rank::Fixed(r) => r,
        Rank::Any => 0,
    }
}

fn sum(c: &BuiltinCall) -> RuleResult {
    reduction(c, "sum", Elem::Same)
}

fn prod(c: &BuiltinCall) -> RuleResult {
    reduction(c, "prod", Elem::Same)
}

fn mean(c: &BuiltinCall) -> RuleResult {
    reduction(c, "mean", Elem::Float)
}

fn any(c: &BuiltinCall) -> RuleResult {
    reduction(c, "any", Elem::Bool)
}

fn all(c: &BuiltinCall) -> RuleResult {
    reduction(c, "all", Elem::Bool)
}

/// `find(x)`: the linear indices of the non-zero elements of `x`, an integer vector (host
/// code; `x[x > 0]` is indexing with them, manual §2.1).
fn find(c: &BuiltinCall) -> RuleResult {
    no_type_args(c, "find")?;
    let a = args(c, "find", 1, 1)?;
    match &a[0].ty {
        t if is_open(t) || is_real(t) => Ok(Type::vec(Type::INT)),
        Type::Array(x) if is_real(&x.elem) || is_open(&x.elem) => Ok(Type::vec(Type::INT)),
        t => Err(expected("find", "a real array", t)),
    }
}

/// `min(x)` reduces; `min(a, b)` is the element-wise minimum.
fn min(c: &BuiltinCall) -> RuleResult {
    min_or_max(c, "min")
}

fn max(c: &BuiltinCall) -> RuleResult {
    min_or_max(c, "max")
}

fn min_or_max(c: &BuiltinCall, name: &str) -> RuleResult {
    no_type_args(c, name)?;
    let a = args(c, name, 1, 2)?;
    match a {
        [_] => reduction(c, name, Elem::Real),
        [x, y] => min_max2(name, &x.ty, &y.ty),
        _ => unreachable!(),
    }
}

/// `cumsum(x)`, `cumsum(x, d)`: the running sums, of the same shape.
fn cumulative(c: &BuiltinCall, name: &str) -> RuleResult {
    no_type_args(c, name)?;
    let a = args(c, name, 1, 2)?;
    if let Some(d) = a.get(1) {
        dim_index(name, d)?;
    }
    let x = &a[0].ty;
    let bad = || expected(name, NUMBERS, x);
    match x {
        t if is_open(t) => Ok(Type::Unknown),
        Type::Array(arr) => {
            let e = Elem::Same.apply(&arr.elem).ok_or_else(bad)?;
            Ok(make_array(e, arr.rank, arr.shape.clone()))
        }
        t if is_num(t) => Ok(calc(t)),
        _ => Err(bad()),
    }
}

fn cumsum(c: &BuiltinCall) -> RuleResult {
    cumulative(c, "cumsum")
}

fn cumprod(c: &BuiltinCall) -> RuleResult {
    cumulative(c, "cumprod")
}

/// `dotprod(a, b)`: the sum of the element-wise products, a number.
fn dotprod(c: &BuiltinCall) -> RuleResult {
    no_type_args(c, "dotprod")?;
    let a = args(c, "dotprod", 2, 2)?;
    let mut elems = Vec::new();
    for arg in a {
        let e = match &arg.ty {
            Type::Array(arr) => &arr.elem,
            t => t,
        };
        if is_open(e) {
            return Ok(Type::Unknown);
        }
        if !is_num(e) {
            return Err(expected("dotprod", "vectors of numbers", &arg.ty));
        }
        elems.push(calc(e));
    }
    Ok(promote_all(&elems))
}

pub(super) const SIGNATURES: &[Signature] = &[
    sig(B::Sum, true, "sum(x) or sum(x, dim)", sum),
    sig(B::Prod, true, "prod(x) or prod(x, dim)", prod),
    sig(B::Mean, true, "mean(x) or mean(x, dim)", mean),
    sig(B::Min, true, "min(x) or min(a, b)", min),
    sig(B::Max, true, "max(x) or max(a, b)", max),
    sig(B::Cumsum, false, "cumsum(x) or cumsum(x, dim)", cumsum),
    sig(B::Cumprod, false, "cumprod(x) or cumprod(x, dim)", cumprod),
    sig(B::Dotprod, true, "dotprod(a, b)", dotprod),
    sig(B::Any, true, "any(x)", any),
    sig(B::All, true, "all(x)", all),
    sig(B::Find, false, "find(x)", find),
];

#[cfg(test)]
mod tests {
    use super::super::test_util::*;

    #[test]
    fn find_gives_integer_indices() {
        assert_eq!(ok("find", &[a("vec")]), "ivec");
        assert_eq!(ok("find", &[a("imat(2, 2)")]), "ivec");
        assert!(err("find", &[a("string")]).contains("expects a real array"));
    }

    #[test]
    fn reductions_give_the_element_type() {
        assert_eq!(ok("sum", &[a("vec")]), "scalar");
        assert_eq!(ok("sum", &[a("ivec3")]), "int");
        assert_eq!(ok("sum", &[a("cmat")]), "cscalar");
        assert_eq!(ok("sum", &[a("cube[uint8]")]), "int");
        assert_eq!(ok("prod", &[a("ivec2")]), "int");
        assert_eq!(ok("mean", &[a("ivec")]), "scalar");
        assert_eq!(ok("mean", &[a("mat")]), "scalar");
        assert_eq!(ok("max", &[a("ivec2")]), "int");
        assert_eq!(ok("min", &[a("cube")]), "scalar");
        assert_eq!(ok("any", &[a("vec")]), "int");
        assert_eq!(ok("sum", &[a("scalar")]), "scalar");
        assert_eq!(ok("sum", &[a("??")]), "??");
        assert_eq!(ok("sum", &[a("vec[??]")]), "??");
    }

    #[test]
    fn reductions_along_a_dimension_keep_the_rank() {
        assert_eq!(ok("sum", &[a("mat(3, 4)"), n(1)]), "mat(3, 1)");
        assert_eq!(ok("sum", &[a("mat"), n(0)]), "mat(1, :)");
        assert_eq!(ok("sum", &[a("vec"), n(1)]), "mat(:, 1)");
        assert_eq!(ok("mean", &[a("icube"), n(2)]), "cube(:, :, 1)");
        assert_eq!(ok("sum", &[a("mat"), a("int")]), "mat");
        assert_eq!(
            err("sum", &[a("mat"), a("scalar")]),
            "`sum` expects a dimension (an integer), found scalar"
        );
        assert_eq!(err("sum", &[a("mat"), n(-1)]), "`sum`: dimension -1 is negative");
    }

    #[test]
    fn two_argument_min_and_max_are_element_wise() {
        assert_eq!(ok("max", &[a("mat"), n(4)]), "mat");
        assert_eq!(ok("min", &[a("int"), a("int")]), "int");
        assert_eq!(ok("max", &[a("scalar"), a("int")]), "scalar");
    }

    #[test]
    fn cumulative_and_dot_products() {
        assert_eq!(ok("cumsum", &[a("vec(5)")]), "vec5");
        assert_eq!(ok("cumprod", &[a("imat"), n(0)]), "imat");
        assert_eq!(ok("dotprod", &[a("vec3"), a("ivec3")]), "scalar");
        assert_eq!(ok("dotprod", &[a("ivec3"), a("ivec3")]), "int");
        assert_eq!(ok("dotprod", &[a("cvec"), a("vec")]), "cscalar");
    }

    #[test]
    fn reductions_refuse_what_they_cannot_sum() {
        assert_eq!(
            err("sum", &[a("string")]),
            "`sum` expects a number or an array of numbers, found string"
        );
        assert_eq!(
            err("max", &[a("cvec")]),
            "`max` expects a real number or an array of real numbers, found cvec"
        );
        assert_eq!(err("sum", &[]), "`sum` expects 1 or 2 arguments, found 0");
        assert_eq!(err("dotprod", &[a("vec")]), "`dotprod` expects 2 arguments, found 1");
    }
}
