use crate::builtins::num::Real;
use crate::rt::*;
use quasar_runtime::Complex;

/// Awkward inputs: halves, tiny and huge values, signed zeros, non-finite values, and a
/// spread of bit patterns.
fn samples32() -> Vec<f32> {
    let mut v = vec![
        0.0,
        -0.0,
        0.5,
        -0.5,
        1.5,
        -1.5,
        2.5,
        -2.5,
        0.49999997,
        -0.49999997,
        1e-10,
        -1e-10,
        8388607.5,
        -8388607.5,
        8388608.0,
        16777217.0,
        1e30,
        -1e30,
        f32::MIN_POSITIVE,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        3.0,
        -3.0,
        0.99999994,
        -0.99999994,
    ];
    let mut s = 0x1234_5678u32;
    for _ in 0..20_000 {
        s ^= s << 13;
        s ^= s >> 17;
        s ^= s << 5;
        v.push(f32::from_bits(s));
        v.push((s % 20_000) as f32 / 16.0 - 625.0);
    }
    v
}

fn same32(a: f32, b: f32) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

#[test]
fn rounding_matches_std_and_the_builtins_f32() {
    for x in samples32() {
        assert!(same32(floor(x), x.floor()), "floor({x:e}) = {}", floor(x));
        assert!(same32(ceil(x), x.ceil()), "ceil({x:e}) = {}", ceil(x));
        assert!(same32(round(x), x.round()), "round({x:e}) = {}", round(x));
        assert!(same32(frac(x), Real::frac(x)), "frac({x:e}) = {}", frac(x));
    }
}

#[test]
fn rounding_matches_std_f64() {
    let xs = [0.5f64, -0.5, 2.5, -2.5, 0.49999999999999994, 4503599627370495.5, -1e300, 1e-300];
    for x in xs.into_iter().chain(samples32().into_iter().map(|x| x as f64 * 1.000001)) {
        let same = |a: f64, b: f64| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan());
        assert!(same(floor(x), x.floor()), "floor({x:e})");
        assert!(same(ceil(x), x.ceil()), "ceil({x:e})");
        assert!(same(round(x), x.round()), "round({x:e})");
        assert!(same(frac(x), Real::frac(x)), "frac({x:e})");
    }
}

#[test]
fn concrete_rounding_values() {
    assert_eq!((round(2.5f32), round(-2.5f32), round(0.5f64)), (3.0, -3.0, 1.0));
    assert_eq!((floor(-1.5f64), ceil(-1.5f64)), (-2.0, -1.0));
    assert_eq!((frac(1.25f32), frac(-1.25f32)), (0.25, 0.75));
    assert!((0.0..1.0).contains(&frac(-1e-10f32)));
    assert_eq!((floor(7i32), frac(7i32)), (7, 0));
}

#[test]
fn transcendental_functions_agree_with_std() {
    let close32 = |a: f32, b: f32| (a - b).abs() <= 4.0 * f32::EPSILON * b.abs().max(1e-30);
    for i in -200..=200 {
        let x = i as f32 * 0.037;
        assert!(close32(exp(x), x.exp()), "exp({x})");
        assert!(close32(sin(x), x.sin()), "sin({x})");
        assert!(close32(tanh(x), x.tanh()), "tanh({x})");
        assert!(close32(sinh(x), x.sinh()), "sinh({x}) = {} vs {}", sinh(x), x.sinh());
        assert!(close32(cosh(x), x.cosh()), "cosh({x})");
        assert!(close32(atan2(x, 0.7), x.atan2(0.7)), "atan2({x})");
        let y = x.abs() + 0.1;
        assert!(close32(log(y), y.ln()), "log({y})");
        assert!(close32(pow(y, 1.7), y.powf(1.7)), "pow({y})");
        assert!(close32(sqrt(y), y.sqrt()), "sqrt({y})");
    }
    let close64 = |a: f64, b: f64| (a - b).abs() <= 4.0 * f64::EPSILON * b.abs();
    for x in [1e-300, 1e-20, 1e-8, 0.3, 0.999, 1.0, 1.5, 20.0, 700.0, 710.0, -3.25] {
        assert!(close64(sinh(x), f64::sinh(x)), "sinh({x}) = {} vs {}", sinh(x), x.sinh());
        assert!(close64(cosh(x), f64::cosh(x)), "cosh({x}) = {} vs {}", cosh(x), x.cosh());
    }
    assert_eq!((sinh(0.0f64), sinh(-0.0f64).to_bits()), (0.0, (-0.0f64).to_bits()));
    assert_eq!(
        (sinh(720.0f64), cosh(-720.0f64), sinh(-90.0f32)),
        (f64::INFINITY, f64::INFINITY, f32::NEG_INFINITY)
    );
    assert!(sinh(f32::NAN).is_nan() && cosh(f64::NAN).is_nan());
    assert!(pow(-8.0f32, 1.0 / 3.0).is_nan());
}

#[test]
fn ordering_functions() {
    assert_eq!((min(f32::NAN, 1.0), max(2.0, f32::NAN)), (1.0, 2.0));
    assert_eq!((min(3i32, -4), max(3u8, 200)), (-4, 200));
    assert_eq!(
        (clamp(5, 0, 3), clamp(-1.5f32, 0.0, 1.0), clamp(f32::NAN, 0.0, 1.0)),
        (3, 0.0, 0.0)
    );
    assert_eq!((saturate(1.5f32), saturate(-0.5f64), saturate(0.25f32)), (1.0, 0.0, 0.25));
    assert_eq!((sign(-3.0f32), sign(0i32), sign(7i64)), (-1.0, 0, 1));
    assert_eq!((modulo(-1i32, 4), modulo(7, -3), modulo(5, 0)), (3, -2, 5));
    assert_eq!((modulo(-5.5f32, 2.0), modulo(5.5f64, -2.0)), (0.5, -0.5));
}

#[test]
fn classification_and_complex_parts() {
    assert_eq!((isnan(f32::NAN), isnan(1.0f64), isnan(3i32)), (1, 0, 0));
    assert_eq!((isinf(f64::NEG_INFINITY), isinf(1e30f32), isfinite(2u8)), (1, 0, 1));
    assert_eq!((isfinite(f32::NAN), isnan(Complex::new(0.0f32, f32::NAN))), (0, 1));
    let z = complex(3.0f32, -4.0);
    assert_eq!((abs(z), real(z), imag(z), conj(z)), (5.0, 3.0, -4.0, Complex::new(3.0, 4.0)));
    assert_eq!((abs(i32::MIN), abs(-2i8), abs(-2.5f64)), (i32::MIN, 2, 2.5));
    assert_eq!((real(2.5f32), imag(2.5f32), conj(-7i32)), (2.5, 0.0, -7));
    let e = exp(complex(0.0f64, std::f64::consts::PI));
    assert!((e.re + 1.0).abs() < 1e-15 && e.im.abs() < 1e-15);
    assert_eq!(sqrt(complex(-4.0f64, 0.0)), Complex::new(0.0, 2.0));
}

#[test]
fn casts_are_reachable() {
    assert_eq!(cast::<i32, f32>(-2.9), -2);
    assert_eq!(cast::<u8, i32>(300), 44);
    assert_eq!(<f32 as Cast<i32>>::cast(f32::NAN), 0);
    assert_eq!(cast::<Complex<f64>, i32>(2), Complex::new(2.0, 0.0));
}
