//! End to end: arrays of class values in kernels (manual §2.2.6, chapter 7), compared with
//! the same computation in Rust. CPU kernels only: the PTX back end has no classes yet, so
//! these kernels stay on the CPU (with the reason `arrays of pixel (`src`) is not supported
//! by the PTX back end yet`), and this file is not in the interpreted-PTX line of .ci/run.

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
