//! End to end: kernels whose positions the CPU back end runs in lockstep, in strips of 32
//! positions of a row (`analysis::lockstep`, `backend/rust/strip.rs`), compared bit for bit
//! with a twin of each kernel kept one position at a time (a `break` in a branch that never
//! runs keeps it so) and with a reference computed here in the same order of operations. Rows
//! shorter than a strip, rows of a strip and a remainder, tap loops of no iteration, one to
//! three dimensions (the flat loops of `collapse` included), integer and float locals,
//! branches whose condition differs between the lanes or not.

use quasar::Array;

mod k {
    quasar::quasar! { r#"
function [] = __kernel__ taps(x : mat'mirror, y : mat, fc : vec'const, n : int, pos : ivec2)
    acc = 0.0
    for i = 0..2 * n
        acc += x[pos[0], pos[1] + i - n] * fc[i]
    endfor
    y[pos] = acc
endfunction

function [] = __kernel__ taps_one(x : mat'mirror, y : mat, fc : vec'const, n : int, pos : ivec2)
    acc = 0.0
    for i = 0..2 * n
        if n >= 0
            acc += x[pos[0], pos[1] + i - n] * fc[i]
        else
            break
        endif
    endfor
    y[pos] = acc
endfunction

function [y : mat, z : mat] = row_blur(x : mat, fc : vec, n : int)
    y = uninit(size(x))
    z = uninit(size(x))
    parallel_do(size(x), x, y, fc, n, taps)
    parallel_do(size(x), x, z, fc, n, taps_one)
endfunction

function [] = __kernel__ mm(a : mat, b : mat, c : mat, pos : ivec2)
    s = 0.0
    for k = 0..size(a, 1) - 1
        s += a[pos[0], k] * b[k, pos[1]]
    endfor
    c[pos] = s
endfunction

function [] = __kernel__ mm_one(a : mat, b : mat, c : mat, pos : ivec2)
    s = 0.0
    for k = 0..size(a, 1) - 1
        if k >= 0
            s += a[pos[0], k] * b[k, pos[1]]
        else
            break
        endif
    endfor
    c[pos] = s
endfunction

function [c : mat, d : mat] = matmul(a : mat, b : mat)
    c = zeros(size(a, 0), size(b, 1))
    d = zeros(size(a, 0), size(b, 1))
    parallel_do(size(c), a, b, c, mm)
    parallel_do(size(d), a, b, d, mm_one)
endfunction

function c : mat = product(a : mat, b : mat, n : int)
    c = zeros(size(a, 0), n)
    parallel_do(size(c), a, b, c, mm)
endfunction

function [] = __kernel__ mm_row(a : mat, b : mat, c : mat, pos : ivec2)
    r = pos[0]
    s = 0.0
    for k = 0..size(a, 1) - 1
        s += a[r, k] * b[k, pos[1]]
    endfor
    c[pos] = s + r
endfunction

function [c : mat, d : mat] = matmul_rows(a : mat, b : mat)
    c = uninit(size(a, 0), size(b, 1))
    d = uninit(size(a, 0), size(b, 1))
    parallel_do(size(c), a, b, c, mm)
    parallel_do(size(d), a, b, d, mm_row)
endfunction

function [] = __kernel__ batched(x : cube, w : mat, y : cube, pos : ivec3)
    acc = 0.0
    for i = 0..size(w, 1) - 1
        acc += w[pos[1], i] * x[pos[0], i, pos[2]]
    endfor
    y[pos] = acc
endfunction

function y : cube = batched_product(w : mat, x : cube)
    y = uninit(size(x, 0), size(w, 0), size(x, 2))
    parallel_do(size(y), x, w, y, batched)
endfunction

function [] = __kernel__ mm_checked(a : mat, b : mat'checked, c : mat, pos : ivec2)
    s = 0.0
    for k = 0..size(a, 1) - 1
        s += a[pos[0], k] * b[k, pos[1]]
    endfor
    c[pos] = s
endfunction

function c : mat = product_checked(a : mat, b : mat, n : int)
    c = zeros(size(a, 0), n)
    parallel_do(size(c), a, b, c, mm_checked)
endfunction

function [] = __kernel__ mixed(x : vec, y : vec, w : vec, pos : int)
    c = 0
    acc = 0.5
    t = numel(w)
    for i = 0..t - 1
        c += pos + i
        acc += x[mod(pos + i, numel(x))] * w[i]
    endfor
    y[pos] = acc + c
endfunction

function [] = __kernel__ mixed_one(x : vec, y : vec, w : vec, pos : int)
    c = 0
    acc = 0.5
    t = numel(w)
    for i = 0..t - 1
        if t > 0
            c += pos + i
            acc += x[mod(pos + i, numel(x))] * w[i]
        else
            break
        endif
    endfor
    y[pos] = acc + c
endfunction

function [y : vec, z : vec] = mix(x : vec, w : vec)
    y = uninit(size(x))
    z = uninit(size(x))
    parallel_do(size(x), x, y, w, mixed)
    parallel_do(size(x), x, z, w, mixed_one)
endfunction

function [] = __kernel__ counts(x : mat[int], y : mat[int], n : int, pos : ivec2)
    s = 0
    for i = 0..n
        s += x[pos[0], mod(pos[1] + i, size(x, 1))] * (i + 1)
    endfor
    y[pos] = s
endfunction

function [] = __kernel__ counts_one(x : mat[int], y : mat[int], n : int, pos : ivec2)
    s = 0
    for i = 0..n
        if n >= 0
            s += x[pos[0], mod(pos[1] + i, size(x, 1))] * (i + 1)
        else
            break
        endif
    endfor
    y[pos] = s
endfunction

function [y : mat[int], z : mat[int]] = int_taps(x : mat[int], n : int)
    y = zeros(size(x))
    z = zeros(size(x))
    parallel_do(size(x), x, y, n, counts)
    parallel_do(size(x), x, z, n, counts_one)
endfunction

function [] = __kernel__ along(x : cube'mirror, y : cube, fc : vec'const, n : int, pos : ivec3)
    acc = 0.0
    for i = 0..numel(fc) - 1
        acc += x[pos + [0, i - n, 0]] * fc[i]
    endfor
    y[pos] = acc
endfunction

function [] = __kernel__ along_one(x : cube'mirror, y : cube, fc : vec'const, n : int, pos : ivec3)
    acc = 0.0
    for i = 0..numel(fc) - 1
        if n >= 0
            acc += x[pos + [0, i - n, 0]] * fc[i]
        else
            break
        endif
    endfor
    y[pos] = acc
endfunction

function [] = __kernel__ depth(x : cube, y : cube, pos : ivec3)
    acc = 0.0
    for i = 0..pos[0]
        acc += x[i, pos[1], pos[2]] / (i + 1)
    endfor
    y[pos] = acc
endfunction

function [] = __kernel__ depth_one(x : cube, y : cube, pos : ivec3)
    acc = 0.0
    for i = 0..pos[0]
        if i >= 0
            acc += x[i, pos[1], pos[2]] / (i + 1)
        else
            break
        endif
    endfor
    y[pos] = acc
endfunction

function [] = __kernel__ strided(x : vec'checked, y : vec, n : int, pos : int)
    acc = 0.0
    for i = 0..n
        acc += x[2 * pos + i]
    endfor
    y[pos] = acc
endfunction

function y : vec = strided_sum(x : vec, n : int)
    y = zeros(int(numel(x) / 2))
    parallel_do(size(y), x, y, n, strided)
endfunction

function [y : cube, z : cube, u : cube, v : cube] = cube_taps(x : cube, fc : vec, n : int)
    y = uninit(size(x))
    z = uninit(size(x))
    u = uninit(size(x))
    v = uninit(size(x))
    parallel_do(size(x), x, y, fc, n, along)
    parallel_do(size(x), x, z, fc, n, along_one)
    parallel_do(size(x), x, u, depth)
    parallel_do(size(x), x, v, depth_one)
endfunction

function [] = __kernel__ col_taps(x : mat'mirror, y : mat, fc : vec'const, n : int, pos : ivec2)
    acc = 0.0
    for i = 0..2 * n
        acc += x[pos[0] + i - n, pos[1]] * fc[i]
    endfor
    y[pos] = acc
endfunction

function [] = __kernel__ col_taps_one(x : mat'mirror, y : mat, fc : vec'const, n : int, pos : ivec2)
    acc = 0.0
    for i = 0..2 * n
        if n >= 0
            acc += x[pos[0] + i - n, pos[1]] * fc[i]
        else
            break
        endif
    endfor
    y[pos] = acc
endfunction

function [] = __kernel__ cube_col_taps(x : cube'mirror, y : cube, fc : vec'const, n : int, pos : ivec3)
    acc = 0.0
    for i = 0..2 * n
        acc += x[pos[0] + i - n, pos[1], pos[2]] * fc[i]
    endfor
    y[pos] = acc
endfunction

function [y : mat, z : mat] = col_blur(x : mat, fc : vec, n : int)
    y = uninit(size(x))
    z = uninit(size(x))
    parallel_do(size(x), x, y, fc, n, col_taps)
    parallel_do(size(x), x, z, fc, n, col_taps_one)
endfunction

function y : cube = cube_col_blur(x : cube, fc : vec, n : int)
    y = uninit(size(x))
    parallel_do(size(x), x, y, fc, n, cube_col_taps)
endfunction

function [] = __kernel__ sigma(x : mat'clamped, y : mat, r : int, t : scalar, pos : ivec2)
    c = x[pos]
    s = 0.0
    n = 0
    for dm = -r..r
        if dm != 1
            for dn = -r..r
                v = x[pos[0] + dm, pos[1] + dn]
                if abs(v - c) <= t
                    s += v
                    n += 1
                else
                    s -= 0.5 * v
                endif
            endfor
        endif
    endfor
    y[pos] = s / n
endfunction

function [] = __kernel__ sigma_one(x : mat'clamped, y : mat, r : int, t : scalar, pos : ivec2)
    c = x[pos]
    s = 0.0
    n = 0
    for dm = -r..r
        if dm != 1
            for dn = -r..r
                v = x[pos[0] + dm, pos[1] + dn]
                if abs(v - c) <= t
                    s += v
                    n += 1
                elseif r < 0
                    break
                else
                    s -= 0.5 * v
                endif
            endfor
        endif
    endfor
    y[pos] = s / n
endfunction

function [y : mat, z : mat] = sigma_filter(x : mat, r : int, t : scalar)
    y = uninit(size(x))
    z = uninit(size(x))
    parallel_do(size(x), x, y, r, t, sigma)
    parallel_do(size(x), x, z, r, t, sigma_one)
endfunction

function c : mat = lib_product(a : mat, b : mat)
    c = a * b
endfunction
"# }
}

/// Row lengths around the strip of 32 positions.
const WIDTHS: [usize; 8] = [1, 5, 31, 32, 33, 64, 70, 131];

fn values(n: usize, seed: usize) -> Vec<f32> {
    (0..n).map(|i| ((i * 7919 + seed * 104729) % 1013) as f32 / 97.0 - 4.5).collect()
}

fn mirror(i: i64, n: i64) -> usize {
    let p = 2 * n;
    let m = i.rem_euclid(p);
    (if m < n { m } else { p - 1 - m }) as usize
}

/// Equal bit for bit (`what` names the case).
fn same_bits(what: &str, got: &[f32], want: &[f32]) {
    assert_eq!(got.len(), want.len(), "{what}");
    for (i, (a, b)) in got.iter().zip(want).enumerate() {
        assert_eq!(a.to_bits(), b.to_bits(), "{what}, element {i}: {a} vs {b}");
    }
}

#[test]
fn row_taps_in_strips_equal_the_per_position_code_and_the_reference() {
    for m in [1usize, 3] {
        for n in WIDTHS {
            // Radius 0 (one tap) to wider than the row.
            for r in [0usize, 2, 6, 40] {
                let xs = values(m * n, m + n);
                let fc = values(2 * r + 1, r);
                let x = Array::from_vec(&[m, n], xs.clone()).unwrap();
                let w = Array::from_vec(&[fc.len()], fc.clone()).unwrap();
                let (y, z) = k::row_blur(&x, &w, r as i32).unwrap();
                let (y, z) = (y.to_vec().unwrap(), z.to_vec().unwrap());
                let mut want = vec![0.0f32; m * n];
                for i in 0..m {
                    for j in 0..n {
                        let mut acc = 0.0f32;
                        for (t, f) in fc.iter().enumerate() {
                            acc += xs[i * n + mirror(j as i64 + t as i64 - r as i64, n as i64)] * f;
                        }
                        want[i * n + j] = acc;
                    }
                }
                let what = format!("{m}x{n}, radius {r}");
                same_bits(&what, &y, &z);
                same_bits(&what, &y, &want);
            }
        }
    }
}

/// Taps along dimension 0: the interior rows of a block run as one flat run (merged rows,
/// `qstd::rt::block_runs`), rows shorter than a strip included, whose runs the border code
/// takes one position at a time when the run is shorter than a strip too.
#[test]
fn column_taps_over_merged_rows_equal_the_per_position_code_and_the_reference() {
    for m in [1usize, 2, 5, 40] {
        for n in WIDTHS {
            for r in [0usize, 1, 3] {
                let xs = values(m * n, m + n + 1);
                let fc = values(2 * r + 1, r + 3);
                let x = Array::from_vec(&[m, n], xs.clone()).unwrap();
                let w = Array::from_vec(&[fc.len()], fc.clone()).unwrap();
                let (y, z) = k::col_blur(&x, &w, r as i32).unwrap();
                let (y, z) = (y.to_vec().unwrap(), z.to_vec().unwrap());
                let mut want = vec![0.0f32; m * n];
                for i in 0..m {
                    for j in 0..n {
                        let mut acc = 0.0f32;
                        for (t, f) in fc.iter().enumerate() {
                            acc += xs[mirror(i as i64 + t as i64 - r as i64, m as i64) * n + j] * f;
                        }
                        want[i * n + j] = acc;
                    }
                }
                let what = format!("{m}x{n}, radius {r}");
                same_bits(&what, &y, &z);
                same_bits(&what, &y, &want);
            }
        }
    }
    for dims in [[1usize, 1, 1], [3, 2, 3], [9, 5, 3], [40, 17, 3]] {
        let [m, n, c] = dims;
        let xs = values(m * n * c, 7);
        let x = Array::from_vec(&dims, xs.clone()).unwrap();
        for r in [0usize, 2] {
            let fc = values(2 * r + 1, 8);
            let w = Array::from_vec(&[fc.len()], fc.clone()).unwrap();
            let y = k::cube_col_blur(&x, &w, r as i32).unwrap().to_vec().unwrap();
            let mut want = Vec::new();
            for i in 0..m {
                for jk in 0..n * c {
                    let mut acc = 0.0f32;
                    for (t, f) in fc.iter().enumerate() {
                        acc +=
                            xs[mirror(i as i64 + t as i64 - r as i64, m as i64) * n * c + jk] * f;
                    }
                    want.push(acc);
                }
            }
            same_bits(&format!("{dims:?}, radius {r}"), &y, &want);
        }
    }
}

#[test]
fn matrix_products_in_strips_equal_the_per_position_code_and_the_reference() {
    for (m, k, n) in [(1usize, 1usize, 1usize), (3, 7, 33), (5, 0, 40), (4, 19, 64), (2, 33, 100)] {
        let (av, bv) = (values(m * k, 1), values(k * n, 2));
        let a = Array::from_vec(&[m, k], av.clone()).unwrap();
        let b = Array::from_vec(&[k, n], bv.clone()).unwrap();
        let (c, d) = k::matmul(&a, &b).unwrap();
        let (c, d) = (c.to_vec().unwrap(), d.to_vec().unwrap());
        let mut want = vec![0.0f32; m * n];
        for i in 0..m {
            for j in 0..n {
                let mut s = 0.0f32;
                for p in 0..k {
                    s += av[i * k + p] * bv[p * n + j];
                }
                want[i * n + j] = s;
            }
        }
        let what = format!("{m}x{k} times {k}x{n}");
        same_bits(&what, &c, &d);
        same_bits(&what, &c, &want);
    }
}

#[test]
fn matrix_products_in_row_pairs_with_odd_sizes_equal_the_reference() {
    // Two rows of positions per strip (`Lockstep::pairs`): odd and even row counts (a last
    // row without a partner), rows shorter than a strip and with a remainder, a single row,
    // and launches of several CPU blocks of odd heights (block_row_pairs pairs rows within a
    // block). `mm_row` reads its row through a local, which differs between the two rows.
    for (m, k, n) in
        [(7usize, 37usize, 45usize), (2, 3, 32), (1, 10, 100), (9, 64, 31), (301, 17, 257)]
    {
        let (av, bv) = (values(m * k, 11), values(k * n, 12));
        let a = Array::from_vec(&[m, k], av.clone()).unwrap();
        let b = Array::from_vec(&[k, n], bv.clone()).unwrap();
        let (c, d) = k::matmul_rows(&a, &b).unwrap();
        let (c, d) = (c.to_vec().unwrap(), d.to_vec().unwrap());
        let want = product_reference(&av, &bv, (m, k, n));
        let what = format!("{m}x{k} times {k}x{n}");
        same_bits(&what, &c, &want);
        let rows: Vec<f32> = want.iter().enumerate().map(|(i, s)| s + (i / n) as f32).collect();
        same_bits(&format!("{what}, the row through a local"), &d, &rows);
    }
}

#[test]
fn batched_products_pair_rows_along_the_middle_dimension() {
    // y[b, i, j] = sum over p of w[i, p] * x[b, p, j]: the rows of a pair share x's reads.
    for (batch, m, k, n) in [(3usize, 5usize, 7usize, 33usize), (2, 4, 1, 70), (1, 9, 16, 40)] {
        let (wv, xv) = (values(m * k, 13), values(batch * k * n, 14));
        let w = Array::from_vec(&[m, k], wv.clone()).unwrap();
        let x = Array::from_vec(&[batch, k, n], xv.clone()).unwrap();
        let y = k::batched_product(&w, &x).unwrap().to_vec().unwrap();
        let mut want = vec![0.0f32; batch * m * n];
        for b in 0..batch {
            for i in 0..m {
                for j in 0..n {
                    let mut s = 0.0f32;
                    for p in 0..k {
                        s += wv[i * k + p] * xv[(b * k + p) * n + j];
                    }
                    want[(b * m + i) * n + j] = s;
                }
            }
        }
        same_bits(&format!("{m}x{k} times {batch}x{k}x{n}"), &y, &want);
    }
}

#[test]
fn branches_in_strips_equal_the_per_position_code_and_the_reference() {
    // A sigma filter: a branch whose condition differs between the lanes (each lane adds the
    // taps within `t` of its centre, and subtracts half of the others), inside a branch whose
    // condition is the same for the whole strip; clamped reads at the edges.
    let clamp = |i: i64, n: usize| i.clamp(0, n as i64 - 1) as usize;
    for (m, n) in [(3usize, 1usize), (5, 31), (4, 33), (7, 70), (2, 131)] {
        let xv = values(m * n, 21);
        let x = Array::from_vec(&[m, n], xv.clone()).unwrap();
        for (r, t) in [(0i32, 0.5f32), (1, 0.25), (2, 0.1)] {
            let (y, z) = k::sigma_filter(&x, r, t).unwrap();
            let (y, z) = (y.to_vec().unwrap(), z.to_vec().unwrap());
            let mut want = vec![0.0f32; m * n];
            for i in 0..m {
                for j in 0..n {
                    let c = xv[i * n + j];
                    let (mut s, mut cnt) = (0.0f32, 0i32);
                    for dm in -r..=r {
                        if dm != 1 {
                            for dn in -r..=r {
                                let (a, b) = (
                                    clamp(i as i64 + dm as i64, m),
                                    clamp(j as i64 + dn as i64, n),
                                );
                                let v = xv[a * n + b];
                                if (v - c).abs() <= t {
                                    s += v;
                                    cnt += 1;
                                } else {
                                    s -= 0.5 * v;
                                }
                            }
                        }
                    }
                    want[i * n + j] = s / cnt as f32;
                }
            }
            let what = format!("{m}x{n}, r = {r}, t = {t}");
            same_bits(&what, &y, &z);
            same_bits(&what, &y, &want);
        }
    }
}

#[test]
fn large_real_library_products_stay_in_the_packed_library() {
    // `c = a * b` of `mat`s stays in the library on the CPU at every size (its packed product
    // sums in its own order: within rounding of the kernel's order). Odd extents: row blocks
    // of different heights, panel remainders.
    for (m, k, n) in [(257usize, 301usize, 259usize), (255, 40, 300), (3, 700, 5)] {
        let (av, bv) = (values(m * k, 31), values(k * n, 32));
        let a = Array::from_vec(&[m, k], av.clone()).unwrap();
        let b = Array::from_vec(&[k, n], bv.clone()).unwrap();
        let c = k::lib_product(&a, &b).unwrap().to_vec().unwrap();
        let want = product_reference(&av, &bv, (m, k, n));
        let bad = c.iter().zip(&want).position(|(x, y)| (x - y).abs() > 1e-3 * (1.0 + y.abs()));
        assert!(bad.is_none(), "{m}x{k} times {k}x{n}: element {bad:?}");
    }
}

/// Where `mm_checked` reads `b` (a `quasar!` source's lines are this file's).
const MM_READ_AT: &str = "tests/e2e_strips.rs:104:29";

/// `a * b[0..size(a, 1) - 1, :]` computed here in the kernel's order of operations.
fn product_reference(av: &[f32], bv: &[f32], (m, k, n): (usize, usize, usize)) -> Vec<f32> {
    let mut want = vec![0.0f32; m * n];
    for i in 0..m {
        for j in 0..n {
            let mut s = 0.0f32;
            for p in 0..k {
                s += av[i * k + p] * bv[p * n + j];
            }
            want[i * n + j] = s;
        }
    }
    want
}

#[test]
fn a_matrix_product_with_more_rows_of_b_than_it_reads_passes_its_guard() {
    // `k` runs to `size(a, 1) - 1 < size(b, 0)`: the guard holds, the reads of `b` are
    // unchecked in the interior (strips along its rows), the last rows are never read.
    for (m, k, rows, n) in [(3usize, 5usize, 9usize, 40usize), (2, 33, 40, 70), (4, 0, 3, 33)] {
        let (av, bv) = (values(m * k, 5), values(rows * n, 6));
        let a = Array::from_vec(&[m, k], av.clone()).unwrap();
        let b = Array::from_vec(&[rows, n], bv.clone()).unwrap();
        let c = k::product(&a, &b, n as i32).unwrap().to_vec().unwrap();
        same_bits(
            &format!("{m}x{k} times {rows}x{n}"),
            &c,
            &product_reference(&av, &bv, (m, k, n)),
        );
    }
}

#[test]
fn a_matrix_product_whose_guard_fails_runs_the_checked_code() {
    // `b` has fewer rows than `a` has columns: the guard `size(a, 1) - 1 < size(b, 0)` fails
    // and every position runs the border code. There the reads past `b`'s last row are 0
    // (`mat` reads are `'safe`); with `b : mat'checked`, reading row 7 is the error, with the
    // Quasar line of the read.
    let (m, k, rows, n) = (4usize, 10usize, 7usize, 40usize);
    let (av, bv) = (values(m * k, 7), values(rows * n, 8));
    let a = Array::from_vec(&[m, k], av.clone()).unwrap();
    let b = Array::from_vec(&[rows, n], bv.clone()).unwrap();
    let c = k::product(&a, &b, n as i32).unwrap().to_vec().unwrap();
    let mut padded = bv.clone();
    padded.resize(k * n, 0.0);
    same_bits("4x10 times 7x40 read as 10x40", &c, &product_reference(&av, &padded, (m, k, n)));
    let err = k::product_checked(&a, &b, n as i32).unwrap_err().to_string();
    let want = format!("{MM_READ_AT}: in kernel `mm_checked`: index [7, ");
    assert!(err.starts_with(&want), "{err}");
    assert!(err.ends_with("] is out of range for `b` with shape [7, 40]"), "{err}");
}

#[test]
fn integer_and_float_locals_in_one_dimension() {
    for n in WIDTHS {
        // No taps at all, then a few.
        for taps in [0usize, 1, 5] {
            let xs = values(n, 3);
            let ws = values(taps, 4);
            let x = Array::from_vec(&[n], xs.clone()).unwrap();
            let w = Array::from_vec(&[taps], ws.clone()).unwrap();
            let (y, z) = k::mix(&x, &w).unwrap();
            let (y, z) = (y.to_vec().unwrap(), z.to_vec().unwrap());
            let want: Vec<f32> = (0..n)
                .map(|p| {
                    let (mut c, mut acc) = (0i32, 0.5f32);
                    for (i, wi) in ws.iter().enumerate() {
                        c += (p + i) as i32;
                        acc += xs[(p + i) % n] * wi;
                    }
                    acc + c as f32
                })
                .collect();
            let what = format!("{n} positions, {taps} taps");
            same_bits(&what, &y, &z);
            same_bits(&what, &y, &want);
        }
    }
}

#[test]
fn integer_sums_in_strips() {
    for n in WIDTHS {
        for r in [0usize, 3] {
            let m = 2;
            let xs: Vec<i32> = (0..m * n).map(|i| ((i * 37) % 19) as i32 - 9).collect();
            let x = Array::from_vec(&[m, n], xs.clone()).unwrap();
            let (y, z) = k::int_taps(&x, r as i32).unwrap();
            let (y, z) = (y.to_vec().unwrap(), z.to_vec().unwrap());
            let mut want = vec![0i32; m * n];
            for i in 0..m {
                for j in 0..n {
                    want[i * n + j] =
                        (0..=r).map(|t| xs[i * n + (j + t) % n] * (t as i32 + 1)).sum();
                }
            }
            assert_eq!(y, z, "{m}x{n}, {r}");
            assert_eq!(y, want, "{m}x{n}, {r}");
        }
    }
}

#[test]
fn cubes_in_strips_along_the_last_dimension_or_flat() {
    for dims in [[1usize, 1, 1], [2, 5, 3], [3, 4, 37], [2, 17, 3], [4, 3, 64]] {
        let [m, n, c] = dims;
        let xs = values(m * n * c, 5);
        let x = Array::from_vec(&dims, xs.clone()).unwrap();
        let at = |i: usize, j: usize, k: usize| xs[(i * n + j) * c + k];
        for r in [0usize, 2] {
            let fc = values(2 * r + 1, 6);
            let w = Array::from_vec(&[fc.len()], fc.clone()).unwrap();
            let (y, z, u, v) = k::cube_taps(&x, &w, r as i32).unwrap();
            let [y, z, u, v] = [y, z, u, v].map(|a| a.to_vec().unwrap());
            let (mut along, mut depth) = (Vec::new(), Vec::new());
            for i in 0..m {
                for j in 0..n {
                    for ch in 0..c {
                        let mut acc = 0.0f32;
                        for (t, f) in fc.iter().enumerate() {
                            let jj = mirror(j as i64 + t as i64 - r as i64, n as i64);
                            acc += at(i, jj, ch) * f;
                        }
                        along.push(acc);
                        let mut acc = 0.0f32;
                        for t in 0..=i {
                            acc += at(t, j, ch) / (t + 1) as f32;
                        }
                        depth.push(acc);
                    }
                }
            }
            let what = format!("{dims:?}, radius {r}");
            same_bits(&what, &y, &z);
            same_bits(&what, &y, &along);
            same_bits(&what, &u, &v);
            same_bits(&what, &u, &depth);
        }
    }
}

#[test]
fn a_checked_read_outside_its_array_is_still_an_error_in_strips() {
    // `x[2 * pos + i]` is not affine in `pos`: the read stays checked inside the strips.
    let m = 70;
    let xs = values(2 * m, 7);
    let x = Array::from_vec(&[2 * m], xs.clone()).unwrap();
    let y = k::strided_sum(&x, 0).unwrap().to_vec().unwrap();
    let want: Vec<f32> = (0..m).map(|p| 0.0 + xs[2 * p]).collect();
    same_bits("every other element", &y, &want);
    // The last position reads one element past the end (which positions ran before the error
    // is unspecified, as on a GPU).
    let err = k::strided_sum(&x, 2).unwrap_err().to_string();
    assert!(err.contains("`x`"), "{err}");
}

/// The CPU dispatcher picks the strips' version per machine (AVX2+FMA, or on CPUs without it
/// the border code over whole rows): run this file's tests again in a child process with the
/// wider version turned off.
#[test]
fn every_cpu_version_of_the_strips_agrees() {
    if std::env::var_os("QUASAR_NO_AVX2").is_some() {
        return; // already a child
    }
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--skip", "every_cpu_version_of_the_strips_agrees", "--test-threads=2"])
        .env("QUASAR_NO_AVX2", "1")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "with QUASAR_NO_AVX2=1:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}
