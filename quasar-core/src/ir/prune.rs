//! Removes the function instances nothing uses. Inference lowers a body several times while
//! variable types settle, and an early pass may instantiate a callee for argument types that
//! later widen; those instances are dead. What stays: the script, `main`, every instance that
//! is reachable from them, and every top-level or generically checked definition's instance
//! that nothing else replaced (so `quasar check` still reports on uncalled functions).

use super::{Block, Callee, Expr, ExprKind, FunctionId, Index, Module, Place, PlaceKind, StmtKind};
use std::collections::HashSet;

/// For each instance, the instances its body refers to (calls, handles, closures, launches).
pub fn callee_lists(module: &mut Module) -> Vec<Vec<FunctionId>> {
    module
        .functions
        .iter_mut()
        .map(|f| {
            let mut found = Vec::new();
            visit_block(&mut f.body, &mut |id| found.push(*id));
            found
        })
        .collect()
}

/// The instances reachable from `roots` in the graph given by [`callee_lists`].
pub fn reachable(callees: &[Vec<FunctionId>], roots: &[FunctionId]) -> HashSet<FunctionId> {
    let mut live: HashSet<FunctionId> = HashSet::new();
    let mut stack: Vec<FunctionId> = roots.to_vec();
    while let Some(id) = stack.pop() {
        if live.insert(id) {
            stack.extend(callees[id.0 as usize].iter().copied());
        }
    }
    live
}

/// Keeps the instances reachable from `roots` (and from each other), renumbering them.
pub fn prune(module: &mut Module, roots: &[FunctionId]) {
    let live = reachable(&callee_lists(module), roots);
    let mut map = vec![None; module.functions.len()];
    let mut kept = Vec::new();
    for (i, f) in std::mem::take(&mut module.functions).into_iter().enumerate() {
        if live.contains(&FunctionId(i as u32)) {
            map[i] = Some(FunctionId(kept.len() as u32));
            kept.push(f);
        }
    }
    let remap = |id: &mut FunctionId| {
        if let Some(new) = map[id.0 as usize] {
            *id = new;
        }
    };
    for f in &mut kept {
        visit_block(&mut f.body, &mut |id| remap(id));
    }
    module.functions = kept;
    for slot in [&mut module.script, &mut module.main] {
        *slot = slot.and_then(|id| map[id.0 as usize]);
    }
}

/// Calls `f` on every function id a block refers to.
fn visit_block(b: &mut Block, f: &mut dyn FnMut(&mut FunctionId)) {
    for s in b {
        match &mut s.kind {
            StmtKind::Assign { place, value, .. } => {
                visit_place(place, f);
                visit_expr(value, f);
            }
            StmtKind::Destructure { places, value } => {
                places.iter_mut().flatten().for_each(|p| visit_place(p, f));
                visit_expr(value, f);
            }
            StmtKind::Expr(e) => visit_expr(e, f),
            StmtKind::If { cond, then_body, else_body } => {
                visit_expr(cond, f);
                visit_block(then_body, f);
                visit_block(else_body, f);
            }
            StmtKind::ForRange { start, step, end, body, .. } => {
                visit_expr(start, f);
                visit_expr(step, f);
                visit_expr(end, f);
                visit_block(body, f);
            }
            StmtKind::ForEach { values, body, .. } => {
                visit_expr(values, f);
                visit_block(body, f);
            }
            StmtKind::While { cond, body } | StmtKind::Repeat { body, until: cond } => {
                visit_expr(cond, f);
                visit_block(body, f);
            }
            StmtKind::Match { scrutinee, arms, default } => {
                visit_expr(scrutinee, f);
                for arm in arms {
                    arm.values.iter_mut().for_each(|v| visit_expr(v, f));
                    visit_block(&mut arm.body, f);
                }
                if let Some(d) = default {
                    visit_block(d, f);
                }
            }
            StmtKind::Try { body, handler, .. } => {
                visit_block(body, f);
                visit_block(handler, f);
            }
            StmtKind::Print(values) | StmtKind::Error(values) => {
                values.iter_mut().for_each(|v| visit_expr(v, f))
            }
            StmtKind::Assert { cond, message } => {
                visit_expr(cond, f);
                message.iter_mut().for_each(|v| visit_expr(v, f));
            }
            StmtKind::Break | StmtKind::Continue | StmtKind::Return | StmtKind::SyncThreads => {}
        }
    }
}

fn visit_place(p: &mut Place, f: &mut dyn FnMut(&mut FunctionId)) {
    match &mut p.kind {
        PlaceKind::Local(_) => {}
        PlaceKind::Index { base, indices } => {
            visit_expr(base, f);
            visit_indices(indices, f);
        }
        PlaceKind::Field { base, .. } => visit_expr(base, f),
    }
}

fn visit_indices(indices: &mut [Index], f: &mut dyn FnMut(&mut FunctionId)) {
    for i in indices {
        match i {
            Index::At(e) | Index::Spread(e) | Index::List(e) => visit_expr(e, f),
            Index::All => {}
            Index::Range { start, step, end } => {
                visit_expr(start, f);
                if let Some(s) = step {
                    visit_expr(s, f);
                }
                visit_expr(end, f);
            }
        }
    }
}

fn visit_expr(e: &mut Expr, f: &mut dyn FnMut(&mut FunctionId)) {
    crate::stack::guard(|| match &mut e.kind {
        ExprKind::Const(_)
        | ExprKind::Local(_)
        | ExprKind::BuiltinRef(_)
        | ExprKind::TypeValue
        | ExprKind::EnumValue { .. } => {}
        ExprKind::FunctionRef(id) => f(id),
        ExprKind::Unary { operand: x, .. } | ExprKind::Convert(x) | ExprKind::Spread(x) => {
            visit_expr(x, f)
        }
        ExprKind::TupleField { tuple, .. } => visit_expr(tuple, f),
        ExprKind::Field { base, .. } => visit_expr(base, f),
        ExprKind::Binary { lhs, rhs, .. } => {
            visit_expr(lhs, f);
            visit_expr(rhs, f);
        }
        ExprKind::Call { callee, args } => {
            match callee {
                Callee::Function(id) => f(id),
                Callee::Value(v) => visit_expr(v, f),
                Callee::Builtin(_) => {}
            }
            args.iter_mut().for_each(|a| visit_expr(a, f));
        }
        ExprKind::ParallelDo { dims, block_dims, kernel, args } => {
            f(kernel);
            visit_expr(dims, f);
            if let Some(b) = block_dims {
                visit_expr(b, f);
            }
            args.iter_mut().for_each(|a| visit_expr(a, f));
        }
        ExprKind::Index { base, indices } => {
            visit_expr(base, f);
            visit_indices(indices, f);
        }
        ExprKind::Matrix(items) | ExprKind::Cell(items) | ExprKind::Sequence(items) => {
            items.iter_mut().for_each(|i| visit_expr(i, f))
        }
        ExprKind::Range { start, step, end } => {
            visit_expr(start, f);
            if let Some(s) = step {
                visit_expr(s, f);
            }
            visit_expr(end, f);
        }
        ExprKind::Ternary { cond, then, otherwise } => {
            visit_expr(cond, f);
            visit_expr(then, f);
            visit_expr(otherwise, f);
        }
        ExprKind::Closure { function, captures } => {
            f(function);
            captures.iter_mut().for_each(|c| visit_expr(c, f));
        }
        ExprKind::Construct { fields, .. } => fields.iter_mut().for_each(|(_, v)| visit_expr(v, f)),
        ExprKind::Assign { place, value, .. } => {
            visit_place(place, f);
            visit_expr(value, f);
        }
    })
}
