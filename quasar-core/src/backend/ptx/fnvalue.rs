//! Function values passed to kernels (`fn : [__device__ scalar -> scalar]`), by
//! defunctionalisation as on the CPU (`backend/rust/fnval.rs`): the functions of each function
//! type are known in the module, so a value is a tag saying which one plus its captured
//! values, and a call is a branch on the tag to each candidate, inlined.
//!
//! The host passes the bytes of the `#[repr(C, u32)]` enum of the function type (see the ABI
//! section of `mod.rs`): the tag (`u32`, the variant's index in
//! [`FnValues::variants`](crate::analysis::fnvals::FnValues::variants)) at offset 0, then a
//! `repr(C)` union of one `repr(C)` struct per variant holding its captures, at the union's
//! alignment. Only captures that are numbers, complex numbers or fixed-size vectors can be
//! passed (the CPU backend makes only such enums kernel arguments).

use super::kernel::{local, Ctx};
use super::regs::{cplx_of, small_vec, Closure, NumTy, Reg, RegClass, Val};
use super::{unsupported, PtxParam, PtxParamRole, Res};
use crate::ir::{Expr, FunctionId};
use crate::sema::types::{FnType, Type};
use crate::span::Span;

/// A function value known only at run time: its tag and, per variant in tag order, the
/// function and its captured values (loaded when the kernel starts).
#[derive(Clone, Debug)]
pub(super) struct FnValue {
    pub tag: Reg,
    pub variants: Vec<Closure>,
}

/// How a captured value is stored in the enum's bytes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Field {
    Num(NumTy),
    Cplx(NumTy),
    Vec(NumTy, usize),
}

impl Field {
    fn of(t: &Type) -> Option<Field> {
        if let Some(p) = cplx_of(t) {
            return Some(Field::Cplx(p));
        }
        if let Some(n) = NumTy::of(t) {
            return Some(Field::Num(n));
        }
        small_vec(t).map(|(e, n)| Field::Vec(e, n))
    }

    /// `(size, alignment)` in bytes, as Rust lays out the captured value's type
    /// (`f32`, `Complex<f32>`, `[f32; 3]`, …).
    fn size_align(self) -> (usize, usize) {
        match self {
            Field::Num(t) => (t.bytes() as usize, t.bytes() as usize),
            Field::Cplx(t) => (2 * t.bytes() as usize, t.bytes() as usize),
            Field::Vec(t, n) => (n * t.bytes() as usize, t.bytes() as usize),
        }
    }
}

/// The layout of a `#[repr(C, u32)]` enum whose variants hold fields of the given
/// `(size, alignment)`s: the offset of each field of each variant, the size and the
/// alignment. (`repr(C, u32)` is `repr(C) struct { tag: u32, payload: repr(C) union {
/// repr(C) struct per variant } }`, RFC 2195.)
pub(super) fn enum_layout(variants: &[Vec<(usize, usize)>]) -> (Vec<Vec<usize>>, usize, usize) {
    let up = |x: usize, a: usize| x.div_ceil(a) * a;
    let union_align = variants.iter().flatten().map(|f| f.1).max().unwrap_or(1).max(1);
    let payload = up(4, union_align);
    let mut offsets = Vec::new();
    let mut union_size = 0;
    for v in variants {
        let mut at = 0;
        let mut offs = Vec::new();
        for &(size, align) in v {
            at = up(at, align.max(1));
            offs.push(payload + at);
            at += size;
        }
        union_size = union_size.max(at);
        offsets.push(offs);
    }
    let align = union_align.max(4);
    (offsets, up(payload + up(union_size, union_align), align), align)
}

impl Ctx<'_> {
    /// The functions of the function type `ft` in tag order.
    pub fn fn_variants(&self, ft: &FnType) -> Vec<FunctionId> {
        self.info.fnvals.targets(ft).to_vec()
    }

    /// The launch argument `arg`, a function value named `name` in the ABI: the enum's bytes
    /// as a `.b8` array; loads the tag and every variant's captures.
    pub fn bind_fn_value(
        &mut self,
        ft: &FnType,
        name: String,
        arg: usize,
        params: &mut Vec<PtxParam>,
        span: Span,
    ) -> Res<Val> {
        let module = self.module;
        let ids = self.fn_variants(ft);
        let mut fields = Vec::new();
        for &id in &ids {
            let Some(g) = module.functions.get(id.0 as usize) else {
                return unsupported(
                    span,
                    "a function value of an unknown function",
                    "report this as a compiler bug, with the program; meanwhile run the \
                     kernel on the CPU",
                );
            };
            let mut fs = Vec::new();
            for &c in &g.captures {
                let l = local(g, c)?;
                match Field::of(&l.ty) {
                    Some(f) => fs.push(f),
                    None => {
                        return unsupported(
                            span,
                            format!("a function value capturing `{}` of type {}", l.name, l.ty),
                            "capture only numbers, complex numbers and fixed-size \
                             vectors, or pass the array as a parameter of the function",
                        )
                    }
                }
            }
            fields.push(fs);
        }
        let sizes: Vec<Vec<(usize, usize)>> =
            fields.iter().map(|fs| fs.iter().map(|f| f.size_align()).collect()).collect();
        let (offsets, size, align) = enum_layout(&sizes);
        let tag = self.reg(RegClass::B32);
        self.ins(format!("ld.param.u32 {tag}, [{name}]"));
        let mut variants = Vec::new();
        for ((&function, fs), offs) in ids.iter().zip(&fields).zip(&offsets) {
            let mut captures = Vec::new();
            for (&f, &off) in fs.iter().zip(offs) {
                captures.push(self.load_field(&name, f, off));
            }
            variants.push(Closure { function, captures });
        }
        params.push(PtxParam {
            name,
            ty: format!(".align {align} .b8"),
            bytes: size,
            role: PtxParamRole::Value { arg, by_bytes: true },
        });
        Ok(Val::FnValue(FnValue { tag, variants }))
    }

    /// Loads one captured value at byte `off` of the parameter `name`.
    fn load_field(&mut self, name: &str, f: Field, off: usize) -> Val {
        let load = |cx: &mut Self, t: NumTy, off: usize| -> Reg {
            let r = cx.reg(t.class());
            if t == NumTy::F16 {
                let h = cx.reg(RegClass::B16);
                cx.ins(format!("ld.param.b16 {h}, [{name}+{off}]"));
                cx.ins(format!("cvt.f32.f16 {r}, {h}"));
            } else {
                cx.ins(format!("ld.param.{} {r}, [{name}+{off}]", t.mem()));
            }
            r
        };
        match f {
            Field::Num(t) => Val::Num(load(self, t, off), t),
            Field::Cplx(t) => {
                let re = load(self, t, off);
                let im = load(self, t, off + t.bytes() as usize);
                Val::Cplx(re, im, t)
            }
            Field::Vec(t, n) => {
                let regs = (0..n).map(|k| load(self, t, off + k * t.bytes() as usize)).collect();
                Val::Vec(regs, t)
            }
        }
    }

    /// Calls a function value known only at run time: a branch on the tag to each candidate
    /// (the last one is the fallback, so every result register is set on every path).
    pub fn call_fn_value(&mut self, fv: FnValue, args: &[Expr], ty: &Type, span: Span) -> Res<Val> {
        let Some(last) = fv.variants.len().checked_sub(1) else {
            return unsupported(
                span,
                "calling a function value of a type no function has",
                "pass a `__device__` function of this type (the module has none)",
            );
        };
        let mut vals = Vec::new();
        for a in args {
            vals.push(self.expr(a)?);
        }
        let end = self.label();
        let mut out: Option<Val> = None;
        for (k, c) in fv.variants.into_iter().enumerate() {
            let next = self.label();
            if k != last {
                let p = self.reg(RegClass::Pred);
                self.ins(format!("setp.ne.u32 {p}, {}, {k}", fv.tag));
                self.ins(format!("@{p} bra {next}"));
            }
            let v = self.inline_call(c.function, vals.clone(), c.captures, span)?;
            let v = self.convert_to(v, ty, span)?;
            match (&out, v) {
                (_, Val::Void) => {}
                (None, v) => {
                    let fresh = self.fresh_like(&v, span)?;
                    self.copy_into(&fresh, v, span)?;
                    out = Some(fresh);
                }
                (Some(o), v) => {
                    let o = o.clone();
                    self.copy_into(&o, v, span)?;
                }
            }
            if k != last {
                self.ins(format!("bra.uni {end}"));
            }
            self.place(&next);
        }
        self.place(&end);
        Ok(out.unwrap_or(Val::Void))
    }
}
