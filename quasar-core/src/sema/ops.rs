//! Result types of Quasar's operators (manual table 2.1): element-wise arithmetic with
//! broadcasting of numbers over arrays, `*` as the matrix product, `/` of two ints giving a
//! `scalar`, comparisons giving `int` (0 or 1), and size checks where sizes are known.

use super::types::{promote, ArrayMods, ArrayType, Dim, Rank, Type};
use crate::syntax::ast::{BinaryOp, UnaryOp};

fn array(elem: Type, rank: Rank, shape: Option<Vec<Dim>>) -> Type {
    Type::Array(Box::new(ArrayType { elem, rank, shape, mods: ArrayMods::default() }))
}

/// The element type that arithmetic on `a` and `b` elements produces; `/` at least `scalar`.
fn arith_elem(op: BinaryOp, a: &Type, b: &Type) -> Result<Type, String> {
    if !is_numeric(a) || !is_numeric(b) {
        return Err(String::new());
    }
    if *a == Type::Unknown || *b == Type::Unknown {
        return Ok(Type::Unknown);
    }
    let t = promote(a, b);
    let to_float =
        matches!(op, BinaryOp::Div | BinaryOp::ElemDiv | BinaryOp::Pow | BinaryOp::ElemPow);
    Ok(if to_float && t.is_int() { Type::SCALAR } else { t })
}

fn is_numeric(t: &Type) -> bool {
    t.is_number() || matches!(t, Type::Unknown | Type::Param(_))
}

fn shapes_join(a: &ArrayType, b: &ArrayType) -> Result<(Rank, Option<Vec<Dim>>), String> {
    let rank = match (a.rank, b.rank) {
        (Rank::Fixed(x), Rank::Fixed(y)) => Rank::Fixed(x.max(y)),
        _ => Rank::Any,
    };
    let shape = match (&a.shape, &b.shape) {
        (Some(x), Some(y)) => {
            let len = x.len().max(y.len());
            let at = |s: &[Dim], i: usize| s.get(i).cloned().unwrap_or(Dim::Known(1));
            let mut out = Vec::with_capacity(len);
            for i in 0..len {
                match (at(x, i), at(y, i)) {
                    (Dim::Known(p), Dim::Known(q)) if p != q => return Err("sizes".into()),
                    (Dim::Known(p), _) | (_, Dim::Known(p)) => out.push(Dim::Known(p)),
                    (d, _) => out.push(d),
                }
            }
            Some(out)
        }
        (Some(s), None) | (None, Some(s)) => Some(s.clone()),
        (None, None) => None,
    };
    Ok((rank, shape))
}

fn mismatch(op: BinaryOp, l: &Type, r: &Type) -> String {
    format!("`{}` cannot combine {l} and {r}", crate::syntax::printer::binary_op_str(op))
}

/// The type of `l op r`, or a message saying why the operands do not fit.
pub fn binary_type(op: BinaryOp, l: &Type, r: &Type) -> Result<Type, String> {
    use BinaryOp::*;
    if matches!(l, Type::Unknown) || matches!(r, Type::Unknown) {
        return Ok(match op {
            Lt | Le | Gt | Ge | Eq | Ne | And | Or
                if !matches!((l, r), (Type::Array(_), _) | (_, Type::Array(_))) =>
            {
                Type::INT
            }
            _ => Type::Unknown,
        });
    }
    match op {
        Pipe => Ok(Type::Unknown),
        Add if *l == Type::String || *r == Type::String => {
            if matches!((l, r), (Type::String, Type::String)) || l.is_number() || r.is_number() {
                Ok(Type::String)
            } else {
                Err(mismatch(op, l, r))
            }
        }
        Eq | Ne if *l == Type::String && *r == Type::String => Ok(Type::INT),
        Eq | Ne if matches!((l, r), (Type::Enum(a, _), Type::Enum(b, _)) if a == b) => {
            Ok(Type::INT)
        }
        Eq | Ne
            if matches!((l, r), (Type::Pointer(_) | Type::Null, Type::Pointer(_) | Type::Null)) =>
        {
            Ok(Type::INT)
        }
        Add | Sub | ElemMul | ElemDiv | ElemPow => elementwise(op, l, r, false),
        Lt | Le | Gt | Ge | Eq | Ne | And | Or => elementwise(op, l, r, true),
        Div => match (l, r) {
            (_, Type::Array(_)) => {
                Err(format!("{} (use `./` for element-wise division)", mismatch(op, l, r)))
            }
            _ => elementwise(op, l, r, false),
        },
        Pow => match (l, r) {
            (Type::Array(_), _) | (_, Type::Array(_)) => Err(format!(
                "{} (`^` is for numbers; use `.^` for element-wise powers)",
                mismatch(op, l, r)
            )),
            _ => elementwise(op, l, r, false),
        },
        Mul => match (l, r) {
            (Type::Array(a), Type::Array(b)) => {
                matrix_product(a, b).ok_or_else(|| mismatch(op, l, r))
            }
            _ => elementwise(op, l, r, false),
        },
    }
}

/// Element-wise `l op r` with numbers broadcast over arrays; comparisons give `int`s.
fn elementwise(op: BinaryOp, l: &Type, r: &Type, compare: bool) -> Result<Type, String> {
    let elem = |a: &Type, b: &Type| -> Result<Type, String> {
        if compare {
            if is_numeric(a) && is_numeric(b) {
                Ok(Type::INT)
            } else {
                Err(mismatch(op, l, r))
            }
        } else {
            arith_elem(op, a, b).map_err(|_| mismatch(op, l, r))
        }
    };
    match (l, r) {
        (Type::Array(a), Type::Array(b)) => {
            let e = elem(&a.elem, &b.elem)?;
            let (rank, shape) = shapes_join(a, b)
                .map_err(|_| format!("{}: the sizes differ", mismatch(op, l, r)))?;
            Ok(array(e, rank, shape))
        }
        (Type::Array(a), n) | (n, Type::Array(a)) => {
            let e = elem(&a.elem, n)?;
            Ok(array(e, a.rank, a.shape.clone()))
        }
        _ => elem(l, r),
    }
}

/// `a * b` for arrays: vectors are rows on the left and columns on the right, as in
/// `[1, 2, 3] * eye(3)` and `A * x`.
fn matrix_product(a: &ArrayType, b: &ArrayType) -> Option<Type> {
    let elem = arith_elem(BinaryOp::Mul, &a.elem, &b.elem).ok()?;
    let dims = |t: &ArrayType, left: bool| -> Option<(Dim, Dim)> {
        let s = t
            .shape
            .clone()
            .unwrap_or_else(|| vec![Dim::Unknown; if t.rank == Rank::Fixed(1) { 1 } else { 2 }]);
        match t.rank {
            Rank::Fixed(1) if left => Some((Dim::Known(1), s[0].clone())),
            Rank::Fixed(1) => Some((s[0].clone(), Dim::Known(1))),
            Rank::Fixed(2) => Some((s[0].clone(), s[1].clone())),
            _ => None,
        }
    };
    let (m, k1) = dims(a, true)?;
    let (k2, n) = dims(b, false)?;
    if let (Dim::Known(x), Dim::Known(y)) = (&k1, &k2) {
        if x != y {
            return None;
        }
    }
    let known = |d: &Dim| !matches!(d, Dim::Unknown | Dim::Param(_));
    let shape_of = |ds: Vec<Dim>| if ds.iter().any(known) { Some(ds) } else { None };
    Some(match (a.rank, b.rank) {
        (Rank::Fixed(2), Rank::Fixed(1)) => array(elem, Rank::Fixed(1), shape_of(vec![m])),
        (Rank::Fixed(1), Rank::Fixed(2)) => array(elem, Rank::Fixed(1), shape_of(vec![n])),
        // A row times a column is a 1×1 matrix; as in the manual, it stays an array.
        _ => array(elem, Rank::Fixed(2), shape_of(vec![m, n])),
    })
}

/// The type of `op operand`.
pub fn unary_type(op: UnaryOp, t: &Type) -> Result<Type, String> {
    let bad = || {
        let o = match op {
            UnaryOp::Neg => "-",
            UnaryOp::Plus => "+",
            UnaryOp::Not => "!",
        };
        format!("`{o}` cannot be applied to {t}")
    };
    match (op, t) {
        (_, Type::Unknown) => Ok(Type::Unknown),
        (UnaryOp::Not, Type::Array(a)) if is_numeric(&a.elem) => {
            Ok(array(Type::INT, a.rank, a.shape.clone()))
        }
        (UnaryOp::Not, t) if is_numeric(t) => Ok(Type::INT),
        (_, Type::Array(a)) if is_numeric(&a.elem) => Ok(t.without_mods()),
        (_, t) if is_numeric(t) => Ok(t.clone()),
        _ => Err(bad()),
    }
}

impl Type {
    /// The type with array modifiers (`'const`, access modes) removed: the type of a value
    /// computed from the array rather than the array itself.
    pub fn without_mods(&self) -> Type {
        match self {
            Type::Array(a) => {
                let mut a = (**a).clone();
                a.mods = ArrayMods::default();
                Type::Array(Box::new(a))
            }
            t => t.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use BinaryOp::*;

    fn v(n: u64) -> Type {
        Type::vec_n(Type::SCALAR, n)
    }

    fn show(r: Result<Type, String>) -> String {
        match r {
            Ok(t) => t.to_string(),
            Err(e) => format!("error: {e}"),
        }
    }

    #[test]
    fn arithmetic_and_broadcasting() {
        assert_eq!(show(binary_type(Add, &Type::INT, &Type::INT)), "int");
        assert_eq!(show(binary_type(Add, &Type::INT, &Type::SCALAR)), "scalar");
        assert_eq!(show(binary_type(Div, &Type::INT, &Type::INT)), "scalar");
        assert_eq!(show(binary_type(Mul, &Type::SCALAR, &Type::CSCALAR)), "cscalar");
        assert_eq!(show(binary_type(Add, &Type::vec_n(Type::INT, 4), &Type::INT)), "ivec4");
        assert_eq!(show(binary_type(ElemMul, &v(3), &v(3))), "vec3");
        assert_eq!(show(binary_type(Div, &Type::vec(Type::INT), &Type::INT)), "vec");
        assert!(show(binary_type(Add, &v(3), &v(4))).contains("the sizes differ"));
        assert!(show(binary_type(Div, &Type::SCALAR, &v(3))).contains("use `./`"));
        assert!(show(binary_type(Pow, &v(3), &Type::INT)).contains("use `.^`"));
        assert_eq!(show(binary_type(ElemPow, &v(3), &Type::INT)), "vec3");
    }

    #[test]
    fn matrix_products() {
        let m44 = Type::array_with_shape(Type::SCALAR, vec![Dim::Known(4), Dim::Known(4)]);
        let m = Type::array(Type::SCALAR, 2);
        assert_eq!(show(binary_type(Mul, &m44, &v(4))), "vec4");
        assert_eq!(show(binary_type(Mul, &v(4), &m44)), "vec4");
        assert_eq!(show(binary_type(Mul, &m, &m)), "mat");
        assert!(show(binary_type(Mul, &Type::vec_n(Type::INT, 3), &m44)).starts_with("error"));
    }

    #[test]
    fn comparisons_logic_strings_and_unary() {
        assert_eq!(show(binary_type(Lt, &Type::SCALAR, &Type::INT)), "int");
        assert_eq!(show(binary_type(Gt, &Type::array(Type::SCALAR, 2), &Type::INT)), "imat");
        assert_eq!(show(binary_type(Eq, &Type::String, &Type::String)), "int");
        assert_eq!(show(binary_type(Add, &Type::String, &Type::String)), "string");
        assert!(show(binary_type(Mul, &Type::String, &Type::INT)).starts_with("error"));
        assert_eq!(show(unary_type(UnaryOp::Neg, &v(2))), "vec2");
        assert_eq!(show(unary_type(UnaryOp::Not, &Type::SCALAR)), "int");
        assert!(show(unary_type(UnaryOp::Neg, &Type::String)).starts_with("error"));
    }
}
