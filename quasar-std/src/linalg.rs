//! Dense linear algebra (manual table 14.1: `inv`, `svd`; the issue's `det`, solve and
//! Cholesky; `symeig` for `linalg.q`) through `nalgebra`, behind the cargo feature `linalg`
//! (about 20 s of extra build time, so it is off by default). Without the feature these
//! functions still exist, so that generated code names them, but using one is a **build**
//! error that says to enable the feature (a constant evaluated only where the function is
//! instantiated), never a run-time surprise.
//!
//! Matrices are `m x n` arrays (a vector is `1 x n`); elements are `f32` or `f64`. Semantics
//! follow MATLAB:
//! * `inv(A)`: the inverse of a square matrix; a singular one is an error naming `inv`
//!   (MATLAB warns and returns `Inf`s).
//! * `det(A)`: the determinant (LU with partial pivoting).
//! * `linsolve(A, B)`: the `X` with `A X = B` (square `A`, LU; `B` a matrix or a vector,
//!   taken as a column), MATLAB's `A \ B` for square `A`.
//! * `chol(A)`: the upper-triangular `R` with `R' R = A` of a symmetric positive definite
//!   matrix (MATLAB's `chol`); otherwise an error naming `chol`.
//! * `[U, S, V] = svd(A)`: `A = U S V'`, singular values in decreasing order. The **economy**
//!   size: with `k = min(m, n)`, `U` is `m x k`, `S` `k x k`, `V` `n x k` (MATLAB's
//!   `svd(A, "econ")`; the full `U` of a tall matrix is not computed).
//! * `[V, D] = symeig(A)`: the eigenvectors (columns of `V`) and eigenvalues (diagonal of `D`,
//!   increasing) of a symmetric matrix, `A V = V D` (MATLAB's `eig` of a symmetric matrix).

use quasar_runtime::{Array, Error, Result};

/// The element types of the linear-algebra functions (`f32`, `f64`).
#[cfg(feature = "linalg")]
pub trait LinalgElem: quasar_runtime::Element + nalgebra::RealField + Copy {}
#[cfg(feature = "linalg")]
impl LinalgElem for f32 {}
#[cfg(feature = "linalg")]
impl LinalgElem for f64 {}

/// The element types of the linear-algebra functions (`f32`, `f64`).
#[cfg(not(feature = "linalg"))]
pub trait LinalgElem: quasar_runtime::Element + Copy {}
#[cfg(not(feature = "linalg"))]
impl LinalgElem for f32 {}
#[cfg(not(feature = "linalg"))]
impl LinalgElem for f64 {}

#[cfg(feature = "linalg")]
mod imp {
    use super::*;
    use nalgebra::DMatrix;

    /// The rows and columns of a matrix argument of `name`.
    fn dims<T: LinalgElem>(name: &str, a: &Array<T>) -> Result<(usize, usize)> {
        let s = a.shape();
        let trimmed = &s[..s.iter().rposition(|&d| d != 1).map_or(0, |i| i + 1)];
        match *trimmed {
            [] => Ok((1, 1)),
            [n] if s.len() == 1 => Ok((1, n)),
            [m] => Ok((m, 1)),
            [m, n] => Ok((m, n)),
            _ => Err(Error::argument(
                name,
                format!("expects a matrix, found an array of shape {s:?}"),
            )),
        }
    }

    fn to_matrix<T: LinalgElem>(name: &str, a: &Array<T>) -> Result<DMatrix<T>> {
        let (m, n) = dims(name, a)?;
        let v = a.host_view()?;
        Ok(DMatrix::from_row_slice(m, n, &v))
    }

    fn square<T: LinalgElem>(name: &str, a: &Array<T>) -> Result<DMatrix<T>> {
        let m = to_matrix(name, a)?;
        if m.nrows() != m.ncols() {
            return Err(Error::argument(
                name,
                format!("expects a square matrix, found {} x {}", m.nrows(), m.ncols()),
            ));
        }
        Ok(m)
    }

    fn from_matrix<T: LinalgElem>(m: &DMatrix<T>) -> Result<Array<T>> {
        let (r, c) = m.shape();
        Array::from_fn(&[r, c], |k| m[(k / c.max(1), k % c.max(1))])
    }

    fn finite<T: LinalgElem>(name: &str, m: &DMatrix<T>) -> Result<()> {
        if m.iter().all(|v| v.is_finite()) {
            Ok(())
        } else {
            Err(Error::argument(name, "the matrix has NaN or infinite elements"))
        }
    }

    pub fn inv<T: LinalgElem>(a: &Array<T>) -> Result<Array<T>> {
        let m = square("inv", a)?;
        finite("inv", &m)?;
        let n = m.nrows();
        let lu = m.lu();
        // Singular (or numerically so): MATLAB's "matrix is singular to working precision".
        let u = lu.u();
        let scale = u.iter().fold(T::zero(), |acc, v| acc.max(v.abs()));
        let tiny = T::default_epsilon() * T::from_usize(n.max(1)).unwrap_or_else(T::one) * scale;
        if (0..n).any(|i| u[(i, i)].abs() <= tiny) {
            return Err(Error::argument("inv", "the matrix is singular to working precision"));
        }
        let inv =
            lu.try_inverse().ok_or_else(|| Error::argument("inv", "the matrix is singular"))?;
        from_matrix(&inv)
    }

    pub fn det<T: LinalgElem>(a: &Array<T>) -> Result<T> {
        Ok(square("det", a)?.determinant())
    }

    pub fn linsolve<T: LinalgElem>(a: &Array<T>, b: &Array<T>) -> Result<Array<T>> {
        let m = square("linsolve", a)?;
        finite("linsolve", &m)?;
        let vector = b.ndim() <= 1;
        let rhs = if vector {
            DMatrix::from_column_slice(b.numel(), 1, &b.host_view()?)
        } else {
            to_matrix("linsolve", b)?
        };
        if rhs.nrows() != m.nrows() {
            return Err(Error::argument(
                "linsolve",
                format!("A is {} x {} but B has {} rows", m.nrows(), m.ncols(), rhs.nrows()),
            ));
        }
        let x = m
            .lu()
            .solve(&rhs)
            .ok_or_else(|| Error::argument("linsolve", "the matrix is singular"))?;
        if vector {
            Array::from_vec(&[x.nrows()], x.iter().copied().collect())
        } else {
            from_matrix(&x)
        }
    }

    pub fn chol<T: LinalgElem>(a: &Array<T>) -> Result<Array<T>> {
        let m = square("chol", a)?;
        finite("chol", &m)?;
        let c = m.cholesky().ok_or_else(|| {
            Error::argument("chol", "the matrix is not symmetric positive definite")
        })?;
        from_matrix(&c.l().transpose())
    }

    pub fn svd<T: LinalgElem>(a: &Array<T>) -> Result<(Array<T>, Array<T>, Array<T>)> {
        let m = to_matrix("svd", a)?;
        finite("svd", &m)?;
        let svd = m.svd(true, true);
        let (Some(u), Some(vt)) = (svd.u, svd.v_t) else {
            return Err(Error::argument("svd", "the decomposition did not converge"));
        };
        // nalgebra does not sort the singular values: order them decreasingly.
        let k = svd.singular_values.len();
        let mut order: Vec<usize> = (0..k).collect();
        order.sort_by(|&i, &j| {
            svd.singular_values[j]
                .partial_cmp(&svd.singular_values[i])
                .unwrap_or(std::cmp::Ordering::Equal)
        });
        let u = DMatrix::from_fn(u.nrows(), k, |r, c| u[(r, order[c])]);
        let v = DMatrix::from_fn(vt.ncols(), k, |r, c| vt[(order[c], r)]);
        let s =
            DMatrix::from_fn(
                k,
                k,
                |r, c| if r == c { svd.singular_values[order[r]] } else { T::zero() },
            );
        Ok((from_matrix(&u)?, from_matrix(&s)?, from_matrix(&v)?))
    }

    pub fn symeig<T: LinalgElem>(a: &Array<T>) -> Result<(Array<T>, Array<T>)> {
        let m = square("symeig", a)?;
        finite("symeig", &m)?;
        let tol = T::default_epsilon().sqrt() * (T::one() + m.amax());
        if (&m - m.transpose()).amax() > tol {
            return Err(Error::argument("symeig", "the matrix is not symmetric"));
        }
        let e = m.symmetric_eigen();
        let n = e.eigenvalues.len();
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by(|&i, &j| {
            e.eigenvalues[i].partial_cmp(&e.eigenvalues[j]).unwrap_or(std::cmp::Ordering::Equal)
        });
        let v = DMatrix::from_fn(n, n, |r, c| e.eigenvectors[(r, order[c])]);
        let d =
            DMatrix::from_fn(n, n, |r, c| if r == c { e.eigenvalues[order[r]] } else { T::zero() });
        Ok((from_matrix(&v)?, from_matrix(&d)?))
    }
}

/// Fails the build where a function of this module is used without the feature.
#[cfg(not(feature = "linalg"))]
struct NeedsFeature<T>(std::marker::PhantomData<T>);

#[cfg(not(feature = "linalg"))]
impl<T> NeedsFeature<T> {
    const LINALG: () = panic!(
        "the Quasar linear-algebra built-ins (inv, det, linsolve, chol, svd, symeig) need the \
         cargo feature `linalg` of quasar (quasar = {{ version = \"...\", features = [\"linalg\"] }})"
    );
}

macro_rules! api {
    ($(#[$doc:meta] fn $name:ident($($arg:ident: $t:ty),*) -> $ret:ty;)*) => { $(
        #[$doc]
        pub fn $name<T: LinalgElem>($($arg: $t),*) -> Result<$ret> {
            #[cfg(feature = "linalg")]
            {
                imp::$name($($arg),*)
            }
            #[cfg(not(feature = "linalg"))]
            {
                #[allow(clippy::let_unit_value)]
                let () = NeedsFeature::<T>::LINALG;
                let _ = ($($arg),*);
                Err(Error::Unsupported(stringify!($name).into()))
            }
        }
    )* };
}

api! {
    /// `inv(A)`: the inverse of a square matrix (see the module documentation).
    fn inv(a: &Array<T>) -> Array<T>;
    /// `det(A)`: the determinant of a square matrix.
    fn det(a: &Array<T>) -> T;
    /// `linsolve(A, B)`: the solution `X` of `A X = B` for a square `A`.
    fn linsolve(a: &Array<T>, b: &Array<T>) -> Array<T>;
    /// `chol(A)`: the upper-triangular Cholesky factor `R` (`R' R = A`).
    fn chol(a: &Array<T>) -> Array<T>;
    /// `[U, S, V] = svd(A)`: the economy-size singular value decomposition `A = U S V'`.
    fn svd(a: &Array<T>) -> (Array<T>, Array<T>, Array<T>);
    /// `[V, D] = symeig(A)`: eigenvectors and eigenvalues of a symmetric matrix.
    fn symeig(a: &Array<T>) -> (Array<T>, Array<T>);
}

#[cfg(all(test, feature = "linalg"))]
#[path = "linalg_tests.rs"]
mod tests;
