//! Built-in functions in kernels: shapes (`numel`, `size`, `ndims`), shared memory,
//! barriers, conversions, reductions over fixed-size vectors, and the element-wise math of
//! `math.rs` applied to numbers and vectors.

use super::kernel::Ctx;
use super::regs::{small_vec, ArrRef, NumTy, Reg, RegClass, Space, Val};
use super::{unsupported, Res, DYNAMIC_SHARED};

const NOT_CONSTANT: &str = "shared memory whose size is not a constant (outside the top level \
                            of the kernel body)";
use crate::ir::{Const, Expr};
use crate::sema::check::METHOD_PREFIX;
use crate::sema::types::{Access, Type};
use crate::span::Span;

impl Ctx<'_> {
    pub fn builtin(&mut self, name: &str, args: &[Expr], ty: &Type, span: Span) -> Res<Val> {
        if let Some(method) = name.strip_prefix(METHOD_PREFIX) {
            return self.thread_block_method(method, args, span);
        }
        match name {
            "syncthreads" | "syncthread" => {
                let scope = match args.first().and_then(|a| a.constant()) {
                    Some(Const::Str(s)) => s.as_str(),
                    None => "block",
                    Some(_) => "?",
                };
                match scope {
                    "block" => self.ins("bar.sync 0"),
                    // The active threads: the warp may have diverged (manual §9.8.1).
                    "warp" => {
                        let m = self.reg(RegClass::B32);
                        self.ins(format!("activemask.b32 {m}"));
                        self.ins(format!("bar.warp.sync {m}"));
                    }
                    s => return unsupported(span, format!("`syncthreads({s})`")),
                }
                return Ok(Val::Void);
            }
            "shared" | "shared_zeros" => return self.shared(name, args, ty, span),
            // `zeros(3)` in a kernel is a `vec3` in registers (the type checker gives the
            // constant length); one register per element, as element writes need.
            // `uninit` is zero too, so every register is defined.
            "zeros" | "ones" | "uninit" if small_vec(ty, self.opts).is_some() => {
                let Some((t, n)) = small_vec(ty, self.opts) else { return Ok(Val::Void) };
                let v = if name == "ones" { 1.0 } else { 0.0 };
                return Ok(Val::Vec((0..n).map(|_| self.imm(t, v)).collect(), t));
            }
            _ => {}
        }
        let mut vals = Vec::new();
        for a in args {
            vals.push(self.expr(a)?);
        }
        self.builtin_vals(name, vals, ty, span)
    }

    /// A built-in applied to evaluated arguments.
    pub fn builtin_vals(&mut self, name: &str, vals: Vec<Val>, ty: &Type, span: Span) -> Res<Val> {
        match (name, vals.as_slice()) {
            ("numel", [Val::Array(a)]) => {
                let n = self.numel(a);
                return Ok(Val::Num(n, NumTy::I32));
            }
            ("numel", [Val::Vec(rs, _)]) => {
                return Ok(Val::Num(self.imm_int(NumTy::I32, rs.len() as i64), NumTy::I32));
            }
            ("ndims", [Val::Array(a)]) => {
                return Ok(Val::Num(self.imm_int(NumTy::I32, a.dims.len() as i64), NumTy::I32));
            }
            ("size", [Val::Array(a)]) => {
                return match a.dims.as_slice() {
                    [d] => Ok(Val::Num(*d, NumTy::I32)),
                    ds => Ok(Val::Vec(ds.to_vec(), NumTy::I32)),
                };
            }
            ("size", [Val::Array(a), Val::Num(d, dt)]) => {
                let a = a.clone();
                let d = self.convert_reg(*d, *dt, NumTy::I32);
                return Ok(Val::Num(self.extent(&a, d), NumTy::I32));
            }
            ("size", [Val::Vec(rs, _), ..]) => {
                let n = rs.len() as i64;
                return Ok(Val::Num(self.imm_int(NumTy::I32, n), NumTy::I32));
            }
            ("min" | "max" | "sum" | "prod" | "mean", [Val::Vec(rs, t)])
                if ty.as_array().is_none() =>
            {
                return self.reduce_vec(name, rs.clone(), *t, ty, span);
            }
            _ => {}
        }
        if let Some(v) = self.cplx_builtin(name, &vals, ty, span)? {
            return Ok(v);
        }
        if vals.iter().any(|v| !matches!(v, Val::Num(..) | Val::Vec(..) | Val::Void)) {
            return unsupported(span, format!("`{name}` on arrays"));
        }
        let vals: Vec<Val> = vals.into_iter().filter(|v| !matches!(v, Val::Void)).collect();
        if let Some(rt) = NumTy::of(ty, self.opts) {
            let args = self.nums(&vals, None, span)?;
            return Ok(Val::Num(self.math(name, &args, rt, span)?, rt));
        }
        if let Some((rt, n)) = small_vec(ty, self.opts) {
            let mut out = Vec::new();
            for k in 0..n {
                let args = self.nums(&vals, Some(k), span)?;
                out.push(self.math(name, &args, rt, span)?);
            }
            return Ok(Val::Vec(out, rt));
        }
        unsupported(span, format!("`{name}` giving {ty}"))
    }

    /// Numbers from the arguments (element `k` of vectors, numbers broadcast).
    fn nums(&mut self, vals: &[Val], k: Option<usize>, span: Span) -> Res<Vec<(Reg, NumTy)>> {
        let mut out = Vec::new();
        for v in vals {
            match (v, k) {
                (Val::Num(r, t), _) => out.push((*r, *t)),
                (Val::Vec(rs, t), Some(k)) if k < rs.len() => out.push((rs[k], *t)),
                (Val::Vec(rs, t), None) if rs.len() == 1 => out.push((rs[0], *t)),
                _ => return unsupported(span, "vector arguments of different lengths"),
            }
        }
        Ok(out)
    }

    /// The number of elements of an array.
    pub fn numel(&mut self, a: &ArrRef) -> Reg {
        let mut n = a.dims[0];
        for &d in &a.dims[1..] {
            let p = self.reg(RegClass::B32);
            self.ins(format!("mul.lo.u32 {p}, {n}, {d}"));
            n = p;
        }
        n
    }

    /// `size(a, d)`: 1 past the last dimension.
    fn extent(&mut self, a: &ArrRef, d: Reg) -> Reg {
        let r = self.imm_int(NumTy::I32, 1);
        for (k, e) in a.dims.iter().enumerate() {
            let p = self.reg(RegClass::Pred);
            self.ins(format!("setp.eq.s32 {p}, {d}, {k}"));
            self.ins(format!("selp.b32 {r}, {e}, {r}, {p}"));
        }
        r
    }

    fn reduce_vec(
        &mut self,
        name: &str,
        rs: Vec<Reg>,
        t: NumTy,
        ty: &Type,
        span: Span,
    ) -> Res<Val> {
        let rt = NumTy::of(ty, self.opts).unwrap_or(t);
        let mut acc = self.convert_reg(rs[0], t, rt);
        for &r in &rs[1..] {
            let x = self.convert_reg(r, t, rt);
            let d = self.reg(rt.class());
            let a = rt.arith();
            match name {
                "min" | "max" => self.ins(format!("{name}.{a} {d}, {acc}, {x}")),
                "sum" | "mean" => self.ins(format!("add.{a} {d}, {acc}, {x}")),
                _ if rt.is_float() => self.ins(format!("mul.{a} {d}, {acc}, {x}")),
                _ => self.ins(format!("mul.lo.{a} {d}, {acc}, {x}")),
            }
            acc = d;
        }
        if name == "mean" {
            if !rt.is_float() {
                return unsupported(span, "`mean` of an integer vector");
            }
            let n = self.imm(rt, rs.len() as f64);
            let d = self.reg(rt.class());
            self.ins(format!("div.rn.{} {d}, {acc}, {n}", rt.arith()));
            acc = d;
        }
        Ok(Val::Num(acc, rt))
    }

    /// `shared(dims…)` / `shared_zeros(dims…)` (zero-filled by the block's threads).
    ///
    /// The arrays of `local = shared(…)` statements at the top level of the kernel body are
    /// carved from the dynamic shared memory `quasar_shared` (see `mod.rs`), whatever their
    /// dimensions; elsewhere only constant dimensions are supported, as a static `.shared`
    /// array.
    fn shared(&mut self, name: &str, args: &[Expr], ty: &Type, span: Span) -> Res<Val> {
        let Some(arr) = ty.as_array() else {
            return unsupported(span, format!("`{name}` giving {ty}"));
        };
        let Some(elem) = NumTy::of(&arr.elem, self.opts) else {
            return unsupported(span, format!("shared arrays of {}", arr.elem));
        };
        let access = arr.mods.access.unwrap_or(Access::Safe);
        let top = self.frames.len() == 1 && self.top_shared.contains(&(span.start, span.end));
        let (ptr, dims) = if top {
            self.dynamic_shared(args, elem, name == "shared_zeros")?
        } else {
            self.static_shared(args, elem, name == "shared_zeros", span)?
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
        }))
    }

    /// A shared array in the dynamic shared memory: at the running offset rounded up to 64
    /// bytes (the CPU backend's layout), dimensions computed at run time.
    fn dynamic_shared(&mut self, args: &[Expr], elem: NumTy, zero: bool) -> Res<(Reg, Vec<Reg>)> {
        let mut dims = Vec::new();
        for a in args {
            match self.expr(a)? {
                Val::Num(r, t) if !t.is_float() => dims.push(self.convert_reg(r, t, NumTy::U32)),
                Val::Vec(rs, t) if !t.is_float() => {
                    for r in rs {
                        dims.push(self.convert_reg(r, t, NumTy::U32));
                    }
                }
                _ => return unsupported(a.span, "a shared array dimension that is not an integer"),
            }
        }
        if dims.is_empty() {
            return unsupported(Span::default(), "a shared array without dimensions");
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
                                _ => return unsupported(a.span, NOT_CONSTANT),
                            }
                        }
                    }
                    _ => return unsupported(a.span, NOT_CONSTANT),
                },
            }
        }
        let count: u64 =
            dims.iter().try_fold(1u64, |acc, &d| acc.checked_mul(d)).unwrap_or(u64::MAX);
        let bytes = count.saturating_mul(u64::from(elem.bytes()));
        if dims.is_empty() || bytes > 48 * 1024 {
            return unsupported(span, "shared memory over 48 KiB");
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
    fn zero_shared(&mut self, ptr: Reg, words: &str) {
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
}
