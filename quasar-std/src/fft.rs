//! Fast Fourier transforms (manual table 14.1 and the CUDA guide §2.9): `fft1 fft2 fft3`,
//! `ifft1 ifft2 ifft3` and the real-valued inverses `irealfft1 irealfft2 irealfft3`
//! (`real(ifftN(x))`, which the original computes with a complex-to-real plan), through
//! `rustfft` on the CPU.
//!
//! The manual does not say along which dimensions; these follow MATLAB:
//! * `fft1(x)` transforms along the first dimension whose length is not 1 (a vector, which
//!   is a row, along its length; a matrix down its columns), like MATLAB's `fft(x)`;
//! * `fft2(x)` transforms along dimensions 0 and 1 (every 2-D slice of a cube), like `fft2`;
//! * `fft3(x)` along dimensions 0, 1 and 2, like `fftn` of a 3-D array.
//!
//! The forward transforms are unnormalised, `X[k] = Σ x[n] e^(-2πi kn/N)`; the inverses divide
//! by `N` (so `ifftN(fftN(x)) = x`). The result has the shape of the argument, with complex
//! elements of the argument's precision. Lines are transformed in parallel (rayon) when the
//! array is large.
//!
//! On a CUDA GPU with cuFFT the transforms run there instead, with the same layout and
//! normalisation, leaving the result on the GPU, when the argument already lives there or is
//! large (the rule: [`quasar_runtime::fft`]); without libcufft, in CPU mode or for small host
//! arrays they run here.

use crate::builtins::PARALLEL_MIN;
use quasar_runtime::fft::FftDirection as Direction;
use quasar_runtime::{Array, Complex, Element, Result, Runtime};
use rayon::prelude::*;
use rustfft::num_traits::{FromPrimitive, Zero};
use rustfft::{FftDirection, FftNum, FftPlanner};

/// An element type the FFTs accept: a real or complex float.
pub trait FftInput: Element + Copy {
    /// The real type of the result's parts (`f32` or `f64`).
    type Real: FftNum + Element + Default;
    /// The value as a complex number (a real value gets imaginary part 0).
    fn to_complex(self) -> Complex<Self::Real>;
}

impl FftInput for f32 {
    type Real = f32;
    fn to_complex(self) -> Complex<f32> {
        Complex::new(self, 0.0)
    }
}

impl FftInput for f64 {
    type Real = f64;
    fn to_complex(self) -> Complex<f64> {
        Complex::new(self, 0.0)
    }
}

impl FftInput for Complex<f32> {
    type Real = f32;
    fn to_complex(self) -> Complex<f32> {
        self
    }
}

impl FftInput for Complex<f64> {
    type Real = f64;
    fn to_complex(self) -> Complex<f64> {
        self
    }
}

/// `fft1(x)`: the 1-D transform along the first non-singleton dimension.
pub fn fft1<T: FftInput>(x: &Array<T>) -> Result<Array<Complex<T::Real>>> {
    transform(x, &first_non_singleton(x.shape()), FftDirection::Forward)
}

/// `ifft1(x)`: the inverse of [`fft1`].
pub fn ifft1<T: FftInput>(x: &Array<T>) -> Result<Array<Complex<T::Real>>> {
    transform(x, &first_non_singleton(x.shape()), FftDirection::Inverse)
}

/// `fft2(x)`: the 2-D transform along dimensions 0 and 1.
pub fn fft2<T: FftInput>(x: &Array<T>) -> Result<Array<Complex<T::Real>>> {
    transform(x, &[0, 1], FftDirection::Forward)
}

/// `ifft2(x)`: the inverse of [`fft2`].
pub fn ifft2<T: FftInput>(x: &Array<T>) -> Result<Array<Complex<T::Real>>> {
    transform(x, &[0, 1], FftDirection::Inverse)
}

/// `fft3(x)`: the 3-D transform along dimensions 0, 1 and 2.
pub fn fft3<T: FftInput>(x: &Array<T>) -> Result<Array<Complex<T::Real>>> {
    transform(x, &[0, 1, 2], FftDirection::Forward)
}

/// `ifft3(x)`: the inverse of [`fft3`].
pub fn ifft3<T: FftInput>(x: &Array<T>) -> Result<Array<Complex<T::Real>>> {
    transform(x, &[0, 1, 2], FftDirection::Inverse)
}

/// `irealfft1(x)` = `real(ifft1(x))`.
pub fn irealfft1<T: FftInput>(x: &Array<T>) -> Result<Array<T::Real>> {
    inverse_real(x, &first_non_singleton(x.shape()))
}

/// `irealfft2(x)` = `real(ifft2(x))`.
pub fn irealfft2<T: FftInput>(x: &Array<T>) -> Result<Array<T::Real>> {
    inverse_real(x, &[0, 1])
}

/// `irealfft3(x)` = `real(ifft3(x))`.
pub fn irealfft3<T: FftInput>(x: &Array<T>) -> Result<Array<T::Real>> {
    inverse_real(x, &[0, 1, 2])
}

/// `real(ifft(x))` along `dims`: on the GPU when the runtime's rule says so.
fn inverse_real<T: FftInput>(x: &Array<T>, dims: &[usize]) -> Result<Array<T::Real>> {
    if let Some(r) = Runtime::global().fft_on_gpu(x, dims, Direction::Inverse)? {
        return Ok(r);
    }
    real_part(&transform(x, dims, FftDirection::Inverse)?)
}

fn real_part<R: FftNum + Element>(x: &Array<Complex<R>>) -> Result<Array<R>> {
    let v = x.host_view()?;
    Array::from_vec(x.shape(), v.iter().map(|c| c.re).collect())
}

/// The first dimension of length other than 1 (0 when there is none).
fn first_non_singleton(shape: &[usize]) -> [usize; 1] {
    [shape.iter().position(|&n| n != 1).unwrap_or(0)]
}

/// Transforms `x` along each of `dims` that it has (with length > 1).
fn transform<T: FftInput>(
    x: &Array<T>,
    dims: &[usize],
    direction: FftDirection,
) -> Result<Array<Complex<T::Real>>> {
    let on_gpu = match direction {
        FftDirection::Forward => Direction::Forward,
        FftDirection::Inverse => Direction::Inverse,
    };
    if let Some(r) = Runtime::global().fft_on_gpu(x, dims, on_gpu)? {
        return Ok(r);
    }
    let shape = x.shape().to_vec();
    let mut data: Vec<Complex<T::Real>> = x.host_view()?.iter().map(|v| v.to_complex()).collect();
    let mut planner = FftPlanner::<T::Real>::new();
    for &d in dims {
        let Some(&n) = shape.get(d) else { continue };
        if n <= 1 || data.is_empty() {
            continue;
        }
        let fft = planner.plan_fft(n, direction);
        // Lines along `d`: element `j` of line (outer, inner) is at (outer * n + j) * inner + inner_i.
        let inner: usize = shape[d + 1..].iter().product();
        let outer = data.len() / (n * inner);
        let mut lines = vec![Complex::<T::Real>::default(); data.len()];
        gather(&data, &mut lines, n, inner, outer);
        let parallel = data.len() >= PARALLEL_MIN;
        let batch = (PARALLEL_MIN / n).max(1) * n;
        let run = |chunk: &mut [Complex<T::Real>]| fft.process(chunk);
        if parallel {
            lines.par_chunks_mut(batch).for_each(run);
        } else {
            run(&mut lines);
        }
        if direction == FftDirection::Inverse {
            let scale = T::Real::from_f64(1.0 / n as f64).unwrap_or_else(T::Real::zero);
            lines.iter_mut().for_each(|c| *c = *c * scale);
        }
        scatter(&lines, &mut data, n, inner, outer);
    }
    Array::from_vec(&shape, data)
}

/// Copies the lines along a dimension of length `n` into consecutive runs of `lines`.
fn gather<C: Copy>(data: &[C], lines: &mut [C], n: usize, inner: usize, outer: usize) {
    for o in 0..outer {
        for i in 0..inner {
            let line = &mut lines[(o * inner + i) * n..][..n];
            for (j, v) in line.iter_mut().enumerate() {
                *v = data[(o * n + j) * inner + i];
            }
        }
    }
}

/// The inverse of [`gather`].
fn scatter<C: Copy>(lines: &[C], data: &mut [C], n: usize, inner: usize, outer: usize) {
    for o in 0..outer {
        for i in 0..inner {
            let line = &lines[(o * inner + i) * n..][..n];
            for (j, v) in line.iter().enumerate() {
                data[(o * n + j) * inner + i] = *v;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::f64::consts::PI;

    /// The DFT along dimension `d` by its definition, in f64.
    fn dft_along(
        shape: &[usize],
        x: &[Complex<f64>],
        d: usize,
        inverse: bool,
    ) -> Vec<Complex<f64>> {
        let n = shape[d];
        let inner: usize = shape[d + 1..].iter().product();
        let outer = x.len() / (n * inner);
        let sign = if inverse { 1.0 } else { -1.0 };
        let mut out = vec![Complex::new(0.0, 0.0); x.len()];
        for o in 0..outer {
            for i in 0..inner {
                for k in 0..n {
                    let mut acc = Complex::new(0.0, 0.0);
                    for j in 0..n {
                        let w =
                            Complex::from_polar(1.0, sign * 2.0 * PI * (j * k) as f64 / n as f64);
                        acc += x[(o * n + j) * inner + i] * w;
                    }
                    if inverse {
                        acc /= n as f64;
                    }
                    out[(o * n + k) * inner + i] = acc;
                }
            }
        }
        out
    }

    fn sample(len: usize) -> Vec<f64> {
        (0..len).map(|i| ((i * 7919) % 97) as f64 / 13.0 - 3.0).collect()
    }

    fn close(a: &[Complex<f64>], b: &[Complex<f64>], tol: f64) {
        assert_eq!(a.len(), b.len());
        for (k, (x, y)) in a.iter().zip(b).enumerate() {
            assert!((x - y).norm() <= tol * (1.0 + y.norm()), "{k}: {x} vs {y}");
        }
    }

    #[test]
    fn fft1_of_a_vector_and_of_matrix_columns_match_the_definition() {
        let v = sample(12);
        let x = Array::from_vec(&[12], v.clone()).unwrap();
        let c: Vec<_> = v.iter().map(|&r| Complex::new(r, 0.0)).collect();
        close(&fft1(&x).unwrap().to_vec().unwrap(), &dft_along(&[12], &c, 0, false), 1e-12);
        // A 1 x n matrix transforms along its row; an m x n matrix down its columns.
        let row = Array::from_vec(&[1, 12], v.clone()).unwrap();
        close(&fft1(&row).unwrap().to_vec().unwrap(), &dft_along(&[1, 12], &c, 1, false), 1e-12);
        let m = Array::from_vec(&[3, 4], v.clone()).unwrap();
        close(&fft1(&m).unwrap().to_vec().unwrap(), &dft_along(&[3, 4], &c, 0, false), 1e-12);
    }

    #[test]
    fn fft2_and_fft3_match_the_definition_in_single_and_double() {
        let shape = [5, 6, 3];
        let v = sample(90);
        let c: Vec<_> = v.iter().map(|&r| Complex::new(r, 0.5 * r)).collect();
        let two = dft_along(&shape, &dft_along(&shape, &c, 0, false), 1, false);
        let three = dft_along(&shape, &two, 2, false);
        let x = Array::from_vec(&shape, c.clone()).unwrap();
        close(&fft2(&x).unwrap().to_vec().unwrap(), &two, 1e-12);
        close(&fft3(&x).unwrap().to_vec().unwrap(), &three, 1e-12);
        let xs = Array::from_vec(
            &shape,
            c.iter().map(|z| Complex::new(z.re as f32, z.im as f32)).collect(),
        )
        .unwrap();
        let got: Vec<Complex<f64>> = fft3(&xs)
            .unwrap()
            .to_vec()
            .unwrap()
            .iter()
            .map(|z| Complex::new(f64::from(z.re), f64::from(z.im)))
            .collect();
        close(&got, &three, 1e-5);
    }

    #[test]
    fn inverses_undo_the_transforms_and_irealfft_is_the_real_part() {
        let shape = [8, 7];
        let v = sample(56);
        let x = Array::from_vec(&shape, v.clone()).unwrap();
        for (f, i) in [
            (fft1::<f64> as fn(&_) -> _, ifft1::<Complex<f64>> as fn(&_) -> _),
            (fft2, ifft2),
            (fft3, ifft3),
        ] {
            let back = i(&f(&x).unwrap()).unwrap().to_vec().unwrap();
            for (b, o) in back.iter().zip(&v) {
                assert!((b.re - o).abs() < 1e-12 && b.im.abs() < 1e-12);
            }
        }
        let spectrum = fft2(&x).unwrap();
        let real = irealfft2(&spectrum).unwrap();
        assert_eq!(real.shape(), &shape);
        for (b, o) in real.to_vec().unwrap().iter().zip(&v) {
            assert!((b - o).abs() < 1e-12);
        }
        let c: Vec<_> = v.iter().map(|&r| Complex::new(r, 0.0)).collect();
        let expect = dft_along(&shape, &c, 0, true);
        let got = irealfft1(&x).unwrap().to_vec().unwrap();
        for (g, e) in got.iter().zip(&expect) {
            assert!((g - e.re).abs() < 1e-12);
        }
        assert!(irealfft3(&x).is_ok());
    }

    #[test]
    fn large_arrays_take_the_parallel_path_with_the_same_result() {
        let shape = [64, 300];
        let v = sample(64 * 300);
        let c: Vec<_> = v.iter().map(|&r| Complex::new(r, 0.0)).collect();
        let x = Array::from_vec(&shape, v).unwrap();
        close(&fft1(&x).unwrap().to_vec().unwrap(), &dft_along(&shape, &c, 0, false), 1e-11);
    }

    #[test]
    fn empty_and_singleton_arrays() {
        let e = Array::<f32>::zeros(&[0, 4]).unwrap();
        assert_eq!(fft2(&e).unwrap().shape(), &[0, 4]);
        let one = Array::from_vec(&[1, 1], vec![3.0f32]).unwrap();
        assert_eq!(fft2(&one).unwrap().to_vec().unwrap(), vec![Complex::new(3.0, 0.0)]);
    }
}
