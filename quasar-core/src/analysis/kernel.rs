//! The facts about one kernel that both back ends need before emitting it: launch rank,
//! launch-argument slots and their effects, output reductions, shared-memory layout,
//! barriers and block sensitivity.

use super::effects::{Access, Effects};
use super::transfers::Transfer;
use super::ModuleInfo;
use crate::ir::visit::{walk_expr, walk_stmt, Visit};
use crate::ir::AssignOp;
use crate::ir::{
    Builtin, Callee, Expr, ExprKind, Function, FunctionId, LocalId, Module, NodeId, PlaceKind,
    Special, Stmt, StmtKind,
};
use crate::sema::types::{Dim, Rank, Type};

/// One `local = shared(dims…)` / `shared_zeros(dims…)` at the top level of a kernel body:
/// these arrays live in the block's dynamic shared memory, in this order, each at the running
/// byte count rounded up to 64 (the layout both back ends and the runtime's
/// `Kernel::shared_bytes` agree on).
#[derive(Clone, Debug)]
pub struct SharedDecl {
    /// The local the array is assigned to.
    pub local: LocalId,
    /// The `shared(…)` call.
    pub call: NodeId,
    /// `shared_zeros`: the block's threads zero it before use.
    pub zeroed: bool,
    /// Its dimensions as written (they may use `blkdim`).
    pub dims: Vec<Expr>,
    /// An upper bound on its element count that an assertion before it gives
    /// (`assert(M*N*K <= 512)`), for dimensions the launch cannot compute from `blkdim`.
    pub bound: Option<u64>,
}

/// What a kernel is, as both back ends see it.
#[derive(Clone, Debug)]
pub struct KernelInfo {
    /// The components of its position (`pos : ivec2` → 2), from the special parameters that
    /// follow the launch geometry; `None` without such a parameter.
    pub position_rank: Option<usize>,
    /// The rank of the dimensions of the first `parallel_do` that launches it.
    pub launched_rank: Option<usize>,
    /// The launch arguments: its non-special parameters, then its captures (the order of
    /// `ExprKind::ParallelDo::args` and of the PTX parameters).
    pub arg_slots: Vec<LocalId>,
    /// Per argument slot: how the kernel (and what it calls) uses the array's elements.
    pub arg_access: Vec<Access>,
    /// Per argument slot: what a launch copies of it (`'const`, `'nocopy`; manual §16.6).
    pub transfers: Vec<Transfer>,
    /// The argument slots the body assigns to as a whole (the manual's `val = acc(val, …)`):
    /// each thread works on its own copy of such a parameter.
    pub assigned_args: Vec<LocalId>,
    /// The array arguments the body only accumulates into (`h[i] += v`; see
    /// [`accumulators`](super::accumulators)), which a block may privatise.
    pub accumulators: Vec<LocalId>,
    /// Per output, how threads combine into it (the first assignment's operator; `+=` when
    /// never assigned).
    pub outputs: Vec<(LocalId, AssignOp)>,
    /// The shared arrays of the dynamic shared memory, in layout order.
    pub shared: Vec<SharedDecl>,
    /// `syncthreads` anywhere in its own body.
    pub body_barrier: bool,
    /// `syncthreads` or a cooperative group in it or in a function it calls.
    pub sync: bool,
    /// Allocates shared memory, in it or in a function it calls.
    pub uses_shared: bool,
    /// Has a special parameter of the block geometry (`blkpos`, `blkidx`, …).
    pub block_geometry: bool,
    /// The CPU loop over its positions may vectorise ([`vectorise`](super::vectorise)): the
    /// CPU back end compiles it for wider vector units only then.
    pub vectorises: bool,
    /// The CPU back end runs consecutive positions of the innermost dimension in lockstep
    /// ([`lockstep`](super::lockstep)), or why not.
    pub lockstep: Result<super::lockstep::Lockstep, &'static str>,
}

impl KernelInfo {
    /// The launch rank a kernel that must know it uses: its position's, else its launches'.
    pub fn launch_rank(&self) -> Option<usize> {
        self.position_rank.or(self.launched_rank)
    }

    /// The slot of argument `l`, if it is one.
    pub fn slot_of(&self, l: LocalId) -> Option<usize> {
        self.arg_slots.iter().position(|s| *s == l)
    }
}

/// The number of components of a launch-geometry type: `int` → 1, `ivecN` → N.
pub fn geometry_rank(t: &Type) -> Option<usize> {
    match t {
        Type::Int(..) => Some(1),
        Type::Array(a) if a.rank == Rank::Fixed(1) => match a.shape.as_deref() {
            Some([Dim::Known(n)]) => Some(*n as usize),
            _ => None,
        },
        _ => None,
    }
}

pub(super) fn kernel_info(
    m: &Module,
    id: FunctionId,
    effects: &Effects,
    info: &ModuleInfo,
    launched_rank: Option<usize>,
) -> KernelInfo {
    let f = m.function(id);
    let position_rank = f
        .locals
        .iter()
        .filter(|l| l.special().is_some_and(Special::is_geometry))
        .find_map(|l| geometry_rank(&l.ty));
    let arg_slots: Vec<LocalId> = f
        .params
        .iter()
        .filter(|p| f.local(**p).special().is_none())
        .chain(&f.captures)
        .copied()
        .collect();
    let arg_access: Vec<Access> = arg_slots.iter().map(|s| effects.of(id, *s)).collect();
    let transfers = super::transfers::transfers(m, id, effects, &arg_slots, &arg_access);
    let reach = info.reachable_from(m, id);
    let assigned = assigned_locals(&f.body);
    let assigned_args = arg_slots.iter().copied().filter(|l| assigned.contains(l)).collect();
    let accumulators = super::accumulators::accumulated_only(f, &arg_slots);
    KernelInfo {
        position_rank,
        launched_rank,
        arg_slots,
        arg_access,
        transfers,
        assigned_args,
        accumulators,
        outputs: output_ops(f),
        shared: f
            .body
            .iter()
            .enumerate()
            .filter_map(|(i, s)| {
                let mut d = shared_decl(s)?;
                d.bound = super::shared_dims::asserted_bound(&f.body, i, &d.dims);
                d.dims = super::shared_dims::resolve(&f.body, i, &assigned, &d.dims);
                Some(d)
            })
            .collect(),
        body_barrier: contains_barrier(&f.body),
        sync: reach.iter().any(|g| info.functions[g.0 as usize].sync),
        uses_shared: reach.iter().any(|g| info.functions[g.0 as usize].shared),
        block_geometry: f
            .locals
            .iter()
            .any(|l| l.special().is_some_and(Special::is_block_geometry)),
        vectorises: super::vectorise::positions_vectorise(m, id),
        lockstep: super::lockstep::lockstep(f, position_rank),
    }
}

/// The locals a block assigns to as a whole (`x = …`, `x op= …`, `[x, …] = …`).
fn assigned_locals(body: &[Stmt]) -> Vec<LocalId> {
    let mut out = Vec::new();
    crate::ir::walk::walk_block(
        body,
        &mut |s| {
            let places: Vec<&crate::ir::Place> = match &s.kind {
                StmtKind::Assign { place, .. } => vec![place],
                StmtKind::Destructure { places, .. } => places.iter().flatten().collect(),
                _ => Vec::new(),
            };
            for p in places {
                if let PlaceKind::Local(l) = p.kind {
                    out.push(l);
                }
            }
        },
        &mut |_| {},
    );
    out
}

/// `local = shared(dims)` / `shared_zeros(dims)`.
fn shared_decl(s: &Stmt) -> Option<SharedDecl> {
    let StmtKind::Assign { place, op: AssignOp::Assign, value } = &s.kind else { return None };
    let PlaceKind::Local(local) = place.kind else { return None };
    match &value.kind {
        ExprKind::Call {
            callee: Callee::Builtin(b @ (Builtin::Shared | Builtin::SharedZeros)),
            args,
        } => Some(SharedDecl {
            local,
            call: value.id,
            zeroed: *b == Builtin::SharedZeros,
            dims: args.clone(),
            bound: None,
        }),
        _ => None,
    }
}

/// The reduction of each kernel output, from how the body first assigns it.
fn output_ops(f: &Function) -> Vec<(LocalId, AssignOp)> {
    let mut first: Vec<(LocalId, AssignOp)> = Vec::new();
    crate::ir::walk::walk_block(
        &f.body,
        &mut |s| {
            if let StmtKind::Assign { place, op, .. } = &s.kind {
                if let PlaceKind::Local(l) = place.kind {
                    if !first.iter().any(|(k, _)| *k == l) {
                        first.push((l, *op));
                    }
                }
            }
        },
        &mut |_| {},
    );
    f.outputs
        .iter()
        .map(|o| (*o, first.iter().find(|(k, _)| k == o).map_or(AssignOp::Add, |(_, op)| *op)))
        .collect()
}

/// Whether a block holds `syncthreads` at any depth.
pub fn contains_barrier(b: &[Stmt]) -> bool {
    struct Find(bool);
    impl<'a> Visit<'a> for Find {
        fn visit_stmt(&mut self, s: &'a Stmt) {
            self.0 |= matches!(s.kind, StmtKind::SyncThreads);
            if !self.0 {
                walk_stmt(self, s);
            }
        }
        fn visit_expr(&mut self, _: &'a Expr) {}
    }
    let mut f = Find(false);
    f.visit_block(b);
    f.0
}

/// What one function does on its own (not counting its callees).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct OwnUse {
    /// `syncthreads` (any scope) or a cooperative group.
    pub sync: bool,
    pub shared: bool,
}

pub(super) fn own_use(f: &Function) -> OwnUse {
    struct Scan(OwnUse);
    impl<'a> Visit<'a> for Scan {
        fn visit_stmt(&mut self, s: &'a Stmt) {
            self.0.sync |= matches!(s.kind, StmtKind::SyncThreads);
            walk_stmt(self, s);
        }
        fn visit_expr(&mut self, e: &'a Expr) {
            // Thread groups: every thread of the launch keeps running, so that warps and blocks
            // are complete (see `backend/ptx/coop.rs`).
            self.0.sync |= matches!(e.ty, Type::ThreadBlock(_));
            if let ExprKind::Call { callee: Callee::Builtin(b), .. } = &e.kind {
                self.0.sync |= matches!(b, Builtin::Syncthreads | Builtin::Syncthread);
                self.0.shared |= matches!(b, Builtin::Shared | Builtin::SharedZeros);
            }
            walk_expr(self, e);
        }
    }
    let mut s = Scan(OwnUse::default());
    s.visit_block(&f.body);
    s.0
}
