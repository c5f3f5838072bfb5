//! End to end, on the CPU: regressions of the compiler's IR contract (one list of special
//! parameters, one table of built-ins, effects through device functions), each result
//! compared with plain Rust. tests/gpu_kernels.rs runs the same kernels on both devices.

mod c {
    // Shared with tests/gpu_kernels.rs.
    quasar::quasar!(file = "tests/common/contract.q");
}

#[test]
fn warp_size_under_both_spellings() {
    let lanes = c::lanes(100).unwrap().to_vec().unwrap();
    let expect: Vec<f32> = (0..100).map(|i| (i % 32) as f32).collect();
    assert_eq!(lanes, expect);
    let sizes = c::warp_sizes(5).unwrap().to_vec().unwrap();
    assert_eq!(sizes, vec![32.0; 5]);
}

#[test]
fn writes_through_device_functions_reach_the_caller() {
    let x = quasar::Array::from_vec(&[4], vec![1.0f32, 2.0, 3.0, 4.0]).unwrap();
    assert_eq!(c::doubled(&x).unwrap().to_vec().unwrap(), [2.0, 4.0, 6.0, 8.0]);
}

#[test]
fn writes_through_function_values_reach_the_caller() {
    let x = quasar::Array::from_vec(&[3], vec![1.0f32, -2.0, 0.5]).unwrap();
    assert_eq!(c::stored(&x).unwrap().to_vec().unwrap(), [2.0, -1.0, 1.5]);
}
