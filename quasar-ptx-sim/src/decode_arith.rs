//! Decoding of integer and floating-point arithmetic.

use crate::decode::{unsupported, Cx};
use crate::error::ParseError;
use crate::inst::{FpOp, FpUnOp, Inst, IntOp, IntUnOp, Ty};
use crate::parse::Opnd;

fn int_ty(t: Ty) -> bool {
    matches!(t, Ty::S(_) | Ty::U(_)) && t.bits() >= 16
}

fn bit_ty(t: Ty) -> bool {
    matches!(t, Ty::B(_)) && t.bits() >= 16
}

fn fp_ty(t: Ty) -> bool {
    matches!(t, Ty::F(32) | Ty::F(64))
}

/// Splits the modifiers into an optional leading word from `allowed` and the type.
fn one_mod<'a>(mods: &[&'a str], allowed: &[&str]) -> Option<(Option<&'a str>, Ty)> {
    match mods {
        [t] => Some((None, Ty::parse(t)?)),
        [m, t] if allowed.contains(m) => Some((Some(*m), Ty::parse(t)?)),
        _ => None,
    }
}

pub(crate) fn arith(cx: &mut Cx<'_, '_>, parts: &[&str], ops: &[Opnd]) -> Result<Inst, ParseError> {
    let op = parts[0];
    let mods = &parts[1..];
    let bad = |cx: &Cx<'_, '_>| unsupported::<Inst>(cx, parts);
    match op {
        "add" | "sub" | "mul" | "div" | "min" | "max" | "rem" | "and" | "or" | "xor" | "shl"
        | "shr" | "copysign" => {
            let Some((m, ty)) = one_mod(mods, &["rn", "lo", "hi", "wide"]) else {
                return bad(cx);
            };
            cx.n(ops, 3)?;
            if fp_ty(ty) {
                let fop = match (op, m) {
                    ("add", None | Some("rn")) => FpOp::Add,
                    ("sub", None | Some("rn")) => FpOp::Sub,
                    ("mul", None | Some("rn")) => FpOp::Mul,
                    ("div", Some("rn")) => FpOp::Div,
                    ("min", None) => FpOp::Min,
                    ("max", None) => FpOp::Max,
                    ("copysign", None) => FpOp::Copysign,
                    _ => return bad(cx),
                };
                let d = cx.dst(&ops[0])?;
                let (a, b) = (cx.src(&ops[1], ty)?, cx.src(&ops[2], ty)?);
                return Ok(Inst::Fp { op: fop, ty, d, a, b });
            }
            if op == "mul" && m == Some("wide") {
                if !int_ty(ty) || ty.bits() > 32 {
                    return bad(cx);
                }
                let d = cx.dst(&ops[0])?;
                if u32::from(cx.bits_of(d)) < 2 * ty.bits() {
                    return cx.err("mul.wide needs a destination twice as wide as its sources");
                }
                let (a, b) = (cx.src(&ops[1], ty)?, cx.src(&ops[2], ty)?);
                return Ok(Inst::MulWide { ty, d, a, b });
            }
            let iop = match (op, m) {
                ("add", None) => IntOp::Add,
                ("sub", None) => IntOp::Sub,
                ("mul", Some("lo")) => IntOp::MulLo,
                ("mul", Some("hi")) => IntOp::MulHi,
                ("div", None) => IntOp::Div,
                ("rem", None) => IntOp::Rem,
                ("min", None) => IntOp::Min,
                ("max", None) => IntOp::Max,
                ("and", None) => IntOp::And,
                ("or", None) => IntOp::Or,
                ("xor", None) => IntOp::Xor,
                ("shl", None) => IntOp::Shl,
                ("shr", None) => IntOp::Shr,
                _ => return bad(cx),
            };
            let ok = match iop {
                IntOp::And | IntOp::Or | IntOp::Xor | IntOp::Shl => bit_ty(ty),
                IntOp::Shr => bit_ty(ty) || int_ty(ty),
                _ => int_ty(ty),
            };
            if !ok {
                return bad(cx);
            }
            let d = cx.dst(&ops[0])?;
            let a = cx.src(&ops[1], ty)?;
            // The shift amount is an unsigned 32-bit value.
            let bty = if matches!(iop, IntOp::Shl | IntOp::Shr) { Ty::U(32) } else { ty };
            let b = cx.src(&ops[2], bty)?;
            Ok(Inst::Int { op: iop, ty, d, a, b })
        }
        "mad" => {
            let Some((Some("lo"), ty)) = one_mod(mods, &["lo"]) else { return bad(cx) };
            if !int_ty(ty) {
                return bad(cx);
            }
            cx.n(ops, 4)?;
            let d = cx.dst(&ops[0])?;
            let (a, b, c) = (cx.src(&ops[1], ty)?, cx.src(&ops[2], ty)?, cx.src(&ops[3], ty)?);
            Ok(Inst::MadLo { ty, d, a, b, c })
        }
        "fma" => {
            let Some((Some("rn"), ty)) = one_mod(mods, &["rn"]) else { return bad(cx) };
            if !fp_ty(ty) {
                return bad(cx);
            }
            cx.n(ops, 4)?;
            let d = cx.dst(&ops[0])?;
            let (a, b, c) = (cx.src(&ops[1], ty)?, cx.src(&ops[2], ty)?, cx.src(&ops[3], ty)?);
            Ok(Inst::Fma { ty, d, a, b, c })
        }
        "neg" | "abs" | "not" | "sqrt" | "rcp" | "rsqrt" | "ex2" | "lg2" | "sin" | "cos" => {
            let Some((m, ty)) = one_mod(mods, &["rn", "approx"]) else { return bad(cx) };
            cx.n(ops, 2)?;
            if fp_ty(ty) {
                let fop = match (op, m, ty) {
                    ("neg", None, _) => FpUnOp::Neg,
                    ("abs", None, _) => FpUnOp::Abs,
                    ("sqrt", Some("rn"), _) => FpUnOp::Sqrt,
                    ("rcp", Some("rn"), _) => FpUnOp::Rcp,
                    ("rsqrt", Some("approx"), Ty::F(32)) => FpUnOp::Rsqrt,
                    ("ex2", Some("approx"), Ty::F(32)) => FpUnOp::Ex2,
                    ("lg2", Some("approx"), Ty::F(32)) => FpUnOp::Lg2,
                    ("sin", Some("approx"), Ty::F(32)) => FpUnOp::Sin,
                    ("cos", Some("approx"), Ty::F(32)) => FpUnOp::Cos,
                    _ => return bad(cx),
                };
                let d = cx.dst(&ops[0])?;
                let a = cx.src(&ops[1], ty)?;
                return Ok(Inst::FpUn { op: fop, ty, d, a });
            }
            let iop = match (op, m) {
                ("neg", None) if matches!(ty, Ty::S(_)) && ty.bits() >= 16 => IntUnOp::Neg,
                ("abs", None) if matches!(ty, Ty::S(_)) && ty.bits() >= 16 => IntUnOp::Abs,
                ("not", None) if bit_ty(ty) => IntUnOp::Not,
                _ => return bad(cx),
            };
            let d = cx.dst(&ops[0])?;
            let a = cx.src(&ops[1], ty)?;
            Ok(Inst::IntUn { op: iop, ty, d, a })
        }
        _ => bad(cx),
    }
}
