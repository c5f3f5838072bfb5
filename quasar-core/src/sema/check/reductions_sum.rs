//! Variadic reductions over sums (manual §4.9.5's second form):
//! `reduction (x, ...lambda, ...f) -> sum([lambda*f(x).^2]) = mysum(f, lambda)` matches a sum
//! of terms, `2*(x.^2) + cos(3)*((2*x).^2) + 2*((-x).^2)`, each term matching the pattern
//! inside `sum([…])`, or one such term alone (`K` = 1) where it is not a term of a longer sum. The terms are lowered (so reduced) first. A variadic variable
//! takes what it matched in each term, as one vector when they are numbers (`lambda` =
//! `[2, cos(3), 2]`), as one cell otherwise; a variadic
//! variable called on a variable (`f(x)`) takes, in each term, the function of `x` that the
//! term computes there: a closure whose body is that part with `x` replaced by its parameter
//! (`f` = `{x -> x, x -> 2*x, x -> -x}`). The other variables match the same value in every
//! term; one that only appears as such an argument (`x`) is bound to the one variable that the
//! first term's part reads (no match when it reads none or several).
//!
//! The whole chain of `+` is tried first, then (as its operands are lowered) the chains that
//! start it, so `a + b + c` may reduce `a + b`. A `where` clause must fold to a constant here;
//! a rule whose clause is known only at run time is not applied to sums.

use super::expr::unknown;
use super::reductions::{mentions, replacement_lambda_parameter, root_of, MAX_REDUCTION_DEPTH};
use super::reductions_match::{peel, same_value};
use super::scope::FnLowerer;
use crate::diagnostics::Diagnostic;
use crate::ir::{self, LocalId, LocalRole};
use crate::sema::types::{promote, Type};
use crate::span::Span;
use crate::syntax::ast::{self, BinaryOp, Expr, ExprKind};
use std::collections::HashMap;

/// The term of a pattern `sum([term])` whose term mentions a variadic variable: a rule of
/// this form is tried at sums only.
pub(super) fn sum_term<'e>(pattern: &'e Expr, variadic: &[&str]) -> Option<&'e Expr> {
    let ExprKind::Call { callee, args, .. } = &pattern.kind else { return None };
    let named_sum = matches!(&callee.kind, ExprKind::Ident(f) if f == "sum");
    if !named_sum || args.len() != 1 || args[0].name.is_some() {
        return None;
    }
    let ExprKind::Matrix(items) = &args[0].value.kind else { return None };
    let [term] = items.as_slice() else { return None };
    variadic.iter().any(|v| mentions(term, v)).then_some(term)
}

/// The terms of a chain of `+`, left to right.
fn sum_terms<'e>(e: &'e Expr, out: &mut Vec<&'e Expr>) {
    match &e.kind {
        ExprKind::Binary { op: BinaryOp::Add, lhs, rhs } => {
            sum_terms(lhs, out);
            sum_terms(rhs, out);
        }
        _ => out.push(e),
    }
}

/// The variables of `term` called on a variable: `f` of `f(x)`, with `x`.
fn called_variables(term: &Expr, vars: &[&str], out: &mut Vec<(String, String)>) {
    match &term.kind {
        ExprKind::Call { callee, args, .. } => {
            if let (ExprKind::Ident(f), [arg]) = (&callee.kind, args.as_slice()) {
                if let ExprKind::Ident(a) = &arg.value.kind {
                    if vars.contains(&f.as_str()) && vars.contains(&a.as_str()) {
                        out.push((f.clone(), a.clone()));
                    }
                }
            }
            args.iter().for_each(|a| called_variables(&a.value, vars, out));
        }
        ExprKind::Paren(items) => items.iter().for_each(|i| called_variables(i, vars, out)),
        ExprKind::Binary { lhs, rhs, .. } => {
            called_variables(lhs, vars, out);
            called_variables(rhs, vars, out);
        }
        ExprKind::Unary { operand, .. } => called_variables(operand, vars, out),
        ExprKind::Field { base, .. } => called_variables(base, vars, out),
        _ => {}
    }
}

/// What a sum rule matched: the shared variables, and each variadic variable's values.
struct SumMatch {
    fixed: Vec<(String, ir::Expr)>,
    each: HashMap<String, Vec<ir::Expr>>,
}

/// Replaces a value (`x`) by a function's parameter and the other variables it reads by its
/// captures, building a closure's body from the part of a term.
struct Abstract<'x> {
    x: &'x ir::Expr,
    param: ir::Expr,
    outer: &'x [ir::Local],
    captured: Vec<LocalId>,
}

impl Abstract<'_> {
    /// The closure's local for the outer variable `id` (parameter 0, output 1, captures next).
    fn capture(&mut self, id: LocalId) -> LocalId {
        let at = match self.captured.iter().position(|c| *c == id) {
            Some(i) => i,
            None => {
                self.captured.push(id);
                self.captured.len() - 1
            }
        };
        LocalId(2 + at as u32)
    }
}

impl ir::visit::VisitMut for Abstract<'_> {
    fn visit_expr_mut(&mut self, e: &mut ir::Expr) {
        if e.ty == self.x.ty && same_value(peel(e), peel(self.x)) {
            *e = ir::Expr::new(self.param.kind.clone(), self.param.ty.clone(), e.span);
            return;
        }
        if let ir::ExprKind::Local(id) = e.kind {
            if (id.0 as usize) < self.outer.len() {
                e.kind = ir::ExprKind::Local(self.capture(id));
            }
            return;
        }
        ir::visit::walk_expr_mut(self, e)
    }

    fn visit_place_mut(&mut self, p: &mut ir::Place) {
        if let ir::PlaceKind::Local(id) = p.kind {
            p.kind = ir::PlaceKind::Local(self.capture(id));
            return;
        }
        ir::visit::walk_place_mut(self, p)
    }
}

impl<'c, 'a> FnLowerer<'c, 'a> {
    /// `e`, a sum `a + b + …`, rewritten by a variadic sum reduction; `None` when none
    /// applies (its lowered terms are then left for the lowering as written).
    pub(super) fn lower_sum_reduced(&mut self, e: &'a Expr) -> Option<ir::Expr> {
        if !matches!(e.kind, ExprKind::Binary { op: BinaryOp::Add, .. }) {
            return None;
        }
        let rules: Vec<usize> =
            (0..self.cx.rules.len()).filter(|&i| self.cx.rules[i].sum_term.is_some()).collect();
        if rules.is_empty() {
            return None;
        }
        if self.reduction_depth >= MAX_REDUCTION_DEPTH {
            let d = Diagnostic::error(e.span, "reductions keep rewriting this sum")
                .with_note("reductions may not rewrite into each other in a cycle (manual §4.9.3)");
            self.report(d);
            return Some(unknown(e.span));
        }
        let mut terms = Vec::new();
        sum_terms(e, &mut terms);
        let values: Vec<ir::Expr> = terms
            .iter()
            .map(|t| {
                // A term is matched as a part of this sum, not as a sum of its own.
                self.sum_terms.insert(*t as *const Expr);
                let v = self.lower_expr(t);
                self.sum_terms.remove(&(*t as *const Expr));
                self.value_of(v)
            })
            .collect();
        if let Some(v) = self.apply_sum_rules(e, &rules, &values) {
            return Some(v);
        }
        for (t, v) in terms.iter().zip(values) {
            self.prelowered.insert(*t as *const Expr, v);
        }
        None
    }

    /// `e`, lowered as written to `value` with no other rule applied, rewritten by a sum rule
    /// as a sum of one term (`2*(x.^2)`, `K` = 1 in §4.9.5), unless it is a term of a sum
    /// being matched as a whole.
    pub(super) fn lower_one_term_sum(&mut self, e: &'a Expr, value: ir::Expr) -> ir::Expr {
        if self.sum_terms.contains(&(e as *const Expr)) {
            return value;
        }
        let rules = self.one_term_rules(e);
        if rules.is_empty() || self.reduction_depth >= MAX_REDUCTION_DEPTH {
            return value;
        }
        let term = self.value_of(value.clone());
        self.apply_sum_rules(e, &rules, &[term]).unwrap_or(value)
    }

    /// The sum rules whose term has the shape of `e`'s root (tried at `e` as a one-term sum).
    pub(super) fn one_term_rules(&self, e: &Expr) -> Vec<usize> {
        let Some((key, _, _)) = root_of(e) else { return Vec::new() };
        (0..self.cx.rules.len())
            .filter(|&i| {
                self.cx.rules[i].sum_term.and_then(root_of).is_some_and(|(k, _, _)| k == key)
            })
            .collect()
    }

    /// The first of the sum `rules` that matches the `values` of the terms of `e` and whose
    /// `where` clause holds at compile time, applied.
    fn apply_sum_rules(
        &mut self,
        e: &'a Expr,
        rules: &[usize],
        values: &[ir::Expr],
    ) -> Option<ir::Expr> {
        for &index in rules {
            let Some(m) = self.match_sum(index, values) else { continue };
            let def = self.cx.rules[index].def;
            let Some(binds) = self.sum_bindings(index, m, e.span) else { continue };
            self.reduction_sites.push(e.span);
            self.reduction_frames.push(binds);
            self.reduction_depth += 1;
            let cond = def.condition.as_ref().map(|c| self.lower_condition(c));
            let applies = match cond.as_ref().map(|c| c.constant()) {
                None => true,
                Some(Some(c)) => super::reductions::truthy(c),
                Some(None) => false,
            };
            let value = applies.then(|| self.lower_expr(&def.replacement));
            self.reduction_depth -= 1;
            self.reduction_frames.pop();
            self.reduction_sites.pop();
            if value.is_some() {
                self.record_applied(e.span, Some(e), def, false);
                return value;
            }
        }
        None
    }

    /// Matches the term of sum rule `index` against every term.
    fn match_sum(&self, index: usize, values: &[ir::Expr]) -> Option<SumMatch> {
        let rule = &self.cx.rules[index];
        let term = rule.sum_term?;
        let def = rule.def;
        let vars: Vec<&str> = def.params.iter().map(|p| p.name.name.as_str()).collect();
        let variadic: Vec<&str> =
            def.params.iter().filter(|p| p.variadic).map(|p| p.name.name.as_str()).collect();
        let mut fixed: Vec<(String, ir::Expr)> = Vec::new();
        let mut each: HashMap<String, Vec<ir::Expr>> = HashMap::new();
        for v in values {
            let mut binds = fixed.clone();
            if !self.match_value(term, v, &vars, &mut binds) {
                return None;
            }
            for (name, value) in binds.drain(fixed.len()..).collect::<Vec<_>>() {
                if variadic.contains(&name.as_str()) {
                    each.entry(name).or_default().push(value);
                } else {
                    fixed.push((name, value));
                }
            }
        }
        // Every variadic variable took one value per term.
        if variadic.iter().any(|n| each.get(*n).map_or(0, Vec::len) != values.len()) {
            return None;
        }
        Some(SumMatch { fixed, each })
    }

    /// The bindings of a sum match (variadic variables as cells, a called one as a cell of
    /// closures), or `None` when a variable's declared type does not fit.
    fn sum_bindings(
        &mut self,
        index: usize,
        m: SumMatch,
        span: Span,
    ) -> Option<Vec<(String, ir::Expr)>> {
        let def: &ast::Reduction = self.cx.rules[index].def;
        let term = self.cx.rules[index].sum_term?;
        let vars: Vec<&str> = def.params.iter().map(|p| p.name.name.as_str()).collect();
        let mut called = Vec::new();
        called_variables(term, &vars, &mut called);
        let mut binds = m.fixed;
        for p in &def.params {
            let declared = p.ty.as_ref().map(|t| self.resolve_type_quiet(t));
            if !p.variadic && replacement_lambda_parameter(def, &p.name.name) {
                continue;
            }
            if !p.variadic {
                let v = binds.iter().find(|(n, _)| *n == p.name.name)?.1.clone();
                if let Some(t) = &declared {
                    if !self.fits_value(&v, t) {
                        return None;
                    }
                }
                continue;
            }
            let values = m.each.get(&p.name.name)?.clone();
            let items = match called.iter().find(|(f, _)| *f == p.name.name) {
                Some((_, arg)) => {
                    let x = binds.iter().find(|(n, _)| n == arg)?.1.clone();
                    values.iter().map(|part| self.term_closure(part, &x, span)).collect()
                }
                None => {
                    let elem = match &declared {
                        Some(Type::Array(a)) => Some(a.elem.clone()),
                        other => other.clone(),
                    };
                    if let Some(t) = &elem {
                        if !values.iter().all(|v| self.fits_value(v, t)) {
                            return None;
                        }
                    }
                    values
                }
            };
            let items: Vec<ir::Expr> = items;
            // Numbers make a vector (`lambda : vec`, as the manual says); anything else a cell.
            let value = if items.iter().all(|v| v.ty.is_number()) {
                let elem = items.iter().map(|v| v.ty.clone()).reduce(|a, b| promote(&a, &b));
                let ty = Type::vec_n(elem.unwrap_or(Type::SCALAR), items.len() as u64);
                ir::Expr::new(ir::ExprKind::Matrix(items), ty, span)
            } else {
                let ty = Type::CellTuple(items.iter().map(|v| v.ty.clone()).collect());
                ir::Expr::new(ir::ExprKind::Cell(items), ty, span)
            };
            binds.push((p.name.name.clone(), value));
        }
        Some(binds)
    }

    /// Whether a matched value has the declared type `t`.
    fn fits_value(&mut self, v: &ir::Expr, t: &Type) -> bool {
        v.ty.is_concrete() && self.fits(&v.ty, t)
    }

    /// The closure `x -> part`: the part of a term with `x` replaced by the parameter, the
    /// other variables it reads captured.
    fn term_closure(&mut self, part: &ir::Expr, x: &ir::Expr, span: Span) -> ir::Expr {
        let param_name = match &peel(x).kind {
            ir::ExprKind::Local(id) => self.locals[id.0 as usize].name.clone(),
            _ => "x".to_string(),
        };
        let param = ir::Expr::new(ir::ExprKind::Local(LocalId(0)), x.ty.clone(), span);
        let mut body = part.clone();
        let mut abs = Abstract { x, param, outer: &self.locals, captured: Vec::new() };
        ir::visit::VisitMut::visit_expr_mut(&mut abs, &mut body);
        let captured = abs.captured;
        let local = |name: &str, ty: Type, role| ir::Local { name: name.into(), ty, role, span };
        let mut locals = vec![
            local(&param_name, x.ty.clone(), LocalRole::Param),
            local("y", part.ty.clone(), LocalRole::Output),
        ];
        for id in &captured {
            let outer = &self.locals[id.0 as usize];
            locals.push(local(&outer.name, outer.ty.clone(), LocalRole::Capture));
        }
        let place = ir::Place::new(ir::PlaceKind::Local(LocalId(1)), part.ty.clone(), span);
        let assign = ir::StmtKind::Assign { place, op: ir::AssignOp::Assign, value: body };
        let kind = if self.in_kernel_context() {
            ast::FunctionKind::Device
        } else {
            ast::FunctionKind::Host
        };
        let f = ir::Function {
            name: "<lambda>".into(),
            instance_name: String::new(),
            kind,
            params: vec![LocalId(0)],
            outputs: vec![LocalId(1)],
            captures: (0..captured.len()).map(|i| LocalId(2 + i as u32)).collect(),
            locals,
            body: vec![ir::Stmt { kind: assign, span }],
            top_level: false,
            generic: false,
            span,
            partition: None,
            outputs_from_identity: false,
            runtime_sizes: Vec::new(),
        };
        let id = self.cx.push_function(f);
        let captures = captured
            .iter()
            .map(|c| {
                let ty = self.locals[c.0 as usize].ty.clone();
                ir::Expr::new(ir::ExprKind::Local(*c), ty, span)
            })
            .collect();
        let ty = self.instance_type(id);
        ir::Expr::new(ir::ExprKind::Closure { function: id, captures }, ty, span)
    }
}

#[cfg(test)]
mod tests {
    use crate::ir::dump_body;
    use crate::span::FileId;
    use crate::syntax::parse;

    fn checked(src: &str) -> crate::sema::check::Checked {
        let parsed = parse(src, FileId(0));
        assert!(!parsed.has_errors(), "syntax errors: {:?}", parsed.diagnostics);
        super::super::check_program(&parsed.program)
    }

    const RULE: &str =
        "reduction (x, ...lambda, ...f) -> sum([lambda*f(x).^2]) = probe(x, lambda, ...f)
function v = probe(x : vec, w : vec, f1, f2, f3)
    a = f1(x)
    b = f2(x)
    c = f3(x)
    v = [w[0], w[1], w[2], a[0], b[0], c[0]]
endfunction
";

    #[test]
    fn the_manuals_sum_of_weighted_squares_matches_term_by_term() {
        let src = format!(
            "{RULE}function y = f(x : vec)
    y = 2*(x.^2) + cos(3)*((2*x).^2) + 2*((-x).^2)
endfunction"
        );
        let c = checked(&src);
        let errors: Vec<&str> =
            c.diagnostics.iter().filter(|d| d.is_error()).map(|d| d.message.as_str()).collect();
        assert!(errors.is_empty(), "{errors:?}");
        let f = c.module.functions.iter().find(|f| f.name == "f").expect("f");
        let body = dump_body::function(&c.module, f);
        assert!(body.contains("probe"), "{body}");
    }

    #[test]
    fn a_sum_of_one_term_matches_alone_but_not_as_a_term_of_a_longer_sum() {
        let src = "reduction (x, ...lambda, ...f) -> sum([lambda*f(x).^2]) = weights(lambda)
function y = weights(w : vec)
    y = sum(w)
endfunction
function [y, z] = f(x : vec)
    y = 0.5*((2*x).^2)
    z = 0.5*((2*x).^2) + x
endfunction";
        let c = checked(src);
        let errors: Vec<&str> =
            c.diagnostics.iter().filter(|d| d.is_error()).map(|d| d.message.as_str()).collect();
        assert!(errors.is_empty(), "{errors:?}");
        let f = c.module.functions.iter().find(|f| f.name == "f").expect("f");
        let body = dump_body::function(&c.module, f);
        assert_eq!(body.matches("weights").count(), 1, "y only: {body}");
    }

    #[test]
    fn a_sum_whose_terms_do_not_all_match_is_left_as_written() {
        let src = format!(
            "{RULE}function y = f(x : vec)
    y = 2*(x.^2) + x
endfunction"
        );
        let c = checked(&src);
        let f = c.module.functions.iter().find(|f| f.name == "f").expect("f");
        assert!(!dump_body::function(&c.module, f).contains("probe"));
    }

    #[test]
    fn a_term_part_that_reads_several_variables_binds_nothing() {
        // `f(x)` against `x + y`: which variable is `x` is not known.
        let src = format!(
            "{RULE}function z = f(x : vec, y : vec)
    z = 2*((x + y).^2) + 3*((x + y).^2)
endfunction"
        );
        let c = checked(&src);
        let f = c.module.functions.iter().find(|f| f.name == "f").expect("f");
        assert!(!dump_body::function(&c.module, f).contains("probe"));
    }
}
