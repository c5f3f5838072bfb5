//! Block-shared copies of the arrays a kernel only accumulates into (`h[i] += v`,
//! `analysis::accumulators`), the GPU form of the CPU's per-block private copies (quasar-std
//! `rt::private`): a histogram's threads then add into shared memory, and only one
//! `atom.global.add` per non-zero element and block reaches the array, instead of one per
//! thread, all contending for the same few addresses.
//!
//! Whether a block privatises an array is decided at run time from its extents and the
//! launch's (the same for every thread of the launch): an array gets a zeroed copy, 16-byte
//! aligned, in a static `.shared` area of [`PRIVATE_BYTES`] when it fits there after the
//! arrays before it (in argument order) and the launch has at least
//! [`POSITIONS_PER_ELEMENT`] positions per element of it, as on the CPU (a one-to-one scatter
//! would only add the clearing and the merging of the copy); the others keep their global
//! atomics. The block's threads clear the copies and meet at a barrier before the
//! body; the body's updates of a privatised array go to its copy (`atom.shared`); at the
//! kernel's exit label, which every path of the body reaches (threads past the launch edge
//! and `return` branch there), a second barrier, then the threads add the copies' non-zero
//! elements into the arrays. A thread that fails an `error` or `assert` exits at once, as
//! elsewhere: exited threads do not hold up a barrier.
//!
//! Kernels that use shared memory themselves are left as they are: the launch sizes the
//! block's shared memory from their own arrays (`Kernel::shared_bytes`), which this static
//! area would come on top of.

use super::kernel::Ctx;
use super::regs::{NumTy, Reg, RegClass, Space, Val};
use super::Res;
use crate::ir::{AssignOp, LocalId};
use crate::span::Span;

/// The bytes of shared memory a block may use for its copies (3072 `scalar` or `int`
/// elements): small enough to keep several blocks per multiprocessor.
pub(super) const PRIVATE_BYTES: u64 = 12 * 1024;
/// A launch privatises an array when it has at least this many positions per element.
pub(super) const POSITIONS_PER_ELEMENT: u64 = 16;

/// An array that a block may privatise.
#[derive(Clone, Debug)]
pub(super) struct Private {
    /// The array's global address (its `ArrRef::ptr`: the updates through it are redirected).
    pub global: Reg,
    pub elem: NumTy,
    /// Its element count (`u64`).
    pub count: Reg,
    /// The address of its copy in shared memory (`u64`).
    pub copy: Reg,
    /// Whether this block uses the copy (the array fits).
    pub on: Reg,
}

impl Ctx<'_> {
    /// Before the body: the shared copies of the kernel's accumulated-only arguments
    /// `accumulators` (already bound), zeroed, then a barrier. Nothing when the kernel uses
    /// shared memory itself or no argument qualifies.
    pub(super) fn private_setup(&mut self, accumulators: &[LocalId], uses_shared: bool) -> Res<()> {
        if uses_shared {
            return Ok(());
        }
        let mut arrays = Vec::new();
        for l in accumulators {
            if let Some(Val::Array(a)) = self.frame()?.locals.get(l) {
                // 4- and 8-byte numbers: the types with a native `atom.add`.
                if !a.elem.is_narrow()
                    && !a.complex
                    && a.class.is_none()
                    && a.space == Space::Global
                {
                    arrays.push(a.clone());
                }
            }
        }
        if arrays.is_empty() {
            return Ok(());
        }
        self.code.push_str("\t// block-shared copies of the accumulated arrays that fit\n");
        let sym = format!("{}_acc", self.entry);
        self.shared_decls.push(format!(".shared .align 16 .b8 {sym}[{PRIVATE_BYTES}]"));
        let positions = self.reg(RegClass::B64);
        self.ins(format!("mov.u64 {positions}, 1"));
        for d in self.dims.clone() {
            let w = self.reg(RegClass::B64);
            self.ins(format!("cvt.u64.u32 {w}, {d}"));
            self.ins(format!("mul.lo.u64 {positions}, {positions}, {w}"));
        }
        let off = self.reg(RegClass::B64);
        self.ins(format!("mov.u64 {off}, 0"));
        for a in arrays {
            let count = self.reg(RegClass::B64);
            self.ins(format!("mov.u64 {count}, 1"));
            for d in &a.dims {
                let w = self.reg(RegClass::B64);
                self.ins(format!("cvt.u64.u32 {w}, {d}"));
                self.ins(format!("mul.lo.u64 {count}, {count}, {w}"));
            }
            let (bytes, end) = (self.reg(RegClass::B64), self.reg(RegClass::B64));
            self.ins(format!("mul.lo.u64 {bytes}, {count}, {}", a.elem.bytes()));
            self.ins(format!("add.u64 {end}, {off}, {bytes}"));
            let (on, many) = (self.reg(RegClass::Pred), self.reg(RegClass::Pred));
            self.ins(format!("setp.le.u64 {on}, {end}, {PRIVATE_BYTES}"));
            let need = self.reg(RegClass::B64);
            self.ins(format!("mul.lo.u64 {need}, {count}, {POSITIONS_PER_ELEMENT}"));
            self.ins(format!("setp.ge.u64 {many}, {positions}, {need}"));
            self.ins(format!("and.pred {on}, {on}, {many}"));
            let copy = self.reg(RegClass::B64);
            self.ins(format!("mov.u64 {copy}, {sym}"));
            self.ins(format!("add.u64 {copy}, {copy}, {off}"));
            self.ins(format!("add.u64 {end}, {end}, 15"));
            self.ins(format!("and.b64 {end}, {end}, -16"));
            self.ins(format!("selp.b64 {off}, {end}, {off}, {on}"));
            let skip = self.label();
            self.ins(format!("@!{on} bra {skip}"));
            // Element sizes are 4 or 8 bytes: whole words.
            let words = self.reg(RegClass::B32);
            self.ins(format!("shr.u64 {bytes}, {bytes}, 2"));
            self.ins(format!("cvt.u32.u64 {words}, {bytes}"));
            self.zero_shared(copy, &words.to_string());
            self.place(&skip);
            self.privates.push(Private { global: a.ptr, elem: a.elem, count, copy, on });
        }
        self.ins("bar.sync 0");
        Ok(())
    }

    /// The privatised array whose global address is `ptr`, if any.
    pub(super) fn private_of(&self, ptr: Reg, space: Space) -> Option<Private> {
        if space != Space::Global {
            return None;
        }
        self.privates.iter().find(|p| p.global == ptr).cloned()
    }

    /// The atomic `op=` of `x` at `addr` in array `p`'s memory: its shared copy when the block
    /// uses it (the same offset from `copy` as `addr` from the array's start), else the array
    /// itself; the old value.
    pub(super) fn private_atomic(
        &mut self,
        p: &Private,
        addr: Reg,
        op: AssignOp,
        x: Reg,
        span: Span,
    ) -> Res<Reg> {
        let t = p.elem;
        let old = self.reg(t.class());
        let (global, done) = (self.label(), self.label());
        self.ins(format!("@!{} bra {global}", p.on));
        let s = self.reg(RegClass::B64);
        self.ins(format!("sub.s64 {s}, {addr}, {}", p.global));
        self.ins(format!("add.s64 {s}, {s}, {}", p.copy));
        let o = self.atomic_at(s, Space::Shared, t, op, x, span)?;
        self.ins(format!("mov.{} {old}, {o}", t.arith()));
        self.ins(format!("bra {done}"));
        self.place(&global);
        let o = self.atomic_at(addr, Space::Global, t, op, x, span)?;
        self.ins(format!("mov.{} {old}, {o}", t.arith()));
        self.place(&done);
        Ok(old)
    }

    /// At the kernel's exit label: a barrier, then the block's threads add the non-zero
    /// elements of each copy in use into its array.
    pub(super) fn private_merge(&mut self) -> Res<()> {
        if self.privates.is_empty() {
            return Ok(());
        }
        self.code.push_str("\t// add the block's copies into the arrays\n");
        self.ins("bar.sync 0");
        let (lin, threads) = self.block_thread();
        for p in self.privates.clone() {
            let t = p.elem;
            let (head, next, done) = (self.label(), self.label(), self.label());
            self.ins(format!("@!{} bra {done}", p.on));
            let zero = self.imm(t, 0.0);
            let (i, n) = (self.reg(RegClass::B64), self.reg(RegClass::B64));
            self.ins(format!("cvt.u64.u32 {i}, {lin}"));
            self.ins(format!("cvt.u64.u32 {n}, {threads}"));
            self.place(&head);
            let end = self.reg(RegClass::Pred);
            self.ins(format!("setp.ge.u64 {end}, {i}, {}", p.count));
            self.ins(format!("@{end} bra {done}"));
            let (off, s, g) =
                (self.reg(RegClass::B64), self.reg(RegClass::B64), self.reg(RegClass::B64));
            self.ins(format!("mul.lo.u64 {off}, {i}, {}", t.bytes()));
            self.ins(format!("add.s64 {s}, {}, {off}", p.copy));
            let v = self.reg(t.class());
            self.ins(format!("ld.shared.{} {v}, [{s}]", t.mem()));
            let z = self.reg(RegClass::Pred);
            self.ins(format!("setp.eq.{} {z}, {v}, {zero}", t.arith()));
            self.ins(format!("@{z} bra {next}"));
            self.ins(format!("add.s64 {g}, {}, {off}", p.global));
            self.atomic_at(g, Space::Global, t, AssignOp::Add, v, Span::default())?;
            self.place(&next);
            self.ins(format!("add.u64 {i}, {i}, {n}"));
            self.ins(format!("bra {head}"));
            self.place(&done);
        }
        Ok(())
    }
}
