//! Tests of type inference and its diagnostics, one small program per rule.

use super::check_program;
use crate::ir::{self, dump};
use crate::span::FileId;
use crate::syntax::parse;

/// `src` checked (it must parse).
pub(super) fn checked(src: &str) -> super::Checked {
    let parsed = parse(src, FileId(0));
    assert!(!parsed.has_errors(), "syntax errors in {src:?}: {:?}", parsed.diagnostics);
    check_program(&parsed.program)
}

/// Checks `src` and returns `name : type` for every variable of the script.
pub(super) fn script_vars(src: &str) -> Vec<String> {
    let c = checked(src);
    let errors: Vec<&str> =
        c.diagnostics.iter().filter(|d| d.is_error()).map(|d| d.message.as_str()).collect();
    assert!(errors.is_empty(), "errors in {src:?}: {errors:?}");
    let script = c.module.function(c.module.script.expect("a script"));
    script
        .locals
        .iter()
        .filter(|l| l.role == ir::LocalRole::Var)
        .map(|l| format!("{} : {}", l.name, l.ty))
        .collect()
}

fn var(src: &str, name: &str) -> String {
    let vars = script_vars(src);
    let prefix = format!("{name} : ");
    vars.iter()
        .find_map(|v| v.strip_prefix(&prefix).map(str::to_string))
        .unwrap_or_else(|| panic!("no variable `{name}` in {vars:?}"))
}

/// The instances' signatures of `src`, which has no errors.
pub(super) fn signatures(src: &str) -> String {
    let c = checked(src);
    let errors: Vec<&str> =
        c.diagnostics.iter().filter(|d| d.is_error()).map(|d| d.message.as_str()).collect();
    assert!(errors.is_empty(), "errors in {src:?}: {errors:?}");
    dump::signatures(&c.module)
}

/// The messages of the errors (and, with `warnings`, the warnings) of `src`.
pub(super) fn messages(src: &str, warnings: bool) -> Vec<String> {
    checked(src)
        .diagnostics
        .iter()
        .filter(|d| warnings || d.is_error())
        .map(|d| format!("{}:{}: {}", d.span.line, d.span.col, d.message))
        .collect()
}

pub(super) fn errors(src: &str) -> Vec<String> {
    messages(src, false)
}

#[test]
fn literal_rules() {
    assert_eq!(var("a = 1", "a"), "int");
    assert_eq!(var("a = 1.0", "a"), "scalar");
    assert_eq!(var("a = 2j", "a"), "cscalar");
    assert_eq!(var("a = \"s\"", "a"), "string");
    assert_eq!(var("a = [1, 2, 3]", "a"), "ivec3");
    assert_eq!(var("a = [1, 2.5, 3]", "a"), "vec3");
    assert_eq!(var("a = [[1, 2], [3, 4]]", "a"), "imat(2, 2)");
    assert_eq!(var("a = 7 / 2", "a"), "scalar");
    assert_eq!(var("a = 7 * 2", "a"), "int");
    assert_eq!(var("a = 0..9", "a"), "ivec10");
    assert_eq!(var("a = 0..2..6", "a"), "ivec4");
    assert_eq!(var("a = {\"x\", 1.0}", "a"), "{string, scalar}");
    assert_eq!(var("a = 1 < 2", "a"), "int");
}

#[test]
fn operators_and_broadcasting() {
    assert_eq!(var("x = ones(4, 4)\ny = 2 * x + 1", "y"), "mat(4, 4)");
    assert_eq!(var("x = [1, 2, 3]\ny = x .* 2.5", "y"), "vec3");
    assert_eq!(var("A = eye(3)\nv = [1.0, 2.0, 3.0]\ny = A * v", "y"), "vec3");
    assert_eq!(var("x = zeros(3, 4)\ny = x > 0", "y"), "imat(3, 4)");
    assert_eq!(errors("y = [1, 2, 3] * eye(4)"), ["1:5: `*` cannot combine ivec3 and mat(4, 4)"]);
    assert_eq!(
        errors("y = [1, 2] + [1, 2, 3]"),
        ["1:5: `+` cannot combine ivec2 and ivec3: the sizes differ"]
    );
    assert_eq!(errors("y = \"a\" * 2"), ["1:5: `*` cannot combine string and int"]);
}

#[test]
fn indexing_and_slicing() {
    let prelude = "A = zeros(4, 5)\nim = zeros(8, 8, 3)\npos = [1, 2]\n";
    assert_eq!(var(&format!("{prelude}c = A[:, 1]"), "c"), "vec4");
    assert_eq!(var(&format!("{prelude}r = A[0, :]"), "r"), "vec5");
    assert_eq!(var(&format!("{prelude}e = A[pos]"), "e"), "scalar");
    assert_eq!(var(&format!("{prelude}e = A[1, 2]"), "e"), "scalar");
    assert_eq!(var(&format!("{prelude}p = im[1, 2, 0..2]"), "p"), "vec3");
    assert_eq!(var(&format!("{prelude}p = im[1, 2, :]"), "p"), "vec3");
    assert_eq!(var(&format!("{prelude}p = im[...pos, 0]"), "p"), "scalar");
    assert_eq!(var(&format!("{prelude}s = A[0..1, 0..2]"), "s"), "mat(2, 3)");
    assert_eq!(
        errors("A = zeros(4, 5)\nb = A[1, 2, 3, 4]"),
        ["2:5: too many indices: a value of type mat(4, 5) has 2 dimension(s), 4 are given"]
    );
    assert_eq!(
        errors("A = zeros(4)\nb = A[\"x\"]"),
        ["2:7: an index must be an integer, found string"]
    );
}

#[test]
fn functions_are_instantiated_per_argument_types() {
    let src = "function y = twice(x)\n    y = 2 * x\nendfunction\na = twice(3)\nb = twice(1.5)\nc = twice([1.0, 2.0])";
    assert_eq!(var(src, "a"), "int");
    assert_eq!(var(src, "b"), "scalar");
    assert_eq!(var(src, "c"), "vec2");
    let sigs = signatures(src);
    assert!(sigs.contains("twice(x : int) -> (y : int)"), "{sigs}");
    assert!(sigs.contains("twice(x : scalar) -> (y : scalar)"), "{sigs}");
}

#[test]
fn multiple_returns_optional_and_variadic_parameters() {
    let src = "function [s, p] = both(a, b : scalar = 2.0)\n    s = a + b\n    p = a * b\nendfunction\n[u, v] = both(3)\nw = both(1.0, 4.0)";
    assert_eq!(var(src, "u"), "scalar");
    assert_eq!(var(src, "v"), "scalar");
    let src = "function n = count(...args)\n    n = numel(args)\nendfunction\nk = count(1, 2, 3)";
    assert_eq!(var(src, "k"), "int");
    assert_eq!(
        errors("function y = f(a, b)\n    y = a\nendfunction\nz = f(1)"),
        ["4:5: missing argument `b` of `f`"]
    );
}

#[test]
fn declared_parameter_types_are_checked() {
    let src =
        "function y = scale(x : mat, a : scalar)\n    y = x * a\nendfunction\nz = scale(\"no\", 2)";
    assert_eq!(
        errors(src),
        ["4:5: type mismatch: argument `x` of `scale` is declared as mat, but the value is string"]
    );
    assert_eq!(var("function y = scale(x : mat, a : scalar)\n    y = x * a\nendfunction\nz = scale(eye(2), 2)", "z"), "mat(2, 2)");
}

#[test]
fn generic_functions_and_explicit_type_arguments() {
    let src = "function y = first[T](v : vec[T])\n    y = v[0]\nendfunction\na = first([1, 2])\nb = first[scalar]([1.5, 2.0])";
    assert_eq!(var(src, "a"), "int");
    assert_eq!(var(src, "b"), "scalar");
    let src =
        "function y = total[N](v : vec(N))\n    y = N\nendfunction\nn = total([1.0, 2.0, 3.0])";
    assert_eq!(var(src, "n"), "int");
}

#[test]
fn kernels_and_parallel_do() {
    let src = "function [] = __kernel__ k(x : mat, y : mat, g : scalar, pos : ivec2, blkpos : ivec2)\n    y[pos] = x[pos] ^ g\nendfunction\nx = ones(4, 4)\ny = zeros(size(x))\nparallel_do(size(y), x, y, 0.5, k)";
    let sigs = signatures(src);
    assert!(
        sigs.contains(
            "__kernel__ k(x : mat(4, 4), y : mat, g : scalar, pos : ivec2, blkpos : ivec2) -> ()"
        ),
        "{sigs}"
    );
    // A kernel lambda with an untyped position takes the dimensionality of the launch.
    let src = "y = zeros(10)\nparallel_do(numel(y), __kernel__ (pos) -> y[pos] = pos)";
    let sigs = signatures(src);
    assert!(sigs.contains("(pos : int) -> ()") || sigs.contains("pos : int"), "{sigs}");
    // Kernel outputs are reduced and returned by parallel_do.
    let src = "function [s : scalar] = __kernel__ total(a : vec, pos : int)\n    s += a[pos]\nendfunction\nt = parallel_do(4, [1.0, 2.0, 3.0, 4.0], total)";
    assert_eq!(var(src, "t"), "scalar");
}

#[test]
fn kernel_rules_are_enforced() {
    let kernel = "function [] = __kernel__ k(y : vec, pos : int)\n    y[pos] = 1.0\nendfunction\n";
    assert_eq!(
        errors(&format!("{kernel}k(zeros(4), 0)")),
        ["4:1: `k` is a `__kernel__` function and cannot be called directly"]
    );
    assert_eq!(
        errors(&format!("{kernel}parallel_do(4, k)")),
        ["4:1: the kernel takes 1 argument(s) but `parallel_do` passes 0"]
    );
    let host_call = "function y = host(x)\n    y = x\nendfunction\nfunction [] = __kernel__ k(y : vec, pos : int)\n    y[pos] = host(1.0)\nendfunction\nparallel_do(4, zeros(4), k)";
    let errs = errors(host_call);
    assert!(
        errs.iter().any(
            |e| e.contains("cannot call the host function `host` from a `__kernel__` function")
        ),
        "{errs:?}"
    );
    let untyped = "function [] = __kernel__ k(y, pos : int)\n    y[pos] = 1.0\nendfunction\nd = load(\"f.dat\")\nparallel_do(4, d, k)";
    let errs = errors(untyped);
    assert!(
        errs.iter().any(|e| e.contains("the type of kernel parameter `y` cannot be inferred")),
        "{errs:?}"
    );
    let write_const = "function [] = __kernel__ k(y : vec'const, pos : int)\n    y[pos] = 1.0\nendfunction\nparallel_do(4, zeros(4), k)";
    let errs = errors(write_const);
    assert!(errs.iter().any(|e| e.contains("cannot write into a `'const` array")), "{errs:?}");
    assert_eq!(
        errors("s = shared(4)"),
        ["1:5: `shared` can only be used in `__kernel__` and `__device__` functions"]
    );
    // Table 14.1 does not mark `herm_transpose` `(*)`: host only.
    let herm = "function [] = __kernel__ k(y : cmat, pos : ivec2)\n    y[pos] = herm_transpose(y[pos])\nendfunction\nparallel_do([2, 2], czeros(2, 2), k)";
    assert_eq!(errors(herm), ["2:14: `herm_transpose` cannot be used in a `__kernel__` function"]);
}

#[test]
fn device_functions_and_lambdas() {
    let src = "lerp = __device__ (a : scalar, b : scalar, d : scalar) -> a + (b - a) * d\nfunction [] = __kernel__ k(y : vec, pos : int)\n    y[pos] = lerp(0.0, 1.0, 0.5)\nendfunction\nparallel_do(4, zeros(4), k)";
    assert!(errors(src).is_empty(), "{:?}", errors(src));
    // The inner lambda is instantiated at the call (a closure class, `closure_class.rs`).
    assert_eq!(var("w = x -> y -> x + y\nz = w(10)(5)", "z"), "int");
    assert_eq!(var("f = (a, b) -> (s = a + b; s * 2)\nz = f(1, 2)", "z"), "int");
    assert_eq!(
        var("add : [scalar -> scalar -> scalar] = x -> y -> x + y\nz = add", "z"),
        "[(scalar) -> ([(scalar) -> (scalar)])]"
    );
}

#[test]
fn closures_capture_read_only() {
    let src = "a = 1\nfunction [] = accumulate(x : scalar)\n    a += x\nendfunction\naccumulate(4)";
    assert_eq!(errors(src), ["3:5: cannot modify `a`: captured variables are read-only"]);
    let src = "a = 1\nfunction y = get()\n    y = a\nendfunction\nb = get()";
    assert_eq!(var(src, "b"), "int");
    let src = "a = 1\nfunction [] = f(x : scalar)\n    a = a + x\nendfunction\nf(2.0)";
    let all = messages(src, true);
    assert!(
        all.iter().any(|m| m.contains("creates a local copy of the captured variable")),
        "{all:?}"
    );
}

#[test]
fn implicit_scalar_to_int_conversion_warns() {
    let src = "x = [1.5, 2.5]\na = 0\nfor n = 0..1\n    a += x[n]\nendfor";
    let all = messages(src, true);
    assert_eq!(all, ["4:10: implicit conversion from scalar to int"]);
    assert_eq!(var(src, "a"), "int");
}

#[test]
fn flow_joins_and_polymorphic_variables() {
    assert_eq!(var("if 1\n  a = 1\nelse\n  a = 2.5\nendif", "a"), "scalar");
    assert_eq!(var("a = 0.0\nv = ones(2, 2, 2)\nfor k = 0..1\n  a = a + v\nendfor", "a"), "??");
    assert_eq!(var("x = imread(\"a.png\")\nx = x[:, :, 0]", "x"), "cube");
}

#[test]
fn classes_methods_and_enums() {
    let src = "type point : class\n  x : scalar\n  y : scalar\nendtype\nfunction d = norm2(self : point)\n  d = self.x^2 + self.y^2\nendfunction\np = point(x := 1.0, y := 2.0)\nq = p.x\nn = p.norm2()";
    assert_eq!(var(src, "p"), "point");
    assert_eq!(var(src, "q"), "scalar");
    assert_eq!(var(src, "n"), "scalar");
    let errs = errors("type point : class\n  x : scalar\nendtype\np = point(x := 1.0)\nz = p.w");
    assert_eq!(errs, ["5:7: `point` has no field `w`"]);
    let src = "type color : enum\n  Red\n  Green\nendtype\nc = color.Green\nmatch c with\n| Red -> v = 1\n| _ -> v = 2\nendmatch";
    assert_eq!(var(src, "c"), "color");
    assert_eq!(var(src, "v"), "int");
    let src = "type geometry : mutable class\n  color : scalar\nendtype\ntype pt : geometry\n  x : scalar\nendtype\nfunction c = col(g : ^geometry)\n  c = g.color\nendfunction\np = pt(color := 1.0, x := 2.0)\nk = col(p)";
    assert_eq!(var(src, "k"), "scalar");
}

#[test]
fn undefined_names_and_misuse() {
    assert_eq!(errors("y = x + 1"), ["1:5: undefined name `x`"]);
    assert_eq!(errors("y = frobnicate(1)"), ["1:5: undefined function `frobnicate`"]);
    assert_eq!(errors("break"), ["1:1: `break` outside of a loop"]);
    assert_eq!(
        errors("x : int = \"s\""),
        ["1:11: type mismatch: `x` is declared as int, but this value is string"]
    );
    assert_eq!(errors("A = zeros(3)\ny = A(1)"), ["2:5: `A` is an array (vec3), not a function"]);
    assert_eq!(
        errors("function y = f(x)\nendfunction\nz = f(1)"),
        ["1:10: the output `y` is never assigned"]
    );
}

#[test]
fn builtins_type_their_results() {
    assert_eq!(var("a = zeros(2, 3)", "a"), "mat(2, 3)");
    assert_eq!(var("a = size(zeros(2, 3))", "a"), "ivec2");
    assert_eq!(var("a = sum([1, 2, 3])", "a"), "int");
    assert_eq!(var("a = sin([1, 2, 3])", "a"), "vec3");
    assert_eq!(var("a = numel(ones(4))", "a"), "int");
    assert_eq!(
        errors("a = sin(\"x\")")[0],
        "1:5: `sin` expects a number or an array of numbers, found string"
    );
}

#[test]
fn imports_make_definitions_visible() {
    let lib = parse("function y = helper(x)\n    y = x + 1\nendfunction\nfunction main()\n    print 1\nendfunction\n", FileId(1));
    let main = parse("import \"lib.q\"\nz = helper(2)\n", FileId(0));
    let c = super::check_program_with_imports(&main.program, &[("lib.q", &lib.program)]);
    assert!(c.diagnostics.is_empty(), "{:?}", c.diagnostics);
    let alone = check_program(&main.program);
    assert!(alone.diagnostics.iter().any(|d| d.message.contains("was not loaded")));
}

#[test]
fn declarations_are_checked() {
    assert_eq!(errors("x : vector = [1.0, 2.0]"), ["1:5: unknown type `vector`"]);
    let errs = errors("function y = f(x : vectr)\n    y = x\nendfunction\nz = f(1)");
    assert!(errs.iter().any(|e| e.contains("unknown type `vectr`")), "{errs:?}");
    let errs = errors("type point : geometry\n  x : scalar\nendtype\np = point(x := 1.0)");
    assert!(errs.iter().any(|e| e.contains("unknown type `geometry`")), "{errs:?}");
}

#[test]
fn class_values_are_built_whole_and_immutable_ones_kept() {
    let class = "type point : class\n  x : scalar\n  y : scalar\nendtype\n";
    assert_eq!(
        errors(&format!("{class}p = point(x := 1.0)")),
        ["5:5: missing field(s) of `point`: y"]
    );
    assert_eq!(
        errors(&format!("{class}p = point(x := 1.0, y := 2.0)\np.x = 3.0")),
        ["6:1: cannot change the field `x` of a `point` value"]
    );
    let mutable =
        "type point : mutable class\n  x : scalar\nendtype\np = point(x := 1.0)\np.x = 3.0";
    assert!(errors(mutable).is_empty());
}

#[test]
fn kernel_parameters_follow_the_rules() {
    let optional = "function [] = __kernel__ fill(y : vec, v : scalar = 1.0, pos : int)\n    y[pos] = v\nendfunction";
    assert_eq!(errors(optional), ["1:40: kernel parameter `v` cannot have a default value"]);
    let string = "function [] = __kernel__ k(s : string, y : vec, pos : int)\n    y[pos] = 1.0\nendfunction\nparallel_do(4, \"text\", zeros(4), k)";
    assert!(errors(string).iter().any(|e| e.contains("kernel parameter `s` is a string")));
    let rank = "function [] = __kernel__ k(a : mat, pos : ivec3)\n    a[pos[0], pos[1]] = pos[2]\nendfunction\nA = zeros(4, 4)\nparallel_do(size(A), A, k)";
    // A position of another length than the launch is fitted (manual §2.4.1), with a warning.
    assert!(errors(rank).is_empty(), "{:?}", errors(rank));
    assert!(messages(rank, true)
        .iter()
        .any(|e| e.contains("`pos` has 3 component(s) but the launch has 2 dimension(s)")));
    let sizes = "function [] = color[P : int](a : cube(:, :, P), b : cube(:, :, P))\nendfunction\ncolor(zeros(4, 4, 3), zeros(4, 4, 4))";
    assert!(errors(sizes)
        .iter()
        .any(|e| e.contains("`b` has size 4 in dimension 2, but its type requires 3")));
}

#[test]
fn results_of_calls() {
    let none = "function [] = f(x)\n    print x\nendfunction\ny = f(1)";
    assert_eq!(errors(none), ["4:5: this call has no result to use as a value"]);
    let two = "function [a, b] = two()\n    a = 1\n    b = 2.5\nendfunction\n";
    assert_eq!(var(&format!("{two}x = two()"), "x"), "int");
    assert_eq!(
        var(
            &format!("{two}function s = add(p, q)\n    s = p + q\nendfunction\nz = add(...two())"),
            "z"
        ),
        "scalar"
    );
    let chain: String = (0..70)
        .map(|i| format!("function y = f{i}(x)\n    y = f{}(x)\nendfunction\n", i + 1))
        .chain(std::iter::once(
            "function y = f70(x)\n    y = x\nendfunction\nr = f0(1)\n".to_string(),
        ))
        .collect();
    assert_eq!(var(&chain, "r"), "int");
    assert_eq!(var("a = [1, 2]\nb = [3, 4, 5]\nc = [...a, 4, ...b]", "c"), "ivec6");
}

#[test]
fn lambdas_bind_names_where_they_are_defined() {
    let src = "f = (a : scalar) -> y + a\nfunction r = h(y : string)\n    r = f(1.0)\nendfunction\nz = h(\"s\")";
    assert!(errors(src).iter().any(|e| e.contains("undefined name `y`")), "{:?}", errors(src));
    let typed = "sq = (x : int) -> x * x\nh = (f : [int -> int], x : int) -> f(x)\nk = h(sq, 3)";
    assert_eq!(var(typed, "k"), "int");
    let kernel = "x = ones(4, 4)\ny = zeros(4, 4)\nparallel_do(size(x), __kernel__ (pos : ivec2) -> y[pos] = x[pos])";
    let sigs = signatures(kernel);
    assert!(sigs.contains("__kernel__ <lambda@3:22>(pos : ivec2) -> ()"), "{sigs}");
}

#[test]
fn mixed_match_values_warn() {
    let src = "function s = describe(a)\n    match a with\n    | 1 -> s = \"one\"\n    | \"two\" -> s = \"two\"\n    | _ -> s = \"other\"\n    endmatch\nendfunction\nd = describe(1)";
    assert_eq!(errors(src), Vec::<String>::new());
    assert_eq!(messages(src, true), ["4:7: this string can never match a value of type int"]);
}

/// The `parallel_do(…)` calls of the script's IR.
fn launches(src: &str) -> Vec<String> {
    let c = checked(src);
    let diags: Vec<&str> = c.diagnostics.iter().map(|d| d.message.as_str()).collect();
    assert!(diags.is_empty(), "diagnostics (warnings too) in {src:?}: {diags:?}");
    let script = c.module.function(c.module.script.expect("a script"));
    let body = crate::ir::dump_body::function(&c.module, script);
    body.lines().filter_map(|l| l.find("parallel_do(").map(|i| l[i..].to_string())).collect()
}

#[test]
fn launch_forms_with_block_dimensions() {
    let one = "function [] = __kernel__ k(y : vec, pos : int, blkdim : int)\n    y[pos] = blkdim\nendfunction\ny = zeros(100)\n";
    // Two numbers for a kernel declared one-dimensional: dimensions and block (manual §9.8.2).
    let l = launches(&format!("{one}n = 100\nparallel_do([n, 32], y, k)"));
    assert!(l[0].starts_with("parallel_do(n{int}, block 32{int}, k_0"), "{l:?}");
    // The block dimensions as an extra first argument (manual §9.2.3.2).
    let l = launches(&format!("{one}parallel_do(100, 32, y, k)"));
    assert!(l[0].starts_with("parallel_do(100{int}, block 32{int}, k_0"), "{l:?}");
    // A two-dimensional kernel, or one without declared geometry: `[m, n]` is two dimensions.
    let two = "function [] = __kernel__ k(y : mat, pos : ivec2)\n    y[pos] = 1\nendfunction\ny = zeros(8, 16)\nparallel_do([8, 16], y, k)";
    assert!(!launches(two)[0].contains("block"), "{:?}", launches(two));
    let plain = "y = zeros(8, 16)\nparallel_do([8, 16], __kernel__ (pos) -> y[pos] = 1)";
    assert!(!launches(plain)[0].contains("block"), "{:?}", launches(plain));
    // A matrix of two vectors, in any dimension.
    let l = launches("function [] = __kernel__ k(y : mat, pos : ivec2)\n    y[pos] = 1\nendfunction\ny = zeros(8, 16)\nparallel_do([[8, 16], [4, 8]], y, k)");
    assert!(l[0].contains("block"), "{l:?}");
    // Block dimensions of another length are an error at them.
    let e = errors(&format!("{one}parallel_do(100, [32, 1], y, k)"));
    assert_eq!(e, ["5:18: the block dimensions of `parallel_do` have 2 component(s) but the dimensions have 1"]);
}

#[test]
fn kernel_parameters_and_immutable_vector_fields_cannot_change() {
    let e = errors(
        "type counter : mutable class\n  n : int\nendtype\nfunction [] = __kernel__ k(c : \
         counter, y : vec, pos : int)\n  c.n = pos\n  y[pos] = c.n\nendfunction\n",
    );
    assert_eq!(e, ["5:3: cannot change the field `n` of the kernel parameter `c`"], "{e:?}");
    let e = errors(
        "type ray : class\n  d : vec3\nendtype\nfunction y = f(r : ray)\n  r.d[0] = 1\n  y = \
         r.d[0]\nendfunction\n",
    );
    assert_eq!(e, ["5:3: cannot change the field `d` of a `ray` value"], "{e:?}");
    // A local copy, a device function's parameter and array elements can.
    let e = errors(
        "type counter : mutable class\n  n : int\nendtype\nfunction [] = __device__ \
         bump(c : counter)\n  c.n += 1\nendfunction\nfunction [] = __kernel__ k(c : counter, \
         a : vec[counter], pos : int)\n  q = c\n  q.n = pos\n  a[pos].n += q.n\nendfunction\n",
    );
    assert!(e.is_empty(), "{e:?}");
}
