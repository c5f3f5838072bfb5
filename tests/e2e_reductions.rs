//! End to end: reductions (manual §4.9), each result compared with the value computed here in
//! plain Rust. Most of these programs compile only because the reductions apply (a method
//! that the class lacks, names that are no functions, the pipeline operator). CI also runs
//! this file with every launch on the interpreted PTX device
//! (`QUASAR_SIM_GPU=ptx QUASAR_DEVICE=gpu`).

use quasar::Array;

mod r {
    quasar::quasar!(file = "tests/common/reductions.q");
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
