//! Decoding of memory instructions: `ld`, `st`, `atom`.

use crate::decode::{ty_of, unsupported, Cx};
use crate::error::{ParseError, Space};
use crate::inst::{AtomOp, Inst, Ty};
use crate::parse::Opnd;

fn space(s: Option<&&str>) -> Option<Space> {
    match s.copied() {
        Some("global") => Some(Space::Global),
        Some("shared") => Some(Space::Shared),
        Some("param") => Some(Space::Param),
        _ => None,
    }
}

/// `ld.space.type d, [a]` and `st.space.type [a], b`.
pub(crate) fn ld_st(cx: &mut Cx<'_, '_>, parts: &[&str], ops: &[Opnd]) -> Result<Inst, ParseError> {
    let (Some(sp), Some(ty)) = (space(parts.get(1)), ty_of(parts.get(2))) else {
        return unsupported(cx, parts);
    };
    if parts.len() != 3 || ty.is_float() && ty.bits() == 16 {
        return unsupported(cx, parts);
    }
    cx.n(ops, 2)?;
    if parts[0] == "ld" {
        let d = cx.dst(&ops[0])?;
        let dbits = cx.bits_of(d);
        if u32::from(dbits) < ty.bits() {
            return cx.err("the destination register is narrower than the loaded type");
        }
        let addr = cx.addr(&ops[1], sp)?;
        Ok(Inst::Ld { space: sp, ty, d, addr, dbits })
    } else {
        if sp == Space::Param {
            return cx.err("stores to the parameter space are not supported");
        }
        let addr = cx.addr(&ops[0], sp)?;
        let a = cx.src(&ops[1], ty)?;
        Ok(Inst::St { space: sp, ty, a, addr })
    }
}

/// `atom.space.op.type d, [a], b{, c}`.
pub(crate) fn atom(cx: &mut Cx<'_, '_>, parts: &[&str], ops: &[Opnd]) -> Result<Inst, ParseError> {
    let Some(sp) = space(parts.get(1)).filter(|s| *s != Space::Param) else {
        return unsupported(cx, parts);
    };
    let op = match parts.get(2).copied() {
        Some("add") => AtomOp::Add,
        Some("min") => AtomOp::Min,
        Some("max") => AtomOp::Max,
        Some("and") => AtomOp::And,
        Some("or") => AtomOp::Or,
        Some("xor") => AtomOp::Xor,
        Some("exch") => AtomOp::Exch,
        Some("cas") => AtomOp::Cas,
        Some("inc") => AtomOp::Inc,
        Some("dec") => AtomOp::Dec,
        _ => return unsupported(cx, parts),
    };
    let Some(ty) = ty_of(parts.get(3)).filter(|_| parts.len() == 4) else {
        return unsupported(cx, parts);
    };
    // The type forms PTX defines for each operation (32- and 64-bit).
    let ok = ty.bits() >= 32
        && match op {
            AtomOp::Add => !matches!(ty, Ty::B(_)) && ty != Ty::S(64),
            AtomOp::Min | AtomOp::Max => matches!(ty, Ty::S(_) | Ty::U(_)),
            AtomOp::And | AtomOp::Or | AtomOp::Xor | AtomOp::Exch | AtomOp::Cas => {
                matches!(ty, Ty::B(_))
            }
            AtomOp::Inc | AtomOp::Dec => ty == Ty::U(32),
        };
    if !ok {
        return unsupported(cx, parts);
    }
    cx.n(ops, if op == AtomOp::Cas { 4 } else { 3 })?;
    let d = cx.dst(&ops[0])?;
    let addr = cx.addr(&ops[1], sp)?;
    let b = cx.src(&ops[2], ty)?;
    let c = if op == AtomOp::Cas { cx.src(&ops[3], ty)? } else { b };
    Ok(Inst::Atom { space: sp, op, ty, d, addr, b, c })
}
