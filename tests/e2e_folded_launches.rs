//! End to end: kernels launched over four and five dimensions, whose dimensions from the
//! third on the compiler folds into one (`transform/fold_launch_dims.rs`), against the same
//! computation in Rust; .ci/run also runs this file on interpreted PTX.

use quasar::Array;

mod k {
    quasar::quasar!(file = "tests/common/folded_launches.q");
}

#[test]
fn a_four_dimensional_launch_gathers_every_window() {
    let (h, w, p, q) = (6usize, 7usize, 3usize, 2usize);
    let a = Array::from_fn(&[h, w], |i| i as f32).unwrap();
    let b = k::windows(&a, p as i32, q as i32).unwrap();
    let (nr, nc) = (h - p + 1, w - q + 1);
    assert_eq!(b.shape(), &[p * q, nr * nc]);
    let b = b.to_vec().unwrap();
    for r in 0..nr {
        for c in 0..nc {
            for i in 0..p {
                for j in 0..q {
                    let got = b[(i * q + j) * (nr * nc) + c * nr + r];
                    assert_eq!(
                        got,
                        ((r + i) * w + c + j) as f32,
                        "window ({r}, {c}) at ({i}, {j})"
                    );
                }
            }
        }
    }
}

#[test]
fn a_five_dimensional_launch_visits_every_position_once() {
    let n = [2i32, 3, 1, 4, 5];
    let y = k::digits(&Array::from_vec(&[5], n.to_vec()).unwrap()).unwrap().to_vec().unwrap();
    let mut want = Vec::new();
    for a in 0..n[0] {
        for b in 0..n[1] {
            for c in 0..n[2] {
                for d in 0..n[3] {
                    for e in 0..n[4] {
                        want.push((a * 10000 + b * 1000 + c * 100 + d * 10 + e) as f32);
                    }
                }
            }
        }
    }
    assert_eq!(y, want);
}

#[test]
fn a_launch_over_the_size_of_a_four_dimensional_array() {
    let (a, b, c, d) = (2usize, 3usize, 4usize, 5usize);
    let y = k::fill4(a as i32, b as i32, c as i32, d as i32).unwrap();
    assert_eq!(y.shape(), &[a, b, c, d]);
    let y = y.to_vec().unwrap();
    for (i, v) in y.iter().enumerate() {
        let (p3, p2, p1, p0) = (i % d, (i / d) % c, (i / (c * d)) % b, i / (b * c * d));
        assert_eq!(*v, (p0 + 10 * p1 + 100 * p2 + 1000 * p3) as f32, "element {i}");
    }
}
