//! Facts about a module, computed once after the passes and read by both back ends (as
//! naga's `valid::ModuleInfo` is by every writer): function values, read/write effects,
//! per-function use of barriers, shared memory and warp-level operations, and per kernel a
//! [`KernelInfo`] (with what its launches copy of each argument, [`transfers`]). A back end never recomputes one of these; the affine access bounds of
//! boundary-check elimination are in the IR itself (`ir::partition`, made by
//! `transform::interior`).

pub mod accumulators;
pub mod class_args;
pub mod effects;
pub mod fnvals;
pub mod kernel;
pub mod lockstep;
mod shared_dims;
pub mod transfers;
pub mod vectorise;

pub use class_args::ClassArgs;
pub use effects::{Access, Effects};
pub use fnvals::FnValues;
pub use kernel::{contains_barrier, KernelInfo, SharedDecl};
pub use transfers::Transfer;

use crate::ir::visit::{walk_expr, Visit};
use crate::ir::{Builtin, BuiltinKind, Callee, Const, Expr, ExprKind, FunctionId, Module};
use crate::sema::types::Type;
use crate::syntax::ast::FunctionKind;
use std::collections::HashMap;

/// What one function does, not counting what it calls.
#[derive(Clone, Debug, Default)]
pub struct FunctionInfo {
    /// Uses `syncthreads` (any scope) or cooperative groups.
    pub sync: bool,
    /// Allocates shared memory.
    pub shared: bool,
    /// The functions it names: direct calls, closures and handles.
    pub refs: Vec<FunctionId>,
    /// The functions it may call or hand on: `refs`, and every function of the type of a
    /// function value it holds.
    pub callees: Vec<FunctionId>,
    /// What makes it run only on an NVIDIA GPU (manual §9.8), it or a function it calls.
    pub gpu_only: Option<&'static str>,
}

/// The facts about a whole module.
#[derive(Clone, Debug, Default)]
pub struct ModuleInfo {
    /// The function types used as values and the functions of each.
    pub fnvals: FnValues,
    /// What each function reads and writes.
    pub effects: Effects,
    /// Indexed by `FunctionId`.
    pub functions: Vec<FunctionInfo>,
    /// The kernels (generic ones excepted), by id.
    pub kernels: HashMap<FunctionId, KernelInfo>,
    /// The class instances built, for names that leave implicit arguments out.
    pub class_args: ClassArgs,
}

impl ModuleInfo {
    /// Analyses `m`.
    pub fn of(m: &Module) -> ModuleInfo {
        let fnvals = FnValues::of(m);
        let effects = Effects::compute(m, &fnvals);
        let class_args = ClassArgs::of(m);
        let mut info = ModuleInfo { fnvals, effects, class_args, ..Default::default() };
        info.functions = m
            .functions
            .iter()
            .map(|f| {
                let own = kernel::own_use(f);
                let refs = named_functions(f);
                let mut callees = refs.clone();
                for l in &f.locals {
                    if let Type::Function(ft) = &l.ty {
                        callees.extend_from_slice(info.fnvals.targets(ft));
                    }
                }
                callees.sort();
                callees.dedup();
                FunctionInfo { sync: own.sync, shared: own.shared, refs, callees, gpu_only: None }
            })
            .collect();
        for i in 0..m.functions.len() {
            info.functions[i].gpu_only = warp_level_use(m, &info, FunctionId(i as u32));
        }
        let launched = launched_ranks(m);
        for (i, f) in m.functions.iter().enumerate() {
            if f.kind == FunctionKind::Kernel && !f.generic {
                let id = FunctionId(i as u32);
                let k =
                    kernel::kernel_info(m, id, &info.effects, &info, launched.get(&id).copied());
                info.kernels.insert(id, k);
            }
        }
        info
    }

    /// The facts about kernel `id`, `None` when it is not a (non-generic) kernel.
    pub fn kernel(&self, id: FunctionId) -> Option<&KernelInfo> {
        self.kernels.get(&id)
    }

    /// The facts about function `id`.
    pub fn function(&self, id: FunctionId) -> &FunctionInfo {
        &self.functions[id.0 as usize]
    }

    /// `id` and every function it may reach through calls and values.
    pub fn reachable_from(&self, m: &Module, id: FunctionId) -> Vec<FunctionId> {
        let mut seen = vec![id];
        let mut todo = vec![id];
        while let Some(f) = todo.pop() {
            for &c in &self.functions[f.0 as usize].callees {
                if (c.0 as usize) < m.functions.len() && !seen.contains(&c) {
                    seen.push(c);
                    todo.push(c);
                }
            }
        }
        seen
    }
}

/// The functions `f` names: calls, closures, handles (kernels it launches are not among them).
fn named_functions(f: &crate::ir::Function) -> Vec<FunctionId> {
    struct Calls(Vec<FunctionId>);
    impl<'a> Visit<'a> for Calls {
        fn visit_expr(&mut self, e: &'a Expr) {
            match &e.kind {
                ExprKind::Call { callee: Callee::Function(g), .. }
                | ExprKind::Closure { function: g, .. }
                | ExprKind::FunctionRef(g) => self.0.push(*g),
                _ => {}
            }
            walk_expr(self, e);
        }
    }
    let mut c = Calls(Vec::new());
    c.visit_block(&f.body);
    c.0.sort();
    c.0.dedup();
    c.0
}

/// The rank of the dimensions of the first `parallel_do` launching each kernel.
fn launched_ranks(m: &Module) -> HashMap<FunctionId, usize> {
    let mut out = HashMap::new();
    for g in &m.functions {
        crate::ir::walk::walk_block(&g.body, &mut |_| {}, &mut |e| {
            if let ExprKind::ParallelDo { dims, kernel, .. } = &e.kind {
                if let Some(r) = kernel::geometry_rank(&dims.ty).filter(|r| (1..=3).contains(r)) {
                    out.entry(*kernel).or_insert(r);
                }
            }
        });
    }
    out
}

/// What makes function `id` GPU-only (it, or a function it calls), if anything: cooperative
/// groups, warp shuffles and votes, `syncthreads` across a warp or grid. The CPU back end does
/// not simulate warps (`backend/rust/gpu_only.rs`).
fn warp_level_use(m: &Module, info: &ModuleInfo, id: FunctionId) -> Option<&'static str> {
    let mut seen = vec![id];
    let mut todo = vec![id];
    while let Some(id) = todo.pop() {
        let f = m.functions.get(id.0 as usize)?;
        if f.locals.iter().any(|l| matches!(l.ty, Type::ThreadBlock(_))) {
            return Some("cooperative groups (`thread_block`)");
        }
        let mut found = None;
        crate::ir::walk::walk_block(&f.body, &mut |_| {}, &mut |e| match &e.kind {
            ExprKind::Call { callee: Callee::Builtin(b), .. }
                if b.kind() == BuiltinKind::GroupMethod =>
            {
                found = found.or(Some("warp shuffles and votes"));
            }
            // `syncthreads(warp)`, `syncthreads(grid)`, …; `syncthreads(block)` is a plain
            // barrier (`StmtKind::SyncThreads`), which the CPU runs.
            ExprKind::Call {
                callee: Callee::Builtin(Builtin::Syncthreads | Builtin::Syncthread),
                args,
            } => {
                if let Some(Const::Str(s)) = args.first().and_then(|a| a.constant()) {
                    if s != "block" {
                        found = found.or(Some("`syncthreads` across a warp or grid"));
                    }
                }
            }
            _ if matches!(e.ty, Type::ThreadBlock(_)) => {
                found = found.or(Some("cooperative groups (`thread_block`)"));
            }
            _ => {}
        });
        if found.is_some() {
            return found;
        }
        // A kernel named in host code (`max_block_size(k, …)`) is not called there.
        for &c in &info.functions[id.0 as usize].refs {
            let kernel =
                m.functions.get(c.0 as usize).is_some_and(|g| g.kind == FunctionKind::Kernel);
            if !kernel && !seen.contains(&c) {
                seen.push(c);
                todo.push(c);
            }
        }
    }
    None
}
