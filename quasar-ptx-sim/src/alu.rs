//! Execution of the instructions that do not change control flow, over the lanes of a warp
//! that run them (a 32-bit mask). Registers are stored lane-minor (`regs[r * 32 + lane]`), so
//! each instruction is one loop over lanes after a single dispatch on its form.

use crate::error::{FaultKind, Space};
use crate::fp::{self, canon32, canon64, Approx};
use crate::inst::*;
use crate::memory::atom_apply;
use crate::warp::{Exec, Warp};

pub(crate) const FULL: u32 = u32::MAX;

/// Calls `f` for each lane in `mask`.
#[inline(always)]
pub(crate) fn each(mask: u32, mut f: impl FnMut(usize)) {
    if mask == FULL {
        for l in 0..32 {
            f(l);
        }
    } else {
        let mut m = mask;
        while m != 0 {
            f(m.trailing_zeros() as usize);
            m &= m - 1;
        }
    }
}

#[inline(always)]
fn un(regs: &mut [u64], mask: u32, d: R, a: R, f: impl Fn(u64) -> u64) {
    let (d, a) = (d as usize * 32, a as usize * 32);
    each(mask, |l| regs[d + l] = f(regs[a + l]));
}

#[inline(always)]
fn bin(regs: &mut [u64], mask: u32, d: R, a: R, b: R, f: impl Fn(u64, u64) -> u64) {
    let (d, a, b) = (d as usize * 32, a as usize * 32, b as usize * 32);
    each(mask, |l| regs[d + l] = f(regs[a + l], regs[b + l]));
}

#[inline(always)]
fn tri(regs: &mut [u64], mask: u32, d: R, a: R, b: R, c: R, f: impl Fn(u64, u64, u64) -> u64) {
    let (d, a, b, c) = (d as usize * 32, a as usize * 32, b as usize * 32, c as usize * 32);
    each(mask, |l| regs[d + l] = f(regs[a + l], regs[b + l], regs[c + l]));
}

#[inline(always)]
fn f32of(x: u64) -> f32 {
    f32::from_bits(x as u32)
}

#[inline(always)]
fn f64of(x: u64) -> f64 {
    f64::from_bits(x)
}

/// The integer operation `op` on values of type `ty` (bits in the low part of each word).
fn int_op(regs: &mut [u64], mask: u32, op: IntOp, ty: Ty, d: R, a: R, b: R) {
    let m = ty.mask();
    let bits = ty.bits();
    let s = move |x: u64| ty.extend(x) as i64;
    match op {
        IntOp::Add => bin(regs, mask, d, a, b, |x, y| x.wrapping_add(y) & m),
        IntOp::Sub => bin(regs, mask, d, a, b, |x, y| x.wrapping_sub(y) & m),
        IntOp::MulLo => bin(regs, mask, d, a, b, |x, y| x.wrapping_mul(y) & m),
        IntOp::MulHi if ty.is_signed() => bin(regs, mask, d, a, b, |x, y| {
            ((i128::from(s(x)) * i128::from(s(y))) >> bits) as u64 & m
        }),
        IntOp::MulHi => bin(regs, mask, d, a, b, |x, y| {
            ((u128::from(x & m) * u128::from(y & m)) >> bits) as u64 & m
        }),
        IntOp::Min if ty.is_signed() => bin(regs, mask, d, a, b, |x, y| s(x).min(s(y)) as u64 & m),
        IntOp::Max if ty.is_signed() => bin(regs, mask, d, a, b, |x, y| s(x).max(s(y)) as u64 & m),
        IntOp::Min => bin(regs, mask, d, a, b, |x, y| (x & m).min(y & m)),
        IntOp::Max => bin(regs, mask, d, a, b, |x, y| (x & m).max(y & m)),
        IntOp::And => bin(regs, mask, d, a, b, |x, y| x & y & m),
        IntOp::Or => bin(regs, mask, d, a, b, |x, y| (x | y) & m),
        IntOp::Xor => bin(regs, mask, d, a, b, |x, y| (x ^ y) & m),
        // Shift amounts are unsigned 32-bit values, clamped to the width.
        IntOp::Shl => bin(regs, mask, d, a, b, |x, y| {
            let n = y as u32;
            if n >= bits {
                0
            } else {
                (x << n) & m
            }
        }),
        IntOp::Shr if ty.is_signed() => {
            bin(regs, mask, d, a, b, |x, y| (s(x) >> (y as u32).min(bits - 1).min(63)) as u64 & m)
        }
        IntOp::Shr => bin(regs, mask, d, a, b, |x, y| {
            let n = y as u32;
            if n >= bits {
                0
            } else {
                (x & m) >> n
            }
        }),
        IntOp::Div | IntOp::Rem => unreachable!("handled with the division flag"),
    }
}

/// `div`/`rem`; division by zero gives all ones (`div`) or the dividend (`rem`), as NVIDIA
/// GPUs do, and is counted (the result is machine-specific per the ISA).
fn int_div(regs: &mut [u64], mask: u32, rem: bool, ty: Ty, d: R, a: R, b: R) -> u32 {
    let m = ty.mask();
    let mut zero = 0u32;
    let (d, a, b) = (d as usize * 32, a as usize * 32, b as usize * 32);
    each(mask, |l| {
        let (x, y) = (regs[a + l], regs[b + l]);
        regs[d + l] = if y & m == 0 {
            zero |= 1 << l;
            if rem {
                x & m
            } else {
                m
            }
        } else if ty.is_signed() {
            let (x, y) = (ty.extend(x) as i64, ty.extend(y) as i64);
            (if rem { x.wrapping_rem(y) } else { x.wrapping_div(y) }) as u64 & m
        } else if rem {
            (x & m) % (y & m)
        } else {
            (x & m) / (y & m)
        };
    });
    zero
}

fn fp_op(regs: &mut [u64], mask: u32, op: FpOp, ty: Ty, d: R, a: R, b: R) {
    if ty == Ty::F(32) {
        let f = |x: u64, y: u64| {
            let (x, y) = (f32of(x), f32of(y));
            match op {
                FpOp::Add => canon32(x + y),
                FpOp::Sub => canon32(x - y),
                FpOp::Mul => canon32(x * y),
                FpOp::Div => canon32(x / y),
                FpOp::Min => fp::min(x, y).map_or(u64::from(fp::NAN32), |v| u64::from(v.to_bits())),
                FpOp::Max => fp::max(x, y).map_or(u64::from(fp::NAN32), |v| u64::from(v.to_bits())),
                FpOp::Copysign => u64::from(y.copysign(x).to_bits()),
            }
        };
        bin(regs, mask, d, a, b, f);
    } else {
        let f = |x: u64, y: u64| {
            let (x, y) = (f64of(x), f64of(y));
            match op {
                FpOp::Add => canon64(x + y),
                FpOp::Sub => canon64(x - y),
                FpOp::Mul => canon64(x * y),
                FpOp::Div => canon64(x / y),
                FpOp::Min => fp::min(x, y).map_or(fp::NAN64, f64::to_bits),
                FpOp::Max => fp::max(x, y).map_or(fp::NAN64, f64::to_bits),
                FpOp::Copysign => y.copysign(x).to_bits(),
            }
        };
        bin(regs, mask, d, a, b, f);
    }
}

fn fp_un(regs: &mut [u64], mask: u32, op: FpUnOp, ty: Ty, d: R, a: R, approx: Approx) -> u32 {
    let mut wide = 0u32;
    if ty == Ty::F(64) {
        let f = |x: u64| match op {
            FpUnOp::Neg => x ^ (1 << 63),
            FpUnOp::Abs => x & !(1 << 63),
            FpUnOp::Sqrt => canon64(f64of(x).sqrt()),
            _ => canon64(1.0 / f64of(x)),
        };
        un(regs, mask, d, a, f);
        return 0;
    }
    let (d, a) = (d as usize * 32, a as usize * 32);
    each(mask, |l| {
        let x = f32of(regs[a + l]);
        let xd = f64::from(x);
        regs[d + l] = match op {
            FpUnOp::Neg => u64::from(x.to_bits() ^ (1 << 31)),
            FpUnOp::Abs => u64::from(x.to_bits() & !(1 << 31)),
            FpUnOp::Sqrt => canon32(x.sqrt()),
            FpUnOp::Rcp => canon32(1.0 / x),
            FpUnOp::Rsqrt => fp::approx(x, 1.0 / xd.sqrt(), Some(fp::RSQRT_REL), None, approx),
            FpUnOp::Ex2 => fp::approx(x, xd.exp2(), Some(fp::EX2_REL), None, approx),
            FpUnOp::Lg2 => fp::approx(x, xd.log2(), None, Some(fp::LG2_ABS), approx),
            FpUnOp::Sin | FpUnOp::Cos => {
                if xd.abs() > fp::SINCOS_RANGE {
                    wide |= 1 << l;
                }
                let v = if op == FpUnOp::Sin { xd.sin() } else { xd.cos() };
                fp::approx(x, v, None, Some(fp::SINCOS_ABS), approx)
            }
        };
    });
    wide
}

fn compare(cmp: Cmp, ty: Ty, x: u64, y: u64) -> bool {
    use std::cmp::Ordering::*;
    let ord = match ty {
        Ty::F(_) => {
            let (x, y) = (fp::float_value(ty, x), fp::float_value(ty, y));
            let nan = x.is_nan() || y.is_nan();
            return match cmp {
                Cmp::Num => !nan,
                Cmp::Nan => nan,
                _ if nan => {
                    matches!(cmp, Cmp::Equ | Cmp::Neu | Cmp::Ltu | Cmp::Leu | Cmp::Gtu | Cmp::Geu)
                }
                Cmp::Eq | Cmp::Equ => x == y,
                Cmp::Ne | Cmp::Neu => x != y,
                Cmp::Lt | Cmp::Ltu => x < y,
                Cmp::Le | Cmp::Leu => x <= y,
                Cmp::Gt | Cmp::Gtu => x > y,
                Cmp::Ge | Cmp::Geu => x >= y,
            };
        }
        Ty::S(_) => (ty.extend(x) as i64).cmp(&(ty.extend(y) as i64)),
        _ => (x & ty.mask()).cmp(&(y & ty.mask())),
    };
    match cmp {
        Cmp::Eq => ord == Equal,
        Cmp::Ne => ord != Equal,
        Cmp::Lt => ord == Less,
        Cmp::Le => ord != Greater,
        Cmp::Gt => ord == Greater,
        _ => ord != Less,
    }
}

fn test(op: TestOp, ty: Ty, x: u64) -> bool {
    let v = fp::float_value(ty, x);
    let sub = if ty.bits() == 32 { f32of(x).is_subnormal() } else { v.is_subnormal() };
    match op {
        TestOp::Finite => v.is_finite(),
        TestOp::Infinite => v.is_infinite(),
        TestOp::Number => !v.is_nan(),
        TestOp::NotANumber => v.is_nan(),
        // Zeros count as normal numbers.
        TestOp::Normal => v.is_finite() && !sub,
        TestOp::Subnormal => sub,
    }
}

#[inline(always)]
fn set_bits(word: &mut u32, mask: u32, bits: u32) {
    *word = (*word & !mask) | (bits & mask);
}

impl Warp {
    /// Runs a non-control instruction on the lanes in `mask` (not empty).
    pub(crate) fn exec(
        &mut self,
        ins: &Inst,
        mask: u32,
        x: &mut Exec<'_>,
    ) -> Result<(), (FaultKind, u32)> {
        let regs = &mut self.regs[..];
        match *ins {
            Inst::Mov { d, a, mask: m } => un(regs, mask, d, a, |v| v & m),
            Inst::MovPred { d, a, neg } => {
                let v = self.preds[a as usize] ^ if neg { FULL } else { 0 };
                set_bits(&mut self.preds[d as usize], mask, v);
            }
            Inst::Split { lo, hi, a, half } => {
                let m = width_mask(u32::from(half));
                let (lo, hi, a) = (lo as usize * 32, hi as usize * 32, a as usize * 32);
                each(mask, |l| {
                    let v = regs[a + l];
                    regs[lo + l] = v & m;
                    regs[hi + l] = (v >> half) & m;
                });
            }
            Inst::Join { d, lo, hi, half } => {
                let m = width_mask(u32::from(half));
                bin(regs, mask, d, lo, hi, |x, y| (x & m) | (y & m) << half);
            }
            Inst::Sreg { d, s } => {
                let (d, lin0) = (d as usize * 32, self.lin0);
                each(mask, |l| regs[d + l] = u64::from(x.special(s, lin0, l)));
            }
            Inst::GlobalAddr { d, var, off } => {
                let v = x.cx.globals[var as usize].wrapping_add(off as u64);
                each(mask, |l| regs[d as usize * 32 + l] = v);
            }
            Inst::Int { op: op @ (IntOp::Div | IntOp::Rem), ty, d, a, b } => {
                if int_div(regs, mask, op == IntOp::Rem, ty, d, a, b) != 0 {
                    x.flag_div(x.pc);
                }
            }
            Inst::Int { op, ty, d, a, b } => int_op(regs, mask, op, ty, d, a, b),
            Inst::MulWide { ty, d, a, b } => {
                let w = Ty::U((2 * ty.bits()) as u8).mask();
                if ty.is_signed() {
                    bin(regs, mask, d, a, b, |p, q| {
                        (ty.extend(p) as i64).wrapping_mul(ty.extend(q) as i64) as u64 & w
                    });
                } else {
                    let m = ty.mask();
                    bin(regs, mask, d, a, b, |p, q| (p & m).wrapping_mul(q & m) & w);
                }
            }
            Inst::MadLo { ty, d, a, b, c } => {
                let m = ty.mask();
                tri(regs, mask, d, a, b, c, |p, q, r| p.wrapping_mul(q).wrapping_add(r) & m);
            }
            Inst::IntUn { op, ty, d, a } => {
                let m = ty.mask();
                match op {
                    IntUnOp::Neg => un(regs, mask, d, a, |v| v.wrapping_neg() & m),
                    IntUnOp::Abs => {
                        un(regs, mask, d, a, |v| (ty.extend(v) as i64).wrapping_abs() as u64 & m)
                    }
                    IntUnOp::Not => un(regs, mask, d, a, |v| !v & m),
                }
            }
            Inst::Fp { op, ty, d, a, b } => fp_op(regs, mask, op, ty, d, a, b),
            Inst::Fma { ty, d, a, b, c } => {
                if ty == Ty::F(32) {
                    tri(regs, mask, d, a, b, c, |p, q, r| {
                        canon32(f32of(p).mul_add(f32of(q), f32of(r)))
                    });
                } else {
                    tri(regs, mask, d, a, b, c, |p, q, r| {
                        canon64(f64of(p).mul_add(f64of(q), f64of(r)))
                    });
                }
            }
            Inst::FpUn { op, ty, d, a } => {
                if fp_un(regs, mask, op, ty, d, a, x.cx.opts.approx) != 0 {
                    x.flag_sincos(x.pc);
                }
            }
            Inst::Setp { cmp, ty, p, q, a, b, comb } => {
                let mut bits = 0u32;
                let (a, b) = (a as usize * 32, b as usize * 32);
                each(mask, |l| bits |= u32::from(compare(cmp, ty, regs[a + l], regs[b + l])) << l);
                let (tp, tq) = match comb {
                    Some((op, c, neg)) => {
                        let c = self.preds[c as usize] ^ if neg { FULL } else { 0 };
                        (op.apply(bits, c), op.apply(!bits, c))
                    }
                    None => (bits, !bits),
                };
                set_bits(&mut self.preds[p as usize], mask, tp);
                if let Some(q) = q {
                    set_bits(&mut self.preds[q as usize], mask, tq);
                }
            }
            Inst::Selp { d, a, b, p, neg, mask: m } => {
                let pv = self.preds[p as usize] ^ if neg { FULL } else { 0 };
                let (d, a, b) = (d as usize * 32, a as usize * 32, b as usize * 32);
                each(mask, |l| {
                    regs[d + l] = if pv >> l & 1 != 0 { regs[a + l] } else { regs[b + l] } & m
                });
            }
            Inst::Testp { op, ty, p, a } => {
                let mut bits = 0u32;
                let a = a as usize * 32;
                each(mask, |l| bits |= u32::from(test(op, ty, regs[a + l])) << l);
                set_bits(&mut self.preds[p as usize], mask, bits);
            }
            Inst::Cvt { dt, st, rnd, sat, d, a, dbits } => {
                let w = width_mask(u32::from(dbits));
                un(regs, mask, d, a, |v| dt.extend(fp::cvt(dt, st, rnd, sat, v)) & w);
            }
            Inst::PredOp { op, d, a, na, b, nb } => {
                let pa = self.preds[a as usize] ^ if na { FULL } else { 0 };
                let pb = self.preds[b as usize] ^ if nb { FULL } else { 0 };
                set_bits(&mut self.preds[d as usize], mask, op.apply(pa, pb));
            }
            Inst::Activemask { d } => each(mask, |l| regs[d as usize * 32 + l] = u64::from(mask)),
            Inst::Ld { space, ty, d, addr, dbits } => {
                let (n, w) = (ty.bytes(), width_mask(u32::from(dbits)));
                let mut fault = None;
                each(mask, |l| {
                    if fault.is_some() {
                        return;
                    }
                    let at = address(regs, addr, l, x.cx.globals);
                    match x.load(space, at, n) {
                        Ok(v) => regs[d as usize * 32 + l] = ty.extend(v) & w,
                        Err(f) => fault = Some((f, l as u32)),
                    }
                });
                return fault.map_or(Ok(()), Err);
            }
            Inst::St { space, ty, a, addr } => {
                let n = ty.bytes();
                let mut fault = None;
                each(mask, |l| {
                    if fault.is_some() {
                        return;
                    }
                    let at = address(regs, addr, l, x.cx.globals);
                    let v = regs[a as usize * 32 + l];
                    if let Err(f) = x.store(space, at, n, v) {
                        fault = Some((f, l as u32));
                    }
                });
                return fault.map_or(Ok(()), Err);
            }
            Inst::Atom { space, op, ty, d, addr, b, c } => {
                let mut fault = None;
                each(mask, |l| {
                    if fault.is_some() {
                        return;
                    }
                    let at = address(regs, addr, l, x.cx.globals);
                    let (bv, cv) = (regs[b as usize * 32 + l], regs[c as usize * 32 + l]);
                    match x.atomic(space, at, op, ty, bv, cv) {
                        Ok(old) => regs[d as usize * 32 + l] = old & ty.mask(),
                        Err(f) => fault = Some((f, l as u32)),
                    }
                });
                return fault.map_or(Ok(()), Err);
            }
            Inst::Malloc { d, size } => {
                let heap = x.cx.heap;
                each(mask, |l| {
                    let n = regs[size as usize * 32 + l];
                    regs[d as usize * 32 + l] = heap.map_or(0, |h| h.alloc(n));
                });
            }
            Inst::Free => {}
            _ => unreachable!("control instructions are run by the scheduler"),
        }
        Ok(())
    }
}

/// The address of memory operand `a` for lane `l`.
#[inline(always)]
fn address(regs: &[u64], a: Addr, l: usize, globals: &[u64]) -> u64 {
    match a {
        Addr::Reg(r, off) => regs[r as usize * 32 + l].wrapping_add(off as u64),
        Addr::Abs(v) => v,
        Addr::Global(g, off) => globals[g as usize].wrapping_add(off as u64),
    }
}

impl Exec<'_> {
    fn load(&mut self, space: Space, at: u64, n: u32) -> Result<u64, FaultKind> {
        match space {
            Space::Global => {
                self.cx.global.check(at, n)?;
                // SAFETY: checked against the launch's buffers, which the caller keeps alive.
                Ok(unsafe { self.cx.global.load(at, n) })
            }
            Space::Shared => {
                self.shared.check(at, n)?;
                Ok(self.shared.load(at, n))
            }
            Space::Param => {
                let p = self.cx.params;
                if at.checked_add(u64::from(n)).is_none_or(|e| e > p.len() as u64) {
                    return Err(FaultKind::OutOfBounds {
                        space,
                        address: at,
                        bytes: n,
                        nearest: format!("the parameters take {} bytes", p.len()),
                    });
                }
                let mut b = [0u8; 8];
                b[..n as usize].copy_from_slice(&p[at as usize..at as usize + n as usize]);
                Ok(u64::from_le_bytes(b))
            }
        }
    }

    fn store(&mut self, space: Space, at: u64, n: u32, v: u64) -> Result<(), FaultKind> {
        match space {
            Space::Global => {
                self.cx.global.check(at, n)?;
                // SAFETY: as for loads.
                unsafe { self.cx.global.store(at, n, v) };
            }
            _ => {
                self.shared.check(at, n)?;
                self.shared.store(at, n, v);
            }
        }
        Ok(())
    }

    fn atomic(
        &mut self,
        space: Space,
        at: u64,
        op: AtomOp,
        ty: Ty,
        b: u64,
        c: u64,
    ) -> Result<u64, FaultKind> {
        let n = ty.bytes();
        match space {
            Space::Global => {
                self.cx.global.check(at, n)?;
                // SAFETY: as for loads.
                Ok(unsafe { self.cx.global.atomic(at, op, ty, b, c) })
            }
            _ => {
                // A block runs on one host thread: a shared read-modify-write is indivisible.
                self.shared.check(at, n)?;
                let old = self.shared.load(at, n);
                self.shared.store(at, n, atom_apply(op, ty, old, b, c, false));
                Ok(old)
            }
        }
    }
}
