//! Trivial-guard folding: `if`/`while`/ternaries whose condition is a constant (after the type
//! checker's constant folding, `if 0`, `while false`, a `$target`-dependent flag) become the
//! branch taken, so that the back ends and later analyses see straight-line code.

use crate::ir::visit::{walk_expr_mut, walk_stmt_mut, VisitMut};
use crate::ir::{Block, Const, Expr, ExprKind, Module, Stmt, StmtKind};

/// Replaces conditions that are constants by the branch they take.
pub fn run(module: &mut Module, _cx: &super::PassContext) {
    for f in &mut module.functions {
        Fold.visit_block_mut(&mut f.body);
    }
}

/// The truth of a constant condition (a number: non-zero is true).
fn truth(e: &Expr) -> Option<bool> {
    match e.constant()? {
        Const::Int(i) => Some(*i != 0),
        Const::Scalar(x) => Some(*x != 0.0),
        _ => None,
    }
}

struct Fold;

impl VisitMut for Fold {
    fn visit_block_mut(&mut self, b: &mut Block) {
        let mut out: Vec<Stmt> = Vec::with_capacity(b.len());
        for mut s in std::mem::take(b) {
            walk_stmt_mut(self, &mut s);
            match s.kind {
                StmtKind::If { cond, then_body, else_body } => match truth(&cond) {
                    Some(true) => out.extend(then_body),
                    Some(false) => out.extend(else_body),
                    None => {
                        out.push(Stmt { kind: StmtKind::If { cond, then_body, else_body }, ..s })
                    }
                },
                StmtKind::While { cond, .. } if truth(&cond) == Some(false) => {}
                kind => out.push(Stmt { kind, ..s }),
            }
        }
        *b = out;
    }

    fn visit_expr_mut(&mut self, e: &mut Expr) {
        walk_expr_mut(self, e);
        if let ExprKind::Ternary { cond, then, otherwise } = &mut e.kind {
            if let Some(t) = truth(cond) {
                let taken = if t { then } else { otherwise };
                let placeholder = Expr::new(ExprKind::Const(Const::Null), e.ty.clone(), e.span);
                let mut taken = std::mem::replace(taken.as_mut(), placeholder);
                // The ternary's type (the join of both branches) is what its users expect.
                if taken.ty != e.ty {
                    taken = Expr::new(ExprKind::Convert(Box::new(taken)), e.ty.clone(), e.span);
                }
                *e = taken;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::dump_body;
    use crate::sema::check::check_program;
    use crate::{syntax, FileId};

    fn folded(src: &str) -> String {
        let parsed = syntax::parse(src, FileId(0));
        let mut m = check_program(&parsed.program).module;
        run(&mut m, &Default::default());
        dump_body::module(&m)
    }

    #[test]
    fn constant_branches_are_replaced_by_the_branch_taken() {
        let text = folded(
            "function y = f(x : scalar)
                 if 1
                     y = x
                 else
                     y = -x
                 endif
                 while 0
                     y = y + 1
                 endwhile
                 y = y + (0 ? 1.0 : 2.0)
             endfunction
             print(f(3.0))",
        );
        assert!(!text.contains("if ") && !text.contains("while") && !text.contains('?'), "{text}");
        assert!(text.contains("y{scalar} = x{scalar}") && !text.contains("-x"), "{text}");
        assert!(text.contains("2.0"), "{text}");
    }

    #[test]
    fn other_branches_stay() {
        let text = folded(
            "function y = f(x : scalar)
                 y = 0.0
                 if x > 1
                     y = x
                 endif
             endfunction
             print(f(3.0))",
        );
        assert!(text.contains("if (x{scalar} > 1{int})"), "{text}");
    }
}
