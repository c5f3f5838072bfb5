//! End to end: constructs of real Quasar code, as the original compiler accepted them
//! (tests/common/real_code.q), each result compared with values computed in plain Rust.

use quasar::Array;

mod rc {
    quasar::quasar!(file = "tests/common/real_code.q");
}
mod generic_import {
    quasar::quasar!(file = "tests/common/imports/generic_main.q");
}

/// `y[i, j] = sum_k h[k] x[i, j + k - c]` with zeros outside, in plain Rust.
fn filter_rows(x: &[f32], m: usize, n: usize, h: &[f32]) -> Vec<f32> {
    let c = h.len() / 2;
    let mut y = vec![0.0; m * n];
    for i in 0..m {
        for j in 0..n {
            let mut acc = 0.0;
            for (k, hk) in h.iter().enumerate() {
                let jj = j as i64 + k as i64 - c as i64;
                if (0..n as i64).contains(&jj) {
                    acc += hk * x[i * n + jj as usize];
                }
            }
            y[i * n + j] = acc;
        }
    }
    y
}

#[test]
fn a_vector_literal_is_a_row_vector() {
    // Regression: the runtime made `[-1, 1, 0]` a 3 x 1 column when it met a `mat`.
    assert_eq!(rc::literal_dims().unwrap(), (1, 3));
    assert_eq!(rc::literal_as_matrix().unwrap(), (6, -4, 21));
}

#[test]
fn a_literal_filter_is_not_flipped() {
    let (m, n) = (5, 7);
    let data: Vec<f32> = (0..m * n).map(|i| ((i * 13) % 17) as f32 - 8.0).collect();
    let x = Array::from_vec(&[m, n], data.clone()).unwrap();
    let want = filter_rows(&data, m, n, &[-1.0, 1.0, 0.0]);
    assert_eq!(rc::derivative(&x).unwrap().to_vec().unwrap(), want);
    // A vector argument is a row too.
    let h = Array::from_vec(&[5], vec![0.5, -1.0, 2.0, 0.25, 3.0]).unwrap();
    let want = filter_rows(&data, m, n, &[0.5, -1.0, 2.0, 0.25, 3.0]);
    assert_eq!(rc::filter_with(&x, &h).unwrap().to_vec().unwrap(), want);
}

#[test]
fn a_cube_with_more_than_one_channel_is_not_a_matrix() {
    let x = Array::from_vec(&[2, 2], vec![1.0, 2.0, 3.0, 4.0]).unwrap();
    let h = Array::from_vec(&[3, 2], vec![1.0; 6]).unwrap();
    let e = rc::filter_with(&x, &h).unwrap_err().to_string();
    assert!(e.contains("argument `h`") && e.contains("[3, 2]"), "{e}");
}

#[test]
fn lambdas_that_are_never_called_compile() {
    // Regression: an uncalled lambda made the generated Rust refer to an undefined enum.
    assert_eq!(rc::unused_lambdas(2.5).unwrap(), 3.5);
}

#[test]
fn branches_on_type_predicates_take_the_instances_branch() {
    let v = Array::from_vec(&[3], vec![-1.0, 2.0, -3.5]).unwrap();
    let m = Array::from_vec(&[2, 2], vec![1.0, -2.0, 3.0, -4.0]).unwrap();
    assert_eq!(rc::magnitudes(&v, &m).unwrap(), (2.5, 6.5, 10.0));
}

#[test]
fn imported_generic_functions_that_are_never_called_do_not_stop_compilation() {
    let v = Array::from_vec(&[2], vec![1.5, -2.0]).unwrap();
    assert_eq!(generic_import::scaled(&v).unwrap().to_vec().unwrap(), [4.5, -6.0]);
}

#[test]
fn scalar_vectors_convert_to_integer_vectors() {
    // ceil(size(h) / 2) - 1 for a 5 x 4 filter: [2, 1]; size(h, [0..1]) = [5, 4].
    let h = Array::from_vec(&[5, 4], vec![0.0; 20]).unwrap();
    let (c, d) = rc::centre(&h).unwrap();
    assert_eq!((c.to_vec().unwrap(), d.to_vec().unwrap()), (vec![2, 1], vec![5, 4]));
}

#[test]
fn a_cube_with_one_channel_is_a_matrix_argument() {
    // sum of x[i, j] * (j + 1) over a 2 x 3 x 1 cube.
    let img = Array::from_vec(&[2, 3, 1], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
    let want: f32 = (0..6).map(|k| (k + 1) as f32 * ((k % 3) + 1) as f32).sum();
    assert_eq!(rc::gray_total(&img).unwrap(), want);
    // Three channels do not fit a `mat`: a run-time error naming the parameter.
    let rgb = Array::from_vec(&[2, 3, 3], vec![0.0; 18]).unwrap();
    let e = rc::gray_total(&rgb).unwrap_err().to_string();
    assert!(e.contains("argument `x` of `total`") && e.contains("[2, 3, 3]"), "{e}");
    // A one-column matrix is a vector (of 3 elements).
    let col = Array::from_vec(&[3, 1], vec![1.0, 2.0, 4.0]).unwrap();
    assert_eq!(rc::of_column(&col).unwrap(), 307.0);
    let wide = Array::from_vec(&[2, 2], vec![1.0; 4]).unwrap();
    let e = rc::of_column(&wide).unwrap_err().to_string();
    assert!(e.contains("argument `v` of `column_sum`"), "{e}");
}
