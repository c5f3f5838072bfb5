//! Assignments: to variables (copied into their registers), to array elements (stores; on
//! compound assignment atomic, as kernels require), to elements of vectors in registers, and
//! to kernel output arguments (combined atomically across threads).

use super::kernel::{local, Ctx};
use super::regs::{cplx_of, NumTy, Reg, RegClass, Space, Val};
use super::{unsupported, Res};
use crate::ir::AssignOp;
use crate::ir::{self, Expr, ExprKind, LocalId, Place, PlaceKind};
use crate::sema::types::Type;
use crate::span::Span;

impl Ctx<'_> {
    /// `place op= value`; the value of the assignment (the new value).
    pub fn assign(&mut self, place: &Place, op: AssignOp, value: &Expr) -> Res<Val> {
        if let (PlaceKind::Local(id), AssignOp::Assign) = (&place.kind, op) {
            if let Some(v) = self.heap_assign(*id, value, place.span)? {
                return Ok(v);
            }
        }
        let v = self.expr(value)?;
        if let PlaceKind::Index { base, indices } = &place.kind {
            if crate::ir::slice::is_slice(indices) {
                return self.slice_assign(place, base, indices, op, v);
            }
            if matches!(base.kind, ExprKind::Field { .. }) && !Self::is_variable_place(base) {
                // `a[i].v[k] op= x`: in memory, not in registers.
                return self.field_elem_assign(place, base, indices, op, v);
            }
        }
        if matches!(op, AssignOp::Assign) {
            return self.store_place(place, v);
        }
        match &place.kind {
            PlaceKind::Local(id) => {
                let cur = self.frame()?.locals.get(id).cloned();
                if let Some(Val::Output(ptr, t)) = cur {
                    return self.output_update(ptr, t, op, v, place.span);
                }
                let Some(cur) = cur else {
                    return unsupported(
                        place.span,
                        "compound assignment to an unset variable",
                        "assign the variable a value (`x = 0`) before updating it with \
                         `+=`",
                    );
                };
                let new = self.compound(op, cur, v, &place.ty, place.span)?;
                self.store_place(place, new)
            }
            PlaceKind::Index { base, indices } => {
                let b = self.expr(base)?;
                match b {
                    Val::Array(arr) => {
                        self.atomic_update(&arr, indices, op, v, place.span, place.id)
                    }
                    Val::Vec(..) => {
                        let cur = self.index_value(
                            (b.clone(), &base.ty),
                            indices,
                            &place.ty,
                            place.span,
                            place.id,
                        )?;
                        let new = self.compound(op, cur, v, &place.ty, place.span)?;
                        self.store_vec_elem(base, b, indices, new.clone(), place.span)?;
                        Ok(new)
                    }
                    _ => unsupported(
                        place.span,
                        "indexing a value that is not an array",
                        "index an array or fixed-size vector only (`x[pos] += v`)",
                    ),
                }
            }
            PlaceKind::Field { base, field } => self.field_assign(place, base, field, op, v),
        }
    }

    /// `cur op v` for a compound assignment on a register value.
    pub fn compound(&mut self, op: AssignOp, cur: Val, v: Val, ty: &Type, span: Span) -> Res<Val> {
        use crate::ir::BinaryOp as B;
        let bop = match op {
            AssignOp::Add => B::Add,
            AssignOp::Sub => B::Sub,
            AssignOp::Mul | AssignOp::ElemMul => B::ElemMul,
            AssignOp::Div | AssignOp::ElemDiv => B::ElemDiv,
            AssignOp::Pow | AssignOp::ElemPow => B::ElemPow,
            AssignOp::Max => {
                return self.builtin_vals(crate::ir::Builtin::Max, vec![cur, v], ty, span)
            }
            AssignOp::Min => {
                return self.builtin_vals(crate::ir::Builtin::Min, vec![cur, v], ty, span)
            }
            AssignOp::Or | AssignOp::And | AssignOp::Xor => {
                let name = match op {
                    AssignOp::Or => "or",
                    AssignOp::And => "and",
                    _ => "xor",
                };
                return self.bitwise(name, cur, v, ty, span);
            }
            AssignOp::Assign => return Ok(v),
        };
        self.binary_vals(bop, cur, v, ty, span)
    }

    /// Assigns a computed value to a place (plain assignment).
    pub fn store_place(&mut self, place: &Place, v: Val) -> Res<Val> {
        match &place.kind {
            PlaceKind::Local(id) => self.set_local(*id, v, place.span),
            PlaceKind::Index { base, indices } if crate::ir::slice::is_slice(indices) => {
                self.slice_assign(place, base, indices, AssignOp::Assign, v)
            }
            PlaceKind::Index { base, indices } => {
                let b = self.expr(base)?;
                match b {
                    Val::Array(arr) if arr.class.is_some() => {
                        let el = self.element(&arr, indices, place.span, place.id)?;
                        match &arr.class {
                            Some(lay) => {
                                self.store_class(lay, v, (el.addr, arr.space, el.ok), place.span)
                            }
                            None => Ok(Val::Void),
                        }
                    }
                    Val::Array(arr) if arr.complex => {
                        let t = arr.elem;
                        let (re, im) = self.cplx_val(v, t, place.span)?;
                        self.store_cplx_elem(&arr, indices, (re, im), place.span, place.id)?;
                        Ok(Val::Cplx(re, im, t))
                    }
                    Val::Array(arr) => {
                        let t = arr.elem;
                        let x = self.num_val(v, t, place.span)?;
                        self.store_elem(&arr, indices, x, place.span, place.id)?;
                        Ok(Val::Num(x, t))
                    }
                    Val::Vec(..) => self.store_vec_elem(base, b, indices, v, place.span),
                    _ => unsupported(
                        place.span,
                        "indexing a value that is not an array",
                        "assign to elements of arrays or fixed-size vectors only \
                         (`y[pos] = v`)",
                    ),
                }
            }
            PlaceKind::Field { base, field } => {
                self.field_assign(place, base, field, AssignOp::Assign, v)
            }
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
        if let Type::Class(_) = &l.ty {
            // A class value: copied field by field into the local's registers.
            let lay = super::class::layout_of(self.module, &l.ty, span)?;
            let v = self.class_val(v, &lay, span)?;
            let dst = match cur {
                Some(c @ Val::Class(_)) => {
                    // Through fresh registers: the new value may read the fields it replaces
                    // (`p = point(x := p.y, y := p.x)`).
                    let tmp = self.fresh_like(&v, span)?;
                    self.copy_into(&tmp, v.clone(), span)?;
                    self.copy_into(&c, tmp, span)?;
                    self.frame_mut()?.locals.insert(id, c.clone());
                    return Ok(c);
                }
                _ => self.fresh_like(&v, span)?,
            };
            self.copy_into(&dst, v, span)?;
            self.frame_mut()?.locals.insert(id, dst.clone());
            return Ok(dst);
        }
        let new = match (cur, v) {
            (Some(Val::Cplx(re, im, t)), v) => {
                let (x, y) = self.cplx_val(v, t, span)?;
                self.ins(format!("mov.{} {re}, {x}", t.arith()));
                self.ins(format!("mov.{} {im}, {y}", t.arith()));
                Val::Cplx(re, im, t)
            }
            (None, v) if cplx_of(&l.ty).is_some() || matches!(v, Val::Cplx(..)) => {
                let t = match (cplx_of(&l.ty), &v) {
                    (Some(t), _) => t,
                    (None, Val::Cplx(_, _, t)) => *t,
                    _ => {
                        return unsupported(
                            span,
                            "this complex assignment",
                            "assign a complex number (`complex(re, im)`) to the complex \
                             variable",
                        )
                    }
                };
                let (x, y) = self.cplx_val(v, t, span)?;
                let (re, im) = (self.reg(t.class()), self.reg(t.class()));
                self.ins(format!("mov.{} {re}, {x}", t.arith()));
                self.ins(format!("mov.{} {im}, {y}", t.arith()));
                Val::Cplx(re, im, t)
            }
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
                let t = NumTy::of(&l.ty).unwrap_or(xt);
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
                    return unsupported(
                        span,
                        "a variable holding arrays of different kinds",
                        "use one variable per kind of array (shared and global, or \
                         `'checked` and `'unchecked`, in separate variables)",
                    );
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
            (None, v @ (Val::Closure(_) | Val::FnValue(_))) => v,
            // `g = coalesced_threads`: a thread group has no registers (see `coop.rs`).
            (_, Val::Void) if matches!(l.ty, Type::ThreadBlock(_)) => Val::Void,
            _ => {
                return unsupported(
                    span,
                    format!("assigning to `{}` of type {}", l.name, l.ty),
                    "give the variable a number, complex, fixed-size vector or array type",
                )
            }
        };
        self.frame_mut()?.locals.insert(id, new.clone());
        Ok(new)
    }

    /// Combines a value into a kernel output argument (atomically: every thread contributes).
    fn output_update(&mut self, ptr: Reg, t: NumTy, op: AssignOp, v: Val, span: Span) -> Res<Val> {
        if t == NumTy::F16 {
            return unsupported(
                span,
                "half-precision output arguments",
                "declare the output argument as `scalar` (single precision) and convert \
                 the result",
            );
        }
        let x = self.num_val(v, t, span)?;
        match op {
            AssignOp::Assign => {
                // `Reduce::Assign`: a thread assigning a non-zero value wins.
                let p = self.nonzero(x, t);
                self.ins(format!("@{p} st.global.{} [{ptr}], {x}", t.mem()));
            }
            _ => {
                self.atomic_at(ptr, Space::Global, t, op, x, span)?;
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
            return unsupported(
                span,
                "indexing a value that is not a vector",
                "index a fixed-size vector variable or an array",
            );
        };
        if !Self::is_variable_place(base) {
            return unsupported(
                span,
                "assigning to an element of a temporary vector",
                "store the vector in a variable first (`v = expr; v[i] = x`)",
            );
        }
        let x = self.num_val(v, t, span)?;
        // Outside the vector or matrix nothing is written, as 'safe.
        let shape = super::small::small_shape(&base.ty).unwrap_or_else(|| vec![regs.len()]);
        self.small_write((&regs, t), &shape, indices, x, span)?;
        Ok(Val::Num(x, t))
    }
}
