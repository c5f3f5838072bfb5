//! Array element access: subscripts to per-dimension (index, extent) pairs, the access modes
//! (`'safe 'checked 'unchecked 'clamped 'circular 'mirror`), addresses, loads, stores and
//! atomic updates (native `atom.*` where PTX has one, a `atom.cas` loop otherwise).

use super::kernel::Ctx;
use super::regs::{ArrRef, NumTy, Reg, RegClass, Space, Val};
use super::{unsupported, PtxCheckSite, PtxSiteKind, Res, ERROR_SUBSCRIPTS};
use crate::ir::Index;
use crate::ir::NodeId;
use crate::ir::{AssignOp, BinaryOp};
use crate::sema::types::{Access, Type};
use crate::span::Span;

/// An element address and the predicate under which the access happens (`None`: always).
pub(super) struct Elem {
    pub addr: Reg,
    pub ok: Option<Reg>,
}

impl Ctx<'_> {
    /// `base[indices]` as a value.
    pub fn index_value(
        &mut self,
        (base, base_ty): (Val, &Type),
        indices: &[Index],
        ty: &Type,
        span: Span,
        node: NodeId,
    ) -> Res<Val> {
        if crate::ir::slice::is_slice(indices) {
            return self.slice_value(base, indices, ty, span);
        }
        match base {
            Val::Array(arr) if arr.class.is_some() => {
                let el = self.element(&arr, indices, span, node)?;
                let mem = super::class::Mem::At { addr: el.addr, space: arr.space, ok: el.ok };
                match &arr.class {
                    Some(lay) => Ok(self.load_class(lay, mem, 0)),
                    None => Ok(Val::Void),
                }
            }
            Val::Array(arr) if arr.complex => {
                let el = self.element(&arr, indices, span, node)?;
                let t = arr.elem;
                let (re, im) = (self.imm(t, 0.0), self.imm(t, 0.0));
                let pred = el.ok.map(|p| format!("@{p} ")).unwrap_or_default();
                let sp = arr.space.name();
                let (m, b) = (t.mem(), t.bytes());
                self.ins(format!("{pred}ld.{sp}.{m} {re}, [{}]", el.addr));
                self.ins(format!("{pred}ld.{sp}.{m} {im}, [{}+{b}]", el.addr));
                Ok(Val::Cplx(re, im, t))
            }
            Val::Array(arr) => {
                if NumTy::of(ty).is_none() {
                    return unsupported(
                        span,
                        format!("indexing that gives {ty} (slices)"),
                        "read the elements one at a time (`x[i, j]`), or a fixed-size \
                         slice (`x[pos, 0..2]`)",
                    );
                }
                let el = self.element(&arr, indices, span, node)?;
                Ok(Val::Num(self.load_at(&arr, &el), arr.elem))
            }
            Val::Vec(regs, t) => {
                // Outside the vector or matrix reads 0, as 'safe.
                let shape = super::small::small_shape(base_ty).unwrap_or_else(|| vec![regs.len()]);
                self.small_read((&regs, t), &shape, indices, span)
            }
            _ => unsupported(
                span,
                "indexing a value that is not an array or vector",
                "index arrays or fixed-size vectors",
            ),
        }
    }

    /// `arr[indices] = re + im·i` for an array of complex numbers.
    pub fn store_cplx_elem(
        &mut self,
        arr: &ArrRef,
        indices: &[Index],
        (re, im): (Reg, Reg),
        span: Span,
        node: NodeId,
    ) -> Res<()> {
        let el = self.element(arr, indices, span, node)?;
        let pred = el.ok.map(|p| format!("@{p} ")).unwrap_or_default();
        let sp = arr.space.name();
        let (m, b) = (arr.elem.mem(), arr.elem.bytes());
        self.ins(format!("{pred}st.{sp}.{m} [{}], {re}", el.addr));
        self.ins(format!("{pred}st.{sp}.{m} [{}+{b}], {im}", el.addr));
        Ok(())
    }

    /// `arr[indices] = x`.
    pub fn store_elem(
        &mut self,
        arr: &ArrRef,
        indices: &[Index],
        x: Reg,
        span: Span,
        node: NodeId,
    ) -> Res<()> {
        let el = self.element(arr, indices, span, node)?;
        self.store_at(arr, &el, x);
        Ok(())
    }

    /// Loads the (real) element at `el`; 0 where the access mode skips it.
    pub fn load_at(&mut self, arr: &ArrRef, el: &Elem) -> Reg {
        let d = self.reg(arr.elem.class());
        let sp = arr.space.name();
        if arr.elem == NumTy::F16 {
            // 16 bits in memory, widened exactly to f32.
            let h = self.reg(RegClass::B16);
            let pred = el.ok.map(|p| format!("@{p} ")).unwrap_or_default();
            self.ins(format!("mov.b16 {h}, 0"));
            self.ins(format!("{pred}ld.{sp}.b16 {h}, [{}]", el.addr));
            self.ins(format!("cvt.f32.f16 {d}, {h}"));
            return d;
        }
        match el.ok {
            Some(ok) => {
                self.ins(format!("mov.{} {d}, {}", arr.elem.arith(), arr.elem.imm(0.0)));
                self.ins(format!("@{ok} ld.{sp}.{} {d}, [{}]", arr.elem.mem(), el.addr));
            }
            None => self.ins(format!("ld.{sp}.{} {d}, [{}]", arr.elem.mem(), el.addr)),
        }
        d
    }

    /// Stores the (real) element at `el`, unless the access mode skips it.
    pub fn store_at(&mut self, arr: &ArrRef, el: &Elem, x: Reg) {
        let pred = el.ok.map(|p| format!("@{p} ")).unwrap_or_default();
        let sp = arr.space.name();
        if arr.elem == NumTy::F16 {
            let h = self.reg(RegClass::B16);
            self.ins(format!("cvt.rn.f16.f32 {h}, {x}"));
            self.ins(format!("{pred}st.{sp}.b16 [{}], {h}", el.addr));
            return;
        }
        self.ins(format!("{pred}st.{sp}.{} [{}], {x}", arr.elem.mem(), el.addr));
    }

    /// `arr[indices] op= v`, atomically; the new value.
    pub fn atomic_update(
        &mut self,
        arr: &ArrRef,
        indices: &[Index],
        op: AssignOp,
        v: Val,
        span: Span,
        node: NodeId,
    ) -> Res<Val> {
        let t = arr.elem;
        if arr.complex {
            return self.atomic_cplx(arr, indices, op, v, span, node);
        }
        if arr.class.is_some() {
            return unsupported(
                span,
                "a compound assignment to a class element",
                "read the element, build the new class value and store it (`a[i] = p`)",
            );
        }
        let x = self.num_val(v, t, span)?;
        let el = self.element(arr, indices, span, node)?;
        self.atomic_elem(arr, &el, op, x, span)
    }

    /// An atomic `op=` of `x` at `el` (a real element), unless the access mode skips it; the
    /// new value (0 when skipped).
    pub fn atomic_elem(
        &mut self,
        arr: &ArrRef,
        el: &Elem,
        op: AssignOp,
        x: Reg,
        span: Span,
    ) -> Res<Val> {
        let t = arr.elem;
        let new = self.imm(t, 0.0);
        let skip = self.label();
        if let Some(ok) = el.ok {
            self.ins(format!("@!{ok} bra {skip}"));
        }
        let old = match self.private_of(arr.ptr, arr.space) {
            Some(p) => self.private_atomic(&p, el.addr, op, x, span)?,
            None => self.atomic_at(el.addr, arr.space, t, op, x, span)?,
        };
        let n = self.apply(op, old, x, t, span)?;
        self.ins(format!("mov.{} {new}, {n}", t.arith()));
        self.place(&skip);
        Ok(Val::Num(new, t))
    }

    /// `arr[indices] += z` (or `-=`) on complex elements: one atomic addition per part (each
    /// part is updated atomically, the pair is not).
    fn atomic_cplx(
        &mut self,
        arr: &ArrRef,
        indices: &[Index],
        op: AssignOp,
        v: Val,
        span: Span,
        node: NodeId,
    ) -> Res<Val> {
        if !matches!(op, AssignOp::Add | AssignOp::Sub) {
            return unsupported(
                span,
                "this compound assignment to complex array elements",
                "use `+=` or `-=` on complex array elements, or read, compute and store \
                 (`z[i] = z[i] * w`)",
            );
        }
        let t = arr.elem;
        let (re, im) = self.cplx_val(v, t, span)?;
        let el = self.element(arr, indices, span, node)?;
        let (nr, ni) = (self.imm(t, 0.0), self.imm(t, 0.0));
        let skip = self.label();
        if let Some(ok) = el.ok {
            self.ins(format!("@!{ok} bra {skip}"));
        }
        let im_addr = self.reg(RegClass::B64);
        self.ins(format!("add.s64 {im_addr}, {}, {}", el.addr, t.bytes()));
        for (addr, x, new) in [(el.addr, re, nr), (im_addr, im, ni)] {
            let old = self.atomic_at(addr, arr.space, t, op, x, span)?;
            let n = self.apply(op, old, x, t, span)?;
            self.ins(format!("mov.{} {new}, {n}", t.arith()));
        }
        self.place(&skip);
        Ok(Val::Cplx(nr, ni, t))
    }

    /// `old op x` for the value an atomic update leaves.
    fn apply(&mut self, op: AssignOp, old: Reg, x: Reg, t: NumTy, span: Span) -> Res<Reg> {
        let bop = match op {
            AssignOp::Add => BinaryOp::Add,
            AssignOp::Sub => BinaryOp::Sub,
            AssignOp::Mul | AssignOp::ElemMul => BinaryOp::ElemMul,
            AssignOp::Div | AssignOp::ElemDiv => BinaryOp::ElemDiv,
            AssignOp::Pow | AssignOp::ElemPow => BinaryOp::ElemPow,
            AssignOp::Max | AssignOp::Min => {
                let d = self.reg(t.class());
                let m = if op == AssignOp::Max { "max" } else { "min" };
                self.ins(format!("{m}.{} {d}, {old}, {x}", t.arith()));
                return Ok(d);
            }
            AssignOp::Or | AssignOp::And | AssignOp::Xor => {
                if t.is_float() {
                    return unsupported(
                        span,
                        "bitwise operations on floating-point numbers",
                        "use bitwise operations on integer arrays, converting with \
                         `int(x)` first",
                    );
                }
                let d = self.reg(t.class());
                let m = match op {
                    AssignOp::Or => "or",
                    AssignOp::And => "and",
                    _ => "xor",
                };
                self.ins(format!("{m}.{} {d}, {old}, {x}", t.bits()));
                return Ok(d);
            }
            AssignOp::Assign => return Ok(x),
        };
        self.arith(bop, old, x, t, span)
    }

    /// An atomic `op=` of `x` at `addr`; the old value.
    pub fn atomic_at(
        &mut self,
        addr: Reg,
        space: Space,
        t: NumTy,
        op: AssignOp,
        x: Reg,
        span: Span,
    ) -> Res<Reg> {
        if t == NumTy::F16 {
            return unsupported(
                span,
                "atomic updates of half-precision numbers",
                "store the values in a `scalar` (single precision) array for atomic \
                 updates",
            );
        }
        if t.is_narrow() {
            return unsupported(
                span,
                "atomic updates of 8- and 16-bit integers",
                "store the values in an `int` or `uint32` array for atomic updates",
            );
        }
        let sp = space.name();
        let old = self.reg(t.class());
        let native = match (op, t.is_float()) {
            (AssignOp::Add, _) => Some(("add", if t == NumTy::I64 { "u64" } else { t.arith() })),
            (AssignOp::Max, false) => Some(("max", t.arith())),
            (AssignOp::Min, false) => Some(("min", t.arith())),
            (AssignOp::Or, false) => Some(("or", t.bits())),
            (AssignOp::And, false) => Some(("and", t.bits())),
            (AssignOp::Xor, false) => Some(("xor", t.bits())),
            // `-=` adds the negation; the others loop on compare-and-swap (below).
            (
                AssignOp::Assign
                | AssignOp::Sub
                | AssignOp::Mul
                | AssignOp::Div
                | AssignOp::Pow
                | AssignOp::ElemMul
                | AssignOp::ElemDiv
                | AssignOp::ElemPow,
                _,
            )
            | (
                AssignOp::Max | AssignOp::Min | AssignOp::Or | AssignOp::And | AssignOp::Xor,
                true,
            ) => None,
        };
        if let Some((name, ty)) = native {
            self.ins(format!("atom.{sp}.{name}.{ty} {old}, [{addr}], {x}"));
            return Ok(old);
        }
        if op == AssignOp::Sub {
            let neg = self.reg(t.class());
            if t.is_float() {
                self.ins(format!("neg.{} {neg}, {x}", t.arith()));
            } else {
                self.ins(format!("sub.{} {neg}, 0, {x}", t.arith()));
            }
            let ty = if t == NumTy::I64 { "u64" } else { t.arith() };
            self.ins(format!("atom.{sp}.add.{ty} {old}, [{addr}], {neg}"));
            return Ok(old);
        }
        // No native form: compare-and-swap until no other thread intervened.
        let b = t.bits();
        self.ins(format!("ld.{sp}.{} {old}, [{addr}]", t.mem()));
        let head = self.label();
        self.place(&head);
        let new = self.apply(op, old, x, t, span)?;
        let got = self.reg(t.class());
        self.ins(format!("atom.{sp}.cas.{b} {got}, [{addr}], {old}, {new}"));
        let p = self.reg(RegClass::Pred);
        self.ins(format!("setp.ne.{b} {p}, {got}, {old}"));
        self.ins(format!("mov.{b} {old}, {got}"));
        self.ins(format!("@{p} bra {head}"));
        Ok(old)
    }

    /// The address of `arr[indices]` (the access `node`) after the access mode, and the access
    /// predicate; none of either in the interior of the kernel's partition when `node` is
    /// proven in bounds there.
    pub fn element(
        &mut self,
        arr: &ArrRef,
        indices: &[Index],
        span: Span,
        node: NodeId,
    ) -> Res<Elem> {
        let mut idx = Vec::new();
        for ix in indices {
            let (Index::At(e) | Index::Spread(e)) = ix else {
                return unsupported(
                    span,
                    "slices (`:`, ranges, index lists) of arrays",
                    "read the elements one at a time in a loop (`x[i, j]`), or slice the \
                     array in host code",
                );
            };
            idx.extend(self.subscript(e)?);
        }
        let proven =
            self.frames.len() == 1 && self.interior.as_ref().is_some_and(|u| u.contains(&node));
        self.element_at(arr, idx, span, proven)
    }

    /// The `int` subscripts of one index expression (an integer vector addresses several
    /// dimensions; a scalar index is converted to `int` as the CPU back end converts it,
    /// truncating, as in the manual's `x[blkpos + m * blkdim]` with `m` a scalar).
    pub fn subscript(&mut self, e: &crate::ir::Expr) -> Res<Vec<Reg>> {
        match self.expr(e)? {
            Val::Num(r, t) => Ok(vec![self.convert_reg(r, t, NumTy::I32)]),
            Val::Vec(rs, t) if !t.is_float() => {
                Ok(rs.into_iter().map(|r| self.convert_reg(r, t, NumTy::I32)).collect())
            }
            _ => unsupported(
                e.span,
                "an index that is not an integer or integer vector",
                "use integer subscripts (`x[int(i)]`) or integer vectors (`x[pos]`)",
            ),
        }
    }

    /// The address of the element at the `int` subscripts `idx` after the access mode, and
    /// the access predicate; `proven`: the indices are known to be in range (no mode applies).
    pub fn element_at(
        &mut self,
        arr: &ArrRef,
        mut idx: Vec<Reg>,
        span: Span,
        proven: bool,
    ) -> Res<Elem> {
        if idx.is_empty() || arr.dims.is_empty() {
            return unsupported(
                span,
                "indexing without subscripts",
                "give the access its subscripts (`x[pos]`)",
            );
        }
        // Quasar's rules (`Shape::offset`): the last subscript runs over the remaining
        // dimensions, subscripts past the rank address extents of 1.
        // A vector indexed with two or more subscripts is a row (`v[0, j]`), as on the CPU.
        let dims: Vec<Reg> = if arr.dims.len() == 1 && idx.len() >= 2 {
            vec![self.imm_int(NumTy::U32, 1), arr.dims[0]]
        } else {
            arr.dims.clone()
        };
        let (k, r) = (idx.len(), dims.len());
        let mut exts = Vec::new();
        for j in 0..k {
            let e = if j + 1 == k && j < r {
                let mut e = dims[j];
                for &d in &dims[j + 1..] {
                    let p = self.reg(RegClass::B32);
                    self.ins(format!("mul.lo.u32 {p}, {e}, {d}"));
                    e = p;
                }
                e
            } else if j < r {
                dims[j]
            } else {
                self.imm_int(NumTy::U32, 1)
            };
            exts.push(e);
        }
        let mut access = arr.access;
        if access == Access::Unchecked && self.opts.check_unchecked {
            access = Access::Checked;
        }
        if proven {
            access = Access::Unchecked;
        }
        let ok = match access {
            Access::Unchecked => None,
            Access::Safe | Access::Checked => {
                let mut ok: Option<Reg> = None;
                for (i, e) in idx.iter().zip(&exts) {
                    let p = self.reg(RegClass::Pred);
                    // Unsigned: a negative index is out of range too.
                    self.ins(format!("setp.lt.u32 {p}, {i}, {e}"));
                    ok = Some(self.and_pred(ok, p));
                }
                if access == Access::Checked {
                    if let Some(ok) = ok {
                        self.report_bounds(arr, ok, &idx, &exts, span);
                    }
                }
                ok
            }
            Access::Clamped | Access::Circular | Access::Mirror => {
                let mut ok: Option<Reg> = None;
                for (i, e) in idx.iter_mut().zip(&exts) {
                    *i = self.map_index(access, *i, *e);
                    // An empty dimension has nothing to map to.
                    let p = self.reg(RegClass::Pred);
                    self.ins(format!("setp.ne.u32 {p}, {e}, 0"));
                    ok = Some(self.and_pred(ok, p));
                }
                ok
            }
        };
        let addr = self.address(arr, &idx, &exts);
        Ok(Elem { addr, ok })
    }

    fn and_pred(&mut self, acc: Option<Reg>, p: Reg) -> Reg {
        match acc {
            None => p,
            Some(a) => {
                let q = self.reg(RegClass::Pred);
                self.ins(format!("and.pred {q}, {a}, {p}"));
                q
            }
        }
    }

    /// The index inside `[0, e)` for the boundary modes (`e > 0`; for `e == 0` the access
    /// is skipped).
    fn map_index(&mut self, access: Access, i: Reg, e: Reg) -> Reg {
        let d = self.reg(RegClass::B32);
        match access {
            Access::Clamped => {
                let m = self.reg(RegClass::B32);
                self.ins(format!("add.s32 {m}, {e}, -1"));
                self.ins(format!("max.s32 {d}, {i}, 0"));
                self.ins(format!("min.s32 {d}, {d}, {m}"));
            }
            Access::Circular => self.positive_rem(d, i, e),
            _ => {
                // Mirror with period 2e: -1 → 0, e → e-1 (the edge sample repeats).
                let per = self.reg(RegClass::B32);
                self.ins(format!("shl.b32 {per}, {e}, 1"));
                self.positive_rem(d, i, per);
                let p = self.reg(RegClass::Pred);
                let m = self.reg(RegClass::B32);
                self.ins(format!("setp.ge.s32 {p}, {d}, {e}"));
                self.ins(format!("sub.s32 {m}, {per}, 1"));
                self.ins(format!("sub.s32 {m}, {m}, {d}"));
                self.ins(format!("selp.s32 {d}, {m}, {d}, {p}"));
            }
        }
        d
    }

    /// `d = i mod n` in `[0, n)`.
    fn positive_rem(&mut self, d: Reg, i: Reg, n: Reg) {
        let p = self.reg(RegClass::Pred);
        self.ins(format!("rem.s32 {d}, {i}, {n}"));
        self.ins(format!("setp.lt.s32 {p}, {d}, 0"));
        self.ins(format!("@{p} add.s32 {d}, {d}, {n}"));
    }

    /// Records the first failing `'checked` access in the launch's error word (see `mod.rs`).
    fn report_bounds(&mut self, arr: &ArrRef, ok: Reg, idx: &[Reg], exts: &[Reg], span: Span) {
        let site = self.site_base + self.sites.len();
        self.sites.push(PtxCheckSite {
            kernel: self.entry.clone(),
            kind: PtxSiteKind::Index,
            array: arr.name.clone(),
            span,
        });
        let fine = self.label();
        self.ins(format!("@{ok} bra {fine}"));
        let w = self.error_word();
        let old = self.reg(RegClass::B32);
        self.ins(format!("atom.global.cas.b32 {old}, [{w}], 0, 1"));
        let first = self.reg(RegClass::Pred);
        self.ins(format!("setp.eq.u32 {first}, {old}, 0"));
        self.ins(format!("@!{first} bra {fine}"));
        let (dim, val) = (self.imm_int(NumTy::U32, 0), self.imm_int(NumTy::I32, 0));
        for (j, (i, e)) in idx.iter().zip(exts).enumerate().rev() {
            let bad = self.reg(RegClass::Pred);
            self.ins(format!("setp.ge.u32 {bad}, {i}, {e}"));
            self.ins(format!("selp.u32 {dim}, {j}, {dim}, {bad}"));
            self.ins(format!("selp.s32 {val}, {i}, {val}, {bad}"));
        }
        self.ins(format!("st.global.u32 [{w}+4], {site}"));
        self.ins(format!("st.global.u32 [{w}+8], {dim}"));
        self.ins(format!("st.global.u32 [{w}+12], {val}"));
        // The whole index and the array's extents (the host prefers the launch argument's
        // shape; these serve shared and local arrays).
        let (n, r) = (idx.len().min(ERROR_SUBSCRIPTS), arr.dims.len().min(ERROR_SUBSCRIPTS));
        self.ins(format!("st.global.u32 [{w}+16], {n}"));
        self.ins(format!("st.global.u32 [{w}+20], {r}"));
        for (j, i) in idx.iter().take(n).enumerate() {
            self.ins(format!("st.global.u32 [{w}+{}], {i}", 24 + 4 * j));
        }
        for (j, d) in arr.dims.iter().take(r).enumerate() {
            let at = 24 + 4 * (ERROR_SUBSCRIPTS + j);
            self.ins(format!("st.global.u32 [{w}+{at}], {d}"));
        }
        self.place(&fine);
    }

    /// `ptr + offset * size`, the offset row-major over `exts` (64-bit arithmetic).
    fn address(&mut self, arr: &ArrRef, idx: &[Reg], exts: &[Reg]) -> Reg {
        let size = arr.elem_bytes();
        let off = self.reg(RegClass::B64);
        if let [i] = idx {
            self.ins(format!("mul.wide.s32 {off}, {i}, {size}"));
        } else {
            let lin = self.reg(RegClass::B64);
            self.ins(format!("cvt.u64.u32 {lin}, {}", idx[0]));
            for (i, e) in idx.iter().zip(exts).skip(1) {
                let (e64, i64) = (self.reg(RegClass::B64), self.reg(RegClass::B64));
                self.ins(format!("cvt.u64.u32 {e64}, {e}"));
                self.ins(format!("cvt.u64.u32 {i64}, {i}"));
                self.ins(format!("mad.lo.u64 {lin}, {lin}, {e64}, {i64}"));
            }
            if size.is_power_of_two() {
                self.ins(format!("shl.b64 {off}, {lin}, {}", size.trailing_zeros()));
            } else {
                // Class elements: any struct size.
                self.ins(format!("mul.lo.u64 {off}, {lin}, {size}"));
            }
        }
        let addr = self.reg(RegClass::B64);
        self.ins(format!("add.s64 {addr}, {}, {off}", arr.ptr));
        addr
    }
}
