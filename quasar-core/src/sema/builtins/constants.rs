//! Built-in constants used as plain identifiers: `pi`, `eps`, `inf`, `nan`, `true`, `false`.
//! (`i` and `j` are not constants: they are the usual loop variables; imaginary numbers are
//! written `1i`/`1j`.)

use crate::ir::Const;
use crate::sema::types::Type;

/// The type and value of a built-in constant. `eps` is the machine precision of the default
/// `scalar` (single precision, `FLT_EPSILON`; manual §2.2.1); in double mode the checker
/// should use `f64::EPSILON` instead.
pub fn constant(name: &str) -> Option<(Type, Const)> {
    Some(match name {
        "pi" => (Type::SCALAR, Const::Scalar(std::f64::consts::PI)),
        "eps" => (Type::SCALAR, Const::Scalar(f32::EPSILON as f64)),
        "inf" => (Type::SCALAR, Const::Scalar(f64::INFINITY)),
        "nan" => (Type::SCALAR, Const::Scalar(f64::NAN)),
        "true" => (Type::INT, Const::Int(1)),
        "false" => (Type::INT, Const::Int(0)),
        "nullptr" => (Type::Null, Const::Null),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constants_have_types_and_values() {
        assert_eq!(constant("pi"), Some((Type::SCALAR, Const::Scalar(std::f64::consts::PI))));
        assert_eq!(constant("true"), Some((Type::INT, Const::Int(1))));
        assert_eq!(constant("false"), Some((Type::INT, Const::Int(0))));
        assert_eq!(constant("eps").map(|c| c.0), Some(Type::SCALAR));
        assert!(matches!(constant("inf"), Some((_, Const::Scalar(x))) if x.is_infinite()));
        assert!(matches!(constant("nan"), Some((_, Const::Scalar(x))) if x.is_nan()));
        assert_eq!(constant("i"), None);
        assert_eq!(constant("j"), None);
        assert_eq!(constant("e"), None);
    }
}
