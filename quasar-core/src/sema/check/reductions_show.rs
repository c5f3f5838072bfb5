//! `#pragma show_reductions on|off` (manual §17.3: "enables/disables messages when reductions
//! are applied"): from an `on` line to the next `off` line of the same file, in the order of
//! the text, each reduction applied is reported as a note at the expression it rewrote, with
//! the rule (`applied reduction `transpose(transpose(x)) = x` to `transpose(transpose(a))``),
//! as the manual's listing of the reductions applied to an expression shows them. A reduction
//! applied through a `where` clause tested at run time says so. Each site and rule is reported
//! once, however often the function around it is instantiated (the checker drops repeated
//! diagnostics).

use super::scope::FnLowerer;
use crate::diagnostics::Diagnostic;
use crate::span::{FileId, Span};
use crate::syntax::ast::{self, Expr, Stmt, StmtKind};
use crate::syntax::printer::print_expr;

/// Where the program switches the messages on or off: the file, the offset of the pragma and
/// whether it switches them on, in the order of the text.
pub(super) type Switches = Vec<(FileId, u32, bool)>;

/// The words of a pragma line (`pragma show_reductions on`, `pragma show_reductions (off)`).
fn words(text: &str) -> Vec<&str> {
    text.split(|c: char| c.is_whitespace() || matches!(c, '(' | ')' | '='))
        .filter(|w| !w.is_empty())
        .collect()
}

/// The `#pragma show_reductions` lines of `body` and of the functions it defines, checked:
/// one whose value is not `on` or `off` is an error.
pub(super) fn switches(body: &[Stmt], diags: &mut Vec<Diagnostic>) -> Switches {
    fn walk(body: &[Stmt], out: &mut Switches, diags: &mut Vec<Diagnostic>) {
        for stmt in body {
            let inner: Vec<&[Stmt]> = match &stmt.kind {
                StmtKind::Pragma(text) => {
                    let w = words(text);
                    let [pragma, name, rest @ ..] = w.as_slice() else { continue };
                    if *pragma != "pragma" || !name.eq_ignore_ascii_case("show_reductions") {
                        continue;
                    }
                    match rest.iter().map(|w| w.to_ascii_lowercase()).collect::<Vec<_>>().as_slice()
                    {
                        [v] if v == "on" => out.push((stmt.span.file, stmt.span.start, true)),
                        [v] if v == "off" => out.push((stmt.span.file, stmt.span.start, false)),
                        _ => diags.push(
                            Diagnostic::error(
                                stmt.span,
                                format!("`#{text}`: `show_reductions` is switched `on` or `off`"),
                            )
                            .with_note("manual §17.3: `#pragma show_reductions (on off)`"),
                        ),
                    }
                    continue;
                }
                StmtKind::Function(f) => vec![f.body.as_slice()],
                StmtKind::If { branches, else_body } => {
                    let mut v: Vec<&[Stmt]> = branches.iter().map(|(_, b)| b.as_slice()).collect();
                    v.extend(else_body.as_deref());
                    v
                }
                StmtKind::For { body, .. }
                | StmtKind::While { body, .. }
                | StmtKind::Repeat { body, .. } => vec![body.as_slice()],
                StmtKind::Try { body, catch_body, .. } => {
                    vec![body.as_slice(), catch_body.as_slice()]
                }
                StmtKind::Match { arms, .. } => arms.iter().map(|a| a.body.as_slice()).collect(),
                _ => continue,
            };
            for b in inner {
                walk(b, out, diags);
            }
        }
    }
    let mut out = Switches::new();
    walk(body, &mut out, diags);
    out.sort_by_key(|(file, start, _)| (*file, *start));
    out
}

/// Whether messages are on at `site`: the last switch before it in its file says.
fn shown_at(switches: &Switches, site: Span) -> bool {
    switches
        .iter()
        .rev()
        .find(|(file, start, _)| *file == site.file && *start <= site.start)
        .is_some_and(|(_, _, on)| *on)
}

impl<'c, 'a> FnLowerer<'c, 'a> {
    /// Records that `def` rewrote the expression at `site` (for `reductions_overlap.rs`), and
    /// reports it (`written`, where there is one to print) when the program asked for it;
    /// `at_run_time`: through a `where` clause tested when the program runs.
    pub(super) fn record_applied(
        &mut self,
        site: Span,
        written: Option<&Expr>,
        def: &'a ast::Reduction,
        at_run_time: bool,
    ) {
        self.applied_log.push((site, def));
        if !shown_at(&self.cx.show_reductions, site) {
            return;
        }
        let rule = format!("{} = {}", print_expr(&def.pattern), print_expr(&def.replacement));
        let to = written.map(|e| format!(" to `{}`", print_expr(e))).unwrap_or_default();
        let mut d = Diagnostic::note(site, format!("applied reduction `{rule}`{to}"))
            .with_secondary(def.span, "the reduction");
        if at_run_time {
            d = d.with_note("its `where` clause is tested when the program runs; the expression as written is the alternative (manual §4.9.4)");
        }
        self.report(d);
    }
}

#[cfg(test)]
mod tests {
    use crate::diagnostics::Severity;
    use crate::span::FileId;
    use crate::syntax::parse;

    /// The notes and errors of checking `src`, as `line:col: message`.
    fn reported(src: &str) -> Vec<String> {
        let parsed = parse(src, FileId(0));
        assert!(!parsed.has_errors(), "syntax errors: {:?}", parsed.diagnostics);
        let c = super::super::check_program(&parsed.program);
        c.diagnostics
            .iter()
            .filter(|d| d.severity != Severity::Warning)
            .map(|d| format!("{}:{}: {}", d.span.line, d.span.col, d.message))
            .collect()
    }

    #[test]
    fn applied_reductions_are_noted_between_on_and_off() {
        let src = "reduction (x : mat) -> transpose(transpose(x)) = x
function y = f(a : mat)
    y = transpose(transpose(a))
endfunction
#pragma show_reductions on
function y = g(a : mat)
    y = transpose(transpose(a)) + 1
endfunction
#pragma show_reductions off
function y = h(a : mat)
    y = transpose(transpose(a))
endfunction
print f(eye(2)), g(eye(2)), g(eye(3)), h(eye(2))";
        let r = reported(src);
        assert_eq!(
            r,
            ["7:9: applied reduction `transpose(transpose(x)) = x` to `transpose(transpose(a))`"],
            "once for g (instantiated twice), not for f or h"
        );
    }

    #[test]
    fn run_time_where_clauses_and_sums_are_noted() {
        let src = "#pragma show_reductions (on)
reduction (x : scalar) -> abs(x) = x where x >= 0
reduction (x, ...lambda, ...f) -> sum([lambda*f(x).^2]) = total(lambda)
function y = total(w : vec)
    y = sum(w)
endfunction
function [a, b] = f(t : scalar, v : vec)
    a = abs(t)
    b = 2.0*(v.^2) + 3.0*((2*v).^2)
endfunction
[p, q] = f(1.0, [1.0, 2.0])";
        let r = reported(src);
        assert!(r.iter().any(|m| m.starts_with("8:9: applied reduction `abs(x) = x`")), "{r:?}");
        let sum = "9:9: applied reduction `sum([";
        assert!(r.iter().any(|m| m.starts_with(sum) && m.contains("= total(lambda)`")), "{r:?}");
    }

    #[test]
    fn a_switch_that_is_neither_on_nor_off_is_an_error() {
        let r = reported("#pragma show_reductions maybe\nx = 1");
        assert!(r.iter().any(|m| m.contains("is switched `on` or `off`")), "{r:?}");
    }
}
