//! Conversions (manual table 2.4): `int(x)`, `float(x)`, `complex(x)`, `complex(re, im)`,
//! `real(z)`, `imag(z)`, `conj(z)`, and [`cast`] to any element type. Each returns a new array
//! of the same shape.

use super::elementwise::{map, zip_map, Operand};
use super::num::{Cast, Float, Magnitude};
use quasar_runtime::{Array, Complex, Element, Result};

/// Every element converted to `U` (see [`Cast`] for the rules: `as` between real numbers).
pub fn cast<U: Element, T: Element + Cast<U>>(x: &Array<T>) -> Result<Array<U>> {
    map(x, <T as Cast<U>>::cast)
}

/// `int(x)`: to `int` (`i32`), truncating toward zero (a C cast, as the manual says),
/// saturating at the range of `int`, NaN giving 0.
pub fn int<T: Element + Cast<i32>>(x: &Array<T>) -> Result<Array<i32>> {
    cast(x)
}

/// `float(x)`: to `scalar` (`F` is `f32`, or `f64` in double mode).
pub fn float<F: Float, T: Element + Cast<F>>(x: &Array<T>) -> Result<Array<F>> {
    cast(x)
}

/// `complex(x)`: to `cscalar` with imaginary part 0 (`F` is the `scalar` type).
pub fn complex<F, T>(x: &Array<T>) -> Result<Array<Complex<F>>>
where
    F: Float,
    Complex<F>: Element,
    T: Element + Cast<Complex<F>>,
{
    cast(x)
}

/// `complex(re, im)`: a complex array from its parts; either may be a number, broadcast over
/// the other (as the binary element-wise functions).
pub fn complex_re_im<'a, 'b, F>(
    re: impl Into<Operand<'a, F>>,
    im: impl Into<Operand<'b, F>>,
) -> Result<Array<Complex<F>>>
where
    F: Float,
    Complex<F>: Element,
{
    zip_map("complex", re, im, Complex::new)
}

/// `real(z)`: the real parts (a real array is returned as a copy).
pub fn real<T: Magnitude>(x: &Array<T>) -> Result<Array<T::Part>> {
    map(x, <T as Magnitude>::real)
}

/// `imag(z)`: the imaginary parts (zeros for a real array).
pub fn imag<T: Magnitude>(x: &Array<T>) -> Result<Array<T::Part>> {
    map(x, <T as Magnitude>::imag)
}

/// `conj(z)`: the complex conjugates (a copy for a real array).
pub fn conj<T: Magnitude>(x: &Array<T>) -> Result<Array<T>> {
    map(x, <T as Magnitude>::conj)
}

#[cfg(test)]
mod tests {
    use super::*;
    use quasar_runtime::f16;

    #[test]
    fn int_and_float() {
        let x = Array::from_vec(&[2, 3], vec![-2.7f32, -0.5, 0.5, 2.7, 1e10, f32::NAN]).unwrap();
        let i = int(&x).unwrap();
        assert_eq!(i.shape(), &[2, 3]);
        assert_eq!(i.to_vec().unwrap(), [-2, 0, 0, 2, i32::MAX, 0]);
        let f: Array<f64> = float(&i).unwrap();
        assert_eq!(f.to_vec().unwrap(), [-2.0, 0.0, 0.0, 2.0, i32::MAX as f64, 0.0]);
        let b = Array::from_vec(&[2], vec![250u8, 3]).unwrap();
        assert_eq!(float::<f32, _>(&b).unwrap().to_vec().unwrap(), [250.0, 3.0]);
        let h: Array<f16> = cast(&Array::from_vec(&[1], vec![0.5f32]).unwrap()).unwrap();
        assert_eq!(h.get(&[0]).unwrap(), f16::from_f32(0.5));
    }

    #[test]
    fn complex_parts() {
        let re = Array::from_vec(&[3], vec![1.0f32, 2.0, 3.0]).unwrap();
        let z = complex_re_im(&re, -1.0).unwrap();
        assert_eq!(z.get(&[1]).unwrap(), Complex::new(2.0, -1.0));
        assert_eq!(real(&z).unwrap().to_vec().unwrap(), [1.0, 2.0, 3.0]);
        assert_eq!(imag(&z).unwrap().to_vec().unwrap(), [-1.0; 3]);
        assert_eq!(conj(&z).unwrap().get(&[0]).unwrap(), Complex::new(1.0, 1.0));
        let c = complex::<f32, _>(&re).unwrap();
        assert_eq!(c.get(&[2]).unwrap(), Complex::new(3.0, 0.0));
        assert_eq!(imag(&re).unwrap().to_vec().unwrap(), [0.0; 3]);
        assert_eq!(conj(&re).unwrap().to_vec().unwrap(), [1.0, 2.0, 3.0]);
        let wide: Array<Complex<f64>> = cast(&z).unwrap();
        assert_eq!(wide.get(&[0]).unwrap(), Complex::new(1.0, -1.0));
        let bad = complex_re_im(&re, &Array::from_vec(&[2], vec![0.0f32; 2]).unwrap());
        assert_eq!(bad.unwrap_err().to_string(), "shape mismatch in `complex`: [3] vs [2]");
    }
}
