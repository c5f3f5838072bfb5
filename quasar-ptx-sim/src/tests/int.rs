//! Integer arithmetic, logic and shifts (PTX ISA §9.7.1, §9.7.8).

use super::{eval_with, i32_op};
use crate::Options;

const M: u32 = u32::MAX;

#[test]
fn add_sub_mul_wrap_at_the_width() {
    assert_eq!(i32_op("add.s32 %r13, %r10, %r11", &[[i32::MAX as u32, 1, 0]]), [i32::MIN as u32]);
    assert_eq!(i32_op("sub.u32 %r13, %r10, %r11", &[[0, 1, 0]]), [M]);
    assert_eq!(i32_op("mul.lo.s32 %r13, %r10, %r11", &[[0x1_0001, 0x1_0001, 0]]), [0x2_0001]);
    // mul.hi: the upper half of the 64-bit product, signed or unsigned.
    assert_eq!(i32_op("mul.hi.u32 %r13, %r10, %r11", &[[M, M, 0]]), [0xFFFF_FFFE]);
    assert_eq!(i32_op("mul.hi.s32 %r13, %r10, %r11", &[[M, M, 0]]), [0]);
    assert_eq!(i32_op("mad.lo.s32 %r13, %r10, %r11, %r12", &[[7, (-3i32) as u32, 100]]), [79]);
}

#[test]
fn mul_wide_keeps_all_bits_and_extends_by_type() {
    let (out, _) = eval_with(
        "\tcvt.u32.u64 %r10, %rd10;\n\tcvt.u32.u64 %r11, %rd11;\n\tmul.wide.s32 %rd20, %r10, %r11;",
        &[[(-2i32) as u32 as u64, 3, 0], [0x8000_0000, 0x8000_0000, 0]],
        &Options::default(),
    );
    assert_eq!(out, [(-6i64) as u64, 1 << 62]);
    let (out, _) = eval_with(
        "\tcvt.u32.u64 %r10, %rd10;\n\tcvt.u32.u64 %r11, %rd11;\n\tmul.wide.u32 %rd20, %r10, %r11;",
        &[[u64::from(M), u64::from(M), 0]],
        &Options::default(),
    );
    assert_eq!(out, [0xFFFF_FFFE_0000_0001]);
}

#[test]
fn division_truncates_and_division_by_zero_is_flagged() {
    assert_eq!(i32_op("div.s32 %r13, %r10, %r11", &[[(-7i32) as u32, 2, 0]]), [(-3i32) as u32]);
    // rem takes the sign of the dividend.
    assert_eq!(i32_op("rem.s32 %r13, %r10, %r11", &[[(-7i32) as u32, 2, 0]]), [M]);
    assert_eq!(i32_op("rem.u32 %r13, %r10, %r11", &[[7, 4, 0]]), [3]);
    let body = "\tcvt.u32.u64 %r10, %rd10;\n\tcvt.u32.u64 %r11, %rd11;\n\
                \tdiv.u32 %r13, %r10, %r11;\n\tcvt.u64.u32 %rd20, %r13;";
    let (out, report) = eval_with(body, &[[5, 0, 0], [6, 3, 0]], &Options::default());
    // A value (machine-specific per the ISA; all ones here), no panic, and a warning.
    assert_eq!(out, [u64::from(M), 2]);
    assert_eq!(report.warnings.len(), 1, "{report:?}");
    assert!(
        report.warnings[0].contains("division by zero") && report.warnings[0].contains("div.u32")
    );
}

#[test]
fn min_max_by_signedness() {
    let m1 = (-1i32) as u32;
    assert_eq!(i32_op("min.s32 %r13, %r10, %r11", &[[m1, 1, 0]]), [m1]);
    assert_eq!(i32_op("min.u32 %r13, %r10, %r11", &[[m1, 1, 0]]), [1]);
    assert_eq!(i32_op("max.s32 %r13, %r10, %r11", &[[m1, 1, 0]]), [1]);
    assert_eq!(i32_op("max.u32 %r13, %r10, %r11", &[[m1, 1, 0]]), [m1]);
}

#[test]
fn shifts_are_clamped_to_the_width() {
    // "Shift amounts greater than the register width N are clamped to N."
    let shl = i32_op("shl.b32 %r13, %r10, %r11", &[[1, 31, 0], [1, 32, 0], [1, 40, 0], [3, M, 0]]);
    assert_eq!(shl, [0x8000_0000, 0, 0, 0]);
    let neg = (-16i32) as u32;
    let sar = i32_op("shr.s32 %r13, %r10, %r11", &[[neg, 2, 0], [neg, 32, 0], [16, 99, 0]]);
    assert_eq!(sar, [(-4i32) as u32, M, 0], "signed shifts fill with the sign bit");
    let shr = i32_op("shr.u32 %r13, %r10, %r11", &[[neg, 2, 0], [neg, 32, 0]]);
    assert_eq!(shr, [neg >> 2, 0]);
    assert_eq!(i32_op("shr.b32 %r13, %r10, %r11", &[[0x8000_0000, 31, 0]]), [1]);
}

#[test]
fn logic_neg_abs() {
    assert_eq!(i32_op("and.b32 %r13, %r10, %r11", &[[0b1100, 0b1010, 0]]), [0b1000]);
    assert_eq!(i32_op("or.b32 %r13, %r10, %r11", &[[0b1100, 0b1010, 0]]), [0b1110]);
    assert_eq!(i32_op("xor.b32 %r13, %r10, %r11", &[[0b1100, 0b1010, 0]]), [0b0110]);
    assert_eq!(i32_op("not.b32 %r13, %r10", &[[0, 0, 0]]), [M]);
    assert_eq!(i32_op("neg.s32 %r13, %r10", &[[5, 0, 0]]), [(-5i32) as u32]);
    // abs of the most negative value is itself (two's complement).
    assert_eq!(
        i32_op("abs.s32 %r13, %r10", &[[(-5i32) as u32, 0, 0], [0x8000_0000, 0, 0]]),
        [5, 0x8000_0000]
    );
}

#[test]
fn sixty_four_bit_forms() {
    let body = "\tadd.s64 %rd20, %rd10, %rd11;";
    let (out, _) = eval_with(body, &[[u64::MAX, 2, 0]], &Options::default());
    assert_eq!(out, [1]);
    let (out, _) =
        eval_with("\tshr.s64 %rd20, %rd10, 70;", &[[1 << 63, 0, 0]], &Options::default());
    assert_eq!(out, [u64::MAX]);
    let (out, _) = eval_with(
        "\tmad.lo.u64 %rd20, %rd10, %rd11, %rd12;",
        &[[1 << 40, 1 << 30, 5]],
        &Options::default(),
    );
    // 2^40 · 2^30 = 2^70 wraps to 0.
    assert_eq!(out, [5]);
}
