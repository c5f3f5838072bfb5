//! The safety checks of reductions (manual §4.9.3), at the level the program sets with
//! `#pragma reduction_safetylevel off|safe|strict` (the manual's `COMPILER_REDUCTION_SAFETYLEVEL`
//! setting of table 17.3, whose name the pragma also accepts): `off` checks nothing, `safe`
//! (the default) warns, `strict` makes each unsafe reduction an error.
//!
//! Checked when the reductions are defined: free variables (a name in the replacement that
//! is no variable of the reduction and nothing the program defines at its top level) and
//! undefined functions (a call in the replacement of a name that is no function, type,
//! built-in, variable, or root of another reduction's pattern). Checked where a reduction is
//! applied: conflicts, two reductions of different patterns that both apply, unconditionally,
//! to the same expression and give different results (`reductions.rs` lowers the one not
//! chosen as well and compares), or whose patterns overlap, one matching inside the other's
//! written shape (`reductions_overlap.rs`), and operands defined in a non-local scope, a typed variable of
//! the applied reduction bound to a value that reads a variable captured from an enclosing
//! function (in host code: a lambda is typed once, where it is first defined, so a later
//! assignment of another type to that variable does not retype the reduction's choice).
//! Cross-references (reductions rewriting into each other) are errors at every level
//! (`reductions.rs`).

use super::reductions::{RootKey, Rule};
use super::scope::FnLowerer;
use crate::diagnostics::Diagnostic;
use crate::ir;
use crate::sema::builtins;
use crate::sema::decls::{Decls, ScopeId};
use crate::span::Span;
use crate::syntax::ast::{self, Expr, ExprKind, Stmt, StmtKind};
use crate::syntax::printer::print_expr;
use std::collections::HashSet;

/// How unsafe reductions are reported (manual §4.9.3).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SafetyLevel {
    /// No safety checks.
    Off,
    /// Warnings.
    #[default]
    Safe,
    /// Errors.
    Strict,
}

impl SafetyLevel {
    /// A diagnostic of this level's severity (`None` when checks are off).
    pub(super) fn report(self, span: Span, message: String) -> Option<Diagnostic> {
        match self {
            SafetyLevel::Off => None,
            SafetyLevel::Safe => Some(Diagnostic::warning(span, message)),
            SafetyLevel::Strict => Some(Diagnostic::error(span, message)),
        }
    }
}

/// The level set by the file's `#pragma reduction_safetylevel …` lines (the last one wins; the
/// setting is global, as in the manual's configuration file).
pub(super) fn safety_level(body: &[Stmt], diags: &mut Vec<Diagnostic>) -> SafetyLevel {
    let mut level = SafetyLevel::default();
    for stmt in body {
        let StmtKind::Pragma(text) = &stmt.kind else { continue };
        let words: Vec<&str> = text
            .split(|c: char| c.is_whitespace() || matches!(c, '(' | ')' | '='))
            .filter(|w| !w.is_empty())
            .collect();
        let [pragma, name, rest @ ..] = words.as_slice() else { continue };
        let is_setting = name.eq_ignore_ascii_case("reduction_safetylevel")
            || name.eq_ignore_ascii_case("COMPILER_REDUCTION_SAFETYLEVEL");
        if *pragma != "pragma" || !is_setting {
            continue;
        }
        level = match rest.iter().map(|w| w.to_ascii_lowercase()).collect::<Vec<_>>().as_slice() {
            [v] if v == "off" || v == "none" => SafetyLevel::Off,
            [v] if v == "safe" => SafetyLevel::Safe,
            [v] if v == "strict" => SafetyLevel::Strict,
            _ => {
                let d = Diagnostic::error(
                    stmt.span,
                    format!("`#{text}`: the reduction safety level is `off`, `safe` or `strict`"),
                )
                .with_note("manual §4.9.3 (`COMPILER_REDUCTION_SAFETYLEVEL`, table 17.3)");
                diags.push(d);
                level
            }
        };
    }
    level
}

/// The names a replacement may use besides the reduction's variables: those assigned or
/// declared `symbolic` at the top level of the program (outside functions).
pub(super) fn top_level_names(body: &[Stmt]) -> HashSet<String> {
    fn assigned(e: &Expr, out: &mut HashSet<String>) {
        match &e.kind {
            ExprKind::Ident(n) => {
                out.insert(n.clone());
            }
            ExprKind::Annotated { expr, .. } => assigned(expr, out),
            ExprKind::Matrix(items) => items.iter().for_each(|i| assigned(i, out)),
            _ => {}
        }
    }
    fn walk(body: &[Stmt], out: &mut HashSet<String>) {
        for stmt in body {
            match &stmt.kind {
                StmtKind::Expr(e) => match &e.kind {
                    ExprKind::Assign { lhs, .. } => assigned(lhs, out),
                    ExprKind::Annotated { expr, .. } => assigned(expr, out),
                    _ => {}
                },
                StmtKind::Symbolic(names) => {
                    out.extend(names.iter().map(|p| p.name.name.clone()));
                }
                StmtKind::If { branches, else_body } => {
                    branches.iter().for_each(|(_, b)| walk(b, out));
                    walk(else_body.as_deref().unwrap_or(&[]), out);
                }
                StmtKind::For { var, body, .. } => {
                    out.insert(var.name.clone());
                    walk(body, out);
                }
                StmtKind::While { body, .. } | StmtKind::Repeat { body, .. } => walk(body, out),
                StmtKind::Try { body, catch_body, .. } => {
                    walk(body, out);
                    walk(catch_body, out);
                }
                _ => {}
            }
        }
    }
    let mut out = HashSet::new();
    walk(body, &mut out);
    out
}

/// A name a replacement uses, and whether it is called.
struct Use {
    name: String,
    span: Span,
    called: bool,
}

/// The names `e` uses that it does not bind itself (lambda parameters, names it assigns).
fn uses(e: &Expr, bound: &mut Vec<String>, out: &mut Vec<Use>) {
    let visit = uses;
    let name = |n: &str, span: Span, called: bool, bound: &[String], out: &mut Vec<Use>| {
        if !bound.iter().any(|b| b == n) {
            out.push(Use { name: n.to_string(), span, called });
        }
    };
    match &e.kind {
        ExprKind::Ident(n) => name(n, e.span, false, bound, out),
        ExprKind::Call { callee, args, .. } => {
            match &callee.kind {
                ExprKind::Ident(f) => name(f, callee.span, true, bound, out),
                // `pair[T](…)`, `vec[scalar](n)`: a generic function or type, its arguments.
                ExprKind::Index { base, indices } if matches!(base.kind, ExprKind::Ident(_)) => {
                    if let ExprKind::Ident(f) = &base.kind {
                        name(f, base.span, true, bound, out);
                    }
                    indices.iter().for_each(|a| visit(&a.value, bound, out));
                }
                _ => visit(callee, bound, out),
            }
            args.iter().for_each(|a| visit(&a.value, bound, out));
        }
        ExprKind::Index { base, indices } => {
            visit(base, bound, out);
            indices.iter().for_each(|a| visit(&a.value, bound, out));
        }
        ExprKind::Field { base, .. } => visit(base, bound, out),
        ExprKind::Lambda(l) => {
            let depth = bound.len();
            bound.extend(l.params.iter().map(|p| p.name.name.clone()));
            visit(&l.body, bound, out);
            bound.truncate(depth);
        }
        ExprKind::Assign { lhs, rhs, .. } => {
            visit(rhs, bound, out);
            match &lhs.kind {
                // A name the replacement assigns is its own from there on.
                ExprKind::Ident(n) => bound.push(n.clone()),
                _ => visit(lhs, bound, out),
            }
        }
        ExprKind::Annotated { expr, .. } | ExprKind::Spread(expr) => visit(expr, bound, out),
        ExprKind::Unary { operand, .. } => visit(operand, bound, out),
        ExprKind::Binary { lhs, rhs, .. } => {
            visit(lhs, bound, out);
            visit(rhs, bound, out);
        }
        ExprKind::Ternary { cond, then, otherwise } => {
            for x in [cond, then, otherwise] {
                visit(x, bound, out);
            }
        }
        ExprKind::Range { start, step, end } => {
            visit(start, bound, out);
            if let Some(s) = step {
                visit(s, bound, out);
            }
            visit(end, bound, out);
        }
        ExprKind::Matrix(items)
        | ExprKind::Cell(items)
        | ExprKind::Paren(items)
        | ExprKind::Tuple(items) => items.iter().for_each(|i| visit(i, bound, out)),
        _ => {}
    }
}

/// Whether `name` is a type (`scalar`, `vec`, `ivec3`, a class of the program …).
fn is_type_name(decls: &Decls, name: &str) -> bool {
    decls.type_names.contains_key(name) || crate::sema::resolve_type::is_builtin_type_name(name)
}

/// Whether `name` is a function the program or the library defines (at any scope: a
/// reduction is applied wherever its pattern matches).
fn is_function(decls: &Decls, name: &str) -> bool {
    decls.lookup_function(ScopeId::Script, name).is_some()
        || decls.functions.iter().any(|f| f.def.name.name == name)
        || builtins::lookup(name).is_some()
        || matches!(name, "parallel_do" | "serial_do")
        || name.starts_with('$')
}

/// The definition-time checks (free variables, undefined functions) of every rule.
pub(super) fn check_definitions(
    rules: &[Rule],
    decls: &Decls,
    top_level: &HashSet<String>,
    level: SafetyLevel,
    diags: &mut Vec<Diagnostic>,
) {
    if level == SafetyLevel::Off {
        return;
    }
    // Names given a meaning by a reduction (`diff`, `solve` of §4.9.1).
    let reduced: HashSet<&str> = rules
        .iter()
        .filter_map(|r| match &r.root {
            RootKey::Call(f, _) => Some(f.as_str()),
            _ => None,
        })
        .collect();
    for rule in rules {
        let mut bound: Vec<String> = rule.def.params.iter().map(|p| p.name.name.clone()).collect();
        let mut found = Vec::new();
        uses(&rule.def.replacement, &mut bound, &mut found);
        let mut reported = HashSet::new();
        for u in found {
            let known = top_level.contains(&u.name) || is_type_name(decls, &u.name);
            let problem = if u.called {
                let defined =
                    known || is_function(decls, &u.name) || reduced.contains(u.name.as_str());
                (!defined).then(|| format!(
                    "the reduction's replacement calls `{}`, which is neither defined nor given a meaning by a reduction (manual §4.9.3)",
                    u.name
                ))
            } else {
                let defined =
                    known || builtins::constant(&u.name).is_some() || is_function(decls, &u.name);
                (!defined).then(|| format!(
                    "the reduction's replacement uses `{}`, which is not one of its variables (a free variable, manual §4.9.3)",
                    u.name
                ))
            };
            let Some(message) = problem else { continue };
            if !reported.insert(u.name.clone()) {
                continue;
            }
            let note = if u.called {
                "define the function, or a reduction whose pattern calls it"
            } else {
                "add it to the reduction's variables and to its pattern: `reduction (x, y) -> f(x) + y = …`; a replacement is lowered where it is applied, where the name may mean anything"
            };
            if let Some(d) = level.report(u.span, message) {
                diags.push(d.with_note(note));
            }
        }
    }
}

/// Whether two patterns have the same shape, variables at the same places (overloads by
/// type, as `herm_transpose(x : scalar)` and `herm_transpose(x : mat)`, are no conflict).
fn same_shape(a: &Expr, b: &Expr, vars_a: &[&str], vars_b: &[&str]) -> bool {
    let var = |e: &Expr, vars: &[&str]| matches!(&e.kind, ExprKind::Ident(n) if vars.contains(&n.as_str()));
    let args = |x: &[ast::Arg], y: &[ast::Arg]| {
        x.len() == y.len()
            && x.iter().zip(y).all(|(p, q)| same_shape(&p.value, &q.value, vars_a, vars_b))
    };
    if var(a, vars_a) || var(b, vars_b) {
        return var(a, vars_a) && var(b, vars_b);
    }
    match (&a.kind, &b.kind) {
        (ExprKind::Paren(x), _) if x.len() == 1 => same_shape(&x[0], b, vars_a, vars_b),
        (_, ExprKind::Paren(y)) if y.len() == 1 => same_shape(a, &y[0], vars_a, vars_b),
        (ExprKind::Call { callee: f, args: x, .. }, ExprKind::Call { callee: g, args: y, .. })
        | (ExprKind::Index { base: f, indices: x }, ExprKind::Index { base: g, indices: y }) => {
            same_shape(f, g, vars_a, vars_b) && args(x, y)
        }
        (
            ExprKind::Binary { op: o, lhs: l1, rhs: r1 },
            ExprKind::Binary { op: p, lhs: l2, rhs: r2 },
        ) => o == p && same_shape(l1, l2, vars_a, vars_b) && same_shape(r1, r2, vars_a, vars_b),
        (ExprKind::Unary { op: o, operand: x }, ExprKind::Unary { op: p, operand: y }) => {
            o == p && same_shape(x, y, vars_a, vars_b)
        }
        (ExprKind::Field { base: x, name: m }, ExprKind::Field { base: y, name: n }) => {
            m.name == n.name && same_shape(x, y, vars_a, vars_b)
        }
        (
            ExprKind::Assign { op: o, lhs: l1, rhs: r1 },
            ExprKind::Assign { op: p, lhs: l2, rhs: r2 },
        ) => o == p && same_shape(l1, l2, vars_a, vars_b) && same_shape(r1, r2, vars_a, vars_b),
        _ => a.kind == b.kind,
    }
}

/// Whether the rules `a` and `b` differ in their patterns (not only in their types).
pub(super) fn different_patterns(a: &ast::Reduction, b: &ast::Reduction) -> bool {
    let names = |r: &ast::Reduction| -> Vec<String> {
        r.params.iter().map(|p| p.name.name.clone()).collect()
    };
    let (na, nb) = (names(a), names(b));
    let va: Vec<&str> = na.iter().map(String::as_str).collect();
    let vb: Vec<&str> = nb.iter().map(String::as_str).collect();
    !same_shape(&a.pattern, &b.pattern, &va, &vb)
}

impl<'c, 'a> FnLowerer<'c, 'a> {
    /// Lowers `f` for a comparison only: what it reports, the variables it adds and whether
    /// it changed a type are forgotten afterwards.
    pub(super) fn lower_aside<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> T {
        let diags = self.diags.len();
        let (locals, captures, changed) = (self.locals.len(), self.captures.len(), self.changed);
        let (names, lambdas) = (self.names.clone(), self.lambdas.clone());
        let log = self.applied_log.len();
        self.aside += 1;
        let r = f(self);
        self.aside -= 1;
        self.applied_log.truncate(log);
        self.diags.truncate(diags);
        self.locals.truncate(locals);
        self.declared.truncate(locals);
        self.captures.truncate(captures);
        self.names = names;
        self.lambdas = lambdas;
        self.changed = changed;
        r
    }

    /// Reports a reduction conflict (manual §4.9.3) at `span`: `chosen` was applied, `other`
    /// also applies and gives another result.
    pub(super) fn report_conflict(
        &mut self,
        span: Span,
        chosen: &ast::Reduction,
        other: &ast::Reduction,
    ) {
        let message = format!(
            "reduction conflict: `{}` and `{}` both apply here and give different results (manual §4.9.3)",
            print_expr(&chosen.pattern),
            print_expr(&other.pattern),
        );
        if let Some(d) = self.cx.reduction_safety.report(span, message) {
            let d = d
                .with_secondary(chosen.span, "applied: more variables, a larger pattern or a more exact type")
                .with_secondary(other.span, "this one gives another result")
                .with_note("define a reduction that rewrites one result into the other, or restrict one with types or a `where` clause");
            self.report(d);
        }
    }
}

/// The name of a variable captured from an enclosing function that `v` reads, if any.
fn captured_read(v: &ir::Expr, locals: &[ir::Local]) -> Option<String> {
    use crate::ir::visit::{walk_expr, Visit};
    struct Find<'l>(&'l [ir::Local], Option<String>);
    impl<'b> Visit<'b> for Find<'_> {
        fn visit_expr(&mut self, e: &'b ir::Expr) {
            if let ir::ExprKind::Local(id) = e.kind {
                let local = &self.0[id.0 as usize];
                if local.role == ir::LocalRole::Capture && self.1.is_none() {
                    self.1 = Some(local.name.clone());
                }
            }
            walk_expr(self, e)
        }
    }
    let mut find = Find(locals, None);
    find.visit_expr(v);
    find.1
}

impl FnLowerer<'_, '_> {
    /// §4.9.3's third situation, for the reduction `def` being applied at `span` (its
    /// variables bound in the innermost frame): in host code, a typed variable bound to a value
    /// that reads a variable captured from an enclosing function.
    pub(super) fn check_non_local(&mut self, def: &ast::Reduction, span: Span) {
        if self.cx.reduction_safety == SafetyLevel::Off || self.in_kernel_context() {
            return;
        }
        let Some(binds) = self.reduction_frames.last() else { return };
        let found = def.params.iter().filter(|p| p.ty.is_some() && !p.variadic).find_map(|p| {
            let (_, v) = binds.iter().find(|(n, _)| *n == p.name.name)?;
            captured_read(v, &self.locals).map(|c| (p.name.name.clone(), c))
        });
        let Some((var, captured)) = found else { return };
        let message = format!(
            "the reduction `{}` is applied to a value that reads `{captured}`, a variable of the enclosing function (manual §4.9.3, operands defined in a non-local scope)",
            print_expr(&def.pattern)
        );
        if let Some(d) = self.cx.reduction_safety.report(span, message) {
            let d = d
                .with_secondary(def.span, format!("chosen for the type of `{var}` here"))
                .with_note(format!("a later assignment of another type to `{captured}` does not change this choice; pass `{captured}` as an argument instead"));
            self.report(d);
        }
    }
}

/// Whether two lowered results are the same computation (so that two reductions agree).
pub(super) fn same_result(a: &ir::Expr, b: &ir::Expr) -> bool {
    use super::reductions_match::{peel, same_value};
    same_value(peel(a), peel(b))
}

#[cfg(test)]
mod tests {
    use crate::span::FileId;
    use crate::syntax::parse;

    /// Every message (`error:` or `warning:` first) of checking `src`.
    fn messages(src: &str) -> Vec<String> {
        let parsed = parse(src, FileId(0));
        assert!(!parsed.has_errors(), "syntax errors: {:?}", parsed.diagnostics);
        let c = super::super::check_program(&parsed.program);
        c.diagnostics
            .iter()
            .map(|d| {
                let kind = if d.is_error() { "error" } else { "warning" };
                format!("{kind}: {}", d.message)
            })
            .collect()
    }

    fn strict(src: &str) -> Vec<String> {
        messages(&format!("#pragma reduction_safetylevel strict\n{src}"))
    }

    fn off(src: &str) -> Vec<String> {
        messages(&format!("#pragma COMPILER_REDUCTION_SAFETYLEVEL off\n{src}"))
    }

    fn has(msgs: &[String], prefix: &str, part: &str) -> bool {
        msgs.iter().any(|m| m.starts_with(prefix) && m.contains(part))
    }

    #[test]
    fn free_variables_warn_by_default_fail_when_strict_and_pass_when_off() {
        let src = "reduction (x : scalar) -> twice(x) = 2 * x + y";
        let m = messages(src);
        assert!(has(&m, "warning", "uses `y`, which is not one of its variables"), "{m:?}");
        assert!(!m.iter().any(|m| m.starts_with("error")), "{m:?}");
        assert!(has(&strict(src), "error", "free variable"), "{:?}", strict(src));
        assert!(off(src).is_empty(), "{:?}", off(src));
        // Bound by the reduction, a lambda, a top-level variable or a constant: no problem.
        let fine = "k = 3.0
reduction (x : scalar, y : scalar) -> twice(x, y) = 2 * x + y + k + pi
reduction (x : scalar) -> thrice(x) = ((t -> 3 * t))(x)";
        assert!(strict(fine).is_empty(), "{:?}", strict(fine));
    }

    #[test]
    fn functions_must_be_defined_or_given_a_meaning_by_reductions() {
        let src = "reduction (x) -> real(ifft2(x)) = c2r_fft(x)";
        assert!(has(&messages(src), "warning", "calls `c2r_fft`"), "{:?}", messages(src));
        assert!(has(&strict(src), "error", "neither defined"), "{:?}", strict(src));
        let fine = "function y = scaled(x : scalar)
    y = 2 * x
endfunction
halve = x -> x / 2
type pt : class
    x : scalar
endtype
reduction (x : scalar) -> f1(x) = g1(x)
reduction (x : scalar) -> g1(x) = scaled(halve(sqrt(x)))
reduction (x : scalar) -> mk(x) = pt(x := x)
reduction (x : scalar) -> ints(x) = vec[scalar](int(x))";
        assert!(strict(fine).is_empty(), "{:?}", strict(fine));
    }

    #[test]
    fn the_level_is_off_safe_or_strict() {
        let m = messages("#pragma reduction_safetylevel paranoid\nx = 1");
        assert!(has(&m, "error", "`off`, `safe` or `strict`"), "{m:?}");
        // Other pragmas are left alone.
        assert!(messages("#pragma loop_parallelizer off\nx = 1").is_empty());
    }

    const CONFLICT: &str = "function y = fused(a, b, x)
    y = (a*x - b)^2
endfunction
reduction (a : scalar, b : scalar, x : scalar) -> dist(a*x, b) = fused(a, b, x)
reduction (a : scalar, b : scalar) -> dist(a, b) = (a - b)^2
function y = f(p : scalar, q : scalar, r : scalar)
    y = dist(p*q, r)
endfunction
";

    #[test]
    fn two_patterns_that_apply_with_different_results_conflict() {
        let resolve =
            "reduction (a : scalar, b : scalar, x : scalar) -> fused(a, b, x) = (a*x - b)^2";
        let m = messages(CONFLICT);
        assert!(
            has(&m, "warning", "reduction conflict: `dist(a * x, b)` and `dist(a, b)`"),
            "{m:?}"
        );
        let m = strict(CONFLICT);
        assert!(has(&m, "error", "reduction conflict"), "{m:?}");
        // The manual's cure: a reduction that rewrites one result into the other.
        let m = strict(&format!("{CONFLICT}{resolve}"));
        assert!(m.is_empty(), "{m:?}");
        assert!(off(CONFLICT).iter().all(|m| !m.contains("conflict")));
    }

    #[test]
    fn overloads_by_type_and_conditional_rules_are_no_conflict() {
        let src = "reduction (x : scalar) -> h(x) = 1.0
reduction (x : int) -> h(x) = 2.0
reduction (x : scalar) -> r(x) = x where x >= 0
reduction (x : scalar) -> r(sin(x)) = 3.0
function [a, b, c] = f(t : scalar, k : int)
    [a, b, c] = [h(t), h(k), r(sin(t))]
endfunction";
        let m = strict(src);
        assert!(m.is_empty(), "{m:?}");
    }

    /// §4.9.3's non-local operands: the manual's example, a reduction typed for `mat`
    /// applied inside a lambda to a value that reads the enclosing function's `A`.
    #[test]
    fn operands_read_from_an_enclosing_function_are_unsafe_in_host_code() {
        let src = "function y = twice(x)
    y = 2 * x
endfunction
reduction (x : mat) -> twice(x) = x + x
function r = f(B : mat)
    A = ones(4, 4)
    g = (x : mat) -> twice(x + A)
    r = g(ones(4, 4)) + twice(B)
endfunction";
        let m = messages(src);
        assert!(has(&m, "warning", "reads `A`, a variable of the enclosing function"), "{m:?}");
        assert_eq!(m.len(), 1, "`twice(B)` reads a parameter: {m:?}");
        assert!(has(&strict(src), "error", "non-local scope"), "{:?}", strict(src));
        // A kernel reads the arrays it captures for one launch: no problem there.
        let kernel = "reduction (x : scalar) -> sq(x) = x * x
function y : vec = f(x : vec)
    y = uninit(size(x))
    parallel_do(size(x), __kernel__ (pos : int) -> y[pos] = sq(x[pos]))
endfunction";
        assert!(strict(kernel).is_empty(), "{:?}", strict(kernel));
    }
}
