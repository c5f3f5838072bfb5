//! Conversions and type queries: `complex type typename cast maxvalue minvalue` and the type
//! predicates of `system.q` (`isreal iscomplex isscalar isvector ismatrix iscube`). The
//! element-wise conversions `int float uint8 …` are in `elementwise`.

use super::common::{
    args, elementwise, expected, is_open, is_real, is_value, no_type_args, promote_all, sig,
    type_value, Elementwise, REALS,
};
use super::{BuiltinCall, RuleResult, Signature};
use crate::ir::Builtin as B;
use crate::sema::types::{Precision, Type};

fn to_complex(es: &[Type]) -> Type {
    match promote_all(es) {
        Type::Scalar(p) | Type::Complex(p) => Type::Complex(p),
        _ => Type::Complex(Precision::Default),
    }
}

fn any_number(t: &Type) -> bool {
    t.is_number()
}

/// `complex(x)`: the complex counterpart of a number or array; `complex(re, im)` from two
/// real parts.
fn complex(c: &BuiltinCall) -> RuleResult {
    no_type_args(c, "complex")?;
    let a = args(c, "complex", 1, 2)?;
    match a {
        [x] => {
            let rule = Elementwise {
                expects: "a number or an array of numbers",
                accept: any_number,
                result: to_complex,
            };
            elementwise("complex", &rule, &[&x.ty])
        }
        [re, im] => {
            let rule = Elementwise { expects: REALS, accept: is_real, result: to_complex };
            elementwise("complex", &rule, &[&re.ty, &im.ty])
        }
        _ => unreachable!(),
    }
}

/// `type(x)`: the type of `x` as a value; `type(x, "name")` / `type(x, T)`: whether `x` has
/// that type (an `int` truth value; the checker narrows `x` in assertions).
fn type_of(c: &BuiltinCall) -> RuleResult {
    no_type_args(c, "type")?;
    let a = args(c, "type", 1, 2)?;
    if !is_value(&a[0].ty) {
        return Err(expected("type", "a value", &a[0].ty));
    }
    match a.get(1) {
        None => Ok(Type::TypeValue(Box::new(a[0].ty.clone()))),
        Some(t) if matches!(t.ty, Type::String | Type::TypeValue(_)) || is_open(&t.ty) => {
            Ok(Type::INT)
        }
        Some(t) => Err(expected("type", "a type or the name of a type", &t.ty)),
    }
}

/// `typename(T)`: the type `T` as a value, to construct instances (`typename(vec[int])(4)`).
fn typename(c: &BuiltinCall) -> RuleResult {
    no_type_args(c, "typename")?;
    let a = args(c, "typename", 1, 1)?;
    match &a[0].ty {
        t @ Type::TypeValue(_) => Ok(t.clone()),
        t if is_open(t) => Ok(Type::TypeValue(Box::new(Type::Unknown))),
        t => Err(expected("typename", "a type", t)),
    }
}

/// `cast(x, T)`: `x` converted to `T`.
fn cast(c: &BuiltinCall) -> RuleResult {
    no_type_args(c, "cast")?;
    let a = args(c, "cast", 2, 2)?;
    if !is_value(&a[0].ty) {
        return Err(expected("cast", "a value", &a[0].ty));
    }
    match &a[1].ty {
        Type::TypeValue(t) => Ok((**t).clone()),
        t if is_open(t) => Ok(Type::Unknown),
        t => Err(expected("cast", "a type as the second argument", t)),
    }
}

/// `maxvalue(T)` / `minvalue(T)`: the largest/smallest value of a number type.
fn limit(c: &BuiltinCall, name: &str) -> RuleResult {
    no_type_args(c, name)?;
    let a = args(c, name, 1, 1)?;
    let t = type_value(&a[0].ty).unwrap_or(&a[0].ty);
    match t {
        Type::Int(k, _) => Ok(Type::Int(*k, Default::default())),
        Type::Scalar(p) => Ok(Type::Scalar(*p)),
        t if is_open(t) => Ok(Type::Unknown),
        _ => Err(expected(name, "an integer or scalar type", &a[0].ty)),
    }
}

fn maxvalue(c: &BuiltinCall) -> RuleResult {
    limit(c, "maxvalue")
}

fn minvalue(c: &BuiltinCall) -> RuleResult {
    limit(c, "minvalue")
}

/// The `system.q` type predicates: an `int` truth value for any value.
fn predicate(c: &BuiltinCall, name: &str) -> RuleResult {
    no_type_args(c, name)?;
    let a = args(c, name, 1, 1)?;
    if !is_value(&a[0].ty) {
        return Err(expected(name, "a value", &a[0].ty));
    }
    Ok(Type::INT)
}

fn isreal(c: &BuiltinCall) -> RuleResult {
    predicate(c, "isreal")
}

fn iscomplex(c: &BuiltinCall) -> RuleResult {
    predicate(c, "iscomplex")
}

fn isscalar(c: &BuiltinCall) -> RuleResult {
    predicate(c, "isscalar")
}

fn isvector(c: &BuiltinCall) -> RuleResult {
    predicate(c, "isvector")
}

fn ismatrix(c: &BuiltinCall) -> RuleResult {
    predicate(c, "ismatrix")
}

fn iscube(c: &BuiltinCall) -> RuleResult {
    predicate(c, "iscube")
}

pub(super) const SIGNATURES: &[Signature] = &[
    sig(B::Complex, true, "complex(x) or complex(re, im)", complex),
    sig(B::Type, true, "type(x) or type(x, T)", type_of),
    sig(B::Typename, false, "typename(T)", typename),
    sig(B::Cast, true, "cast(x, T)", cast),
    sig(B::Maxvalue, true, "maxvalue(T)", maxvalue),
    sig(B::Minvalue, true, "minvalue(T)", minvalue),
    sig(B::Isreal, true, "isreal(x)", isreal),
    sig(B::Iscomplex, true, "iscomplex(x)", iscomplex),
    sig(B::Isscalar, true, "isscalar(x)", isscalar),
    sig(B::Isvector, true, "isvector(x)", isvector),
    sig(B::Ismatrix, true, "ismatrix(x)", ismatrix),
    sig(B::Iscube, true, "iscube(x)", iscube),
];

#[cfg(test)]
mod tests {
    use super::super::test_util::*;

    #[test]
    fn complex_counterparts() {
        assert_eq!(ok("complex", &[a("scalar")]), "cscalar");
        assert_eq!(ok("complex", &[a("int")]), "cscalar");
        assert_eq!(ok("complex", &[a("vec4")]), "cvec4");
        assert_eq!(ok("complex", &[a("scalar'double")]), "cscalar'double");
        assert_eq!(ok("complex", &[a("cmat")]), "cmat");
        assert_eq!(ok("complex", &[a("mat"), a("mat")]), "cmat");
        assert_eq!(ok("complex", &[a("scalar"), n(0)]), "cscalar");
        assert_eq!(
            err("complex", &[a("cscalar"), a("scalar")]),
            "`complex` expects a real number or an array of real numbers, found cscalar"
        );
        assert_eq!(
            err("complex", &[a("string")]),
            "`complex` expects a number or an array of numbers, found string"
        );
    }

    #[test]
    fn type_tests_and_type_values() {
        assert_eq!(ok("type", &[a("mat"), s("mat")]), "int");
        assert_eq!(ok("type", &[a("??"), t("cube")]), "int");
        assert_eq!(ok("type", &[a("mat")]), "type(mat)");
        assert_eq!(
            err("type", &[a("mat"), a("int")]),
            "`type` expects a type or the name of a type, found int"
        );
        assert_eq!(ok("typename", &[t("vec[int]")]), "type(ivec)");
        assert_eq!(err("typename", &[a("int")]), "`typename` expects a type, found int");
        assert_eq!(ok("cast", &[x(0.0), t("int16")]), "int16");
        assert_eq!(ok("cast", &[x(0.0), t("T")]), "T");
        assert_eq!(
            err("cast", &[x(0.0), s("int")]),
            "`cast` expects a type as the second argument, found string"
        );
        assert_eq!(ok("maxvalue", &[t("scalar")]), "scalar");
        assert_eq!(ok("minvalue", &[t("uint8")]), "uint8");
        assert_eq!(ok("maxvalue", &[t("T")]), "??");
        assert_eq!(
            err("maxvalue", &[t("mat")]),
            "`maxvalue` expects an integer or scalar type, found type(mat)"
        );
        assert_eq!(ok("isreal", &[a("??")]), "int");
        assert_eq!(ok("iscube", &[a("mat")]), "int");
    }
}
