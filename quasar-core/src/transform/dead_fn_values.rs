//! Dead function values: `f = x -> 2 * x` where nothing ever reads `f` is removed. A lambda
//! that is never called has no parameter types (it is generic), so its value could not be
//! represented; the original compiler accepted such programs, and so does this one.
//! (A call `f(3)` of a lambda held in a variable instantiates the lambda directly; it does
//! not read the variable.)

use crate::ir::visit::{walk_expr, walk_stmt_mut, Visit, VisitMut};
use crate::ir::AssignOp;
use crate::ir::{Block, Expr, ExprKind, LocalId, Module, PlaceKind, Stmt, StmtKind};
use std::collections::HashSet;

/// Removes assignments of function values that nothing reads.
pub fn run(module: &mut Module, _cx: &super::PassContext) {
    for f in &mut module.functions {
        let mut reads = Reads::default();
        reads.visit_block(&f.body);
        Remove { read: reads.0 }.visit_block_mut(&mut f.body);
    }
}

/// The locals an expression reads.
#[derive(Default)]
struct Reads(HashSet<LocalId>);

impl<'a> Visit<'a> for Reads {
    fn visit_expr(&mut self, e: &'a Expr) {
        if let ExprKind::Local(l) = e.kind {
            self.0.insert(l);
        }
        walk_expr(self, e);
    }
}

struct Remove {
    read: HashSet<LocalId>,
}

impl Remove {
    fn is_dead(&self, s: &Stmt) -> bool {
        let StmtKind::Assign { place, op: AssignOp::Assign, value } = &s.kind else {
            return false;
        };
        let PlaceKind::Local(l) = place.kind else { return false };
        // Evaluating a closure only reads its captures: nothing is lost by not doing it.
        matches!(value.kind, ExprKind::Closure { .. } | ExprKind::FunctionRef(_))
            && !self.read.contains(&l)
    }
}

impl VisitMut for Remove {
    fn visit_block_mut(&mut self, b: &mut Block) {
        b.retain(|s| !self.is_dead(s));
        for s in b.iter_mut() {
            walk_stmt_mut(self, s);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::ir::{ExprKind, StmtKind};
    use crate::span::FileId;

    fn script_body(src: &str) -> Vec<String> {
        let parsed = crate::syntax::parse(src, FileId(0));
        let mut checked = crate::sema::check::check_program(&parsed.program);
        assert!(!checked.has_errors(), "{:?}", checked.diagnostics);
        super::run(&mut checked.module, &Default::default());
        let m = &checked.module;
        let f = m.function(m.script.expect("a script"));
        f.body
            .iter()
            .map(|s| match &s.kind {
                StmtKind::Assign { place, value, .. } => format!(
                    "{:?} = {}",
                    place.kind,
                    match value.kind {
                        ExprKind::Closure { .. } => "closure",
                        _ => "value",
                    }
                ),
                _ => "other".to_string(),
            })
            .collect()
    }

    #[test]
    fn only_unread_function_values_go() {
        // `g` is never read, `h` is passed on, `k` is called (which does not read it).
        let body = script_body(
            "g = t -> t * 2\nh = t -> t + 1\nk = t -> t - 1\ny = k(1.5)\nfunction r = ap(f, x)\n    r = f(x)\nendfunction\nz = ap(h, 2.0)\n",
        );
        assert_eq!(body.iter().filter(|s| s.ends_with("closure")).count(), 1, "{body:?}");
        assert_eq!(body.len(), 3, "{body:?}");
    }
}
