//! Expressions: constants, locals, conversions with Quasar's promotions (operands are
//! converted to the expression's type; comparisons give `int` 0/1; `int / int` is a
//! `scalar`), conditions as predicates with short-circuit `&&`/`||`, vectors in registers,
//! and calls (device functions are inlined). The operators themselves are `operators.rs`.

use super::kernel::{local, Ctx};
use super::operators::small_power;
use super::regs::{cplx_of, small_vec, Closure, NumTy, Reg, RegClass, Val};
use super::{unsupported, Res};
use crate::ir::{BinaryOp, UnaryOp};
use crate::ir::{Const, Expr, ExprKind};
use crate::sema::types::Type;
use crate::span::Span;

impl Ctx<'_> {
    pub fn expr(&mut self, e: &Expr) -> Res<Val> {
        crate::stack::guard(|| self.expr_inner(e))
    }

    fn expr_inner(&mut self, e: &Expr) -> Res<Val> {
        match &e.kind {
            ExprKind::Const(c) => self.constant(c, &e.ty, e.span),
            ExprKind::Local(id) => match self.frame()?.locals.get(id) {
                Some(Val::Output(..)) => unsupported(
                    e.span,
                    "reading a kernel output argument",
                    "keep the partial result in a local variable and combine it into the \
                     output with `+=`, `^^=` or `__=`",
                ),
                Some(v) => Ok(v.clone()),
                None => {
                    let f = self.frame()?.func;
                    let name = local(f, *id).map(|l| l.name.clone()).unwrap_or_default();
                    unsupported(
                        e.span,
                        format!("the use of `{name}` before it is assigned"),
                        format!("assign `{name}` a value on every path before this use"),
                    )
                }
            },
            ExprKind::FunctionRef(id) => {
                Ok(Val::Closure(Closure { function: *id, captures: Vec::new() }))
            }
            ExprKind::Closure { function, captures } => {
                let mut vals = Vec::new();
                for c in captures {
                    vals.push(self.expr(c)?);
                }
                Ok(Val::Closure(Closure { function: *function, captures: vals }))
            }
            ExprKind::Unary { op, operand } => {
                let v = self.expr(operand)?;
                match op {
                    UnaryOp::Plus => Ok(v),
                    UnaryOp::Neg => self.negate(v, &e.ty, e.span),
                    UnaryOp::Not => {
                        let p = self.cond(e)?;
                        Ok(Val::Num(self.pred_to_int(p), NumTy::I32))
                    }
                }
            }
            ExprKind::Binary { op, lhs, rhs } => match op {
                BinaryOp::And
                | BinaryOp::Or
                | BinaryOp::Lt
                | BinaryOp::Le
                | BinaryOp::Gt
                | BinaryOp::Ge
                | BinaryOp::Eq
                | BinaryOp::Ne => {
                    let p = self.cond(e)?;
                    Ok(Val::Num(self.pred_to_int(p), NumTy::I32))
                }
                BinaryOp::Pow | BinaryOp::ElemPow if small_power(rhs).is_some() => {
                    let a = self.expr(lhs)?;
                    let n = small_power(rhs).unwrap_or(1);
                    self.power_const(a, n, &e.ty, e.span)
                }
                BinaryOp::Add
                | BinaryOp::Sub
                | BinaryOp::Mul
                | BinaryOp::Div
                | BinaryOp::Pow
                | BinaryOp::ElemMul
                | BinaryOp::ElemDiv
                | BinaryOp::ElemPow => {
                    if *op == BinaryOp::Mul && small_vec(&e.ty).is_some() {
                        if let Some(s) = crate::backend::small_product::shape(&lhs.ty, &rhs.ty) {
                            return self.small_product((lhs, rhs), s, &e.ty, e.span);
                        }
                    }
                    let a = self.expr(lhs)?;
                    let b = self.expr(rhs)?;
                    if *op == BinaryOp::Mul
                        && matches!(a, Val::Vec(..))
                        && matches!(b, Val::Vec(..))
                    {
                        return unsupported(
                            e.span,
                            "matrix products of vectors",
                            "use `dotprod(a, b)` for the inner product, or `.*` for \
                             element-wise products",
                        );
                    }
                    self.binary_vals(*op, a, b, &e.ty, e.span)
                }
            },
            ExprKind::Convert(x) => {
                let v = self.expr(x)?;
                self.convert_to(v, &e.ty, e.span)
            }
            ExprKind::Call { callee, args } => self.call(callee, args, e),
            ExprKind::Index { base, indices } => {
                let b = self.expr(base)?;
                self.index_value((b, &base.ty), indices, &e.ty, e.span, e.id)
            }
            ExprKind::Matrix(items) => self.matrix(items, &e.ty, e.span),
            ExprKind::Ternary { cond, then, otherwise } => {
                let p = self.cond(cond)?;
                let (l_else, l_end) = (self.label(), self.label());
                self.ins(format!("@!{p} bra {l_else}"));
                let a = self.expr(then)?;
                let a = self.convert_to(a, &e.ty, then.span)?;
                let out = self.fresh_like(&a, e.span)?;
                self.copy_into(&out, a.clone(), e.span)?;
                self.ins(format!("bra.uni {l_end}"));
                self.place(&l_else);
                let b = self.expr(otherwise)?;
                self.copy_into(&out, b, e.span)?;
                self.place(&l_end);
                Ok(out)
            }
            ExprKind::Assign { place, op, value } => self.assign(place, *op, value),
            ExprKind::Sequence(xs) => {
                let mut last = Val::Void;
                for x in xs {
                    last = self.expr(x)?;
                }
                Ok(last)
            }
            ExprKind::TupleField { tuple, index } => match self.expr(tuple)? {
                Val::Tuple(mut items) if *index < items.len() => Ok(items.swap_remove(*index)),
                v if *index == 0 => Ok(v),
                _ => unsupported(
                    e.span,
                    "this result of a call",
                    "assign the call's results to variables first (`[a, b] = f(x)`)",
                ),
            },
            ExprKind::EnumValue { value, .. } => {
                Ok(Val::Num(self.imm_int(NumTy::I32, *value), NumTy::I32))
            }
            ExprKind::TypeValue => Ok(Val::Void),
            ExprKind::BuiltinRef(name) => unsupported(
                e.span,
                format!("`{name}` as a value"),
                format!(
                    "call `{name}` directly, or wrap it in a `__device__` function and pass \
                     that"
                ),
            ),
            ExprKind::ParallelDo { .. } => unsupported(
                e.span,
                "`parallel_do` inside a kernel",
                "launch the inner work from host code, or write it as a loop inside the \
                 kernel",
            ),
            ExprKind::Field { base, field } if matches!(base.ty, Type::ThreadBlock(_)) => {
                self.thread_block_field(base, field, e.span)
            }
            ExprKind::Field { base, field } => {
                let b = self.expr(base)?;
                self.class_field(b, field, e.span)
            }
            ExprKind::Construct { fields, .. } => self.construct(fields, &e.ty, e.span),
            ExprKind::Cell(_) => unsupported(
                e.span,
                "cell arrays",
                "use an array of numbers (`zeros(n)`) or several arrays instead of the \
                 cell array",
            ),
            // A range of constant length is a small vector (`n + (0..3)`), as on the CPU.
            ExprKind::Range { .. }
                if crate::ir::slice::constant_range_values(e).is_some()
                    && small_vec(&e.ty).is_some() =>
            {
                let (t, n) = small_vec(&e.ty).unwrap_or((NumTy::I32, 0));
                let xs = crate::ir::slice::constant_range_values(e).unwrap_or_default();
                if xs.len() != n {
                    return unsupported(e.span, "this range as a value", "use constant bounds");
                }
                Ok(Val::Vec(xs.into_iter().map(|k| self.imm(t, k as f64)).collect(), t))
            }
            ExprKind::Range { .. } => unsupported(
                e.span,
                "ranges as values of a length not known when compiling",
                "use the range in a `for` loop or a slice (`for i = 0..n-1`, `x[a..b]`)",
            ),
            ExprKind::Spread(_) => {
                unsupported(e.span, "`...` spreading", "pass the values one by one")
            }
        }
    }

    fn constant(&mut self, c: &Const, ty: &Type, span: Span) -> Res<Val> {
        let t = NumTy::of(ty);
        match c {
            Const::Int(i) => {
                let t = t.unwrap_or(NumTy::I32);
                Ok(Val::Num(self.imm_int(t, *i), t))
            }
            Const::Scalar(x) => {
                // A real constant of a complex type is held in the precision of its parts;
                // of another type, in `f64` (exact) until it is converted.
                let t = t.or(cplx_of(ty)).unwrap_or(NumTy::F64);
                Ok(Val::Num(self.imm(t, *x), t))
            }
            Const::Complex(re, im) => {
                let t = cplx_of(ty).or(NumTy::of(ty)).unwrap_or(NumTy::F64);
                Ok(Val::Cplx(self.imm(t, *re), self.imm(t, *im), t))
            }
            Const::Str(_) => unsupported(
                span,
                "strings",
                "use `error`/`assert` with a string literal, or move the text handling \
                 to host code",
            ),
            Const::Null => unsupported(
                span,
                "`nullptr`",
                "pass a valid array, or test for the missing value in host code",
            ),
        }
    }

    /// `p ? 1 : 0` as an `int`.
    pub fn pred_to_int(&mut self, p: Reg) -> Reg {
        let r = self.reg(RegClass::B32);
        self.ins(format!("selp.s32 {r}, 1, 0, {p}"));
        r
    }

    /// A condition as a predicate register (non-zero is true).
    pub fn cond(&mut self, e: &Expr) -> Res<Reg> {
        crate::stack::guard(|| self.cond_inner(e))
    }

    fn cond_inner(&mut self, e: &Expr) -> Res<Reg> {
        match &e.kind {
            ExprKind::Unary { op: UnaryOp::Not, operand } => {
                let p = self.cond(operand)?;
                let q = self.reg(RegClass::Pred);
                self.ins(format!("not.pred {q}, {p}"));
                Ok(q)
            }
            ExprKind::Binary { op: op @ (BinaryOp::And | BinaryOp::Or), lhs, rhs } => {
                // Short-circuit: the right operand is evaluated only when it decides.
                let p = self.cond(lhs)?;
                let res = self.reg(RegClass::Pred);
                self.ins(format!("mov.pred {res}, {p}"));
                let skip = self.label();
                let neg = if *op == BinaryOp::And { "!" } else { "" };
                self.ins(format!("@{neg}{res} bra {skip}"));
                let q = self.cond(rhs)?;
                self.ins(format!("mov.pred {res}, {q}"));
                self.place(&skip);
                Ok(res)
            }
            ExprKind::Binary { op, lhs, rhs }
                if matches!(
                    op,
                    BinaryOp::Lt
                        | BinaryOp::Le
                        | BinaryOp::Gt
                        | BinaryOp::Ge
                        | BinaryOp::Eq
                        | BinaryOp::Ne
                ) =>
            {
                let a = self.expr(lhs)?;
                let b = self.expr(rhs)?;
                let (Val::Num(ar, at), Val::Num(br, bt)) = (a, b) else {
                    return unsupported(
                        e.span,
                        "comparisons of vectors or arrays",
                        "compare elements one at a time (`x[i] < y[i]`), or use \
                         `all`/`any` of element-wise results in host code",
                    );
                };
                let t = NumTy::promote(at, bt);
                let x = self.convert_reg(ar, at, t);
                let y = self.convert_reg(br, bt, t);
                let cmp = match (op, t.is_float()) {
                    (BinaryOp::Lt, _) => "lt",
                    (BinaryOp::Le, _) => "le",
                    (BinaryOp::Gt, _) => "gt",
                    (BinaryOp::Ge, _) => "ge",
                    (BinaryOp::Eq, _) => "eq",
                    // NaN differs from everything.
                    (_, true) => "neu",
                    _ => "ne",
                };
                let p = self.reg(RegClass::Pred);
                self.ins(format!("setp.{cmp}.{} {p}, {x}, {y}", t.arith()));
                Ok(p)
            }
            _ => {
                let v = self.expr(e)?;
                let Val::Num(r, t) = v else {
                    return unsupported(
                        e.span,
                        "a condition that is not a number",
                        "use a number as the condition (`if x[pos] > 0`, `if any(v > 0)` \
                         in host code)",
                    );
                };
                Ok(self.nonzero(r, t))
            }
        }
    }

    /// `r != 0` as a predicate. For floats the compare is unordered (`neu`): NaN is true, as
    /// on the CPU (`x != 0.0`); an ordered `ne` would make NaN false on the GPU only.
    pub fn nonzero(&mut self, r: Reg, t: NumTy) -> Reg {
        let cmp = if t.is_float() { "neu" } else { "ne" };
        let p = self.reg(RegClass::Pred);
        self.ins(format!("setp.{cmp}.{} {p}, {r}, {}", t.arith(), t.imm(0.0)));
        p
    }

    /// Converts `r` from `from` to `to` (C casts: float → int truncates and saturates,
    /// int → narrower int wraps).
    pub fn convert_reg(&mut self, r: Reg, from: NumTy, to: NumTy) -> Reg {
        if from == to {
            return r;
        }
        // `half` values are exact `f32` values in their registers.
        if from == NumTy::F16 {
            return self.convert_reg(r, NumTy::F32, to);
        }
        if to == NumTy::F16 {
            let x = self.convert_reg(r, from, NumTy::F32);
            return self.round_f16(x);
        }
        let d = self.reg(to.class());
        match (from.is_float(), to.is_float()) {
            (true, true) => {
                let rnd = if to == NumTy::F32 { ".rn" } else { "" };
                self.ins(format!("cvt{rnd}.{}.{} {d}, {r}", to.arith(), from.arith()));
            }
            (false, true) => self.ins(format!("cvt.rn.{}.{} {d}, {r}", to.arith(), from.arith())),
            (true, false) => self.ins(format!("cvt.rzi.{}.{} {d}, {r}", to.mem(), from.arith())),
            (false, false) => {
                let (fb, tb) = (from.class() == RegClass::B64, to.class() == RegClass::B64);
                match (fb, tb) {
                    (false, true) => {
                        self.ins(format!("cvt.{}.{} {d}, {r}", to.arith(), from.arith()))
                    }
                    (true, false) => self.ins(format!("cvt.u32.u64 {d}, {r}")),
                    _ => self.ins(format!("mov.b{} {d}, {r}", if tb { 64 } else { 32 })),
                }
                if to.is_narrow() {
                    self.wrap(d, to);
                }
            }
        }
        d
    }

    /// `x` (an `f32`) rounded to half precision, in an `f32` register.
    pub fn round_f16(&mut self, x: Reg) -> Reg {
        let h = self.reg(RegClass::B16);
        let d = self.reg(RegClass::F32);
        self.ins(format!("cvt.rn.f16.f32 {h}, {x}"));
        self.ins(format!("cvt.f32.f16 {d}, {h}"));
        d
    }

    /// Re-extends a narrow integer in its 32-bit register after arithmetic.
    pub fn wrap(&mut self, r: Reg, t: NumTy) {
        match t {
            NumTy::I8 => self.ins(format!("cvt.s32.s8 {r}, {r}")),
            NumTy::I16 => self.ins(format!("cvt.s32.s16 {r}, {r}")),
            NumTy::U8 => self.ins(format!("and.b32 {r}, {r}, 255")),
            NumTy::U16 => self.ins(format!("and.b32 {r}, {r}, 65535")),
            _ => {}
        }
    }

    /// A number of type `t` from a value (a one-element vector counts as a number).
    pub fn num_val(&mut self, v: Val, t: NumTy, span: Span) -> Res<Reg> {
        match v {
            Val::Num(r, from) => Ok(self.convert_reg(r, from, t)),
            Val::Vec(rs, from) if rs.len() == 1 => Ok(self.convert_reg(rs[0], from, t)),
            _ => unsupported(
                span,
                "a vector or array where a number is expected",
                "read one element (`x[pos]`, `v[0]`)",
            ),
        }
    }

    /// `n` elements of type `t` (a number is broadcast).
    pub fn vec_val(&mut self, v: Val, t: NumTy, n: usize, span: Span) -> Res<Vec<Reg>> {
        match v {
            Val::Num(r, from) => {
                let x = self.convert_reg(r, from, t);
                Ok(vec![x; n])
            }
            Val::Vec(rs, from) if rs.len() == n => {
                Ok(rs.into_iter().map(|r| self.convert_reg(r, from, t)).collect())
            }
            // An array argument of a small fixed shape (`ctr : ivec3`): its first `n`
            // elements in row-major order, as the CPU copies it into `[T; N]`.
            Val::Array(arr) if !arr.complex && arr.class.is_none() => {
                let mut out = Vec::with_capacity(n);
                for k in 0..n {
                    let i = self.imm_int(NumTy::I32, k as i64);
                    let el = self.element_at(&arr, vec![i], span, false)?;
                    let x = self.load_at(&arr, &el);
                    out.push(self.convert_reg(x, arr.elem, t));
                }
                Ok(out)
            }
            _ => unsupported(
                span,
                "vectors of different lengths",
                "use fixed-size vectors of one length on both sides",
            ),
        }
    }

    /// Converts a value to the type `ty` (a number or a fixed-size vector).
    pub fn convert_to(&mut self, v: Val, ty: &Type, span: Span) -> Res<Val> {
        if let Some(t) = cplx_of(ty) {
            let (re, im) = self.cplx_val(v, t, span)?;
            return Ok(Val::Cplx(re, im, t));
        }
        if let Some(t) = NumTy::of(ty) {
            return Ok(Val::Num(self.num_val(v, t, span)?, t));
        }
        if let Some((t, n)) = small_vec(ty) {
            return Ok(Val::Vec(self.vec_val(v, t, n, span)?, t));
        }
        if let Type::Class(_) = ty {
            let lay = super::class::layout_of(self.module, ty, span)?;
            return self.class_val(v, &lay, span);
        }
        match v {
            v @ (Val::Array(_) | Val::Closure(_) | Val::FnValue(_) | Val::Void | Val::Tuple(_)) => {
                Ok(v)
            }
            _ => unsupported(
                span,
                format!("values of type {ty}"),
                "use numbers, complex numbers, fixed-size vectors or arrays",
            ),
        }
    }

    /// Fresh registers with the shape of `v`.
    pub fn fresh_like(&mut self, v: &Val, span: Span) -> Res<Val> {
        match v {
            Val::Num(_, t) => Ok(Val::Num(self.reg(t.class()), *t)),
            Val::Cplx(_, _, t) => Ok(Val::Cplx(self.reg(t.class()), self.reg(t.class()), *t)),
            Val::Vec(rs, t) => Ok(Val::Vec(rs.iter().map(|_| self.reg(t.class())).collect(), *t)),
            Val::Class(fields) => {
                let mut out = Vec::new();
                for (n, f) in fields {
                    out.push((n.clone(), self.fresh_like(f, span)?));
                }
                Ok(Val::Class(out))
            }
            _ => unsupported(
                span,
                "a conditional expression that is not a number or vector",
                "use `if`/`else` statements, or conditional expressions giving numbers \
                 or fixed-size vectors",
            ),
        }
    }

    pub fn copy_into(&mut self, dst: &Val, v: Val, span: Span) -> Res<()> {
        match dst {
            Val::Num(d, t) => {
                let x = self.num_val(v, *t, span)?;
                self.ins(format!("mov.{} {d}, {x}", t.arith()));
            }
            Val::Cplx(dr, di, t) => {
                let (re, im) = self.cplx_val(v, *t, span)?;
                self.ins(format!("mov.{} {dr}, {re}", t.arith()));
                self.ins(format!("mov.{} {di}, {im}", t.arith()));
            }
            Val::Vec(ds, t) => {
                let xs = self.vec_val(v, *t, ds.len(), span)?;
                for (d, x) in ds.iter().zip(xs) {
                    self.ins(format!("mov.{} {d}, {x}", t.arith()));
                }
            }
            Val::Class(ds) => {
                let Val::Class(mut xs) = v else {
                    return unsupported(
                        span,
                        "assigning a value that is not a class value to a class variable",
                        "assign a value of the variable's class",
                    );
                };
                for (n, d) in ds {
                    let Some(k) = xs.iter().position(|(m, _)| m == n) else {
                        return unsupported(
                            span,
                            format!("a class value without the field `{n}`"),
                            "assign a value of the variable's class",
                        );
                    };
                    let x = xs.swap_remove(k).1;
                    self.copy_into(d, x, span)?;
                }
            }
            _ => {
                return unsupported(
                    span,
                    "this assignment",
                    "assign numbers, complex numbers or fixed-size vectors to variables",
                )
            }
        }
        Ok(())
    }

    /// `[a, b, c]`: a fixed-size vector (vectors among the items are spliced in).
    fn matrix(&mut self, items: &[Expr], ty: &Type, span: Span) -> Res<Val> {
        let Some((t, n)) = small_vec(ty) else {
            return unsupported(
                span,
                format!("the matrix literal of type {ty}"),
                "write a fixed-size vector of numbers (`[a, b, c]`, up to 64 elements)",
            );
        };
        // A small matrix or cube is written row by row (`[[1, 2], [3, 4]]`), its registers in
        // row-major order: each item one row (one slice of the first dimension).
        let shape = super::small::small_shape(ty).unwrap_or_default();
        if shape.len() >= 2 {
            let row: usize = shape[1..].iter().product();
            let rows_ok = items.len() == shape[0]
                && items.iter().all(|it| small_vec(&it.ty).is_some_and(|(_, k)| k == row));
            if !rows_ok {
                return unsupported(
                    span,
                    format!("the matrix literal of type {ty} built from other than its rows"),
                    "write a small matrix row by row (`[[1, 2], [3, 4]]`)",
                );
            }
        }
        let mut regs = Vec::new();
        for it in items {
            match self.expr(it)? {
                Val::Num(r, from) => regs.push(self.convert_reg(r, from, t)),
                Val::Vec(rs, from) => {
                    for r in rs {
                        regs.push(self.convert_reg(r, from, t));
                    }
                }
                _ => {
                    return unsupported(
                        it.span,
                        "this element of a matrix literal",
                        "use numbers or fixed-size vectors as the elements",
                    )
                }
            }
        }
        if regs.len() != n {
            return unsupported(
                span,
                "a matrix literal of unexpected length",
                "give the literal as many elements as its type (`vec3` needs three)",
            );
        }
        Ok(Val::Vec(regs, t))
    }
}
