//! Slices inside kernels, as the CPU backend has them (`backend/rust/slice.rs`):
//! `x[i, j, 0..2]` with exactly one range (or `:`) among the subscripts reads or writes a
//! fixed-size vector in registers (`vec3` here) element by element. Element `k` uses the
//! subscript `start + k·step` in the sliced dimension (`:` starts at 0 with step 1); the step
//! must be a constant. The length comes from the result type (reads), from the assigned
//! vector, or from the constant bounds of the range when a number is assigned to every
//! element (`y[i, 3..4] = 7`). Each element access is an ordinary access: the array's access
//! mode applies per element, and a compound assignment is one atomic update per element.
//!
//! Unlike the CPU backend, which re-evaluates the subscript expressions per element, the
//! subscripts are evaluated once (they are side-effect free in every accepted program, and
//! this keeps one address computation's worth of registers per element).

use super::kernel::Ctx;
use super::regs::{small_vec, NumTy, Reg, RegClass, Val};
use super::{unsupported, Res};
use crate::ir::AssignOp;
use crate::ir::{Const, Expr, ExprKind, Index, Place};
use crate::sema::types::Type;
use crate::span::Span;

/// The sliced dimension's subscripts, evaluated once.
struct Slice {
    /// The subscripts before the sliced dimension.
    before: Vec<Reg>,
    /// The first subscript of the slice (a constant when known: register vectors then pick
    /// their elements directly).
    start: Start,
    step: i64,
    /// A fixed-length vector of indices in the sliced dimension (`x[m, n + (0..3)]`), one
    /// register per element, used instead of `start` and `step`.
    list: Option<Vec<Reg>>,
    /// The subscripts after the sliced dimension.
    after: Vec<Reg>,
}

#[derive(Clone, Copy)]
enum Start {
    Const(i64),
    Reg(Reg),
}

impl Ctx<'_> {
    /// Evaluates the subscripts of a one-range slice.
    fn slice_subscripts(&mut self, indices: &[Index], span: Span) -> Res<Slice> {
        let slices = indices.iter().filter(|i| !matches!(i, Index::At(_) | Index::Spread(_)));
        if slices.count() != 1 {
            return unsupported(
                span,
                "a kernel slice over more than one dimension",
                "slice one dimension at a time (`x[pos[0], 0..2]`), or copy the block in \
                 a loop",
            );
        }
        let mut s = Slice {
            before: Vec::new(),
            start: Start::Const(0),
            step: 1,
            list: None,
            after: Vec::new(),
        };
        let mut seen = false;
        for ix in indices {
            match ix {
                Index::At(e) | Index::Spread(e) => {
                    let regs = self.subscript(e)?;
                    if seen { &mut s.after } else { &mut s.before }.extend(regs);
                }
                Index::All => seen = true,
                Index::Range { start, step, .. } => {
                    seen = true;
                    s.step = match step.as_deref().map(Expr::constant) {
                        None => 1,
                        Some(Some(Const::Int(k))) => *k,
                        Some(_) => {
                            return unsupported(
                                span,
                                "a kernel slice with a variable step",
                                "use a constant step (`x[0..2..n-1]` with a literal step)",
                            )
                        }
                    };
                    s.start = match start.constant() {
                        Some(Const::Int(a)) => Start::Const(*a),
                        _ => match self.subscript(start)?.as_slice() {
                            [r] => Start::Reg(*r),
                            _ => {
                                return unsupported(
                                    start.span,
                                    "a vector as a range start",
                                    "start the range at a number (`x[a..a+3]` with a scalar \
                                     `a`)",
                                )
                            }
                        },
                    };
                }
                Index::List(v) if crate::backend::small_layout::shape(&v.ty).is_some() => {
                    seen = true;
                    s.list = Some(self.subscript(v)?);
                }
                Index::List(_) => {
                    return unsupported(
                        span,
                        "a list of indices inside a kernel other than a fixed-length vector",
                        "give the indices as a range of constant length (`x[m, n + (0..3)]`), \
                         or read the listed elements one at a time (`x[i0]`, `x[i1]`)",
                    )
                }
            }
        }
        Ok(s)
    }

    /// Checks that an index list gives one index per element of a slice of `n` elements.
    fn check_list_len(s: &Slice, n: usize, span: Span) -> Res<()> {
        match &s.list {
            Some(l) if l.len() != n => unsupported(
                span,
                format!("a list of {} indices for a slice of {n} elements", l.len()),
                "give one index per element",
            ),
            _ => Ok(()),
        }
    }

    /// The subscript of element `k` in the sliced dimension.
    fn slice_at(&mut self, s: &Slice, k: usize) -> Start {
        if let Some(list) = &s.list {
            // The list has the slice's length (both from the type checker's types).
            return list.get(k).map_or(Start::Const(-1), |r| Start::Reg(*r));
        }
        let off = k as i64 * s.step;
        match s.start {
            Start::Const(a) => Start::Const(a + off),
            Start::Reg(r) => {
                let d = self.reg(RegClass::B32);
                self.ins(format!("add.s32 {d}, {r}, {}", off as i32));
                Start::Reg(d)
            }
        }
    }

    /// The full subscripts of element `k` of an array slice.
    fn slice_elem_subscripts(&mut self, s: &Slice, k: usize) -> Vec<Reg> {
        let at = match self.slice_at(s, k) {
            Start::Const(i) => self.imm_int(NumTy::I32, i),
            Start::Reg(r) => r,
        };
        let mut idx = s.before.clone();
        idx.push(at);
        idx.extend(&s.after);
        idx
    }

    /// `base[indices]` with a slice, read as the fixed-size vector `ty`.
    pub fn slice_value(&mut self, base: Val, indices: &[Index], ty: &Type, span: Span) -> Res<Val> {
        let Some((t, n)) = small_vec(ty) else {
            return unsupported(
                span,
                format!("indexing that gives {ty} (slices)"),
                "slice a fixed length into a fixed-size vector (`v : vec3 = x[i..i+2]`)",
            );
        };
        let s = self.slice_subscripts(indices, span)?;
        Self::check_list_len(&s, n, span)?;
        let mut out = Vec::with_capacity(n);
        match base {
            Val::Array(arr) if !arr.complex && arr.class.is_none() => {
                for k in 0..n {
                    let idx = self.slice_elem_subscripts(&s, k);
                    let el = self.element_at(&arr, idx, span, false)?;
                    let x = self.load_at(&arr, &el);
                    out.push(self.convert_reg(x, arr.elem, t));
                }
            }
            Val::Vec(regs, vt) if s.before.is_empty() && s.after.is_empty() => {
                for k in 0..n {
                    let x = match self.slice_at(&s, k) {
                        Start::Const(i) => {
                            match usize::try_from(i).ok().and_then(|i| regs.get(i)) {
                                Some(r) => *r,
                                // Outside the vector reads 0, as 'safe.
                                None => self.imm(vt, 0.0),
                            }
                        }
                        Start::Reg(i) => self.select(&regs, vt, i),
                    };
                    // A fresh copy: the slice is a value, later writes to the vector must not
                    // change it.
                    let c = self.convert_reg(x, vt, t);
                    let d = self.reg(t.class());
                    self.ins(format!("mov.{} {d}, {c}", t.arith()));
                    out.push(d);
                }
            }
            _ => {
                return unsupported(
                    span,
                    format!("indexing that gives {ty} (slices)"),
                    "slice a fixed length into a fixed-size vector (`v : vec3 = x[i..i+2]`)",
                )
            }
        }
        Ok(Val::Vec(out, t))
    }

    /// Element `i` (a register) of a register vector; 0 outside.
    pub fn select(&mut self, regs: &[Reg], t: NumTy, i: Reg) -> Reg {
        let d = self.imm(t, 0.0);
        for (k, r) in regs.iter().enumerate() {
            let p = self.reg(RegClass::Pred);
            self.ins(format!("setp.eq.s32 {p}, {i}, {k}"));
            self.ins(format!("selp.{} {d}, {r}, {d}, {p}", t.arith()));
        }
        d
    }

    /// `base[indices] op= v` with a slice: element `k` of a vector `v`, or the number `v`
    /// for every element. The value of the assignment is `v`.
    pub fn slice_assign(
        &mut self,
        place: &Place,
        base: &Expr,
        indices: &[Index],
        op: AssignOp,
        v: Val,
    ) -> Res<Val> {
        let span = place.span;
        let n = match &v {
            Val::Vec(rs, _) => rs.len(),
            Val::Num(..) => {
                match crate::ir::slice::constant_range_len(indices)
                    .or(small_vec(&place.ty).map(|x| x.1))
                {
                    Some(n) => n,
                    None => {
                        return unsupported(
                            span,
                            "a kernel slice whose length is not known",
                            "give the slice a constant length (`y[i..i+2] = v`)",
                        )
                    }
                }
            }
            _ => {
                return unsupported(
                    span,
                    "assigning this value to a kernel slice",
                    "assign a number or a fixed-size vector to the slice",
                )
            }
        };
        // Element `k` of the value; a number is converted once for every element.
        let mut bcast = None;
        let mut item = |cx: &mut Self, k: usize, t: NumTy| -> Res<Reg> {
            match &v {
                Val::Vec(rs, vt) => Ok(cx.convert_reg(rs[k], *vt, t)),
                v => match bcast {
                    Some(r) => Ok(r),
                    None => {
                        let r = cx.num_val(v.clone(), t, span)?;
                        bcast = Some(r);
                        Ok(r)
                    }
                },
            }
        };
        let b = self.expr(base)?;
        let s = self.slice_subscripts(indices, span)?;
        Self::check_list_len(&s, n, span)?;
        let compound = !matches!(op, AssignOp::Assign);
        match b {
            Val::Array(arr) if !arr.complex && arr.class.is_none() => {
                for k in 0..n {
                    let x = item(self, k, arr.elem)?;
                    let idx = self.slice_elem_subscripts(&s, k);
                    let el = self.element_at(&arr, idx, span, false)?;
                    if compound {
                        self.atomic_elem(&arr, &el, op, x, span)?;
                    } else {
                        self.store_at(&arr, &el, x);
                    }
                }
            }
            Val::Vec(regs, t) if s.before.is_empty() && s.after.is_empty() => {
                if !matches!(base.kind, ExprKind::Local(_)) {
                    return unsupported(
                        span,
                        "assigning to an element of a temporary vector",
                        "store the vector in a variable first (`v = expr; v[0..1] = w`)",
                    );
                }
                let elem_ty = match &place.ty {
                    Type::Array(a) => a.elem.clone(),
                    t => t.clone(),
                };
                for k in 0..n {
                    let mut x = item(self, k, t)?;
                    let at = self.slice_at(&s, k);
                    if compound {
                        let cur = match at {
                            Start::Const(i) => {
                                match usize::try_from(i).ok().and_then(|i| regs.get(i)) {
                                    Some(r) => *r,
                                    None => continue,
                                }
                            }
                            Start::Reg(i) => self.select(&regs, t, i),
                        };
                        let new =
                            self.compound(op, Val::Num(cur, t), Val::Num(x, t), &elem_ty, span)?;
                        x = self.num_val(new, t, span)?;
                    }
                    match at {
                        Start::Const(i) => {
                            // Writes outside the vector are dropped, as 'safe.
                            if let Some(r) = usize::try_from(i).ok().and_then(|i| regs.get(i)) {
                                self.ins(format!("mov.{} {r}, {x}", t.arith()));
                            }
                        }
                        Start::Reg(i) => {
                            for (j, r) in regs.iter().enumerate() {
                                let p = self.reg(RegClass::Pred);
                                self.ins(format!("setp.eq.s32 {p}, {i}, {j}"));
                                self.ins(format!("@{p} mov.{} {r}, {x}", t.arith()));
                            }
                        }
                    }
                }
            }
            _ => {
                return unsupported(
                    span,
                    "this assignment to a slice inside a kernel",
                    "assign a number or a fixed-size vector to a slice of an array or \
                     fixed-size vector variable",
                )
            }
        }
        Ok(v)
    }
}
