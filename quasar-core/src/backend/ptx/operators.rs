//! Operators on values in registers: negation, arithmetic with Quasar's promotions
//! (element-wise on fixed-size vectors, complex numbers in `complex.rs`), bitwise operations
//! and small constant powers.

use super::kernel::Ctx;
use super::regs::{cplx_of, small_vec, NumTy, Reg, Val};
use super::{unsupported, Res};
use crate::ir::{BinaryOp, Const, Expr};
use crate::sema::types::Type;
use crate::span::Span;

impl Ctx<'_> {
    pub(super) fn negate(&mut self, v: Val, ty: &Type, span: Span) -> Res<Val> {
        let v = self.convert_to(v, ty, span)?;
        let neg = |cx: &mut Self, r: Reg, t: NumTy| {
            let d = cx.reg(t.class());
            if t.is_float() || t.is_signed() {
                cx.ins(format!("neg.{} {d}, {r}", t.arith()));
            } else {
                cx.ins(format!("sub.{} {d}, 0, {r}", t.arith()));
            }
            cx.wrap(d, t);
            d
        };
        match v {
            Val::Num(r, t) => Ok(Val::Num(neg(self, r, t), t)),
            Val::Cplx(re, im, t) => Ok(self.cplx_neg(re, im, t)),
            Val::Vec(rs, t) => Ok(Val::Vec(rs.into_iter().map(|r| neg(self, r, t)).collect(), t)),
            _ => unsupported(
                span,
                format!("negating {ty}"),
                "negate numbers, complex numbers or fixed-size vectors (one element: \
                 `-x[pos]`)",
            ),
        }
    }

    /// `a op b` with the result type `ty` (element-wise on vectors, numbers broadcast).
    pub fn binary_vals(&mut self, op: BinaryOp, a: Val, b: Val, ty: &Type, span: Span) -> Res<Val> {
        if let Some(t) = cplx_of(ty) {
            return self.cplx_binary(op, a, b, t, span);
        }
        if let Some(t) = NumTy::of(ty) {
            let x = self.num_val(a, t, span)?;
            let y = self.num_val(b, t, span)?;
            return Ok(Val::Num(self.arith(op, x, y, t, span)?, t));
        }
        if let Some((t, n)) = small_vec(ty) {
            let xs = self.vec_val(a, t, n, span)?;
            let ys = self.vec_val(b, t, n, span)?;
            let mut out = Vec::new();
            for (x, y) in xs.into_iter().zip(ys) {
                out.push(self.arith(op, x, y, t, span)?);
            }
            return Ok(Val::Vec(out, t));
        }
        unsupported(
            span,
            format!("arithmetic on {ty}"),
            "compute on numbers or fixed-size vectors (elements such as `x[pos]`), and \
             do whole-array arithmetic in host code",
        )
    }

    /// One arithmetic instruction (or routine) on numbers of type `t`.
    pub fn arith(&mut self, op: BinaryOp, x: Reg, y: Reg, t: NumTy, span: Span) -> Res<Reg> {
        if t == NumTy::F16 {
            let d = self.arith(op, x, y, NumTy::F32, span)?;
            return Ok(self.round_f16(d));
        }
        let a = t.arith();
        let d = self.reg(t.class());
        match op {
            BinaryOp::Add => self.ins(format!("add.{a} {d}, {x}, {y}")),
            BinaryOp::Sub => self.ins(format!("sub.{a} {d}, {x}, {y}")),
            BinaryOp::Mul | BinaryOp::ElemMul if t.is_float() => {
                self.ins(format!("mul.{a} {d}, {x}, {y}"))
            }
            BinaryOp::Mul | BinaryOp::ElemMul => self.ins(format!("mul.lo.{a} {d}, {x}, {y}")),
            BinaryOp::Div | BinaryOp::ElemDiv if t.is_float() => {
                self.ins(format!("div.rn.{a} {d}, {x}, {y}"))
            }
            BinaryOp::Div | BinaryOp::ElemDiv => self.ins(format!("div.{a} {d}, {x}, {y}")),
            BinaryOp::Pow | BinaryOp::ElemPow => return self.pow(x, y, t, span),
            // Comparisons and logic give predicates (`cond`), never an arithmetic result.
            BinaryOp::Lt
            | BinaryOp::Le
            | BinaryOp::Gt
            | BinaryOp::Ge
            | BinaryOp::Eq
            | BinaryOp::Ne
            | BinaryOp::And
            | BinaryOp::Or => {
                return unsupported(
                    span,
                    format!("`{}` as an arithmetic operation", op.symbol()),
                    "use `+`, `-`, `*`, `/`, `^`, `%`, `<<`, `>>` on numbers",
                )
            }
        }
        if t.is_narrow() {
            self.wrap(d, t);
        }
        Ok(d)
    }

    /// Bitwise `and`/`or`/`xor` of integers.
    pub fn bitwise(&mut self, name: &str, a: Val, b: Val, ty: &Type, span: Span) -> Res<Val> {
        let Some(t) = NumTy::of(ty).filter(|t| !t.is_float()) else {
            return unsupported(
                span,
                format!("bitwise `{name}` on {ty}"),
                "use bitwise operations on integers (`int`, `uint32`, …), converting \
                 with `int(x)` first",
            );
        };
        let x = self.num_val(a, t, span)?;
        let y = self.num_val(b, t, span)?;
        let d = self.reg(t.class());
        self.ins(format!("{name}.{} {d}, {x}, {y}", t.bits()));
        Ok(Val::Num(d, t))
    }

    /// `a ^ n` for a small integer constant `n`: multiplications (exact as the CPU's `powi`
    /// for 2 and 3, and much faster than the general routine).
    pub(super) fn power_const(&mut self, a: Val, n: i64, ty: &Type, span: Span) -> Res<Val> {
        let one = |cx: &mut Self, t: NumTy| Val::Num(cx.imm(t, 1.0), t);
        let t = match (NumTy::of(ty), small_vec(ty)) {
            (Some(t), _) | (None, Some((t, _))) => t,
            _ if cplx_of(ty).is_some() => NumTy::I32,
            _ => {
                return unsupported(
                    span,
                    format!("`^` giving {ty}"),
                    "raise numbers or fixed-size vectors to a power (`x[pos] ^ 2`)",
                )
            }
        };
        let base = self.convert_to(a, ty, span)?;
        let mut acc = one(self, t);
        for _ in 0..n.unsigned_abs() {
            acc = self.binary_vals(BinaryOp::ElemMul, acc, base.clone(), ty, span)?;
        }
        if n < 0 {
            let o = one(self, t);
            acc = self.binary_vals(BinaryOp::ElemDiv, o, acc, ty, span)?;
        }
        Ok(acc)
    }
}

/// The exponent of `x ^ n` when it is an integer constant with `|n| <= 4`.
pub(super) fn small_power(e: &Expr) -> Option<i64> {
    match e.constant()? {
        Const::Int(n) if n.abs() <= 4 => Some(*n),
        Const::Scalar(x) if x.fract() == 0.0 && x.abs() <= 4.0 => Some(*x as i64),
        _ => None,
    }
}
