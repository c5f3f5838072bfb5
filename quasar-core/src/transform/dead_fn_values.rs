//! Dead function values: `f = x -> 2 * x` where nothing ever reads `f` is removed (its value,
//! the closure class of an untyped lambda or a closure, is never needed).
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
        // The caller reads the outputs (`f = x -> slope * x` returned by a function).
        reads.0.extend(f.outputs.iter().copied());
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
    /// What is left of a dead `f = closure`: nothing, or the copies of the captured values
    /// that calls of the lambda read (`f = (snapshots; closure)`, `sema/check/call_value.rs`).
    /// `None` when the statement stays.
    fn dead(&self, s: &Stmt) -> Option<Option<Stmt>> {
        let StmtKind::Assign { place, op: AssignOp::Assign, value } = &s.kind else {
            return None;
        };
        let PlaceKind::Local(l) = place.kind else { return None };
        if self.read.contains(&l) {
            return None;
        }
        // Evaluating a closure only reads its captures: nothing is lost by not doing it.
        // So does the value of an untyped lambda (its closure class holds the captures).
        let closure = |e: &Expr| match &e.kind {
            ExprKind::Closure { .. } | ExprKind::FunctionRef(_) => true,
            ExprKind::Construct { class, .. } => class.is_closure(),
            _ => false,
        };
        match &value.kind {
            _ if closure(value) => Some(None),
            ExprKind::Sequence(items) if items.last().is_some_and(closure) => {
                let copies = items[..items.len() - 1].to_vec();
                let ty = copies.last().map_or(value.ty.clone(), |c| c.ty.clone());
                let e = Expr::new(ExprKind::Sequence(copies), ty, value.span);
                Some(Some(Stmt { kind: StmtKind::Expr(e), span: s.span }))
            }
            _ => None,
        }
    }
}

impl VisitMut for Remove {
    fn visit_block_mut(&mut self, b: &mut Block) {
        let old = std::mem::take(b);
        for s in old {
            match self.dead(&s) {
                None => b.push(s),
                Some(rest) => b.extend(rest),
            }
        }
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
                    match &value.kind {
                        ExprKind::Closure { .. } => "closure",
                        ExprKind::Construct { class, .. } if class.is_closure() => "closure",
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

    #[test]
    fn a_function_value_assigned_to_an_output_stays() {
        let src = "function f : [scalar -> scalar] = make(k : scalar)\n    f = x -> k * x\nendfunction\ny = make(2.0)(3.0)\n";
        let parsed = crate::syntax::parse(src, FileId(0));
        let mut checked = crate::sema::check::check_program(&parsed.program);
        assert!(!checked.has_errors(), "{:?}", checked.diagnostics);
        super::run(&mut checked.module, &Default::default());
        let make = checked.module.functions.iter().find(|f| f.name == "make").expect("make");
        assert_eq!(make.body.len(), 1, "the assignment of the output is kept");
    }
}
