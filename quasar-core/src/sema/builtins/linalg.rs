//! Matrix functions and transforms: `transpose` (also in kernels, on small fixed-size
//! matrices, as the manual's kernels use it), and host-only `herm_transpose inv svd` and the
//! FFTs `fft1 ifft1 fft2 ifft2 fft3 ifft3`.

use super::common::{args, calc, expected, host_only, is_num, is_open, make_array, no_type_args};
use super::{BuiltinCall, RuleResult, Signature};
use crate::ir::Builtin as B;
use crate::sema::types::{Dim, Precision, Rank, Type};

/// The element type of a number or numeric array argument, `None` for `??`.
fn numeric<'a>(name: &str, what: &str, t: &'a Type) -> Result<Option<&'a Type>, String> {
    match t {
        t if is_open(t) => Ok(None),
        t if is_num(t) => Ok(Some(t)),
        Type::Array(a) if is_open(&a.elem) => Ok(None),
        Type::Array(a) if is_num(&a.elem) => Ok(Some(&a.elem)),
        t => Err(expected(name, what, t)),
    }
}

/// `transpose(A)`, `herm_transpose(A)` (conjugated): a matrix with the dimensions swapped
/// (a vector becomes a `1 × n` matrix).
fn transpose_like(c: &BuiltinCall, name: &str) -> RuleResult {
    no_type_args(c, name)?;
    let a = args(c, name, 1, 1)?;
    const WHAT: &str = "a number, a vector or a matrix";
    let Some(elem) = numeric(name, WHAT, &a[0].ty)? else {
        return Ok(match &a[0].ty {
            Type::Array(_) => Type::array(Type::Unknown, 2),
            _ => Type::Unknown,
        });
    };
    let elem = elem.clone();
    let Type::Array(arr) = &a[0].ty else { return Ok(elem) };
    match arr.rank {
        Rank::Fixed(1 | 2) => {
            let shape = arr.shape.as_ref().map(|s| {
                let at = |i: usize| s.get(i).cloned().unwrap_or(Dim::Known(1));
                vec![at(1), at(0)]
            });
            Ok(make_array(elem, Rank::Fixed(2), shape))
        }
        Rank::Any => Ok(make_array(elem, Rank::Fixed(2), None)),
        Rank::Fixed(_) => Err(expected(name, WHAT, &a[0].ty)),
    }
}

fn transpose(c: &BuiltinCall) -> RuleResult {
    transpose_like(c, "transpose")
}

fn herm_transpose(c: &BuiltinCall) -> RuleResult {
    transpose_like(c, "herm_transpose")
}

/// The square-matrix argument of `inv`/`svd`; returns its floating element type.
fn float_matrix(name: &str, t: &Type) -> Result<Type, String> {
    const WHAT: &str = "a matrix";
    let elem = match t {
        Type::Array(a) if matches!(a.rank, Rank::Fixed(1 | 2) | Rank::Any) => {
            numeric(name, WHAT, t)?
        }
        t if is_open(t) => None,
        t if is_num(t) => Some(t),
        t => return Err(expected(name, WHAT, t)),
    };
    Ok(match elem.map(calc) {
        None => Type::Unknown,
        Some(Type::Int(..)) => Type::SCALAR,
        Some(e) => e,
    })
}

/// `inv(A)`: the inverse matrix.
fn inv(c: &BuiltinCall) -> RuleResult {
    no_type_args(c, "inv")?;
    let a = args(c, "inv", 1, 1)?;
    let elem = float_matrix("inv", &a[0].ty)?;
    match &a[0].ty {
        Type::Array(arr) => Ok(make_array(elem, Rank::Fixed(2), arr.shape.clone())),
        t if is_open(t) => Ok(Type::Unknown),
        _ => Ok(elem),
    }
}

/// `[U, S, V] = svd(A)`: the singular value decomposition, three matrices.
fn svd(c: &BuiltinCall) -> RuleResult {
    no_type_args(c, "svd")?;
    let a = args(c, "svd", 1, 1)?;
    let elem = float_matrix("svd", &a[0].ty)?;
    let m = Type::array(elem, 2);
    Ok(Type::Tuple(vec![m.clone(), m.clone(), m]))
}

/// `det(A)`: the determinant, a number.
fn det(c: &BuiltinCall) -> RuleResult {
    no_type_args(c, "det")?;
    let a = args(c, "det", 1, 1)?;
    float_matrix("det", &a[0].ty)
}

/// `linsolve(A, B)`: the solution `X` of `A X = B`, shaped like `B`.
fn linsolve(c: &BuiltinCall) -> RuleResult {
    no_type_args(c, "linsolve")?;
    let a = args(c, "linsolve", 2, 2)?;
    let elem = float_matrix("linsolve", &a[0].ty)?;
    float_matrix("linsolve", &a[1].ty)?;
    match &a[1].ty {
        Type::Array(arr) => Ok(make_array(elem, arr.rank, arr.shape.clone())),
        t if is_open(t) => Ok(Type::Unknown),
        _ => Ok(Type::array(elem, 1)),
    }
}

/// `chol(A)`: the upper-triangular Cholesky factor, a matrix of the shape of `A`.
fn chol(c: &BuiltinCall) -> RuleResult {
    no_type_args(c, "chol")?;
    let a = args(c, "chol", 1, 1)?;
    let elem = float_matrix("chol", &a[0].ty)?;
    match &a[0].ty {
        Type::Array(arr) => Ok(make_array(elem, Rank::Fixed(2), arr.shape.clone())),
        _ => Ok(Type::array(elem, 2)),
    }
}

/// `[V, D] = symeig(A)`: eigenvectors and eigenvalues of a symmetric matrix.
fn symeig(c: &BuiltinCall) -> RuleResult {
    no_type_args(c, "symeig")?;
    let a = args(c, "symeig", 1, 1)?;
    let m = Type::array(float_matrix("symeig", &a[0].ty)?, 2);
    Ok(Type::Tuple(vec![m.clone(), m]))
}

/// `irealfftN(x)` = `real(ifftN(x))`: a real array of the same shape.
fn irealfft(c: &BuiltinCall, name: &str) -> RuleResult {
    Ok(match fft(c, name)? {
        Type::Array(mut arr) => {
            if let Type::Complex(p) = arr.elem {
                arr.elem = Type::Scalar(p);
            }
            Type::Array(arr)
        }
        Type::Complex(p) => Type::Scalar(p),
        t => t,
    })
}

fn irealfft1(c: &BuiltinCall) -> RuleResult {
    irealfft(c, "irealfft1")
}

fn irealfft2(c: &BuiltinCall) -> RuleResult {
    irealfft(c, "irealfft2")
}

fn irealfft3(c: &BuiltinCall) -> RuleResult {
    irealfft(c, "irealfft3")
}

/// `fftN(x)` / `ifftN(x)`: a complex array of the same shape.
fn fft(c: &BuiltinCall, name: &str) -> RuleResult {
    no_type_args(c, name)?;
    let a = args(c, name, 1, 1)?;
    let Some(elem) = numeric(name, "an array of numbers", &a[0].ty)? else {
        return Ok(Type::Unknown);
    };
    let elem = match elem {
        Type::Scalar(p) | Type::Complex(p) => Type::Complex(*p),
        _ => Type::Complex(Precision::Default),
    };
    match &a[0].ty {
        Type::Array(arr) => Ok(make_array(elem, arr.rank, arr.shape.clone())),
        _ => Ok(elem),
    }
}

fn fft1(c: &BuiltinCall) -> RuleResult {
    fft(c, "fft1")
}

fn ifft1(c: &BuiltinCall) -> RuleResult {
    fft(c, "ifft1")
}

fn fft2(c: &BuiltinCall) -> RuleResult {
    fft(c, "fft2")
}

fn ifft2(c: &BuiltinCall) -> RuleResult {
    fft(c, "ifft2")
}

fn fft3(c: &BuiltinCall) -> RuleResult {
    fft(c, "fft3")
}

fn ifft3(c: &BuiltinCall) -> RuleResult {
    fft(c, "ifft3")
}

pub(super) const SIGNATURES: &[Signature] = &[
    Signature { device: true, ..host_only(B::Transpose, "transpose(A)", transpose) },
    // Host only: table 14.1 marks neither `(*)`, but the manual's kernels use `transpose` on
    // fixed-size blocks (§8.3, §9.2), and none uses `herm_transpose` there.
    host_only(B::HermTranspose, "herm_transpose(A)", herm_transpose),
    host_only(B::Inv, "inv(A)", inv),
    host_only(B::Svd, "[U, S, V] = svd(A)", svd),
    host_only(B::Det, "det(A)", det),
    host_only(B::Linsolve, "linsolve(A, B)", linsolve),
    host_only(B::Chol, "chol(A)", chol),
    host_only(B::Symeig, "[V, D] = symeig(A)", symeig),
    host_only(B::Irealfft1, "irealfft1(x)", irealfft1),
    host_only(B::Irealfft2, "irealfft2(x)", irealfft2),
    host_only(B::Irealfft3, "irealfft3(x)", irealfft3),
    host_only(B::Fft1, "fft1(x)", fft1),
    host_only(B::Ifft1, "ifft1(x)", ifft1),
    host_only(B::Fft2, "fft2(x)", fft2),
    host_only(B::Ifft2, "ifft2(x)", ifft2),
    host_only(B::Fft3, "fft3(x)", fft3),
    host_only(B::Ifft3, "ifft3(x)", ifft3),
];

#[cfg(test)]
mod tests {
    use super::super::test_util::*;

    #[test]
    fn transposes_swap_the_dimensions() {
        assert_eq!(ok("transpose", &[a("mat(2, 3)")]), "mat(3, 2)");
        assert_eq!(ok("transpose", &[a("mat")]), "mat");
        assert_eq!(ok("transpose", &[a("vec3")]), "mat(1, 3)");
        assert_eq!(ok("transpose", &[a("imat(:, 4)")]), "imat(4, :)");
        assert_eq!(ok("herm_transpose", &[a("cmat(2, 3)")]), "cmat(3, 2)");
        assert_eq!(ok("transpose", &[a("scalar")]), "scalar");
        assert_eq!(
            err("transpose", &[a("cube")]),
            "`transpose` expects a number, a vector or a matrix, found cube"
        );
    }

    #[test]
    fn matrix_functions_and_ffts() {
        assert_eq!(ok("inv", &[a("mat(3, 3)")]), "mat(3, 3)");
        assert_eq!(ok("inv", &[a("imat")]), "mat");
        assert_eq!(ok("svd", &[a("mat")]), "(mat, mat, mat)");
        assert_eq!(ok("fft2", &[a("mat")]), "cmat");
        assert_eq!(ok("ifft1", &[a("cvec(8)")]), "cvec8");
        assert_eq!(ok("fft3", &[a("icube")]), "ccube");
        assert_eq!(err("fft2", &[a("string")]), "`fft2` expects an array of numbers, found string");
        assert_eq!(err("inv", &[a("cube")]), "`inv` expects a matrix, found cube");
        assert_eq!(ok("det", &[a("mat")]), "scalar");
        assert_eq!(ok("linsolve", &[a("mat"), a("vec")]), "vec");
        assert_eq!(ok("chol", &[a("mat(3, 3)")]), "mat(3, 3)");
        assert_eq!(ok("symeig", &[a("mat")]), "(mat, mat)");
        assert_eq!(ok("irealfft2", &[a("cmat")]), "mat");
    }
}
