//! Kernel-side built-ins (manual §2.4.4, §9.8): shared memory, barriers, memory fences, the
//! methods of the cooperative-groups `thread_block` class, and the host functions that
//! choose launch configurations (`max_block_size opt_block_size opt_block_cnt gpu_feature`).

use super::common::{
    args, const_str, expected, is_integer, is_num, is_open, is_real, no_type_args, string_arg,
};
use super::construct::allocation;
use super::{ArgInfo, BuiltinCall, RuleResult, Signature};
use crate::ir::Builtin as B;
use crate::sema::types::{Dim, Rank, Type};
use crate::syntax::ast::FunctionKind;

/// The synchronisation scopes of `syncthreads(scope)` (manual §9.8.1).
pub const SYNC_SCOPES: &[&str] = &["warp", "block", "grid", "multi_grid", "host"];

/// The scopes of `memfence(scope)` (manual §9.8.3).
pub const FENCE_SCOPES: &[&str] = &["block", "grid", "system"];

/// The names `gpu_feature` knows (manual §9.11).
pub const GPU_FEATURES: &[&str] = &[
    "num_sm",
    "cuda_arch",
    "max_reg_per_block",
    "max_shared_mem_per_block",
    "max_shared_mem_per_sm",
    "max_constant_memory",
    "warp_size",
    "max_threads_per_block",
    "max_warps_per_sm",
    "max_blocks_per_sm",
];

/// `shared(dims…)`, `shared[T](dims…)`: block-shared memory, uninitialised.
fn shared(c: &BuiltinCall) -> RuleResult {
    allocation(c, "shared", Type::SCALAR, true)
}

/// `shared_zeros(dims…)`: block-shared memory filled with zeros (follow with `syncthreads`).
fn shared_zeros(c: &BuiltinCall) -> RuleResult {
    allocation(c, "shared_zeros", Type::SCALAR, true)
}

/// The optional scope argument of a barrier or fence. The scope is a keyword (`grid`), which
/// the checker passes as a string constant; anything else it may pass is accepted as is.
fn scope(c: &BuiltinCall, name: &str, scopes: &[&str], min: usize) -> RuleResult {
    no_type_args(c, name)?;
    let a = args(c, name, min, 1)?;
    if let Some(s) = a.first().and_then(const_str) {
        if !scopes.contains(&s) {
            return Err(format!("`{name}({s})`: the scope is one of {}", scopes.join(", ")));
        }
    }
    Ok(Type::Void)
}

fn syncthreads(c: &BuiltinCall) -> RuleResult {
    scope(c, "syncthreads", SYNC_SCOPES, 0)
}

fn syncthread(c: &BuiltinCall) -> RuleResult {
    scope(c, "syncthread", SYNC_SCOPES, 0)
}

fn memfence(c: &BuiltinCall) -> RuleResult {
    scope(c, "memfence", FENCE_SCOPES, 1)
}

/// A kernel function argument (or `??`).
fn kernel_arg(name: &str, a: &ArgInfo) -> Result<(), String> {
    match &a.ty {
        t if is_open(t) => Ok(()),
        Type::Function(f) if f.kind == FunctionKind::Kernel => Ok(()),
        t => Err(expected(name, "a kernel function", t)),
    }
}

/// A vector of dimensions (or `??`); returns its length.
fn dims_arg(name: &str, a: &ArgInfo) -> Result<Option<Dim>, String> {
    match &a.ty {
        t if is_open(t) => Ok(None),
        Type::Array(v) if v.rank == Rank::Fixed(1) && (is_real(&v.elem) || is_open(&v.elem)) => {
            Ok(v.shape.as_ref().and_then(|s| s.first().cloned()))
        }
        t if is_real(t) => Ok(Some(Dim::Known(1))),
        t => Err(expected(name, "dimensions (a vector of integers)", t)),
    }
}

fn ivec(len: Option<Dim>) -> Type {
    match len {
        Some(Dim::Known(1)) => Type::INT,
        Some(Dim::Unknown) | None => Type::vec(Type::INT),
        Some(d) => Type::array_with_shape(Type::INT, vec![d]),
    }
}

/// `max_block_size(kernel, dims)`, `opt_block_size(kernel, dims)`: a block size with as many
/// dimensions as `dims`.
fn block_size(c: &BuiltinCall, name: &str) -> RuleResult {
    no_type_args(c, name)?;
    let a = args(c, name, 1, 2)?;
    // The older form without a kernel: `max_block_size([16, 32, 1])`, the largest block of
    // at most these dimensions (real code uses it).
    if let ([d], Type::Array(_), "max_block_size") = (a, &a[0].ty, name) {
        return Ok(ivec(dims_arg(name, d)?));
    }
    kernel_arg(name, &a[0])?;
    match a.get(1) {
        Some(d) => Ok(ivec(dims_arg(name, d)?)),
        None => Ok(Type::vec(Type::INT)),
    }
}

fn max_block_size(c: &BuiltinCall) -> RuleResult {
    block_size(c, "max_block_size")
}

fn opt_block_size(c: &BuiltinCall) -> RuleResult {
    block_size(c, "opt_block_size")
}

/// `opt_block_cnt(kernel, block_size, dims)`: the number of blocks per dimension.
fn opt_block_cnt(c: &BuiltinCall) -> RuleResult {
    no_type_args(c, "opt_block_cnt")?;
    let a = args(c, "opt_block_cnt", 3, 3)?;
    kernel_arg("opt_block_cnt", &a[0])?;
    let len = dims_arg("opt_block_cnt", &a[1])?;
    dims_arg("opt_block_cnt", &a[2])?;
    Ok(ivec(len))
}

/// `gpu_feature(name)`: a hardware parameter of the primary GPU.
fn gpu_feature(c: &BuiltinCall) -> RuleResult {
    no_type_args(c, "gpu_feature")?;
    let a = args(c, "gpu_feature", 1, 1)?;
    string_arg("gpu_feature", "a feature name", &a[0])?;
    if let Some(s) = const_str(&a[0]) {
        if !GPU_FEATURES.contains(&s) {
            return Err(format!(
                "`gpu_feature`: unknown feature \"{s}\" (one of {})",
                GPU_FEATURES.join(", ")
            ));
        }
    }
    Ok(Type::INT)
}

const fn sig(
    builtin: B,
    host: bool,
    usage: &'static str,
    rule: fn(&BuiltinCall) -> RuleResult,
) -> Signature {
    Signature { builtin, name: builtin.name(), host, device: !host, usage, rule }
}

pub(super) const SIGNATURES: &[Signature] = &[
    sig(B::Shared, false, "shared(dims...) or shared[T](dims...)", shared),
    sig(B::SharedZeros, false, "shared_zeros(dims...) or shared_zeros[T](dims...)", shared_zeros),
    sig(B::Syncthreads, false, "syncthreads or syncthreads(scope)", syncthreads),
    sig(B::Syncthread, false, "syncthread or syncthread(scope)", syncthread),
    sig(B::Memfence, false, "memfence(scope)", memfence),
    sig(B::MaxBlockSize, true, "max_block_size(kernel, dims)", max_block_size),
    sig(B::OptBlockSize, true, "opt_block_size(kernel, dims)", opt_block_size),
    sig(B::OptBlockCnt, true, "opt_block_cnt(kernel, block_size, dims)", opt_block_cnt),
    sig(B::GpuFeature, true, "gpu_feature(name)", gpu_feature),
];

// --- The `thread_block` class of cooperative groups (manual §9.8) ---------------------------
//
// Its methods are typed like built-ins whose first argument is the receiver: for
// `g.shfl_down(v, 16)` the rule sees `[g, v, 16]`.

/// The receiver and the method's own arguments.
fn method<'a>(
    c: &BuiltinCall<'a>,
    name: &str,
    n: usize,
) -> Result<(&'a ArgInfo, &'a [ArgInfo]), String> {
    no_type_args(c, name)?;
    let all = c.args;
    let Some((recv, rest)) = all.split_first() else {
        return Err(format!("`{name}` is a method of `thread_block`"));
    };
    let sub = BuiltinCall { args: rest, type_args: c.type_args, in_device_code: c.in_device_code };
    args(&sub, name, n, n)?;
    Ok((recv, rest))
}

fn int_arg(name: &str, what: &str, a: &ArgInfo) -> Result<(), String> {
    if is_open(&a.ty) || is_integer(&a.ty) {
        Ok(())
    } else {
        Err(expected(name, what, &a.ty))
    }
}

/// `g.sync()`.
fn tb_sync(c: &BuiltinCall) -> RuleResult {
    method(c, "sync", 0)?;
    Ok(Type::Void)
}

/// `g.partition(size)`: a smaller thread block, of the receiver's type.
fn tb_partition(c: &BuiltinCall) -> RuleResult {
    let (recv, a) = method(c, "partition", 1)?;
    int_arg("partition", "a partition size (an integer)", &a[0])?;
    Ok(recv.ty.clone())
}

/// `g.shfl(v, lane)` and relatives: the value `v` of another thread.
fn shuffle(c: &BuiltinCall, name: &str) -> RuleResult {
    let (_, a) = method(c, name, 2)?;
    let v = &a[0].ty;
    let ok = match v {
        t if is_open(t) || is_num(t) => true,
        Type::Array(arr) => {
            is_num(&arr.elem)
                && matches!(arr.shape.as_deref(), Some(s) if s.iter().all(|d| matches!(d, Dim::Known(_))))
        }
        _ => false,
    };
    if !ok {
        return Err(expected(name, "a number or a fixed-length vector", v));
    }
    int_arg(name, "a lane offset (an integer)", &a[1])?;
    Ok(v.clone())
}

fn tb_shfl(c: &BuiltinCall) -> RuleResult {
    shuffle(c, "shfl")
}

fn tb_shfl_up(c: &BuiltinCall) -> RuleResult {
    shuffle(c, "shfl_up")
}

fn tb_shfl_down(c: &BuiltinCall) -> RuleResult {
    shuffle(c, "shfl_down")
}

fn tb_shfl_xor(c: &BuiltinCall) -> RuleResult {
    shuffle(c, "shfl_xor")
}

/// `g.all(p)`, `g.any(p)`, `g.ballot(p)`, `g.match_any(v)`, `g.match_all(v)`: a truth value or
/// a mask of lanes, an `int`.
fn vote(c: &BuiltinCall, name: &str) -> RuleResult {
    let (_, a) = method(c, name, 1)?;
    if !(is_open(&a[0].ty) || is_num(&a[0].ty)) {
        return Err(expected(name, "a number", &a[0].ty));
    }
    Ok(Type::INT)
}

fn tb_all(c: &BuiltinCall) -> RuleResult {
    vote(c, "all")
}

fn tb_any(c: &BuiltinCall) -> RuleResult {
    vote(c, "any")
}

fn tb_ballot(c: &BuiltinCall) -> RuleResult {
    vote(c, "ballot")
}

fn tb_match_any(c: &BuiltinCall) -> RuleResult {
    vote(c, "match_any")
}

fn tb_match_all(c: &BuiltinCall) -> RuleResult {
    vote(c, "match_all")
}

const fn tb(builtin: B, usage: &'static str, rule: fn(&BuiltinCall) -> RuleResult) -> Signature {
    Signature { builtin, name: builtin.name(), host: false, device: true, usage, rule }
}

const THREAD_BLOCK_METHODS: &[Signature] = &[
    tb(B::GroupSync, "g.sync()", tb_sync),
    tb(B::GroupPartition, "g.partition(size)", tb_partition),
    tb(B::GroupShfl, "g.shfl(value, src_thread_idx)", tb_shfl),
    tb(B::GroupShflUp, "g.shfl_up(value, delta)", tb_shfl_up),
    tb(B::GroupShflDown, "g.shfl_down(value, delta)", tb_shfl_down),
    tb(B::GroupShflXor, "g.shfl_xor(value, mask)", tb_shfl_xor),
    tb(B::GroupAll, "g.all(predicate)", tb_all),
    tb(B::GroupAny, "g.any(predicate)", tb_any),
    tb(B::GroupBallot, "g.ballot(predicate)", tb_ballot),
    tb(B::GroupMatchAny, "g.match_any(value)", tb_match_any),
    tb(B::GroupMatchAll, "g.match_all(value)", tb_match_all),
];

/// A method of the cooperative-groups class `thread_block` (the type of the kernel
/// parameters `coalesced_threads`, `this_thread_block`, `this_grid`, `this_multi_grid`).
/// Its rule takes the receiver as the first argument.
pub fn thread_block_method(name: &str) -> Option<&'static Signature> {
    THREAD_BLOCK_METHODS.iter().find(|s| s.name == name)
}

/// The type of a property of a `thread_block` (`thread_idx`, `size`, `active_mask`).
pub fn thread_block_property(name: &str) -> Option<Type> {
    matches!(name, "thread_idx" | "size" | "active_mask").then_some(Type::INT)
}

#[cfg(test)]
mod tests {
    use super::super::lookup;
    use super::super::test_util::*;
    use super::*;

    #[test]
    fn shared_memory_is_device_only() {
        let s = lookup("shared").unwrap();
        assert!(s.device && !s.host);
        assert!(!lookup("shared_zeros").unwrap().host);
        assert_eq!(run("shared", &[], &[n(20), n(3), n(6)], true).unwrap(), "cube(20, 3, 6)");
        assert_eq!(run("shared", &["uint8"], &[a("ivec2")], true).unwrap(), "mat[uint8]");
        assert_eq!(run("shared_zeros", &["uint64"], &[a("int")], true).unwrap(), "vec[uint64]");
        assert_eq!(run("shared_zeros", &[], &[a("int"), a("int")], true).unwrap(), "mat");
    }

    #[test]
    fn barriers_and_fences() {
        assert!(!lookup("syncthreads").unwrap().host);
        assert_eq!(run("syncthreads", &[], &[], true).unwrap(), "()");
        assert_eq!(run("syncthreads", &[], &[s("grid")], true).unwrap(), "()");
        assert_eq!(
            run("syncthreads", &[], &[s("galaxy")], true).unwrap_err(),
            "`syncthreads(galaxy)`: the scope is one of warp, block, grid, multi_grid, host"
        );
        assert_eq!(run("memfence", &[], &[s("system")], true).unwrap(), "()");
        assert_eq!(
            run("memfence", &[], &[], true).unwrap_err(),
            "`memfence` expects 1 argument, found 0"
        );
    }

    #[test]
    fn launch_configuration() {
        assert_eq!(ok("max_block_size", &[a("fn"), a("ivec3")]), "ivec3");
        assert_eq!(ok("opt_block_size", &[a("fn")]), "ivec");
        assert_eq!(ok("opt_block_cnt", &[a("fn"), a("ivec2"), a("ivec2")]), "ivec2");
        assert_eq!(ok("max_block_size", &[a("??"), a("int")]), "int");
        // The older form with the dimensions only.
        assert_eq!(ok("max_block_size", &[a("ivec3")]), "ivec3");
        assert_eq!(
            err("max_block_size", &[a("mat"), a("ivec2")]),
            "`max_block_size` expects a kernel function, found mat"
        );
        assert_eq!(
            err("opt_block_size", &[a("ivec2")]),
            "`opt_block_size` expects a kernel function, found ivec2"
        );
        assert_eq!(ok("gpu_feature", &[s("warp_size")]), "int");
        assert!(err("gpu_feature", &[s("speed")]).starts_with("`gpu_feature`: unknown feature"));
    }

    #[test]
    fn thread_block_methods() {
        let call = |name: &str, args: &[crate::sema::builtins::ArgInfo]| {
            let sig = thread_block_method(name).unwrap();
            let c =
                crate::sema::builtins::BuiltinCall { args, type_args: &[], in_device_code: true };
            (sig.rule)(&c).map(|t| t.to_string())
        };
        let g = || a("??");
        assert_eq!(call("shfl_down", &[g(), a("scalar"), n(16)]).unwrap(), "scalar");
        assert_eq!(call("shfl_xor", &[g(), a("vec4"), n(1)]).unwrap(), "vec4");
        assert_eq!(call("ballot", &[g(), a("int")]).unwrap(), "int");
        assert_eq!(call("sync", &[g()]).unwrap(), "()");
        assert_eq!(
            call("shfl", &[g(), a("mat"), n(0)]).unwrap_err(),
            "`shfl` expects a number or a fixed-length vector, found mat"
        );
        assert_eq!(
            call("shfl_up", &[g(), a("int")]).unwrap_err(),
            "`shfl_up` expects 2 arguments, found 1"
        );
        assert!(thread_block_method("shuffle").is_none());
        assert_eq!(thread_block_property("thread_idx"), Some(Type::INT));
        assert_eq!(thread_block_property("lane"), None);
    }
}
