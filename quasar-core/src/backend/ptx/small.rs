//! Elements of fixed-size vectors and small matrices held in registers (`vec3`, `mat(3, 3)`,
//! `cube(2, 2, 2)`: at most 64 elements, one register each, row-major as the CPU back end's
//! `[T; N]`; manual §4.5: "matrices with size constraints are treated as fixed-length vectors
//! internally"). A subscript is mapped to the register's number as the CPU back end does
//! (`backend/small_layout.rs`, `extents_strides`): one index is linear, a vector indexed as a
//! matrix is a row, and an element outside the shape reads 0 and is not written (`'safe`).

use super::kernel::Ctx;
use super::regs::{NumTy, Reg, RegClass, Val};
use super::{unsupported, Res};
use crate::ir::{BinaryOp, Builtin, Const, Expr, Index};
use crate::sema::types::Type;
use crate::span::Span;

/// Which register of a small array a subscript selects.
pub(super) enum SmallAt {
    /// Known at compile time: the register's number, or `None` outside the shape.
    Const(Option<usize>),
    /// A register holding the number, or -1 outside the shape.
    Reg(Reg),
}

/// The shape of a fixed-size array type (`backend/small_layout.rs`).
pub(super) use crate::backend::small_layout::shape as small_shape;

impl Ctx<'_> {
    /// The register of a small array of `shape` (the base's type) that `indices` select.
    pub fn small_at(&mut self, shape: &[usize], indices: &[Index], span: Span) -> Res<SmallAt> {
        let mut subs = Vec::new();
        for ix in indices {
            let Index::At(e) = ix else {
                return unsupported(
                    span,
                    "this form of indexing a fixed-size vector or matrix",
                    "index with integers (`v[i]`, `m[i, j]`)",
                );
            };
            subs.push(e);
        }
        if subs.is_empty() {
            return unsupported(span, "an empty index", "give at least one index, e.g. `x[0]`");
        }
        let es = crate::backend::small_layout::extents_strides(shape, subs.len());
        let consts: Option<Vec<i64>> = subs
            .iter()
            .map(|e| match e.constant() {
                Some(Const::Int(k)) => Some(*k),
                _ => None,
            })
            .collect();
        if let Some(cs) = consts {
            let mut at = 0usize;
            for (&c, &(ext, stride)) in cs.iter().zip(&es) {
                match usize::try_from(c) {
                    Ok(c) if c < ext => at += c * stride,
                    _ => return Ok(SmallAt::Const(None)),
                }
            }
            return Ok(SmallAt::Const(Some(at)));
        }
        let lin = self.imm_int(NumTy::I32, 0);
        let mut ok: Option<Reg> = None;
        for (e, &(ext, stride)) in subs.iter().zip(&es) {
            let v = self.expr(e)?;
            let i = self.num_val(v, NumTy::I32, e.span)?;
            // Unsigned: a negative subscript is outside too.
            let p = self.reg(RegClass::Pred);
            self.ins(format!("setp.lt.u32 {p}, {i}, {ext}"));
            ok = Some(match ok {
                None => p,
                Some(q) => {
                    let both = self.reg(RegClass::Pred);
                    self.ins(format!("and.pred {both}, {q}, {p}"));
                    both
                }
            });
            self.ins(format!("mad.lo.s32 {lin}, {i}, {stride}, {lin}"));
        }
        if let Some(p) = ok {
            self.ins(format!("selp.s32 {lin}, {lin}, -1, {p}"));
        }
        Ok(SmallAt::Reg(lin))
    }

    /// `size(m)`, `size(m, d)` and `ndims(m)` of a small matrix or cube `m` held in registers:
    /// constants of its type (an extent past the rank is 1).
    pub fn small_size(&mut self, b: Builtin, args: &[Expr], ty: &Type, span: Span) -> Res<Val> {
        let Some(shape) = args.first().and_then(|a| small_shape(&a.ty)) else {
            return unsupported(span, format!("`{b}` without an array"), "pass an array");
        };
        // An array argument of that type (`x : mat(4, 4)`) has its extents at run time, as the
        // CPU reads them: the type is what the caller promised, not what it passed.
        let first = self.expr(&args[0])?;
        if let Val::Array(_) = first {
            let mut vals = vec![first];
            for a in &args[1..] {
                vals.push(self.expr(a)?);
            }
            return self.builtin_vals(b, vals, ty, span);
        }
        let int = |cx: &mut Self, v: usize| cx.imm_int(NumTy::I32, v as i64);
        match (b, args) {
            (Builtin::Ndims, [_]) => Ok(Val::Num(int(self, shape.len()), NumTy::I32)),
            (Builtin::Size, [_]) => {
                Ok(Val::Vec(shape.iter().map(|&n| int(self, n)).collect(), NumTy::I32))
            }
            (Builtin::Size, [_, d]) => {
                if let Some(Const::Int(d)) = d.constant() {
                    let n = usize::try_from(*d).ok().and_then(|d| shape.get(d)).unwrap_or(&1);
                    return Ok(Val::Num(int(self, *n), NumTy::I32));
                }
                let dv = self.expr(d)?;
                let d = self.num_val(dv, NumTy::I32, span)?;
                let out = int(self, 1);
                for (k, &n) in shape.iter().enumerate() {
                    let p = self.reg(RegClass::Pred);
                    self.ins(format!("setp.eq.s32 {p}, {d}, {k}"));
                    self.ins(format!("@{p} mov.s32 {out}, {n}"));
                }
                Ok(Val::Num(out, NumTy::I32))
            }
            _ => unsupported(
                span,
                format!("`{b}` with {} arguments", args.len()),
                "call `size(m)`, `size(m, d)` or `ndims(m)`",
            ),
        }
    }

    /// The `n` elements of the small array `e` in row-major order as `t`: its registers, or
    /// the first `n` elements of an array argument of that fixed shape (`C : mat(3, 3)`).
    fn small_operand(&mut self, e: &Expr, t: NumTy, n: usize) -> Res<Vec<Reg>> {
        let v = self.expr(e)?;
        self.vec_val(v, t, n, e.span)
    }

    /// `l * r`, the matrix product of small arrays of `shape` (`backend/small_product.rs`),
    /// as the CPU computes it: each element a sum of products in `k` order.
    pub fn small_product(
        &mut self,
        (l, r): (&Expr, &Expr),
        shape: (usize, usize, usize),
        ty: &Type,
        span: Span,
    ) -> Res<Val> {
        let (rows, inner, cols) = shape;
        let Some((t, len)) = super::regs::small_vec(ty).filter(|(_, n)| *n == rows * cols) else {
            return unsupported(
                span,
                format!("the matrix product giving {ty}"),
                "multiply small matrices and vectors of known sizes (`C * v`)",
            );
        };
        debug_assert_eq!(len, rows * cols);
        let a = self.small_operand(l, t, rows * inner)?;
        let b = self.small_operand(r, t, inner * cols)?;
        let mut out = Vec::with_capacity(len);
        for i in 0..rows {
            for j in 0..cols {
                let mut acc: Option<Reg> = None;
                for (x, y) in crate::backend::small_product::terms(shape, i, j) {
                    let p = self.arith(BinaryOp::Mul, a[x], b[y], t, span)?;
                    acc = Some(match acc {
                        None => p,
                        Some(s) => self.arith(BinaryOp::Add, s, p, t, span)?,
                    });
                }
                out.push(match acc {
                    Some(s) => s,
                    None => self.imm(t, 0.0),
                });
            }
        }
        Ok(Val::Vec(out, t))
    }

    /// `transpose(m)` of a small matrix or vector `m`.
    pub fn small_transpose(&mut self, m: &Expr, ty: &Type, span: Span) -> Res<Val> {
        let order = small_shape(&m.ty).and_then(|s| crate::backend::small_layout::transposed(&s));
        let (Some(order), Some((t, n))) = (order, super::regs::small_vec(ty)) else {
            return unsupported(span, format!("`transpose` giving {ty}"), "transpose matrices");
        };
        let v = self.expr(m)?;
        let regs = self.vec_val(v, t, n, span)?;
        Ok(Val::Vec(order.iter().map(|&k| regs[k]).collect(), t))
    }

    /// `sum(m, d)`, `prod(m, d)`, `mean(m, d)` of a small array along the constant `d`, each
    /// result element combined in order as on the CPU.
    pub fn small_along(&mut self, b: Builtin, args: &[Expr], ty: &Type, span: Span) -> Res<Val> {
        let (Some(shape), Some(Const::Int(d)), Some((t, len))) =
            (small_shape(&args[0].ty), args[1].constant(), super::regs::small_vec(ty))
        else {
            return unsupported(
                span,
                format!("`{b}(m, d)` of a small array with this `d`"),
                "give the dimension as a constant (`sum(m, 0)`)",
            );
        };
        let groups = crate::backend::small_layout::along(&shape, usize::try_from(*d).unwrap_or(0));
        let n: usize = shape.iter().product();
        if *d < 0 || groups.len() != len {
            return unsupported(span, format!("`{b}(m, d)` giving {ty}"), "reduce along 0 or 1");
        }
        let v = self.expr(&args[0])?;
        let regs = self.vec_val(v, t, n, span)?;
        let op = if b == Builtin::Prod { BinaryOp::Mul } else { BinaryOp::Add };
        let mut out = Vec::with_capacity(len);
        for g in groups {
            let mut acc = regs[g[0]];
            for &k in &g[1..] {
                acc = self.arith(op, acc, regs[k], t, span)?;
            }
            if b == Builtin::Mean {
                let count = self.imm(t, g.len() as f64);
                acc = self.arith(BinaryOp::Div, acc, count, t, span)?;
            }
            out.push(acc);
        }
        Ok(Val::Vec(out, t))
    }

    /// The element of the small array `regs` (of `shape`) at `indices`.
    pub fn small_read(
        &mut self,
        (regs, t): (&[Reg], NumTy),
        shape: &[usize],
        indices: &[Index],
        span: Span,
    ) -> Res<Val> {
        Ok(match self.small_at(shape, indices, span)? {
            SmallAt::Const(Some(k)) if k < regs.len() => Val::Num(regs[k], t),
            SmallAt::Const(_) => Val::Num(self.imm(t, 0.0), t),
            SmallAt::Reg(i) => Val::Num(self.select(regs, t, i), t),
        })
    }

    /// Writes `x` into the small array `regs` (of `shape`) at `indices`.
    pub fn small_write(
        &mut self,
        (regs, t): (&[Reg], NumTy),
        shape: &[usize],
        indices: &[Index],
        x: Reg,
        span: Span,
    ) -> Res<()> {
        match self.small_at(shape, indices, span)? {
            SmallAt::Const(Some(k)) => {
                if let Some(r) = regs.get(k) {
                    self.ins(format!("mov.{} {r}, {x}", t.arith()));
                }
            }
            SmallAt::Const(None) => {}
            SmallAt::Reg(i) => {
                for (k, r) in regs.iter().enumerate() {
                    let p = self.reg(RegClass::Pred);
                    self.ins(format!("setp.eq.s32 {p}, {i}, {k}"));
                    self.ins(format!("@{p} mov.{} {r}, {x}", t.arith()));
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::backend::ptx::tests::instruction_lines;

    #[test]
    fn small_matrices_and_matrix_fields_compile_to_registers() {
        let lines = instruction_lines(
            "type patch : mutable class
                 w : scalar
                 m : mat(2, 3)
             endtype
             function [] = __kernel__ k(a : vec[patch], y : mat, pos : ivec2)
                 m : mat(2, 3) = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
                 m[pos[0], 1] = size(m, 1)
                 a[pos[0]].m[1, pos[1]] = m[1, pos[1]] + a[pos[0]].m[0, 2]
                 y[pos] = sum(m) + ndims(m)
             endfunction
             function [] = run(a : vec[patch], y : mat)
                 parallel_do(size(y), a, y, k)
             endfunction",
        );
        // No local memory: the matrix is six registers, selected by its row-major number.
        assert!(!lines.iter().any(|l| l.contains(".local")), "{lines:#?}");
        assert!(lines.iter().any(|l| l.starts_with("mad.lo.s32")), "{lines:#?}");
        // The field element: `[1, c]` of a 2 x 3 matrix at the field's offset (4 bytes).
        assert!(
            lines.iter().any(|l| l.starts_with("setp.lt.u32") && l.ends_with(", 6")),
            "{lines:#?}"
        );
    }
}
