//! The parameter ABI of a kernel entry (documented in `mod.rs`): launch dimensions, launch
//! arguments, output slots; the launch rank; the special parameters from `%tid`/`%ctaid`/….

use super::kernel::{local, Ctx};
use super::regs::{cplx_of, small_vec, ArrRef, NumTy, RegClass, Space, Val};
use super::{unsupported, PtxParam, PtxParamRole, Res};
use crate::ir::{self, LocalId, Special};
use crate::sema::types::{Access, Rank, Type};

/// The parameters of launch argument `arg` (local `lid`) and its value in the kernel.
pub(super) fn bind_arg(
    cx: &mut Ctx<'_>,
    f: &ir::Function,
    lid: LocalId,
    arg: usize,
    params: &mut Vec<PtxParam>,
) -> Res<Val> {
    let l = local(f, lid)?;
    let entry = cx.entry.clone();
    let name = format!("{entry}_a{arg}");
    match &l.ty {
        Type::Array(a) => {
            let Rank::Fixed(rank) = a.rank else {
                return unsupported(
                    l.span,
                    format!("the array `{}` of unknown rank", l.name),
                    format!(
                        "give `{}` a type of known rank (`vec`, `mat`, `cube`) in the \
                         kernel's parameters",
                        l.name
                    ),
                );
            };
            let complex = cplx_of(&a.elem);
            // Arrays of class values: elements laid out as the host's `repr(C)` struct.
            let class = match &a.elem {
                t @ Type::Class(_) => Some(super::class::layout_of(cx.module, t, l.span)?),
                _ => None,
            };
            let Some(elem) = NumTy::of(&a.elem).or(complex).or(class.as_ref().map(|_| NumTy::U8))
            else {
                return unsupported(
                    l.span,
                    format!("arrays of {} (`{}`)", a.elem, l.name),
                    "pass an array of numbers (`vec`, `mat'int`, `cube'uint8`, …) or of \
                     complex numbers instead",
                );
            };
            let ptr = cx.reg(RegClass::B64);
            cx.ins(format!("ld.param.u64 {ptr}, [{name}]"));
            cx.ins(format!("cvta.to.global.u64 {ptr}, {ptr}"));
            params.push(PtxParam {
                name: name.clone(),
                ty: ".u64".into(),
                bytes: 8,
                role: PtxParamRole::ArrayData { arg },
            });
            let mut dims = Vec::new();
            for d in 0..rank.max(1) as usize {
                let dn = format!("{name}_d{d}");
                let r = cx.reg(RegClass::B32);
                cx.ins(format!("ld.param.u32 {r}, [{dn}]"));
                dims.push(r);
                params.push(PtxParam {
                    name: dn,
                    ty: ".u32".into(),
                    bytes: 4,
                    role: PtxParamRole::ArrayExtent { arg, dim: d },
                });
            }
            let access = a.mods.access.unwrap_or(Access::Safe);
            Ok(Val::Array(ArrRef {
                ptr,
                dims,
                elem,
                complex: complex.is_some(),
                access,
                space: Space::Global,
                name: l.name.clone(),
                class,
            }))
        }
        t => {
            if let Some(pt) = cplx_of(t) {
                // Two words, real part first (`Complex<T>`), as a byte array.
                let (re, im) = (cx.reg(pt.class()), cx.reg(pt.class()));
                let b = pt.bytes();
                cx.ins(format!("ld.param.{} {re}, [{name}]", pt.mem()));
                cx.ins(format!("ld.param.{} {im}, [{name}+{b}]", pt.mem()));
                params.push(PtxParam {
                    name,
                    ty: format!(".align {b} .b8"),
                    bytes: 2 * b as usize,
                    role: PtxParamRole::Value { arg, by_bytes: true },
                });
                return Ok(Val::Cplx(re, im, pt));
            }
            if let Type::Class(_) = t {
                // By value, as the bytes of the host's `repr(C)` struct.
                let lay = super::class::layout_of(cx.module, t, l.span)?;
                let v = cx.load_class(&lay, super::class::Mem::Param(&name), 0);
                params.push(PtxParam {
                    name,
                    ty: format!(".align {} .b8", lay.align),
                    bytes: lay.size as usize,
                    role: PtxParamRole::Value { arg, by_bytes: true },
                });
                return Ok(v);
            }
            if let Type::Function(ft) = t {
                return cx.bind_fn_value(ft, name, arg, params, l.span);
            }
            let Some(nt) = NumTy::of(t) else {
                return unsupported(
                    l.span,
                    format!("the parameter `{}` of type {t}", l.name),
                    "pass numbers, fixed-size vectors, complex numbers, arrays or \
                     `__device__` function values to the kernel, and unpack other values \
                     in host code",
                );
            };
            let r = cx.reg(nt.class());
            if nt == NumTy::F16 {
                let h = cx.reg(RegClass::B16);
                cx.ins(format!("ld.param.b16 {h}, [{name}]"));
                cx.ins(format!("cvt.f32.f16 {r}, {h}"));
            } else {
                cx.ins(format!("ld.param.{} {r}, [{name}]", nt.mem()));
            }
            params.push(PtxParam {
                name,
                ty: format!(".{}", nt.mem()),
                bytes: nt.bytes() as usize,
                role: PtxParamRole::Value { arg, by_bytes: false },
            });
            Ok(Val::Num(r, nt))
        }
    }
}

/// Computes the special parameters and makes threads past the launch edge leave.
pub(super) fn specials(cx: &mut Ctx<'_>, f: &ir::Function, rank: usize, exit: &str) -> Res<()> {
    let axis = |d: usize| ["x", "y", "z"][(rank - 1 - d).min(2)];
    let sreg = |cx: &mut Ctx<'_>, what: &str, d: usize| {
        let r = cx.reg(RegClass::B32);
        cx.ins(format!("mov.u32 {r}, %{what}.{}", axis(d)));
        r
    };
    let mut pos = Vec::new();
    for d in 0..rank {
        let t = sreg(cx, "tid", d);
        let c = sreg(cx, "ctaid", d);
        let n = sreg(cx, "ntid", d);
        let r = cx.reg(RegClass::B32);
        cx.ins(format!("mad.lo.s32 {r}, {c}, {n}, {t}"));
        pos.push(r);
    }
    cx.positions = pos.clone();
    if !cx.uses_sync {
        for (&at, dim) in pos.iter().zip(cx.dims.clone()) {
            let p = cx.reg(RegClass::Pred);
            cx.ins(format!("setp.ge.u32 {p}, {at}, {dim}"));
            cx.ins(format!("@{p} bra {exit}"));
        }
    }
    for (i, l) in f.locals.iter().enumerate() {
        let Some(which) = l.special() else { continue };
        // A cooperative group has no registers (see `coop.rs`).
        if which.thread_group().is_some() {
            cx.frame_mut()?.locals.insert(LocalId(i as u32), Val::Void);
            continue;
        }
        // `pos : vec2` is allowed too: the positions as floating-point numbers.
        let (width, elem) = match &l.ty {
            Type::Int(..) => (None, NumTy::I32),
            t => match small_vec(t)
                .filter(|_| super::small::small_shape(t).is_some_and(|s| s.len() == 1))
            {
                Some((e, n)) if e == NumTy::I32 || e.is_float() => (Some(n), e),
                _ => {
                    return unsupported(
                        l.span,
                        format!("`{}` of type {}", l.name, l.ty),
                        format!(
                            "declare `{}` as `int` or a fixed-size vector of ints or floats \
                             (`ivec2`, `vec3`)",
                            l.name
                        ),
                    )
                }
            },
        };
        let mut regs = Vec::new();
        #[allow(clippy::needless_range_loop)] // `d` also selects the CUDA axis
        for d in 0..width.unwrap_or(1) {
            let r = match which {
                Special::WarpSize => {
                    let r = cx.reg(RegClass::B32);
                    cx.ins(format!("mov.u32 {r}, WARP_SZ"));
                    r
                }
                // Past the launch's rank: position 0 of a block of 1 of 1 block.
                _ if d >= rank => cx.imm_int(
                    NumTy::I32,
                    i64::from(matches!(which, Special::BlkDim | Special::BlkCnt)),
                ),
                Special::Pos => pos[d],
                Special::BlkPos => sreg(cx, "tid", d),
                Special::BlkIdx => sreg(cx, "ctaid", d),
                Special::BlkDim => sreg(cx, "ntid", d),
                Special::BlkCnt => sreg(cx, "nctaid", d),
                Special::CoalescedThreads
                | Special::ThisThreadBlock
                | Special::ThisGrid
                | Special::ThisMultiGrid => {
                    return unsupported(
                        l.span,
                        format!("the special parameter `{which}`"),
                        "obtain the group in the kernel body (`g = coalesced_threads`) \
                         or use `this_thread_block` / `coalesced_threads`, the groups \
                         the GPU supports",
                    )
                }
            };
            regs.push(cx.convert_reg(r, NumTy::I32, elem));
        }
        let v = match width {
            None => Val::Num(regs[0], NumTy::I32),
            Some(_) => Val::Vec(regs, elem),
        };
        cx.frame_mut()?.locals.insert(LocalId(i as u32), v);
    }
    Ok(())
}
