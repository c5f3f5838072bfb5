//! End to end: host array code (element-wise expressions with broadcasting, matrix product,
//! slicing and indexing, loops over vectors, reductions and the core built-ins), each result
//! compared with plain Rust.

use quasar::Array;

mod a {
    quasar::quasar! { r#"
function y = poly_arr(x : vec)
    y = 2 * x.^2 + 1
endfunction

function s = weighted(a : vec, b : vec)
    s = sum(a .* b)
endfunction

function c = matprod(a : mat, b : mat)
    c = a * b
endfunction

function col = column(a : mat, j : int)
    col = a[:, j]
endfunction

function b = block(a : mat)
    b = a[0..1, 1..2]
endfunction

function [] = set_row(a : mat, i : int, v : scalar)
    a[i, :] = v
endfunction

function t = trace_loop(a : mat)
    t = 0.0
    for i = 0..size(a, 0) - 1
        t += a[i, i]
    endfor
endfunction

function s = weighted_elements(a : mat)
    s = 0.0
    k = 1
    for x = a
        s += k * x
        k += 1
    endfor
endfunction

function s = sum_each(v : vec)
    s = 0.0
    for x = v
        s += x
    endfor
endfunction

function [s, p, lo, hi, m] = stats(x : vec)
    s = sum(x)
    p = prod(x)
    lo = min(x)
    hi = max(x)
    m = mean(x)
endfunction

function y = rowsums(x : mat)
    y = sum(x, 1)
endfunction

function y = running(x : vec)
    y = cumsum(x)
endfunction

function y = math_mix(x : vec)
    y = abs(sin(x)) + sqrt(exp(x)) - floor(x) + mod(x, 2) + pow(x, 2)
endfunction

function [z, o, e, l] = constructors(n : int)
    z = zeros(n, n)
    o = ones(n)
    e = eye(n)
    l = linspace(0.0, 1.0, n)
endfunction

function [n, d, k] = shape_of(x : cube)
    n = numel(x)
    d = ndims(x)
    k = size(x, 2)
endfunction

function y = reshaped(x : vec)
    y = transpose(reshape(x, [2, 3]))
endfunction

function y = tiled(x : mat)
    y = repmat(x, [2, 1])
endfunction

function y = literal_matrix()
    y = [[1.0, 2.0], [3.0, 4.0]]
endfunction

function y = concatenated(a : vec, b : vec)
    y = [a, b]
endfunction

function y = to_int(x : vec)
    y = int(x)
endfunction

function y = shares(x : vec)
    y = x
    y[0] = 100
endfunction

function y = copies(x : vec)
    y = copy(x)
    y[0] = 100
endfunction

function y = nan_count(x : vec)
    y = sum(isnan(x))
endfunction

function y = out_of_range(x : vec)
    y = x[numel(x)]
endfunction
"# }
}

fn arr(v: &[f32]) -> Array<f32> {
    Array::from_vec(&[v.len()], v.to_vec()).unwrap()
}

fn mat(m: usize, n: usize, v: &[f32]) -> Array<f32> {
    Array::from_vec(&[m, n], v.to_vec()).unwrap()
}

#[test]
fn elementwise_expressions_broadcast_numbers() {
    let x = arr(&[0.0, 1.0, -2.0, 0.5]);
    let y = a::poly_arr(&x).unwrap().to_vec().unwrap();
    assert_eq!(y, vec![1.0, 3.0, 9.0, 1.5]);
    assert_eq!(a::weighted(&arr(&[1.0, 2.0, 3.0]), &arr(&[4.0, 5.0, 6.0])).unwrap(), 32.0);
}

#[test]
fn star_is_the_matrix_product() {
    let p = mat(2, 3, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let q = mat(3, 2, &[7.0, 8.0, 9.0, 10.0, 11.0, 12.0]);
    let c = a::matprod(&p, &q).unwrap();
    assert_eq!(c.shape(), &[2, 2]);
    assert_eq!(c.to_vec().unwrap(), vec![58.0, 64.0, 139.0, 154.0]);
}

#[test]
fn slicing_reads_and_writes() {
    let m = mat(3, 3, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]);
    assert_eq!(a::column(&m, 1).unwrap().to_vec().unwrap(), vec![2.0, 5.0, 8.0]);
    let b = a::block(&m).unwrap();
    assert_eq!(b.shape(), &[2, 2]);
    assert_eq!(b.to_vec().unwrap(), vec![2.0, 3.0, 5.0, 6.0]);
    a::set_row(&m, 1, 0.0).unwrap();
    assert_eq!(m.to_vec().unwrap(), vec![1.0, 2.0, 3.0, 0.0, 0.0, 0.0, 7.0, 8.0, 9.0]);
    assert_eq!(a::trace_loop(&m).unwrap(), 10.0);
}

#[test]
fn for_over_the_elements_of_a_vector() {
    assert_eq!(a::sum_each(&arr(&[1.5, 2.5, 3.0])).unwrap(), 7.0);
    // Over a matrix: every element, in linear (row-major) order.
    let m = mat(2, 3, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let want: f32 = (1..=6).map(|k| k as f32 * k as f32).sum();
    assert_eq!(a::weighted_elements(&m).unwrap(), want);
}

#[test]
fn reductions() {
    let v = [3.0f32, -1.0, 4.0, 1.5];
    let (s, p, lo, hi, m) = a::stats(&arr(&v)).unwrap();
    assert_eq!((s, p, lo, hi), (7.5, -18.0, -1.0, 4.0));
    assert_eq!(m, 7.5 / 4.0);
    let r = a::rowsums(&mat(2, 3, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0])).unwrap();
    assert_eq!(r.to_vec().unwrap(), vec![6.0, 15.0]);
    assert_eq!(a::running(&arr(&v)).unwrap().to_vec().unwrap(), vec![3.0, 2.0, 6.0, 7.5]);
}

#[test]
fn math_builtins_on_arrays() {
    let v = [0.5f32, -1.25, 2.0, 3.75];
    let y = a::math_mix(&arr(&v)).unwrap().to_vec().unwrap();
    for (x, got) in v.iter().zip(&y) {
        let m = x - 2.0 * (x / 2.0).floor();
        let expect = x.sin().abs() + x.exp().sqrt() - x.floor() + m + x.powf(2.0);
        assert!((got - expect).abs() < 1e-5, "{x}: {got} vs {expect}");
    }
}

#[test]
fn constructors_and_shapes() {
    let (z, o, e, l) = a::constructors(3).unwrap();
    assert_eq!(z.shape(), &[3, 3]);
    assert!(z.to_vec().unwrap().iter().all(|v| *v == 0.0));
    assert_eq!(o.to_vec().unwrap(), vec![1.0; 3]);
    assert_eq!(e.to_vec().unwrap(), vec![1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]);
    assert_eq!(l.to_vec().unwrap(), vec![0.0, 0.5, 1.0]);
    let c = Array::<f32>::zeros(&[2, 3, 4]).unwrap();
    assert_eq!(a::shape_of(&c).unwrap(), (24, 3, 4));
    let r = a::reshaped(&arr(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0])).unwrap();
    assert_eq!(r.shape(), &[3, 2]);
    assert_eq!(r.to_vec().unwrap(), vec![1.0, 4.0, 2.0, 5.0, 3.0, 6.0]);
    let t = a::tiled(&mat(1, 2, &[1.0, 2.0])).unwrap();
    assert_eq!(t.shape(), &[2, 2]);
    assert_eq!(t.to_vec().unwrap(), vec![1.0, 2.0, 1.0, 2.0]);
}

#[test]
fn matrix_literals_and_concatenation() {
    let m = a::literal_matrix().unwrap();
    assert_eq!(m.shape(), &[2, 2]);
    assert_eq!(m.to_vec().unwrap(), vec![1.0, 2.0, 3.0, 4.0]);
    // Vectors in a matrix literal are its rows (the type checker says `mat`).
    let c = a::concatenated(&arr(&[1.0, 2.0]), &arr(&[3.0, 4.0])).unwrap();
    assert_eq!(c.shape(), &[2, 2]);
    assert_eq!(c.to_vec().unwrap(), vec![1.0, 2.0, 3.0, 4.0]);
    assert!(a::concatenated(&arr(&[1.0, 2.0]), &arr(&[3.0])).is_err());
}

#[test]
fn conversions_truncate_toward_zero() {
    let y = a::to_int(&arr(&[1.7, -1.7, 2.0])).unwrap();
    assert_eq!(y.to_vec().unwrap(), vec![1, -1, 2]);
}

#[test]
fn arrays_are_shared_references_and_copy_copies() {
    let x = arr(&[1.0, 2.0]);
    a::copies(&x).unwrap();
    assert_eq!(x.to_vec().unwrap(), vec![1.0, 2.0]);
    a::shares(&x).unwrap();
    assert_eq!(x.to_vec().unwrap(), vec![100.0, 2.0]);
}

#[test]
fn nan_detection_and_checked_host_indexing() {
    assert_eq!(a::nan_count(&arr(&[1.0, f32::NAN, f32::NAN])).unwrap(), 2);
    let e = a::out_of_range(&arr(&[1.0, 2.0])).unwrap_err().to_string();
    assert!(e.contains("out of range"), "{e}");
}
