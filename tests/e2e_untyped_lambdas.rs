//! End to end: untyped lambdas as values (manual §1.13, §4.6, §4.10): curried lambdas,
//! partial application, composition, lambdas passed to functions without parameter types, to
//! function-typed parameters and into a kernel. Every expected value is computed here in
//! plain Rust. CI also runs this file with every launch on the interpreted PTX device
//! (`QUASAR_SIM_GPU=ptx QUASAR_DEVICE=gpu`).

use quasar::Array;

mod m {
    quasar::quasar!(file = "tests/common/untyped_lambdas.q");
}

fn vecf(v: &[f32]) -> Array<f32> {
    Array::from_vec(&[v.len()], v.to_vec()).unwrap()
}

fn close(what: &str, got: f32, want: f32) {
    assert!((got - want).abs() <= 1e-4 * want.abs().max(1.0), "{what}: got {got}, expected {want}");
}

#[test]
fn the_manuals_curried_lambdas_and_partial_evaluation() {
    let t = 1.75f32;
    let (a, b, c, d) = m::manual_examples(t).unwrap();
    let v = |x: f32, y: f32| 2.0 * x + y;
    let w = |x: f32| move |y: f32| x + y;
    close("v(1, t)", a, v(1.0, t));
    close("w(10)(t)", b, w(10.0)(t));
    close("w(4)(t)", c, w(4.0)(t));
    let f = |x: f32, y: f32| x + y;
    let g = |y: f32| move |x: f32| f(x, y);
    close("g(t)(5)", d, g(t)(5.0));
}

#[test]
fn one_curried_lambda_serves_integers_and_scalars() {
    let t = -2.5f32;
    let (a, b) = m::curried_twice(t).unwrap();
    let add = |x: f32| move |y: f32| 3.0 * x + y;
    close("add(2)(5)", a as f32, add(2.0)(5.0));
    close("add(t)(0.25)", b, add(t)(0.25));
}

#[test]
fn composition_of_untyped_lambdas() {
    let t = 0.6f32;
    let (a, b) = m::composed(t).unwrap();
    let inc = |x: f32| x + 1.0;
    let dbl = |x: f32| 2.0 * x;
    close("inc(dbl(t))", a, inc(dbl(t)));
    close("dbl(inc(t))", b, dbl(inc(t)));
}

#[test]
fn lambdas_given_to_untyped_parameters_returned_and_recursive() {
    let (t, k) = (1.2f32, 6);
    let (a, b, c) = m::higher_order(t, k).unwrap();
    let sq1 = |x: f32| x * x + 1.0;
    close("twice(x*x+1)", a, sq1(sq1(t)));
    close("twice(scaler(3))", b, 3.0 * (3.0 * t));
    let fact: i64 = (1..=k as i64).product();
    assert_eq!(c as i64, fact, "apply(fact, k)");
}

#[test]
fn untyped_lambdas_where_function_types_are_declared() {
    let t = 1.5f32;
    let (a, b) = m::through_typed(t).unwrap();
    let midpoint = |f: &dyn Fn(f32) -> f32, lo: f32, hi: f32, n: i32| {
        let h = (hi - lo) / n as f32;
        (0..n).map(|i| f(lo + (i as f32 + 0.5) * h) * h).sum::<f32>()
    };
    close("integrate(c x^2)", a, midpoint(&|x| t * x * x, 0.0, 1.0, 100));
    close("g(t) + integrate(x^2)", b, t * t + midpoint(&|x| x * x, 0.0, 2.0, 50));
}

#[test]
fn captures_are_copied_at_definition_and_may_be_arrays() {
    let x = [0.5f32, -1.0, 2.0, 7.25];
    let t = 0.125f32;
    let (a, b) = m::captures(&vecf(&x), t).unwrap();
    close("scale(t) with s = 2 at definition", a, 2.0 * t);
    close("p(1) + p(n - 1)", b, (x[1] + t) + (x[3] + t));
}

#[test]
fn a_lambda_value_called_in_a_kernel() {
    let x: Vec<f32> = (0..29).map(|i| i as f32 * 0.5 - 3.0).collect();
    let k = 1.5f32;
    let y = m::mapped(&vecf(&x), k).unwrap().to_vec().unwrap();
    assert_eq!(y.len(), x.len());
    for (i, (a, b)) in x.iter().zip(&y).enumerate() {
        close(&format!("mapped[{i}]"), *b, k * a + 1.0);
    }
}

#[test]
fn one_lambda_evaluated_with_captures_of_different_types() {
    let t = 0.375f32;
    let x = [1.5f32, -2.0, 0.25];
    let (a, b, c, d) = m::captured_types(t, &vecf(&x)).unwrap();
    close("offset_by(2)(0.5)", a, 2.5);
    close("offset_by(t)(0.5)", b, t + 0.5);
    close("sum(offset_by(x)(1))", c, x.iter().map(|v| v + 1.0).sum());
    close("times(3)(t) + sum(times(x)(2))", d, 3.0 * t + x.iter().map(|v| 2.0 * v).sum::<f32>());
}

#[test]
fn a_nested_function_instantiated_per_captured_type() {
    let t = 1.25f32;
    let (a, b) = m::nested_captures(t).unwrap();
    assert_eq!(a as i64, 6, "outer(2) = 2 * 3");
    close("outer(t)", b, 3.0 * t);
}

#[test]
fn a_kernel_lambda_instantiated_per_captured_lambda() {
    let x: Vec<f32> = (0..37).map(|i| i as f32 * 0.25 - 4.0).collect();
    let k = 0.5f32;
    let (y, z) = m::mapped_twice(&vecf(&x), k).unwrap();
    let (y, z) = (y.to_vec().unwrap(), z.to_vec().unwrap());
    assert_eq!((y.len(), z.len()), (x.len(), x.len()));
    for (i, a) in x.iter().enumerate() {
        close(&format!("y[{i}]"), y[i], k * a + 1.0);
        close(&format!("z[{i}]"), z[i], a * a - k);
    }
}

#[test]
fn a_variable_with_a_function_type_takes_two_untyped_lambdas() {
    for t in [1.75f32, -0.5] {
        let (a, b) = m::chosen(t).unwrap();
        close("f(t) before", a, t + 1.0);
        close("f(t) after", b, if t > 0.0 { 2.0 * t } else { t + 1.0 });
    }
}

#[test]
fn untyped_lambdas_in_class_fields_of_unknown_function_type() {
    let x = [0.5f32, 2.0, -3.0, 1.25];
    let t = 1.5f32;
    let (a, b, c, d) = m::lambda_fields(&vecf(&x), t).unwrap();
    let combine = |p: f32, q: f32| p * q + 3.0;
    close("obj.scale(t)", a, 2.0 * t);
    close("obj.combine(t, 2)", b, combine(t, 2.0));
    close("sum(obj.combine(x, t))", c, x.iter().map(|v| combine(*v, t)).sum());
    close("apply_combine(obj, 4, t)", d, combine(4.0, t));
}

#[test]
fn a_variable_without_a_type_takes_two_untyped_lambdas() {
    for t in [1.75f32, -0.5] {
        let (a, b) = m::picked(t).unwrap();
        close("f(t) before", a, t + 1.0);
        close("f(t) after", b, if t > 0.0 { 2.0 * t } else { t + 1.0 });
    }
}

#[test]
fn the_calls_and_results_of_two_lambdas_are_widened_to_one_function_type() {
    for (t, k) in [(0.75f32, 2), (2.5, 5)] {
        let (a, b, c) = m::widened(t, k).unwrap();
        let f = |x: f32| if k > 2 { x * 0.5 } else { x + 1.0 };
        let op = |p: f32, q: f32| if t > 1.0 { p * q - k as f32 } else { p + q };
        close("f(k)", a, f(k as f32));
        close("f(t)", b, f(t));
        close("op(t, 3)", c, op(t, 3.0));
    }
}

#[test]
fn composed_typed_and_loop_reassigned_lambdas_in_one_variable() {
    for (t, n) in [(0.5f32, 2), (1.5, 4)] {
        let (a, b, c) = m::reassigned(t, n).unwrap();
        let (inc, dbl) = (|x: f32| x + 1.0, |x: f32| 2.0 * x);
        let h = |x: f32| if t > 1.0 { dbl(inc(x)) } else { inc(dbl(x)) };
        close("h(t) + h(2)", a, h(t) + h(2.0));
        close("g(t)", b, if n > 3 { t - 1.0 } else { t * t });
        // The first iteration calls `x -> x`, the others `x -> 2 * x + 0.5`.
        let want: f32 = (1..=n).map(|i| if i == 1 { 1.0 } else { 2.0 * i as f32 + 0.5 }).sum();
        close("loop sum", c, want);
    }
}

#[test]
fn a_kernel_calls_one_of_two_device_lambdas_chosen_at_run_time() {
    let x: Vec<f32> = (0..41).map(|i| i as f32 * 0.75 - 6.0).collect();
    for k in [0.5f32, 3.0] {
        let y = m::chosen_in_kernel(&vecf(&x), k).unwrap().to_vec().unwrap();
        assert_eq!(y.len(), x.len());
        for (i, (a, b)) in x.iter().zip(&y).enumerate() {
            let want = if k > 1.0 { a + k } else { k * a };
            close(&format!("k = {k}: y[{i}]"), *b, want);
        }
    }
}

#[test]
fn a_lambda_returning_a_cell_vector_of_a_declared_cell_array_type() {
    let t = 0.625f32;
    let (s, v) = m::cell_result(t).unwrap();
    assert_eq!(s, "String");
    close("second element", v, 2.0 * t);
}

#[test]
fn conditional_expressions_choosing_between_lambdas_on_the_host_and_in_a_kernel() {
    for (t, k) in [(1.5f32, 3), (-0.5, 3), (-2.0, 1)] {
        let (y, z) = m::chosen_by_conditions(t, k).unwrap();
        let f = |x: f32| {
            if t > 0.0 {
                x + 1.0
            } else if k > 2 {
                2.0 * x
            } else {
                x * x
            }
        };
        close("f(t)", y, f(t));
        let z = z.to_vec().unwrap();
        assert_eq!(z.len(), 5);
        for (i, v) in z.iter().enumerate() {
            let u = i as f32 + 0.5;
            close(&format!("z[{i}]"), *v, if k > 1 { u + k as f32 } else { u * t });
        }
    }
}

mod passed_on {
    quasar::quasar!(file = "tests/common/lambdas_passed_on.q");
}

#[test]
fn two_lambdas_in_one_variable_passed_on_take_the_callees_call_types() {
    for t in [1.5f32, -0.75] {
        let want = if t > 0.0 { 2.0 * t } else { t + 1.0 };
        close("pick", passed_on::pick(t).unwrap(), want);
        let want = if t < 0.0 { -(-t) } else { t / 2.0 / 2.0 };
        close("passed_twice", passed_on::passed_twice(t).unwrap(), want);
    }
}

#[test]
fn a_choice_between_lambdas_passed_straight_to_a_function() {
    for t in [2.5f32, 0.5, -1.0] {
        let (a, b) = passed_on::branches(t, 3).unwrap();
        close("c ? inc : dbl", a, if t > 0.0 { t + 3.0 } else { 2.0 * t });
        close("c ? x*x : x-1", b, if t > 1.0 { t * t } else { t - 1.0 });
    }
}

#[test]
fn two_curried_lambdas_in_one_variable() {
    for t in [1.25f32, -2.0] {
        let want = if t > 0.0 { 2.0 * t } else { 2.0 + t };
        close("f(2)(t)", passed_on::curried(t).unwrap(), want);
        let want = if t > 0.0 { (2.0 + t) + (3.0 + t) } else { 2.0 * t + 3.0 * t };
        close("g(2)(t) + g(3)(t)", passed_on::curried_passed_on(t).unwrap(), want);
    }
}

#[test]
fn cells_of_untyped_lambdas_given_to_functions_that_call_their_elements() {
    let t = 1.75f32;
    let (a, b, c) = passed_on::cells(t).unwrap();
    close("sum_all literal", a, (t + 1.0) + 2.0 * t + t * t);
    close("sum_all variable", b, (t - 3.0) + t / 4.0);
    close("first_two", c, (t - 3.0) * (t / 4.0));
}

#[test]
fn device_lambdas_of_no_one_type_passed_to_a_function_whose_kernel_calls_them() {
    let x = [0.5f32, -1.25, 3.0, 2.0, -0.75];
    for t in [2.5f32, 0.5, -1.0] {
        let (a, b) = passed_on::to_a_kernel(&vecf(&x), t).unwrap();
        let (a, b) = (a.to_vec().unwrap(), b.to_vec().unwrap());
        for (i, u) in x.iter().enumerate() {
            close(&format!("a[{i}]"), a[i], if t > 0.0 { u + 1.0 } else { 2.0 * u });
            close(&format!("b[{i}]"), b[i], if t > 1.0 { u - t } else { u * u });
        }
    }
}
