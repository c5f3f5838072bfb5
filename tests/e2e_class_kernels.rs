//! End to end: arrays of class values in kernels (manual §2.2.6, chapter 7), compared with
//! the same computation in Rust. The kernels compile for the PTX back end too (class values in
//! registers, class arguments and array elements in the host's `repr(C)` layout), so .ci/run
//! also runs this file with every launch on interpreted PTX.

mod k {
    quasar::quasar!(file = "tests/common/class_kernels.q");
}

#[test]
fn a_kernel_reads_an_array_of_classes_and_a_class_argument() {
    for n in [1, 7, 100] {
        let y = k::gray(n, 0.125).unwrap().to_vec().unwrap();
        for (i, v) in y.iter().enumerate() {
            let want = 0.125 * i as f32 + 0.5 * 2.0 * i as f32 + 0.25;
            assert!((v - want).abs() <= 1e-5 * want.abs().max(1.0), "{n}: {v} vs {want}");
        }
    }
}

#[test]
fn a_kernel_writes_class_values_into_an_array() {
    let y = k::swapped_red(9).unwrap().to_vec().unwrap();
    for (i, v) in y.iter().enumerate() {
        // red and blue swapped: r = 1, b = i.
        assert_eq!(*v, 1.0 + 10.0 * i as f32);
    }
}

#[test]
fn nested_classes_and_methods_in_a_2d_kernel() {
    let (h, w, g) = (5usize, 7usize, 9.75f32);
    let (y, z) = k::lift(h as i32, w as i32, g).unwrap();
    let (y, z) = (y.to_vec().unwrap(), z.to_vec().unwrap());
    for i in 0..h {
        for j in 0..w {
            let id = ((i * w + j) % 5) as f64;
            let p2 = (i + j) as f64 + if id > 2.0 { 10.0 } else { 0.0 };
            let mass = 1.0 + j as f64;
            let want_y = mass * g as f64 * p2 + 0.5 * id;
            let got_y = y[i * w + j] as f64;
            assert!(
                (got_y - want_y).abs() <= 1e-5 * want_y.abs().max(1.0),
                "{i},{j}: {got_y} vs {want_y}"
            );
            assert_eq!(z[i * w + j] as f64, p2 + 100.0 * id, "{i},{j}");
        }
    }
}
