//! Dynamic kernel memory (manual §8.3): which kernel statements allocate an array of run-time
//! size, as both back ends see them. A kernel variable assigned `zeros(dims)`, `ones(dims)`
//! or `uninit(dims)` whose size is not known when compiling (`A = zeros(n, 2)`) gets a new
//! array of the thread's own: a per-thread allocation on the CPU (`backend/rust/heap.rs`), the
//! device heap in PTX (`malloc`, freed when the thread ends: `backend/ptx/heap.rs`). Arrays
//! of known size (at most 64 elements) stay in registers (`small_layout.rs`).

use crate::ir::{Builtin, Callee, Expr, ExprKind, Function, LocalId, PlaceKind, StmtKind};
use crate::sema::types::Type;

/// What an allocation fills the array with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fill {
    /// `zeros` (and `uninit`, which gives zeros too).
    Zero,
    /// `ones`.
    One,
}

/// `value` as an allocation of an array of run-time size: its fill and its dimension
/// arguments.
pub fn allocation(value: &Expr) -> Option<(Fill, &[Expr])> {
    let ExprKind::Call { callee: Callee::Builtin(b), args } = &value.kind else { return None };
    let fill = match b {
        Builtin::Zeros | Builtin::Czeros | Builtin::Uninit => Fill::Zero,
        Builtin::Ones | Builtin::Cones => Fill::One,
        _ => return None,
    };
    // Not the small arrays held in registers (`rust::ty::fixed_shape`).
    let dynamic = match &value.ty {
        Type::Array(a) => super::rust::ty::fixed_shape(a).is_none(),
        _ => false,
    };
    (dynamic && !args.is_empty()).then_some((fill, args.as_slice()))
}

/// The locals of `f` that some statement assigns an allocation, in order.
pub fn heap_locals(f: &Function) -> Vec<LocalId> {
    let mut out = Vec::new();
    crate::ir::walk::walk_block(
        &f.body,
        &mut |s| {
            if let StmtKind::Assign { place, value, .. } = &s.kind {
                if let (PlaceKind::Local(l), Some(_)) = (&place.kind, allocation(value)) {
                    if !out.contains(l) {
                        out.push(*l);
                    }
                }
            }
        },
        &mut |_| {},
    );
    out
}
