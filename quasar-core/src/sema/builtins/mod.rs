//! The table of built-in function signatures (manual chapter 14): for each name, where it
//! may be called (host code, kernel/device code) and a rule computing its result type from
//! the argument types and, where known, the arguments' constant values (so that
//! `zeros(2, 2)` is a `mat(2, 2)` and `size(x, 0..1)` an `ivec2`). The implementations are
//! in quasar-std; this module only types the calls.
//!
//! The families are in separate files: `construct` (allocation and reshaping),
//! `shape` (`size numel …`), `elementwise` (math on numbers and arrays), `reduce`
//! (`sum max …`), `convert` (`complex type cast …`), `linalg` (`transpose inv fft2 …`),
//! `io` (strings, printing, files, images, timing), `device` (shared memory, barriers,
//! cooperative groups, launch configuration), [`runtime`] (`schedule` and the runtime code
//! attributes), `constants` (`pi eps inf nan true false`).
//! `parallel_do` and `serial_do` are typed by the checker itself and are not in the table.

mod common;
mod constants;
mod construct;
mod convert;
mod device;
mod elementwise;
mod io;
mod linalg;
mod reduce;
pub mod runtime;
mod shape;
#[cfg(test)]
mod test_util;

pub use constants::constant;
pub use device::{
    thread_block_method, thread_block_property, FENCE_SCOPES, GPU_FEATURES, SYNC_SCOPES,
};

use crate::ir::Const;
use crate::sema::types::Type;
use std::collections::HashMap;
use std::sync::OnceLock;

/// One argument of a built-in call as the type checker sees it.
#[derive(Clone, Debug)]
pub struct ArgInfo {
    /// Its inferred type.
    pub ty: Type,
    /// The argument's value when it is a compile-time constant.
    pub constant: Option<Const>,
    /// `name := value` arguments.
    pub name: Option<String>,
}

/// A call of a built-in, for its typing rule.
#[derive(Clone, Debug)]
pub struct BuiltinCall<'a> {
    /// The arguments in order.
    pub args: &'a [ArgInfo],
    /// Explicit type arguments: `shared[uint8](n)`, `zeros[int](4)`.
    pub type_args: &'a [Type],
    /// The call is inside a `__kernel__` or `__device__` function.
    pub in_device_code: bool,
}

/// The result of a typing rule: the result type (a [`Type::Tuple`] for several outputs,
/// [`Type::Void`] for none), or an explanation of why the arguments do not fit.
pub type RuleResult = Result<Type, String>;

/// One row of the built-in table: a built-in, where it may be called, and its typing rule.
#[derive(Clone, Copy)]
pub struct Signature {
    /// The built-in this row types (the IR's name for it).
    pub builtin: crate::ir::Builtin,
    /// `builtin.name()`.
    pub name: &'static str,
    /// May be called from host code.
    pub host: bool,
    /// May be called from `__kernel__` / `__device__` code (the manual's `(*)` functions).
    pub device: bool,
    /// A short form shown in messages, e.g. `zeros(dims...)`.
    pub usage: &'static str,
    /// Computes the result type from the arguments, or says why they do not fit.
    pub rule: fn(&BuiltinCall) -> RuleResult,
}

impl std::fmt::Debug for Signature {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Signature({})", self.name)
    }
}

/// Looks up a built-in by name.
pub fn lookup(name: &str) -> Option<&'static Signature> {
    static INDEX: OnceLock<HashMap<&'static str, usize>> = OnceLock::new();
    let index =
        INDEX.get_or_init(|| table().iter().enumerate().map(|(i, s)| (s.name, i)).collect());
    index.get(name).map(|&i| &table()[i])
}

/// Every built-in signature.
pub fn table() -> &'static [Signature] {
    static TABLE: OnceLock<Vec<Signature>> = OnceLock::new();
    TABLE.get_or_init(|| {
        [
            construct::SIGNATURES,
            shape::SIGNATURES,
            elementwise::SIGNATURES,
            reduce::SIGNATURES,
            convert::SIGNATURES,
            linalg::SIGNATURES,
            io::SIGNATURES,
            device::SIGNATURES,
            runtime::SIGNATURES,
        ]
        .concat()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn names_are_unique_and_described() {
        let mut seen = HashSet::new();
        for s in table() {
            assert!(seen.insert(s.name), "`{}` is in the table twice", s.name);
            assert!(s.host || s.device, "`{}` can be called from nowhere", s.name);
            assert!(s.usage.contains(s.name), "usage of `{}`: {}", s.name, s.usage);
        }
        assert!(table().len() > 150, "{} built-ins", table().len());
    }

    #[test]
    fn lookup_finds_every_entry() {
        for s in table() {
            assert_eq!(lookup(s.name).map(|t| t.name), Some(s.name));
        }
        assert!(lookup("parallel_do").is_none() && lookup("serial_do").is_none());
        assert!(lookup("nonexistent").is_none());
    }

    #[test]
    fn device_availability_follows_the_manual() {
        // Functions marked (*) in table 14.1 are callable from kernel and device functions.
        for name in [
            "abs",
            "acos",
            "atan",
            "atan2",
            "ceil",
            "round",
            "cos",
            "sin",
            "exp",
            "exp2",
            "floor",
            "mod",
            "frac",
            "log",
            "log2",
            "log10",
            "max",
            "min",
            "saturate",
            "sign",
            "sqrt",
            "tan",
            "angle",
            "conj",
            "sum",
            "lerp",
            "dotprod",
            "zeros",
            "ones",
            "size",
            "numel",
            "complex",
            "real",
            "imag",
            "float",
            "int",
            "isnan",
            "isinf",
            "isfinite",
            "maxvalue",
            "minvalue",
            "shared",
            "shared_zeros",
            "and",
            "or",
            "xor",
            "shl",
            "shr",
            "not",
            "mirror_ext",
            "periodize",
        ] {
            assert!(lookup(name).unwrap_or_else(|| panic!("{name}")).device, "{name}");
        }
        for name in [
            "cumsum",
            "rand",
            "randn",
            "cell",
            "eye",
            "copy",
            "imread",
            "load",
            "save",
            "sprintf",
            "tic",
            "toc",
            "eval",
            "linspace",
            "fft2",
            "herm_transpose",
        ] {
            assert!(!lookup(name).unwrap_or_else(|| panic!("{name}")).device, "{name}");
        }
    }

    #[test]
    fn every_rule_survives_odd_arguments() {
        // No rule may panic, whatever it is given.
        let kinds = [
            Type::Unknown,
            Type::INT,
            Type::String,
            Type::Void,
            Type::Tuple(vec![]),
            Type::TypeValue(Box::new(Type::SCALAR)),
            Type::array(Type::SCALAR, 2),
            Type::array(Type::Unknown, 1),
            Type::CellTuple(vec![Type::INT]),
            Type::Union(vec![Type::INT, Type::String]),
            Type::Param("T".into()),
        ];
        let consts = [None, Some(Const::Int(-3)), Some(Const::Int(100)), Some(Const::Scalar(0.5))];
        for s in table() {
            for n in 0..4 {
                for k in &kinds {
                    for c in &consts {
                        let args: Vec<ArgInfo> = (0..n)
                            .map(|_| ArgInfo { ty: k.clone(), constant: c.clone(), name: None })
                            .collect();
                        for device in [false, true] {
                            let call =
                                BuiltinCall { args: &args, type_args: &[], in_device_code: device };
                            let _ = (s.rule)(&call);
                        }
                    }
                }
            }
        }
    }
}
