//! Instruction statements to [`Inst`]: the opcode's modifiers and types are checked against the
//! subset the Quasar PTX back end emits (anything else is an error naming the line), registers
//! and immediates become register indices, labels instruction indices, symbols offsets.

use crate::error::{ParseError, Space};
use crate::inst::*;
use crate::parse::{Opnd, Stmt};
use std::collections::HashMap;

/// The registers of an entry and its constants (immediates, in registers after the declared
/// ones: instructions are decoded once the whole entry is parsed).
#[derive(Default, Debug)]
pub(crate) struct Regs {
    map: HashMap<String, (u16, u8)>,
    nregs: u16,
    npreds: u16,
    bits: Vec<u8>,
    pub consts: Vec<u64>,
    const_of: HashMap<u64, u16>,
}

impl Regs {
    /// Declares a register of `bits` bits (0: a predicate).
    pub fn declare(&mut self, name: String, bits: u8, line: u32) -> Result<(), ParseError> {
        let idx = if bits == 0 { &mut self.npreds } else { &mut self.nregs };
        if *idx == u16::MAX / 2 {
            return Err(ParseError::new(line, "too many registers"));
        }
        if bits != 0 {
            self.bits.push(bits);
        }
        if self.map.insert(name.clone(), (*idx, bits)).is_some() {
            return Err(ParseError::new(line, format!("register `{name}` declared twice")));
        }
        *idx += 1;
        Ok(())
    }
    pub fn count(&self) -> usize {
        self.nregs as usize
    }
    pub fn preds(&self) -> usize {
        self.npreds as usize
    }
    fn constant(&mut self, v: u64) -> u16 {
        let n = self.nregs;
        let k = self.consts.len();
        *self.const_of.entry(v).or_insert_with(|| {
            self.consts.push(v);
            n + k as u16
        })
    }
}

/// What names resolve to.
pub(crate) struct Symbols<'a> {
    pub params: &'a HashMap<String, u64>,
    pub shared: &'a HashMap<String, u64>,
    pub globals: &'a HashMap<String, u16>,
    pub labels: &'a HashMap<String, u32>,
}

pub(crate) struct Cx<'a, 'b> {
    pub line: u32,
    pub regs: &'a mut Regs,
    pub syms: &'a Symbols<'b>,
}

impl Cx<'_, '_> {
    pub(crate) fn err<T>(&self, m: impl Into<String>) -> Result<T, ParseError> {
        Err(ParseError::new(self.line, m))
    }

    /// A register of at least `bits` bits, or an immediate of type `ty` (as a constant).
    pub(crate) fn src(&mut self, o: &Opnd, ty: Ty) -> Result<R, ParseError> {
        match o {
            Opnd::Name(n) => match self.regs.map.get(n) {
                Some(&(i, b)) if b != 0 => Ok(i),
                Some(_) => self.err(format!("`{n}` is a predicate, a value is expected")),
                None if n == "WARP_SZ" => Ok(self.regs.constant(32)),
                None => self.err(format!("unknown register `{n}`")),
            },
            Opnd::Int(v) => {
                let bits = if ty.is_float() {
                    match ty.bits() {
                        32 => u64::from((*v as f32).to_bits()),
                        64 => (*v as f64).to_bits(),
                        _ => return self.err("an integer literal as a half-precision value"),
                    }
                } else {
                    (*v as u64) & ty.mask()
                };
                Ok(self.regs.constant(bits))
            }
            Opnd::Float(bits, double) => {
                let v = match (ty, double) {
                    (Ty::F(32), false) | (Ty::F(64), true) => *bits,
                    (Ty::F(64), false) => f64::from(f32::from_bits(*bits as u32)).to_bits(),
                    (Ty::B(32), false) | (Ty::B(64), true) => *bits,
                    _ => return self.err(format!("a float literal as a .{ty:?} value")),
                };
                Ok(self.regs.constant(v))
            }
            o => self.err(format!("unexpected operand {o:?}")),
        }
    }

    /// A destination register.
    pub(crate) fn dst(&mut self, o: &Opnd) -> Result<R, ParseError> {
        match o {
            Opnd::Name(n) => match self.regs.map.get(n) {
                Some(&(i, b)) if b != 0 => Ok(i),
                _ => self.err(format!("`{n}` is not a value register")),
            },
            o => self.err(format!("expected a destination register, found {o:?}")),
        }
    }

    pub(crate) fn bits_of(&self, r: R) -> u8 {
        self.regs.bits.get(r as usize).copied().unwrap_or(64)
    }

    pub(crate) fn pred(&self, o: &Opnd) -> Result<(P, bool), ParseError> {
        let (n, neg) = match o {
            Opnd::Name(n) => (n, false),
            Opnd::Not(n) => (n, true),
            o => return self.err(format!("expected a predicate, found {o:?}")),
        };
        match self.regs.map.get(n) {
            Some(&(i, 0)) => Ok((i, neg)),
            _ => self.err(format!("`{n}` is not a predicate register")),
        }
    }

    pub(crate) fn addr(&self, o: &Opnd, space: Space) -> Result<Addr, ParseError> {
        let Opnd::Mem(base, off) = o else {
            return self.err(format!("expected an address `[…]`, found {o:?}"));
        };
        if let Some(&(r, b)) = self.regs.map.get(base) {
            if b != 64 {
                return self.err(format!("address register `{base}` is not 64-bit"));
            }
            if space == Space::Param {
                return self.err("parameters must be addressed by name");
            }
            return Ok(Addr::Reg(r, *off));
        }
        let abs = |v: u64| Ok(Addr::Abs(v.wrapping_add(*off as u64)));
        match space {
            Space::Param => match self.syms.params.get(base) {
                Some(&o) => abs(o),
                None => self.err(format!("unknown parameter `{base}`")),
            },
            Space::Shared => match self.syms.shared.get(base) {
                Some(&o) => abs(o),
                None => self.err(format!("unknown shared variable `{base}`")),
            },
            Space::Global => match self.syms.globals.get(base) {
                Some(&g) => Ok(Addr::Global(g, *off)),
                None => self.err(format!("unknown global variable `{base}`")),
            },
        }
    }

    pub(crate) fn n(&self, ops: &[Opnd], n: usize) -> Result<(), ParseError> {
        if ops.len() == n {
            Ok(())
        } else {
            self.err(format!("expected {n} operands, found {}", ops.len()))
        }
    }
}

pub(crate) fn ty_of(s: Option<&&str>) -> Option<Ty> {
    s.and_then(|s| Ty::parse(s))
}

/// Decodes one statement.
pub(crate) fn decode(s: &Stmt, regs: &mut Regs, syms: &Symbols<'_>) -> Result<Guarded, ParseError> {
    let mut cx = Cx { line: s.line, regs, syms };
    let guard = match &s.guard {
        Some((g, neg)) => Some((cx.pred(&Opnd::Name(g.clone()))?.0, *neg)),
        None => None,
    };
    let parts: Vec<&str> = s.opcode.split('.').collect();
    let inst = decode_op(&mut cx, &parts, &s.operands)?;
    Ok(Guarded { inst, guard })
}

pub(crate) fn unsupported<T>(cx: &Cx<'_, '_>, parts: &[&str]) -> Result<T, ParseError> {
    cx.err(format!("`{}` is outside the PTX subset the interpreter supports", parts.join(".")))
}

fn decode_op(cx: &mut Cx<'_, '_>, parts: &[&str], ops: &[Opnd]) -> Result<Inst, ParseError> {
    let op = parts[0];
    let mods = &parts[1..];
    match op {
        "mov" => decode_mov(cx, parts, ops),
        "ld" | "st" => crate::decode_mem::ld_st(cx, parts, ops),
        "atom" => crate::decode_mem::atom(cx, parts, ops),
        "call" => crate::decode_mem::call(cx, parts, ops),
        "cvta" => {
            if mods != ["to", "global", "u64"] {
                return unsupported(cx, parts);
            }
            cx.n(ops, 2)?;
            let (d, a) = (cx.dst(&ops[0])?, cx.src(&ops[1], Ty::U(64))?);
            Ok(Inst::Mov { d, a, mask: u64::MAX })
        }
        "cvt" => decode_cvt(cx, parts, ops),
        "setp" => decode_setp(cx, parts, ops),
        "selp" => {
            let Some(ty) = ty_of(mods.first()).filter(|_| mods.len() == 1) else {
                return unsupported(cx, parts);
            };
            cx.n(ops, 4)?;
            let (d, a, b) = (cx.dst(&ops[0])?, cx.src(&ops[1], ty)?, cx.src(&ops[2], ty)?);
            let (p, neg) = cx.pred(&ops[3])?;
            Ok(Inst::Selp { d, a, b, p, neg, mask: ty.mask() })
        }
        "testp" => {
            let t = match mods.first().copied() {
                Some("finite") => TestOp::Finite,
                Some("infinite") => TestOp::Infinite,
                Some("number") => TestOp::Number,
                Some("notanumber") => TestOp::NotANumber,
                Some("normal") => TestOp::Normal,
                Some("subnormal") => TestOp::Subnormal,
                _ => return unsupported(cx, parts),
            };
            let ty = match mods.get(1..) {
                Some(["f32"]) => Ty::F(32),
                Some(["f64"]) => Ty::F(64),
                _ => return unsupported(cx, parts),
            };
            cx.n(ops, 2)?;
            let (p, neg) = cx.pred(&ops[0])?;
            if neg {
                return cx.err("a negated destination");
            }
            Ok(Inst::Testp { op: t, ty, p, a: cx.src(&ops[1], ty)? })
        }
        "and" | "or" | "xor" | "not" if mods == ["pred"] => {
            let bop = BoolOp::parse(op);
            let (d, neg) = cx.pred(&ops[0])?;
            if neg {
                return cx.err("a negated destination");
            }
            match bop {
                Some(op) => {
                    cx.n(ops, 3)?;
                    let ((a, na), (b, nb)) = (cx.pred(&ops[1])?, cx.pred(&ops[2])?);
                    Ok(Inst::PredOp { op, d, a, na, b, nb })
                }
                None => {
                    cx.n(ops, 2)?;
                    let (a, na) = cx.pred(&ops[1])?;
                    Ok(Inst::PredOp { op: BoolOp::And, d, a, na: !na, b: a, nb: !na })
                }
            }
        }
        "bra" => {
            let uni = match mods {
                [] => false,
                ["uni"] => true,
                _ => return unsupported(cx, parts),
            };
            cx.n(ops, 1)?;
            let Opnd::Name(l) = &ops[0] else { return cx.err("expected a label") };
            match cx.syms.labels.get(l) {
                Some(&target) => Ok(Inst::Bra { target, uni }),
                None => cx.err(format!("unknown label `{l}`")),
            }
        }
        "ret" | "exit" if mods.is_empty() && ops.is_empty() => Ok(Inst::Ret),
        "bar" | "barrier" => crate::decode_warp::bar(cx, parts, ops),
        "shfl" | "vote" | "match" | "activemask" => crate::decode_warp::warp(cx, parts, ops),
        _ => crate::decode_arith::arith(cx, parts, ops),
    }
}

fn decode_mov(cx: &mut Cx<'_, '_>, parts: &[&str], ops: &[Opnd]) -> Result<Inst, ParseError> {
    cx.n(ops, 2)?;
    if parts[1..] == ["pred"] {
        let (d, nd) = cx.pred(&ops[0])?;
        let (a, neg) = cx.pred(&ops[1])?;
        if nd {
            return cx.err("a negated destination");
        }
        return Ok(Inst::MovPred { d, a, neg });
    }
    let Some(ty) = ty_of(parts.get(1)).filter(|_| parts.len() == 2) else {
        return unsupported(cx, parts);
    };
    let half = match ty {
        Ty::B(64) => 32,
        Ty::B(32) => 16,
        _ => 0,
    };
    let vec2 = |cx: &mut Cx<'_, '_>, v: &[String]| -> Result<(R, R), ParseError> {
        if v.len() != 2 || half == 0 {
            return cx.err("vector operands are supported as two halves of a .b32/.b64 move");
        }
        let lo = cx.dst(&Opnd::Name(v[0].clone()))?;
        let hi = cx.dst(&Opnd::Name(v[1].clone()))?;
        Ok((lo, hi))
    };
    if let Opnd::Vector(v) = &ops[0] {
        let (lo, hi) = vec2(cx, v)?;
        let a = cx.src(&ops[1], ty)?;
        return Ok(Inst::Split { lo, hi, a, half });
    }
    let d = cx.dst(&ops[0])?;
    if let Opnd::Vector(v) = &ops[1] {
        let (lo, hi) = vec2(cx, v)?;
        return Ok(Inst::Join { d, lo, hi, half });
    }
    if let Opnd::Name(n) = &ops[1] {
        if let Some(s) = special(n) {
            return Ok(Inst::Sreg { d, s });
        }
        if let Some(&off) = cx.syms.shared.get(n) {
            let a = cx.regs.constant(off);
            return Ok(Inst::Mov { d, a, mask: u64::MAX });
        }
        if let Some(&var) = cx.syms.globals.get(n) {
            return Ok(Inst::GlobalAddr { d, var, off: 0 });
        }
    }
    let a = cx.src(&ops[1], ty)?;
    Ok(Inst::Mov { d, a, mask: ty.mask() })
}

fn special(n: &str) -> Option<SReg> {
    let axis = |s: &str| match s {
        "x" => Some(0),
        "y" => Some(1),
        "z" => Some(2),
        _ => None,
    };
    if n == "%laneid" {
        return Some(SReg::Laneid);
    }
    let (base, ax) = n.split_once('.')?;
    let a = axis(ax)?;
    Some(match base {
        "%tid" => SReg::Tid(a),
        "%ntid" => SReg::Ntid(a),
        "%ctaid" => SReg::Ctaid(a),
        "%nctaid" => SReg::Nctaid(a),
        _ => return None,
    })
}

fn decode_cvt(cx: &mut Cx<'_, '_>, parts: &[&str], ops: &[Opnd]) -> Result<Inst, ParseError> {
    let mut rnd = Rnd::None;
    let mut sat = false;
    let mut i = 1;
    if let Some(r) = parts.get(i).and_then(|s| Rnd::parse(s)) {
        rnd = r;
        i += 1;
    }
    if parts.get(i) == Some(&"sat") {
        sat = true;
        i += 1;
    }
    let (Some(dt), Some(st)) = (ty_of(parts.get(i)), ty_of(parts.get(i + 1))) else {
        return unsupported(cx, parts);
    };
    if parts.len() != i + 2 || matches!(dt, Ty::B(_)) || matches!(st, Ty::B(_)) {
        return unsupported(cx, parts);
    }
    // The rounding modifiers PTX requires (and allows) for each kind of conversion.
    let ok = match (dt.is_float(), st.is_float()) {
        // Rounding to half precision is round-to-nearest only here.
        (true, _) if dt.bits() == 16 => rnd == Rnd::Rn,
        (true, true) if dt.bits() < st.bits() => {
            matches!(rnd, Rnd::Rn | Rnd::Rz | Rnd::Rm | Rnd::Rp)
        }
        (true, true) if dt == st => rnd.is_integral() || (rnd == Rnd::None && sat),
        (true, true) => rnd == Rnd::None,
        (false, true) => rnd.is_integral(),
        (true, false) => matches!(rnd, Rnd::Rn | Rnd::Rz | Rnd::Rm | Rnd::Rp),
        (false, false) => rnd == Rnd::None,
    };
    if !ok {
        return cx.err(format!("`{}`: rounding modifier not allowed or missing", parts.join(".")));
    }
    cx.n(ops, 2)?;
    let d = cx.dst(&ops[0])?;
    // An f16 value lives in a 16-bit register.
    let sty = if st == Ty::F(16) { Ty::B(16) } else { st };
    let a = cx.src(&ops[1], sty)?;
    let dbits = cx.bits_of(d);
    if u32::from(dbits) < dt.bits() {
        return cx.err("the destination register is narrower than the type");
    }
    Ok(Inst::Cvt { dt, st, rnd, sat, d, a, dbits })
}

fn decode_setp(cx: &mut Cx<'_, '_>, parts: &[&str], ops: &[Opnd]) -> Result<Inst, ParseError> {
    let Some(cmp) = parts.get(1).and_then(|s| Cmp::parse(s)) else {
        return unsupported(cx, parts);
    };
    let (comb, ty) = match parts.len() {
        3 => (None, ty_of(parts.get(2))),
        4 => (BoolOp::parse(parts[2]), ty_of(parts.get(3))),
        _ => (None, None),
    };
    let Some(ty) = ty.filter(|t| t.bits() >= 16) else { return unsupported(cx, parts) };
    if parts.len() == 4 && comb.is_none() || (cmp.float_only() && !ty.is_float()) {
        return unsupported(cx, parts);
    }
    let (p, q) = match &ops.first() {
        Some(Opnd::Pair(p, q)) => {
            (cx.pred(&Opnd::Name(p.clone()))?.0, Some(cx.pred(&Opnd::Name(q.clone()))?.0))
        }
        Some(o) => (cx.pred(o)?.0, None),
        None => return cx.err("setp without operands"),
    };
    cx.n(ops, if comb.is_some() { 4 } else { 3 })?;
    let (a, b) = (cx.src(&ops[1], ty)?, cx.src(&ops[2], ty)?);
    let comb = match comb {
        Some(op) => {
            let (c, neg) = cx.pred(&ops[3])?;
            Some((op, c, neg))
        }
        None => None,
    };
    Ok(Inst::Setp { cmp, ty, p, q, a, b, comb })
}
