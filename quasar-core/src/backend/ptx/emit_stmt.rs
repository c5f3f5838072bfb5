//! Statements: assignments (atomic on array elements), structured control flow lowered to
//! labels and predicated branches, barriers.

use super::kernel::local;
use super::regs::{NumTy, RegClass, Val};
use super::{unsupported, Res};
use crate::ir::{self, Expr, ExprKind, LocalId, Place, PlaceKind, Stmt, StmtKind};
use crate::span::Span;
use crate::syntax::ast::AssignOp;

impl Ctx<'_> {
    pub fn block(&mut self, b: &[Stmt]) -> Res<()> {
        for s in b {
            crate::stack::guard(|| self.stmt(s))?;
        }
        Ok(())
    }

    fn stmt(&mut self, s: &Stmt) -> Res<()> {
        match &s.kind {
            StmtKind::Assign { place, op, value } => {
                self.assign(place, *op, value)?;
            }
            StmtKind::Destructure { places, value } => {
                let v = self.expr(value)?;
                let Val::Tuple(items) = v else {
                    return unsupported(s.span, "destructuring a value that is not a tuple");
                };
                for (p, v) in places.iter().zip(items) {
                    if let Some(p) = p {
                        self.store_place(p, v)?;
                    }
                }
            }
            StmtKind::Expr(e) => {
                self.expr(e)?;
            }
            StmtKind::If { cond, then_body, else_body } => {
                let p = self.cond(cond)?;
                let l_else = self.label();
                self.ins(format!("@!{p} bra {l_else}"));
                self.block(then_body)?;
                if else_body.is_empty() {
                    self.place(&l_else);
                } else {
                    let l_end = self.label();
                    self.ins(format!("bra.uni {l_end}"));
                    self.place(&l_else);
                    self.block(else_body)?;
                    self.place(&l_end);
                }
            }
            StmtKind::ForRange { var, start, step, end, body } => {
                self.for_range(*var, start, step, end, body, s.span)?;
            }
            StmtKind::ForEach { var, values, body } => self.for_each(*var, values, body)?,
            StmtKind::While { cond, body } => {
                let (head, exit) = (self.label(), self.label());
                self.place(&head);
                let p = self.cond(cond)?;
                self.ins(format!("@!{p} bra {exit}"));
                self.in_loop(&head, &exit, body)?;
                self.ins(format!("bra.uni {head}"));
                self.place(&exit);
            }
            StmtKind::Repeat { body, until } => {
                let (head, cont, exit) = (self.label(), self.label(), self.label());
                self.place(&head);
                self.in_loop(&cont, &exit, body)?;
                self.place(&cont);
                let p = self.cond(until)?;
                self.ins(format!("@!{p} bra {head}"));
                self.place(&exit);
            }
            StmtKind::Break | StmtKind::Continue => {
                let base = self.frame()?.loop_base;
                let Some((cont, exit)) = self.loops.get(base..).and_then(|l| l.last()).cloned()
                else {
                    return unsupported(s.span, "`break`/`continue` outside a loop");
                };
                let target = if matches!(s.kind, StmtKind::Break) { exit } else { cont };
                self.ins(format!("bra.uni {target}"));
            }
            StmtKind::Return => {
                let l = self.frame()?.ret_label.clone();
                self.ins(format!("bra.uni {l}"));
            }
            StmtKind::Match { scrutinee, arms, default } => {
                self.match_stmt(scrutinee, arms, default)?
            }
            StmtKind::SyncThreads => self.ins("bar.sync 0"),
            StmtKind::Try { .. } => return unsupported(s.span, "`try`/`catch`"),
            StmtKind::Print(_) => return unsupported(s.span, "`print`"),
            StmtKind::Error(_) => return unsupported(s.span, "`error`"),
            StmtKind::Assert { .. } => return unsupported(s.span, "`assert`"),
        }
        Ok(())
    }

    fn in_loop(&mut self, cont: &str, exit: &str, body: &[Stmt]) -> Res<()> {
        self.loops.push((cont.to_string(), exit.to_string()));
        let r = self.block(body);
        self.loops.pop();
        r
    }

    /// `for var = start..step..end` (inclusive); the bounds are evaluated once, and the
    /// direction follows the sign of the step.
    fn for_range(
        &mut self,
        var: LocalId,
        start: &Expr,
        step: &Expr,
        end: &Expr,
        body: &[Stmt],
        span: Span,
    ) -> Res<()> {
        let f = self.frame()?.func;
        let l = local(f, var)?;
        let Some(t) = NumTy::of(&l.ty, self.opts) else {
            return unsupported(span, format!("a `for` loop over {}", l.ty));
        };
        let v = self.expr(start)?;
        let v0 = self.num_val(v, t, start.span)?;
        let sv = self.expr(step)?;
        let st = self.num_val(sv, t, step.span)?;
        let ev = self.expr(end)?;
        let en = self.num_val(ev, t, end.span)?;
        let r = self.reg(t.class());
        self.ins(format!("mov.{} {r}, {v0}", t.arith()));
        self.frame_mut()?.locals.insert(var, Val::Num(r, t));
        let (head, cont, exit) = (self.label(), self.label(), self.label());
        let step_sign = match step.constant() {
            Some(ir::Const::Int(n)) => Some(*n >= 0),
            Some(ir::Const::Scalar(x)) => Some(*x >= 0.0),
            _ => None,
        };
        self.place(&head);
        let p = self.reg(RegClass::Pred);
        let a = t.arith();
        match step_sign {
            Some(true) => self.ins(format!("setp.gt.{a} {p}, {r}, {en}")),
            Some(false) => self.ins(format!("setp.lt.{a} {p}, {r}, {en}")),
            None => {
                // Past the end in the direction of the step.
                let (up, down, neg) =
                    (self.reg(RegClass::Pred), self.reg(RegClass::Pred), self.reg(RegClass::Pred));
                self.ins(format!("setp.gt.{a} {up}, {r}, {en}"));
                self.ins(format!("setp.lt.{a} {down}, {r}, {en}"));
                let zero = t.imm(0.0);
                self.ins(format!("setp.lt.{a} {neg}, {st}, {zero}"));
                self.ins(format!("selp.pred {p}, {down}, {up}, {neg}"));
            }
        }
        self.ins(format!("@{p} bra {exit}"));
        self.in_loop(&cont, &exit, body)?;
        self.place(&cont);
        // The body may have assigned the loop variable: step from its current register.
        let cur = match self.frame()?.locals.get(&var) {
            Some(Val::Num(c, _)) => *c,
            _ => r,
        };
        if cur != r {
            self.ins(format!("mov.{a} {r}, {cur}"));
        }
        self.ins(format!("add.{a} {r}, {r}, {st}"));
        if t.is_narrow() {
            self.wrap(r, t);
        }
        self.ins(format!("bra.uni {head}"));
        self.place(&exit);
        Ok(())
    }

    /// `for v = values` over a fixed-size vector: unrolled.
    fn for_each(&mut self, var: LocalId, values: &Expr, body: &[Stmt]) -> Res<()> {
        let vals = self.expr(values)?;
        let Val::Vec(regs, t) = vals else {
            return unsupported(
                values.span,
                "a `for` loop over an array (not a fixed-size vector)",
            );
        };
        let exit = self.label();
        for r in regs {
            let v = self.reg(t.class());
            self.ins(format!("mov.{} {v}, {r}", t.arith()));
            self.frame_mut()?.locals.insert(var, Val::Num(v, t));
            let next = self.label();
            self.in_loop(&next, &exit, body)?;
            self.place(&next);
        }
        self.place(&exit);
        Ok(())
    }

    fn match_stmt(
        &mut self,
        scrutinee: &Expr,
        arms: &[ir::MatchArm],
        default: &Option<Vec<Stmt>>,
    ) -> Res<()> {
        let sv = self.expr(scrutinee)?;
        let Val::Num(s, st) = sv else {
            return unsupported(scrutinee.span, "`match` on a value that is not a number");
        };
        let end = self.label();
        for arm in arms {
            let next = self.label();
            let mut hit = None;
            for v in &arm.values {
                let x = self.expr(v)?;
                let Val::Num(xr, xt) = x else {
                    return unsupported(v.span, "a `match` case that is not a number");
                };
                let t = NumTy::promote(st, xt);
                let a = self.convert_reg(s, st, t);
                let b = self.convert_reg(xr, xt, t);
                let q = self.reg(RegClass::Pred);
                self.ins(format!("setp.eq.{} {q}, {a}, {b}", t.arith()));
                if let Some(h) = hit {
                    self.ins(format!("or.pred {h}, {h}, {q}"));
                } else {
                    hit = Some(q);
                }
            }
            match hit {
                Some(h) => self.ins(format!("@!{h} bra {next}")),
                None => self.ins(format!("bra.uni {next}")),
            }
            self.block(&arm.body)?;
            self.ins(format!("bra.uni {end}"));
            self.place(&next);
        }
        if let Some(d) = default {
            self.block(d)?;
        }
        self.place(&end);
        Ok(())
    }

    /// `place op= value`; the value of the assignment (the new value).
    pub fn assign(&mut self, place: &Place, op: AssignOp, value: &Expr) -> Res<Val> {
        let v = self.expr(value)?;
        if matches!(op, AssignOp::Assign | AssignOp::Define) {
            return self.store_place(place, v);
        }
        match &place.kind {
            PlaceKind::Local(id) => {
                let cur = self.frame()?.locals.get(id).cloned();
                if let Some(Val::Output(ptr, t)) = cur {
                    return self.output_update(ptr, t, op, v, place.span);
                }
                let Some(cur) = cur else {
                    return unsupported(place.span, "compound assignment to an unset variable");
                };
                let new = self.compound(op, cur, v, &place.ty, place.span)?;
                self.store_place(place, new)
            }
            PlaceKind::Index { base, indices } => {
                let b = self.expr(base)?;
                match b {
                    Val::Array(arr) => self.atomic_update(&arr, indices, op, v, place.span),
                    Val::Vec(..) => {
                        let cur = self.index_value(b.clone(), indices, &place.ty, place.span)?;
                        let new = self.compound(op, cur, v, &place.ty, place.span)?;
                        self.store_vec_elem(base, b, indices, new.clone(), place.span)?;
                        Ok(new)
                    }
                    _ => unsupported(place.span, "indexing a value that is not an array"),
                }
            }
            PlaceKind::Field { .. } => unsupported(place.span, "class fields"),
        }
    }

    /// `cur op v` for a compound assignment on a register value.
    pub fn compound(
        &mut self,
        op: AssignOp,
        cur: Val,
        v: Val,
        ty: &crate::sema::types::Type,
        span: Span,
    ) -> Res<Val> {
        use crate::syntax::ast::BinaryOp as B;
        let bop = match op {
            AssignOp::Add => B::Add,
            AssignOp::Sub => B::Sub,
            AssignOp::Mul | AssignOp::ElemMul => B::ElemMul,
            AssignOp::Div | AssignOp::ElemDiv => B::ElemDiv,
            AssignOp::Pow | AssignOp::ElemPow => B::ElemPow,
            AssignOp::Max => return self.builtin_vals("max", vec![cur, v], ty, span),
            AssignOp::Min => return self.builtin_vals("min", vec![cur, v], ty, span),
            AssignOp::Or | AssignOp::And | AssignOp::Xor => {
                let name = match op {
                    AssignOp::Or => "or",
                    AssignOp::And => "and",
                    _ => "xor",
                };
                return self.bitwise(name, cur, v, ty, span);
            }
            AssignOp::Assign | AssignOp::Define => return Ok(v),
        };
        self.binary_vals(bop, cur, v, ty, span)
    }

    /// Assigns a computed value to a place (plain assignment).
    pub fn store_place(&mut self, place: &Place, v: Val) -> Res<Val> {
        match &place.kind {
            PlaceKind::Local(id) => self.set_local(*id, v, place.span),
            PlaceKind::Index { base, indices } => {
                let b = self.expr(base)?;
                match b {
                    Val::Array(arr) => {
                        let t = arr.elem;
                        let x = self.num_val(v, t, place.span)?;
                        self.store_elem(&arr, indices, x, place.span)?;
                        Ok(Val::Num(x, t))
                    }
                    Val::Vec(..) => self.store_vec_elem(base, b, indices, v, place.span),
                    _ => unsupported(place.span, "indexing a value that is not an array"),
                }
            }
            PlaceKind::Field { .. } => unsupported(place.span, "class fields"),
        }
    }

    /// `local = v`: numbers and vectors are copied into the local's registers (converted to
    /// its type); arrays and closures are references, copied into registers of their own.
    pub fn set_local(&mut self, id: LocalId, v: Val, span: Span) -> Res<Val> {
        let f = self.frame()?.func;
        let l = local(f, id)?;
        let cur = self.frame()?.locals.get(&id).cloned();
        if let Some(Val::Output(ptr, t)) = cur {
            return self.output_update(ptr, t, AssignOp::Assign, v, span);
        }
        // A vector-typed variable may hold an array in memory (`t = shared(64)`): the
        // registers set up for it beforehand are dropped.
        let cur = match (cur, &v) {
            (Some(Val::Num(..) | Val::Vec(..)), Val::Array(_)) => None,
            (cur, _) => cur,
        };
        let new = match (cur, v) {
            (Some(Val::Num(r, t)), v) => {
                let x = self.num_val(v, t, span)?;
                self.ins(format!("mov.{} {r}, {x}", t.arith()));
                Val::Num(r, t)
            }
            (Some(Val::Vec(regs, t)), v) => {
                let xs = self.vec_val(v, t, regs.len(), span)?;
                for (r, x) in regs.iter().zip(xs) {
                    self.ins(format!("mov.{} {r}, {x}", t.arith()));
                }
                Val::Vec(regs, t)
            }
            (None, Val::Num(x, xt)) => {
                let t = NumTy::of(&l.ty, self.opts).unwrap_or(xt);
                let y = self.convert_reg(x, xt, t);
                let r = self.reg(t.class());
                self.ins(format!("mov.{} {r}, {y}", t.arith()));
                Val::Num(r, t)
            }
            (None, Val::Vec(xs, t)) => {
                let regs: Vec<_> = xs
                    .iter()
                    .map(|x| {
                        let r = self.reg(t.class());
                        self.ins(format!("mov.{} {r}, {x}", t.arith()));
                        r
                    })
                    .collect();
                Val::Vec(regs, t)
            }
            (Some(Val::Array(a)), Val::Array(b))
                if a.elem == b.elem && a.dims.len() == b.dims.len() =>
            {
                self.ins(format!("mov.b64 {}, {}", a.ptr, b.ptr));
                for (x, y) in a.dims.iter().zip(&b.dims) {
                    self.ins(format!("mov.b32 {x}, {y}"));
                }
                if a.space != b.space || a.access != b.access {
                    return unsupported(span, "a variable holding arrays of different kinds");
                }
                Val::Array(a)
            }
            (None, Val::Array(b)) => {
                let mut a = b.clone();
                a.ptr = self.reg(RegClass::B64);
                self.ins(format!("mov.b64 {}, {}", a.ptr, b.ptr));
                for d in a.dims.iter_mut() {
                    let r = self.reg(RegClass::B32);
                    self.ins(format!("mov.b32 {r}, {d}"));
                    *d = r;
                }
                if let Some(access) = l.ty.as_array().and_then(|t| t.mods.access) {
                    a.access = access;
                }
                a.name.clone_from(&l.name);
                Val::Array(a)
            }
            (None, v @ Val::Closure(_)) => v,
            _ => return unsupported(span, format!("assigning to `{}` of type {}", l.name, l.ty)),
        };
        self.frame_mut()?.locals.insert(id, new.clone());
        Ok(new)
    }

    /// Combines a value into a kernel output argument (atomically: every thread contributes).
    fn output_update(
        &mut self,
        ptr: super::regs::Reg,
        t: NumTy,
        op: AssignOp,
        v: Val,
        span: Span,
    ) -> Res<Val> {
        let x = self.num_val(v, t, span)?;
        match op {
            AssignOp::Assign | AssignOp::Define => {
                // `Reduce::Assign`: a thread assigning a non-zero value wins.
                let p = self.reg(RegClass::Pred);
                self.ins(format!("setp.ne.{} {p}, {x}, {}", t.arith(), t.imm(0.0)));
                self.ins(format!("@{p} st.global.{} [{ptr}], {x}", t.mem()));
            }
            _ => {
                self.atomic_at(ptr, super::regs::Space::Global, t, op, x, span)?;
            }
        }
        Ok(Val::Num(x, t))
    }

    /// Writes element(s) of a vector held in registers.
    fn store_vec_elem(
        &mut self,
        base: &Expr,
        b: Val,
        indices: &[ir::Index],
        v: Val,
        span: Span,
    ) -> Res<Val> {
        let Val::Vec(regs, t) = b else {
            return unsupported(span, "indexing a value that is not a vector");
        };
        if !matches!(base.kind, ExprKind::Local(_)) {
            return unsupported(span, "assigning to an element of a temporary vector");
        }
        let [ir::Index::At(ix)] = indices else {
            return unsupported(span, "this form of vector indexing");
        };
        let x = self.num_val(v, t, span)?;
        if let Some(ir::Const::Int(k)) = ix.constant() {
            if let Some(r) = usize::try_from(*k).ok().and_then(|k| regs.get(k)) {
                self.ins(format!("mov.{} {r}, {x}", t.arith()));
            }
            return Ok(Val::Num(x, t));
        }
        let iv = self.expr(ix)?;
        let i = self.num_val(iv, NumTy::I32, ix.span)?;
        for (k, r) in regs.iter().enumerate() {
            let p = self.reg(RegClass::Pred);
            self.ins(format!("setp.eq.s32 {p}, {i}, {k}"));
            self.ins(format!("@{p} mov.{} {r}, {x}", t.arith()));
        }
        Ok(Val::Num(x, t))
    }
}

use super::kernel::Ctx;
