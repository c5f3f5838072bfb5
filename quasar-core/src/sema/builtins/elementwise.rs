//! Element-wise math (manual table 14.1): functions of numbers that apply to every element of
//! an array, keeping its shape. Transcendental functions of integers give `scalar`s.

use super::common::{
    args, elementwise, is_integer, is_num, is_real, no_type_args, promote_all, sig, Elementwise,
    INTEGERS, NUMBERS, REALS,
};
use super::{BuiltinCall, RuleResult, Signature};
use crate::ir::Builtin as B;
use crate::sema::types::{Precision, Type};

/// `int → scalar`, floats keep their precision, complex stays complex.
fn float_result(es: &[Type]) -> Type {
    match promote_all(es) {
        Type::Int(..) => Type::SCALAR,
        t => t,
    }
}

/// The promoted type (integers stay integers).
fn same_result(es: &[Type]) -> Type {
    promote_all(es)
}

/// `abs`: the modulus of a complex number is real; `real`/`imag`: the parts of a complex
/// number are real (real numbers stay as they are).
fn magnitude_result(es: &[Type]) -> Type {
    match promote_all(es) {
        Type::Complex(p) => Type::Scalar(p),
        t => t,
    }
}

/// `angle`: always a real angle.
fn angle_result(es: &[Type]) -> Type {
    match promote_all(es) {
        Type::Complex(p) | Type::Scalar(p) => Type::Scalar(p),
        _ => Type::SCALAR,
    }
}

/// A predicate such as `isnan`: an integer truth value.
fn bool_result(_: &[Type]) -> Type {
    Type::INT
}

/// `float(x)`: to floating point, keeping an explicit precision.
fn float_conversion(es: &[Type]) -> Type {
    match promote_all(es) {
        Type::Scalar(p) => Type::Scalar(p),
        _ => Type::Scalar(Precision::Default),
    }
}

/// `scalar_to_half`: storage in 16-bit floats (manual §12.3.2).
fn half_conversion(_: &[Type]) -> Type {
    Type::Scalar(Precision::Half)
}

fn int_conversion(_: &[Type]) -> Type {
    Type::INT
}

fn any_number(t: &Type) -> bool {
    is_num(t)
}

const FLOAT: Elementwise =
    Elementwise { expects: NUMBERS, accept: any_number, result: float_result };
const REAL_FLOAT: Elementwise =
    Elementwise { expects: REALS, accept: is_real, result: float_result };
const SAME: Elementwise = Elementwise { expects: NUMBERS, accept: any_number, result: same_result };
const REAL_SAME: Elementwise = Elementwise { expects: REALS, accept: is_real, result: same_result };
const INT_SAME: Elementwise =
    Elementwise { expects: INTEGERS, accept: is_integer, result: same_result };
const MAGNITUDE: Elementwise =
    Elementwise { expects: NUMBERS, accept: any_number, result: magnitude_result };
const ANGLE: Elementwise =
    Elementwise { expects: NUMBERS, accept: any_number, result: angle_result };
const PREDICATE: Elementwise =
    Elementwise { expects: NUMBERS, accept: any_number, result: bool_result };
const TO_FLOAT: Elementwise =
    Elementwise { expects: REALS, accept: is_real, result: float_conversion };
const TO_HALF: Elementwise =
    Elementwise { expects: REALS, accept: is_real, result: half_conversion };
const TO_INT: Elementwise = Elementwise { expects: REALS, accept: is_real, result: int_conversion };

/// A rule applying `$kind` element-wise to exactly `$n` arguments.
macro_rules! ew_rules {
    ($($f:ident, $name:literal, $n:literal, $kind:expr;)*) => {
        $(
            fn $f(c: &BuiltinCall) -> RuleResult {
                no_type_args(c, $name)?;
                let a = args(c, $name, $n, $n)?;
                let tys: Vec<&Type> = a.iter().map(|a| &a.ty).collect();
                elementwise($name, &$kind, &tys)
            }
        )*
    };
}

ew_rules! {
    sin, "sin", 1, FLOAT;
    cos, "cos", 1, FLOAT;
    tan, "tan", 1, FLOAT;
    asin, "asin", 1, FLOAT;
    acos, "acos", 1, FLOAT;
    atan, "atan", 1, FLOAT;
    sinh, "sinh", 1, FLOAT;
    cosh, "cosh", 1, FLOAT;
    tanh, "tanh", 1, FLOAT;
    exp, "exp", 1, FLOAT;
    exp2, "exp2", 1, FLOAT;
    log, "log", 1, FLOAT;
    log2, "log2", 1, FLOAT;
    log10, "log10", 1, FLOAT;
    sqrt, "sqrt", 1, FLOAT;
    rsqrt, "rsqrt", 1, FLOAT;
    atan2, "atan2", 2, REAL_FLOAT;
    pow, "pow", 2, FLOAT;
    abs, "abs", 1, MAGNITUDE;
    sign, "sign", 1, SAME;
    floor, "floor", 1, REAL_SAME;
    ceil, "ceil", 1, REAL_SAME;
    round, "round", 1, REAL_SAME;
    frac, "frac", 1, REAL_SAME;
    modulo, "mod", 2, REAL_SAME;
    real, "real", 1, MAGNITUDE;
    imag, "imag", 1, MAGNITUDE;
    conj, "conj", 1, SAME;
    angle, "angle", 1, ANGLE;
    isnan, "isnan", 1, PREDICATE;
    isinf, "isinf", 1, PREDICATE;
    isfinite, "isfinite", 1, PREDICATE;
    float, "float", 1, TO_FLOAT;
    scalar_to_half, "scalar_to_half", 1, TO_HALF;
    int, "int", 1, TO_INT;
    saturate, "saturate", 1, REAL_SAME;
    lerp, "lerp", 3, FLOAT;
    factorial, "factorial", 1, REAL_FLOAT;
    periodize, "periodize", 2, REAL_SAME;
    mirror_ext, "mirror_ext", 2, REAL_SAME;
    and, "and", 2, INT_SAME;
    or, "or", 2, INT_SAME;
    xor, "xor", 2, INT_SAME;
    shl, "shl", 2, INT_SAME;
    shr, "shr", 2, INT_SAME;
    not, "not", 1, INT_SAME;
}

/// `clamp(x, N)` clamps to `[0, N]` (manual §2.4.1); `clamp(x, lo, hi)` to `[lo, hi]`.
fn clamp(c: &BuiltinCall) -> RuleResult {
    no_type_args(c, "clamp")?;
    let a = args(c, "clamp", 2, 3)?;
    let tys: Vec<&Type> = a.iter().map(|a| &a.ty).collect();
    elementwise("clamp", &REAL_SAME, &tys)
}

/// `min(a, b)` / `max(a, b)`: the element-wise minimum/maximum (the one-argument forms are
/// reductions, in `reduce`).
pub(super) fn min_max2(name: &str, a: &Type, b: &Type) -> RuleResult {
    elementwise(name, &REAL_SAME, &[a, b])
}

/// Integer conversions of `inttypes.q`: `uint8(x)`, `int16(x)`… (manual §12.3.1).
macro_rules! int_conversions {
    ($($f:ident, $name:literal, $kind:ident;)*) => {
        $(
            fn $f(c: &BuiltinCall) -> RuleResult {
                no_type_args(c, $name)?;
                let a = args(c, $name, 1, 1)?;
                let to = |_: &[Type]| {
                    Type::Int(crate::sema::types::IntKind::$kind, crate::sema::types::Overflow::Checked)
                };
                let rule = Elementwise { expects: REALS, accept: is_real, result: to };
                elementwise($name, &rule, &[&a[0].ty])
            }
        )*
    };
}

int_conversions! {
    to_int8, "int8", I8;
    to_int16, "int16", I16;
    to_int32, "int32", I32;
    to_int64, "int64", I64;
    to_uint8, "uint8", U8;
    to_uint16, "uint16", U16;
    to_uint32, "uint32", U32;
    to_uint64, "uint64", U64;
}

pub(super) const SIGNATURES: &[Signature] = &[
    sig(B::Sin, true, "sin(x)", sin),
    sig(B::Cos, true, "cos(x)", cos),
    sig(B::Tan, true, "tan(x)", tan),
    sig(B::Asin, true, "asin(x)", asin),
    sig(B::Acos, true, "acos(x)", acos),
    sig(B::Atan, true, "atan(x)", atan),
    sig(B::Sinh, true, "sinh(x)", sinh),
    sig(B::Cosh, true, "cosh(x)", cosh),
    sig(B::Tanh, true, "tanh(x)", tanh),
    sig(B::Exp, true, "exp(x)", exp),
    sig(B::Exp2, true, "exp2(x)", exp2),
    sig(B::Log, true, "log(x)", log),
    sig(B::Log2, true, "log2(x)", log2),
    sig(B::Log10, true, "log10(x)", log10),
    sig(B::Sqrt, true, "sqrt(x)", sqrt),
    sig(B::Rsqrt, true, "rsqrt(x)", rsqrt),
    sig(B::Atan2, true, "atan2(y, x)", atan2),
    sig(B::Pow, true, "pow(x, y)", pow),
    sig(B::Abs, true, "abs(x)", abs),
    sig(B::Sign, true, "sign(x)", sign),
    sig(B::Floor, true, "floor(x)", floor),
    sig(B::Ceil, true, "ceil(x)", ceil),
    sig(B::Round, true, "round(x)", round),
    sig(B::Frac, true, "frac(x)", frac),
    sig(B::Mod, true, "mod(x, n)", modulo),
    sig(B::Real, true, "real(z)", real),
    sig(B::Imag, true, "imag(z)", imag),
    sig(B::Conj, true, "conj(z)", conj),
    sig(B::Angle, true, "angle(z)", angle),
    sig(B::Isnan, true, "isnan(x)", isnan),
    sig(B::Isinf, true, "isinf(x)", isinf),
    sig(B::Isfinite, true, "isfinite(x)", isfinite),
    sig(B::Float, true, "float(x)", float),
    sig(B::ScalarToHalf, true, "scalar_to_half(x)", scalar_to_half),
    sig(B::Int, true, "int(x)", int),
    sig(B::Int8, true, "int8(x)", to_int8),
    sig(B::Int16, true, "int16(x)", to_int16),
    sig(B::Int32, true, "int32(x)", to_int32),
    sig(B::Int64, true, "int64(x)", to_int64),
    sig(B::Uint8, true, "uint8(x)", to_uint8),
    sig(B::Uint16, true, "uint16(x)", to_uint16),
    sig(B::Uint32, true, "uint32(x)", to_uint32),
    sig(B::Uint64, true, "uint64(x)", to_uint64),
    sig(B::Saturate, true, "saturate(x)", saturate),
    sig(B::Lerp, true, "lerp(a, b, t)", lerp),
    sig(B::Factorial, false, "factorial(n)", factorial),
    sig(B::Clamp, true, "clamp(x, N) or clamp(x, lo, hi)", clamp),
    sig(B::Periodize, true, "periodize(x, N)", periodize),
    sig(B::MirrorExt, true, "mirror_ext(x, N)", mirror_ext),
    sig(B::And, true, "and(a, b)", and),
    sig(B::Or, true, "or(a, b)", or),
    sig(B::Xor, true, "xor(a, b)", xor),
    sig(B::Shl, true, "shl(a, n)", shl),
    sig(B::Shr, true, "shr(a, n)", shr),
    sig(B::Not, true, "not(a)", not),
];

#[cfg(test)]
mod tests {
    use super::super::test_util::*;

    #[test]
    fn transcendental_functions_give_floats() {
        assert_eq!(ok("sin", &[a("scalar")]), "scalar");
        assert_eq!(ok("sin", &[a("int")]), "scalar");
        assert_eq!(ok("sin", &[a("ivec")]), "vec");
        assert_eq!(ok("exp", &[a("mat(2, 3)")]), "mat(2, 3)");
        assert_eq!(ok("log", &[a("cmat")]), "cmat");
        assert_eq!(ok("sqrt", &[a("scalar'double")]), "scalar'double");
        assert_eq!(ok("cos", &[a("cube(:, :, 3)")]), "cube(:, :, 3)");
        assert_eq!(ok("sin", &[a("vec[uint8]")]), "vec");
        assert_eq!(ok("tanh", &[a("??")]), "??");
        assert_eq!(ok("sin", &[a("vec[??]")]), "vec[??]");
        assert_eq!(ok("atan2", &[a("vec3"), a("scalar")]), "vec3");
        assert_eq!(ok("pow", &[a("int"), a("int")]), "scalar");
        assert_eq!(ok("lerp", &[a("vec3"), a("vec3"), a("scalar")]), "vec3");
    }

    #[test]
    fn element_wise_functions_keep_integers_where_they_can() {
        assert_eq!(ok("abs", &[a("int")]), "int");
        assert_eq!(ok("abs", &[a("cscalar")]), "scalar");
        assert_eq!(ok("abs", &[a("cvec4")]), "vec4");
        assert_eq!(ok("floor", &[a("scalar")]), "scalar");
        assert_eq!(ok("floor", &[a("ivec2")]), "ivec2");
        assert_eq!(ok("round", &[a("mat")]), "mat");
        assert_eq!(ok("mod", &[a("int"), a("int")]), "int");
        assert_eq!(ok("mod", &[a("ivec3"), a("ivec3")]), "ivec3");
        assert_eq!(ok("mod", &[a("scalar"), a("int")]), "scalar");
        assert_eq!(ok("sign", &[a("int16")]), "int");
        assert_eq!(ok("max", &[a("ivec2"), n(0)]), "ivec2");
        assert_eq!(ok("min", &[a("mat"), a("scalar")]), "mat");
        assert_eq!(ok("max", &[a("vec(3)"), a("vec")]), "vec3");
        assert_eq!(ok("max", &[a("mat(:, 4)"), a("mat(3, :)")]), "mat(3, 4)");
        assert_eq!(ok("periodize", &[a("ivec2"), a("ivec2")]), "ivec2");
        assert_eq!(ok("clamp", &[a("int"), a("int")]), "int");
        assert_eq!(ok("clamp", &[a("vec"), x(0.0), x(1.0)]), "vec");
        assert_eq!(ok("saturate", &[a("scalar")]), "scalar");
    }

    #[test]
    fn complex_parts_and_conversions() {
        assert_eq!(ok("real", &[a("cmat")]), "mat");
        assert_eq!(ok("imag", &[a("cscalar'double")]), "scalar'double");
        assert_eq!(ok("real", &[a("vec")]), "vec");
        assert_eq!(ok("conj", &[a("cvec")]), "cvec");
        assert_eq!(ok("angle", &[a("cscalar")]), "scalar");
        assert_eq!(ok("int", &[a("vec3")]), "ivec3");
        assert_eq!(ok("int", &[a("scalar")]), "int");
        assert_eq!(ok("float", &[a("imat")]), "mat");
        assert_eq!(ok("uint8", &[a("cube")]), "cube[uint8]");
        assert_eq!(ok("isnan", &[a("vec4")]), "ivec4");
        assert_eq!(ok("isfinite", &[a("scalar")]), "int");
    }

    #[test]
    fn bitwise_functions_take_integers() {
        assert_eq!(ok("and", &[a("int"), a("int")]), "int");
        assert_eq!(ok("shl", &[a("ivec4"), n(2)]), "ivec4");
        assert_eq!(ok("xor", &[a("uint32"), a("uint32")]), "uint32");
        assert_eq!(
            err("and", &[a("scalar"), a("int")]),
            "`and` expects an integer or an array of integers, found scalar"
        );
    }

    #[test]
    fn type_classes_map_member_by_member() {
        assert_eq!(ok("sin", &[a("[scalar|cube]")]), "[scalar|cube]");
        assert_eq!(ok("abs", &[a("[scalar|cscalar]")]), "scalar");
    }

    #[test]
    fn wrong_arguments_are_refused() {
        assert_eq!(
            err("sin", &[a("string")]),
            "`sin` expects a number or an array of numbers, found string"
        );
        assert_eq!(
            err("floor", &[a("cscalar")]),
            "`floor` expects a real number or an array of real numbers, found cscalar"
        );
        assert_eq!(
            err("int", &[a("cvec")]),
            "`int` expects a real number or an array of real numbers, found cvec"
        );
        assert_eq!(
            err("exp", &[a("fn")]),
            "`exp` expects a number or an array of numbers, found [__kernel__ () -> ()]"
        );
        assert_eq!(
            err("max", &[a("vec[string]"), a("scalar")]),
            "`max` expects a real number or an array of real numbers, found vec[string]"
        );
        assert_eq!(err("atan2", &[a("scalar")]), "`atan2` expects 2 arguments, found 1");
        assert_eq!(err("mod", &[a("int")]), "`mod` expects 2 arguments, found 1");
        assert_eq!(err("sin", &[a("??"), a("??")]), "`sin` expects 1 argument, found 2");
    }
}
