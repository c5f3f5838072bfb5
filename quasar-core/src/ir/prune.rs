//! Removes the function instances nothing uses. Inference lowers a body several times while
//! variable types settle, and an early pass may instantiate a callee for argument types that
//! later widen; those instances are dead. What stays: the script, `main`, every instance that
//! is reachable from them, and every top-level or generically checked definition's instance
//! that nothing else replaced (so `quasar check` still reports on uncalled functions).

use super::visit::{function_ids, VisitMut};
use super::{FunctionId, Module};
use std::collections::HashSet;

/// For each instance, the instances its body refers to (calls, handles, closures, launches).
pub fn callee_lists(module: &Module) -> Vec<Vec<FunctionId>> {
    module
        .functions
        .iter()
        .map(|f| {
            let mut found = Vec::new();
            function_ids(&f.body, &mut |id| found.push(id));
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
    struct Renumber<'m>(&'m [Option<FunctionId>]);
    impl VisitMut for Renumber<'_> {
        fn visit_function_id_mut(&mut self, id: &mut FunctionId) {
            if let Some(new) = self.0[id.0 as usize] {
                *id = new;
            }
        }
    }
    for f in &mut kept {
        Renumber(&map).visit_block_mut(&mut f.body);
    }
    module.functions = kept;
    for slot in [&mut module.script, &mut module.main] {
        *slot = slot.and_then(|id| map[id.0 as usize]);
    }
}
