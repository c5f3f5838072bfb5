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
    let src = "v = [1.0, 2.0, 3.0]\na = v[0, 2]\nc = v[0, 0..1]\n";
    assert_eq!(var(src, "a"), "scalar");
    assert_eq!(var(src, "c"), "vec2");
    // In a kernel a position vector addresses the row: `v[pos]` with `pos : ivec2`.
    let src = "function [] = __kernel__ k(v : vec, y : mat, pos : ivec2)\n    y[pos] = v[pos]\n\
               endfunction\ny = zeros(1, 3)\nparallel_do(size(y), [1.0, 2.0, 3.0], y, k)\n";
    assert_eq!(messages(src, false), Vec::<String>::new());
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

#[test]
fn masks_and_index_vectors_select_elements_on_the_host() {
    let src = "x = [1.0, -2.0, 3.0, -4.0]\np = x[x > 0]\nn = x[!(x > 0)]\n\
               i = [0, 2]\nq = x[i]\nr = x[[3, 1, 1]]\nm = ones(2, 3)\nk = m[m > 0]\n\
               x[x < 0] = 0.0\n";
    assert_eq!(var(src, "p"), "vec");
    assert_eq!(var(src, "n"), "vec");
    assert_eq!(var(src, "q"), "vec2");
    assert_eq!(var(src, "r"), "vec3");
    assert_eq!(var(src, "k"), "vec");
    // A position vector still addresses a matrix: `m[[1, 2]]` is one element.
    assert_eq!(var("m = ones(2, 3)\ne = m[[1, 2]]\n", "e"), "scalar");
}

#[test]
fn a_position_with_another_length_than_the_launch_is_fitted_with_a_warning() {
    let src = "function [] = __kernel__ k(y : cube, pos : ivec2)\n    y[pos[0], pos[1], 0] = 1.0\n\
               endfunction\ny = zeros(4, 4, 3)\nparallel_do(size(y), y, k)\n";
    assert_eq!(
        messages(src, true),
        ["1:38: `pos` has 2 component(s) but the launch has 3 dimension(s)"]
    );
    // Matching lengths: no warning.
    let src = "function [] = __kernel__ k(y : mat, pos : ivec2)\n    y[pos] = 1.0\nendfunction\n\
               y = zeros(4, 4)\nparallel_do(size(y), y, k)\n";
    assert_eq!(messages(src, true), Vec::<String>::new());
}

#[test]
fn a_lambda_may_assign_into_a_captured_array() {
    // Real code updates a lookup table from an event handler: `() -> lut[:] = …`.
    let src = "lut = zeros(4)\nf = () -> lut[:] = 3.0\ng = () -> lut[1] = 2.0\nf()\ng()\n";
    assert_eq!(messages(src, false), Vec::<String>::new());
}

#[test]
fn a_function_named_like_a_class_leaves_its_field_constructor() {
    // The named arguments are the class's fields, not all the function's parameters: the
    // call builds the class (it used to call the function and miss `rest`).
    let src = "type pair : mutable class\n    first : int\n    rest : int\nend\n\
               function y = pair(first : int, r : int)\n    y = pair(first := first, rest := r)\nend\n\
               q = pair(1, 2)\nf = q.rest\n";
    assert_eq!(var(src, "q"), "pair");
    assert_eq!(var(src, "f"), "int");
}

/// The parameter types of `main` instantiated for a command line with `given` arguments, or
/// the errors.
fn main_for(src: &str, given: &[super::Type]) -> Result<Vec<String>, Vec<String>> {
    let parsed = parse(src, FileId(0));
    let c = super::check_program_main(&parsed.program, &[], &[], Some(given));
    let errors: Vec<String> = c
        .diagnostics
        .iter()
        .filter(|d| d.is_error())
        .map(|d| format!("{}:{}: {}", d.span.line, d.span.col, d.message))
        .collect();
    if !errors.is_empty() {
        return Err(errors);
    }
    let Some(main) = c.module.main else { return Ok(Vec::new()) };
    let f = c.module.function(main);
    Ok(f.params.iter().map(|p| f.local(*p).ty.to_string()).collect())
}

#[test]
fn main_is_instantiated_for_the_command_line() {
    use super::Type;
    let (s, t) = (Type::SCALAR, Type::String);
    // Untyped parameters take the arguments' types; a declared type wins; a parameter left
    // out computes its default inside `main`.
    let src = "function [] = main(a, n : int, b = 4.0)\n    print a, n + b\nendfunction\n";
    assert_eq!(main_for(src, &[t.clone(), s.clone()]), Ok(vec!["string".into(), "int".into()]));
    assert_eq!(main_for(src, &[s.clone(), s.clone(), s.clone()]).unwrap().len(), 3);
    // The variadic parameter takes the rest as a vector (of scalars when none is given).
    let src = "function [] = main(a : string, ...rest)\n    print a, numel(rest)\nendfunction\n";
    assert_eq!(main_for(src, &[t.clone(), s.clone(), s.clone()]).unwrap()[1], "vec");
    assert_eq!(main_for(src, std::slice::from_ref(&t)).unwrap()[1], "vec");
    // Also after a parameter with a default value that is left out.
    let src =
        "function [] = main(a, b = 1.0, ...rest)\n    print a + b, numel(rest)\nendfunction\n";
    assert_eq!(main_for(src, std::slice::from_ref(&s)), Ok(vec!["scalar".into(), "vec".into()]));
    // Too few or too many arguments, or none to take them: errors (manual §13.1).
    let src = "function [] = main(a : scalar, b : scalar = 1)\n    print a + b\nendfunction\n";
    let few = main_for(src, &[]).unwrap_err();
    assert_eq!(
        few,
        ["1:15: `main(a, b)` cannot be called with the 0 argument(s) of the command line"]
    );
    assert!(main_for(src, &[s.clone(), s.clone(), s.clone()]).is_err());
    let none = main_for("print 1\n", std::slice::from_ref(&s)).unwrap_err();
    assert!(none[0].contains("no `main` function to take them"), "{none:?}");
    // Without arguments a `main` without parameters is the module's `main`, as before.
    assert_eq!(main_for("function [] = main()\n    print 1\nendfunction\n", &[]), Ok(vec![]));
}
