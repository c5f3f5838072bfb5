//! Runtime control (manual §16.7, §11.4, §17.2.5): `schedule(dims, args…, {impl_gpu,
//! impl_cpu})`, which asks the scheduler which implementation to run, and the calls the type
//! checker makes of the code attributes `{!sched mode=…; gpu_index=…}`, `{!alloc mode=…}` and
//! `{!transfer vars=…; target=…; gpu_index=…}` (`sema/check/attributes.rs`). All run on the
//! host.

use super::common::{args, expected, host_only, is_integer, is_value, no_type_args};
use super::{BuiltinCall, RuleResult, Signature};
use crate::ir::Builtin as B;
use crate::sema::types::Type;

/// The codes of `{!sched mode=…}` in the first argument of a `{!sched}` call.
pub mod sched_mode {
    /// The mode is not given (`{!sched gpu_index=1}` keeps it).
    pub const KEEP: i64 = 0;
    /// `mode=cpu`: launches run on the CPU.
    pub const CPU: i64 = 1;
    /// `mode=gpu`: launches run on the GPU.
    pub const GPU: i64 = 2;
    /// `mode=auto`, and `{!sched}` alone: automatic scheduling.
    pub const AUTO: i64 = 3;
}

/// The codes of `{!alloc mode=…}` and of `{!transfer target=…}`.
pub mod target {
    /// Let the runtime decide.
    pub const AUTO: i64 = 0;
    /// The host memory (or CPU for `{!transfer}`).
    pub const CPU: i64 = 1;
    /// The GPU's memory.
    pub const GPU: i64 = 2;
}

fn int_arg(name: &str, what: &str, t: &Type) -> Result<(), String> {
    if is_integer(t) || matches!(t, Type::Unknown) {
        Ok(())
    } else {
        Err(expected(name, what, t))
    }
}

/// `schedule(dims, args…, {impl_gpu, impl_cpu})`: the index of the implementation to run.
fn schedule(c: &BuiltinCall) -> RuleResult {
    no_type_args(c, "schedule")?;
    let a = args(c, "schedule", 2, usize::MAX)?;
    let work_ok = match &a[0].ty {
        Type::Array(arr) => is_integer(&arr.elem),
        t => is_integer(t) || matches!(t, Type::Unknown),
    };
    if !work_ok {
        return Err(expected(
            "schedule",
            "the problem size (an int or a vector of ints)",
            &a[0].ty,
        ));
    }
    if let Some(x) = a.iter().find(|x| !is_value(&x.ty)) {
        return Err(expected("schedule", "a value", &x.ty));
    }
    Ok(Type::INT)
}

fn sched_attr(c: &BuiltinCall) -> RuleResult {
    let a = args(c, "{!sched}", 2, 2)?;
    int_arg("{!sched}", "a mode code", &a[0].ty)?;
    int_arg("{!sched}", "the GPU index (an int)", &a[1].ty)?;
    Ok(Type::Void)
}

fn alloc_attr(c: &BuiltinCall) -> RuleResult {
    let a = args(c, "{!alloc}", 1, 1)?;
    int_arg("{!alloc}", "a mode code", &a[0].ty)?;
    Ok(Type::Void)
}

fn transfer_attr(c: &BuiltinCall) -> RuleResult {
    let a = args(c, "{!transfer}", 3, 3)?;
    if !matches!(a[0].ty, Type::Array(_) | Type::Unknown) {
        return Err(expected("{!transfer}", "an array variable in `vars`", &a[0].ty));
    }
    int_arg("{!transfer}", "a target code", &a[1].ty)?;
    int_arg("{!transfer}", "the GPU index (an int)", &a[2].ty)?;
    Ok(Type::Void)
}

pub(super) const SIGNATURES: &[Signature] = &[
    host_only(B::Schedule, "schedule(dims, args..., {impl_gpu, impl_cpu})", schedule),
    host_only(B::SchedAttr, "{!sched} or {!sched mode=cpu|gpu|auto; gpu_index=N}", sched_attr),
    host_only(B::AllocAttr, "{!alloc} as {!alloc mode=auto|cpu|gpu}", alloc_attr),
    host_only(
        B::TransferAttr,
        "{!transfer} as {!transfer vars=a; target=cpu|gpu; gpu_index=N}",
        transfer_attr,
    ),
];

#[cfg(test)]
mod tests {
    use super::super::test_util::{a, err, ok};

    #[test]
    fn schedule_returns_the_implementation_index() {
        assert_eq!(ok("schedule", &[a("int"), a("vec"), a("int")]), "int");
        assert_eq!(ok("schedule", &[a("ivec2"), a("int")]), "int");
        assert!(err("schedule", &[a("scalar"), a("int")]).contains("problem size"));
        assert!(err("schedule", &[a("int")]).contains("expects"));
    }
}
