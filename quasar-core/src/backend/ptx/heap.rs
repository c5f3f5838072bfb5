//! Dynamic kernel memory in PTX (`backend/heap.rs`): `A = zeros(n, 2)` in a kernel takes
//! `numel · size + 16` bytes of the device heap with CUDA's `malloc` (the heap's size is the
//! context's `cudaLimitMallocHeapSize`; the PTX interpreter gives each launch one). The
//! first 16 bytes link the thread's allocations into a list whose head is a register, set
//! to 0 before anything can end the thread; where the thread ends (the kernel's exit label)
//! the list is walked and each allocation freed, so every view of them stays valid until
//! the thread ends, as the CPU's per-thread arena keeps them (`backend/rust/heap.rs`). A full
//! heap is a run-time error of the launch, at the allocation's line.

use super::kernel::Ctx;
use super::regs::{ArrRef, NumTy, Reg, RegClass, Space, Val};
use super::{unsupported, PtxSiteKind, Res};
use crate::backend::heap::{allocation, Fill};
use crate::ir::{Expr, Function, LocalId};
use crate::sema::types::{Access, Rank};
use crate::span::Span;
use std::fmt::Write;

/// The header bytes of each allocation (the link, keeping the data 16-byte aligned).
const LINK: u64 = 16;

impl Ctx<'_> {
    /// The head of the thread's allocation list, set to null, when `f` allocates.
    pub(super) fn heap_setup(&mut self, f: &Function) {
        if !crate::backend::heap::heap_locals(f).is_empty() {
            let head = self.reg(RegClass::B64);
            self.ins(format!("mov.u64 {head}, 0"));
            self.heap_head = Some(head);
        }
    }

    /// Frees the thread's allocations (at the kernel's exit label).
    pub(super) fn heap_release(&mut self) {
        let Some(head) = self.heap_head else { return };
        let (top, done) = (self.label(), self.label());
        let (p, next) = (self.reg(RegClass::Pred), self.reg(RegClass::B64));
        self.place(&top);
        self.ins(format!("setp.eq.u64 {p}, {head}, 0"));
        self.ins(format!("@{p} bra {done}"));
        self.ins(format!("ld.global.u64 {next}, [{head}]"));
        let arg = self.call_param("heap_arg");
        let _ = write!(
            self.code,
            "\t{{\n\t.param .b64 {arg};\n\tst.param.b64 [{arg}], {head};\n\
             \tcall.uni free, ({arg});\n\t}}\n"
        );
        self.ins(format!("mov.u64 {head}, {next}"));
        self.ins(format!("bra {top}"));
        self.place(&done);
    }

    /// `local = value` when `value` allocates an array of run-time size (the array, after
    /// the local is set); `None` otherwise.
    pub(super) fn heap_assign(
        &mut self,
        local: LocalId,
        value: &Expr,
        span: Span,
    ) -> Res<Option<Val>> {
        let Some((fill, args)) = allocation(value) else { return Ok(None) };
        let head = match self.heap_head {
            Some(h) if self.frames.len() == 1 => h,
            _ => {
                return unsupported(
                    span,
                    "an array of run-time size created in a device function",
                    "create it in the kernel and pass it to the device function, or give it \
                     a size known when compiling (`zeros(4)`)",
                )
            }
        };
        let arr = value.ty.as_array();
        let (Some(elem), Some(Rank::Fixed(rank))) =
            (arr.and_then(|a| NumTy::of(&a.elem)), arr.map(|a| a.rank))
        else {
            return unsupported(
                span,
                format!("an array of {} created in a kernel", value.ty),
                "create arrays of real numbers (`zeros(n)`, `uninit(m, n)`) of a known rank",
            );
        };
        let mut dims = self.dims_u32(args, "an array dimension that is not an integer")?;
        while dims.len() < rank as usize {
            dims.push(self.imm_int(NumTy::U32, 1));
        }
        if dims.len() > rank as usize {
            return unsupported(
                span,
                format!("{} dimensions for an array of rank {rank}", dims.len()),
                "give as many dimensions as the array has",
            );
        }
        let bytes = self.reg(RegClass::B64);
        self.ins(format!("mov.u64 {bytes}, {}", elem.bytes()));
        for d in &dims {
            let w = self.reg(RegClass::B64);
            self.ins(format!("cvt.u64.u32 {w}, {d}"));
            self.ins(format!("mul.lo.u64 {bytes}, {bytes}, {w}"));
        }
        let total = self.reg(RegClass::B64);
        self.ins(format!("add.u64 {total}, {bytes}, {LINK}"));
        let block = self.malloc(total);
        let ok = self.reg(RegClass::Pred);
        self.ins(format!("setp.ne.u64 {ok}, {block}, 0"));
        let msg = "out of dynamic kernel memory: the device heap is full (allocate the array \
                   before the launch and pass it to the kernel, or raise the heap's size)";
        self.fail(PtxSiteKind::Error(msg.into()), Some(ok), span);
        self.ins(format!("st.global.u64 [{block}], {head}"));
        self.ins(format!("mov.u64 {head}, {block}"));
        let data = self.reg(RegClass::B64);
        self.ins(format!("add.u64 {data}, {block}, {LINK}"));
        self.fill(data, bytes, elem, fill);
        let a = ArrRef {
            ptr: data,
            dims,
            elem,
            complex: false,
            access: arr.and_then(|a| a.mods.access).unwrap_or(Access::Safe),
            space: Space::Global,
            name: "zeros".into(),
            class: None,
        };
        self.set_local(local, Val::Array(a), span).map(Some)
    }

    /// A name for a call's `.param` variable, unique in the kernel.
    fn call_param(&mut self, stem: &str) -> String {
        let l = self.label();
        format!("{stem}{}", l.trim_start_matches("$L__"))
    }

    /// `malloc(bytes)`, as CUDA's calling sequence writes it.
    fn malloc(&mut self, bytes: Reg) -> Reg {
        let out = self.reg(RegClass::B64);
        let (arg, ret) = (self.call_param("heap_arg"), self.call_param("heap_ret"));
        let _ = write!(
            self.code,
            "\t{{\n\t.param .b64 {arg};\n\tst.param.b64 [{arg}], {bytes};\n\t.param .b64 {ret};\n\
             \tcall.uni ({ret}), malloc, ({arg});\n\tld.param.b64 {out}, [{ret}];\n\t}}\n"
        );
        out
    }

    /// Stores `fill` into the `bytes` bytes at `data`, element by element.
    fn fill(&mut self, data: Reg, bytes: Reg, elem: NumTy, fill: Fill) {
        let v = match fill {
            Fill::Zero => self.imm(elem, 0.0),
            Fill::One => self.imm(elem, 1.0),
        };
        let (top, done) = (self.label(), self.label());
        let (at, end, p) =
            (self.reg(RegClass::B64), self.reg(RegClass::B64), self.reg(RegClass::Pred));
        self.ins(format!("mov.u64 {at}, {data}"));
        self.ins(format!("add.u64 {end}, {data}, {bytes}"));
        self.place(&top);
        self.ins(format!("setp.ge.u64 {p}, {at}, {end}"));
        self.ins(format!("@{p} bra {done}"));
        self.ins(format!("st.global.{} [{at}], {v}", elem.mem()));
        self.ins(format!("add.u64 {at}, {at}, {}", elem.bytes()));
        self.ins(format!("bra {top}"));
        self.place(&done);
    }
}

#[cfg(test)]
mod tests {
    use crate::backend::ptx::tests::ptx;

    #[test]
    fn allocations_call_malloc_link_into_a_list_and_are_freed_at_the_exit() {
        let out = ptx("function [] = __kernel__ k(y : vec, n : int, pos : int)
                 a = zeros(n, 3)
                 a[0, 1] = 2.0
                 for i = 0..1
                     b = ones(n + i)
                     y[pos] += b[0] + a[0, 1]
                 endfor
             endfunction");
        assert!(out.diagnostics.is_empty(), "{:?}", out.diagnostics);
        let t = &out.text;
        // Declared once, called once per allocation; one free at the exit.
        assert_eq!(t.matches(".extern .func (.param .b64 func_retval0) malloc").count(), 1);
        assert_eq!(t.matches("), malloc, (").count(), 2, "{t}");
        assert_eq!(t.matches("call.uni free, (").count(), 1, "{t}");
        // The list's head starts null before anything can end the thread.
        let head = t.find("mov.u64").map(|i| &t[i..]).unwrap_or("");
        assert!(head.starts_with("mov.u64 %rd") && head.contains(", 0;"), "{t}");
        // A full heap is a run-time error of the launch.
        assert!(out.check_sites.iter().any(|s| matches!(&s.kind,
            crate::backend::ptx::PtxSiteKind::Error(m) if m.contains("out of dynamic kernel memory"))));
    }

    #[test]
    fn an_allocation_in_a_device_function_is_a_warning_naming_it() {
        let out = ptx("function y = __device__ twice(n : int)
                 a = zeros(n)
                 y = numel(a) * 2
             endfunction
             function [] = __kernel__ k(y : vec, pos : int)
                 y[pos] = twice(pos)
             endfunction");
        assert!(out.kernels.is_empty());
        assert!(
            out.diagnostics.iter().any(|d| d.message.contains("created in a device function")),
            "{:?}",
            out.diagnostics
        );
    }
}
