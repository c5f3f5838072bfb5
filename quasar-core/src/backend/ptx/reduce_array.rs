//! `sum`, `prod` and `mean` of a whole array in device code (a device lambda capturing an
//! array, manual §4.2: `D = __device__ (x : scalar) -> sum(A) + x`): a loop over its
//! elements in every thread, in order from the first, accumulating in the result's type as
//! the Rust back end's CPU kernel does (`backend/rust/call.rs`), so both give the same
//! numbers.

use super::index::Elem;
use super::kernel::Ctx;
use super::regs::{ArrRef, NumTy, RegClass, Val};
use super::{unsupported, Res};
use crate::ir::Builtin as B;
use crate::span::Span;

impl Ctx<'_> {
    /// `b(a)` for `b` one of `sum`, `prod`, `mean`, giving a number of type `rt`.
    pub fn reduce_array(&mut self, b: B, a: &ArrRef, rt: NumTy, span: Span) -> Res<Val> {
        if a.complex || a.class.is_some() {
            return unsupported(
                span,
                format!("`{}` of an array of complex numbers or classes in device code", b.name()),
                "reduce the array in host code and pass the result to the kernel",
            );
        }
        if !matches!(
            rt,
            NumTy::I32 | NumTy::I64 | NumTy::U32 | NumTy::U64 | NumTy::F32 | NumTy::F64
        ) {
            return unsupported(
                span,
                format!("`{}` of an array giving a half-precision or narrow integer", b.name()),
                "reduce an array of `scalar`, `int` or 64-bit numbers",
            );
        }
        if b == B::Mean && !rt.is_float() {
            return unsupported(
                span,
                "`mean` giving an integer",
                "convert the array to floats first, or divide the `sum` yourself",
            );
        }
        let ar = rt.arith();
        let acc = self.reg(rt.class());
        let init = if b == B::Prod { 1.0 } else { 0.0 };
        self.ins(format!("mov.{ar} {acc}, {}", rt.imm(init)));
        let n = self.numel(a);
        let k = self.reg(RegClass::B32);
        self.ins(format!("mov.u32 {k}, 0"));
        let (head, exit) = (self.label(), self.label());
        self.place(&head);
        let done = self.reg(RegClass::Pred);
        self.ins(format!("setp.ge.u32 {done}, {k}, {n}"));
        self.ins(format!("@{done} bra {exit}"));
        // Arrays in device code are dense: element k is k elements past the first.
        let off = self.reg(RegClass::B64);
        self.ins(format!("mul.wide.u32 {off}, {k}, {}", a.elem_bytes()));
        let addr = self.reg(RegClass::B64);
        self.ins(format!("add.s64 {addr}, {}, {off}", a.ptr));
        let x = self.load_at(a, &Elem { addr, ok: None });
        // (Half-precision elements are loaded widened to f32.)
        let loaded = if a.elem == NumTy::F16 { NumTy::F32 } else { a.elem };
        let x = self.convert_reg(x, loaded, rt);
        match b {
            B::Prod if rt.is_float() => self.ins(format!("mul.{ar} {acc}, {acc}, {x}")),
            B::Prod => self.ins(format!("mul.lo.{ar} {acc}, {acc}, {x}")),
            _ => self.ins(format!("add.{ar} {acc}, {acc}, {x}")),
        }
        self.ins(format!("add.u32 {k}, {k}, 1"));
        self.ins(format!("bra.uni {head}"));
        self.place(&exit);
        if b == B::Mean {
            let count = self.reg(rt.class());
            self.ins(format!("cvt.rn.{ar}.u32 {count}, {n}"));
            self.ins(format!("div.rn.{ar} {acc}, {acc}, {count}"));
        }
        Ok(Val::Num(acc, rt))
    }
}
