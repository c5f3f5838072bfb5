//! Floating-point arithmetic, comparisons, `testp` and the `.approx` functions
//! (PTX ISA §9.7.3, §9.7.4).

use super::{eval_with, f32_op, f32_pred, f64_op};
use crate::{Approx, Options};

const NAN: u32 = 0x7FFF_FFFF; // the canonical NaN PTX arithmetic produces
const INF: f32 = f32::INFINITY;

fn bits(v: &[f32]) -> Vec<u32> {
    v.iter().map(|x| x.to_bits()).collect()
}

#[test]
fn add_mul_round_to_nearest_even_keep_subnormals_and_give_canonical_nan() {
    let e = f32::EPSILON; // 2^-23
    let r = f32_op(
        "add.f32 %f4, %f1, %f2",
        &[[1.0, e / 2.0, 0.0], [1.0, 1.5 * e, 0.0], [f32::NAN, 1.0, 0.0], [INF, -INF, 0.0]],
    );
    assert_eq!(r, [1f32.to_bits(), (1.0 + 2.0 * e).to_bits(), NAN, NAN]);
    // 2^-126 · 0.5 = 2^-127 is subnormal: kept (no .ftz).
    let r = f32_op("mul.f32 %f4, %f1, %f2", &[[f32::MIN_POSITIVE, 0.5, 0.0]]);
    assert_eq!(r, [0x0040_0000]);
    assert_eq!(f32_op("sub.rn.f32 %f4, %f1, %f2", &[[0.0, 0.0, 0.0]]), [0]);
}

#[test]
fn mul_and_add_are_not_fused_but_fma_rounds_once() {
    let (a, b) = (1.0 + f32::EPSILON, 1.0 - f32::EPSILON);
    // (1 + 2^-23)(1 - 2^-23) = 1 - 2^-46 rounds to 1: the unfused result is 0.
    let unfused = f32_op("mul.f32 %f5, %f1, %f2;\n\tadd.f32 %f4, %f5, %f3", &[[a, b, -1.0]]);
    assert_eq!(unfused, [0]);
    let fused = f32_op("fma.rn.f32 %f4, %f1, %f2, %f3", &[[a, b, -1.0]]);
    assert_eq!(fused, [(-(2f32.powi(-46))).to_bits()]);
}

#[test]
fn division_square_root_and_reciprocal_are_correctly_rounded() {
    let r = f32_op(
        "div.rn.f32 %f4, %f1, %f2",
        &[[1.0, 3.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 0.0], [-1.0, 0.0, 0.0]],
    );
    assert_eq!(r, [0x3EAA_AAAB, INF.to_bits(), NAN, (-INF).to_bits()]);
    let r = f32_op("sqrt.rn.f32 %f4, %f1", &[[2.0, 0.0, 0.0], [-1.0, 0.0, 0.0], [-0.0, 0.0, 0.0]]);
    assert_eq!(r, [0x3FB5_04F3, NAN, 0x8000_0000]);
    assert_eq!(f32_op("rcp.rn.f32 %f4, %f1", &[[3.0, 0.0, 0.0]]), [0x3EAA_AAAB]);
    let r = f64_op("div.rn.f64 %fd4, %fd1, %fd2", &[[1.0, 3.0, 0.0]]);
    assert_eq!(r, [0x3FD5_5555_5555_5555]);
}

#[test]
fn min_max_ignore_one_nan_and_order_signed_zeros() {
    let r = f32_op(
        "min.f32 %f4, %f1, %f2",
        &[
            [f32::NAN, 1.0, 0.0],
            [1.0, f32::NAN, 0.0],
            [f32::NAN, f32::NAN, 0.0],
            [0.0, -0.0, 0.0],
            [2.0, 1.0, 0.0],
        ],
    );
    assert_eq!(r, [1f32.to_bits(), 1f32.to_bits(), NAN, 0x8000_0000, 1f32.to_bits()]);
    let r = f32_op("max.f32 %f4, %f1, %f2", &[[-0.0, 0.0, 0.0], [f32::NAN, -3.0, 0.0]]);
    assert_eq!(r, [0, (-3f32).to_bits()]);
    let r = f64_op("max.f64 %fd4, %fd1, %fd2", &[[f64::NAN, -3.0, 0.0]]);
    assert_eq!(r, [(-3f64).to_bits()]);
}

#[test]
fn copysign_takes_the_sign_of_the_first_operand() {
    // copysign d, a, b: b with the sign of a.
    let r = f32_op("copysign.f32 %f4, %f1, %f2", &[[-1.0, 2.0, 0.0], [1.0, -0.0, 0.0]]);
    assert_eq!(r, bits(&[-2.0, 0.0]));
    let r = f32_op("neg.f32 %f4, %f1", &[[0.0, 0.0, 0.0]]);
    assert_eq!(r, [0x8000_0000]);
    assert_eq!(f32_op("abs.f32 %f4, %f1", &[[-0.0, 0.0, 0.0]]), [0]);
}

#[test]
fn ordered_and_unordered_comparisons() {
    let nan = f32::NAN;
    let cases = [[nan, 1.0], [1.0, 2.0], [-0.0, 0.0]];
    let t = |op: &str| f32_pred(&format!("setp.{op}.f32 %p1, %f1, %f2"), &cases);
    // Ordered compares are false when an operand is NaN, unordered ones true.
    assert_eq!(t("lt"), [false, true, false]);
    assert_eq!(t("ltu"), [true, true, false]);
    assert_eq!(t("ne"), [false, true, false]);
    assert_eq!(t("neu"), [true, true, false]);
    assert_eq!(t("eq"), [false, false, true], "-0 == +0");
    assert_eq!(t("equ"), [true, false, true]);
    assert_eq!(t("ge"), [false, false, true]);
    assert_eq!(t("geu"), [true, false, true]);
    assert_eq!(t("num"), [false, true, true]);
    assert_eq!(t("nan"), [true, false, false]);
    // A combined form: p = (a < b) AND q, and its complement.
    let r =
        f32_pred("setp.lt.f32 %p2, %f1, %f2;\n\tsetp.lt.and.f32 %p1|%p3, %f2, %f1, %p2", &cases);
    assert_eq!(r, [false, false, false]);
}

#[test]
fn testp_classifies() {
    let sub = f32::from_bits(1);
    let cases = [[1.0, 0.0], [0.0, 0.0], [sub, 0.0], [INF, 0.0], [f32::NAN, 0.0]];
    let t = |op: &str| f32_pred(&format!("testp.{op}.f32 %p1, %f1"), &cases);
    assert_eq!(t("normal"), [true, true, false, false, false], "zero counts as normal");
    assert_eq!(t("subnormal"), [false, false, true, false, false]);
    assert_eq!(t("finite"), [true, true, true, false, false]);
    assert_eq!(t("infinite"), [false, false, false, true, false]);
    assert_eq!(t("number"), [true, true, true, true, false]);
    assert_eq!(t("notanumber"), [false, false, false, false, true]);
}

#[test]
fn approx_functions_special_values() {
    let e = |op: &str, x: f32| f32_op(&format!("{op}.approx.f32 %f4, %f1"), &[[x, 0.0, 0.0]])[0];
    assert_eq!(e("ex2", -INF), 0);
    assert_eq!(e("ex2", INF), INF.to_bits());
    assert_eq!(e("ex2", 3.0), 8f32.to_bits());
    assert_eq!(e("lg2", 0.0), (-INF).to_bits());
    assert_eq!(e("lg2", -1.0), NAN);
    assert_eq!(e("lg2", INF), INF.to_bits());
    assert_eq!(e("lg2", 0.25), (-2f32).to_bits());
    assert_eq!(e("rsqrt", 0.0), INF.to_bits());
    assert_eq!(e("rsqrt", -0.0), (-INF).to_bits());
    assert_eq!(e("rsqrt", -1.0), NAN);
    assert_eq!(e("rsqrt", 4.0), 0.5f32.to_bits());
    assert_eq!(e("sin", INF), NAN);
    assert_eq!(e("sin", -0.0), 0x8000_0000);
    assert_eq!(e("cos", 0.0), 1f32.to_bits());
}

#[test]
fn approx_bounds_mode_moves_results_within_the_isa_bounds() {
    let xs: Vec<f32> = (1..200).map(|k| k as f32 * 0.37 - 30.0).collect();
    let run = |op: &str, mode: Approx| {
        let body = format!(
            "\tcvt.u32.u64 %r2, %rd10;\n\tmov.b32 %f1, %r2;\n\t{op}.approx.f32 %f4, %f1;\n\
             \tmov.b32 %r5, %f4;\n\tcvt.u64.u32 %rd20, %r5;"
        );
        let ins: Vec<[u64; 3]> = xs.iter().map(|x| [u64::from(x.to_bits()), 0, 0]).collect();
        let opts = Options { approx: mode, ..Options::default() };
        let (out, _) = eval_with(&body, &ins, &opts);
        out.iter().map(|&b| f64::from(f32::from_bits(b as u32))).collect::<Vec<f64>>()
    };
    for (op, f, rel, abs) in
        [("sin", f64::sin as fn(f64) -> f64, 0.0, -20.9), ("ex2", f64::exp2, -22.5, 0.0)]
    {
        let exact = run(op, Approx::Exact);
        let bounded = run(op, Approx::Bounds);
        let mut moved = 0;
        for ((x, e), b) in xs.iter().zip(&exact).zip(&bounded) {
            let t = f(f64::from(*x));
            let bound = t.abs() * f64::exp2(rel) * f64::from(u8::from(rel != 0.0))
                + f64::exp2(abs) * f64::from(u8::from(abs != 0.0));
            // Within the bound plus the final rounding to f32.
            assert!(
                (b - t).abs() <= bound + t.abs() * 2f64.powi(-24) + 1e-45,
                "{op}({x}) = {b}, true {t}"
            );
            assert!((e - t).abs() <= t.abs() * 2f64.powi(-24) + 1e-45, "exact {op}({x})");
            moved += usize::from(b != e);
        }
        assert!(moved > xs.len() / 2, "{op}: bounds mode changed only {moved} results");
    }
}

#[test]
fn double_precision_arithmetic() {
    let r = f64_op(
        "fma.rn.f64 %fd4, %fd1, %fd2, %fd3",
        &[[1.0 + f64::EPSILON, 1.0 - f64::EPSILON, -1.0]],
    );
    assert_eq!(r, [(-(2f64.powi(-104))).to_bits()]);
    let r = f64_op("add.f64 %fd4, %fd1, %fd2", &[[f64::INFINITY, f64::NEG_INFINITY, 0.0]]);
    assert_eq!(r, [0x7FFF_FFFF_FFFF_FFFF]);
    let r = f64_op("sqrt.rn.f64 %fd4, %fd1", &[[2.0, 0.0, 0.0]]);
    assert_eq!(r, [std::f64::consts::SQRT_2.to_bits()]);
}
