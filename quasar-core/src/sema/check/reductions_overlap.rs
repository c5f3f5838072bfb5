//! Reductions whose patterns overlap (manual §4.9.2 and §4.9.3): one rule's pattern matches a
//! part of the expression that another rule's larger pattern covers, as `a*b = times(a, b)`
//! inside `a*b + c = fma3(a, b, c)` at `p*q + r`.
//!
//! The operands of an expression are reduced first (the manual's "higher depth first"), which
//! rewrites `p*q` to `times(p, q)` before the sum is matched, and `a*b + c` no longer matches.
//! The manual ranks first by the number of variables, though: when a rule (its pattern
//! deeper than its root) matches the expression as written, its written shape lining up with
//! nodes at which rules with fewer variables were applied, that rule is applied instead, to
//! the operands reduced everywhere but at those nodes. With as many variables or fewer, the
//! inner rules keep their place. Either way, when the other order gives another result, this
//! is a reduction conflict (§4.9.3), reported at the safety level the program sets. A rule
//! with a `where` clause that is not known at compile time is left out of this comparison.

use super::reductions::{root_of, truthy};
use super::reductions_safety::same_result;
use super::scope::FnLowerer;
use crate::ir;
use crate::syntax::ast::{self, Expr, ExprKind};
use std::collections::HashSet;

/// The expression a rule is being applied to.
pub(super) struct Site<'s, 'a> {
    pub e: &'a Expr,
    /// Its operands, as `root_of` gives them.
    pub operands: &'s [&'a Expr],
    /// The rules whose pattern has its root.
    pub candidates: &'s [usize],
    /// Whether `=` in its operands is an equation (a symbolic operation, §4.9.1).
    pub symbolic: bool,
    /// The rule applied to it after its operands were reduced, if any.
    pub root_rule: Option<&'a ast::Reduction>,
}

/// The nodes of `e` that the parts of `pattern` other than its variables line up with (a
/// call of the same name, the same operator …), added to `out`; `false` when `e` as written
/// does not have the pattern's shape.
fn written_shape<'a>(pattern: &Expr, e: &'a Expr, vars: &[&str], out: &mut Vec<&'a Expr>) -> bool {
    match (&pattern.kind, &e.kind) {
        (ExprKind::Paren(p), _) if p.len() == 1 => written_shape(&p[0], e, vars, out),
        (ExprKind::Ident(n), _) if vars.contains(&n.as_str()) => true,
        (_, ExprKind::Paren(items)) if items.len() == 1 => {
            out.push(e);
            written_shape(pattern, &items[0], vars, out)
        }
        (ExprKind::Ident(_) | ExprKind::Number(_) | ExprKind::Str(_), _) => pattern.kind == e.kind,
        _ => {
            let (Some((pk, pops, pcolons)), Some((ek, eops, ecolons))) =
                (root_of(pattern), root_of(e))
            else {
                return false;
            };
            if pk != ek || pcolons != ecolons || pops.len() != eops.len() {
                return false;
            }
            out.push(e);
            pops.iter().zip(eops).all(|(p, o)| written_shape(p, o, vars, out))
        }
    }
}

impl<'c, 'a> FnLowerer<'c, 'a> {
    /// `result`, the expression at `site` reduced from the inside out, or the result of a
    /// rule with more variables whose pattern the inner reductions broke (see the module's
    /// comment). `log_start` and `diag_start`: the applied reductions and diagnostics before
    /// the operands were lowered.
    pub(super) fn resolve_overlaps(
        &mut self,
        site: Site<'_, 'a>,
        result: ir::Expr,
        log_start: usize,
        diag_start: usize,
    ) -> ir::Expr {
        if self.aside > 0 || self.applied_log.len() <= log_start {
            return result;
        }
        let inner: Vec<(crate::span::Span, &'a ast::Reduction)> =
            self.applied_log[log_start..].to_vec();
        for &index in site.candidates {
            let def = self.cx.rules[index].def;
            let vars: Vec<&str> = def.params.iter().map(|p| p.name.name.as_str()).collect();
            let Some((_, patterns, _)) = root_of(&def.pattern) else { continue };
            let mut shape = Vec::new();
            let fits = patterns.len() == site.operands.len()
                && patterns
                    .iter()
                    .zip(site.operands)
                    .all(|(p, o)| written_shape(p, o, &vars, &mut shape));
            if !fits || shape.is_empty() {
                continue;
            }
            // The other rules applied at nodes of this pattern's written shape.
            let broken: Vec<&'a ast::Reduction> = inner
                .iter()
                .filter(|(at, other)| {
                    !std::ptr::eq(*other, def)
                        && shape
                            .iter()
                            .any(|n| n.span.file == at.file && n.span.range() == at.range())
                })
                .map(|(_, other)| *other)
                .collect();
            let Some(strongest) = broken.iter().copied().max_by_key(|d| d.params.len()) else {
                continue;
            };
            let Some(alternative) = self.lower_aside(|l| l.apply_to_written(&site, index, &shape))
            else {
                continue;
            };
            let root_vars = site.root_rule.map_or(0, |r| r.params.len());
            if def.params.len() > strongest.params.len().max(root_vars) {
                // More variables: this rule comes first (§4.9.2); the inner rewrites and what
                // they reported are undone.
                self.diags.truncate(diag_start);
                self.applied_log.truncate(log_start);
                let Some(value) = self.apply_to_written(&site, index, &shape) else {
                    return result;
                };
                self.record_applied(site.e.span, Some(site.e), def, false);
                if !same_result(&value, &result) {
                    self.report_conflict(site.e.span, def, strongest);
                }
                return value;
            }
            if !same_result(&alternative, &result) {
                self.report_conflict(site.e.span, strongest, def);
            }
        }
        result
    }

    /// Rule number `index` applied to the expression at `site`, its operands lowered without
    /// reductions at the nodes `shape`; `None` when it does not match them, or its `where`
    /// clause does not hold at compile time.
    fn apply_to_written(
        &mut self,
        site: &Site<'_, 'a>,
        index: usize,
        shape: &[&'a Expr],
    ) -> Option<ir::Expr> {
        let shielded: HashSet<*const Expr> = shape.iter().map(|n| *n as *const Expr).collect();
        let before = std::mem::replace(&mut self.shield, shielded);
        let lowered: Vec<ir::Expr> =
            site.operands.iter().map(|o| self.lower_operand(o, site.symbolic)).collect();
        self.shield = before;
        let values: Vec<ir::Expr> = lowered.into_iter().map(|v| self.value_of(v)).collect();
        let colons = root_of(site.e).map(|(_, _, c)| c).unwrap_or_default();
        let m = self.matching_rules(&[index], &values, &colons).into_iter().next()?;
        self.reduction_sites.push(site.e.span);
        let value = self.with_match(m, |l, def| {
            let holds = match &def.condition {
                None => true,
                Some(c) => l.lower_condition(c).constant().is_some_and(truthy),
            };
            holds.then(|| {
                l.check_non_local(def, site.e.span);
                l.lower_expr(&def.replacement)
            })
        });
        self.reduction_sites.pop();
        value
    }
}

#[cfg(test)]
mod tests {
    use crate::ir::dump_body;
    use crate::span::FileId;
    use crate::syntax::parse;

    /// The body of `name` and the messages of checking `src` (which must have no errors).
    fn checked(src: &str, name: &str) -> (String, Vec<String>) {
        let parsed = parse(src, FileId(0));
        assert!(!parsed.has_errors(), "syntax errors: {:?}", parsed.diagnostics);
        let c = super::super::check_program(&parsed.program);
        let errors: Vec<&str> =
            c.diagnostics.iter().filter(|d| d.is_error()).map(|d| d.message.as_str()).collect();
        assert!(errors.is_empty(), "errors: {errors:?}");
        let f = c.module.functions.iter().find(|f| f.name == name).expect("the function");
        let messages = c.diagnostics.iter().map(|d| d.message.clone()).collect();
        (dump_body::function(&c.module, f), messages)
    }

    const RULES: &str = "function y = times(a : scalar, b : scalar)
    y = a .* b
endfunction
function y = fma3(a : scalar, b : scalar, c : scalar)
    y = a .* b + c
endfunction
reduction (a : scalar, b : scalar) -> a * b = times(a, b)
reduction (a : scalar, b : scalar, c : scalar) -> a * b + c = fma3(a, b, c)
";

    #[test]
    fn the_rule_with_more_variables_wins_over_an_inner_one() {
        let src = format!("{RULES}function y = f(p : scalar, q : scalar, r : scalar)\n    y = p * q + r\nendfunction");
        let (body, messages) = checked(&src, "f");
        assert!(body.contains("fma3") && !body.contains("times"), "{body}");
        let conflict = "reduction conflict: `a * b + c` and `a * b` both apply here";
        assert!(messages.iter().any(|m| m.starts_with(conflict)), "{messages:?}");
    }

    #[test]
    fn an_inner_rule_with_as_many_variables_keeps_its_place() {
        let src = "function y = twice(a : scalar)
    y = 2 .* a
endfunction
function y = sq(a : scalar)
    y = a .* a
endfunction
reduction (a : scalar) -> neg(a) = twice(a)
reduction (a : scalar) -> abs2(neg(a)) = sq(a)
function y = neg(a : scalar)
    y = -a
endfunction
function y = abs2(a : scalar)
    y = a .* a
endfunction
function y = f(p : scalar)
    y = abs2(neg(p))
endfunction";
        let (body, messages) = checked(src, "f");
        assert!(body.contains("twice") && !body.contains("sq"), "{body}");
        assert!(messages.iter().any(|m| m.starts_with("reduction conflict")), "{messages:?}");
    }

    #[test]
    fn no_conflict_when_a_reduction_rewrites_one_result_into_the_other() {
        let src = format!(
            "{RULES}reduction (a : scalar, b : scalar, c : scalar) -> fma3(a, b, c) = times(a, b) + c
function y = f(p : scalar, q : scalar, r : scalar)
    y = p * q + r
endfunction"
        );
        let (body, messages) = checked(&src, "f");
        assert!(body.contains("times"), "{body}");
        assert!(!messages.iter().any(|m| m.contains("conflict")), "{messages:?}");
    }
}
