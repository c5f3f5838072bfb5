//! The table of built-in function signatures (manual chapter 14): for each name, where it
//! may be called (host code, kernel/device code) and a rule computing its result type from
//! the argument types and, where known, the arguments' constant values (so that
//! `zeros(2, 2)` is a `mat(2, 2)` and `size(x, 0..1)` an `ivec2`). The implementations are
//! in quasar-std; this module only types the calls.

use crate::ir::Const;
use crate::sema::types::Type;

/// One argument of a built-in call as the type checker sees it.
#[derive(Clone, Debug)]
pub struct ArgInfo {
    pub ty: Type,
    /// The argument's value when it is a compile-time constant.
    pub constant: Option<Const>,
    /// `name := value` arguments.
    pub name: Option<String>,
}

/// A call of a built-in, for its typing rule.
#[derive(Clone, Debug)]
pub struct BuiltinCall<'a> {
    pub args: &'a [ArgInfo],
    /// Explicit type arguments: `shared[uint8](n)`, `zeros[int](4)`.
    pub type_args: &'a [Type],
    /// The call is inside a `__kernel__` or `__device__` function.
    pub in_device_code: bool,
}

/// The result of a typing rule: the result type (a [`Type::Tuple`] for several outputs,
/// [`Type::Void`] for none), or an explanation of why the arguments do not fit.
pub type RuleResult = Result<Type, String>;

pub struct Signature {
    pub name: &'static str,
    /// May be called from host code.
    pub host: bool,
    /// May be called from `__kernel__` / `__device__` code (the manual's `(*)` functions).
    pub device: bool,
    /// A short form shown in messages, e.g. `zeros(dims...)`.
    pub usage: &'static str,
    pub rule: fn(&BuiltinCall) -> RuleResult,
}

/// Looks up a built-in by name.
pub fn lookup(name: &str) -> Option<&'static Signature> {
    table().iter().find(|s| s.name == name)
}

/// Every built-in signature.
pub fn table() -> &'static [Signature] {
    &[]
}
