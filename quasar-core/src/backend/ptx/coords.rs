//! Coordinate built-ins in kernels (manual §2.4.1, table 14.1): `mirror_ext(x, N)` and
//! `periodize(x, N)` of non-integer numbers, `ind2pos(dims, i)` and `pos2ind(dims, pos)`.
//! Each computes what `quasar-std` computes for the CPU kernel: the coordinate functions in
//! 64-bit integers (a float is truncated first) and the result as an `int`; `ind2pos` and
//! `pos2ind` outside the array end the thread with an error naming the function, as the
//! CPU kernel's `Err` does.

use super::kernel::Ctx;
use super::regs::{NumTy, Reg, RegClass, Val};
use super::{unsupported, PtxSiteKind, Res};
use crate::ir::{Builtin, Builtin as B};
use crate::span::Span;

impl Ctx<'_> {
    /// `mirror_ext(x, N)` or `periodize(x, N)` of the numbers `x`, `n`: computed in `s64`,
    /// then an `int` converted to `rt` (the CPU's `mirror_ext(x as i64, n as i64) as i32`).
    pub(super) fn coordinate(
        &mut self,
        b: Builtin,
        x: (Reg, NumTy),
        n: (Reg, NumTy),
        rt: NumTy,
    ) -> Reg {
        let i = self.convert_reg(x.0, x.1, NumTy::I64);
        let n = self.convert_reg(n.0, n.1, NumTy::I64);
        // Divide by max(n, 1): the result for n <= 0 is chosen below (`mirror_ext` leaves x
        // as it is; `periodize` is `mod` with the divisor's sign and `mod(x, 0) = x`).
        let m = self.reg(RegClass::B64);
        self.ins(format!("max.s64 {m}, {n}, 1"));
        let (q, r) = (self.reg(RegClass::B64), self.reg(RegClass::B64));
        self.ins(format!("div.s64 {q}, {i}, {m}"));
        self.ins(format!("rem.s64 {r}, {i}, {m}"));
        // Euclidean: r in [0, m), q rounded down.
        let neg = self.reg(RegClass::Pred);
        self.ins(format!("setp.lt.s64 {neg}, {r}, 0"));
        self.ins(format!("@{neg} add.s64 {r}, {r}, {m}"));
        self.ins(format!("@{neg} sub.s64 {q}, {q}, 1"));
        let d = self.reg(RegClass::B64);
        if b == B::MirrorExt {
            // Odd periods are reflected: n - 1 - r.
            let (odd, back) = (self.reg(RegClass::B64), self.reg(RegClass::B64));
            self.ins(format!("and.b64 {odd}, {q}, 1"));
            self.ins(format!("sub.s64 {back}, {m}, 1"));
            self.ins(format!("sub.s64 {back}, {back}, {r}"));
            let p = self.reg(RegClass::Pred);
            self.ins(format!("setp.ne.s64 {p}, {odd}, 0"));
            self.ins(format!("selp.b64 {d}, {back}, {r}, {p}"));
            let pos = self.reg(RegClass::Pred);
            self.ins(format!("setp.gt.s64 {pos}, {n}, 0"));
            self.ins(format!("selp.b64 {d}, {d}, {i}, {pos}"));
        } else {
            // A non-positive divisor: `mod` of the general signed case.
            let general = self.modulo_int(i, n);
            let pos = self.reg(RegClass::Pred);
            self.ins(format!("setp.gt.s64 {pos}, {n}, 0"));
            self.ins(format!("selp.b64 {d}, {r}, {general}, {pos}"));
        }
        let int = self.convert_reg(d, NumTy::I64, NumTy::I32);
        self.convert_reg(int, NumTy::I32, rt)
    }

    /// `mod(x, y)` of two `s64` registers with the divisor's sign, `mod(x, 0) = x`.
    fn modulo_int(&mut self, x: Reg, y: Reg) -> Reg {
        // |y| >= 1 for the division; y = 0 and y = -1 (no overflow for x = MIN) are chosen after.
        let safe = self.reg(RegClass::B64);
        let zero = self.reg(RegClass::Pred);
        self.ins(format!("setp.eq.s64 {zero}, {y}, 0"));
        self.ins(format!("selp.b64 {safe}, 1, {y}, {zero}"));
        let d = self.reg(RegClass::B64);
        self.ins(format!("rem.s64 {d}, {x}, {safe}"));
        let (p, q, nz) =
            (self.reg(RegClass::Pred), self.reg(RegClass::Pred), self.reg(RegClass::Pred));
        self.ins(format!("setp.lt.s64 {p}, {d}, 0"));
        self.ins(format!("setp.lt.s64 {q}, {safe}, 0"));
        self.ins(format!("xor.pred {p}, {p}, {q}"));
        self.ins(format!("setp.ne.s64 {nz}, {d}, 0"));
        self.ins(format!("and.pred {p}, {p}, {nz}"));
        self.ins(format!("@{p} add.s64 {d}, {d}, {safe}"));
        self.ins(format!("selp.b64 {d}, {x}, {d}, {zero}"));
        d
    }

    /// `ind2pos(dims, i)` (the position of linear index `i`, row-major) and
    /// `pos2ind(dims, pos)`, with fixed-size integer vectors in registers.
    pub(super) fn positions(&mut self, b: Builtin, vals: &[Val], span: Span) -> Res<Val> {
        let name = b.name();
        let dims = match vals.first() {
            Some(Val::Vec(rs, t)) if !t.is_float() => self.ints(rs, *t),
            _ => {
                return unsupported(
                    span,
                    format!("`{name}` with dimensions that are not a fixed-size integer vector"),
                    format!("pass the dimensions as `size(x)` or an `ivecN` (`{name}([4, 5], …)`)"),
                )
            }
        };
        // Every dimension positive (the CPU reports a negative one, and none is inside a 0).
        let (ok, one) = (self.reg(RegClass::Pred), self.imm_int(NumTy::I32, 1));
        self.ins(format!("setp.ne.s32 {ok}, {one}, 0"));
        let mut div = Vec::new();
        for &d in &dims {
            let p = self.reg(RegClass::Pred);
            self.ins(format!("setp.gt.s32 {p}, {d}, 0"));
            self.ins(format!("and.pred {ok}, {ok}, {p}"));
            let m = self.reg(RegClass::B32);
            self.ins(format!("max.s32 {m}, {d}, 1"));
            div.push(m);
        }
        if b == B::Ind2pos {
            let i = match vals.get(1) {
                Some(Val::Num(r, t)) if !t.is_float() => self.convert_reg(*r, *t, NumTy::I32),
                _ => {
                    return unsupported(
                        span,
                        "`ind2pos` with a linear index that is not an integer",
                        "pass an `int` index (`ind2pos(size(x), int(k))`)",
                    )
                }
            };
            let p = self.reg(RegClass::Pred);
            self.ins(format!("setp.ge.s32 {p}, {i}, 0"));
            self.ins(format!("and.pred {ok}, {ok}, {p}"));
            // The last coordinate varies fastest; what is left after every dimension must be
            // 0, i.e. i < prod(dims) (no product is formed, so nothing overflows).
            let rem = self.reg(RegClass::B32);
            self.ins(format!("mov.b32 {rem}, {i}"));
            let mut pos = vec![rem; dims.len()];
            for (k, &m) in div.iter().enumerate().rev() {
                let c = self.reg(RegClass::B32);
                self.ins(format!("rem.s32 {c}, {rem}, {m}"));
                self.ins(format!("div.s32 {rem}, {rem}, {m}"));
                pos[k] = c;
            }
            self.ins(format!("setp.eq.s32 {p}, {rem}, 0"));
            self.ins(format!("and.pred {ok}, {ok}, {p}"));
            self.outside_fails(b, ok, span);
            return Ok(Val::Vec(pos, NumTy::I32));
        }
        let pos = match vals.get(1) {
            Some(Val::Vec(rs, t)) if !t.is_float() && rs.len() == dims.len() => self.ints(rs, *t),
            _ => {
                return unsupported(
                    span,
                    "`pos2ind` with a position that is not an integer vector of one coordinate \
                     per dimension",
                    "pass an `ivecN` position with as many coordinates as dimensions",
                )
            }
        };
        // ((p0·d1 + p1)·d2 + p2)…, each coordinate inside its dimension.
        let ind = self.imm_int(NumTy::I32, 0);
        for (&p, (&d, &m)) in pos.iter().zip(dims.iter().zip(&div)) {
            let (lo, hi) = (self.reg(RegClass::Pred), self.reg(RegClass::Pred));
            self.ins(format!("setp.ge.s32 {lo}, {p}, 0"));
            self.ins(format!("setp.lt.s32 {hi}, {p}, {d}"));
            self.ins(format!("and.pred {ok}, {ok}, {lo}"));
            self.ins(format!("and.pred {ok}, {ok}, {hi}"));
            self.ins(format!("mad.lo.s32 {ind}, {ind}, {m}, {p}"));
        }
        self.outside_fails(b, ok, span);
        Ok(Val::Num(ind, NumTy::I32))
    }

    fn ints(&mut self, rs: &[Reg], t: NumTy) -> Vec<Reg> {
        rs.iter().map(|&r| self.convert_reg(r, t, NumTy::I32)).collect()
    }

    /// Unless `ok`, the thread ends with the error of the CPU kernel's `quasar-std` call.
    fn outside_fails(&mut self, b: Builtin, ok: Reg, span: Span) {
        let message = match b {
            B::Ind2pos => "`ind2pos`: the index is outside the array of the given dimensions",
            _ => "`pos2ind`: the position is outside the array of the given dimensions",
        };
        self.fail(PtxSiteKind::Error(message.into()), Some(ok), span);
    }
}
