//! End to end: matrix products of small fixed-size arrays in kernels, against the same
//! products in Rust. The manual's size-generic color transform (§6.7) runs as a parallel loop
//! once specialised for three channels; .ci/run also runs this file on interpreted PTX.

use quasar::Array;

mod k {
    quasar::quasar!(file = "tests/common/small_products.q");
}

#[test]
fn a_size_generic_color_transform_runs_as_a_parallel_loop() {
    let (h, w) = (9usize, 13usize);
    let img = Array::from_fn(&[h, w, 3], |i| ((i * 37) % 101) as f32 / 100.0).unwrap();
    let x = img.to_vec().unwrap();
    let out = k::warm(&img).unwrap();
    assert_eq!(out.shape(), &[h, w, 3]);
    let y = out.to_vec().unwrap();
    let m = [[0.9f32, 0.1, 0.0], [0.05, 0.9, 0.05], [0.0, 0.2, 0.8]];
    for p in 0..h * w {
        for (ch, row) in m.iter().enumerate() {
            let want = row[0] * x[3 * p] + row[1] * x[3 * p + 1] + row[2] * x[3 * p + 2];
            let got = y[3 * p + ch];
            assert!((got - want).abs() <= 1e-6, "pixel {p} channel {ch}: {got} vs {want}");
        }
    }
}

#[test]
fn matrix_vector_row_vector_matrix_and_matrix_matrix_products() {
    let (h, w) = (4usize, 5usize);
    let y = k::products(h as i32, w as i32).unwrap().to_vec().unwrap();
    let a = [[1.0f32, 2.0, 3.0], [4.0, 5.0, 6.0]];
    for i in 0..h {
        for j in 0..w {
            let (fi, fj) = (i as f32, j as f32);
            let b = [[fi, 1.0], [0.5, fj], [2.0, -1.0]];
            let v = [fj, 1.0, -2.0];
            let u = [1.0, fi];
            let av: Vec<f32> = a.iter().map(|r| r[0] * v[0] + r[1] * v[1] + r[2] * v[2]).collect();
            let ua2 = u[0] * a[0][2] + u[1] * a[1][2];
            let ab = |r: usize, c: usize| a[r][0] * b[0][c] + a[r][1] * b[1][c] + a[r][2] * b[2][c];
            let want = av[0] + 10.0 * av[1] + 100.0 * ua2 + 1000.0 * ab(1, 0) + 10000.0 * ab(0, 1);
            let got = y[i * w + j];
            assert!((got - want).abs() <= 1e-3, "y[{i}, {j}] = {got}, want {want}");
        }
    }
}

#[test]
fn transposes_and_reductions_along_a_dimension_of_a_local_matrix() {
    let (h, w) = (3usize, 4usize);
    let y = k::along(h as i32, w as i32).unwrap().to_vec().unwrap();
    for i in 0..h {
        for j in 0..w {
            let m = [[1.0f32, 2.0, 3.0], [4.0, i as f32, j as f32]];
            let t21 = m[1][2];
            let c2 = m[0][2] + m[1][2];
            let r1 = m[1][0] + m[1][1] + m[1][2];
            let a0 = (m[0][0] + m[0][1] + m[0][2]) / 3.0;
            let p1 = m[0][1] * m[1][1];
            let t01 = m[1][0];
            let want = t21 + 10.0 * c2 + 100.0 * r1 + 1000.0 * a0 + 10000.0 * p1 + 100000.0 * t01;
            let got = y[i * w + j];
            assert!((got - want).abs() <= 1e-2, "y[{i}, {j}] = {got}, want {want}");
        }
    }
}
