//! The operations the double-precision math routines of `math_f64.rs` are written in.
//!
//! Each routine is a generic function over [`Fp`], so that the one text is both the emitter
//! (for [`Ctx`], every operation one PTX instruction with round-to-nearest-even) and, in the
//! unit tests, a Rust evaluator over `f64` that performs exactly the same IEEE operations
//! (`mul_add` is the fused `fma.rn.f64`). The tests measure the evaluator's error against
//! Rust's `std`, so the documented bounds are those of the emitted code.

use super::kernel::Ctx;
use super::regs::{Reg, RegClass};

/// A comparison; ordered (false when an operand is NaN), as `setp.lt.f64` and Rust's `<`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Cmp {
    Lt,
    Gt,
    Eq,
    Ne,
}

impl Cmp {
    fn name(self) -> &'static str {
        match self {
            Cmp::Lt => "lt",
            Cmp::Gt => "gt",
            Cmp::Eq => "eq",
            Cmp::Ne => "ne",
        }
    }
}

/// One-operand `f64` operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Un {
    Neg,
    Abs,
    /// Round to the nearest integer, ties to even (`cvt.rni.f64.f64`).
    Rint,
    Trunc,
    Sqrt,
}

/// Two-operand `f64` operations (`Min`/`Max` return the other operand when one is NaN).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Bin {
    Add,
    Sub,
    Mul,
    Div,
    Min,
    Max,
}

/// `i64` operations (`Shr` is arithmetic).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum IOp {
    Add,
    Sub,
    And,
    Or,
    Shl,
    Shr,
}

/// Scalar `f64` arithmetic with 64-bit integers and predicates.
pub(super) trait Fp {
    type F: Copy;
    type I: Copy;
    type P: Copy;

    fn num(&mut self, v: f64) -> Self::F;
    fn int(&mut self, v: i64) -> Self::I;
    fn un(&mut self, op: Un, a: Self::F) -> Self::F;
    fn bin(&mut self, op: Bin, a: Self::F, b: Self::F) -> Self::F;
    /// `a·b + c` with one rounding.
    fn fma(&mut self, a: Self::F, b: Self::F, c: Self::F) -> Self::F;
    fn cmp(&mut self, op: Cmp, a: Self::F, b: Self::F) -> Self::P;
    fn is_nan(&mut self, a: Self::F) -> Self::P;
    fn and(&mut self, a: Self::P, b: Self::P) -> Self::P;
    fn or(&mut self, a: Self::P, b: Self::P) -> Self::P;
    fn not(&mut self, a: Self::P) -> Self::P;
    /// `p ? a : b`.
    fn sel(&mut self, p: Self::P, a: Self::F, b: Self::F) -> Self::F;
    fn seli(&mut self, p: Self::P, a: Self::I, b: Self::I) -> Self::I;
    fn iop(&mut self, op: IOp, a: Self::I, b: Self::I) -> Self::I;
    fn icmp(&mut self, op: Cmp, a: Self::I, b: Self::I) -> Self::P;
    fn to_bits(&mut self, a: Self::F) -> Self::I;
    fn float_of_bits(&mut self, a: Self::I) -> Self::F;
    /// Round to the nearest integer, ties to even; saturating, NaN gives 0 (`cvt.rni.s64.f64`).
    fn to_int(&mut self, a: Self::F) -> Self::I;
    fn to_float(&mut self, a: Self::I) -> Self::F;

    // Shorthands.
    fn add(&mut self, a: Self::F, b: Self::F) -> Self::F {
        self.bin(Bin::Add, a, b)
    }
    fn sub(&mut self, a: Self::F, b: Self::F) -> Self::F {
        self.bin(Bin::Sub, a, b)
    }
    fn mul(&mut self, a: Self::F, b: Self::F) -> Self::F {
        self.bin(Bin::Mul, a, b)
    }
    fn div(&mut self, a: Self::F, b: Self::F) -> Self::F {
        self.bin(Bin::Div, a, b)
    }
    /// `a·k + c` for a constant `k`.
    fn fmak(&mut self, a: Self::F, k: f64, c: Self::F) -> Self::F {
        let k = self.num(k);
        self.fma(a, k, c)
    }
    fn mulk(&mut self, a: Self::F, k: f64) -> Self::F {
        let k = self.num(k);
        self.mul(a, k)
    }
    fn addk(&mut self, a: Self::F, k: f64) -> Self::F {
        let k = self.num(k);
        self.add(a, k)
    }
    fn cmpk(&mut self, op: Cmp, a: Self::F, k: f64) -> Self::P {
        let k = self.num(k);
        self.cmp(op, a, k)
    }
    /// `p ? k : a`.
    fn selk(&mut self, p: Self::P, k: f64, a: Self::F) -> Self::F {
        let k = self.num(k);
        self.sel(p, k, a)
    }
    /// Horner's scheme with `fma`: `c[0] + x·(c[1] + x·(…))`.
    fn poly(&mut self, x: Self::F, c: &[f64]) -> Self::F {
        let mut p = self.num(c[c.len() - 1]);
        for &k in c[..c.len() - 1].iter().rev() {
            let k = self.num(k);
            p = self.fma(p, x, k);
        }
        p
    }
}

/// The PTX emitter: one instruction per operation, fresh registers throughout.
impl Fp for Ctx<'_> {
    type F = Reg;
    type I = Reg;
    type P = Reg;

    fn num(&mut self, v: f64) -> Reg {
        let d = self.reg(RegClass::F64);
        self.ins(format!("mov.f64 {d}, 0d{:016X}", v.to_bits()));
        d
    }

    fn int(&mut self, v: i64) -> Reg {
        let d = self.reg(RegClass::B64);
        self.ins(format!("mov.b64 {d}, {v}"));
        d
    }

    fn un(&mut self, op: Un, a: Reg) -> Reg {
        let d = self.reg(RegClass::F64);
        let ins = match op {
            Un::Neg => "neg.f64",
            Un::Abs => "abs.f64",
            Un::Rint => "cvt.rni.f64.f64",
            Un::Trunc => "cvt.rzi.f64.f64",
            Un::Sqrt => "sqrt.rn.f64",
        };
        self.ins(format!("{ins} {d}, {a}"));
        d
    }

    fn bin(&mut self, op: Bin, a: Reg, b: Reg) -> Reg {
        let d = self.reg(RegClass::F64);
        let ins = match op {
            Bin::Add => "add.rn.f64",
            Bin::Sub => "sub.rn.f64",
            Bin::Mul => "mul.rn.f64",
            Bin::Div => "div.rn.f64",
            Bin::Min => "min.f64",
            Bin::Max => "max.f64",
        };
        self.ins(format!("{ins} {d}, {a}, {b}"));
        d
    }

    fn fma(&mut self, a: Reg, b: Reg, c: Reg) -> Reg {
        let d = self.reg(RegClass::F64);
        self.ins(format!("fma.rn.f64 {d}, {a}, {b}, {c}"));
        d
    }

    fn cmp(&mut self, op: Cmp, a: Reg, b: Reg) -> Reg {
        let p = self.reg(RegClass::Pred);
        self.ins(format!("setp.{}.f64 {p}, {a}, {b}", op.name()));
        p
    }

    fn is_nan(&mut self, a: Reg) -> Reg {
        let p = self.reg(RegClass::Pred);
        self.ins(format!("testp.notanumber.f64 {p}, {a}"));
        p
    }

    fn and(&mut self, a: Reg, b: Reg) -> Reg {
        let p = self.reg(RegClass::Pred);
        self.ins(format!("and.pred {p}, {a}, {b}"));
        p
    }

    fn or(&mut self, a: Reg, b: Reg) -> Reg {
        let p = self.reg(RegClass::Pred);
        self.ins(format!("or.pred {p}, {a}, {b}"));
        p
    }

    fn not(&mut self, a: Reg) -> Reg {
        let p = self.reg(RegClass::Pred);
        self.ins(format!("not.pred {p}, {a}"));
        p
    }

    fn sel(&mut self, p: Reg, a: Reg, b: Reg) -> Reg {
        let d = self.reg(RegClass::F64);
        self.ins(format!("selp.f64 {d}, {a}, {b}, {p}"));
        d
    }

    fn seli(&mut self, p: Reg, a: Reg, b: Reg) -> Reg {
        let d = self.reg(RegClass::B64);
        self.ins(format!("selp.b64 {d}, {a}, {b}, {p}"));
        d
    }

    fn iop(&mut self, op: IOp, a: Reg, b: Reg) -> Reg {
        let d = self.reg(RegClass::B64);
        let ins = match op {
            IOp::Add => "add.s64",
            IOp::Sub => "sub.s64",
            IOp::And => "and.b64",
            IOp::Or => "or.b64",
            IOp::Shl => "shl.b64",
            IOp::Shr => "shr.s64",
        };
        if matches!(op, IOp::Shl | IOp::Shr) {
            // Shift amounts are 32-bit operands.
            let s = self.reg(RegClass::B32);
            self.ins(format!("cvt.u32.u64 {s}, {b}"));
            self.ins(format!("{ins} {d}, {a}, {s}"));
        } else {
            self.ins(format!("{ins} {d}, {a}, {b}"));
        }
        d
    }

    fn icmp(&mut self, op: Cmp, a: Reg, b: Reg) -> Reg {
        let p = self.reg(RegClass::Pred);
        self.ins(format!("setp.{}.s64 {p}, {a}, {b}", op.name()));
        p
    }

    fn to_bits(&mut self, a: Reg) -> Reg {
        let d = self.reg(RegClass::B64);
        self.ins(format!("mov.b64 {d}, {a}"));
        d
    }

    fn float_of_bits(&mut self, a: Reg) -> Reg {
        let d = self.reg(RegClass::F64);
        self.ins(format!("mov.b64 {d}, {a}"));
        d
    }

    fn to_int(&mut self, a: Reg) -> Reg {
        let d = self.reg(RegClass::B64);
        self.ins(format!("cvt.rni.s64.f64 {d}, {a}"));
        d
    }

    fn to_float(&mut self, a: Reg) -> Reg {
        let d = self.reg(RegClass::F64);
        self.ins(format!("cvt.rn.f64.s64 {d}, {a}"));
        d
    }
}

/// The Rust evaluator of the tests: the same operations on `f64`.
#[cfg(test)]
pub(super) struct Eval;

#[cfg(test)]
impl Fp for Eval {
    type F = f64;
    type I = i64;
    type P = bool;

    fn num(&mut self, v: f64) -> f64 {
        v
    }
    fn int(&mut self, v: i64) -> i64 {
        v
    }
    fn un(&mut self, op: Un, a: f64) -> f64 {
        match op {
            Un::Neg => -a,
            Un::Abs => a.abs(),
            Un::Rint => a.round_ties_even(),
            Un::Trunc => a.trunc(),
            Un::Sqrt => a.sqrt(),
        }
    }
    fn bin(&mut self, op: Bin, a: f64, b: f64) -> f64 {
        match op {
            Bin::Add => a + b,
            Bin::Sub => a - b,
            Bin::Mul => a * b,
            Bin::Div => a / b,
            Bin::Min => a.min(b),
            Bin::Max => a.max(b),
        }
    }
    fn fma(&mut self, a: f64, b: f64, c: f64) -> f64 {
        a.mul_add(b, c)
    }
    fn cmp(&mut self, op: Cmp, a: f64, b: f64) -> bool {
        match op {
            Cmp::Lt => a < b,
            Cmp::Gt => a > b,
            Cmp::Eq => a == b,
            Cmp::Ne => a != b && !a.is_nan() && !b.is_nan(),
        }
    }
    fn is_nan(&mut self, a: f64) -> bool {
        a.is_nan()
    }
    fn and(&mut self, a: bool, b: bool) -> bool {
        a && b
    }
    fn or(&mut self, a: bool, b: bool) -> bool {
        a || b
    }
    fn not(&mut self, a: bool) -> bool {
        !a
    }
    fn sel(&mut self, p: bool, a: f64, b: f64) -> f64 {
        if p {
            a
        } else {
            b
        }
    }
    fn seli(&mut self, p: bool, a: i64, b: i64) -> i64 {
        if p {
            a
        } else {
            b
        }
    }
    fn iop(&mut self, op: IOp, a: i64, b: i64) -> i64 {
        match op {
            IOp::Add => a.wrapping_add(b),
            IOp::Sub => a.wrapping_sub(b),
            IOp::And => a & b,
            IOp::Or => a | b,
            IOp::Shl => a << b,
            IOp::Shr => a >> b,
        }
    }
    fn icmp(&mut self, op: Cmp, a: i64, b: i64) -> bool {
        match op {
            Cmp::Lt => a < b,
            Cmp::Gt => a > b,
            Cmp::Eq => a == b,
            Cmp::Ne => a != b,
        }
    }
    fn to_bits(&mut self, a: f64) -> i64 {
        a.to_bits() as i64
    }
    fn float_of_bits(&mut self, a: i64) -> f64 {
        f64::from_bits(a as u64)
    }
    fn to_int(&mut self, a: f64) -> i64 {
        a.round_ties_even() as i64
    }
    fn to_float(&mut self, a: i64) -> f64 {
        a as f64
    }
}
