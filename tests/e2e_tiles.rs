//! End to end: kernels whose rows of positions walk an array across its rows (transposes) run
//! on the CPU in tiles of 16 rows of 256 positions (`run::Kernel::cpu_tiles`); partial tiles at every edge, the
//! generated form of `transpose(x)` and a kernel over a cube, each against plain Rust.

use quasar::Array;

mod q {
    quasar::quasar!(
        r#"
function [] = __kernel__ transpose_k(x : mat, y : mat, pos : ivec2)
    y[pos[1], pos[0]] = x[pos]
endfunction

function y : mat = transposed(x : mat)
    y = zeros(size(x, 1), size(x, 0))
    parallel_do(size(x), x, y, transpose_k)
endfunction

function y : mat = transposed_by_expression(x : mat)
    y = transpose(x)
endfunction

function [] = __kernel__ symmetrise_k(x : mat, y : mat, pos : ivec2)
    y[pos] = 0.5 * (x[pos] + x[pos[1], pos[0]])
endfunction

function y : mat = symmetrised(x : mat)
    y = zeros(size(x))
    parallel_do(size(x), x, y, symmetrise_k)
endfunction

function [] = __kernel__ swap_k(x : cube, y : cube, pos : ivec3)
    y[pos[0], pos[2], pos[1]] = x[pos]
endfunction

function y : cube = swapped(x : cube)
    y = zeros(size(x, 0), size(x, 2), size(x, 1))
    parallel_do(size(x), x, y, swap_k)
endfunction
"#
    );
}

fn values(dims: &[usize]) -> Array<f32> {
    Array::from_fn(dims, |i| ((i * 37) % 1009) as f32 - 300.0).unwrap()
}

#[test]
fn transposes_in_tiles_match_rust_at_every_edge() {
    for (m, n) in
        [(1, 1), (1, 70), (70, 1), (3, 130), (67, 131), (130, 65), (64, 64), (129, 200), (40, 600)]
    {
        let x = values(&[m, n]);
        let xs = x.to_vec().unwrap();
        let want: Vec<f32> = (0..m * n).map(|k| xs[(k % m) * n + k / m]).collect();
        let y = q::transposed(&x).unwrap();
        assert_eq!(y.shape(), &[n, m]);
        assert_eq!(y.to_vec().unwrap(), want, "kernel {m}x{n}");
        let y = q::transposed_by_expression(&x).unwrap();
        assert_eq!(y.shape(), &[n, m]);
        assert_eq!(y.to_vec().unwrap(), want, "expression {m}x{n}");
    }
}

#[test]
fn a_kernel_reading_along_and_across_rows_matches_rust() {
    for n in [1, 5, 64, 65, 150] {
        let x = values(&[n, n]);
        let xs = x.to_vec().unwrap();
        let want: Vec<f32> = (0..n * n).map(|k| 0.5 * (xs[k] + xs[(k % n) * n + k / n])).collect();
        assert_eq!(q::symmetrised(&x).unwrap().to_vec().unwrap(), want, "{n}x{n}");
    }
}

#[test]
fn the_two_innermost_dimensions_of_a_cube_are_tiled() {
    for (a, b, c) in [(2, 3, 4), (3, 70, 130), (2, 33, 300)] {
        let x = values(&[a, b, c]);
        let xs = x.to_vec().unwrap();
        let y = q::swapped(&x).unwrap();
        assert_eq!(y.shape(), &[a, c, b]);
        let ys = y.to_vec().unwrap();
        for i in 0..a {
            for j in 0..b {
                for k in 0..c {
                    assert_eq!(ys[(i * c + k) * b + j], xs[(i * b + j) * c + k], "{a}x{b}x{c}");
                }
            }
        }
    }
}
