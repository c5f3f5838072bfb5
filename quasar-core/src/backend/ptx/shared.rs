//! Shared memory in kernels: `shared(dims…)` / `shared_zeros(dims…)` at the top level of the
//! body (the dynamic shared memory, sized by `blkdim` at run time) and elsewhere (a static
//! `.shared` array of constant size).

use super::kernel::Ctx;
use super::regs::{ArrRef, NumTy, Reg, RegClass, Space, Val};
use super::{unsupported, Res, DYNAMIC_SHARED};
use crate::ir::{Builtin, Builtin as B, Const, Expr, NodeId};
use crate::sema::types::{Access, Type};
use crate::span::Span;

const NOT_CONSTANT: &str = "shared memory whose size is not a constant (outside the top level \
                            of the kernel body)";

impl Ctx<'_> {
    /// `shared(dims…)` / `shared_zeros(dims…)` (zero-filled by the block's threads).
    ///
    /// The arrays of `local = shared(…)` statements at the top level of the kernel body are
    /// carved from the dynamic shared memory `quasar_shared` (see `mod.rs`), whatever their
    /// dimensions; elsewhere only constant dimensions are supported, as a static `.shared`
    /// array.
    pub(super) fn shared(
        &mut self,
        b: Builtin,
        args: &[Expr],
        ty: &Type,
        span: Span,
        node: NodeId,
    ) -> Res<Val> {
        let name = b.name();
        let Some(arr) = ty.as_array() else {
            return unsupported(
                span,
                format!("`{name}` giving {ty}"),
                "give the shared array an array type (`mat`, `vec'int`, …)",
            );
        };
        let Some(elem) = NumTy::of(&arr.elem) else {
            return unsupported(
                span,
                format!("shared arrays of {}", arr.elem),
                "use shared arrays of numbers (`scalar`, `int`, `uint8`, …)",
            );
        };
        let access = arr.mods.access.unwrap_or(Access::Safe);
        let top = self.frames.len() == 1 && self.top_shared.contains(&node);
        let (ptr, dims) = if top {
            self.dynamic_shared(args, elem, b == B::SharedZeros)?
        } else {
            self.static_shared(args, elem, b == B::SharedZeros, span)?
        };
        self.block_sensitive = true;
        Ok(Val::Array(ArrRef {
            ptr,
            dims,
            elem,
            complex: false,
            access,
            space: Space::Shared,
            name: name.into(),
            class: None,
        }))
    }

    /// The dimensions `args` of an array (integers and integer vectors) as `u32` registers;
    /// `what` names any other argument in the error.
    pub(super) fn dims_u32(&mut self, args: &[Expr], what: &str) -> Res<Vec<Reg>> {
        let mut dims = Vec::new();
        for a in args {
            match self.expr(a)? {
                Val::Num(r, t) if !t.is_float() => dims.push(self.convert_reg(r, t, NumTy::U32)),
                Val::Vec(rs, t) if !t.is_float() => {
                    for r in rs {
                        dims.push(self.convert_reg(r, t, NumTy::U32));
                    }
                }
                _ => {
                    return unsupported(
                        a.span,
                        what,
                        "give the dimensions as integers (`zeros(n, 16)`, `shared(blkdim)`)",
                    )
                }
            }
        }
        Ok(dims)
    }

    /// A shared array in the dynamic shared memory: at the running offset rounded up to 64
    /// bytes (the CPU backend's layout), dimensions computed at run time.
    fn dynamic_shared(&mut self, args: &[Expr], elem: NumTy, zero: bool) -> Res<(Reg, Vec<Reg>)> {
        let dims = self.dims_u32(args, "a shared array dimension that is not an integer")?;
        if dims.is_empty() {
            return unsupported(
                Span::default(),
                "a shared array without dimensions",
                "give the shared array its dimensions (`shared(16, 16)`)",
            );
        }
        let count = self.reg(RegClass::B64);
        self.ins(format!("mov.u64 {count}, {}", elem.bytes()));
        for d in &dims {
            let w = self.reg(RegClass::B64);
            self.ins(format!("cvt.u64.u32 {w}, {d}"));
            self.ins(format!("mul.lo.u64 {count}, {count}, {w}"));
        }
        let off = match self.shared_off {
            Some(r) => r,
            None => {
                // Emitted where the first shared array is: the top level of the body.
                let r = self.reg(RegClass::B64);
                self.ins(format!("mov.u64 {r}, 0"));
                self.shared_off = Some(r);
                r
            }
        };
        self.ins(format!("add.u64 {off}, {off}, 63"));
        self.ins(format!("and.b64 {off}, {off}, -64"));
        let ptr = self.reg(RegClass::B64);
        self.ins(format!("mov.u64 {ptr}, {DYNAMIC_SHARED}"));
        self.ins(format!("add.u64 {ptr}, {ptr}, {off}"));
        self.ins(format!("add.u64 {off}, {off}, {count}"));
        if zero {
            let words = self.reg(RegClass::B32);
            self.ins(format!("add.u64 {count}, {count}, 3"));
            self.ins(format!("shr.u64 {count}, {count}, 2"));
            self.ins(format!("cvt.u32.u64 {words}, {count}"));
            self.zero_shared(ptr, &words.to_string());
        }
        Ok((ptr, dims))
    }

    /// A static `.shared` array of constant dimensions.
    fn static_shared(
        &mut self,
        args: &[Expr],
        elem: NumTy,
        zero: bool,
        span: Span,
    ) -> Res<(Reg, Vec<Reg>)> {
        let mut dims = Vec::new();
        for a in args {
            match a.constant() {
                Some(Const::Int(n)) if *n >= 0 => dims.push(*n as u64),
                _ => match &a.kind {
                    crate::ir::ExprKind::Matrix(items) => {
                        for it in items {
                            match it.constant() {
                                Some(Const::Int(n)) if *n >= 0 => dims.push(*n as u64),
                                _ => {
                                    return unsupported(
                                        a.span,
                                        NOT_CONSTANT,
                                        "make the dimensions constants, or move the \
                                         `shared(…)` to the top level of the kernel body \
                                         where they may depend on `blkdim`",
                                    )
                                }
                            }
                        }
                    }
                    _ => {
                        return unsupported(
                            a.span,
                            NOT_CONSTANT,
                            "make the dimensions constants, or move the `shared(…)` to the \
                             top level of the kernel body where they may depend on `blkdim`",
                        )
                    }
                },
            }
        }
        let count: u64 =
            dims.iter().try_fold(1u64, |acc, &d| acc.checked_mul(d)).unwrap_or(u64::MAX);
        let bytes = count.saturating_mul(u64::from(elem.bytes()));
        if dims.is_empty() || bytes > 48 * 1024 {
            return unsupported(
                span,
                "shared memory over 48 KiB",
                "use smaller or fewer shared arrays (at most 48 KiB per block), or give \
                 them constant dimensions",
            );
        }
        let sym = format!("{}_sh{}", self.entry, self.shared_decls.len());
        self.shared_decls.push(format!(".shared .align 16 .b8 {sym}[{}]", bytes.max(1)));
        let ptr = self.reg(RegClass::B64);
        self.ins(format!("mov.u64 {ptr}, {sym}"));
        let mut regs = Vec::new();
        for d in &dims {
            regs.push(self.imm_int(NumTy::U32, *d as i64));
        }
        if zero {
            self.zero_shared(ptr, &bytes.div_ceil(4).to_string());
        }
        Ok((ptr, regs))
    }

    /// The block's threads clear `words` 4-byte words at `ptr` (an immediate or a register;
    /// arrays start 16- or 64-byte aligned, so the rounding up stays inside the padding).
    pub(super) fn zero_shared(&mut self, ptr: Reg, words: &str) {
        let (i, n) = self.block_thread();
        let (head, done) = (self.label(), self.label());
        self.place(&head);
        let p = self.reg(RegClass::Pred);
        self.ins(format!("setp.ge.u32 {p}, {i}, {words}"));
        self.ins(format!("@{p} bra {done}"));
        let (off, addr) = (self.reg(RegClass::B64), self.reg(RegClass::B64));
        self.ins(format!("mul.wide.u32 {off}, {i}, 4"));
        self.ins(format!("add.s64 {addr}, {ptr}, {off}"));
        self.ins(format!("st.shared.u32 [{addr}], 0"));
        self.ins(format!("add.u32 {i}, {i}, {n}"));
        self.ins(format!("bra.uni {head}"));
        self.place(&done);
    }

    /// The thread's linear index in its block and the block's thread count (`u32`; the index
    /// register is the caller's to advance).
    pub(super) fn block_thread(&mut self) -> (Reg, Reg) {
        let (tx, ty, tz, nx, ny, nz) = (
            self.reg(RegClass::B32),
            self.reg(RegClass::B32),
            self.reg(RegClass::B32),
            self.reg(RegClass::B32),
            self.reg(RegClass::B32),
            self.reg(RegClass::B32),
        );
        for (r, s) in [
            (tx, "tid.x"),
            (ty, "tid.y"),
            (tz, "tid.z"),
            (nx, "ntid.x"),
            (ny, "ntid.y"),
            (nz, "ntid.z"),
        ] {
            self.ins(format!("mov.u32 {r}, %{s}"));
        }
        let (i, n) = (self.reg(RegClass::B32), self.reg(RegClass::B32));
        self.ins(format!("mad.lo.u32 {i}, {tz}, {ny}, {ty}"));
        self.ins(format!("mad.lo.u32 {i}, {i}, {nx}, {tx}"));
        self.ins(format!("mul.lo.u32 {n}, {nx}, {ny}"));
        self.ins(format!("mul.lo.u32 {n}, {n}, {nz}"));
        (i, n)
    }
}
