//! Helpers shared by the typing rules: argument checks, element-type classes, element-wise
//! mapping with shape merging, and dimension arguments (`zeros(2, 3)`, `zeros(size(x))`).

use super::{ArgInfo, BuiltinCall, RuleResult, Signature};
use crate::ir::{Builtin, Const};
use crate::sema::types::{promote, ArrayMods, ArrayType, Dim, IntKind, Overflow, Rank, Type};

/// The most dimensions an array may have (manual §3.4).
pub(super) const MAX_DIMS: u64 = 16;

/// A built-in callable from host code, and from kernel and device code when `device`.
pub(super) const fn sig(
    builtin: Builtin,
    device: bool,
    usage: &'static str,
    rule: fn(&BuiltinCall) -> RuleResult,
) -> Signature {
    Signature { builtin, name: builtin.name(), host: true, device, usage, rule }
}

/// A built-in for host code only.
pub(super) const fn host_only(
    name: Builtin,
    usage: &'static str,
    rule: fn(&BuiltinCall) -> RuleResult,
) -> Signature {
    sig(name, false, usage, rule)
}

/// A built-in callable everywhere.
pub(super) const fn everywhere(
    name: Builtin,
    usage: &'static str,
    rule: fn(&BuiltinCall) -> RuleResult,
) -> Signature {
    sig(name, true, usage, rule)
}

/// Checks the number of positional arguments and that none is named; returns them.
pub(super) fn args<'a>(
    c: &BuiltinCall<'a>,
    name: &str,
    min: usize,
    max: usize,
) -> Result<&'a [ArgInfo], String> {
    if let Some(named) = c.args.iter().find_map(|a| a.name.as_deref()) {
        return Err(format!("`{name}` takes no named arguments (`{named} := …`)"));
    }
    let n = c.args.len();
    if n < min || n > max {
        let plural = |k: usize| if k == 1 { "argument" } else { "arguments" };
        let expected = if min == max {
            format!("{min} {}", plural(min))
        } else if max == usize::MAX {
            format!("at least {min} {}", plural(min))
        } else if max == min + 1 {
            format!("{min} or {max} arguments")
        } else {
            format!("{min} to {max} arguments")
        };
        return Err(format!("`{name}` expects {expected}, found {n}"));
    }
    Ok(c.args)
}

/// Rejects `name[T](…)` for built-ins that take no type arguments.
pub(super) fn no_type_args(c: &BuiltinCall, name: &str) -> Result<(), String> {
    if c.type_args.is_empty() {
        Ok(())
    } else {
        Err(format!("`{name}` takes no type arguments"))
    }
}

/// The error for an argument of the wrong kind: "`sin` expects a number …, found string".
pub(super) fn expected(name: &str, what: &str, found: &Type) -> String {
    format!("`{name}` expects {what}, found {found}")
}

/// An argument whose type is decided at run time (or by a generic instantiation): rules
/// accept it and give a best-effort result.
pub(super) fn is_open(t: &Type) -> bool {
    matches!(t, Type::Unknown | Type::Param(_))
}

/// The element type used for computing: enums are integers, narrow integers widen to `int`
/// (manual §12.3: values are upcast to the machine precision), overflow modifiers drop.
pub(super) fn calc(t: &Type) -> Type {
    match t {
        Type::Enum(..) => Type::INT,
        Type::Int(k, _) => match k {
            IntKind::I64 | IntKind::U64 | IntKind::U32 => Type::Int(*k, Overflow::Checked),
            _ => Type::INT,
        },
        t => t.clone(),
    }
}

/// `int`, `scalar`, `cscalar` of any width, or an enum.
pub(super) fn is_num(t: &Type) -> bool {
    t.is_number() || matches!(t, Type::Enum(..))
}

pub(super) fn is_real(t: &Type) -> bool {
    matches!(t, Type::Int(..) | Type::Scalar(_) | Type::Enum(..))
}

pub(super) fn is_integer(t: &Type) -> bool {
    matches!(t, Type::Int(..) | Type::Enum(..))
}

/// The promotion of several element types (`int < scalar < cscalar`), normalised by [`calc`].
pub(super) fn promote_all(es: &[Type]) -> Type {
    let mut it = es.iter().map(calc);
    let first = it.next().unwrap_or(Type::INT);
    it.fold(first, |acc, e| promote(&acc, &e))
}

/// Makes an array type; a shape without any known dimension is dropped (`vec`, not `vec(:)`).
pub(super) fn make_array(elem: Type, rank: Rank, shape: Option<Vec<Dim>>) -> Type {
    let shape = shape.filter(|s| s.iter().any(|d| !matches!(d, Dim::Unknown)));
    let rank = match (&shape, rank) {
        (Some(s), Rank::Fixed(_)) => Rank::Fixed(s.len().min(MAX_DIMS as usize) as u8),
        (_, r) => r,
    };
    Type::Array(Box::new(ArrayType { elem, rank, shape, mods: ArrayMods::default() }))
}

/// How an element-wise function treats its arguments.
pub(super) struct Elementwise {
    /// For messages: "a number or an array of numbers".
    pub expects: &'static str,
    /// Whether an element type (never `??`) is accepted.
    pub accept: fn(&Type) -> bool,
    /// The result element type from the arguments' element types (all accepted).
    pub result: fn(&[Type]) -> Type,
}

pub(super) const NUMBERS: &str = "a number or an array of numbers";
pub(super) const REALS: &str = "a real number or an array of real numbers";
pub(super) const INTEGERS: &str = "an integer or an array of integers";

/// What an argument of an element-wise function is.
enum Operand<'a> {
    Number(Type),
    Array(&'a ArrayType),
    /// `??`, a type parameter, an untyped cell: the result is `??`.
    Open,
}

/// Types an element-wise call: numbers give a number, arrays give an array of the merged
/// shape. A type class argument (`[scalar|cube]`) is mapped member by member.
pub(super) fn elementwise(name: &str, rule: &Elementwise, tys: &[&Type]) -> RuleResult {
    if let Some(i) = tys.iter().position(|t| matches!(t, Type::Union(_))) {
        let Type::Union(members) = tys[i] else { unreachable!() };
        let mut results: Vec<Type> = Vec::new();
        for m in members {
            let mut sub = tys.to_vec();
            sub[i] = m;
            let r = elementwise(name, rule, &sub)?;
            if !results.contains(&r) {
                results.push(r);
            }
        }
        return Ok(match results.len() {
            1 => results.pop().unwrap_or(Type::Unknown),
            _ if results.contains(&Type::Unknown) => Type::Unknown,
            _ => Type::Union(results),
        });
    }
    let mut ops = Vec::with_capacity(tys.len());
    for t in tys {
        let op = match t {
            t if is_open(t) => Operand::Open,
            Type::CellTuple(_) => Operand::Open,
            t if is_num(t) => Operand::Number((*t).clone()),
            Type::Array(a) if is_open(&a.elem) || matches!(a.elem, Type::CellTuple(_)) => {
                Operand::Array(a)
            }
            Type::Array(a) if is_num(&a.elem) => Operand::Array(a),
            _ => return Err(expected(name, rule.expects, t)),
        };
        let elem = match &op {
            Operand::Number(e) => Some(e),
            Operand::Array(a) if is_num(&a.elem) => Some(&a.elem),
            _ => None,
        };
        if let Some(e) = elem {
            if !(rule.accept)(&calc(e)) {
                return Err(expected(name, rule.expects, t));
            }
        }
        ops.push(op);
    }
    if ops.iter().any(|o| matches!(o, Operand::Open)) {
        return Ok(Type::Unknown);
    }
    let elems: Option<Vec<Type>> = ops
        .iter()
        .map(|o| match o {
            Operand::Number(e) => Some(calc(e)),
            Operand::Array(a) if is_num(&a.elem) => Some(calc(&a.elem)),
            _ => None,
        })
        .collect();
    let elem = match elems {
        Some(es) => (rule.result)(&es),
        None => Type::Unknown,
    };
    let arrays: Vec<&ArrayType> = ops
        .iter()
        .filter_map(|o| if let Operand::Array(a) = o { Some(*a) } else { None })
        .collect();
    if arrays.is_empty() {
        return Ok(elem);
    }
    let (rank, shape) = merge_arrays(&arrays);
    Ok(make_array(elem, rank, shape))
}

/// The rank and shape of the result of an element-wise operation on arrays whose sizes must
/// agree at run time: the highest rank, and every dimension that any operand knows.
pub(super) fn merge_arrays(arrays: &[&ArrayType]) -> (Rank, Option<Vec<Dim>>) {
    let rank = arrays.iter().fold(Rank::Fixed(0), |r, a| match (r, a.rank) {
        (Rank::Fixed(x), Rank::Fixed(y)) => Rank::Fixed(x.max(y)),
        _ => Rank::Any,
    });
    let Rank::Fixed(n) = rank else { return (rank, None) };
    let mut shape: Option<Vec<Dim>> = None;
    for a in arrays {
        let Some(s) = &a.shape else { continue };
        // Missing trailing dimensions have length 1 (a `vec(3)` is a `mat(3, 1)`).
        let padded: Vec<Dim> =
            (0..n as usize).map(|i| s.get(i).cloned().unwrap_or(Dim::Known(1))).collect();
        shape = Some(match shape {
            None => padded,
            Some(prev) => prev.iter().zip(&padded).map(|(x, y)| merge_dim(x, y)).collect(),
        });
    }
    (rank, shape)
}

fn merge_dim(x: &Dim, y: &Dim) -> Dim {
    match (x, y) {
        (a, b) if a == b => a.clone(),
        (Dim::Unknown, b) => b.clone(),
        (a, Dim::Unknown) => a.clone(),
        (Dim::Known(k), Dim::Param(_)) | (Dim::Param(_), Dim::Known(k)) => Dim::Known(*k),
        _ => Dim::Unknown,
    }
}

/// The length of a dimension given by a constant argument.
pub(super) fn const_dim(name: &str, c: Option<&Const>) -> Result<Dim, String> {
    match c {
        Some(Const::Int(n)) if *n < 0 => Err(format!("`{name}`: dimension {n} is negative")),
        Some(Const::Int(n)) => Ok(Dim::Known(*n as u64)),
        Some(Const::Scalar(f)) if *f < 0.0 => Err(format!("`{name}`: dimension {f} is negative")),
        Some(Const::Scalar(f)) if f.fract() == 0.0 && *f <= u64::MAX as f64 => {
            Ok(Dim::Known(*f as u64))
        }
        _ => Ok(Dim::Unknown),
    }
}

/// The rank and shape requested by dimension arguments: `(n)`, `(m, n)`, `(m, n, p, …)`
/// (each an integer), or a single vector of dimensions (`zeros(size(x))`, `ones([4, 5])`),
/// whose length gives the rank when it is known.
pub(super) fn dims(name: &str, args: &[ArgInfo]) -> Result<(Rank, Option<Vec<Dim>>), String> {
    const WHAT: &str = "dimensions (integers, or one vector of integers)";
    if args.len() as u64 > MAX_DIMS {
        return Err(format!("`{name}`: at most {MAX_DIMS} dimensions, found {}", args.len()));
    }
    if let [one] = args {
        match &one.ty {
            t if is_open(t) => return Ok((Rank::Any, None)),
            Type::Array(a) => {
                let elem_ok = is_open(&a.elem) || is_real(&a.elem);
                if !elem_ok || !matches!(a.rank, Rank::Fixed(1)) {
                    return Err(expected(name, WHAT, &one.ty));
                }
                return match a.shape.as_deref() {
                    Some([Dim::Known(0)]) => {
                        Err(format!("`{name}` needs at least one dimension, found an empty vector"))
                    }
                    Some([Dim::Known(k)]) if *k > MAX_DIMS => Err(format!(
                        "`{name}`: at most {MAX_DIMS} dimensions, found a vector of {k}"
                    )),
                    Some([Dim::Known(k)]) => Ok((Rank::Fixed(*k as u8), None)),
                    _ => Ok((Rank::Any, None)),
                };
            }
            _ => {}
        }
    }
    let mut shape = Vec::with_capacity(args.len());
    for a in args {
        if !(is_open(&a.ty) || is_real(&a.ty)) {
            return Err(expected(name, WHAT, &a.ty));
        }
        shape.push(const_dim(name, a.constant.as_ref())?);
    }
    Ok((Rank::Fixed(shape.len() as u8), Some(shape)))
}

/// The single type argument of `zeros[T]`, `shared[T]`…, or `default`.
pub(super) fn elem_type_arg(c: &BuiltinCall, name: &str, default: Type) -> Result<Type, String> {
    match c.type_args {
        [] => Ok(default),
        [t] => match t {
            Type::Void | Type::Tuple(_) | Type::TypeValue(_) | Type::Function(_) => {
                Err(format!("`{name}[{t}]`: `{t}` cannot be an array element type"))
            }
            t => Ok(t.clone()),
        },
        ts => Err(format!("`{name}` takes one type argument, found {}", ts.len())),
    }
}

/// The dimension argument `d` of `size(x, d)`, `sum(x, d)`: an integer (or `??`).
pub(super) fn dim_index(name: &str, a: &ArgInfo) -> Result<Option<u64>, String> {
    if !(is_open(&a.ty) || is_integer(&a.ty)) {
        return Err(expected(name, "a dimension (an integer)", &a.ty));
    }
    match a.constant {
        Some(Const::Int(d)) if d < 0 => Err(format!("`{name}`: dimension {d} is negative")),
        Some(Const::Int(d)) if d as u64 >= MAX_DIMS => {
            Err(format!("`{name}`: dimension {d} is beyond the {MAX_DIMS} supported dimensions"))
        }
        Some(Const::Int(d)) => Ok(Some(d as u64)),
        _ => Ok(None),
    }
}

/// A type that can be a value but not a numeric operand: for messages and checks.
pub(super) fn is_value(t: &Type) -> bool {
    !matches!(t, Type::Void | Type::Tuple(_) | Type::TypeValue(_))
}

/// The type given as a type argument (`cast(x, T)`, `maxvalue(scalar)`): `T` from a type value.
pub(super) fn type_value(t: &Type) -> Option<&Type> {
    match t {
        Type::TypeValue(inner) => Some(inner),
        _ => None,
    }
}

/// A string argument (a format, a file name): a string or `??`.
pub(super) fn string_arg(name: &str, what: &str, a: &ArgInfo) -> Result<(), String> {
    if matches!(a.ty, Type::String) || is_open(&a.ty) {
        Ok(())
    } else {
        Err(expected(name, what, &a.ty))
    }
}

/// The value of a constant string argument.
pub(super) fn const_str(a: &ArgInfo) -> Option<&str> {
    match &a.constant {
        Some(Const::Str(s)) => Some(s),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util::*;

    #[test]
    fn the_test_type_parser_round_trips() {
        for s in ["vec", "ivec3", "cmat", "mat(2, 3)", "cube(:, :, 3)", "cube{4}[int16]", "cube{:}"]
        {
            assert_eq!(ty(s).to_string(), s);
        }
        assert_eq!(ty("[scalar|cube]").to_string(), "[scalar|cube]");
    }

    #[test]
    fn arity_messages() {
        assert_eq!(err("sin", &[]), "`sin` expects 1 argument, found 0");
        assert_eq!(err("size", &[]), "`size` expects 1 or 2 arguments, found 0");
        assert_eq!(err("lerp", &[a("scalar")]), "`lerp` expects 3 arguments, found 1");
        let mut named = a("scalar");
        named.name = Some("x".into());
        assert_eq!(err("sin", &[named]), "`sin` takes no named arguments (`x := …`)");
    }
}
