//! End to end: arrays created inside kernels (issue 15), compared with the same computation
//! in Rust. .ci/run also runs this file with every launch on interpreted PTX.

use quasar::Array;

mod k {
    quasar::quasar!(file = "tests/common/kernel_arrays.q");
}

#[test]
fn four_outputs_per_thread_from_index_ranges() {
    let (h, w, taps) = (6usize, 16usize, 5usize);
    let wx = w + taps - 1;
    let data: Vec<u8> = (0..h * wx).map(|i| ((i * 37 + 11) % 251) as u8).collect();
    let x = Array::from_vec(&[h, wx], data.clone()).unwrap();
    let y = k::conv_rows(&x, taps as i32).unwrap().to_vec().unwrap();
    for m in 0..h {
        for n in 0..w {
            let s: i32 = (0..taps).map(|t| data[m * wx + n + t] as i32).sum();
            let want = (s as f32 / (2 * taps) as f32) as i32 as u8;
            assert_eq!(y[m * w + n], want, "y[{m}, {n}]");
        }
    }
}

#[test]
fn constant_ranges_are_small_vectors_and_index_lists() {
    let h = 5usize;
    let x = Array::from_fn(&[h, 6], |i| i as f32 * 0.5 + 1.0).unwrap();
    let xv = x.to_vec().unwrap();
    let y = k::ranges(&x).unwrap().to_vec().unwrap();
    for p in 0..h {
        let r: Vec<f32> = (0..4).map(|k| (p + 2 * k) as f32).collect();
        let d = [3.0f32, 2.0, 1.0, 0.0];
        let sum_r: f32 = r.iter().sum();
        for j in 0..4 {
            assert_eq!(y[p * 8 + j], sum_r + j as f32, "y[{p}, {j}]");
            let v = xv[p * 6 + d[j] as usize];
            assert_eq!(y[p * 8 + 4 + j], v * (r[j] - p as f32) + d[j], "y[{p}, {}]", j + 4);
        }
    }
}

#[test]
fn scratch_arrays_of_run_time_size_per_thread() {
    let (h, w, n) = (7usize, 9usize, 6usize);
    let x = Array::from_fn(&[h, w], |i| (i % 11) as f32 - 3.0).unwrap();
    let xv = x.to_vec().unwrap();
    let y = k::scratch(&x, n as i32).unwrap().to_vec().unwrap();
    for p in 0..h {
        // A[i, 0] = x[p, i]; A[i, 1] = 2 * A[max(i - 1, 0), 0].
        let a0: Vec<f32> = (0..n).map(|i| xv[p * w + i]).collect();
        let s: f32 =
            a0.iter().sum::<f32>() + (0..n).map(|i| 2.0 * a0[i.saturating_sub(1)]).sum::<f32>();
        assert_eq!(y[p * 3], s + (n * 100) as f32, "y[{p}, 0]");
        for k in 1..=2usize {
            // ones(k + p) with its first element k.
            assert_eq!(y[p * 3 + k], (k + p - 1) as f32 + k as f32, "y[{p}, {k}]");
        }
    }
}

#[test]
fn scratch_arrays_in_a_kernel_with_a_barrier() {
    let (len, n) = (24usize, 5usize);
    let x = Array::from_fn(&[len], |i| (i % 7) as f32 + 1.0).unwrap();
    let xv = x.to_vec().unwrap();
    let y = k::scratch_bar(&x, n as i32).unwrap().to_vec().unwrap();
    let tri = (n * (n - 1) / 2) as f32;
    for p in 0..len {
        // The next thread of the block (blocks of 8) summed its array into shared memory.
        let q = p / 8 * 8 + (p % 8 + 1) % 8;
        assert_eq!(y[p], xv[q] * tri + xv[p] * (n - 1) as f32, "y[{p}]");
    }
}
