//! Type checking of what real Quasar code writes and the original compiler accepted
//! (issue 11), one small program of our own per construct.

use super::check_program;
use crate::ir;
use crate::span::FileId;
use crate::syntax::parse;

fn checked(src: &str) -> super::Checked {
    let parsed = parse(src, FileId(0));
    assert!(!parsed.has_errors(), "syntax errors in {src:?}: {:?}", parsed.diagnostics);
    check_program(&parsed.program)
}

/// `(line:col: message)` of the errors, and with `warnings` also of the warnings.
fn messages(src: &str, warnings: bool) -> Vec<String> {
    checked(src)
        .diagnostics
        .iter()
        .filter(|d| warnings || d.is_error())
        .map(|d| format!("{}:{}: {}", d.span.line, d.span.col, d.message))
        .collect()
}

/// The type of the script variable `name` (the program must check without errors).
fn var(src: &str, name: &str) -> String {
    let c = checked(src);
    let errors: Vec<&str> =
        c.diagnostics.iter().filter(|d| d.is_error()).map(|d| d.message.as_str()).collect();
    assert!(errors.is_empty(), "errors in {src:?}: {errors:?}");
    let script = c.module.function(c.module.script.expect("a script"));
    script
        .locals
        .iter()
        .find(|l| l.role == ir::LocalRole::Var && l.name == name)
        .map(|l| l.ty.to_string())
        .unwrap_or_else(|| panic!("no variable `{name}`"))
}

#[test]
fn a_vector_indexed_as_a_matrix_is_a_row() {
    let src = "v = [1.0, 2.0, 3.0]\na = v[0, 2]\np = [0, 1]\nb = v[p]\nc = v[0, 0..1]\n";
    assert_eq!(var(src, "a"), "scalar");
    assert_eq!(var(src, "b"), "scalar");
    assert_eq!(var(src, "c"), "vec2");
    // A matrix still has two dimensions only (beyond them, only the constant 0).
    assert_eq!(
        messages("m = zeros(2, 2)\nx = m[0, 1, 1]\n", false),
        ["2:5: too many indices: a value of type mat(2, 2) has 2 dimension(s), 3 are given"]
    );
}
