//! `cvt`: rounding modifiers, saturation, half precision, integer extension (PTX ISA §9.7.9.21).

use super::{eval, f32_op, i32_op};

fn f32s(op: &str, xs: &[f32]) -> Vec<f32> {
    let ins: Vec<[f32; 3]> = xs.iter().map(|&x| [x, 0.0, 0.0]).collect();
    f32_op(op, &ins).into_iter().map(f32::from_bits).collect()
}

/// `cvt` of each f32 in `xs` to a 32-bit integer register (as `u32`).
fn f32_to_int(op: &str, xs: &[f32]) -> Vec<u32> {
    let body = format!(
        "\tcvt.u32.u64 %r2, %rd10;\n\tmov.b32 %f1, %r2;\n\t{op} %r13, %f1;\n\tcvt.u64.u32 %rd20, %r13;"
    );
    let ins: Vec<[u64; 3]> = xs.iter().map(|x| [u64::from(x.to_bits()), 0, 0]).collect();
    eval(&body, &ins).into_iter().map(|v| v as u32).collect()
}

/// `cvt` of each 32-bit integer to f32 (bits).
fn int_to_f32(op: &str, xs: &[u32]) -> Vec<f32> {
    let ins: Vec<[u32; 3]> = xs.iter().map(|&x| [x, 0, 0]).collect();
    i32_op(&format!("{op} %f4, %r10;\n\tmov.b32 %r13, %f4"), &ins)
        .into_iter()
        .map(f32::from_bits)
        .collect()
}

#[test]
fn integral_rounding_of_floats() {
    // .rni: nearest, ties to even.
    let r = f32s("cvt.rni.f32.f32 %f4, %f1", &[0.5, 1.5, 2.5, -0.5, -2.5, 3.7]);
    assert_eq!(r, [0.0, 2.0, 2.0, -0.0, -2.0, 4.0]);
    assert!(r[3].is_sign_negative());
    assert_eq!(f32s("cvt.rzi.f32.f32 %f4, %f1", &[-1.7, 1.7]), [-1.0, 1.0]);
    assert_eq!(f32s("cvt.rmi.f32.f32 %f4, %f1", &[-1.2, 1.2]), [-2.0, 1.0]);
    assert_eq!(f32s("cvt.rpi.f32.f32 %f4, %f1", &[-1.2, 1.2]), [-1.0, 2.0]);
    assert!(f32s("cvt.rni.f32.f32 %f4, %f1", &[f32::NAN])[0].is_nan());
}

#[test]
fn float_to_integer_saturates_and_nan_is_zero() {
    let r = f32_to_int("cvt.rzi.s32.f32", &[3e9, -3e9, f32::NAN, -1.9, f32::INFINITY]);
    assert_eq!(r, [i32::MAX as u32, i32::MIN as u32, 0, (-1i32) as u32, i32::MAX as u32]);
    assert_eq!(f32_to_int("cvt.rni.s32.f32", &[2.5, 3.5, -2.5]), [2, 4, (-2i32) as u32]);
    assert_eq!(f32_to_int("cvt.rzi.u32.f32", &[-5.0, 5e9, 7.9]), [0, u32::MAX, 7]);
    // An 8-bit destination saturates to its range and is sign-extended in the register.
    assert_eq!(f32_to_int("cvt.rzi.s8.f32", &[-200.5, 100.9]), [0xFFFF_FF80, 100]);
    let body = "\tmov.b64 %fd1, %rd10;\n\tcvt.rni.s64.f64 %rd20, %fd1;";
    let r = eval(body, &[[9.3e18f64.to_bits(), 0, 0], [(-0.5f64).to_bits(), 0, 0]]);
    assert_eq!(r, [i64::MAX as u64, 0]);
}

#[test]
fn integer_to_float_rounding_modes() {
    let big = [16_777_217u32, 16_777_219];
    assert_eq!(int_to_f32("cvt.rn.f32.s32", &big), [16_777_216.0, 16_777_220.0]);
    assert_eq!(int_to_f32("cvt.rz.f32.s32", &big), [16_777_216.0, 16_777_218.0]);
    assert_eq!(int_to_f32("cvt.rp.f32.s32", &big), [16_777_218.0, 16_777_220.0]);
    assert_eq!(int_to_f32("cvt.rm.f32.s32", &[(-16_777_219i32) as u32]), [-16_777_220.0]);
    assert_eq!(int_to_f32("cvt.rn.f32.u32", &[u32::MAX]), [4_294_967_296.0]);
    assert_eq!(int_to_f32("cvt.rn.f32.s32", &[u32::MAX]), [-1.0]);
}

#[test]
fn double_to_single_rounding() {
    let body = |op: &str| {
        format!("\tmov.b64 %fd1, %rd10;\n\t{op} %f4, %fd1;\n\tmov.b32 %r5, %f4;\n\tcvt.u64.u32 %rd20, %r5;")
    };
    let xs = [1.0 + 2f64.powi(-24), 1.0 + 2f64.powi(-24) + 2f64.powi(-52), 1e39];
    let ins: Vec<[u64; 3]> = xs.iter().map(|x| [x.to_bits(), 0, 0]).collect();
    let rn: Vec<f32> =
        eval(&body("cvt.rn.f32.f64"), &ins).iter().map(|&b| f32::from_bits(b as u32)).collect();
    assert_eq!(rn, [1.0, 1.0 + f32::EPSILON, f32::INFINITY]);
    let rz: Vec<f32> =
        eval(&body("cvt.rz.f32.f64"), &ins).iter().map(|&b| f32::from_bits(b as u32)).collect();
    assert_eq!(rz, [1.0, 1.0, f32::MAX]);
    let r = eval("\tcvt.u32.u64 %r2, %rd10;\n\tmov.b32 %f1, %r2;\n\tcvt.f64.f32 %fd1, %f1;\n\tmov.b64 %rd20, %fd1;", &[[u64::from(0.1f32.to_bits()), 0, 0]]);
    assert_eq!(r, [f64::from(0.1f32).to_bits()]);
}

#[test]
fn saturation_of_floats() {
    // .sat: clamped to [0, 1], NaN to +0.
    let r = f32s("cvt.sat.f32.f32 %f4, %f1", &[1.5, -0.5, f32::NAN, 0.25]);
    assert_eq!(
        r.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
        [1f32.to_bits(), 0, 0, 0.25f32.to_bits()]
    );
}

#[test]
fn half_precision_conversions() {
    let to_half = |xs: &[f32]| -> Vec<u16> {
        let body = "\tcvt.u32.u64 %r2, %rd10;\n\tmov.b32 %f1, %r2;\n\tcvt.rn.f16.f32 %h1, %f1;\n\
                    \tmov.b16 %h2, %h1;\n\tcvt.u32.u16 %r3, %h2;\n\tcvt.u64.u32 %rd20, %r3;";
        let ins: Vec<[u64; 3]> = xs.iter().map(|x| [u64::from(x.to_bits()), 0, 0]).collect();
        eval(body, &ins).into_iter().map(|v| v as u16).collect()
    };
    let t = 2f32.powi(-11);
    // 65520 is halfway between 65504 and 65536 (out of range): ties to even overflow to inf.
    let r =
        to_half(&[65520.0, 65519.0, 1.0 + t, 1.0 + 3.0 * t, 2f32.powi(-24), 2f32.powi(-25), -2.0]);
    assert_eq!(r, [0x7C00, 0x7BFF, 0x3C00, 0x3C02, 0x0001, 0x0000, 0xC000]);
    let from_half = |hs: &[u16]| -> Vec<f32> {
        let body = "\tcvt.u16.u64 %h1, %rd10;\n\tcvt.f32.f16 %f1, %h1;\n\tmov.b32 %r5, %f1;\n\tcvt.u64.u32 %rd20, %r5;";
        let ins: Vec<[u64; 3]> = hs.iter().map(|&h| [u64::from(h), 0, 0]).collect();
        eval(body, &ins).into_iter().map(|b| f32::from_bits(b as u32)).collect()
    };
    assert_eq!(
        from_half(&[0x0001, 0x7C00, 0xC000, 0x3C00]),
        [2f32.powi(-24), f32::INFINITY, -2.0, 1.0]
    );
}

#[test]
fn integer_conversions_extend_by_the_source_type() {
    assert_eq!(
        i32_op("cvt.s32.s8 %r13, %r10", &[[0x80, 0, 0], [0x17F, 0, 0]]),
        [0xFFFF_FF80, 0x7F]
    );
    assert_eq!(i32_op("cvt.u32.u8 %r13, %r10", &[[0x1FF, 0, 0]]), [0xFF]);
    assert_eq!(i32_op("cvt.s32.s16 %r13, %r10", &[[0x8000, 0, 0]]), [0xFFFF_8000]);
    assert_eq!(
        eval("\tcvt.u32.u64 %r2, %rd10;\n\tcvt.u64.u32 %rd20, %r2;", &[[0x1_0000_0005, 0, 0]]),
        [5]
    );
    let m1 = u64::from(u32::MAX);
    assert_eq!(
        eval("\tcvt.u32.u64 %r2, %rd10;\n\tcvt.s64.s32 %rd20, %r2;", &[[m1, 0, 0]]),
        [u64::MAX]
    );
    assert_eq!(
        eval("\tcvt.u32.u64 %r2, %rd10;\n\tcvt.u64.s32 %rd20, %r2;", &[[m1, 0, 0]]),
        [u64::MAX]
    );
    // .sat limits integer results to the destination's range.
    assert_eq!(
        i32_op("cvt.sat.s8.s32 %r13, %r10", &[[300, 0, 0], [(-300i32) as u32, 0, 0]]),
        [127, 0xFFFF_FF80]
    );
    assert_eq!(i32_op("cvt.sat.u8.s32 %r13, %r10", &[[(-5i32) as u32, 0, 0]]), [0]);
}
