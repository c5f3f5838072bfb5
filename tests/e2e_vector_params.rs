//! End to end: a small vector kernel argument in arithmetic (`pos + [m, n, 0] - ctr`) and
//! `size(x, 0..1)` inside a kernel, against Rust; .ci/run also runs this file on interpreted
//! PTX.

use quasar::Array;

mod k {
    quasar::quasar!(file = "tests/common/vector_params.q");
}

#[test]
fn a_correlation_around_a_center_given_as_a_vector_argument() {
    let (h, w, c) = (5usize, 6usize, 2usize);
    let x = Array::from_fn(&[h, w, c], |i| (i % 7) as f32).unwrap();
    let mask =
        Array::from_vec(&[3, 3], vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]).unwrap();
    let y = k::correlate(&x, &mask).unwrap().to_vec().unwrap();
    let xs = x.to_vec().unwrap();
    let ms = mask.to_vec().unwrap();
    let at = |i: i64, j: i64, k: usize| {
        if i < 0 || j < 0 || i >= h as i64 || j >= w as i64 {
            0.0
        } else {
            xs[(i as usize * w + j as usize) * c + k]
        }
    };
    for i in 0..h {
        for j in 0..w {
            for ch in 0..c {
                let mut want = 0.0f32;
                for m in 0..3 {
                    for n in 0..3 {
                        want +=
                            at(i as i64 + m - 1, j as i64 + n - 1, ch) * ms[(m * 3 + n) as usize];
                    }
                }
                assert_eq!(y[(i * w + j) * c + ch], want, "y[{i}, {j}, {ch}]");
            }
        }
    }
}

#[test]
fn size_of_a_range_of_dimensions_inside_a_kernel() {
    let (h, w) = (4usize, 8usize);
    let y = k::unit_positions(h as i32, w as i32).unwrap().to_vec().unwrap();
    for i in 0..h {
        for j in 0..w {
            let want = i as f32 / h as f32 + 10.0 * (j as f32 / w as f32);
            assert!((y[i * w + j] - want).abs() <= 1e-6, "y[{i}, {j}]");
        }
    }
}

#[test]
fn a_whole_array_parameter_accumulated_by_every_thread() {
    let (h, w, c) = (4usize, 5usize, 3usize);
    let v: Vec<f32> = (0..h * w * c).map(|i| (i % 9) as f32 - 3.0).collect();
    let data = Array::from_vec(&[h, w, c], v.clone()).unwrap();
    let r = k::total(&data).unwrap().to_vec().unwrap();
    assert_eq!(r, vec![v.iter().sum::<f32>()]);
    let a = k::added(10).unwrap().to_vec().unwrap();
    let s = (0..10).sum::<i32>() as f32;
    assert_eq!(a, vec![s, 2.0 * s, 3.0 * s]);
}

#[test]
fn a_real_position_vector_indexes_at_its_integer_parts() {
    let x = Array::from_fn(&[3, 4], |i| i as f32 * 1.5).unwrap();
    assert_eq!(k::copied(&x).unwrap().to_vec().unwrap(), x.to_vec().unwrap());
}
