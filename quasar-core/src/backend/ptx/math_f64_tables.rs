//! The constants and Taylor coefficient tables of `math_f64.rs` (shared by the emitter and the
//! Rust mirror of the tests). Constants round to the bits computed with 300-bit arithmetic
//! (mpmath); coefficients are single divisions, correctly rounded.

pub(super) const LN2_HI: f64 = 0.6931471806019545; // 32 bits: n·LN2_HI is exact
pub(super) const LN2_LO: f64 = -4.2009150726810846e-11;
pub(super) const LN2: f64 = std::f64::consts::LN_2;
pub(super) const LN2_TAIL: f64 = 2.3190468138462996e-17;
pub(super) const LOG2E: f64 = std::f64::consts::LOG2_E;
pub(super) const LOG2E_TAIL: f64 = 2.0355273740931033e-17;
pub(super) const LOG10E: f64 = std::f64::consts::LOG10_E;
pub(super) const LOG10E_TAIL: f64 = 1.098319650216765e-17;
pub(super) const TWO_OVER_PI: f64 = std::f64::consts::FRAC_2_PI;
pub(super) const PIO2_1: f64 = std::f64::consts::FRAC_PI_2;
pub(super) const PIO2_2: f64 = 6.123233995736766e-17;
pub(super) const PIO2_3: f64 = -1.4973849048591698e-33;
pub(super) const PIO4_HI: f64 = std::f64::consts::FRAC_PI_4; // 3 trailing zero bits: j·PIO4_HI exact
pub(super) const PIO4_LO: f64 = 3.061616997868383e-17;
pub(super) const TAN_PI_8: f64 = 0.41421356237309503;
pub(super) const SQRT2: f64 = std::f64::consts::SQRT_2;

/// `e^r - 1 - r = r²·Σ r^k/(k+2)!`, `k = 0..=11` (Taylor to degree 13; `|r| ≤ 0.35`).
pub(super) const EXP_C: [f64; 12] = [
    1.0 / 2.0,
    1.0 / 6.0,
    1.0 / 24.0,
    1.0 / 120.0,
    1.0 / 720.0,
    1.0 / 5040.0,
    1.0 / 40320.0,
    1.0 / 362880.0,
    1.0 / 3628800.0,
    1.0 / 39916800.0,
    1.0 / 479001600.0,
    1.0 / 6227020800.0,
];

/// `2·atanh(s) = 2s + s·z·Σ 2z^k/(2k+3)`, `z = s²`, `k = 0..=9` (`|s| ≤ 0.1716`).
pub(super) const LOG_C: [f64; 10] = [
    2.0 / 3.0,
    2.0 / 5.0,
    2.0 / 7.0,
    2.0 / 9.0,
    2.0 / 11.0,
    2.0 / 13.0,
    2.0 / 15.0,
    2.0 / 17.0,
    2.0 / 19.0,
    2.0 / 21.0,
];

/// `sin r = r + r·z·Σ (−1)^(k+1) z^k/(2k+3)!` (`k = 0..=7`, `|r| ≤ π/4`).
pub(super) const SIN_C: [f64; 8] = [
    -1.0 / 6.0,
    1.0 / 120.0,
    -1.0 / 5040.0,
    1.0 / 362880.0,
    -1.0 / 39916800.0,
    1.0 / 6227020800.0,
    -1.0 / 1307674368000.0,
    1.0 / 355687428096000.0,
];

/// `cos r = 1 − z/2 + z²·Σ (−1)^k z^k/(2k+4)!` (`k = 0..=6`).
pub(super) const COS_C: [f64; 7] = [
    1.0 / 24.0,
    -1.0 / 720.0,
    1.0 / 40320.0,
    -1.0 / 3628800.0,
    1.0 / 479001600.0,
    -1.0 / 87178291200.0,
    1.0 / 20922789888000.0,
];

/// `sinh r = r + r·z·Σ z^k/(2k+3)!` (`k = 0..=7`, `|r| < 1`).
pub(super) const SINH_C: [f64; 8] = [
    1.0 / 6.0,
    1.0 / 120.0,
    1.0 / 5040.0,
    1.0 / 362880.0,
    1.0 / 39916800.0,
    1.0 / 6227020800.0,
    1.0 / 1307674368000.0,
    1.0 / 355687428096000.0,
];

/// `atan t = t + t·z·Σ (−1)^(k+1) z^k/(2k+3)`, `k = 0..ATAN_TERMS` (`|t| ≤ tan(π/8)`).
pub(super) const ATAN_TERMS: usize = 21;

pub(super) fn atan_coefficients() -> [f64; ATAN_TERMS] {
    let mut c = [0.0; ATAN_TERMS];
    for (k, v) in c.iter_mut().enumerate() {
        let sign = if k % 2 == 0 { -1.0 } else { 1.0 };
        *v = sign / (2 * k + 3) as f64;
    }
    c
}
