//! Classes in kernels (manual §2.2.6, chapter 7): a class value lives in registers, one
//! value per field ([`Val::Class`]); a `mutable class` value is the thread's own (`p.x = 3`
//! writes its registers, `class_fields.rs`); kernel arguments of a class type and the elements of
//! arrays of classes have the layout of the host's `#[repr(C)]` struct of the class
//! (`backend/rust/classes.rs`): fields in declaration order (inherited ones first), each at
//! its offset rounded up to its alignment, the size rounded up to the largest alignment.
//! Numbers, complex numbers (`Complex<T>`: two parts), fixed-size vectors (`[T; N]`) and
//! such classes may be fields; dynamic classes, pointers and classes holding arrays or
//! strings stay on the CPU, as the CPU back end says for kernels.

use super::kernel::Ctx;
use super::regs::{cplx_of, small_vec, NumTy, Reg, RegClass, Space, Val};
use super::{unsupported, Res};
use crate::ir::{Expr, Module};
use crate::sema::types::{ClassRef, Type};
use crate::span::Span;
use std::rc::Rc;

/// How a field is held, in registers and in memory.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum FieldKind {
    Num(NumTy),
    Cplx(NumTy),
    Vec(NumTy, usize),
    Class(Rc<ClassLayout>),
}

impl FieldKind {
    fn size_align(&self) -> (u32, u32) {
        match self {
            FieldKind::Num(t) => (t.bytes(), t.bytes()),
            FieldKind::Cplx(t) => (2 * t.bytes(), t.bytes()),
            FieldKind::Vec(t, n) => (*n as u32 * t.bytes(), t.bytes()),
            FieldKind::Class(c) => (c.size, c.align),
        }
    }
}

/// The `repr(C)` layout of a class instance.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct ClassLayout {
    /// The class as written, for messages.
    pub name: String,
    /// Name, byte offset and kind of each field, in order.
    pub fields: Vec<(String, u32, FieldKind)>,
    pub size: u32,
    pub align: u32,
}

const INSTEAD: &str = "use a `class` or `mutable class` whose fields are numbers, complex \
                       numbers, fixed-size vectors or such classes in kernels";

/// The layout of class type `ty` (`Type::Class`), or why it has none on the GPU.
pub(super) fn layout_of(module: &Module, ty: &Type, span: Span) -> Res<Rc<ClassLayout>> {
    let Type::Class(c) = ty else {
        return unsupported(span, format!("values of type {ty}"), INSTEAD);
    };
    layout(module, c, span, 0)
}

fn layout(module: &Module, c: &ClassRef, span: Span, depth: usize) -> Res<Rc<ClassLayout>> {
    let Some(d) = module.classes.iter().find(|d| d.id == c.id) else {
        return unsupported(span, format!("the class {}", c.name), "define the class");
    };
    let ty = Type::Class(c.clone());
    if d.dynamic || depth > 16 {
        let kind = if d.dynamic { "dynamic class" } else { "deeply nested class" };
        return unsupported(span, format!("the {kind} {ty} in kernel code"), INSTEAD);
    }
    if !c.args.iter().all(Type::is_concrete) || d.params.len() != c.args.len() {
        return unsupported(
            span,
            format!("values of the generic class {ty}"),
            "give the class its type arguments (`stack[int]`)",
        );
    }
    let mut fields = Vec::new();
    let (mut off, mut align) = (0u32, 1u32);
    for (name, ft) in d.fields_of(&c.args) {
        let kind = if let Some(t) = NumTy::of(&ft) {
            FieldKind::Num(t)
        } else if let Some(t) = cplx_of(&ft) {
            FieldKind::Cplx(t)
        } else if let Some((t, n)) = small_vec(&ft) {
            FieldKind::Vec(t, n)
        } else if let Type::Class(inner) = &ft {
            FieldKind::Class(layout(module, inner, span, depth + 1)?)
        } else {
            return unsupported(
                span,
                format!("the class {ty} (its field `{name}` of type {ft}) in kernel code"),
                INSTEAD,
            );
        };
        let (s, a) = kind.size_align();
        off = off.next_multiple_of(a);
        fields.push((name, off, kind));
        off += s;
        align = align.max(a);
    }
    if fields.is_empty() {
        return unsupported(span, format!("the class {ty} without fields in kernel code"), INSTEAD);
    }
    let name = ty.to_string();
    Ok(Rc::new(ClassLayout { name, fields, size: off.next_multiple_of(align), align }))
}

/// Where class fields are read from or written to: a parameter, or memory at an address.
#[derive(Clone, Copy)]
pub(super) enum Mem<'a> {
    Param(&'a str),
    At { addr: Reg, space: Space, ok: Option<Reg> },
}

impl Ctx<'_> {
    /// The class value of layout `l` at byte `base` of `mem` (fields outside the access
    /// mode's range read 0).
    pub fn load_class(&mut self, l: &ClassLayout, mem: Mem<'_>, base: u32) -> Val {
        let mut out = Vec::new();
        for (name, off, kind) in &l.fields {
            let at = base + off;
            let v = match kind {
                FieldKind::Num(t) => Val::Num(self.load_word(*t, mem, at), *t),
                FieldKind::Cplx(t) => {
                    let re = self.load_word(*t, mem, at);
                    let im = self.load_word(*t, mem, at + t.bytes());
                    Val::Cplx(re, im, *t)
                }
                FieldKind::Vec(t, n) => {
                    let b = t.bytes();
                    Val::Vec(
                        (0..*n as u32).map(|k| self.load_word(*t, mem, at + k * b)).collect(),
                        *t,
                    )
                }
                FieldKind::Class(c) => self.load_class(c, mem, at),
            };
            out.push((name.clone(), v));
        }
        Val::Class(out)
    }

    fn load_word(&mut self, t: NumTy, mem: Mem<'_>, at: u32) -> Reg {
        let d = self.reg(t.class());
        let (src, pred, sp) = match mem {
            Mem::Param(name) => (format!("[{name}+{at}]"), None, "param".to_string()),
            Mem::At { addr, space, ok } => (format!("[{addr}+{at}]"), ok, space.name().into()),
        };
        let p = pred.map(|p| format!("@{p} ")).unwrap_or_default();
        if t == NumTy::F16 {
            let h = self.reg(RegClass::B16);
            self.ins(format!("mov.b16 {h}, 0"));
            self.ins(format!("{p}ld.{sp}.b16 {h}, {src}"));
            self.ins(format!("cvt.f32.f16 {d}, {h}"));
            return d;
        }
        if pred.is_some() {
            self.ins(format!("mov.{} {d}, {}", t.arith(), t.imm(0.0)));
        }
        self.ins(format!("{p}ld.{sp}.{} {d}, {src}", t.mem()));
        d
    }

    /// Stores class value `v` (of layout `l`) at `addr` in `space`, unless `ok` is false; the
    /// value stored.
    pub fn store_class(
        &mut self,
        l: &ClassLayout,
        v: Val,
        (addr, space, ok): (Reg, Space, Option<Reg>),
        span: Span,
    ) -> Res<Val> {
        let v = self.class_val(v, l, span)?;
        if let Val::Class(vals) = &v {
            self.store_fields(l, vals, (addr, space, ok), 0);
        }
        Ok(v)
    }

    fn store_fields(
        &mut self,
        l: &ClassLayout,
        vals: &[(String, Val)],
        (addr, space, ok): (Reg, Space, Option<Reg>),
        base: u32,
    ) {
        let p = ok.map(|p| format!("@{p} ")).unwrap_or_default();
        let sp = space.name();
        let word = |cx: &mut Self, t: NumTy, r: Reg, at: u32| {
            if t == NumTy::F16 {
                let h = cx.reg(RegClass::B16);
                cx.ins(format!("cvt.rn.f16.f32 {h}, {r}"));
                cx.ins(format!("{p}st.{sp}.b16 [{addr}+{at}], {h}"));
            } else {
                cx.ins(format!("{p}st.{sp}.{} [{addr}+{at}], {r}", t.mem()));
            }
        };
        for ((_, off, kind), (_, v)) in l.fields.iter().zip(vals) {
            let at = base + off;
            match (kind, v) {
                (FieldKind::Num(t), Val::Num(r, _)) => word(self, *t, *r, at),
                (FieldKind::Cplx(t), Val::Cplx(re, im, _)) => {
                    word(self, *t, *re, at);
                    word(self, *t, *im, at + t.bytes());
                }
                (FieldKind::Vec(t, _), Val::Vec(rs, _)) => {
                    for (k, r) in rs.iter().enumerate() {
                        word(self, *t, *r, at + k as u32 * t.bytes());
                    }
                }
                (FieldKind::Class(c), Val::Class(inner)) => {
                    self.store_fields(c, inner, (addr, space, ok), at)
                }
                // `class_val` gave every field its kind.
                _ => {}
            }
        }
    }

    /// `v` as a value of layout `l`: each field converted to its type (a value of a class
    /// derived from `l`'s class gives the fields `l` has).
    pub fn class_val(&mut self, v: Val, l: &ClassLayout, span: Span) -> Res<Val> {
        let Val::Class(mut vals) = v else {
            return unsupported(
                span,
                format!("a value that is not of the class {}", l.name),
                format!("give a value of the class {}", l.name),
            );
        };
        let mut out = Vec::new();
        for (name, _, kind) in &l.fields {
            let Some(k) = vals.iter().position(|(n, _)| n == name) else {
                return unsupported(
                    span,
                    format!("a class value without the field `{name}` of {}", l.name),
                    format!("give a value of the class {}", l.name),
                );
            };
            let x = vals.swap_remove(k).1;
            let x = match kind {
                FieldKind::Num(t) => Val::Num(self.num_val(x, *t, span)?, *t),
                FieldKind::Cplx(t) => {
                    let (re, im) = self.cplx_val(x, *t, span)?;
                    Val::Cplx(re, im, *t)
                }
                FieldKind::Vec(t, n) => Val::Vec(self.vec_val(x, *t, *n, span)?, *t),
                FieldKind::Class(c) => self.class_val(x, c, span)?,
            };
            out.push((name.clone(), x));
        }
        Ok(Val::Class(out))
    }

    /// `point(x := 1, y := 2)`, or `point()` with every field zero.
    pub fn construct(&mut self, fields: &[(String, Expr)], ty: &Type, span: Span) -> Res<Val> {
        let l = layout_of(self.module, ty, span)?;
        if fields.is_empty() {
            return Ok(self.zero_class(&l));
        }
        let mut vals = Vec::new();
        for (name, e) in fields {
            vals.push((name.clone(), self.expr(e)?));
        }
        self.class_val(Val::Class(vals), &l, span)
    }

    /// A class value with every field zero (in registers of its own).
    pub fn zero_class(&mut self, l: &ClassLayout) -> Val {
        let mut out = Vec::new();
        for (name, _, kind) in &l.fields {
            let v = match kind {
                FieldKind::Num(t) => Val::Num(self.imm(*t, 0.0), *t),
                FieldKind::Cplx(t) => Val::Cplx(self.imm(*t, 0.0), self.imm(*t, 0.0), *t),
                FieldKind::Vec(t, n) => Val::Vec((0..*n).map(|_| self.imm(*t, 0.0)).collect(), *t),
                FieldKind::Class(c) => self.zero_class(c),
            };
            out.push((name.clone(), v));
        }
        Val::Class(out)
    }

    /// `p.field` of a class value.
    pub fn class_field(&mut self, base: Val, field: &str, span: Span) -> Res<Val> {
        let Val::Class(vals) = base else {
            return unsupported(
                span,
                format!("the field `{field}` of a value that is not a class value"),
                "read fields of class values in kernels",
            );
        };
        match vals.into_iter().find(|(n, _)| n == field) {
            Some((_, v)) => Ok(v),
            None => unsupported(span, format!("the field `{field}`"), "use a declared field"),
        }
    }
}
