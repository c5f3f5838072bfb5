//! Built-in functions in kernels: shapes (`numel`, `size`, `ndims`), shared memory (in
//! `shared.rs`), barriers, conversions, reductions over fixed-size vectors, and the
//! element-wise math of `math.rs` applied to numbers and vectors.

use super::kernel::Ctx;
use super::regs::{small_vec, ArrRef, NumTy, Reg, RegClass, Val};
use super::{unsupported, Res};
use crate::ir::{Builtin, Builtin as B, Const, Expr, NodeId};
use crate::sema::types::Type;
use crate::span::Span;

impl Ctx<'_> {
    /// A built-in call (`node` is the call's id). The `match` is exhaustive: the last arm
    /// lists what this back end does not compile.
    pub fn builtin(
        &mut self,
        b: Builtin,
        args: &[Expr],
        ty: &Type,
        span: Span,
        node: NodeId,
    ) -> Res<Val> {
        match b {
            // `$target("gpu")`: this back end compiles for NVIDIA GPUs (manual §17.2.6).
            B::MetaTarget => match args.first().and_then(|a| a.constant()) {
                Some(Const::Str(t)) => {
                    let holds = crate::sema::check::target_holds(t, true);
                    Ok(Val::Num(self.imm_int(NumTy::I32, holds.into()), NumTy::I32))
                }
                _ => {
                    unsupported(span, "`$target` without a target name", "write `$target(\"gpu\")`")
                }
            },
            B::Syncthreads | B::Syncthread => {
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
                    s => {
                        return unsupported(
                            span,
                            format!("`syncthreads({s})`"),
                            "write `syncthreads` (the block) or `syncthreads(warp)`; to \
                             synchronise the whole grid, end the kernel there and launch a \
                             second one",
                        )
                    }
                }
                Ok(Val::Void)
            }
            B::Shared | B::SharedZeros => self.shared(b, args, ty, span, node),
            // `maxvalue(T)`/`minvalue(T)`: the type's limits (the most negative finite
            // value for floats), from the result type.
            B::Maxvalue | B::Minvalue => {
                let Some(t) = NumTy::of(ty) else {
                    return unsupported(
                        span,
                        format!("`{b}` of {ty}"),
                        "ask for the limits of a numeric type (`maxvalue(int)`, \
                         `minvalue(scalar)`)",
                    );
                };
                let max = b == B::Maxvalue;
                let r = match t {
                    NumTy::F16 => self.imm(t, if max { 65504.0 } else { -65504.0 }),
                    NumTy::F32 => {
                        self.imm(t, if max { f64::from(f32::MAX) } else { f64::from(f32::MIN) })
                    }
                    NumTy::F64 => self.imm(t, if max { f64::MAX } else { f64::MIN }),
                    _ => {
                        let (lo, hi) = int_limits(t);
                        self.imm_int(t, if max { hi } else { lo })
                    }
                };
                Ok(Val::Num(r, t))
            }
            // `zeros(3)` in a kernel is a `vec3` in registers (the type checker gives the
            // constant length); one register per element, as element writes need.
            // `uninit` is zero too, so every register is defined.
            B::Zeros | B::Ones | B::Uninit if small_vec(ty).is_some() => {
                let Some((t, n)) = small_vec(ty) else { return Ok(Val::Void) };
                let v = if b == B::Ones { 1.0 } else { 0.0 };
                Ok(Val::Vec((0..n).map(|_| self.imm(t, v)).collect(), t))
            }
            B::GroupSync
            | B::GroupPartition
            | B::GroupShfl
            | B::GroupShflUp
            | B::GroupShflDown
            | B::GroupShflXor
            | B::GroupAll
            | B::GroupAny
            | B::GroupBallot
            | B::GroupMatchAny
            | B::GroupMatchAll => self.thread_block_method(b.name(), args, span),
            // `transpose(m)` and `sum(m, d)` of small matrices: their elements reordered or
            // combined along `d` (`backend/small_layout.rs`).
            B::Transpose if args.len() == 1 && super::small::small_shape(&args[0].ty).is_some() => {
                self.small_transpose(&args[0], ty, span)
            }
            B::Sum | B::Prod | B::Mean
                if args.len() == 2
                    && super::small::small_shape(&args[0].ty).is_some()
                    && small_vec(ty).is_some() =>
            {
                self.small_along(b, args, ty, span)
            }
            // `squeeze` of a small array (`squeeze(img[m, n, 0..2])`): the same elements.
            B::Squeeze if args.len() == 1 && small_vec(ty).is_some() => {
                let v = self.expr(&args[0])?;
                self.convert_to(v, ty, span)
            }
            // `size(x, 0..1)`: the extents of those dimensions (1 past the rank).
            B::Size
                if args.len() == 2
                    && crate::ir::slice::constant_range_values(&args[1]).is_some() =>
            {
                let ds = crate::ir::slice::constant_range_values(&args[1]).unwrap_or_default();
                let Val::Array(a) = self.expr(&args[0])? else {
                    return unsupported(span, "`size(x, a..b)` of this value", "pass an array");
                };
                let regs = ds
                    .iter()
                    .map(|&d| match usize::try_from(d).ok().and_then(|d| a.dims.get(d)) {
                        Some(r) => *r,
                        None => self.imm_int(NumTy::I32, i64::from(d >= 0)),
                    })
                    .collect();
                Ok(Val::Vec(regs, NumTy::I32))
            }
            B::Size | B::Ndims
                if args
                    .first()
                    .and_then(|a| super::small::small_shape(&a.ty))
                    .is_some_and(|s| s.len() >= 2) =>
            {
                self.small_size(b, args, ty, span)
            }
            // On numbers, vectors and arrays of the kernel: `builtin_vals` says which.
            B::Numel
            | B::Ndims
            | B::Size
            | B::Min
            | B::Max
            | B::Sum
            | B::Prod
            | B::Mean
            | B::Dotprod
            | B::Complex
            | B::Real
            | B::Imag
            | B::Conj
            | B::Abs
            | B::Angle
            | B::Int
            | B::Float
            | B::Cast
            | B::Int8
            | B::Int16
            | B::Int32
            | B::Int64
            | B::Uint8
            | B::Uint16
            | B::Uint32
            | B::Uint64
            | B::Mod
            | B::Periodize
            | B::MirrorExt
            | B::Clamp
            | B::Lerp
            | B::Sign
            | B::Floor
            | B::Ceil
            | B::Round
            | B::Frac
            | B::Saturate
            | B::Isnan
            | B::Isinf
            | B::Isfinite
            | B::Sqrt
            | B::Rsqrt
            | B::Exp
            | B::Exp2
            | B::Log
            | B::Log2
            | B::Log10
            | B::Sin
            | B::Cos
            | B::Tan
            | B::Asin
            | B::Acos
            | B::Atan
            | B::Atan2
            | B::Sinh
            | B::Cosh
            | B::Tanh
            | B::Pow
            | B::And
            | B::Or
            | B::Xor
            | B::Shl
            | B::Shr
            | B::Not => {
                let mut vals = Vec::new();
                for a in args {
                    vals.push(self.expr(a)?);
                }
                self.builtin_vals(b, vals, ty, span)
            }
            B::Ind2pos | B::Pos2ind => {
                let mut vals = Vec::new();
                for a in args {
                    vals.push(self.expr(a)?);
                }
                self.positions(b, &vals, span)
            }
            // Not compiled by this back end (yet): the kernel runs on the CPU.
            B::Zeros
            | B::Ones
            | B::Uninit
            | B::Rand
            | B::Randn
            | B::Czeros
            | B::Cones
            | B::Cell
            | B::Eye
            | B::Linspace
            | B::Copy
            | B::Deepcopy
            | B::Reshape
            | B::Repmat
            | B::Squeeze
            | B::Shuffledims
            | B::ScalarToHalf
            | B::Factorial
            | B::Cumsum
            | B::Cumprod
            | B::Any
            | B::All
            | B::Find
            | B::Type
            | B::Typename
            | B::Isreal
            | B::Iscomplex
            | B::Isscalar
            | B::Isvector
            | B::Ismatrix
            | B::Iscube
            | B::Transpose
            | B::HermTranspose
            | B::Inv
            | B::Svd
            | B::Det
            | B::Linsolve
            | B::Chol
            | B::Symeig
            | B::Irealfft1
            | B::Irealfft2
            | B::Irealfft3
            | B::Hold
            | B::Fft1
            | B::Ifft1
            | B::Fft2
            | B::Ifft2
            | B::Fft3
            | B::Ifft3
            | B::Print
            | B::Unassert
            | B::Assert
            | B::Sprintf
            | B::Printf
            | B::Fprintf
            | B::Sscanf
            | B::Num2str
            | B::String
            | B::Strcat
            | B::Fromascii
            | B::Fromunicode
            | B::Toascii
            | B::Tounicode
            | B::Imread
            | B::Imwrite
            | B::Imshow
            | B::Plot
            | B::Title
            | B::Xlabel
            | B::Ylabel
            | B::Legend
            | B::Xlim
            | B::Ylim
            | B::Disp
            | B::Pause
            | B::Load
            | B::Save
            | B::Dir
            | B::Tic
            | B::Toc
            | B::Eval
            | B::Fopen
            | B::Fread
            | B::Fwrite
            | B::Fclose
            | B::Fgets
            | B::Object
            | B::Mat2cell
            | B::Cell2mat
            | B::Memfence
            | B::MaxBlockSize
            | B::OptBlockSize
            | B::OptBlockCnt
            | B::GpuFeature
            | B::Schedule
            | B::SchedAttr
            | B::AllocAttr
            | B::TransferAttr
            | B::MetaCheck
            | B::MetaStr
            | B::MetaEval
            | B::MetaSimplify
            | B::MetaUbound
            | B::MetaInline
            | B::MetaSpecialize
            | B::MetaFtype
            | B::MetaNops
            | B::MetaAssump
            | B::MetaSubs
            | B::MetaOp
            | B::MetaArgs
            | B::MetaTyperecon => unsupported(
                span,
                format!("the built-in `{b}`"),
                "compute that value in host code (meta functions are evaluated when \
                 compiling, outside kernels) and pass it to the kernel",
            ),
        }
    }

    /// A built-in applied to evaluated arguments.
    pub fn builtin_vals(&mut self, b: Builtin, vals: Vec<Val>, ty: &Type, span: Span) -> Res<Val> {
        let name = b.name();
        match (b, vals.as_slice()) {
            (B::Numel, [Val::Array(a)]) => {
                let n = self.numel(a);
                return Ok(Val::Num(n, NumTy::I32));
            }
            (B::Numel, [Val::Vec(rs, _)]) => {
                return Ok(Val::Num(self.imm_int(NumTy::I32, rs.len() as i64), NumTy::I32));
            }
            (B::Ndims, [Val::Array(a)]) => {
                return Ok(Val::Num(self.imm_int(NumTy::I32, a.dims.len() as i64), NumTy::I32));
            }
            (B::Size, [Val::Array(a)]) => {
                return match a.dims.as_slice() {
                    [d] => Ok(Val::Num(*d, NumTy::I32)),
                    ds => Ok(Val::Vec(ds.to_vec(), NumTy::I32)),
                };
            }
            (B::Size, [Val::Array(a), Val::Num(d, dt)]) => {
                let a = a.clone();
                let d = self.convert_reg(*d, *dt, NumTy::I32);
                return Ok(Val::Num(self.extent(&a, d), NumTy::I32));
            }
            (B::Size, [Val::Vec(rs, _), ..]) => {
                let n = rs.len() as i64;
                return Ok(Val::Num(self.imm_int(NumTy::I32, n), NumTy::I32));
            }
            (B::Min | B::Max | B::Sum | B::Prod | B::Mean, [Val::Vec(rs, t)])
                if ty.as_array().is_none() =>
            {
                return self.reduce_vec(b, rs.clone(), *t, ty, span);
            }
            // A whole array captured by device code (`reduce_array.rs`).
            (B::Sum | B::Prod | B::Mean, [Val::Array(a)]) if NumTy::of(ty).is_some() => {
                let (a, rt) = (a.clone(), NumTy::of(ty).unwrap_or(NumTy::F32));
                return self.reduce_array(b, &a, rt, span);
            }
            (B::Dotprod, [Val::Vec(xs, tx), Val::Vec(ys, ty2)]) if xs.len() == ys.len() => {
                return self.dot_vec(xs.clone(), *tx, ys.clone(), *ty2, ty, span);
            }
            (B::Dotprod, _) => {
                return unsupported(
                    span,
                    "`dotprod` other than of two real vectors of one length",
                    "pass two real fixed-size vectors of the same length \
                     (`dotprod(a[0..2], b[0..2])`), or write the sum of products with a \
                     loop",
                );
            }
            _ => {}
        }
        if let Some(v) = self.cplx_builtin(b, &vals, ty, span)? {
            return Ok(v);
        }
        if vals.iter().any(|v| !matches!(v, Val::Num(..) | Val::Vec(..) | Val::Void)) {
            return unsupported(
                span,
                format!("`{name}` on arrays"),
                "apply the function element by element (`f(x[pos])`) or call it on the \
                 whole array in host code",
            );
        }
        let vals: Vec<Val> = vals.into_iter().filter(|v| !matches!(v, Val::Void)).collect();
        if let Some(rt) = NumTy::of(ty) {
            let args = self.nums(&vals, None, span)?;
            return Ok(Val::Num(self.math(b, &args, rt, span)?, rt));
        }
        if let Some((rt, n)) = small_vec(ty) {
            let mut out = Vec::new();
            for k in 0..n {
                let args = self.nums(&vals, Some(k), span)?;
                out.push(self.math(b, &args, rt, span)?);
            }
            return Ok(Val::Vec(out, rt));
        }
        unsupported(
            span,
            format!("`{name}` giving {ty}"),
            "call it on numbers or fixed-size vectors",
        )
    }

    /// Numbers from the arguments (element `k` of vectors, numbers broadcast).
    fn nums(&mut self, vals: &[Val], k: Option<usize>, span: Span) -> Res<Vec<(Reg, NumTy)>> {
        let mut out = Vec::new();
        for v in vals {
            match (v, k) {
                (Val::Num(r, t), _) => out.push((*r, *t)),
                (Val::Vec(rs, t), Some(k)) if k < rs.len() => out.push((rs[k], *t)),
                (Val::Vec(rs, t), None) if rs.len() == 1 => out.push((rs[0], *t)),
                _ => {
                    return unsupported(
                        span,
                        "vector arguments of different lengths",
                        "pass vectors of one length (or numbers, which are broadcast)",
                    )
                }
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
        b: Builtin,
        rs: Vec<Reg>,
        t: NumTy,
        ty: &Type,
        span: Span,
    ) -> Res<Val> {
        let rt = NumTy::of(ty).unwrap_or(t);
        let mut acc = self.convert_reg(rs[0], t, rt);
        for &r in &rs[1..] {
            let x = self.convert_reg(r, t, rt);
            let d = self.reg(rt.class());
            let a = rt.arith();
            match b {
                B::Min | B::Max => self.ins(format!("{}.{a} {d}, {acc}, {x}", b.name())),
                B::Sum | B::Mean => self.ins(format!("add.{a} {d}, {acc}, {x}")),
                _ if rt.is_float() => self.ins(format!("mul.{a} {d}, {acc}, {x}")),
                _ => self.ins(format!("mul.lo.{a} {d}, {acc}, {x}")),
            }
            acc = d;
        }
        if b == B::Mean {
            if !rt.is_float() {
                return unsupported(
                    span,
                    "`mean` of an integer vector",
                    "convert the vector to floats first (`mean(float(v))`) or divide the \
                     `sum` yourself",
                );
            }
            let n = self.imm(rt, rs.len() as f64);
            let d = self.reg(rt.class());
            self.ins(format!("div.rn.{} {d}, {acc}, {n}", rt.arith()));
            acc = d;
        }
        Ok(Val::Num(acc, rt))
    }

    /// `dotprod(x, y)` of two vectors in registers: the products summed in order, in the
    /// result's type (as the Rust back end computes it).
    fn dot_vec(
        &mut self,
        xs: Vec<Reg>,
        tx: NumTy,
        ys: Vec<Reg>,
        ty2: NumTy,
        ty: &Type,
        span: Span,
    ) -> Res<Val> {
        let Some(rt) = NumTy::of(ty) else {
            return unsupported(
                span,
                format!("`dotprod` giving {ty}"),
                "pass real vectors so that `dotprod` gives a number",
            );
        };
        if xs.is_empty() {
            return unsupported(span, "`dotprod` of empty vectors", "pass non-empty vectors");
        }
        let a = rt.arith();
        // Rounded separately (no fused multiply-add), as the Rust back end computes it.
        let (mul, add) = if rt.is_float() { ("mul.rn", "add.rn") } else { ("mul.lo", "add") };
        let mut acc: Option<Reg> = None;
        for (&x, &y) in xs.iter().zip(&ys) {
            let x = self.convert_reg(x, tx, rt);
            let y = self.convert_reg(y, ty2, rt);
            let p = self.reg(rt.class());
            self.ins(format!("{mul}.{a} {p}, {x}, {y}"));
            acc = Some(match acc {
                None => p,
                Some(s) => {
                    let d = self.reg(rt.class());
                    self.ins(format!("{add}.{a} {d}, {s}, {p}"));
                    d
                }
            });
        }
        Ok(Val::Num(acc.unwrap_or(xs[0]), rt))
    }
}

/// The smallest and largest value of an integer type, as the `i64` whose low bits
/// `imm_int` writes (`u64::MAX` is -1).
fn int_limits(t: NumTy) -> (i64, i64) {
    match t {
        NumTy::I8 => (i8::MIN.into(), i8::MAX.into()),
        NumTy::I16 => (i16::MIN.into(), i16::MAX.into()),
        NumTy::I32 => (i32::MIN.into(), i32::MAX.into()),
        NumTy::U8 => (0, u8::MAX.into()),
        NumTy::U16 => (0, u16::MAX.into()),
        NumTy::U32 => (0, u32::MAX.into()),
        NumTy::U64 => (0, -1),
        _ => (i64::MIN, i64::MAX),
    }
}
