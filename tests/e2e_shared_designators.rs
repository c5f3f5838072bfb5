//! End to end: shared memory designators (manual §9.2) in kernels, compared with the same
//! computation in Rust. .ci/run also runs this file with every launch on interpreted PTX.

use quasar::Array;

mod m {
    quasar::quasar!(file = "tests/common/shared_designators.q");
}

#[test]
fn the_manuals_shared_memory_histogram() {
    for n in [1usize, 100, 5000] {
        let im: Vec<f32> = (0..n).map(|i| ((i * 7 + i / 3) % 16) as f32).collect();
        let mut want = [0f32; 16];
        for v in &im {
            want[*v as usize] += 1.0;
        }
        let x = Array::from_vec(&[n], im).unwrap();
        let h = m::histogram16(&x).unwrap().to_vec().unwrap();
        assert_eq!(h, want, "n = {n}");
    }
}

#[test]
fn an_uninitialised_designator_filled_by_the_block() {
    let w: Vec<f32> = (0..8).map(|k| k as f32 * 0.5 - 1.0).collect();
    let n: usize = 300;
    let (y, t) = m::table_lookup(&Array::from_vec(&[8], w.clone()).unwrap(), n as i32).unwrap();
    let (y, t) = (y.to_vec().unwrap(), t.to_vec().unwrap());
    let table: Vec<f32> = w.iter().map(|v| 2.0 * v + 1.0).collect();
    assert_eq!(t, table);
    for (i, v) in y.iter().enumerate() {
        assert_eq!(*v, table[i % 8] * i as f32, "y[{i}]");
    }
}

#[test]
fn fetch_and_broadcast_of_a_window_per_block() {
    for n in [5usize, 16, 100] {
        let x: Vec<f32> = (0..n).map(|i| ((i * 5) % 11) as f32 - 3.0).collect();
        let y = m::blur16(&Array::from_vec(&[n], x.clone()).unwrap()).unwrap().to_vec().unwrap();
        let at = |i: i64| if i < 0 || i >= n as i64 { 0.0 } else { x[i as usize] };
        for (i, v) in y.iter().enumerate() {
            let i = i as i64;
            let want = 0.5 * at(i - 1) + 0.5 * at(i) + 0.5 * at(i + 1);
            assert!((v - want).abs() <= 1e-6, "n = {n}, y[{i}] = {v}, want {want}");
        }
    }
}

#[test]
fn fetch_and_broadcast_of_the_manuals_transposed_tile() {
    let (rows, cols) = (5usize, 7usize);
    let a: Vec<f32> = (0..rows * cols).map(|k| (k as f32) * 0.25 - 2.0).collect();
    let (s, t) = (1.5f32, -0.75f32);
    let (h, w) = (13usize, 9usize);
    let y = m::tile(&Array::from_vec(&[rows, cols], a.clone()).unwrap(), s, t, h as i32, w as i32)
        .unwrap()
        .to_vec()
        .unwrap();
    for i in 0..h {
        for j in 0..w {
            // B = transpose(s .* A[0..3, 0..5] + t): B[r, c] = s * A[c, r] + t.
            let (r, c) = (i % 6, j % 4);
            let want = s * a[c * cols + r] + t;
            assert!(
                (y[i * w + j] - want).abs() <= 1e-6,
                "y[{i}, {j}] = {}, want {want}",
                y[i * w + j]
            );
        }
    }
}

#[test]
fn fetch_and_broadcast_of_a_scalar_and_a_small_vector() {
    let w = [1.5f32, -2.0, 0.25, 3.0];
    let n = 70;
    let x: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
    let wa = Array::from_vec(&[4], w.to_vec()).unwrap();
    let y =
        m::broadcast(&wa, &Array::from_vec(&[n], x.clone()).unwrap()).unwrap().to_vec().unwrap();
    let c = w[0] * w[1] + w[2];
    for (i, v) in y.iter().enumerate() {
        let want = c * x[i] + 2.0 * w[i % 4];
        assert!((v - want).abs() <= 1e-5, "y[{i}] = {v}, want {want}");
    }
}

#[test]
fn a_shared_calculation_loop_split_over_the_block() {
    let (rows, cols) = (8usize, 5usize);
    let a: Vec<f32> = (0..rows * cols).map(|i| ((i * 5) % 11) as f32 * 0.25 - 1.0).collect();
    let total: f32 = (0..rows)
        .map(|l| (1.0 + (0..cols).map(|k| a[l * cols + k].powi(2)).sum::<f32>()).ln())
        .sum();
    for n in [5usize, 16, 40] {
        let am = Array::from_vec(&[rows, cols], a.clone()).unwrap();
        let y = m::shared_calculation(&am, n as i32).unwrap().to_vec().unwrap();
        for (p, v) in y.iter().enumerate() {
            let want = total * (p + 1) as f32 + 2.0 * (p % 4) as f32 + 3.0;
            assert!(
                (v - want).abs() < 1e-3 * want.abs().max(1.0),
                "n = {n}, y[{p}] = {v}, want {want}"
            );
        }
    }
}

#[test]
fn the_manuals_reduction_in_a_parallel_loop_with_a_block_size() {
    for (a, b, c) in [(3usize, 5usize, 2usize), (10, 11, 3), (1, 1, 1)] {
        let v: Vec<f32> = (0..a * b * c).map(|i| ((i * 13) % 17) as f32 * 0.5).collect();
        let im = Array::from_vec(&[a, b, c], v.clone()).unwrap();
        let y = m::block_reduction(&im).unwrap();
        let want: f32 = v.iter().sum();
        assert!((y - want).abs() < 1e-3 * want.max(1.0), "{a}x{b}x{c}: {y} vs {want}");
    }
}

#[test]
fn a_zeroed_designator_in_blocks_of_a_constant_size() {
    for n in [8usize, 21] {
        let x: Vec<f32> = (0..n).map(|i| ((i * 7) % 10) as f32 + 1.0).collect();
        let y =
            m::block_sums8(&Array::from_vec(&[n], x.clone()).unwrap()).unwrap().to_vec().unwrap();
        for (i, v) in y.iter().enumerate() {
            let blk = &x[i / 8 * 8..(i / 8 * 8 + 8).min(n)];
            let want: f32 = blk.iter().sum();
            assert_eq!(*v, want, "n = {n}, y[{i}]");
        }
    }
}

/// `x` filtered with `w` along both axes, zero outside.
fn separable_reference(x: &[f32], h: usize, w: usize, f: &[f32]) -> Vec<f32> {
    let c = (f.len() / 2) as i64;
    let at = |i: i64, j: i64, ch: usize| {
        if i < 0 || j < 0 || i >= h as i64 || j >= w as i64 {
            0.0
        } else {
            x[(i as usize * w + j as usize) * 3 + ch]
        }
    };
    let mut y = vec![0f32; h * w * 3];
    for i in 0..h {
        for j in 0..w {
            for ch in 0..3 {
                let mut s = 0f32;
                for (k, fk) in f.iter().enumerate() {
                    for (l, fl) in f.iter().enumerate() {
                        s += fk * fl * at(i as i64 - c + k as i64, j as i64 - c + l as i64, ch);
                    }
                }
                y[(i * w + j) * 3 + ch] = s;
            }
        }
    }
    y
}

#[test]
fn the_manuals_separable_filter_generic_in_its_half_length() {
    let (h, w) = (32usize, 48usize);
    let x: Vec<f32> = (0..h * w * 3).map(|i| ((i * 37) % 23) as f32 * 0.25).collect();
    let (f5, f3) = (vec![0.1f32, 0.2, 0.4, 0.2, 0.1], vec![0.25f32, 0.5, 0.25]);
    let img = Array::from_vec(&[h, w, 3], x.clone()).unwrap();
    let (y2, y1) = m::separable_filters(
        &img,
        &Array::from_vec(&[5], f5.clone()).unwrap(),
        &Array::from_vec(&[3], f3.clone()).unwrap(),
    )
    .unwrap();
    for (y, f) in [(y2, f5), (y1, f3)] {
        let want = separable_reference(&x, h, w, &f);
        for (k, (a, b)) in y.to_vec().unwrap().iter().zip(&want).enumerate() {
            assert!((a - b).abs() < 1e-3, "c = {}, element {k}: {a} vs {b}", f.len() / 2);
        }
    }
}

#[test]
fn shared_memory_sized_from_variables_computed_from_blkdim() {
    let (h, w) = (16usize, 32usize);
    let x: Vec<f32> = (0..h * w * 3).map(|i| ((i * 29) % 13) as f32).collect();
    let y = m::box3(&Array::from_vec(&[h, w, 3], x.clone()).unwrap()).unwrap().to_vec().unwrap();
    let at = |i: i64, j: i64, c: usize| {
        if i < 0 || j < 0 || i >= h as i64 || j >= w as i64 {
            0.0
        } else {
            x[(i as usize * w + j as usize) * 3 + c]
        }
    };
    for i in 0..h as i64 {
        for j in 0..w as i64 {
            for c in 0..3 {
                let want: f32 = (-1..=1)
                    .flat_map(|a| (-1..=1).map(move |b| (a, b)))
                    .map(|(a, b)| at(i + a, j + b, c))
                    .sum::<f32>()
                    / 9.0;
                let got = y[(i as usize * w + j as usize) * 3 + c];
                assert!((got - want).abs() < 1e-4, "({i}, {j}, {c}): {got} vs {want}");
            }
        }
    }
}

#[test]
fn the_manuals_fetch_and_store_transposes_a_tile_in_place() {
    let (rows, cols) = (12usize, 11usize);
    let a: Vec<f32> = (0..rows * cols).map(|k| (k as f32) * 0.5 - 3.0).collect();
    let x = Array::from_vec(&[rows, cols], a.clone()).unwrap();
    let (s, t) = (2.0f32, 1.0f32);
    m::transpose_tile(&x, s, t).unwrap();
    let y = x.to_vec().unwrap();
    for i in 0..rows {
        for j in 0..cols {
            // B = transpose(s * A[0..9, 0..9] + t); A[0..9, 0..9] = transpose(B).
            let want = if i < 10 && j < 10 { s * a[i * cols + j] + t } else { a[i * cols + j] };
            assert_eq!(y[i * cols + j], want, "A[{i}, {j}]");
        }
    }
}

#[test]
fn a_store_with_plus_equals_adds_every_blocks_values() {
    let a: Vec<f32> = (0..4 * 6).map(|k| k as f32 * 0.25).collect();
    let x = Array::from_vec(&[4, 6], a.clone()).unwrap();
    let nblocks = 3;
    let y = m::store_sum(&x, nblocks).unwrap().to_vec().unwrap();
    for i in 0..5 {
        for j in 0..3 {
            // y[1..4, 0..2] += transpose(2 .* A[0..2, 1..4]) - 1, once per block.
            let want = if i == 0 { 0.0 } else { nblocks as f32 * (2.0 * a[j * 6 + i] - 1.0) };
            assert_eq!(y[i * 3 + j], want, "y[{i}, {j}]");
        }
    }
}

#[test]
fn a_designated_cube_of_run_time_size_bounded_by_an_assertion() {
    let shape = [7usize, 6, 2];
    let x = quasar::Array::from_fn(&shape, |i| i as f32 * 0.5 - 3.0).unwrap();
    let xs = x.to_vec().unwrap();
    for (m, n, k) in [(4usize, 3usize, 2usize), (2, 2, 1)] {
        let y = m::flipped_tiles(&x, m as i32, n as i32, k as i32).unwrap().to_vec().unwrap();
        for i in 0..shape[0] {
            for j in 0..shape[1] {
                for l in 0..shape[2] {
                    // The element mirrored within the tile of `m` rows; 0 past the last row.
                    let t0 = i / m * m;
                    let src = t0 + m - 1 - (i - t0);
                    let want =
                        if src < shape[0] { xs[(src * shape[1] + j) * shape[2] + l] } else { 0.0 };
                    assert_eq!(
                        y[(i * shape[1] + j) * shape[2] + l],
                        want,
                        "tile {m}: y[{i}, {j}, {l}]"
                    );
                }
            }
        }
    }
}

#[test]
fn a_two_dimensional_block_size_gives_each_tile_its_shared_memory() {
    let (h, w, n) = (7usize, 10usize, 4usize);
    let a: Vec<f32> = (0..h * w).map(|k| k as f32 + 0.5).collect();
    let y = m::tile_transpose_blocks(&Array::from_vec(&[h, w], a.clone()).unwrap())
        .unwrap()
        .to_vec()
        .unwrap();
    for i in 0..h {
        for j in 0..w {
            // Within the tile at (bi, bj), element (i, j) reads (row of j, column of i);
            // outside the matrix the tile holds 0.
            let (bi, bj) = (i / n, j / n);
            let (r, c) = (bi * n + j % n, bj * n + i % n);
            let t = if r < h && c < w { a[r * w + c] } else { 0.0 };
            let want = t + (bi * 1000 + bj * 100) as f32;
            assert_eq!(y[i * w + j], want, "y[{i}, {j}]");
        }
    }
}
