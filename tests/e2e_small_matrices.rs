//! End to end: small matrices (`mat(2, 3)`, `cube(2, 2, 2)`) as kernel locals and as fields
//! of classes in arrays, compared with the same computation in Rust. On the GPU they live in
//! registers (row-major, as the CPU's `[T; N]`), so .ci/run also runs this file with every
//! launch on interpreted PTX.

mod k {
    quasar::quasar!(file = "tests/common/small_matrices.q");
}

#[test]
fn a_local_matrix_is_indexed_sized_summed_and_reads_zero_outside() {
    let (h, w) = (5usize, 7usize);
    let y = k::local_matrix(h as i32, w as i32).unwrap().to_vec().unwrap();
    for i in 0..h {
        for j in 0..w {
            let mut m = [[1.0f32, 2.0, 3.0], [4.0, 5.0, 6.0]];
            let (r, c) = (i % 2, j % 3);
            m[r][c] += i as f32;
            let sum: f32 = m.iter().flatten().sum();
            // m[2, 0] is outside (0), and so is m[j, 7] (7 > 2).
            let want = 3.0 * m[r][c] + sum + 300.0 + 2000.0;
            assert_eq!(y[i * w + j], want, "y[{i}, {j}]");
        }
    }
}

#[test]
fn a_cube_literal_zeros_and_a_stack_are_indexed_with_three_two_and_one_subscripts() {
    let n = 11usize;
    let y = k::cube_and_zeros(n as i32).unwrap().to_vec().unwrap();
    for (p, v) in y.iter().enumerate() {
        let q = |i: usize, j: usize, k: usize| (i * 4 + j * 2 + k + 1) as f32;
        let mut z = [[0.0f32; 2]; 2];
        z[p % 2][1] = q(1, p % 2, 0);
        let want = z[0][1] * 10.0 + z[1][1] + (p % 8 + 1) as f32 * 100.0 + z[p % 2][1] * 1000.0;
        assert_eq!(*v, want, "y[{p}]");
    }
}

#[test]
fn matrix_fields_of_an_array_of_classes_are_read_and_written() {
    let n = 6;
    let (y, s) = k::patches(n as i32).unwrap();
    let (y, s) = (y.to_vec().unwrap(), s.to_vec().unwrap());
    for i in 0..n {
        let f = i as f32;
        let m = [[f, 2.0 * f, 3.0 * f], [1.0, 2.0, 3.0]];
        let w = f + 1.0;
        for j in 0..3 {
            assert_eq!(y[i * 3 + j], m[1][j] * w + m[0][j], "y[{i}, {j}]");
        }
        let mut after = m;
        after[1][2] = w;
        after[0][i % 3] += 0.5;
        let flat: Vec<f32> = after.iter().flatten().copied().collect();
        assert_eq!(&s[i * 6..i * 6 + 6], &flat[..], "a[{i}].m");
    }
}
