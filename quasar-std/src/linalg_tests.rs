//! The linear-algebra functions against plain-Rust computations: cofactor inverses and
//! determinants by permutation expansion, matrices built from rotations with known singular
//! values and eigenvalues, and residuals of the defining equations.

use super::*;

fn arr(m: usize, n: usize, v: &[f64]) -> Array<f64> {
    Array::from_vec(&[m, n], v.to_vec()).unwrap()
}

fn mul(a: &[f64], b: &[f64], m: usize, k: usize, n: usize) -> Vec<f64> {
    let mut c = vec![0.0; m * n];
    for i in 0..m {
        for j in 0..n {
            c[i * n + j] = (0..k).map(|t| a[i * k + t] * b[t * n + j]).sum();
        }
    }
    c
}

fn transpose(a: &[f64], m: usize, n: usize) -> Vec<f64> {
    (0..n * m).map(|k| a[(k % m) * n + k / m]).collect()
}

fn close(a: &[f64], b: &[f64], tol: f64) {
    assert_eq!(a.len(), b.len());
    for (k, (x, y)) in a.iter().zip(b).enumerate() {
        assert!((x - y).abs() <= tol * (1.0 + y.abs()), "{k}: {x} vs {y}");
    }
}

/// The determinant by the Leibniz formula (sum over permutations).
fn leibniz(a: &[f64], n: usize) -> f64 {
    fn perms(k: usize, p: &mut Vec<usize>, out: &mut Vec<(Vec<usize>, f64)>, sign: f64) {
        if k == p.len() {
            out.push((p.clone(), sign));
            return;
        }
        for i in k..p.len() {
            p.swap(k, i);
            perms(k + 1, p, out, if i == k { sign } else { -sign });
            p.swap(k, i);
        }
    }
    let mut all = Vec::new();
    perms(0, &mut (0..n).collect(), &mut all, 1.0);
    all.iter().map(|(p, s)| s * (0..n).map(|i| a[i * n + p[i]]).product::<f64>()).sum()
}

/// A rotation by `t` in the plane of coordinates `i`, `j` of an `n x n` identity.
fn givens(n: usize, i: usize, j: usize, t: f64) -> Vec<f64> {
    let mut g: Vec<f64> = (0..n * n).map(|k| if k / n == k % n { 1.0 } else { 0.0 }).collect();
    g[i * n + i] = t.cos();
    g[j * n + j] = t.cos();
    g[i * n + j] = -t.sin();
    g[j * n + i] = t.sin();
    g
}

fn orthogonal(n: usize, seed: f64) -> Vec<f64> {
    let mut q = givens(n, 0, 1, 0.0);
    for i in 0..n {
        for j in i + 1..n {
            q = mul(&q, &givens(n, i, j, seed * (1 + i + 2 * j) as f64), n, n, n);
        }
    }
    q
}

const A3: [f64; 9] = [4.0, -2.0, 1.0, 3.0, 6.0, -4.0, 2.0, 1.0, 8.0];

#[test]
fn inverse_matches_the_cofactor_formula() {
    let a = A3;
    let det = leibniz(&a, 3);
    let m = |r: usize, c: usize| a[r * 3 + c];
    // inv[i][j] = cofactor(j, i) / det.
    let cof = |r: usize, c: usize| {
        let rows: Vec<usize> = (0..3).filter(|&x| x != r).collect();
        let cols: Vec<usize> = (0..3).filter(|&x| x != c).collect();
        let minor =
            m(rows[0], cols[0]) * m(rows[1], cols[1]) - m(rows[0], cols[1]) * m(rows[1], cols[0]);
        if (r + c).is_multiple_of(2) {
            minor
        } else {
            -minor
        }
    };
    let expect: Vec<f64> = (0..9).map(|k| cof(k % 3, k / 3) / det).collect();
    let got = inv(&arr(3, 3, &a)).unwrap();
    assert_eq!(got.shape(), &[3, 3]);
    close(&got.to_vec().unwrap(), &expect, 1e-13);
    let single =
        inv(&Array::from_vec(&[3, 3], a.iter().map(|&v| v as f32).collect()).unwrap()).unwrap();
    let single: Vec<f64> = single.to_vec().unwrap().iter().map(|&v| f64::from(v)).collect();
    close(&single, &expect, 1e-5);
}

#[test]
fn determinant_matches_the_leibniz_formula() {
    let a: Vec<f64> = (0..25).map(|k| ((k * 37) % 11) as f64 - 5.0).collect();
    close(&[det(&arr(5, 5, &a)).unwrap()], &[leibniz(&a, 5)], 1e-12);
    close(&[det(&arr(3, 3, &A3)).unwrap()], &[leibniz(&A3, 3)], 1e-13);
}

#[test]
fn linsolve_solves_the_system() {
    let x = [1.0, -2.0, 0.5, 3.0, 0.0, 1.0];
    let b = mul(&A3, &x, 3, 3, 2);
    let got = linsolve(&arr(3, 3, &A3), &arr(3, 2, &b)).unwrap();
    close(&got.to_vec().unwrap(), &x, 1e-12);
    let bv = Array::from_vec(&[3], mul(&A3, &[1.0, 2.0, 3.0], 3, 3, 1)).unwrap();
    let got = linsolve(&arr(3, 3, &A3), &bv).unwrap();
    assert_eq!(got.shape(), &[3]);
    close(&got.to_vec().unwrap(), &[1.0, 2.0, 3.0], 1e-12);
}

#[test]
fn cholesky_factor_is_upper_and_reproduces_the_matrix() {
    let l = [2.0, 0.0, 0.0, -1.0, 3.0, 0.0, 0.5, 1.0, 1.5];
    let a = mul(&l, &transpose(&l, 3, 3), 3, 3, 3);
    let r = chol(&arr(3, 3, &a)).unwrap().to_vec().unwrap();
    // The factor with a positive diagonal is unique: R = L'.
    close(&r, &transpose(&l, 3, 3), 1e-12);
}

#[test]
fn svd_recovers_known_singular_values() {
    for (m, n) in [(4, 4), (5, 3), (3, 5)] {
        let k = m.min(n);
        let s = [7.0, 3.0, 1.5, 0.25, 0.1];
        let mut sig = vec![0.0; m * n];
        for i in 0..k {
            sig[i * n + i] = s[i];
        }
        let a = mul(&mul(&orthogonal(m, 0.3), &sig, m, m, n), &orthogonal(n, 0.7), m, n, n);
        let (u, sm, v) = svd(&arr(m, n, &a)).unwrap();
        assert_eq!((u.shape(), sm.shape(), v.shape()), (&[m, k][..], &[k, k][..], &[n, k][..]));
        let sv = sm.to_vec().unwrap();
        let diag: Vec<f64> = (0..k).map(|i| sv[i * k + i]).collect();
        close(&diag, &s[..k], 1e-12);
        let (u, v) = (u.to_vec().unwrap(), v.to_vec().unwrap());
        let back = mul(&mul(&u, &sv, m, k, k), &transpose(&v, n, k), m, k, n);
        close(&back, &a, 1e-12);
        let identity: Vec<f64> =
            (0..k * k).map(|t| if t / k == t % k { 1.0 } else { 0.0 }).collect();
        close(&mul(&transpose(&u, m, k), &u, k, m, k), &identity, 1e-12);
    }
}

#[test]
fn symeig_recovers_known_eigenvalues() {
    let n = 4;
    let q = orthogonal(n, 0.45);
    let lambda = [-2.0, 0.5, 1.0, 4.0];
    let d: Vec<f64> =
        (0..n * n).map(|k| if k / n == k % n { lambda[k / n] } else { 0.0 }).collect();
    let a = mul(&mul(&q, &d, n, n, n), &transpose(&q, n, n), n, n, n);
    let (v, dd) = symeig(&arr(n, n, &a)).unwrap();
    let (v, dd) = (v.to_vec().unwrap(), dd.to_vec().unwrap());
    close(&(0..n).map(|i| dd[i * n + i]).collect::<Vec<_>>(), &lambda, 1e-12);
    close(&mul(&a, &v, n, n, n), &mul(&v, &dd, n, n, n), 1e-12);
}

#[test]
fn bad_matrices_are_errors_naming_the_function() {
    let e = |r: Result<Array<f64>>| r.unwrap_err().to_string();
    assert_eq!(e(inv(&arr(2, 3, &[0.0; 6]))), "`inv`: expects a square matrix, found 2 x 3");
    assert_eq!(
        e(inv(&arr(2, 2, &[1.0, 2.0, 2.0, 4.0]))),
        "`inv`: the matrix is singular to working precision"
    );
    assert_eq!(
        e(chol(&arr(2, 2, &[1.0, 2.0, 2.0, 1.0]))),
        "`chol`: the matrix is not symmetric positive definite"
    );
    let cube = Array::<f64>::zeros(&[2, 2, 2]).unwrap();
    assert_eq!(e(inv(&cube)), "`inv`: expects a matrix, found an array of shape [2, 2, 2]");
    assert_eq!(
        e(linsolve(&arr(2, 2, &[1.0, 0.0, 0.0, 1.0]), &arr(3, 1, &[1.0; 3]))),
        "`linsolve`: A is 2 x 2 but B has 3 rows"
    );
    assert!(symeig(&arr(2, 2, &[1.0, 2.0, 0.0, 1.0]))
        .unwrap_err()
        .to_string()
        .contains("not symmetric"));
    assert!(inv(&arr(1, 1, &[f64::NAN])).unwrap_err().to_string().contains("NaN"));
}
