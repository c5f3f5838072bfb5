//! End to end: cells of function values (manual §3, `vec[[scalar -> scalar]]`) in generated
//! host code: lambdas typed and untyped, closures stored element by element and named
//! functions, called through the cell; a function value of another type read from a `??`
//! cell is a run-time error that names both types. Every expected value is computed here in
//! plain Rust.

mod m {
    quasar::quasar!(file = "tests/common/function_cells.q");
}

fn close(what: &str, got: f32, want: f32) {
    assert!((got - want).abs() <= 1e-4 * want.abs().max(1.0), "{what}: got {got}, expected {want}");
}

/// `file:line` of the first line of the Quasar file that contains `text`, as errors name it.
fn at(text: &str) -> String {
    let src = include_str!("common/function_cells.q");
    let line = src.lines().position(|l| l.contains(text)).expect("the line") + 1;
    format!("function_cells.q:{line}:")
}

fn offset(x: f32) -> f32 {
    x + 10.0
}

#[test]
fn a_cell_of_typed_lambdas_and_a_named_function() {
    let t = 1.25f32;
    close("typed_literal", m::typed_literal(t).unwrap(), (t + 1.0) + 2.0 * t + offset(t));
}

#[test]
fn untyped_lambdas_take_the_declared_element_type() {
    let t = -2.5f32;
    let (a, b, c) = m::declared_cells(t).unwrap();
    close("{x*x, x-3}", a, t * t + (t - 3.0));
    close("{3x, x/2, -x}", b, 3.0 * t + t / 2.0 - t);
    close("{x+0.5, 4x}", c, (t + 0.5) + 4.0 * t);
}

#[test]
fn closures_stored_in_a_loop_keep_their_own_captures() {
    let (t, n) = (0.75f32, 5);
    let want: f32 = (0..n - 1).map(|k| t * k as f32 + 1.0).sum::<f32>() + offset(t);
    close("closures_in_a_loop", m::closures_in_a_loop(t, n).unwrap(), want);
}

#[test]
fn a_function_value_read_from_a_dynamic_cell_is_checked_at_run_time() {
    close("right_type", m::right_type(3.0).unwrap(), 0.75);
    let e = m::wrong_type(3.0).unwrap_err().to_string();
    assert!(
        e.contains("expected a function value of type [(scalar")
            && e.contains("found one of type [(int) -> (int)]"),
        "{e}"
    );
    assert!(e.contains(&at("f : [scalar -> scalar] = c[0]")), "{e}");
}

#[test]
fn function_values_in_a_dynamic_cell_are_called_as_they_are() {
    let t = 2.25f32;
    let (a, b) = m::called_from_a_dynamic_cell(t).unwrap();
    close("c[0](t) + c[1](t)", a, 2.0 * t + offset(t));
    assert_eq!(b, 12);
    let e = m::called_with_the_wrong_argument(t).unwrap_err().to_string();
    assert!(e.contains("[(int) -> (int)] cannot be called with (scalar"), "{e}");
    let line = at("y = c[0](t)");
    assert!(e.contains(&line), "{e} (expected at {line})");
}

#[test]
fn untyped_lambdas_in_a_dynamic_cell_take_the_types_of_the_calls_through_it() {
    for (t, k) in [(1.5f32, 3.0f32), (-2.0, 0.25)] {
        let got = m::untyped_in_a_dynamic_cell(t, k).unwrap();
        close("c[0] = x -> x + k", got, (t + k) * (2.0 * t));
    }
    let t = 2.5f32;
    close(
        "c : vec[??] = {…}",
        m::untyped_in_a_declared_dynamic_cell(t).unwrap(),
        t * t + (t - 1.0),
    );
    for n in [0i32, 4, -9] {
        assert_eq!(m::untyped_in_a_cell_literal(n).unwrap(), n * 3 - (n + 7), "n = {n}");
    }
}

#[test]
fn a_cell_of_device_functions_is_taken_element_by_element_by_a_kernel() {
    let x = [0.5f32, -2.0, 3.0, 1.25];
    let xs = quasar::Array::from_vec(&[x.len()], x.to_vec()).unwrap();
    let k = 1.5f32;
    let got = m::device_cell_in_kernel(&xs, k).unwrap();
    assert_eq!(got.shape(), &[3, x.len()]);
    let got = got.to_vec().unwrap();
    let rows: [&dyn Fn(f32) -> f32; 3] = [&|t| t * t, &|t| k * t, &|t| t + 1.0];
    for (r, f) in rows.iter().enumerate() {
        for (c, &t) in x.iter().enumerate() {
            close(&format!("fs[{r}]({t})"), got[r * x.len() + c], f(t));
        }
    }
    // The same through a parameter without a type, with a constant index too.
    let got = m::device_cell_literal_in_kernel(&xs).unwrap().to_vec().unwrap();
    let rows: [&dyn Fn(f32) -> f32; 2] = [&|t| -t, &|t| 0.5 * t];
    for (r, f) in rows.iter().enumerate() {
        for (c, &t) in x.iter().enumerate() {
            close(&format!("literal fs[{r}]({t})"), got[r * x.len() + c], f(t) + 0.5);
        }
    }
}

#[test]
fn a_cell_of_device_functions_is_a_kernel_parameter_element_by_element() {
    let x = [0.5f32, -2.0, 3.0];
    let xs = quasar::Array::from_vec(&[x.len()], x.to_vec()).unwrap();
    let k = 2.5f32;
    let got = m::device_cell_as_kernel_parameter(&xs, k).unwrap().to_vec().unwrap();
    // A named kernel and a kernel lambda each fill the matrix once: twice each value.
    let rows: [&dyn Fn(f32) -> f32; 2] = [&|t| t - k, &|t| k * t];
    for (r, f) in rows.iter().enumerate() {
        for (c, &t) in x.iter().enumerate() {
            close(&format!("fs[{r}]({t}) twice"), got[r * x.len() + c], 2.0 * f(t));
        }
    }
}
