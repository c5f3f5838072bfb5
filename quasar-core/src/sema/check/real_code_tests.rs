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

#[test]
fn overloads_prefer_the_exact_match() {
    // §4.9.2 rule 2: the `vec` definition is exact for a vector, though `mat` accepts it too
    // (and comes first); an int picks the `int` definition over the `scalar` one.
    let src = "function y = kind(x : mat)\n    y = 2\nendfunction\n\
               function y = kind(x : vec)\n    y = 1\nendfunction\n\
               function y = num(x : scalar)\n    y = 2.5\nendfunction\n\
               function y = num(x : int)\n    y = 1\nendfunction\n\
               a = kind([1.0, 2.0])\nb = kind(zeros(2, 2))\nc = num(3)\nd = num(3.5)\n";
    let c = checked(src);
    assert!(!c.has_errors(), "{:?}", c.diagnostics);
    let script = c.module.function(c.module.script.expect("a script"));
    let callee = |var: &str| -> String {
        let id = script.locals.iter().position(|l| l.name == var).expect("the variable");
        script
            .body
            .iter()
            .find_map(|s| match &s.kind {
                ir::StmtKind::Assign { place, value, .. }
                    if matches!(place.kind, ir::PlaceKind::Local(l) if l.0 as usize == id) =>
                {
                    Some(match &value.kind {
                        ir::ExprKind::Call { callee: ir::Callee::Function(f), .. } => {
                            let f = c.module.function(*f);
                            f.locals[f.params[0].0 as usize].ty.to_string()
                        }
                        other => format!("{other:?}"),
                    })
                }
                _ => None,
            })
            .expect("an assignment")
    };
    assert!(callee("a").starts_with("vec"), "{}", callee("a"));
    assert!(callee("b").starts_with("mat"), "{}", callee("b"));
    assert_eq!(callee("c"), "int");
    assert_eq!(callee("d"), "scalar");
}

#[test]
fn type_predicates_keep_only_the_branch_taken() {
    // `x[0, 0]` is an error for a number and `x + 1.0` fine for both: the instance for a
    // scalar checks only the first branch, the one for a matrix only the second.
    let src = "function y = first(x)\n    if isscalar(x)\n        y = x + 1.0\n    \
               elseif ismatrix(x)\n        y = x[0, 0] * 2.0\n    else\n        y = -1.0\n    \
               endif\nendfunction\na = first(2.5)\nb = first(ones(2, 2))\n\
               c = type(a, \"scalar\")\n";
    assert_eq!(messages(src, false), Vec::<String>::new());
    assert_eq!(var(src, "a"), "scalar");
    assert_eq!(var(src, "b"), "scalar");
    // Undecided (`??`): both branches are checked, and an error in either is reported.
    let src = "function y = g(x)\n    if isscalar(x)\n        y = x\n    else\n        \
               y = undefined_thing(x)\n    endif\nendfunction\nz = g(3)\n";
    assert_eq!(messages(src, false), Vec::<String>::new());
    let src = "x = load(\"a.dat\")\nif isscalar(x)\n    y = undefined_thing(x)\nendif\n";
    assert_eq!(messages(src, false), ["3:9: undefined function `undefined_thing`"]);
}

#[test]
fn arrays_of_higher_rank_fit_when_their_extra_dimensions_are_one() {
    let defs = "function y = f(x : mat)\n    y = x[0, 0]\nendfunction\n\
                function y = g(x : vec)\n    y = x[0]\nendfunction\n";
    // Unknown sizes and trailing 1s are accepted (checked at run time).
    let ok = format!("{defs}a = f(zeros(2, 3, 1))\nb = g(zeros(3, 1))\nc = g(zeros(1, 4))\nd = f(ones(2, 2, 1))\n");
    assert_eq!(messages(&ok, false), Vec::<String>::new());
    // Known sizes that cannot fit are an error.
    let bad = format!("{defs}a = f(zeros(2, 3, 3))\nb = g(zeros(2, 2))\n");
    assert_eq!(
        messages(&bad, false),
        [
            "7:5: type mismatch: argument `x` of `f` is declared as mat, but the value is cube(2, 3, 3)",
            "8:5: type mismatch: argument `x` of `g` is declared as vec, but the value is mat(2, 2)",
        ]
    );
}

#[test]
fn scalar_vectors_fit_integer_vectors() {
    let src = "h = ones(5, 4)\nc : ivec2 = ceil(size(h) / 2) - 1\n\
               function [] = __kernel__ k(y : mat, d : ivec2, pos : ivec2)\n    y[pos] = d[0]\nendfunction\n\
               y = zeros(2, 2)\nparallel_do(size(y), y, [1.0, 2.0], k)\n";
    assert_eq!(messages(src, false), Vec::<String>::new());
    assert_eq!(var(src, "c"), "ivec2");
}

#[test]
fn older_built_in_forms() {
    let src = "tic()\nx = ones(4, 5, 3)\nt = toc(\"\")\ns = size(x, [0..1])\nb = max_block_size([16, 32, 1])\n";
    assert_eq!(messages(src, false), Vec::<String>::new());
    assert_eq!(var(src, "t"), "scalar");
    assert_eq!(var(src, "s"), "ivec2");
    assert_eq!(var(src, "b"), "ivec3");
}
