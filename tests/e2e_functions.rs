//! End to end: function values (handles, function-typed parameters, closures returned and
//! passed to kernels, nested kernel and device functions capturing the enclosing function's
//! variables, partial application, curried lambdas), kernel outputs assigned with `=` and the
//! other output reductions, and exceptions (`error`, `try`/`catch`, errors raised in kernels),
//! each compared with values computed here in plain Rust. CI also runs this file with every
//! launch on the interpreted PTX device (`QUASAR_SIM_GPU=ptx QUASAR_DEVICE=gpu`).

use quasar::Array;

mod m {
    quasar::quasar!(file = "tests/common/functions.q");
}

fn vecf(v: &[f32]) -> Array<f32> {
    Array::from_vec(&[v.len()], v.to_vec()).unwrap()
}

fn assert_close(what: &str, a: f32, b: f32) {
    assert!((a - b).abs() <= 1e-4 * b.abs().max(1.0), "{what}: got {a}, expected {b}");
}

#[test]
fn function_handles_and_function_typed_parameters() {
    let cube = |x: f32| x * x * x;
    assert_close("handle", m::through_handle(1.5).unwrap(), cube(1.5) + cube(2.5));
    let v = [1.0f32, -2.0, 0.5, 4.0];
    let expected = v[1..].iter().fold(v[0], |acc, &b| 3.0 * acc + b);
    assert_close("fold", m::fold_weighted(&vecf(&v), 3.0).unwrap(), expected);
}

#[test]
fn device_function_value_passed_to_a_kernel() {
    let x = [0.0f32, 1.0, -2.0, 3.5, 10.0];
    let y = m::shifted_squares(&vecf(&x), 0.25).unwrap().to_vec().unwrap();
    let expected: Vec<f32> = x.iter().map(|v| v * v + 0.25).collect();
    assert_eq!(y, expected);
}

#[test]
fn nested_kernel_and_device_functions_capture_the_enclosing_variables() {
    let (rows, cols) = (5, 7);
    let x = Array::from_fn(&[rows, cols], |i| 0.1 + (i % 11) as f32 * 0.3).unwrap();
    let y = m::gamma_correction(&x, 2.2, 0.5).unwrap();
    assert_eq!(y.shape(), &[rows, cols]);
    for (a, b) in x.to_vec().unwrap().iter().zip(y.to_vec().unwrap()) {
        assert_close("gamma", b, 0.5 * a.powf(2.2));
    }
}

#[test]
fn closures_returned_from_functions() {
    let (a, b) = m::use_affine(1.25).unwrap();
    assert_close("identity", a, 1.25);
    // slope 6: g(x) + g(2x) = (6x + 1) + (12x + 1)
    assert_close("affine", b, 6.0 * 1.25 + 1.0 + 12.0 * 1.25 + 1.0);
}

#[test]
fn partial_application_and_binding_at_definition() {
    assert_eq!(m::partial(3.0, 4.0).unwrap(), 734.0);
    assert_eq!(m::noisy_sum(1.5, 2.0).unwrap(), 7.0);
    // `f` captured a = 10 when it was defined; the later a = 1000 does not change it.
    assert_eq!(m::bound_at_definition(2.0).unwrap(), 12.0 + 1000.0);
}

#[test]
fn kernel_output_assigned_with_equals() {
    let a = Array::<f32>::zeros(&[6, 9]).unwrap();
    assert_eq!(m::has_nonzero(&a).unwrap(), 0);
    a.set(&[4, 2], -3.0).unwrap();
    assert_eq!(m::has_nonzero(&a).unwrap(), 1);
}

#[test]
fn every_kernel_output_reduction() {
    let v: Vec<f32> = (0..300).map(|i| ((i * 37) % 101) as f32 - 60.0).collect();
    let (flag, total, hi, lo, bits) = m::summarise(&vecf(&v)).unwrap();
    assert_eq!(flag, 1);
    assert_close("sum", total, v.iter().sum());
    // The outputs start at zero (manual §4.7), so the maximum and minimum include 0.
    assert_eq!(hi, v.iter().fold(0.0f32, |a, &b| a.max(b)));
    assert_eq!(lo, v.iter().fold(0.0f32, |a, &b| a.min(b)));
    assert_eq!(bits, 3);
    let negative = vecf(&[-1.0, -2.0]);
    let (flag, _, hi, _, bits) = m::summarise(&negative).unwrap();
    assert_eq!((flag, hi, bits), (0, 0.0, 1));
}

#[test]
fn errors_are_caught_with_their_message() {
    let (y, msg) = m::safe_root(16.0).unwrap();
    assert_eq!((y, msg.as_str()), (104.0, ""));
    let (y, msg) = m::safe_root(-4.0).unwrap();
    assert_eq!(y, -1.0, "the statements after the failing call did not run");
    assert!(msg.contains("negative argument"), "{msg}");
    let e = m::checked_root(-1.0).unwrap_err().to_string();
    assert!(e.contains("negative argument"), "{e}");
}

#[test]
fn errors_raised_in_kernels_are_caught_around_the_launch() {
    let (ok, msg) = m::kernel_failure(&vecf(&[1.0, 2.0, 3.0])).unwrap();
    assert_eq!((ok, msg.as_str()), (1, ""));
    let (ok, msg) = m::kernel_failure(&vecf(&[1.0, -2.0, 3.0])).unwrap();
    assert_eq!(ok, 0);
    assert!(msg.contains("a negative element"), "{msg}");
    assert!(msg.contains("functions.q:"), "the message names the Quasar line: {msg}");
}

#[test]
fn recursive_functions_and_lambdas() {
    fn fib(k: i32) -> i32 {
        if k < 2 {
            k
        } else {
            fib(k - 1) + fib(k - 2)
        }
    }
    for n in [0, 1, 2, 7, 10] {
        let fact: i32 = (1..=n.max(1)).product();
        assert_eq!(m::recursive_forms(n).unwrap(), (fact, fib(n)), "n = {n}");
    }
}

#[test]
fn curried_lambdas_typed_by_their_declaration() {
    let (x, y) = (1.5f32, -4.0f32);
    let (a, b) = m::curried(x, y).unwrap();
    assert_close("add(x)(y)", a, x + 2.0 * y);
    assert_close("inc(x) * inc(y)", b, (1.0 + 2.0 * x) * (1.0 + 2.0 * y));
}

#[test]
fn variadic_calls_spread_and_optional_parameters() {
    let x = [3.0f32, -1.0, 0.5, 2.0];
    let w = [4.0f32, 5.0, 6.0];
    let (t0, t1, s0, s1, c, o1, o2) = m::variadic_forms(&vecf(&x), &vecf(&w)).unwrap();
    assert_eq!(t0, 0.0);
    assert_close("total(1, 2.5, x[0])", t1, 1.0 + 2.0 * 2.5 + 3.0 * x[0]);
    assert_close("weigh(...w)", s0, 100.0 * w[0] + 10.0 * w[1] + w[2]);
    assert_eq!(s1, 213, "weigh(...swap(1, 2), 3)");
    assert_eq!(c.to_vec().unwrap(), vec![4.0, 5.0, 6.0, 4.0, 4.0, 5.0, 6.0]);
    let sum: f32 = x.iter().sum();
    assert_close("scaled_sum(x)", o1, 2.0 * x.len() as f32 * sum + 1.0);
    assert_close("scaled_sum(x, 1)", o2, sum + 1.0);
}

#[test]
fn spreads_of_run_time_length_and_of_cells() {
    // `total` weighs its i-th argument by i + 1.
    let weighted =
        |v: &[f32]| -> f32 { v.iter().enumerate().map(|(i, a)| (i + 1) as f32 * a).sum() };
    let x = [3.0f32, -1.0, 0.25];
    let (t2, t3, t4, t5) = m::spread_forms(&vecf(&x)).unwrap();
    assert_eq!(t2, weighted(&x));
    assert_eq!(t3, weighted(&[0.5, 3.0, -1.0, 0.25, 2.0]));
    assert_eq!(t4, weighted(&[1.5, 3.0]));
    assert_eq!(t5, 100.0 * 1.0 + 10.0 * 2.0 - 1.0);
}

#[test]
fn variadic_device_function_in_a_kernel() {
    let x = [1.0f32, -2.0, 8.0, 0.25, 3.0];
    let y = m::variadic_kernel(&vecf(&x)).unwrap().to_vec().unwrap();
    let expected: Vec<f32> = x.iter().map(|v| v + 2.0 + 0.5 * v).collect();
    assert_eq!(y, expected);
}

#[test]
fn rest_arguments_of_mixed_types_are_one_cell_vector() {
    let t = 1.25f32;
    let (n, s, v) = m::variadic_cells(t).unwrap();
    assert_eq!(n, 1 + 3, "count_rest(1, \"a\", t, [1, 2])");
    assert_eq!(s, "second");
    assert_close("pick_items(t, …)[1]", v, 2.0 * t);
}
