//! End to end: generic functions and kernels (manual chapter 6) — size parameters fixed by an
//! explicit argument (`hist_kernel[256]`) or by an argument's type, type parameters, and
//! `cast` — each result compared with the value computed here in plain Rust. CI also runs this
//! file with every launch on the interpreted PTX device (`QUASAR_SIM_GPU=ptx
//! QUASAR_DEVICE=gpu`), where the histogram's shared array has the specialised size.

use quasar::Array;

mod g {
    quasar::quasar!(file = "tests/common/generics.q");
}

/// Deterministic pseudo-random bin numbers in `0..bins`, as `f32` (what the kernel reads).
fn bin_values(n: usize, bins: u32, seed: u32) -> Vec<f32> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            ((s >> 8) % bins) as f32
        })
        .collect()
}

fn histogram(values: &[f32], bins: usize) -> Vec<f32> {
    let mut h = vec![0f32; bins];
    for &v in values {
        h[v as usize] += 1.0;
    }
    h
}

fn vecf(v: &[f32]) -> Array<f32> {
    Array::from_vec(&[v.len()], v.to_vec()).unwrap()
}

#[test]
fn a_kernel_specialised_for_256_bins_counts_like_rust() {
    // More values than threads (each thread counts several), and a thread count that is not
    // a multiple of the block size.
    for (n, threads) in [(10_000, 1024), (777, 300), (5, 64)] {
        let v = bin_values(n, 256, n as u32);
        let h = g::histogram256(&vecf(&v), threads).unwrap();
        assert_eq!(h.shape(), &[256]);
        assert_eq!(h.to_vec().unwrap(), histogram(&v, 256), "{n} values, {threads} threads");
    }
}

#[test]
fn the_same_kernel_specialised_for_16_bins() {
    let v = bin_values(3000, 16, 7);
    let h = g::histogram16(&vecf(&v), 500).unwrap();
    assert_eq!(h.to_vec().unwrap(), histogram(&v, 16));
}

#[test]
fn a_size_parameter_bound_by_the_argument_type_is_a_value() {
    let (n, total) = g::four_sum(1.5).unwrap();
    assert_eq!(n, 4);
    assert_eq!(total, 1.5 + 3.0 + 4.5 + 6.0);
}

#[test]
fn size_parameters_couple_a_matrix_and_a_vector() {
    // A quarter turn: (x, z) -> (-z, x).
    let y = g::rotate_quarter(2.0, 5.0).unwrap();
    assert_eq!(y.to_vec().unwrap(), vec![-5.0, 2.0]);
}

#[test]
fn explicit_type_arguments_pick_the_element_type() {
    let (a, b) = g::lists(5).unwrap();
    assert_eq!(a.to_vec().unwrap(), vec![0, 3, 6, 9, 12]);
    assert_eq!(b.to_vec().unwrap(), vec![0.0, 3.0, 6.0, 9.0, 12.0]);
    // `first` instantiated implicitly for `vec[int]`.
    assert_eq!(g::first_int(4).unwrap(), 1);
}

#[test]
fn the_generic_product_starts_from_cast_zero_of_the_element_type() {
    let a = [1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0]; // 2 x 3
    let b = [7.0f32, 8.0, 9.0, 10.0, 11.0, 12.0]; // 3 x 2
    let mut want = [0f32; 4];
    for m in 0..2 {
        for n in 0..2 {
            want[m * 2 + n] = (0..3).map(|k| a[m * 3 + k] * b[k * 2 + n]).sum();
        }
    }
    let fa = Array::from_vec(&[2, 3], a.to_vec()).unwrap();
    let fb = Array::from_vec(&[3, 2], b.to_vec()).unwrap();
    assert_eq!(g::multiply_scalar(&fa, &fb).unwrap().to_vec().unwrap(), want.to_vec());
    let ia = Array::from_vec(&[2, 3], a.iter().map(|&x| x as i32).collect()).unwrap();
    let ib = Array::from_vec(&[3, 2], b.iter().map(|&x| x as i32).collect()).unwrap();
    let iw: Vec<i32> = want.iter().map(|&x| x as i32).collect();
    assert_eq!(g::multiply_int(&ia, &ib).unwrap().to_vec().unwrap(), iw);
}

#[test]
fn cast_converts_as_the_conversion_functions_do() {
    // To an integer: towards zero, as `int(x)`; to a narrower integer: the low bits.
    for (x, k) in [(3.7f32, 300), (-2.5, -1), (0.25, 255)] {
        let (i, u8_, i16_, s) = g::casts(x, k).unwrap();
        assert_eq!(i, x.trunc() as i32, "cast({x}, int)");
        assert_eq!(u8_, k as u8, "cast({k}, uint8)");
        assert_eq!(i16_, x.trunc() as i16, "cast({x}, int16)");
        assert_eq!(s, k as f32, "cast({k}, scalar)");
    }
}

#[test]
fn cast_in_a_kernel() {
    let x = [0.5f32, 1.99, -3.5, 258.0, 1000.75, -0.9];
    let (y, z) = g::cast_all(&vecf(&x)).unwrap();
    let want: Vec<i32> = x.iter().map(|v| v.trunc() as i32).collect();
    assert_eq!(y.to_vec().unwrap(), want);
    let low: Vec<u8> = want.iter().map(|&i| i as u8).collect();
    assert_eq!(z.to_vec().unwrap(), low);
}
