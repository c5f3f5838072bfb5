//! Complex numbers in kernels (`cscalar`, `cscalar'single`/`'double`): a pair of registers
//! (real, imaginary) of the part type, and in memory two words, real first, as
//! `num_complex::Complex<T>` (`repr(C)`) on the host.
//!
//! Arithmetic follows the CPU backend (`num_complex`): `+ - *` by components, `a/b` as
//! `((ac + bd) + (bc − ad)i)/(c² + d²)` (num-complex's formula, not scaled: the same overflow
//! for huge divisors); `abs` is `hypot(re, im)` computed as `s·√((re/s)² + (im/s)²)` with
//! `s = max(|re|, |im|)`, as robust as `hypot` against overflow and underflow.

use super::kernel::Ctx;
use super::regs::{cplx_of, NumTy, Reg, RegClass, Val};
use super::{unsupported, Res};
use crate::ir::BinaryOp;
use crate::ir::Builtin;
use crate::sema::types::Type;
use crate::span::Span;

impl Ctx<'_> {
    /// `v` as a complex number with parts of type `t` (real numbers get a zero imaginary part).
    pub fn cplx_val(&mut self, v: Val, t: NumTy, span: Span) -> Res<(Reg, Reg)> {
        match v {
            Val::Cplx(re, im, from) => {
                Ok((self.convert_reg(re, from, t), self.convert_reg(im, from, t)))
            }
            Val::Num(r, from) => Ok((self.convert_reg(r, from, t), self.imm(t, 0.0))),
            Val::Vec(rs, from) if rs.len() == 1 => {
                Ok((self.convert_reg(rs[0], from, t), self.imm(t, 0.0)))
            }
            _ => unsupported(
                span,
                "a vector or array where a complex number is expected",
                "pass a complex number or a real number here (one element: `x[pos]`)",
            ),
        }
    }

    /// `a op b` giving the complex type whose parts are `t`.
    pub fn cplx_binary(&mut self, op: BinaryOp, a: Val, b: Val, t: NumTy, span: Span) -> Res<Val> {
        let (x, y) = self.cplx_val(a, t, span)?;
        let (u, v) = self.cplx_val(b, t, span)?;
        let f = t.arith();
        let (re, im) = (self.reg(t.class()), self.reg(t.class()));
        match op {
            BinaryOp::Add | BinaryOp::Sub => {
                let o = if op == BinaryOp::Add { "add" } else { "sub" };
                self.ins(format!("{o}.{f} {re}, {x}, {u}"));
                self.ins(format!("{o}.{f} {im}, {y}, {v}"));
            }
            BinaryOp::Mul | BinaryOp::ElemMul => {
                // (x + yi)(u + vi) = (xu − yv) + (xv + yu)i, as num-complex (no fma).
                let (p, q) = (self.reg(t.class()), self.reg(t.class()));
                self.ins(format!("mul.rn.{f} {p}, {x}, {u}"));
                self.ins(format!("mul.rn.{f} {q}, {y}, {v}"));
                self.ins(format!("sub.rn.{f} {re}, {p}, {q}"));
                self.ins(format!("mul.rn.{f} {p}, {x}, {v}"));
                self.ins(format!("mul.rn.{f} {q}, {y}, {u}"));
                self.ins(format!("add.rn.{f} {im}, {p}, {q}"));
            }
            BinaryOp::Div | BinaryOp::ElemDiv => {
                let (n, p, q) = (self.reg(t.class()), self.reg(t.class()), self.reg(t.class()));
                self.ins(format!("mul.rn.{f} {p}, {u}, {u}"));
                self.ins(format!("mul.rn.{f} {q}, {v}, {v}"));
                self.ins(format!("add.rn.{f} {n}, {p}, {q}"));
                self.ins(format!("mul.rn.{f} {p}, {x}, {u}"));
                self.ins(format!("mul.rn.{f} {q}, {y}, {v}"));
                self.ins(format!("add.rn.{f} {re}, {p}, {q}"));
                self.ins(format!("mul.rn.{f} {p}, {y}, {u}"));
                self.ins(format!("mul.rn.{f} {q}, {x}, {v}"));
                self.ins(format!("sub.rn.{f} {im}, {p}, {q}"));
                self.ins(format!("div.rn.{f} {re}, {re}, {n}"));
                self.ins(format!("div.rn.{f} {im}, {im}, {n}"));
            }
            BinaryOp::Pow
            | BinaryOp::ElemPow
            | BinaryOp::Lt
            | BinaryOp::Le
            | BinaryOp::Gt
            | BinaryOp::Ge
            | BinaryOp::Eq
            | BinaryOp::Ne
            | BinaryOp::And
            | BinaryOp::Or => {
                return unsupported(
                    span,
                    format!("`{}` on complex numbers", op.symbol()),
                    "use `+`, `-`, `*`, `/` on complex numbers, or compute on `real(z)` and \
                     `imag(z)`",
                )
            }
        }
        Ok(Val::Cplx(re, im, t))
    }

    /// `-z`.
    pub fn cplx_neg(&mut self, re: Reg, im: Reg, t: NumTy) -> Val {
        let (a, b) = (self.reg(t.class()), self.reg(t.class()));
        self.ins(format!("neg.{} {a}, {re}", t.arith()));
        self.ins(format!("neg.{} {b}, {im}", t.arith()));
        Val::Cplx(a, b, t)
    }

    /// The built-ins on complex numbers: `complex real imag conj abs angle`; `None` for others.
    pub fn cplx_builtin(
        &mut self,
        b: Builtin,
        vals: &[Val],
        ty: &Type,
        span: Span,
    ) -> Res<Option<Val>> {
        let name = b.name();
        if b == Builtin::Complex {
            let Some(t) = cplx_of(ty) else {
                return unsupported(
                    span,
                    format!("`complex` giving {ty}"),
                    "use `complex(re, im)` where a complex number is expected",
                );
            };
            let (re, im) = match vals {
                [z] => self.cplx_val(z.clone(), t, span)?,
                [a, b] => {
                    let re = self.num_val(a.clone(), t, span)?;
                    (re, self.num_val(b.clone(), t, span)?)
                }
                _ => {
                    return unsupported(
                        span,
                        "`complex` with these arguments",
                        "write `complex(x)` or `complex(re, im)` with real numbers",
                    )
                }
            };
            return Ok(Some(Val::Cplx(re, im, t)));
        }
        let [Val::Cplx(re, im, t)] = vals else {
            if vals.iter().any(|v| matches!(v, Val::Cplx(..))) {
                return unsupported(
                    span,
                    format!("`{name}` on complex numbers"),
                    format!(
                        "apply `{name}` to `real(z)`/`imag(z)`, or use `abs`, `angle`, \
                         `conj`, `real`, `imag` on the complex number"
                    ),
                );
            }
            return Ok(None);
        };
        let (re, im, t) = (*re, *im, *t);
        let f = t.arith();
        Ok(Some(match b {
            Builtin::Real => Val::Num(re, t),
            Builtin::Imag => Val::Num(im, t),
            Builtin::Conj => {
                let d = self.reg(t.class());
                self.ins(format!("neg.{f} {d}, {im}"));
                Val::Cplx(re, d, t)
            }
            Builtin::Abs => Val::Num(self.hypot(re, im, t), t),
            Builtin::Angle => {
                let d = self.math(Builtin::Atan2, &[(im, t), (re, t)], t, span)?;
                Val::Num(d, t)
            }
            _ => {
                return unsupported(
                    span,
                    format!("`{name}` on complex numbers"),
                    format!(
                        "apply `{name}` to `real(z)`/`imag(z)`, or use `abs`, `angle`, `conj`, \
                         `real`, `imag` on the complex number"
                    ),
                )
            }
        }))
    }

    /// `√(x² + y²)` without overflow or underflow on the way.
    fn hypot(&mut self, x: Reg, y: Reg, t: NumTy) -> Reg {
        let f = t.arith();
        let c = t.class();
        let (ax, ay, s, d) = (self.reg(c), self.reg(c), self.reg(c), self.reg(c));
        self.ins(format!("abs.{f} {ax}, {x}"));
        self.ins(format!("abs.{f} {ay}, {y}"));
        self.ins(format!("max.{f} {s}, {ax}, {ay}"));
        let (a, b) = (self.reg(c), self.reg(c));
        self.ins(format!("div.rn.{f} {a}, {ax}, {s}"));
        self.ins(format!("div.rn.{f} {b}, {ay}, {s}"));
        self.ins(format!("mul.rn.{f} {a}, {a}, {a}"));
        self.ins(format!("fma.rn.{f} {a}, {b}, {b}, {a}"));
        self.ins(format!("sqrt.rn.{f} {a}, {a}"));
        self.ins(format!("mul.rn.{f} {d}, {s}, {a}"));
        // 0/0 at the origin; ∞ when a part is infinite (even with a NaN other part).
        let (p, q) = (self.reg(RegClass::Pred), self.reg(RegClass::Pred));
        self.ins(format!("setp.eq.{f} {p}, {s}, {}", t.imm(0.0)));
        self.ins(format!("selp.{f} {d}, {}, {d}, {p}", t.imm(0.0)));
        self.ins(format!("testp.infinite.{f} {q}, {ax}"));
        self.ins(format!("testp.infinite.{f} {p}, {ay}"));
        self.ins(format!("or.pred {p}, {p}, {q}"));
        self.ins(format!("selp.{f} {d}, {}, {d}, {p}", t.imm(f64::INFINITY)));
        d
    }
}
