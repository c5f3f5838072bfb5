//! Decoding of barriers and warp-level instructions: `bar.sync`, `bar.warp.sync`,
//! `shfl.sync`, `vote.sync`, `match.sync`, `activemask`.

use crate::decode::{unsupported, Cx};
use crate::error::ParseError;
use crate::inst::{Inst, ShflMode, Ty, VoteMode};
use crate::parse::Opnd;

/// `bar.sync a` (a barrier of the whole block) and `bar.warp.sync membermask`.
pub(crate) fn bar(cx: &mut Cx<'_, '_>, parts: &[&str], ops: &[Opnd]) -> Result<Inst, ParseError> {
    match &parts[1..] {
        ["sync"] if parts[0] == "bar" => match ops {
            [Opnd::Int(id)] if (0..16).contains(id) => Ok(Inst::BarSync { id: *id as u32 }),
            _ => cx.err("bar.sync needs a barrier number 0..15 (a thread count is not supported)"),
        },
        ["warp", "sync"] if parts[0] == "bar" => {
            cx.n(ops, 1)?;
            Ok(Inst::BarWarpSync { mask: cx.src(&ops[0], Ty::B(32))? })
        }
        _ => unsupported(cx, parts),
    }
}

/// A destination `d` or `d|p`.
fn dst_pair(cx: &mut Cx<'_, '_>, o: &Opnd) -> Result<(u16, Option<u16>), ParseError> {
    match o {
        Opnd::Pair(d, p) => {
            let d = cx.dst(&Opnd::Name(d.clone()))?;
            let (p, neg) = cx.pred(&Opnd::Name(p.clone()))?;
            if neg {
                return cx.err("a negated destination");
            }
            Ok((d, Some(p)))
        }
        o => Ok((cx.dst(o)?, None)),
    }
}

pub(crate) fn warp(cx: &mut Cx<'_, '_>, parts: &[&str], ops: &[Opnd]) -> Result<Inst, ParseError> {
    let b32 = Ty::B(32);
    match parts {
        ["activemask", "b32"] => {
            cx.n(ops, 1)?;
            Ok(Inst::Activemask { d: cx.dst(&ops[0])? })
        }
        ["shfl", "sync", mode, "b32"] => {
            let mode = match *mode {
                "up" => ShflMode::Up,
                "down" => ShflMode::Down,
                "bfly" => ShflMode::Bfly,
                "idx" => ShflMode::Idx,
                _ => return unsupported(cx, parts),
            };
            cx.n(ops, 5)?;
            let (d, p) = dst_pair(cx, &ops[0])?;
            let a = cx.src(&ops[1], b32)?;
            let b = cx.src(&ops[2], b32)?;
            let c = cx.src(&ops[3], b32)?;
            let mask = cx.src(&ops[4], b32)?;
            Ok(Inst::Shfl { mode, d, p, a, b, c, mask })
        }
        ["vote", "sync", mode, ty] => {
            let mode = match (*mode, *ty) {
                ("all", "pred") => VoteMode::All,
                ("any", "pred") => VoteMode::Any,
                ("uni", "pred") => VoteMode::Uni,
                ("ballot", "b32") => VoteMode::Ballot,
                _ => return unsupported(cx, parts),
            };
            cx.n(ops, 3)?;
            let d = if mode == VoteMode::Ballot {
                cx.dst(&ops[0])?
            } else {
                let (p, neg) = cx.pred(&ops[0])?;
                if neg {
                    return cx.err("a negated destination");
                }
                p
            };
            let (a, neg) = cx.pred(&ops[1])?;
            let mask = cx.src(&ops[2], b32)?;
            Ok(Inst::Vote { mode, d, a, neg, mask })
        }
        ["match", op @ ("any" | "all"), "sync", ty @ ("b32" | "b64")] => {
            let ty = if *ty == "b32" { b32 } else { Ty::B(64) };
            cx.n(ops, 3)?;
            let (d, p) = dst_pair(cx, &ops[0])?;
            if *op == "any" && p.is_some() {
                return cx.err("match.any has no predicate result");
            }
            let a = cx.src(&ops[1], ty)?;
            let mask = cx.src(&ops[2], b32)?;
            Ok(Inst::Match { all: *op == "all", ty, d, p, a, mask })
        }
        _ => unsupported(cx, parts),
    }
}
