//! The assertions a function has made so far, as the truth-value system sees them
//! (`propositions.rs`): `assert(cond)` adds `cond`, an assignment forgets what was known
//! about its variable, and a block's assertions end with the block. `$check`, `$assump`
//! and `$subs` (manual chapter 5, §8.6) are answered from them at compile time.

use super::propositions::{self, Cmp, Prop};
use super::scope::FnLowerer;
use crate::diagnostics::Diagnostic;
use crate::ir::{self, BinaryOp, ExprKind, UnaryOp};
use crate::sema::types::Type;
use crate::span::Span;
use crate::syntax::ast;

impl<'c, 'a> FnLowerer<'c, 'a> {
    /// The proposition a lowered condition states, when it is made of comparisons of a
    /// variable with a number joined by `&&`, `||` and `!`.
    fn proposition(&self, e: &ir::Expr) -> Option<Prop> {
        match &e.kind {
            ExprKind::Convert(x) => self.proposition(x),
            ExprKind::Const(ir::Const::Int(i)) => Some(Prop::Const(*i != 0)),
            ExprKind::Unary { op: UnaryOp::Not, operand } => {
                Some(Prop::Not(Box::new(self.proposition(operand)?)))
            }
            ExprKind::Binary { op: op @ (BinaryOp::And | BinaryOp::Or), lhs, rhs } => {
                let (a, b) = (Box::new(self.proposition(lhs)?), Box::new(self.proposition(rhs)?));
                Some(if *op == BinaryOp::And { Prop::And(a, b) } else { Prop::Or(a, b) })
            }
            ExprKind::Binary { op, lhs, rhs } => {
                let op = match op {
                    BinaryOp::Lt => Cmp::Lt,
                    BinaryOp::Le => Cmp::Le,
                    BinaryOp::Gt => Cmp::Gt,
                    BinaryOp::Ge => Cmp::Ge,
                    BinaryOp::Eq => Cmp::Eq,
                    BinaryOp::Ne => Cmp::Ne,
                    _ => return None,
                };
                match (self.variable(lhs), number(rhs), self.variable(rhs), number(lhs)) {
                    (Some(var), Some(c), ..) => Some(Prop::Cmp { var, op, c, right: false }),
                    (_, _, Some(var), Some(c)) => {
                        Some(Prop::Cmp { var, op: op.flip(), c, right: true })
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }

    fn variable(&self, e: &ir::Expr) -> Option<String> {
        match &e.kind {
            ExprKind::Convert(x) => self.variable(x),
            ExprKind::Local(id) => Some(self.locals[id.0 as usize].name.clone()),
            _ => None,
        }
    }

    /// Whether `e` reads a variable declared `symbolic` that has no value: an assertion
    /// about it is only an assumption (`symbolic a; assert(a == 4)`), not run.
    pub(super) fn mentions_symbolic(&self, e: &ast::Expr) -> bool {
        match &e.kind {
            ast::ExprKind::Ident(x) => {
                self.names.get(x).is_some_and(|id| self.symbolic.contains(id))
            }
            ast::ExprKind::Unary { operand, .. } => self.mentions_symbolic(operand),
            ast::ExprKind::Binary { lhs, rhs, .. } => {
                self.mentions_symbolic(lhs) || self.mentions_symbolic(rhs)
            }
            ast::ExprKind::Paren(xs) => xs.iter().any(|x| self.mentions_symbolic(x)),
            _ => false,
        }
    }

    /// `assert(cond)`: from here to the end of the block, `cond` is known.
    pub(super) fn assume(&mut self, cond: &ir::Expr) {
        if let Some(p) = self.proposition(cond) {
            self.assumptions.push(p);
        }
    }

    /// An assignment to `id`: what was known about it no longer holds. (Facts are blanked,
    /// not removed, so that blocks can drop theirs by position.)
    pub(super) fn forget(&mut self, id: ir::LocalId) {
        self.symbolic.remove(&id);
        let name = &self.locals[id.0 as usize].name;
        for f in self.assumptions.iter_mut().filter(|f| f.mentions(name)) {
            *f = Prop::Const(true);
        }
    }

    /// A loop's body may run again after any of its assignments: what was known about the
    /// variables it assigns does not hold inside it (nor after it).
    pub(super) fn forget_assigned_in(&mut self, body: &'a [ast::Stmt]) {
        let mut names = Vec::new();
        super::lower::collect_assigned(body, &mut names);
        for (name, ..) in names {
            for f in self.assumptions.iter_mut().filter(|f| f.mentions(&name)) {
                *f = Prop::Const(true);
            }
        }
    }

    /// `$check(cond)`: "Valid", "Satisfiable" or "Unsatisfiable" given the assertions so far.
    pub(super) fn meta_check(&mut self, arg: &'a ast::Expr, span: Span) -> ir::Expr {
        let c = self.lower_condition(arg);
        let truth = match self.proposition(&c) {
            Some(p) => propositions::check(&self.assumptions, &p),
            None => {
                let d = Diagnostic::error(arg.span, "`$check` cannot decide this condition")
                    .with_note("it decides comparisons of a variable with a number (`a > 2`), joined with `&&`, `||` and `!`");
                self.report(d);
                return super::expr::unknown(span);
            }
        };
        string(truth.text(), span)
    }

    /// What is known about the variable `name` (`$assump(name)`): its declared type and the
    /// assertions that mention it.
    fn assumptions_of(&self, name: &str) -> Vec<Prop> {
        let declared = self.names.get(name).and_then(|id| self.declared[id.0 as usize].as_ref());
        let ty = declared
            .filter(|t| **t != Type::Unknown)
            .map(|t| Prop::Type { var: name.to_string(), ty: t.to_string() });
        let facts = self.assumptions.iter().flat_map(|f| f.conjuncts());
        ty.into_iter().chain(facts.filter(|f| f.mentions(name)).cloned()).collect()
    }

    /// `$str($assump(x))`: the text of what is known about `x` (`None` when `arg` is not a
    /// call of `$assump`).
    pub(super) fn assump_text(&mut self, arg: &ast::Expr, span: Span) -> Option<ir::Expr> {
        let name = self.assump_name(arg)?;
        let text = self.assumptions_of(&name).iter().map(|p| p.to_string()).collect::<Vec<_>>();
        Some(string(&text.join(" && "), span))
    }

    /// `x` in `$assump(x)`.
    fn assump_name(&mut self, e: &ast::Expr) -> Option<String> {
        let ast::ExprKind::Call { callee, args, .. } = &e.kind else { return None };
        let ast::ExprKind::Ident(f) = &callee.kind else { return None };
        if f != "$assump" {
            return None;
        }
        if let [ast::Arg { value: ast::Expr { kind: ast::ExprKind::Ident(x), .. }, .. }] =
            args.as_slice()
        {
            return Some(x.clone());
        }
        let d = Diagnostic::error(e.span, "`$assump` needs a variable name");
        self.report(d);
        Some(String::new())
    }

    /// `assert($subs(a=b, $assump(a)))`: assume about `b` what is known about `a`
    /// (manual §8.6). `None` when `cond` is not a `$subs` call.
    pub(super) fn assume_substituted(&mut self, cond: &'a ast::Expr) -> Option<()> {
        let ast::ExprKind::Call { callee, args, .. } = &cond.kind else { return None };
        if !matches!(&callee.kind, ast::ExprKind::Ident(f) if f == "$subs") {
            return None;
        }
        let renaming = match args.as_slice() {
            [ast::Arg { value: sub, .. }, ast::Arg { value: what, .. }] => match &sub.kind {
                ast::ExprKind::Assign { op: ast::AssignOp::Assign, lhs, rhs } => {
                    match (&lhs.kind, &rhs.kind) {
                        (ast::ExprKind::Ident(a), ast::ExprKind::Ident(b)) => {
                            self.assump_name(what).map(|x| (a.clone(), b.clone(), x))
                        }
                        _ => None,
                    }
                }
                _ => None,
            },
            _ => None,
        };
        let Some((from, to, of)) = renaming else {
            let d = Diagnostic::error(
                cond.span,
                "`$subs` is supported as `assert($subs(a=b, $assump(a)))`",
            )
            .with_note("it assumes about `b` what is known about `a` (manual §8.6)");
            self.report(d);
            return Some(());
        };
        let known: Vec<Prop> =
            self.assumptions_of(&of).iter().map(|p| p.rename(&from, &to)).collect();
        self.assumptions.extend(known);
        Some(())
    }
}

fn number(e: &ir::Expr) -> Option<f64> {
    match &e.kind {
        ExprKind::Convert(x) => number(x),
        ExprKind::Const(ir::Const::Int(i)) => Some(*i as f64),
        ExprKind::Const(ir::Const::Scalar(x)) => Some(*x),
        ExprKind::Unary { op: UnaryOp::Neg, operand } => number(operand).map(|x| -x),
        _ => None,
    }
}

fn string(s: &str, span: Span) -> ir::Expr {
    ir::Expr::new(ExprKind::Const(ir::Const::Str(s.to_string())), Type::String, span)
}

#[cfg(test)]
mod tests {
    use super::super::tests::errors;

    #[test]
    fn check_and_subs_outside_what_they_decide_are_errors() {
        let e = errors("x = rand(3)\ns = $check(sum(x) > 1)\n");
        assert_eq!(e, ["2:12: `$check` cannot decide this condition"]);
        let e = errors("a = 1\nassert($subs(a, a))\n");
        assert_eq!(e, ["2:8: `$subs` is supported as `assert($subs(a=b, $assump(a)))`"]);
        assert!(errors("symbolic a\nassert(a > 1)\ns = $check(a > 0)\n").is_empty());
    }
}

#[cfg(test)]
mod loop_tests {
    use crate::span::FileId;

    /// The `$check` answers (string constants) of `src`, in order.
    fn answers(src: &str) -> Vec<String> {
        let parsed = crate::syntax::parse(src, FileId(0));
        let c = super::super::check_program(&parsed.program);
        let mut out = Vec::new();
        for f in &c.module.functions {
            crate::ir::walk::walk_block(&f.body, &mut |_| {}, &mut |e| {
                if let crate::ir::ExprKind::Const(crate::ir::Const::Str(s)) = &e.kind {
                    out.push(s.clone());
                }
            });
        }
        out
    }

    #[test]
    fn a_loop_forgets_what_it_may_change() {
        let src = "function s = f(x : scalar)\n  assert(x > 0)\n  for k = 0..2\n    s = $check(x > 0)\n    x = -1\n  endfor\nendfunction\n";
        assert_eq!(answers(src), ["Satisfiable"]);
        assert_eq!(answers(&src.replace("    x = -1\n", "")), ["Valid"]);
    }
}
