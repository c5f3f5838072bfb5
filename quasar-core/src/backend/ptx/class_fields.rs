//! Writing class fields in kernels (manual chapter 7), as the CPU back end does
//! (`backend/rust/class_fields.rs`): a class value held in a variable lives in the variable's
//! registers, so `p.x = 3` moves into the field's registers; a field of an element of an
//! array of classes is written at the element's address plus the field's offset, a compound
//! assignment atomically (as on elements of numbers: threads may update the same element),
//! and so is one component of a vector field of such an element (`a[i].v[k] += x`).

use super::class::{ClassLayout, FieldKind};
use super::index::Elem;
use super::kernel::Ctx;
use super::regs::{NumTy, RegClass, Val};
use super::small::SmallAt;
use super::{unsupported, Res};
use crate::ir::{AssignOp, Expr, ExprKind, Index, Place};

/// `e` as the root of a chain of fields and the fields' names, outermost first.
fn field_chain<'e>(mut e: &'e Expr, last: &str) -> (&'e Expr, Vec<String>) {
    let mut path = vec![last.to_string()];
    while let ExprKind::Field { base, field } = &e.kind {
        path.insert(0, field.clone());
        e = base;
    }
    (e, path)
}

/// The byte offset and kind of the field at `path` in layout `l`.
fn field_at(l: &ClassLayout, path: &[String]) -> Option<(u32, FieldKind)> {
    let (first, rest) = path.split_first()?;
    let (_, off, kind) = l.fields.iter().find(|(n, _, _)| n == first)?;
    match (rest.is_empty(), kind) {
        (true, k) => Some((*off, k.clone())),
        (false, FieldKind::Class(inner)) => {
            let (o, k) = field_at(inner, rest)?;
            Some((off + o, k))
        }
        _ => None,
    }
}

impl Ctx<'_> {
    /// `base.field op= v` (the place `place`); the field's new value.
    pub fn field_assign(
        &mut self,
        place: &Place,
        base: &Expr,
        field: &str,
        op: AssignOp,
        v: Val,
    ) -> Res<Val> {
        let span = place.span;
        let (root, path) = field_chain(base, field);
        match &root.kind {
            ExprKind::Local(_) => {
                // The variable's registers: the field's registers are its own.
                let mut cur = self.expr(root)?;
                for f in &path {
                    cur = self.class_field(cur, f, span)?;
                }
                let new = match op {
                    AssignOp::Assign => v,
                    _ => self.compound(op, cur.clone(), v, &place.ty, span)?,
                };
                // Through fresh registers: the new value may read the fields it replaces
                // (`p.q = pair(a := p.q.b, b := p.q.a)`).
                let tmp = self.fresh_like(&cur, span)?;
                self.copy_into(&tmp, new, span)?;
                self.copy_into(&cur, tmp, span)?;
                Ok(cur)
            }
            ExprKind::Index { base: arr, indices } if !crate::ir::slice::is_slice(indices) => {
                let (a, lay) =
                    match self.expr(arr)? {
                        Val::Array(a) => match a.class.clone() {
                            Some(lay) => (a, lay),
                            None => return unsupported(
                                span,
                                "assigning a field of an element of an array of numbers",
                                "assign fields of elements of arrays of classes (`a[pos].x = v`)",
                            ),
                        },
                        _ => {
                            return unsupported(
                                span,
                                "assigning a field of this value",
                                "assign fields of class variables or of elements of arrays of \
                             classes (`a[pos].x = v`)",
                            )
                        }
                    };
                let Some((off, kind)) = field_at(&lay, &path) else {
                    return unsupported(
                        span,
                        format!("the field `{}` of {}", path.join("."), lay.name),
                        "use a declared field",
                    );
                };
                let el = self.element(&a, indices, span, root.id)?;
                let addr = if off == 0 {
                    el.addr
                } else {
                    let r = self.reg(RegClass::B64);
                    self.ins(format!("add.s64 {r}, {}, {off}", el.addr));
                    r
                };
                match (op, &kind) {
                    (AssignOp::Assign, _) => {
                        // The field as a class of one field at offset 0.
                        let one = ClassLayout {
                            name: lay.name.clone(),
                            fields: vec![(field.to_string(), 0, kind)],
                            size: 0,
                            align: 1,
                        };
                        let vals = Val::Class(vec![(field.to_string(), v)]);
                        let stored = self.store_class(&one, vals, (addr, a.space, el.ok), span)?;
                        self.class_field(stored, field, span)
                    }
                    (_, FieldKind::Num(t)) => {
                        let x = self.num_val(v, *t, span)?;
                        let mut word = a.clone();
                        word.elem = *t;
                        word.class = None;
                        word.complex = false;
                        self.atomic_elem(&word, &Elem { addr, ok: el.ok }, op, x, span)
                    }
                    _ => unsupported(
                        span,
                        format!("this compound assignment to the field `{}`", path.join(".")),
                        "update number fields with `op=`; assign other fields with `=`",
                    ),
                }
            }
            _ => unsupported(
                span,
                "assigning a field of this value",
                "assign fields of class variables or of elements of arrays of classes \
                 (`a[pos].x = v`)",
            ),
        }
    }

    /// `a[i].v[k] op= v` (`base` is `a[i].v`, not held in a variable; `a[i].m[r, c]` for a
    /// small matrix field): one component of a vector field of an element of an array of classes, at the element's address plus the
    /// field's offset plus `k` elements, as the CPU back end writes it: `=` stores it, a
    /// compound assignment updates it atomically, and a `k` outside the vector writes nothing
    /// (as for a vector in registers). The new value.
    pub fn field_elem_assign(
        &mut self,
        place: &Place,
        base: &Expr,
        indices: &[Index],
        op: AssignOp,
        v: Val,
    ) -> Res<Val> {
        let span = place.span;
        let ExprKind::Field { base: owner, field } = &base.kind else {
            return unsupported(
                span,
                "assigning to an element of a temporary vector",
                "store the vector in a variable first (`v = expr; v[i] = x`)",
            );
        };
        let (root, path) = field_chain(owner, field);
        let elsewhere = || {
            unsupported(
                span,
                format!("writing one element of the vector field `{field}` of this value"),
                format!(
                    "write components of vector fields of class variables (`p.{field}[k] = x`) \
                     or of elements of arrays of classes (`a[i].{field}[k] = x`)"
                ),
            )
        };
        let ExprKind::Index { base: arr, indices: at } = &root.kind else { return elsewhere() };
        if crate::ir::slice::is_slice(at) {
            return elsewhere();
        }
        let Val::Array(a) = self.expr(arr)? else { return elsewhere() };
        let Some(lay) = a.class.clone() else { return elsewhere() };
        let Some((off, FieldKind::Vec(t, n))) = field_at(&lay, &path) else {
            return unsupported(
                span,
                format!("indexing the field `{}` of {}", path.join("."), lay.name),
                "index fields that are fixed-size vectors (`v : vec3`)",
            );
        };
        let one_index = |ks: &[_]| match ks {
            [k] => Some(*k),
            _ => None,
        };
        let k = match indices {
            [Index::At(ix)] => one_index(&self.subscript(ix)?),
            // A small matrix field (`m : mat(2, 3)`): the row-major number, -1 outside.
            _ => Some(match super::small::small_shape(&base.ty) {
                Some(shape) => match self.small_at(&shape, indices, span)? {
                    SmallAt::Const(k) => self.imm_int(NumTy::I32, k.map_or(-1, |k| k as i64)),
                    SmallAt::Reg(r) => r,
                },
                None => return elsewhere(),
            }),
        };
        let Some(k) = k else {
            return unsupported(
                span,
                format!("this form of indexing the vector field `{field}`"),
                format!("write one component at a time (`a[i].{field}[k] = x`)"),
            );
        };
        let el = self.element(&a, at, span, root.id)?;
        // `0 <= k < n` as one unsigned comparison, and the element's own test.
        let inside = self.reg(RegClass::Pred);
        self.ins(format!("setp.lt.u32 {inside}, {k}, {n}"));
        let ok = match el.ok {
            Some(e) => {
                let both = self.reg(RegClass::Pred);
                self.ins(format!("and.pred {both}, {e}, {inside}"));
                both
            }
            None => inside,
        };
        let addr = self.reg(RegClass::B64);
        self.ins(format!("mul.wide.s32 {addr}, {k}, {}", t.bytes()));
        self.ins(format!("add.s64 {addr}, {addr}, {}", el.addr));
        if off != 0 {
            self.ins(format!("add.s64 {addr}, {addr}, {off}"));
        }
        let x = self.num_val(v, t, span)?;
        let mut word = a.clone();
        word.elem = t;
        word.class = None;
        word.complex = false;
        let at = Elem { addr, ok: Some(ok) };
        match op {
            AssignOp::Assign => {
                self.store_at(&word, &at, x);
                Ok(Val::Num(x, t))
            }
            _ => self.atomic_elem(&word, &at, op, x, span),
        }
    }

    /// Whether `e` is a variable or a field of a class value held in a variable (`p.dir`):
    /// its registers are the variable's, so writing them writes the variable.
    pub fn is_variable_place(e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Local(_) => true,
            ExprKind::Field { base, .. } => Self::is_variable_place(base),
            _ => false,
        }
    }
}
