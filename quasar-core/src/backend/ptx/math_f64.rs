//! Double-precision transcendental functions, our own routines (there is no libdevice).
//!
//! Each routine is written once over the operations of [`Fp`] (`fp.rs`): the PTX emitter
//! inlines it instruction by instruction (branch-free: special cases are `selp`s), and the
//! unit tests (`math_f64_tests.rs`) run the very same sequence of IEEE operations in Rust and
//! compare it with Rust's `std` over many points.
//!
//! Constants are decimal literals that round to the bits computed with 300-bit arithmetic.
//!
//! Methods: exact Cody–Waite argument reduction (constants in two or three parts, the first
//! with trailing zero bits or applied with `fma`, so that the first step is exact), Taylor
//! polynomials truncated where the next term is below 2⁻⁵⁶ relative, evaluated with
//! `fma.rn.f64` (Horner), and double-double (`hi + lo`) intermediates where the result is
//! sensitive to a rounding (log, pow, the quadrant offsets of atan2).
//!
//! | function | method | max error measured against Rust `std` (ulp) |
//! |---|---|---|
//! | `exp(x)` | `n = rint(x·log2 e)`, `r = x − n·ln2` (ln2 in 32+53 bits), degree-13 Taylor, `·2ⁿ` in two exact steps | 1 |
//! | `exp2(x)` | `n = rint(x)`, `e^((x−n)·ln2)` with the product as double-double | 1 |
//! | `log(x)`, `log2` | `x = 2ᵏ·m`, `m ∈ [√½, √2)`, `2·atanh(s)`, `s = (m−1)/(m+1)` as double-double, degree-21 Taylor; `log2` times `log2 e` in double-double (exact at powers of 2) | 1 |
//! | `log10` | as `log2` with `log10 e` | 1 (2 where `std` itself is 2 ulp off, e.g. at 1.2945855822392554) |
//! | `pow(x, y)` | `exp(y·log x)` with `y·log x` in double-double | 1 for `|y·ln x| ≤ 64`, 6 up to 700 |
//! | `sin`, `cos`, `tan` | `n = rint(x·2/π)`, `r = x − n·π/2` as double-double (π/2 in three parts), Taylor on `[−π/4, π/4]`, `tan = sin/cos` | 1 (`tan` 2) for `|x| ≤ 2⁵⁰` |
//! | `atan2(y, x)`, `atan` | `t = min/max`, `(t−1)/(t+1)` above tan(π/8), degree-43 Taylor, offsets `j·π/4` in double-double | 1 |
//! | `asin`, `acos` | `atan2(x, √(1−x²))`, `atan2(√(1−x²), x)` (`1−x²` by one `fma`) | 1 |
//! | `sinh`, `cosh` | Taylor below 1, else `h ± 1/(4h)` with `h = eˣ/2` (scaled: no early overflow) | 2 |
//! | `tanh` | `u/(u+2)`, `u = e^2x − 1` below 1, else `1 − 2/(e^2x + 1)` | 4 (about 2 from the 200-bit value; `std` errs the other way) |
//!
//! The bounds are the maxima the unit tests observe (they assert them) on the tested ranges:
//! 200 000 random points per range: exp/exp2 over their whole finite range, log over all
//! positive doubles (subnormals too), trigonometric functions on `|x| ≤ 10⁵` and log-uniform
//! up to 2⁵⁰ (there is no Payne–Hanek reduction: far beyond, `n = rint(x·2/π)` is no longer
//! exact and the result is meaningless, possibly NaN); and NaN, ±∞, ±0, subnormal and
//! negative arguments give what Rust's `std` gives. `std` calls the platform libm, itself
//! within about 1 ulp, so the bounds are those of the difference.

use super::fp::{Bin, Cmp, Fp, IOp, Un};
use super::math_f64_tables::*;

/// `(s, e)` with `s = fl(a + b)` and `s + e = a + b` exactly.
fn two_sum<E: Fp>(e: &mut E, a: E::F, b: E::F) -> (E::F, E::F) {
    let s = e.add(a, b);
    let bb = e.sub(s, a);
    let ab = e.sub(s, bb);
    let db = e.sub(b, bb);
    let da = e.sub(a, ab);
    (s, e.add(da, db))
}

/// `two_sum` when `|a| ≥ |b|` (or `a` is zero).
fn fast_two_sum<E: Fp>(e: &mut E, a: E::F, b: E::F) -> (E::F, E::F) {
    let s = e.add(a, b);
    let t = e.sub(s, a);
    (s, e.sub(b, t))
}

/// The sign bit of `x` is set (also for −0 and NaNs with the bit).
fn sign_bit<E: Fp>(e: &mut E, x: E::F) -> E::P {
    let b = e.to_bits(x);
    let z = e.int(0);
    e.icmp(Cmp::Lt, b, z)
}

/// `x` with the sign of `s`'s sign bit (`x` non-negative).
fn with_sign_of<E: Fp>(e: &mut E, x: E::F, s: E::F) -> E::F {
    let neg = sign_bit(e, s);
    let m = e.un(Un::Neg, x);
    e.sel(neg, m, x)
}

/// `2^m` for an integer `m` in `[-1022, 1023]`.
fn pow2<E: Fp>(e: &mut E, m: E::I) -> E::F {
    let bias = e.int(1023);
    let b = e.iop(IOp::Add, m, bias);
    let s = e.int(52);
    let b = e.iop(IOp::Shl, b, s);
    e.float_of_bits(b)
}

/// `e^(r + c)·2ⁿ` for `|r| ≤ 0.35`, a tiny correction `c` and `n` an integer in
/// `[-1080, 1026]` (as a float): one rounding at the end of the polynomial, then an exact
/// scaling in two steps (`2^(n/2)` keeps the first product normal, so a subnormal result is
/// rounded once).
fn exp_core<E: Fp>(e: &mut E, n: E::F, r: E::F, c: E::F) -> E::F {
    let u = expm1_poly(e, r, c);
    let one = e.num(1.0);
    let p = e.add(one, u);
    let ni = e.to_int(n);
    let s1 = e.int(1);
    let n1 = e.iop(IOp::Shr, ni, s1);
    let n2 = e.iop(IOp::Sub, ni, n1);
    let f1 = pow2(e, n1);
    let f2 = pow2(e, n2);
    let p = e.mul(p, f1);
    e.mul(p, f2)
}

/// `e^(r + c) − 1` for `|r| ≤ 0.35` and a tiny `c`.
fn expm1_poly<E: Fp>(e: &mut E, r: E::F, c: E::F) -> E::F {
    let q = e.poly(r, &EXP_C);
    let rr = e.mul(r, r);
    let t = e.fma(q, rr, r); // e^r − 1
    let ct = e.fma(c, t, c); // (e^r − 1)·c + c
    e.add(t, ct)
}

/// `e^x − 1` for `|x| ≤ 2`: `2ⁿ·(e^(r + c) − 1) + (2ⁿ − 1)`, both parts exact but the sum.
fn expm1_small<E: Fp>(e: &mut E, x: E::F) -> E::F {
    let n = e.mulk(x, LOG2E);
    let n = e.un(Un::Rint, n);
    let nn = e.un(Un::Neg, n);
    let r_hi = e.fmak(nn, LN2_HI, x);
    let r_lo = e.mulk(nn, LN2_LO);
    let (r, c) = two_sum(e, r_hi, r_lo);
    let u = expm1_poly(e, r, c);
    let ni = e.to_int(n);
    let p2 = pow2(e, ni);
    let p2m1 = e.addk(p2, -1.0);
    e.fma(p2, u, p2m1)
}

/// `e^(x + lo)` for a tiny `lo` (zero for `exp`; the low part of `y·log x` in `pow`).
fn exp_dd<E: Fp>(e: &mut E, x: E::F, lo: E::F) -> E::F {
    let lo_k = e.num(-746.0);
    let hi_k = e.num(710.0);
    let xc = e.bin(Bin::Max, x, lo_k);
    let xc = e.bin(Bin::Min, xc, hi_k);
    let n = e.mulk(xc, LOG2E);
    let n = e.un(Un::Rint, n);
    let nn = e.un(Un::Neg, n);
    let r_hi = e.fmak(nn, LN2_HI, xc); // exact
    let r_lo = e.fmak(nn, LN2_LO, lo);
    let (r, c) = two_sum(e, r_hi, r_lo);
    let res = exp_core(e, n, r, c);
    let nan = e.is_nan(x);
    e.sel(nan, x, res)
}

pub(super) fn exp<E: Fp>(e: &mut E, x: E::F) -> E::F {
    let z = e.num(0.0);
    exp_dd(e, x, z)
}

pub(super) fn exp2<E: Fp>(e: &mut E, x: E::F) -> E::F {
    let lo_k = e.num(-1080.0);
    let hi_k = e.num(1025.0);
    let xc = e.bin(Bin::Max, x, lo_k);
    let xc = e.bin(Bin::Min, xc, hi_k);
    let n = e.un(Un::Rint, xc);
    let t = e.sub(xc, n); // exact
    let r = e.mulk(t, LN2);
    let nr = e.un(Un::Neg, r);
    let c = e.fmak(t, LN2, nr); // the rounding error of t·LN2
    let c = e.fmak(t, LN2_TAIL, c);
    let res = exp_core(e, n, r, c);
    let nan = e.is_nan(x);
    e.sel(nan, x, res)
}

/// `ln x = hi + lo` (double-double) for a positive finite `x`.
fn log_dd<E: Fp>(e: &mut E, x: E::F) -> (E::F, E::F) {
    let sub = e.cmpk(Cmp::Lt, x, f64::MIN_POSITIVE);
    let scaled = e.mulk(x, 2f64.powi(54));
    let x = e.sel(sub, scaled, x);
    let bits = e.to_bits(x);
    let s52 = e.int(52);
    let ex = e.iop(IOp::Shr, bits, s52);
    let bias = e.int(1023);
    let ex = e.iop(IOp::Sub, ex, bias);
    let mask = e.int(0x000F_FFFF_FFFF_FFFF);
    let mb = e.iop(IOp::And, bits, mask);
    let one_bits = e.int(0x3FF0_0000_0000_0000);
    let mb = e.iop(IOp::Or, mb, one_bits);
    let m = e.float_of_bits(mb);
    let big = e.cmpk(Cmp::Gt, m, SQRT2);
    let half = e.mulk(m, 0.5);
    let m = e.sel(big, half, m);
    let (one, zero) = (e.int(1), e.int(0));
    let inc = e.seli(big, one, zero);
    let ex = e.iop(IOp::Add, ex, inc);
    let (k54, zero) = (e.int(54), e.int(0));
    let dec = e.seli(sub, k54, zero);
    let ex = e.iop(IOp::Sub, ex, dec);
    let k = e.to_float(ex);
    // m = 1 + f, ln m = 2·atanh(s), s = f/(2 + f) = s_hi + s_lo.
    let f = e.addk(m, -1.0); // exact
    let two = e.num(2.0);
    let (d, d_lo) = fast_two_sum(e, two, f);
    let s = e.div(f, d);
    let ns = e.un(Un::Neg, s);
    let res = e.fma(ns, d, f);
    let res = e.fma(ns, d_lo, res);
    let s_lo = e.div(res, d);
    let z = e.mul(s, s);
    let p = e.poly(z, &LOG_C);
    let sz = e.mul(s, z);
    let tail = e.mul(sz, p);
    let z2 = e.add(z, z);
    let tail = e.fma(s_lo, z2, tail); // the s_lo part of the cubic term
    let s2 = e.add(s, s);
    let s2_lo = e.add(s_lo, s_lo);
    let k_hi = e.mulk(k, LN2_HI); // exact
    let (hi, err) = two_sum(e, k_hi, s2);
    let lo = e.add(s2_lo, tail);
    let lo = e.fmak(k, LN2_LO, lo);
    let lo = e.add(err, lo);
    fast_two_sum(e, hi, lo)
}

/// The special values of the logarithms: `+∞` at `+∞`, `−∞` at ±0, NaN below zero and at NaN.
fn log_special<E: Fp>(e: &mut E, x: E::F, res: E::F) -> E::F {
    let inf = e.cmpk(Cmp::Eq, x, f64::INFINITY);
    let res = e.selk(inf, f64::INFINITY, res);
    let zero = e.cmpk(Cmp::Eq, x, 0.0);
    let res = e.selk(zero, f64::NEG_INFINITY, res);
    let neg = e.cmpk(Cmp::Lt, x, 0.0);
    let res = e.selk(neg, f64::NAN, res);
    let nan = e.is_nan(x);
    e.sel(nan, x, res)
}

pub(super) fn log<E: Fp>(e: &mut E, x: E::F) -> E::F {
    let (hi, _) = log_dd(e, x);
    log_special(e, x, hi)
}

/// `log(x)·(k_hi + k_lo)`: `log2` and `log10`.
fn log_scaled<E: Fp>(e: &mut E, x: E::F, k_hi: f64, k_lo: f64) -> E::F {
    let (hi, lo) = log_dd(e, x);
    let p = e.mulk(hi, k_hi);
    let np = e.un(Un::Neg, p);
    let err = e.fmak(hi, k_hi, np);
    let lo_k = e.mulk(lo, k_hi);
    let c = e.fmak(hi, k_lo, lo_k);
    let c = e.add(err, c);
    let res = e.add(p, c);
    log_special(e, x, res)
}

pub(super) fn log2<E: Fp>(e: &mut E, x: E::F) -> E::F {
    log_scaled(e, x, LOG2E, LOG2E_TAIL)
}

pub(super) fn log10<E: Fp>(e: &mut E, x: E::F) -> E::F {
    log_scaled(e, x, LOG10E, LOG10E_TAIL)
}

/// `x^y` with the special cases of C's (and Rust's) `pow`.
pub(super) fn pow<E: Fp>(e: &mut E, x: E::F, y: E::F) -> E::F {
    let ax = e.un(Un::Abs, x);
    let (hi, lo) = log_dd(e, ax);
    let zero = e.cmpk(Cmp::Eq, ax, 0.0);
    let inf = e.cmpk(Cmp::Eq, ax, f64::INFINITY);
    let hi = e.selk(zero, f64::NEG_INFINITY, hi);
    let hi = e.selk(inf, f64::INFINITY, hi);
    let yh = e.mul(y, hi);
    let nyh = e.un(Un::Neg, yh);
    let err = e.fma(y, hi, nyh);
    let ylo = e.mul(y, lo);
    let ye = e.add(err, ylo);
    // Far outside exp's range (or NaN) the low part is meaningless: the result saturates.
    let ayh = e.un(Un::Abs, yh);
    let in_range = e.cmpk(Cmp::Lt, ayh, 800.0);
    let zero = e.num(0.0);
    let ye = e.sel(in_range, ye, zero);
    let r = exp_dd(e, yh, ye);
    // A negative base: the sign of an odd power, no real value for a fractional one.
    let yt = e.un(Un::Trunc, y);
    let yint = e.cmp(Cmp::Eq, yt, y);
    let half = e.mulk(y, 0.5);
    let ht = e.un(Un::Trunc, half);
    let odd = e.cmp(Cmp::Ne, ht, half);
    let odd = e.and(odd, yint);
    let neg = sign_bit(e, x);
    let flip = e.and(neg, odd);
    let nr = e.un(Un::Neg, r);
    let r = e.sel(flip, nr, r);
    let fin_neg = e.cmpk(Cmp::Gt, x, f64::NEG_INFINITY);
    let lt0 = e.cmpk(Cmp::Lt, x, 0.0);
    let fin_neg = e.and(fin_neg, lt0);
    let frac = e.not(yint);
    let nan_case = e.and(fin_neg, frac);
    let r = e.selk(nan_case, f64::NAN, r);
    let xn = e.is_nan(x);
    let yn = e.is_nan(y);
    let any_nan = e.or(xn, yn);
    let sum = e.add(x, y);
    let r = e.sel(any_nan, sum, r);
    // pow(x, ±0) = 1, pow(1, y) = 1, pow(−1, ±∞) = 1.
    let y0 = e.cmpk(Cmp::Eq, y, 0.0);
    let x1 = e.cmpk(Cmp::Eq, x, 1.0);
    let ax1 = e.cmpk(Cmp::Eq, ax, 1.0);
    let ay = e.un(Un::Abs, y);
    let yinf = e.cmpk(Cmp::Eq, ay, f64::INFINITY);
    let m1 = e.and(ax1, yinf);
    let one = e.or(y0, x1);
    let one = e.or(one, m1);
    e.selk(one, 1.0, r)
}

/// `(n, r, rc)`: `x = n·π/2 + r + rc`, `|r| ≤ π/4` (slightly more for huge `x`), `rc` the
/// low part of the double-double `r + rc`.
fn reduce_pio2<E: Fp>(e: &mut E, x: E::F) -> (E::I, E::F, E::F) {
    let n = e.mulk(x, TWO_OVER_PI);
    let n = e.un(Un::Rint, n);
    let nn = e.un(Un::Neg, n);
    let r1 = e.fmak(nn, PIO2_1, x); // exact
    let w = e.mulk(n, PIO2_2);
    let nw = e.un(Un::Neg, w);
    let w_err = e.fmak(n, PIO2_2, nw); // n·PIO2_2 = w + w_err exactly
    let (r2, e2) = two_sum(e, r1, nw);
    let lo = e.sub(e2, w_err);
    let lo = e.fmak(nn, PIO2_3, lo);
    let (r, rc) = fast_two_sum(e, r2, lo);
    (e.to_int(n), r, rc)
}

/// `(sin, cos)` of `r + rc` for `|r| ≤ π/4` and a tiny `rc`.
fn sin_cos_poly<E: Fp>(e: &mut E, r: E::F, rc: E::F) -> (E::F, E::F) {
    let z = e.mul(r, r);
    let q = e.poly(z, &SIN_C);
    let rz = e.mul(r, z);
    // sin(r + rc) ≈ r + (rc + r·z·S(z)) (the rc·(cos r − 1) term is below 2⁻¹⁰⁵·r).
    let s = e.fma(rz, q, rc);
    let s = e.add(r, s);
    // cos r = w + ((1 − w) − z/2 − err(z)/2 + z²·C(z) − r·rc), w = 1 − z/2.
    let nz = e.un(Un::Neg, z);
    let z_err = e.fma(r, r, nz);
    let hz = e.mulk(z, 0.5);
    let one = e.num(1.0);
    let w = e.sub(one, hz);
    let lost = e.sub(one, w);
    let lost = e.sub(lost, hz);
    let lost = e.fmak(z_err, -0.5, lost);
    let nr = e.un(Un::Neg, r);
    let lost = e.fma(nr, rc, lost);
    let c = e.poly(z, &COS_C);
    let zz = e.mul(z, z);
    let tail = e.fma(zz, c, lost);
    let c = e.add(w, tail);
    (s, c)
}

/// `sin`, `cos` or `tan` of `x`.
pub(super) fn trig<E: Fp>(e: &mut E, which: &str, x: E::F) -> E::F {
    let (n, r, rc) = reduce_pio2(e, x);
    let (s, c) = sin_cos_poly(e, r, rc);
    let n = if which == "cos" {
        let one = e.int(1);
        e.iop(IOp::Add, n, one)
    } else {
        n
    };
    let (k1, k2, zero) = (e.int(1), e.int(2), e.int(0));
    let b1 = e.iop(IOp::And, n, k1);
    let odd = e.icmp(Cmp::Ne, b1, zero);
    let b2 = e.iop(IOp::And, n, k2);
    let neg = e.icmp(Cmp::Ne, b2, zero);
    let res = if which == "tan" {
        let q = e.div(s, c);
        let nc = e.un(Un::Neg, c);
        let cot = e.div(nc, s);
        e.sel(odd, cot, q)
    } else {
        let v = e.sel(odd, c, s);
        let nv = e.un(Un::Neg, v);
        e.sel(neg, nv, v)
    };
    if which == "cos" {
        res
    } else {
        // sin(±0) = tan(±0) = ±0.
        let z = e.cmpk(Cmp::Eq, x, 0.0);
        e.sel(z, x, res)
    }
}

/// `atan2(y, x)` with IEEE's special cases.
pub(super) fn atan2<E: Fp>(e: &mut E, y: E::F, x: E::F) -> E::F {
    let ax = e.un(Un::Abs, x);
    let ay = e.un(Un::Abs, y);
    let swap = e.cmp(Cmp::Gt, ay, ax);
    let nn = e.bin(Bin::Min, ax, ay);
    let dd = e.bin(Bin::Max, ax, ay);
    // Above tan(π/8): atan(q) = π/4 + atan((q − 1)/(q + 1)), numerator and denominator as
    // double-doubles.
    let lim = e.mulk(dd, TAN_PI_8);
    let mid = e.cmp(Cmp::Gt, nn, lim);
    let both_inf = e.cmpk(Cmp::Eq, nn, f64::INFINITY);
    let mid = e.or(mid, both_inf);
    let ndd = e.un(Un::Neg, dd);
    let (mh, ml) = two_sum(e, nn, ndd);
    let (ph, pl) = two_sum(e, nn, dd);
    let zero = e.num(0.0);
    let nh = e.sel(mid, mh, nn);
    let nl = e.sel(mid, ml, zero);
    let dh = e.sel(mid, ph, dd);
    let dl = e.sel(mid, pl, zero);
    let t = e.div(nh, dh);
    let nt = e.un(Un::Neg, t);
    let res = e.fma(nt, dh, nh);
    let res = e.add(res, nl);
    let res = e.fma(nt, dl, res);
    let t_lo = e.div(res, dh);
    // 0/0 and ∞/∞: t = 0 (the offsets give the right angle).
    let bad = e.is_nan(t);
    let t = e.selk(bad, 0.0, t);
    let bad = e.is_nan(t_lo);
    let t_lo = e.selk(bad, 0.0, t_lo);
    let z = e.mul(t, t);
    let p = e.poly(z, &atan_coefficients());
    let tz = e.mul(t, z);
    let tail = e.mul(tz, p);
    // atan(t + t_lo) ≈ atan(t) + t_lo/(1 + z) ≈ atan(t) + t_lo·(1 − z).
    let nz = e.un(Un::Neg, z);
    let corr = e.fma(t_lo, nz, t_lo);
    let small = e.add(tail, corr);
    // The result is j·π/4 + sgn·atan(t).
    let one = e.num(1.0);
    let j = e.sel(mid, one, zero);
    let sgn = e.num(1.0);
    let two = e.num(2.0);
    let j2 = e.sub(two, j);
    let j = e.sel(swap, j2, j);
    let nsgn = e.un(Un::Neg, sgn);
    let sgn = e.sel(swap, nsgn, sgn);
    let xneg = sign_bit(e, x);
    let four = e.num(4.0);
    let j4 = e.sub(four, j);
    let j = e.sel(xneg, j4, j);
    let nsgn = e.un(Un::Neg, sgn);
    let sgn = e.sel(xneg, nsgn, sgn);
    let off_hi = e.mulk(j, PIO4_HI); // exact
    let off_lo = e.mulk(j, PIO4_LO);
    let st = e.mul(sgn, t);
    let (sh, se) = two_sum(e, off_hi, st);
    let lo = e.fma(sgn, small, off_lo);
    let lo = e.add(se, lo);
    let res = e.add(sh, lo);
    let res = with_sign_of(e, res, y);
    let xn = e.is_nan(x);
    let yn = e.is_nan(y);
    let any = e.or(xn, yn);
    let sum = e.add(x, y);
    e.sel(any, sum, res)
}

pub(super) fn atan<E: Fp>(e: &mut E, x: E::F) -> E::F {
    let one = e.num(1.0);
    atan2(e, x, one)
}

/// `asin` (`acos = false`) or `acos` of `x`.
pub(super) fn asin_acos<E: Fp>(e: &mut E, x: E::F, acos: bool) -> E::F {
    let nx = e.un(Un::Neg, x);
    let one = e.num(1.0);
    let c = e.fma(nx, x, one);
    let c = e.un(Un::Sqrt, c);
    if acos {
        atan2(e, c, x)
    } else {
        atan2(e, x, c)
    }
}

/// `e^|x|/2`, finite up to where `cosh` overflows.
fn exp_half<E: Fp>(e: &mut E, a: E::F) -> E::F {
    let lo_k = e.num(-746.0);
    let hi_k = e.num(712.0);
    let xc = e.bin(Bin::Max, a, lo_k);
    let xc = e.bin(Bin::Min, xc, hi_k);
    let n = e.mulk(xc, LOG2E);
    let n = e.un(Un::Rint, n);
    let nn = e.un(Un::Neg, n);
    let r_hi = e.fmak(nn, LN2_HI, xc);
    let r_lo = e.mulk(nn, LN2_LO);
    let (r, c) = two_sum(e, r_hi, r_lo);
    let n1 = e.addk(n, -1.0);
    exp_core(e, n1, r, c)
}

/// `sinh`, `cosh` or `tanh` of `x`.
pub(super) fn hyperbolic<E: Fp>(e: &mut E, which: &str, x: E::F) -> E::F {
    let a = e.un(Un::Abs, x);
    let small = e.cmpk(Cmp::Lt, a, 1.0);
    let z = e.mul(a, a);
    let q = e.poly(z, &SINH_C);
    let az = e.mul(a, z);
    let s_small = e.fma(az, q, a);
    let h = exp_half(e, a);
    let quarter = e.num(0.25);
    let inv = e.div(quarter, h);
    let res = match which {
        "cosh" => e.add(h, inv),
        "sinh" => {
            let s = e.sub(h, inv);
            e.sel(small, s_small, s)
        }
        _ => {
            // Below 1: u/(u + 2) with u = e^2a − 1; above: 1 − 2/(e^2a + 1).
            let a2 = e.add(a, a);
            let u = expm1_small(e, a2);
            let u2 = e.addk(u, 2.0);
            let q = e.div(u, u2);
            let e2 = exp(e, a2);
            let d = e.addk(e2, 1.0);
            let two = e.num(2.0);
            let f = e.div(two, d);
            let one = e.num(1.0);
            let big = e.sub(one, f);
            e.sel(small, q, big)
        }
    };
    let res = if which == "cosh" { res } else { with_sign_of(e, res, x) };
    let nan = e.is_nan(x);
    e.sel(nan, x, res)
}

/// A routine of this file by its Quasar name, for 1 or 2 arguments.
pub(super) fn call<E: Fp>(e: &mut E, name: &str, args: &[E::F]) -> Option<E::F> {
    Some(match (name, args) {
        ("exp", &[x]) => exp(e, x),
        ("exp2", &[x]) => exp2(e, x),
        ("log", &[x]) => log(e, x),
        ("log2", &[x]) => log2(e, x),
        ("log10", &[x]) => log10(e, x),
        ("sin" | "cos" | "tan", &[x]) => trig(e, name, x),
        ("atan", &[x]) => atan(e, x),
        ("asin", &[x]) => asin_acos(e, x, false),
        ("acos", &[x]) => asin_acos(e, x, true),
        ("sinh" | "cosh" | "tanh", &[x]) => hyperbolic(e, name, x),
        ("atan2", &[y, x]) => atan2(e, y, x),
        ("pow", &[x, y]) => pow(e, x, y),
        _ => return None,
    })
}
