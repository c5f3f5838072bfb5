//! End to end: device functions and lambdas that capture arrays of the enclosing function,
//! used in kernels (manual §4.2), compared with the same computation in Rust. .ci/run also
//! runs this file with every launch on interpreted PTX.

use quasar::Array;

mod m {
    quasar::quasar!(file = "tests/common/device_closures.q");
}

fn vecf(v: &[f32]) -> Array<f32> {
    Array::from_vec(&[v.len()], v.to_vec()).unwrap()
}

fn close(what: &str, got: f32, want: f32) {
    assert!((got - want).abs() <= 1e-5 * want.abs().max(1.0), "{what}: {got} vs {want}");
}

#[test]
fn a_nested_device_function_reads_a_captured_array() {
    let x: Vec<f32> = (0..37).map(|i| 0.5 + i as f32 * 0.25).collect();
    let w = [1.0f32, -2.0, 0.5, 3.0, 0.125];
    let y = m::weighted(&vecf(&x), &vecf(&w)).unwrap().to_vec().unwrap();
    assert_eq!(y.len(), x.len());
    for (i, (a, b)) in x.iter().zip(&y).enumerate() {
        close(&format!("weighted[{i}]"), *b, a * 2.0 * w[i % w.len()]);
    }
}

#[test]
fn a_device_lambda_captures_an_array_and_a_scalar() {
    let x: Vec<f32> = (0..20).map(|i| i as f32 - 7.5).collect();
    let table: Vec<f32> = (0..30).map(|i| (i * i) as f32 * 0.01).collect();
    let y = m::shifted(&vecf(&x), &vecf(&table), 3).unwrap().to_vec().unwrap();
    for (i, (a, b)) in x.iter().zip(&y).enumerate() {
        close(&format!("shifted[{i}]"), *b, a * (table[i + 3] + 1.0));
    }
}

#[test]
fn a_device_function_writes_a_captured_array() {
    let x: Vec<f32> = (0..25).map(|i| ((i * 7) % 11) as f32).collect();
    let y = m::box3(&vecf(&x)).unwrap().to_vec().unwrap();
    assert_eq!(y.len(), x.len());
    for (i, got) in y.iter().enumerate() {
        let lo = i.saturating_sub(1);
        let hi = (i + 1).min(x.len() - 1);
        let want: f32 = x[lo..=hi].iter().sum::<f32>() / 3.0;
        close(&format!("box3[{i}]"), *got, want);
    }
}

#[test]
fn a_device_lambda_capturing_a_lookup_table_is_passed_to_a_kernel() {
    // Whole numbers in 0..=255, so that `lut[x]` reads entry `x`.
    let x: Vec<f32> = (0..40).map(|i| ((i * 37) % 256) as f32).collect();
    let gamma = 2.4f32;
    let y = m::gamma_lut(&vecf(&x), gamma).unwrap().to_vec().unwrap();
    assert_eq!(y.len(), x.len());
    for (i, (a, b)) in x.iter().zip(&y).enumerate() {
        let want = (a / 255.0).powf(gamma) * 255.0;
        assert!((b - want).abs() <= 1e-3 * want.max(1.0), "gamma_lut[{i}]: {b} vs {want}");
    }
}

#[test]
fn a_device_lambda_sums_a_whole_captured_array() {
    let x = [0.5f32, -1.0, 2.0, 3.5, 0.0];
    let a = [1.5f32, 0.5, -2.0, 1.25, 1.0, 0.75];
    let am = Array::from_vec(&[2, 3], a.to_vec()).unwrap();
    // On the CPU and, forced there (`QUASAR_DEVICE=gpu`), on the GPU: a loop over the
    // captured array in every thread.
    let y = m::shifted_by_totals(&vecf(&x), &am).unwrap().to_vec().unwrap();
    let (sum, prod): (f32, f32) = (a.iter().sum(), a.iter().product());
    let mean = sum / a.len() as f32;
    assert_eq!(y.len(), x.len());
    for (i, (u, v)) in x.iter().zip(&y).enumerate() {
        close(&format!("y[{i}]"), *v, sum + u * prod - mean);
    }
}

#[test]
fn device_lambdas_reduce_an_integer_array_and_a_cube() {
    let x = [3i32, -2, 0, 7];
    let b = [2i32, -1, 4];
    let c: Vec<f32> = (0..24).map(|i| (i as f32 * 0.37).sin()).collect();
    let cube = Array::from_vec(&[2, 3, 4], c.clone()).unwrap();
    let xs = Array::from_vec(&[x.len()], x.to_vec()).unwrap();
    let bs = Array::from_vec(&[b.len()], b.to_vec()).unwrap();
    let (y, z) = m::integer_and_cube_totals(&xs, &bs, &cube).unwrap();
    let (y, z) = (y.to_vec().unwrap(), z.to_vec().unwrap());
    let (s, p): (i32, i32) = (b.iter().sum(), b.iter().product());
    let mean = c.iter().sum::<f32>() / c.len() as f32;
    for (i, u) in x.iter().enumerate() {
        assert_eq!(y[i], s * u + p, "y[{i}]");
        close(&format!("z[{i}]"), z[i], mean + *u as f32);
    }
}

#[test]
fn device_functions_called_from_host_code_with_arrays() {
    let x = [1.5f32, -0.5, 2.0, 4.0];
    let xm = Array::from_vec(&[2, 2], x.to_vec()).unwrap();
    let t = 0.25f32;
    let (a, b, c) = m::device_functions_called_on_the_host(&xm, t).unwrap();
    let total: f32 = x.iter().sum();
    // `D` keeps the array it captured at its definition, not the later `zeros(2, 2)`.
    close("D(t)", a, total + t);
    close("weighted_total", b, x.iter().map(|v| t * v).sum());
    close("bump twice", c, 2.0);
}
