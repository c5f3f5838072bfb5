//! Reductions (manual §4.9): rewrite rules such as
//! `reduction (x : mat) -> transpose(transpose(x)) = x`, applied while lowering.
//!
//! At an expression whose shape is the root of some rule's pattern (a call `f(…)`, a method
//! call `a.m(…)`, an operator, an index `x[:, :]`, a field `a.length`), the operands are
//! lowered first, so that they are reduced first (the manual's "higher depth first" order,
//! §4.9.2), and the rules are matched against the lowered operands: nested parts of a pattern
//! against the shape of the lowered IR, variables by binding the lowered value, typed
//! variables only when the value's type fits. Among the rules that match, those with more
//! variables come first, then the larger patterns, then the more exact types, then the order
//! of definition. The replacement is lowered with the variables bound to the values (so it is
//! reduced in turn). A `where` clause that folds to a constant selects at compile time; any
//! other is tested at run time, the expression as written being the last alternative
//! (§4.9.4). When no rule applies, the expression is lowered as usual, reusing its lowered
//! operands.
//!
//! Type parameters (`reduction (T, a : point[T], b : point[T]) -> …`, manual §6.2, §7.5) are
//! bound by matching the other variables' declared types and stand for those types in the
//! replacement. A variadic variable (§4.9.5) as the last argument of the pattern's call takes
//! the remaining arguments as one cell, spread again by `...args`. Assignment patterns are
//! tried at assignment statements (`reductions_assign.rs`).
//!
//! Variadic sums (`sum([lambda*f(x).^2])`, §4.9.5's second form) are matched by
//! `reductions_sum.rs`; the safety checks of §4.9.3 are in `reductions_safety.rs`; a rule with
//! more variables whose pattern inner reductions broke is applied first by
//! `reductions_overlap.rs`; `#pragma show_reductions` notes are made by `reductions_show.rs`.
//!
//! Not supported, each a compile error naming it: variadic variables elsewhere, patterns of
//! other shapes (matrices, lambdas), and reductions that rewrite into each other (§4.9.3).

use super::expr::unknown;
use super::reductions_overlap::Site;
use super::reductions_safety::{different_patterns, same_result, SafetyLevel};
use super::scope::FnLowerer;
use crate::diagnostics::Diagnostic;
use crate::ir::{self, Const};
use crate::sema::types::{join, Type};
use crate::syntax::ast::{self, AssignOp, BinaryOp, Expr, ExprKind, UnaryOp};

/// How deep replacements may produce further replacements before the checker stops
/// (reductions that rewrite into each other through types the static check cannot see).
pub(super) const MAX_REDUCTION_DEPTH: u32 = 48;

/// The shape of a pattern's root, which selects the rules tried at an expression.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum RootKey {
    /// `f(a, b)`: the name and the number of arguments.
    Call(String, usize),
    /// `a.m(b)`: the method's name and the number of arguments.
    Method(String, usize),
    Binary(BinaryOp),
    Unary(UnaryOp),
    /// `x[:, i]`: the number of subscripts.
    Index(usize),
    /// `a.length`: a field or property read.
    Field(String),
    /// `(a.length = b)` or `(y := x)`: an assignment to a variable or to a field of one, with
    /// the field's name (tried at assignment statements, `reductions_assign.rs`).
    Assign(AssignOp, Option<String>),
}

/// A reduction the checker applies.
pub(super) struct Rule<'a> {
    pub def: &'a ast::Reduction,
    pub root: RootKey,
    /// Variables that stand for types (`T` of `(T, a : point[T])`, manual §6.2 and §7.5),
    /// bound by matching the declared types of the other variables.
    pub type_params: Vec<String>,
    /// The variadic variable (`...args`), the last argument of the pattern's call (§4.9.5).
    pub variadic: Option<String>,
    /// The term of a variadic sum pattern `sum([lambda*f(x).^2])` (§4.9.5's second form,
    /// `reductions_sum.rs`): such a rule is tried at sums only.
    pub sum_term: Option<&'a Expr>,
}

impl Rule<'_> {
    /// Whether the rule is tried at an expression whose root is `key`: a variadic rule at
    /// calls with at least its fixed arguments.
    pub(super) fn tried_at(&self, key: &RootKey) -> bool {
        if self.sum_term.is_some() {
            return false;
        }
        match (&self.root, key) {
            (RootKey::Call(f, n), RootKey::Call(g, m))
            | (RootKey::Method(f, n), RootKey::Method(g, m))
                if self.variadic.is_some() =>
            {
                f == g && m + 1 >= *n
            }
            _ => self.root == *key,
        }
    }
}

/// A pattern's or expression's root and its operands (a call's or index's base first, where
/// it is an operand; `:` subscripts are not operands but must be at the same places).
pub(super) fn root_of(e: &Expr) -> Option<(RootKey, Vec<&Expr>, Vec<bool>)> {
    let positional = |args: &[ast::Arg]| args.iter().all(|a| a.name.is_none());
    match &e.kind {
        ExprKind::Paren(items) if items.len() == 1 => root_of(&items[0]),
        ExprKind::Call { callee, args, .. } if positional(args) => match &callee.kind {
            ExprKind::Ident(f) => Some((
                RootKey::Call(f.clone(), args.len()),
                args.iter().map(|a| &a.value).collect(),
                Vec::new(),
            )),
            ExprKind::Field { base, name } => {
                let mut ops = vec![&**base];
                ops.extend(args.iter().map(|a| &a.value));
                Some((RootKey::Method(name.name.clone(), args.len()), ops, Vec::new()))
            }
            _ => None,
        },
        ExprKind::Binary { op, lhs, rhs } => {
            Some((RootKey::Binary(*op), vec![lhs, rhs], Vec::new()))
        }
        ExprKind::Unary { op, operand } => Some((RootKey::Unary(*op), vec![operand], Vec::new())),
        ExprKind::Field { base, name } => {
            Some((RootKey::Field(name.name.clone()), vec![base], Vec::new()))
        }
        ExprKind::Assign { op, lhs, rhs } => {
            let (target, field) = match &lhs.kind {
                ExprKind::Ident(_) => (&**lhs, None),
                ExprKind::Field { base, name } if matches!(base.kind, ExprKind::Ident(_)) => {
                    (&**base, Some(name.name.clone()))
                }
                _ => return None,
            };
            Some((RootKey::Assign(*op, field), vec![target, rhs], Vec::new()))
        }
        ExprKind::Index { base, indices } if positional(indices) => {
            let mut ops = vec![&**base];
            let colons: Vec<bool> =
                indices.iter().map(|a| matches!(a.value.kind, ExprKind::Colon)).collect();
            ops.extend(
                indices
                    .iter()
                    .filter(|a| !matches!(a.value.kind, ExprKind::Colon))
                    .map(|a| &a.value),
            );
            Some((RootKey::Index(indices.len()), ops, colons))
        }
        _ => None,
    }
}

/// What a pattern of this kind is called in an error.
fn shape_name(e: &Expr) -> &'static str {
    match &e.kind {
        ExprKind::Paren(items) if items.len() == 1 => shape_name(&items[0]),
        ExprKind::Assign { .. } => "an assignment to something other than a variable or its field",
        ExprKind::Matrix(_) => "a matrix",
        ExprKind::Cell(_) => "a cell array",
        ExprKind::Lambda(_) => "a lambda",
        ExprKind::Ident(_) => "a bare variable",
        ExprKind::Ternary { .. } => "a conditional `?:`",
        ExprKind::Range { .. } => "a range",
        ExprKind::Spread(_) => "a spread `...`",
        ExprKind::Colon => "`:` outside a subscript",
        ExprKind::Call { .. } => "a call of something other than a name or a method",
        ExprKind::Index { .. } => "an index with named subscripts",
        _ => "this expression",
    }
}

/// Whether `e` may appear inside a pattern (below its root). `sum`: in the term of a
/// variadic sum, where a variable may be called on a variable (`f(x)`).
fn inner_pattern_error<'e>(e: &'e Expr, vars: &[&str], sum: bool) -> Option<&'e Expr> {
    let inner = |x: &'e Expr| inner_pattern_error(x, vars, sum);
    match &e.kind {
        ExprKind::Ident(_) | ExprKind::Number(_) | ExprKind::Str(_) => None,
        ExprKind::Paren(items) if items.len() == 1 => inner(&items[0]),
        ExprKind::Call { callee, args, .. } => match &callee.kind {
            ExprKind::Ident(f)
                if !vars.contains(&f.as_str()) && args.iter().all(|a| a.name.is_none()) =>
            {
                args.iter().find_map(|a| inner(&a.value))
            }
            ExprKind::Ident(_)
                if sum
                    && matches!(args.as_slice(), [a] if a.name.is_none()
                        && matches!(&a.value.kind, ExprKind::Ident(x) if vars.contains(&x.as_str()))) =>
            {
                None
            }
            _ => Some(e),
        },
        ExprKind::Binary { lhs, rhs, .. } => inner(lhs).or_else(|| inner(rhs)),
        ExprKind::Unary { operand, .. } => inner(operand),
        ExprKind::Field { base, .. } => inner(base),
        // An equation, in the arguments of a symbolic operation (`solve(a*x = b, x)`).
        ExprKind::Assign { op: AssignOp::Assign, lhs, rhs } => inner(lhs).or_else(|| inner(rhs)),
        _ => Some(e),
    }
}

/// Whether a pattern (of the shapes `prepare` accepts) mentions the variable `name`.
pub(super) fn mentions(e: &Expr, name: &str) -> bool {
    match &e.kind {
        ExprKind::Ident(n) => n == name,
        ExprKind::Paren(items) | ExprKind::Matrix(items) => items.iter().any(|x| mentions(x, name)),
        ExprKind::Call { callee, args, .. } | ExprKind::Index { base: callee, indices: args } => {
            mentions(callee, name) || args.iter().any(|a| mentions(&a.value, name))
        }
        ExprKind::Binary { lhs, rhs, .. } => mentions(lhs, name) || mentions(rhs, name),
        ExprKind::Unary { operand, .. } => mentions(operand, name),
        ExprKind::Field { base, .. } => mentions(base, name),
        ExprKind::Assign { lhs, rhs, .. } => mentions(lhs, name) || mentions(rhs, name),
        _ => false,
    }
}

/// Whether `name`, a variable of `def` that its pattern does not mention, is a parameter of a
/// lambda in its replacement (the manual's `(f1, f2, x) -> f1 + f2 = x -> f1(x) + f2(x)`,
/// §4.9): the lambda binds it, the match does not.
pub(super) fn replacement_lambda_parameter(def: &ast::Reduction, name: &str) -> bool {
    fn binds(e: &Expr, name: &str) -> bool {
        match &e.kind {
            ExprKind::Lambda(l) => {
                l.params.iter().any(|p| p.name.name == name) || binds(&l.body, name)
            }
            ExprKind::Paren(items) | ExprKind::Matrix(items) | ExprKind::Cell(items) => {
                items.iter().any(|x| binds(x, name))
            }
            ExprKind::Call { callee, args, .. } => {
                binds(callee, name) || args.iter().any(|a| binds(&a.value, name))
            }
            ExprKind::Binary { lhs, rhs, .. } => binds(lhs, name) || binds(rhs, name),
            ExprKind::Unary { operand, .. } => binds(operand, name),
            _ => false,
        }
    }
    !mentions(&def.pattern, name) && binds(&def.replacement, name)
}

/// Whether a written type mentions the name `name` (a reduction's type parameter).
pub(super) fn type_mentions(t: &ast::TypeExpr, name: &str) -> bool {
    use ast::TypeKind as K;
    match &t.kind {
        K::Named { name: n, args, .. } => {
            n.name == name || args.iter().any(|a| type_mentions(a, name))
        }
        K::Pointer(inner) => type_mentions(inner, name),
        K::Union(ts) | K::Cell(ts) => ts.iter().any(|a| type_mentions(a, name)),
        K::Function(f) => f.results.iter().any(|a| type_mentions(a, name)),
        _ => false,
    }
}

/// The variadic form of `def` (manual §4.9.5): the variadic variable that is the last
/// argument of the pattern's call and appears nowhere else in the pattern, or the term of a
/// sum `sum([term])` in which the variadic variables appear (`reductions_sum.rs`).
#[allow(clippy::type_complexity)]
fn variadic_of(def: &ast::Reduction) -> Result<(Option<String>, Option<&Expr>), Diagnostic> {
    let variadic: Vec<&ast::Param> = def.params.iter().filter(|p| p.variadic).collect();
    let Some(p) = variadic.first() else { return Ok((None, None)) };
    let names: Vec<&str> = variadic.iter().map(|p| p.name.name.as_str()).collect();
    if let Some(term) = super::reductions_sum::sum_term(&def.pattern, &names) {
        return Ok((None, Some(term)));
    }
    let name = p.name.name.as_str();
    let last_of_call = match root_of(&def.pattern) {
        Some((RootKey::Call(..) | RootKey::Method(..), ops, _)) => {
            ops.split_last().is_some_and(|(last, rest)| {
                matches!(&last.kind, ExprKind::Ident(n) if n == name)
                    && !rest.iter().any(|o| mentions(o, name))
            })
        }
        _ => false,
    };
    if variadic.len() > 1 || !last_of_call {
        return Err(Diagnostic::error(
            p.span,
            format!(
                "this variadic reduction (`...{name}`, manual §4.9.5) is not supported: a variadic variable is supported as the last argument of the pattern's call, or in the term of a sum `sum([…])`"
            ),
        )
        .with_note("as in `reduction (a : string, ...args : vec[??]) -> myprint(a, args) = handler(a, ...args)` or `reduction (x, ...lambda, ...f) -> sum([lambda*f(x).^2]) = mysum(f, lambda)`"));
    }
    Ok((Some(name.to_string()), None))
}

/// Checks every reduction of the program; the valid ones become rules, in order.
pub(super) fn prepare<'a>(
    reductions: &[&'a ast::Reduction],
    diags: &mut Vec<Diagnostic>,
) -> Vec<Rule<'a>> {
    let mut rules = Vec::new();
    for &def in reductions {
        let (variadic, sum_term) = match variadic_of(def) {
            Ok(v) => v,
            Err(d) => {
                diags.push(d);
                continue;
            }
        };
        let type_params: Vec<String> = def
            .params
            .iter()
            .filter(|p| p.ty.is_none() && !p.variadic && !mentions(&def.pattern, &p.name.name))
            .filter(|p| {
                def.params
                    .iter()
                    .any(|q| q.ty.as_ref().is_some_and(|t| type_mentions(t, &p.name.name)))
            })
            .map(|p| p.name.name.clone())
            .collect();
        let vars: Vec<&str> = def.params.iter().map(|p| p.name.name.as_str()).collect();
        let Some((root, operands, _)) = root_of(&def.pattern) else {
            diags.push(
                Diagnostic::error(def.pattern.span, format!("a reduction whose pattern is {} is not supported", shape_name(&def.pattern)))
                    .with_note("patterns are calls `f(x)`, method calls `x.m(y)`, operators `a + b*c`, subscripts `x[:, :]`, fields `a.length` and assignments `(a.length = b)` (manual §4.9, §7.3)"),
            );
            continue;
        };
        if let RootKey::Call(f, _) = &root {
            if vars.contains(&f.as_str()) {
                let d = Diagnostic::error(
                    def.pattern.span,
                    format!("a reduction whose pattern calls its variable `{f}` is not supported"),
                )
                .with_note("the pattern's outermost call must name a function");
                diags.push(d);
                continue;
            }
        }
        let inner_error = match sum_term {
            Some(term) => inner_pattern_error(term, &vars, true),
            None => operands.iter().find_map(|o| inner_pattern_error(o, &vars, false)),
        };
        if let Some(bad) = inner_error {
            diags.push(
                Diagnostic::error(bad.span, format!("{} inside a reduction's pattern is not supported", shape_name(bad)))
                    .with_note("inside a pattern: variables, numbers, strings, calls of named functions, operators and fields"),
            );
            continue;
        }
        if let Some(p) = def.params.iter().find(|p| {
            !mentions(&def.pattern, &p.name.name)
                && !type_params.contains(&p.name.name)
                && !replacement_lambda_parameter(def, &p.name.name)
        }) {
            diags.push(
                Diagnostic::error(p.span, format!("the reduction's variable `{}` does not appear in its pattern", p.name.name))
                    .with_note("every variable must be bound by the pattern or name a type used in the variables' types (`T` of `(T, a : point[T])`)"),
            );
            continue;
        }
        if let (RootKey::Assign(..), ExprKind::Ident(v)) = (&root, &operands[0].kind) {
            if !vars.contains(&v.as_str()) {
                let d = Diagnostic::error(operands[0].span, format!("the assignment in a reduction's pattern must assign to one of its variables, not `{v}`"));
                diags.push(d);
                continue;
            }
        }
        rules.push(Rule { def, root, type_params, variadic, sum_term });
    }
    report_cycles(&rules, diags);
    rules
}

/// Reductions that rewrite into each other whatever the types (manual §4.9.3, "reduction
/// cross-references"): `f(A, B) = g(A, B)` with `g(A, B) = f(A, B)`, both untyped and
/// unconditional.
fn report_cycles(rules: &[Rule], diags: &mut Vec<Diagnostic>) {
    let general = |r: &Rule| {
        r.def.condition.is_none()
            && r.def.params.iter().all(|p| p.ty.is_none())
            && root_of(&r.def.pattern)
                .is_some_and(|(_, ops, _)| ops.iter().all(|o| matches!(o.kind, ExprKind::Ident(_))))
    };
    let edges: Vec<(&RootKey, RootKey, &Rule)> = rules
        .iter()
        .filter(|r| general(r))
        .filter_map(|r| Some((&r.root, root_of(&r.def.replacement)?.0, r)))
        .collect();
    for (start, next, rule) in &edges {
        // Follow the rewrites from `start`; coming back to it is a cycle.
        let mut at = next.clone();
        let mut path = vec![key_text(start)];
        for _ in 0..edges.len() {
            path.push(key_text(&at));
            if at == **start {
                diags.push(
                    Diagnostic::error(
                        rule.def.span,
                        format!("these reductions rewrite into each other: {}", path.join(" → ")),
                    )
                    .with_note("reductions may not refer to each other in a cycle (manual §4.9.3)"),
                );
                break;
            }
            match edges.iter().find(|(k, _, _)| **k == at) {
                Some((_, n, _)) => at = n.clone(),
                None => break,
            }
        }
    }
}

fn key_text(k: &RootKey) -> String {
    match k {
        RootKey::Call(f, _) => format!("`{f}`"),
        RootKey::Method(m, _) => format!("`.{m}`"),
        RootKey::Binary(op) => format!("{op:?}"),
        RootKey::Unary(op) => format!("{op:?}"),
        RootKey::Index(_) => "an index".to_string(),
        RootKey::Field(f) => format!("`.{f}`"),
        RootKey::Assign(..) => "an assignment".to_string(),
    }
}

impl<'c, 'a> FnLowerer<'c, 'a> {
    /// The value a reduction's variable is bound to in the replacement being lowered.
    pub(super) fn reduction_binding(&self, name: &str) -> Option<ir::Expr> {
        let frame = self.reduction_frames.last()?;
        frame.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone())
    }

    /// Lowers `e` through the reductions whose pattern root has its shape; `None` when no
    /// rule has that root (the caller lowers it as usual).
    pub(super) fn lower_reduced(&mut self, e: &'a Expr) -> Option<ir::Expr> {
        if self.shield.contains(&(e as *const Expr)) {
            // Part of an enclosing pattern's written shape (`reductions_overlap.rs`).
            return None;
        }
        if let Some(v) = self.lower_sum_reduced(e) {
            return Some(v);
        }
        let (key, operands, colons) = root_of(e)?;
        if let RootKey::Assign(..) = key {
            // Assignments are reduced as statements (`reductions_assign.rs`).
            return None;
        }
        if let RootKey::Call(f, _) = &key {
            // A local (or a reduction variable) of that name is called, not the function.
            if self.names.contains_key(f) || self.reduction_binding(f).is_some() {
                return None;
            }
        }
        let candidates: Vec<usize> = self
            .cx
            .rules
            .iter()
            .enumerate()
            .filter(|(_, r)| r.tried_at(&key))
            .map(|(i, _)| i)
            .collect();
        let symbolic = matches!(&key, RootKey::Call(f, _) if !self.defines(f));
        let one_term =
            !self.sum_terms.contains(&(e as *const Expr)) && !self.one_term_rules(e).is_empty();
        if candidates.is_empty() && !one_term {
            // Inside a replacement, a call of a name nothing defines is a symbolic operation
            // that failed (`solve(…)` of `argmin(f, x) = solve(diff(f, x) = 0, x)`).
            return (symbolic && !self.reduction_sites.is_empty())
                .then(|| self.symbolic_failure(e));
        }
        if operands.iter().any(|o| matches!(o.kind, ExprKind::Lambda(_) | ExprKind::Spread(_))) {
            return None;
        }
        if self.reduction_depth >= MAX_REDUCTION_DEPTH {
            let d = Diagnostic::error(e.span, "reductions keep rewriting this expression")
                .with_note("reductions may not rewrite into each other in a cycle (manual §4.9.3)");
            self.report(d);
            return Some(unknown(e.span));
        }
        let (log_start, diag_start) = (self.applied_log.len(), self.diags.len());
        let lowered: Vec<ir::Expr> =
            operands.iter().map(|o| self.lower_operand(o, symbolic)).collect();
        let values: Vec<ir::Expr> = lowered.iter().map(|v| self.value_of(v.clone())).collect();
        let matches = self.matching_rules(&candidates, &values, &colons);
        // Each rule in turn: a condition that holds ends the chain, one that fails skips the
        // rule, one known only at run time becomes a branch.
        let mut branches: Vec<(ir::Expr, ir::Expr)> = Vec::new();
        let mut last = None;
        let mut matches = matches.into_iter();
        for m in matches.by_ref() {
            let chosen = m.def;
            self.reduction_sites.push(e.span);
            let (cond, value) = self.with_match(m, |l, def| {
                let cond = def.condition.as_ref().map(|c| l.lower_condition(c));
                let value = match cond.as_ref().and_then(|c| c.constant().map(truthy)) {
                    Some(false) => None,
                    _ => {
                        l.check_non_local(def, e.span);
                        Some(l.lower_expr(&def.replacement))
                    }
                };
                (cond, value)
            });
            self.reduction_sites.pop();
            let verdict = cond.as_ref().map(|c| c.constant().map(truthy));
            match (verdict, value, cond) {
                (Some(None), Some(v), Some(c)) => {
                    self.record_applied(e.span, Some(e), chosen, true);
                    branches.push((c, v));
                }
                (_, Some(v), _) => {
                    self.record_applied(e.span, Some(e), chosen, false);
                    last = Some((v, chosen));
                    break;
                }
                _ => {}
            }
        }
        if let (Some((v, chosen)), true) = (&last, branches.is_empty()) {
            self.check_conflicts(e, v, chosen, matches.collect());
        }
        let root_rule = last.as_ref().map(|(_, def)| *def);
        let mut result = match last.map(|(v, _)| v) {
            Some(v) => v,
            // In a function checked before its parameters have types (an untyped lambda
            // that is not called yet: `f = x -> diff(sin(x^4) + 2, x)`), operands of no known
            // type may match once it is instantiated.
            None if symbolic
                && branches.is_empty()
                && values.iter().any(|v| !v.ty.is_concrete())
                && self.checked_without_types() =>
            {
                return Some(unknown(e.span))
            }
            None if symbolic
                && branches.is_empty()
                && (!candidates.is_empty() || !self.reduction_sites.is_empty()) =>
            {
                return Some(self.symbolic_failure(e))
            }
            None if one_term && branches.is_empty() => {
                let v = self.lower_as_written(e, &operands, lowered);
                self.lower_one_term_sum(e, v)
            }
            None => self.lower_as_written(e, &operands, lowered),
        };
        for (cond, then) in branches.into_iter().rev() {
            let ty = join(&then.ty, &result.ty);
            let kind = ir::ExprKind::Ternary {
                cond: Box::new(cond),
                then: Box::new(then),
                otherwise: Box::new(result),
            };
            result = ir::Expr::new(kind, ty, e.span);
        }
        let site = Site { e, operands: &operands, candidates: &candidates, symbolic, root_rule };
        Some(self.resolve_overlaps(site, result, log_start, diag_start))
    }

    /// Whether this function is being checked with some parameter of no type yet (not one
    /// declared `??`): its generic check, before calls instantiate it.
    fn checked_without_types(&self) -> bool {
        self.fn_conflicts.params.iter().any(|p| {
            !self.locals[p.0 as usize].ty.is_concrete() && !self.dynamic_params.contains(p)
        })
    }

    /// Whether `f` names something a call can call without a reduction: a variable, a
    /// function, a built-in or a type.
    fn defines(&self, f: &str) -> bool {
        self.names.contains_key(f)
            || self.outer.as_ref().is_some_and(|o| o.find(f).is_some())
            || self.cx.decls.lookup_function(self.scope, f).is_some()
            || self.cx.decls.type_names.contains_key(f)
            || crate::sema::builtins::lookup(f).is_some()
            || crate::sema::resolve_type::is_builtin_type_name(f)
            || f.starts_with('$')
            || matches!(f, "parallel_do" | "serial_do")
    }

    /// An operand of a pattern's root. In the arguments of a call of a name that only
    /// reductions give a meaning (a symbolic operation, manual §4.9.1), `a = b` is an
    /// equation, `a == b`, as in `solve(diff(f, x) = 0, x)`.
    pub(super) fn lower_operand(&mut self, o: &'a Expr, symbolic: bool) -> ir::Expr {
        match &o.kind {
            ExprKind::Assign { op: AssignOp::Assign, lhs, rhs } if symbolic => {
                self.lower_binary(BinaryOp::Eq, lhs, rhs, o.span)
            }
            _ => self.lower_expr(o),
        }
    }

    /// The error for a symbolic operation (a call of a name only reductions define) that no
    /// reduction rewrites (manual §4.9.1: "Symbolic operation failed - no reductions
    /// available for …"), with the expression the user wrote when it comes from a
    /// replacement.
    fn symbolic_failure(&mut self, e: &Expr) -> ir::Expr {
        let mut d = Diagnostic::error(
            e.span,
            format!(
                "symbolic operation failed: no reduction applies to `{}`",
                crate::syntax::printer::print_expr(e)
            ),
        )
        .with_note("it names no function: only reductions can give it a meaning (manual §4.9.1), and none of their patterns and types matches these arguments");
        if let Some(site) = self.reduction_sites.first() {
            d = d.with_secondary(*site, "in the replacement of the reduction applied here");
        }
        self.report(d);
        unknown(e.span)
    }

    /// Reports a conflict (manual §4.9.3) when one of the `others` (rules that also match
    /// `e`, ranked after the `chosen` one) applies unconditionally, has another pattern, and
    /// gives another result than `value`.
    fn check_conflicts(
        &mut self,
        e: &Expr,
        value: &ir::Expr,
        chosen: &'a ast::Reduction,
        others: Vec<super::reductions_match::Match<'a>>,
    ) {
        if self.cx.reduction_safety == SafetyLevel::Off {
            return;
        }
        for m in others {
            let other = m.def;
            if other.condition.is_some() || !different_patterns(chosen, other) {
                continue;
            }
            let alternative =
                self.lower_aside(|l| l.with_match(m, |l, def| l.lower_expr(&def.replacement)));
            if !same_result(value, &alternative) {
                self.report_conflict(e.span, chosen, other);
                return;
            }
        }
    }

    /// A lowered operand as one value (the first result of a call with several).
    pub(super) fn value_of(&self, v: ir::Expr) -> ir::Expr {
        match &v.ty {
            Type::Tuple(ts) if !ts.is_empty() => {
                let (ty, span) = (ts[0].clone(), v.span);
                ir::Expr::new(ir::ExprKind::TupleField { tuple: Box::new(v), index: 0 }, ty, span)
            }
            _ => v,
        }
    }

    /// `e` lowered as written, its operands already lowered.
    fn lower_as_written(
        &mut self,
        e: &'a Expr,
        operands: &[&'a Expr],
        lowered: Vec<ir::Expr>,
    ) -> ir::Expr {
        let keys: Vec<*const Expr> = operands.iter().map(|o| *o as *const Expr).collect();
        for (k, v) in keys.iter().zip(lowered) {
            self.prelowered.insert(*k, v);
        }
        let v = self.lower_expr_kind(e);
        // Operands the lowering did not take again must not be found by a later pass.
        for k in keys {
            self.prelowered.remove(&k);
        }
        v
    }
}

/// Whether a constant condition holds (non-zero, as conditions are).
pub(super) fn truthy(c: &Const) -> bool {
    match c {
        Const::Int(i) => *i != 0,
        Const::Scalar(x) => *x != 0.0,
        Const::Complex(re, im) => *re != 0.0 || *im != 0.0,
        Const::Str(s) => !s.is_empty(),
        Const::Null => false,
    }
}

#[cfg(test)]
mod tests {
    use crate::ir::dump_body;
    use crate::span::FileId;
    use crate::syntax::parse;

    /// The body of the function `name` after checking `src` (which must have no errors).
    fn body(src: &str, name: &str) -> String {
        let parsed = parse(src, FileId(0));
        assert!(!parsed.has_errors(), "syntax errors: {:?}", parsed.diagnostics);
        let c = super::super::check_program(&parsed.program);
        let errors: Vec<&str> =
            c.diagnostics.iter().filter(|d| d.is_error()).map(|d| d.message.as_str()).collect();
        assert!(errors.is_empty(), "errors: {errors:?}");
        let f = c.module.functions.iter().find(|f| f.name == name).expect("the function");
        dump_body::function(&c.module, f)
    }

    fn errors(src: &str) -> Vec<String> {
        super::super::tests::messages(src, false)
    }

    #[test]
    fn nested_rules_reduce_from_the_inside_out() {
        let src = "reduction (x : mat) -> transpose(transpose(x)) = x
reduction (x : mat) -> real(x) = x
reduction (x : mat) -> real(transpose(x)) = transpose(real(x))
function y = f(x : mat)
    y = transpose(real(transpose(x)))
endfunction";
        let b = body(src, "f");
        assert!(!b.contains("transpose") && !b.contains("real"), "{b}");
    }

    #[test]
    fn typed_variables_match_only_their_types() {
        let src = "reduction (x : mat) -> real(x) = x
function y = f(x : cmat)
    y = real(x)
endfunction";
        assert!(body(src, "f").contains("real"));
    }

    #[test]
    fn more_variables_and_exact_types_take_priority() {
        let src = "reduction (x : mat) -> norm2(x) = 1.0
reduction (x : vec) -> norm2(x) = 2.0
reduction (a : mat, b : mat) -> norm2(a - b) = 3.0
function [p, q, r] = f(v : vec, m : mat)
    p = norm2(v)
    q = norm2(m)
    r = norm2(m - m)
endfunction
function y = norm2(x)
    y = sum(x.^2)
endfunction";
        let b = body(src, "f");
        assert!(b.contains("2.0") && b.contains("1.0") && b.contains("3.0"), "{b}");
        assert!(!b.contains("norm2"), "{b}");
    }

    #[test]
    fn where_clauses_select_at_compile_time_or_at_run_time() {
        let src = "reduction (x : scalar) -> abs(x) = x where x >= 0
reduction (x : scalar) -> abs(x) = -x where x < 0
function [a, b] = f(t : scalar)
    a = abs(-4.0)
    b = abs(t)
endfunction";
        let b = body(src, "f");
        assert!(b.contains("?"), "a run-time choice: {b}");
        assert!(b.contains("abs"), "the call as written is the last alternative: {b}");
    }

    #[test]
    fn unsupported_forms_are_named() {
        let e = errors("reduction (x, ...f) -> prod([f(x)]) = 1");
        assert!(e.iter().any(|m| m.contains("variadic")), "{e:?}");
        let e = errors("reduction (a, ...b) -> g(b, a) = 1");
        assert!(e.iter().any(|m| m.contains("last argument")), "{e:?}");
        let e = errors("reduction (T, a : scalar) -> f(a) = a");
        assert!(e.iter().any(|m| m.contains("`T` does not appear")), "{e:?}");
        let e = errors("reduction (y, x) -> (y[0] := x) = y");
        assert!(e.iter().any(|m| m.contains("an assignment to something other")), "{e:?}");
        let e = errors("reduction (x) -> (z := x) = x");
        assert!(e.iter().any(|m| m.contains("not `z`")), "{e:?}");
        let e =
            errors("reduction (A, B) -> f(A, B) = g(A, B)\nreduction (A, B) -> g(A, B) = f(A, B)");
        assert!(e.iter().any(|m| m.contains("rewrite into each other")), "{e:?}");
    }

    #[test]
    fn variadic_type_parameter_field_and_assignment_patterns() {
        let src = "reduction (a : scalar, ...r : vec) -> sum_of(a, r) = a + max(...r)
type pt[T] : class
    x : T
endtype
reduction (T, p : pt[T], q : pt[T]) -> p + q = pt[T](x := p.x + q.x)
reduction (p : pt[scalar]) -> p.twice = 2 * p.x
reduction (p : pt[scalar], v : scalar) -> (p.twice = v) = (p = pt[scalar](x := v / 2))
function [a, b, c] = f(t : scalar)
    a = sum_of(t, 1.0, 2.0)
    q = pt[scalar](x := t) + pt[scalar](x := 1.0)
    q.twice = 8.0
    b = q.twice
    c = q.x
endfunction";
        let b = body(src, "f");
        assert!(!b.contains("sum_of") && !b.contains("twice"), "{b}");
    }

    #[test]
    fn a_symbolic_argmin_rewritten_through_an_equation() {
        let src = "reduction (x : scalar, a : scalar) -> diff((x - a)^2, x) = 2*(x - a)
reduction (x : scalar, a : scalar, c : scalar) -> solve(c*(x - a) = 0, x) = a
reduction (f, x : scalar) -> argmin(f, x) = solve(diff(f, x) = 0, x)
function y = best(t : scalar)
    symbolic x : scalar
    y = argmin((x - t)^2, x)
endfunction";
        let b = body(src, "best");
        assert!(!b.contains("argmin") && !b.contains("solve") && !b.contains("diff"), "{b}");
    }

    #[test]
    fn a_symbolic_operation_no_reduction_rewrites_is_named() {
        let e = errors(
            "reduction (x : scalar, a : scalar) -> diff(a, x) = 0
reduction (f, x : scalar) -> argmin(f, x) = solve(diff(f, x) = 0, x)
symbolic x : scalar
print argmin((x-2)^2, x)",
        );
        let want = "symbolic operation failed: no reduction applies to `solve(diff(f, x) = 0, x)`";
        assert!(e.iter().any(|m| m.contains(want)), "{e:?}");
        let e = errors("reduction (x : scalar) -> twice(x) = 2 * x\ny = twice(\"a\")");
        assert!(e.iter().any(|m| m.contains("no reduction applies to `twice(\"a\")`")), "{e:?}");
    }

    #[test]
    fn a_replacement_lambda_captures_the_reductions_variables() {
        let src = "reduction (a : scalar) -> scaler(a) = (y -> a * y)
function z = f(t : scalar, u : scalar)
    g = scaler(t + 1)
    z = g(u)
endfunction";
        let b = body(src, "f");
        assert!(!b.contains("scaler"), "{b}");
    }

    #[test]
    fn a_replacement_lambdas_parameter_may_be_listed_with_the_variables() {
        let src = "reduction (f1 : [?? -> ??], f2 : [?? -> ??], x) -> f1 + f2 = x -> f1(x) + f2(x)
function y = f(t : scalar)
    f1 = x -> x * 2
    f2 = x -> x / 2
    f3 = f1 + f2
    y = f3(t)
endfunction";
        body(src, "f");
        let e = errors("reduction (a, x) -> twice(a) = 2 * a");
        assert!(e.iter().any(|m| m.contains("`x` does not appear")), "{e:?}");
    }

    #[test]
    fn rewriting_in_a_cycle_through_types_is_stopped() {
        let e = errors(
            "reduction (x : scalar) -> f(x) = g(x)\nreduction (x : scalar) -> g(x) = f(x)\ny = f(1.0)",
        );
        assert!(e.iter().any(|m| m.contains("keep rewriting")), "{e:?}");
    }

    #[test]
    fn the_manual_fused_multiply_add_checks_its_sizes_at_run_time() {
        let src = "function y = fmad(a : cube, b : cube, c : scalar)
    y = a + b * c
endfunction
reduction (a : cube, b : cube, c : scalar) -> a + b*c = fmad(a, b, c) _
  where size(a) == size(b)
function y = f(p : cube, q : cube)
    y = p + q * 2.0
endfunction";
        let b = body(src, "f");
        assert!(b.contains("fmad") && b.contains("?"), "{b}");
    }
}
