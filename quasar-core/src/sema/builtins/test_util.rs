//! Test helpers: a small parser for the type spellings used in the tests (`mat(2, 3)`, `ivec3`,
//! `cube{4}[int16]`, `cube(:, :, 3)`, `[scalar|cube]`, `??`) and call helpers.

use super::{lookup, ArgInfo, BuiltinCall};
use crate::ir::Const;
use crate::sema::types::{ArrayMods, ArrayType, Dim, IntKind, Overflow, Precision, Rank, Type};

pub fn ty(s: &str) -> Type {
    let s = s.trim();
    if let Some(inner) = s.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
        return Type::Union(inner.split('|').map(ty).collect());
    }
    if let Some(inner) = s.strip_prefix("type(").and_then(|r| r.strip_suffix(')')) {
        return Type::TypeValue(Box::new(ty(inner)));
    }
    match s {
        "??" => return Type::Unknown,
        "scalar" => return Type::SCALAR,
        "cscalar" => return Type::CSCALAR,
        "string" => return Type::String,
        "scalar'half" => return Type::Scalar(Precision::Half),
        "scalar'double" => return Type::Scalar(Precision::Double),
        "cscalar'double" => return Type::Complex(Precision::Double),
        "fn" => {
            return Type::Function(Box::new(crate::sema::types::FnType {
                kind: crate::syntax::ast::FunctionKind::Kernel,
                params: vec![],
                variadic: false,
                results: vec![],
            }))
        }
        "T" => return Type::Param("T".into()),
        _ => {}
    }
    if let Some(k) = IntKind::from_name(s) {
        return Type::Int(k, Overflow::Checked);
    }
    array(s)
}

fn array(s: &str) -> Type {
    let (elem, rest) = if let Some(r) = s.strip_prefix('i') {
        (Type::INT, r)
    } else if let Some(r) = s.strip_prefix('c') {
        if r.starts_with("ube") {
            (Type::SCALAR, s)
        } else {
            (Type::CSCALAR, r)
        }
    } else {
        (Type::SCALAR, s)
    };
    let (base, mut rest) = ["vec", "mat", "cube"]
        .iter()
        .find_map(|b| rest.strip_prefix(b).map(|r| (*b, r)))
        .unwrap_or_else(|| panic!("unknown test type `{s}`"));
    let mut rank = Rank::Fixed(match base {
        "vec" => 1,
        "mat" => 2,
        _ => 3,
    });
    if let Some(r) = rest.strip_prefix('{') {
        let (n, r) = r.split_once('}').unwrap();
        rank = if n == ":" { Rank::Any } else { Rank::Fixed(n.parse().unwrap()) };
        rest = r;
    }
    let mut elem = elem;
    if let Some(r) = rest.strip_prefix('[') {
        let (e, r) = r.split_once(']').unwrap();
        elem = ty(e);
        rest = r;
    }
    let mut shape = None;
    if let Some(r) = rest.strip_prefix('(') {
        let inner = r.strip_suffix(')').unwrap();
        shape = Some(
            inner
                .split(',')
                .map(|d| match d.trim() {
                    ":" => Dim::Unknown,
                    d => d.parse().map(Dim::Known).unwrap_or(Dim::Param(d.to_string())),
                })
                .collect::<Vec<_>>(),
        );
    } else if !rest.is_empty() {
        shape = Some(vec![Dim::Known(rest.parse().unwrap())]);
    }
    if let (Some(s), Rank::Fixed(_)) = (&shape, rank) {
        rank = Rank::Fixed(s.len() as u8);
    }
    Type::Array(Box::new(ArrayType { elem, rank, shape, mods: ArrayMods::default() }))
}

/// An argument of a type (no constant value).
pub fn a(s: &str) -> ArgInfo {
    ArgInfo { ty: ty(s), constant: None, name: None }
}

/// A constant `int` argument.
pub fn n(v: i64) -> ArgInfo {
    ArgInfo { ty: Type::INT, constant: Some(Const::Int(v)), name: None }
}

/// A constant `scalar` argument.
pub fn x(v: f64) -> ArgInfo {
    ArgInfo { ty: Type::SCALAR, constant: Some(Const::Scalar(v)), name: None }
}

/// A constant string argument.
pub fn s(v: &str) -> ArgInfo {
    ArgInfo { ty: Type::String, constant: Some(Const::Str(v.into())), name: None }
}

/// A type used as a value (`scalar` in `cast(x, scalar)`).
pub fn t(s: &str) -> ArgInfo {
    ArgInfo { ty: Type::TypeValue(Box::new(ty(s))), constant: None, name: None }
}

pub fn run(name: &str, types: &[&str], args: &[ArgInfo], device: bool) -> Result<String, String> {
    let sig = lookup(name).unwrap_or_else(|| panic!("no built-in `{name}`"));
    let type_args: Vec<Type> = types.iter().map(|s| ty(s)).collect();
    let call = BuiltinCall { args, type_args: &type_args, in_device_code: device };
    (sig.rule)(&call).map(|t| t.to_string())
}

/// The result type's spelling; panics with the message when the rule refuses.
pub fn ok(name: &str, args: &[ArgInfo]) -> String {
    run(name, &[], args, false).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The rule's error message; panics when the rule accepts the call.
pub fn err(name: &str, args: &[ArgInfo]) -> String {
    match run(name, &[], args, false) {
        Ok(t) => panic!("{name} accepted the call, giving {t}"),
        Err(e) => e,
    }
}
