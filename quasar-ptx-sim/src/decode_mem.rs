//! Decoding of memory instructions: `ld`, `st`, `atom`, and the calls of the device heap's
//! `malloc` and `free`.

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

/// A call's `.param` variable (declared in the entry's body, a register) as `[name]`.
fn call_param(cx: &mut Cx<'_, '_>, o: &Opnd, sp: Space) -> Option<crate::inst::R> {
    match o {
        Opnd::Mem(base, 0) if sp == Space::Param => cx.dst(&Opnd::Name(base.clone())).ok(),
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
        if let Some(a) = call_param(cx, &ops[1], sp) {
            return Ok(Inst::Mov { d: cx.dst(&ops[0])?, a, mask: ty.mask() });
        }
    } else if let Some(d) = call_param(cx, &ops[0], sp) {
        return Ok(Inst::Mov { d, a: cx.src(&ops[1], ty)?, mask: ty.mask() });
    }
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

/// `call.uni (r), malloc, (n)` and `call.uni free, (p)`: the device heap's functions, the
/// only calls the back end emits.
pub(crate) fn call(cx: &mut Cx<'_, '_>, parts: &[&str], ops: &[Opnd]) -> Result<Inst, ParseError> {
    if !matches!(parts, ["call"] | ["call", "uni"]) {
        return unsupported(cx, parts);
    }
    match ops {
        [Opnd::Args(r), Opnd::Name(f), Opnd::Args(a)] if f == "malloc" => match (&r[..], &a[..]) {
            ([r], [a]) => {
                let (d, size) =
                    (cx.dst(&Opnd::Name(r.clone()))?, cx.src(&Opnd::Name(a.clone()), Ty::U(64))?);
                Ok(Inst::Malloc { d, size })
            }
            _ => cx.err("`malloc` takes one argument and gives one result"),
        },
        [Opnd::Name(f), Opnd::Args(a)] if f == "free" && a.len() == 1 => {
            cx.src(&Opnd::Name(a[0].clone()), Ty::U(64))?;
            Ok(Inst::Free)
        }
        _ => cx.err("only calls of `malloc` and `free` are supported"),
    }
}
