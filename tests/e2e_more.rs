//! End to end: the rest of the CPU issue's list, each compared with plain Rust: `print` and
//! `assert`, nested functions, device functions called from host code, double precision,
//! built-ins inside kernels, the forms of `parallel_do` and the special parameters, built-ins
//! with a dimension argument, random numbers, and the agreement of the kernel versions the CPU
//! dispatcher picks from (AVX2+FMA, or baseline x86-64).

use quasar::Array;

mod m {
    quasar::quasar! { r#"
function [] = show(n : int, x : scalar, v : vec)
    print("n = ", n, ", x = ", x)
    print(v)
endfunction

function y = checked_sqrt(x : scalar)
    assert(x >= 0)
    y = sqrt(x)
endfunction

function y = outer(x : scalar)
    function z = inner(a : scalar)
        z = a * a + 1
    endfunction
    y = inner(x) + inner(2 * x)
endfunction

function y = __device__ smoothstep(a : scalar, b : scalar, x : scalar)
    t = min(max((x - a) / (b - a), 0.0), 1.0)
    y = t * t * (3 - 2 * t)
endfunction

function y = host_smoothstep(x : scalar)
    y = smoothstep(0.0, 2.0, x)
endfunction

function [] = __kernel__ kernel_math(x : vec, y : mat, pos : int)
    v = x[pos]
    y[pos, 0] = sin(v)
    y[pos, 1] = cos(v)
    y[pos, 2] = exp(v)
    y[pos, 3] = log(abs(v) + 1)
    y[pos, 4] = sqrt(abs(v))
    y[pos, 5] = atan2(v, 1.5)
    y[pos, 6] = floor(v)
    y[pos, 7] = ceil(v)
    y[pos, 8] = round(v)
    y[pos, 9] = frac(v)
    y[pos, 10] = mod(v, 1.25)
    y[pos, 11] = pow(abs(v), 1.7)
    y[pos, 12] = tan(v / 4)
    y[pos, 13] = log2(abs(v) + 1)
    y[pos, 14] = smoothstep(-1.0, 1.0, v)
    y[pos, 15] = abs(v)
endfunction

function [] = __kernel__ kernel_small_arrays(x : vec, y : mat, pos : int)
    v = x[pos]
    w = zeros(3)
    w[0] = v
    w[1] = 2 * v
    w[2] = -v
    o = ones(2)
    y[pos, 0] = sum(w) + sum(o)
    y[pos, 1] = min(v, 0.5)
    y[pos, 2] = max(w[1], w[2])
    y[pos, 3] = float(int(v))
    y[pos, 4] = float(isnan(v / v))
    y[pos, 5] = numel(w) + size(x, 0)
    y[pos, 6] = exp2(v / 4)
    y[pos, 7] = log10(abs(v) + 1)
    y[pos, 8] = asin(v / 10)
    y[pos, 9] = acos(v / 10)
    y[pos, 10] = atan(v)
endfunction

function y : mat = small_arrays_in_kernel(x : vec)
    y = zeros(numel(x), 11)
    parallel_do(numel(x), x, y, kernel_small_arrays)
endfunction

function y : mat = math_in_kernel(x : vec)
    y = zeros(numel(x), 16)
    parallel_do(numel(x), x, y, kernel_math)
endfunction

function [] = __kernel__ complex_kernel(z : cvec, w : cvec, pos : int)
    a = z[pos]
    w[pos] = conj(a) * complex(real(a), 1.0) + imag(a)
endfunction

function w : cvec = complex_in_kernel(z : cvec)
    w = complex(zeros(numel(z)))
    parallel_do(numel(z), z, w, complex_kernel)
endfunction

function [] = __kernel__ specials(y : mat, pos : ivec2, blkpos : ivec2, blkidx : ivec2, blkdim : ivec2)
    y[pos] = 1000 * (blkidx[0] * blkdim[0] + blkpos[0]) + (blkidx[1] * blkdim[1] + blkpos[1])
endfunction

function y : mat = specials_with_block(m : int, n : int)
    y = zeros(m, n)
    parallel_do([[m, n], [2, 4]], y, specials)
endfunction

function y : mat = specials_auto(m : int, n : int)
    y = zeros(m, n)
    parallel_do([m, n], y, specials)
endfunction

function y : vec = lambda_forms(x : vec, a : scalar)
    y = zeros(numel(x))
    parallel_do(size(x), __kernel__ (pos : int) -> y[pos] = a * x[pos])
    parallel_do(numel(x), __kernel__ (pos : int) -> y[pos] += 1)
endfunction

function y : cube = planes(x : cube)
    y = zeros(size(x))
    parallel_do(size(x, 0..1), __kernel__ (pos : ivec2) -> y[pos[0], pos[1], 0] = x[pos[0], pos[1], 1] + x[pos[0], pos[1], 2])
endfunction

function [a, b, c, d, e, f] = dim_reductions(x : mat)
    a = prod(x, 0)
    b = min(x, 0.0)
    c = max(x, -1.0)
    d = mean(x, 1)
    e = cumsum(x, 1)
    f = sum(x, 0)
endfunction

function [u, g, n] = random(k : int)
    u = rand(k)
    g = randn(k)
    n = numel(uninit(k, 3))
endfunction

function y = host_scalar_builtins(x : scalar)
    z = complex(x, 2.0)
    y = [float(int(x)), frac(x), round(x), mod(x, 0.75), real(z * conj(z)), imag(conj(z)), atan2(x, 2.0), float(isnan(x))]
endfunction
"# }
}

mod d {
    quasar::quasar! { double = true, r#"
function [] = __kernel__ scale_kernel(x : vec, y : vec, a : scalar, pos : int)
    y[pos] = a * x[pos] + exp(x[pos] / 100)
endfunction

function [y, s] = precise(x : vec, a : scalar)
    y = zeros(numel(x))
    parallel_do(numel(x), x, y, a, scale_kernel)
    s = sum(y) + 1e-12
endfunction
"# }
}

/// A file that imports another (`import "lib.q"`, resolved next to it).
mod imp {
    quasar::quasar!(file = "tests/common/imports/main.q");
}

fn vecf(v: &[f32]) -> Array<f32> {
    Array::from_vec(&[v.len()], v.to_vec()).unwrap()
}

/// `|a - b|` within `tol` relative to `max(1, |b|)`.
fn assert_close(what: &str, a: f32, b: f32, tol: f32) {
    let ok = (a.is_nan() && b.is_nan()) || (a - b).abs() <= tol * b.abs().max(1.0);
    assert!(ok, "{what}: got {a}, expected {b}");
}

#[test]
fn print_writes_values_to_stdout() {
    // Printing goes to the process's stdout: run this test binary again with only the printing
    // helper below and read what it wrote.
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "print_helper", "--nocapture", "--include-ignored", "--test-threads=1"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("n = 3, x = 2.5"), "{text}");
    assert!(text.contains("[1,2,3]"), "{text}");
}

#[test]
#[ignore = "run by print_writes_values_to_stdout"]
fn print_helper() {
    m::show(3, 2.5, &vecf(&[1.0, 2.0, 3.0])).unwrap();
}

#[test]
fn assert_failure_is_an_error_with_the_location() {
    assert_eq!(m::checked_sqrt(9.0).unwrap(), 3.0);
    let e = m::checked_sqrt(-1.0).unwrap_err().to_string();
    assert!(e.contains("assert"), "{e}");
    // The inline block's lines are the .rs file's.
    assert!(e.contains("tests/e2e_more.rs:17:5"), "the line of the assert: {e}");
}

#[test]
fn nested_functions() {
    let f = |a: f32| a * a + 1.0;
    assert_eq!(m::outer(1.5).unwrap(), f(1.5) + f(3.0));
}

#[test]
fn device_function_called_from_host_code() {
    for x in [-1.0f32, 0.0, 0.5, 1.0, 1.9, 3.0] {
        let t = (x / 2.0).clamp(0.0, 1.0);
        assert_close("smoothstep", m::host_smoothstep(x).unwrap(), t * t * (3.0 - 2.0 * t), 1e-6);
    }
}

#[test]
fn math_builtins_inside_kernels() {
    let xs: Vec<f32> = (0..401).map(|i| -10.0 + i as f32 * 0.05).collect();
    let y = m::math_in_kernel(&vecf(&xs)).unwrap().to_vec().unwrap();
    for (i, &v) in xs.iter().enumerate() {
        let t = ((v + 1.0) / 2.0).clamp(0.0, 1.0);
        let want = [
            v.sin(),
            v.cos(),
            v.exp(),
            (v.abs() + 1.0).ln(),
            v.abs().sqrt(),
            v.atan2(1.5),
            v.floor(),
            v.ceil(),
            v.round(),
            v - v.floor(),
            v - (v / 1.25).floor() * 1.25,
            v.abs().powf(1.7),
            (v / 4.0).tan(),
            (v.abs() + 1.0).log2(),
            t * t * (3.0 - 2.0 * t),
            v.abs(),
        ];
        for (j, w) in want.iter().enumerate() {
            // tan(x/4) on the GPU: within the bound of `sin/cos` there (about 4e-5 absolute
            // near x = ±6.3, where cos(x/4) is 0.1), as measured on an H100.
            let tol = match j {
                12 => {
                    let b = math_bounds::bound("tan", v / 4.0, 0.0, *w as f64) as f32;
                    (b / w.abs().max(1.0)).max(2e-6)
                }
                _ => 2e-6,
            };
            assert_close(&format!("column {j} at x = {v}"), y[i * 16 + j], *w, tol);
        }
    }
}

#[test]
fn kernel_builtins_on_small_arrays_and_conversions() {
    let xs: Vec<f32> = (0..81).map(|i| -10.0 + i as f32 * 0.25).collect();
    let n = xs.len() as f32;
    let y = m::small_arrays_in_kernel(&vecf(&xs)).unwrap().to_vec().unwrap();
    for (i, &v) in xs.iter().enumerate() {
        let want = [
            v + 2.0 * v - v + 2.0,
            v.min(0.5),
            (2.0 * v).max(-v),
            v.trunc(),
            if v == 0.0 { 1.0 } else { 0.0 },
            3.0 + n,
            (v / 4.0).exp2(),
            (v.abs() + 1.0).log10(),
            (v / 10.0).asin(),
            (v / 10.0).acos(),
            v.atan(),
        ];
        for (j, w) in want.iter().enumerate() {
            assert_close(&format!("column {j} at x = {v}"), y[i * 11 + j], *w, 2e-6);
        }
    }
}

#[test]
fn complex_values_inside_kernels() {
    use num_complex::Complex32 as C;
    let zs: Vec<C> = (0..50).map(|i| C::new(i as f32 * 0.3 - 7.0, 2.0 - i as f32 * 0.1)).collect();
    let z = Array::from_vec(&[zs.len()], zs.clone()).unwrap();
    let w = m::complex_in_kernel(&z).unwrap().to_vec().unwrap();
    for (a, got) in zs.iter().zip(w) {
        let want = a.conj() * C::new(a.re, 1.0) + a.im;
        assert!((got - want).norm() <= 1e-5 * want.norm().max(1.0), "{got} vs {want}");
    }
}

#[test]
fn special_parameters_with_explicit_and_automatic_blocks() {
    for y in [m::specials_with_block(6, 12).unwrap(), m::specials_auto(5, 7).unwrap()] {
        let (rows, cols) = (y.shape()[0], y.shape()[1]);
        let v = y.to_vec().unwrap();
        for i in 0..rows {
            for j in 0..cols {
                assert_eq!(v[i * cols + j], (1000 * i + j) as f32, "at ({i}, {j})");
            }
        }
    }
}

#[test]
fn parallel_do_forms() {
    let x = vecf(&[1.0, -2.0, 3.5]);
    assert_eq!(m::lambda_forms(&x, 2.0).unwrap().to_vec().unwrap(), vec![3.0, -3.0, 8.0]);
    let vals: Vec<f32> = (0..24).map(|i| i as f32).collect();
    let c = Array::from_vec(&[2, 4, 3], vals.clone()).unwrap();
    let y = m::planes(&c).unwrap().to_vec().unwrap();
    for p in 0..8 {
        assert_eq!(y[p * 3], vals[p * 3 + 1] + vals[p * 3 + 2]);
        assert_eq!(y[p * 3 + 1], 0.0);
    }
}

#[test]
fn reductions_with_a_dimension_argument() {
    let (m_, n_) = (3usize, 4usize);
    let v: Vec<f32> = (0..12).map(|i| (i as f32 - 5.0) * 0.5).collect();
    let x = Array::from_vec(&[m_, n_], v.clone()).unwrap();
    let (a, b, c, d, e, f) = m::dim_reductions(&x).unwrap();
    let at = |i: usize, j: usize| v[i * n_ + j];
    let col = |g: &dyn Fn(&mut dyn Iterator<Item = f32>) -> f32| -> Vec<f32> {
        (0..n_).map(|j| g(&mut (0..m_).map(|i| at(i, j)))).collect()
    };
    let row = |g: &dyn Fn(&mut dyn Iterator<Item = f32>) -> f32| -> Vec<f32> {
        (0..m_).map(|i| g(&mut (0..n_).map(|j| at(i, j)))).collect()
    };
    assert_eq!(a.to_vec().unwrap(), col(&|it| it.product()));
    // min and max take no dimension argument in Quasar: with two arguments they are
    // element-wise.
    assert_eq!(b.to_vec().unwrap(), v.iter().map(|&t| t.min(0.0)).collect::<Vec<_>>());
    assert_eq!(c.to_vec().unwrap(), v.iter().map(|&t| t.max(-1.0)).collect::<Vec<_>>());
    assert_eq!(d.to_vec().unwrap(), row(&|it| it.sum::<f32>() / n_ as f32));
    assert_eq!(f.to_vec().unwrap(), col(&|it| it.sum()));
    assert_eq!(a.shape(), &[1, n_]);
    assert_eq!(d.shape(), &[m_, 1]);
    let e = e.to_vec().unwrap();
    for i in 0..m_ {
        let mut s = 0.0;
        for j in 0..n_ {
            s += at(i, j);
            assert_eq!(e[i * n_ + j], s);
        }
    }
}

#[test]
fn random_numbers_have_the_right_distribution() {
    let k: i32 = 20_000;
    let (u, g, n) = m::random(k).unwrap();
    assert_eq!(n, k * 3);
    let u = u.to_vec().unwrap();
    let g = g.to_vec().unwrap();
    assert_eq!(u.len(), k as usize);
    assert!(u.iter().all(|&v| (0.0..1.0).contains(&v)));
    let mean = |v: &[f32]| v.iter().map(|&x| x as f64).sum::<f64>() / v.len() as f64;
    let var =
        |v: &[f32], m: f64| v.iter().map(|&x| (x as f64 - m).powi(2)).sum::<f64>() / v.len() as f64;
    let (mu, mg) = (mean(&u), mean(&g));
    assert!((mu - 0.5).abs() < 0.01 && (var(&u, mu) - 1.0 / 12.0).abs() < 0.01, "uniform {mu}");
    assert!(mg.abs() < 0.02 && (var(&g, mg) - 1.0).abs() < 0.03, "normal {mg}");
}

#[test]
fn scalar_builtins_on_the_host() {
    for x in [-2.3f32, -0.5, 0.0, 0.75, 4.6] {
        let y = m::host_scalar_builtins(x).unwrap().to_vec().unwrap();
        let want = [
            x.trunc(),
            x - x.floor(),
            x.round(),
            x - (x / 0.75).floor() * 0.75,
            x * x + 4.0,
            -2.0,
            x.atan2(2.0),
            0.0,
        ];
        for (j, w) in want.iter().enumerate() {
            assert_close(&format!("item {j} at x = {x}"), y[j], *w, 1e-6);
        }
    }
}

#[test]
fn double_precision_mode() {
    let xs: Vec<f64> = (0..1000).map(|i| i as f64 * 0.1 + 1e-9).collect();
    let x = Array::from_vec(&[xs.len()], xs.clone()).unwrap();
    let (y, s) = d::precise(&x, 1.0 + 1e-12).unwrap();
    let y: Vec<f64> = y.to_vec().unwrap();
    let mut want_sum = 0.0;
    for (a, b) in xs.iter().zip(&y) {
        let w = (1.0 + 1e-12) * a + (a / 100.0).exp();
        assert!((b - w).abs() <= 1e-14 * w.abs().max(1.0), "{b} vs {w}");
        want_sum += w;
    }
    assert!((s - (want_sum + 1e-12)).abs() <= 1e-9, "{s} vs {want_sum}");
}

#[test]
fn imported_files_are_compiled_and_named_in_errors() {
    let y = imp::saturate(&vecf(&[-1.0, 0.25, 2.0])).unwrap().to_vec().unwrap();
    assert_eq!(y, vec![0.0, 0.25, 1.0]);
    assert_eq!(imp::root_of(16.0).unwrap(), 4.0);
    let e = imp::root_of(-1.0).unwrap_err().to_string();
    assert!(e.contains("lib.q:12:5"), "the imported file's name and line: {e}");
}

// Below the tests: the inline Quasar blocks above keep their line numbers.

/// The documented error bounds of the GPU's math routines (`tan` is `sin/cos` of the
/// hardware's `.approx` functions there, so its error grows near the poles).
#[allow(dead_code)] // only `bound` is used here
#[path = "common/math.rs"]
mod math_bounds;
