//! End to end: reductions (manual §4.9), each result compared with the value computed here in
//! plain Rust. Most of these programs compile only because the reductions apply (a method
//! that the class lacks, names that are no functions, the pipeline operator). CI also runs
//! this file with every launch on the interpreted PTX device
//! (`QUASAR_SIM_GPU=ptx QUASAR_DEVICE=gpu`).

use quasar::Array;

mod r {
    quasar::quasar!(file = "tests/common/reductions.q");
}

/// Reductions checked at the strict safety level (manual §4.9.3), and symbolic
/// minimisation (§4.9.1).
mod s {
    quasar::quasar! { r#"
#pragma reduction_safetylevel strict

% RED #1 (three variables) is applied to `dist(p*q, r)`; RED #2 applies too. The reduction
% of `fused` rewrites RED #1's result into RED #2's, so they do not conflict (§4.9.3).
function y = fused(a : scalar, b : scalar, x : scalar)
    y = (a*x - b)^2
endfunction
reduction (a : scalar, b : scalar, x : scalar) -> dist(a*x, b) = fused(a, b, x)
reduction (a : scalar, b : scalar) -> dist(a, b) = (a - b)^2
reduction (a : scalar, b : scalar, x : scalar) -> fused(a, b, x) = (a*x - b)^2

% argmin through the derivative and an equation (the manual's rule of §4.9.1, with rules
% for `diff` and `solve` that cover these expressions).
reduction (x : scalar, a : scalar) -> diff((x - a)^2, x) = 2*(x - a)
reduction (x : scalar, a : scalar, c : scalar) -> solve(c*(x - a) = 0, x) = a
reduction (f, x : scalar) -> argmin(f, x) = solve(diff(f, x) = 0, x)

function [d, e, m] = strict_results(p : scalar, q : scalar, r : scalar)
    symbolic x : scalar
    d = dist(p*q, r)
    e = dist(p, r)
    m = argmin((x - p)^2, x) + argmin((x - r)^2, x)
endfunction

% A replacement that is a lambda over the reduction's variable (captured by value).
reduction (a : scalar) -> scaler(a) = ((y : scalar) -> a * y)

function z = scaled_by(t : scalar, u : scalar)
    g = scaler(t + 1)
    z = g(u)
endfunction

% The same with an untyped lambda parameter: the closure is typed where it is called.
reduction (a : scalar) -> scaler_untyped(a) = (y -> a * y + 1)

function [z, w] = scaled_untyped(t : scalar, u : scalar, v : vec)
    g = scaler_untyped(t + 1)
    z = g(u)
    w = g(v)
endfunction

% A replacement lambda whose parameter is listed with the reduction's variables (§4.9's
% function addition).
reduction (f1 : [?? -> ??], f2 : [?? -> ??], x) -> f1 + f2 = x -> f1(x) + f2(x)

function y = summed_functions(t : scalar)
    f1 = x -> x * 2
    f2 = x -> x / 2
    f3 = f1 + f2
    y = f3(t)
endfunction

function y : vec = minimisers(v : vec)
    symbolic x : scalar
    y = uninit(size(v))
    parallel_do(size(v), __kernel__ (pos : int) -> y[pos] = argmin((x - v[pos])^2, x))
endfunction
"# }
}

/// §4.9.5's second form with a sum of one term (`K` = 1).
mod v1 {
    quasar::quasar! { r#"
reduction (x, ...lambda, ...f) -> sum([lambda*f(x).^2]) = probe(x, lambda, ...f)

% What the reduction captured: the weight, and the captured function at x[0].
function v = probe(x : vec, w : vec, f1)
    a = f1(x)
    v = [w[0], a[0], numel(w)]
endfunction

function v = one_term(x : vec)
    v = 0.5*((2*x - 1).^2)
endfunction
"# }
}

/// Overlapping patterns (§4.9.2): `a * b` matches inside `a * b + c`; the rule with more
/// variables is applied first, in host code and in a kernel. `#pragma show_reductions on`
/// (§17.3) lists what was applied, as notes that do not stop compilation.
mod o {
    quasar::quasar! { r#"
#pragma reduction_safetylevel off
#pragma show_reductions on
function y = __device__ times(a : scalar, b : scalar)
    y = a .* b + 0.5
endfunction
function y = __device__ fma3(a : scalar, b : scalar, c : scalar)
    y = a .* b + c + 1000
endfunction
reduction (a : scalar, b : scalar) -> a * b = times(a, b)
reduction (a : scalar, b : scalar, c : scalar) -> a * b + c = fma3(a, b, c)

function [s, d] = overlapping(p : scalar, q : scalar, r : scalar)
    s = p * q + r
    d = p * q - r
endfunction

function [s : vec, d : vec] = overlapping_in_kernel(v : vec, q : scalar, r : scalar)
    s = uninit(size(v))
    d = uninit(size(v))
    parallel_do(size(v), __kernel__ (pos : int) -> s[pos] = v[pos] * q + r)
    parallel_do(size(v), __kernel__ (pos : int) -> d[pos] = v[pos] * q - r)
endfunction
"# }
}

/// §4.9.5's second form: a variadic reduction over a sum of a variable number of terms.
mod v {
    quasar::quasar! { r#"
reduction (x, ...lambda, ...f) -> sum([lambda*f(x).^2]) = probe(x, lambda, ...f)

% What the reduction captured: the weights, and each captured function at x[0].
function v = probe(x : vec, w : vec, f1, f2, f3)
    a = f1(x)
    b = f2(x)
    c = f3(x)
    v = [w[0], w[1], w[2], a[0], b[0], c[0]]
endfunction

% The manual's expression.
function v = captured(x : vec)
    v = 2*(x.^2) + cos(3)*((2*x).^2) + 2*((-x).^2)
endfunction

% A sum with a term of another shape (first: the sums that start it have it too) is
% computed as written.
function v = not_captured(x : vec)
    v = x + 2*(x.^2) + cos(3)*((2*x).^2)
endfunction
"# }
}

fn vecf(v: &[f32]) -> Array<f32> {
    Array::from_vec(&[v.len()], v.to_vec()).unwrap()
}

fn assert_close(what: &str, a: f32, b: f32) {
    assert!((a - b).abs() <= 1e-5 * b.abs().max(1.0), "{what}: got {a}, expected {b}");
}

#[test]
fn a_reduction_gives_a_class_a_method() {
    assert_close("distance", r::distance(4.0, 5.0, 2.0, 1.0).unwrap(), 20f32.sqrt());
}

#[test]
fn reductions_chosen_by_the_types_of_their_arguments() {
    let (s, v) = r::doubled(3.0, &vecf(&[1.0, -2.0])).unwrap();
    assert_close("scalar", s, 18.0);
    assert_eq!(v.to_vec().unwrap(), vec![1.0, -2.0, 1.0, -2.0]);
}

#[test]
fn the_reduction_with_more_variables_is_applied_first() {
    let (a, b) = ([3.0f32, 4.0, 12.0], [1.0f32, 1.0, 1.0]);
    let (n, m) = r::norms(&vecf(&a), &vecf(&b)).unwrap();
    assert_close("norm", n, 13.0);
    let d: f32 = a.iter().zip(&b).map(|(x, y)| (x - y) * (x - y)).sum();
    assert_close("distance", m, d.sqrt());
}

#[test]
fn where_clauses_decided_at_compile_time_and_at_run_time() {
    for t in [-3.0f32, 0.0, 0.5, 7.0] {
        let (a, b, c) = r::ramps(t).unwrap();
        assert_eq!((a, b), (2.5, 0.0));
        assert_eq!(c, t.max(0.0), "ramp({t})");
    }
}

#[test]
fn the_pipeline_operator_defined_by_a_reduction() {
    assert_close("piped", r::piped(5.0).unwrap(), 3.0);
}

#[test]
fn reductions_apply_inside_kernels_where_ftype_says_so() {
    let x = [0.5f32, -2.0, 3.0, 10.0];
    let (y, h) = r::kernel_site(&vecf(&x), 4.0).unwrap();
    let want: Vec<f32> = x.iter().map(|v| v * v + 1000.0).collect();
    assert_eq!(y.to_vec().unwrap(), want);
    assert_eq!(h, 4.0);
}

#[test]
fn the_manuals_symbolic_derivative_rules() {
    for t in [0.3f32, -1.1, 0.9] {
        let want = 4.0 * (t.powi(4)).cos() * t.powi(3);
        assert_close("slope", r::slope(t).unwrap(), want);
        assert_close("lambda_slope", r::lambda_slope(t).unwrap(), want);
    }
    // diff(x^3 + 1, x) = 3 x^2, rewritten inside a kernel.
    let x = [0.5f32, -2.0, 3.0, 1.5];
    let y = r::slopes(&vecf(&x)).unwrap().to_vec().unwrap();
    for (v, got) in x.iter().zip(&y) {
        assert_close("kernel slope", *got, 3.0 * v * v);
    }
}

#[test]
fn a_parametric_reduction_defines_an_operator_per_element_type() {
    let (fa, fb, ia, ib) = r::pair_differences(4.5, 7).unwrap();
    assert_close("scalar a", fa, 4.5 - 1.0);
    assert_close("scalar b", fb, 2.0 * 4.5 - 0.5);
    assert_eq!((ia, ib), (7 - 1, 3 - 7));
}

#[test]
fn a_property_getter_and_a_setter_with_a_run_time_where_clause() {
    let (before, x, y, after) = r::rescale(3.0, 4.0, 10.0).unwrap();
    assert_close("length before", before, 5.0);
    assert_close("x", x, 6.0);
    assert_close("y", y, 8.0);
    assert_close("length after", after, 10.0);
    // A negative length takes the second setter: the zero arrow.
    let (before, x, y, after) = r::rescale(1.0, 1.0, -2.0).unwrap();
    assert_close("length before", before, 2f32.sqrt());
    assert_eq!((x, y, after), (0.0, 0.0, 0.0));
}

#[test]
fn a_variadic_reduction_spreads_the_rest_arguments() {
    let (one, three) = r::weighted_sums(1.5).unwrap();
    assert_close("one rest argument", one, 2.0 * 1.5);
    assert_close("three rest arguments", three, 1.5 * (1.0 + 2.0 + 3.5));
}

#[test]
fn the_definition_assignment_means_what_its_reduction_says() {
    let y = r::sampled(5, 0.5).unwrap().to_vec().unwrap();
    let want: Vec<f32> = (0..5).map(|i| 0.5 * i as f32 + 1.0).collect();
    assert_eq!(y, want);
}

#[test]
fn strict_safety_accepts_a_conflict_that_a_reduction_resolves() {
    for (p, q, r) in [(2.0f32, 3.0, 1.0), (-1.5, 0.5, 4.0)] {
        let (d, e, m) = s::strict_results(p, q, r).unwrap();
        assert_close("dist(p*q, r)", d, (p * q - r).powi(2));
        assert_close("dist(p, r)", e, (p - r).powi(2));
        assert_close("argmin", m, p + r);
    }
}

#[test]
fn a_symbolic_argmin_inside_a_kernel() {
    let v = [0.5f32, -2.0, 3.0, 7.25];
    let y = s::minimisers(&vecf(&v)).unwrap().to_vec().unwrap();
    assert_eq!(y, v.to_vec(), "argmin over x of (x - v)^2 is v");
}

#[test]
fn a_variadic_reduction_captures_the_weights_and_functions_of_a_sum() {
    let x = [1.5f32, -2.0];
    let got = v::captured(&vecf(&x)).unwrap().to_vec().unwrap();
    let want = [2.0, 3f32.cos(), 2.0, x[0], 2.0 * x[0], -x[0]];
    assert_eq!(got.len(), want.len(), "{got:?}");
    for (g, w) in got.iter().zip(want) {
        assert_close("captured", *g, w);
    }
    let got = v::not_captured(&vecf(&x)).unwrap().to_vec().unwrap();
    let want: Vec<f32> =
        x.iter().map(|t| t + 2.0 * t * t + 3f32.cos() * (2.0 * t) * (2.0 * t)).collect();
    for (g, w) in got.iter().zip(want) {
        assert_close("as written", *g, w);
    }
}

#[test]
fn a_replacement_lambda_over_the_reductions_variable() {
    for (t, u) in [(2.0f32, 3.0), (-0.5, 4.0)] {
        assert_close("scaler(t + 1)(u)", s::scaled_by(t, u).unwrap(), (t + 1.0) * u);
    }
}

#[test]
fn the_rule_with_more_variables_is_applied_before_an_inner_one() {
    for (p, q, r) in [(2.0f32, 3.0, 1.0), (-1.5, 0.5, 4.0)] {
        let (s, d) = o::overlapping(p, q, r).unwrap();
        assert_close("p * q + r by fma3", s, p * q + r + 1000.0);
        assert_close("p * q - r by times", d, (p * q + 0.5) - r);
    }
    let v = [0.5f32, -2.0, 3.0];
    let (s, d) = o::overlapping_in_kernel(&vecf(&v), 2.0, 1.0).unwrap();
    let want_s: Vec<f32> = v.iter().map(|x| x * 2.0 + 1.0 + 1000.0).collect();
    let want_d: Vec<f32> = v.iter().map(|x| (x * 2.0 + 0.5) - 1.0).collect();
    for (g, w) in s.to_vec().unwrap().iter().zip(&want_s) {
        assert_close("s in the kernel", *g, *w);
    }
    for (g, w) in d.to_vec().unwrap().iter().zip(&want_d) {
        assert_close("d in the kernel", *g, *w);
    }
}

#[test]
fn a_variadic_sum_reduction_matches_a_sum_of_one_term() {
    let x = [1.5f32, -2.0];
    let got = v1::one_term(&vecf(&x)).unwrap().to_vec().unwrap();
    let want = [0.5, 2.0 * x[0] - 1.0, 1.0];
    assert_eq!(got.len(), want.len(), "{got:?}");
    for (g, w) in got.iter().zip(want) {
        assert_close("captured", *g, w);
    }
}

#[test]
fn a_replacement_lambda_with_an_untyped_parameter() {
    let v = [1.0f32, -2.0];
    for (t, u) in [(2.0f32, 3.0), (-0.5, 4.0)] {
        let (z, w) = s::scaled_untyped(t, u, &vecf(&v)).unwrap();
        assert_close("scaler_untyped(t + 1)(u)", z, (t + 1.0) * u + 1.0);
        let w = w.to_vec().unwrap();
        for (g, x) in w.iter().zip(v) {
            assert_close("scaler_untyped(t + 1)(v)", *g, (t + 1.0) * x + 1.0);
        }
    }
}

#[test]
fn functions_added_by_a_reduction_with_a_lambda_replacement() {
    for t in [3.0f32, -0.5] {
        assert_close("(f1 + f2)(t)", s::summed_functions(t).unwrap(), t * 2.0 + t / 2.0);
    }
}
