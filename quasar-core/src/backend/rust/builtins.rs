//! Built-in calls in generated Rust (manual chapter 14): `quasar_std::builtins` on host
//! arrays, `quasar_std::rt` on numbers and inside kernels. The dispatch is one exhaustive
//! `match` on [`Builtin`]: the arms at its end list what this back end does not compile.

use super::call::result_num;
use super::expr::{cast_num, V};
use super::func::{Ctx, FnGen};
use super::ty::{Num, Repr};
use super::{unsupported, GResult};
use crate::ir::{Builtin, Builtin as B, Expr};
use crate::sema::types::Type;
use crate::span::Span;
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

impl FnGen<'_, '_> {
    /// A built-in call. The `match` is exhaustive: the arms at the end list what this back
    /// end does not compile.
    pub(super) fn builtin(
        &mut self,
        b: Builtin,
        args: &[Expr],
        ty: &Type,
        span: Span,
    ) -> GResult<V> {
        let name = b.name();
        let rt = self.g.rt.clone();
        let q = quote!(#rt::qstd);
        let bi = quote!(#q::builtins);
        // `imshow` and `plot` return a figure handle (`??`): a statement here, no value.
        let r = if matches!(b, B::Imshow | B::Plot) && *ty == Type::Unknown {
            Repr::Unit
        } else {
            self.repr_of(ty, span)?
        };
        let rn = r.num();
        let bad = || {
            unsupported(
                span,
                format_args!("the built-in `{name}` with these arguments"),
                "pass the arguments the manual lists for this built-in",
            )
        };
        let nargs = args.len();
        let arity = |ok: bool| if ok { Ok(()) } else { Err(bad()) };
        let t = match b {
            B::Schedule | B::SchedAttr | B::AllocAttr | B::TransferAttr => {
                return self.runtime_control(b, args, span)
            }
            B::Object if self.ctx == super::func::Ctx::Host => {
                arity(nargs == 0)?;
                let v = self.object_alloc();
                return self.dynamic_as(v, r, span);
            }
            // `vec[mat](n)`, a typed cell array (its elements are checked when read).
            B::Cell | B::Uninit | B::Zeros
                if self.ctx == super::func::Ctx::Host && r == Repr::Value =>
            {
                let v = self.cell_alloc(args, span)?;
                return self.dynamic_as(v, r, span);
            }
            B::Exp
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
            | B::Sinh
            | B::Cosh
            | B::Tanh
            | B::Sqrt
            | B::Floor
            | B::Ceil
            | B::Round
            | B::Frac => {
                // The same name in `quasar_std::rt` and `builtins`.
                arity(nargs == 1)?;
                let n = rn.ok_or_else(bad)?;
                let fi = format_ident!("{}", name);
                // `half` is computed in `f32` and rounded back once, as the PTX back end does.
                let scalar = |x: TokenStream| match n {
                    Num::F16 => quote!(#rt::run::f16::from_f32(#q::rt::#fi((#x).to_f32()))),
                    _ => quote!(#q::rt::#fi(#x)),
                };
                self.map1(&args[0], &r, n, scalar, Some(quote!(#bi::#fi)))?
            }
            B::Rsqrt => {
                arity(nargs == 1)?;
                let n = rn.ok_or_else(bad)?;
                let one = n.literal(1.0, &rt);
                // No host-array version: `rsqrt` is a kernel built-in.
                self.map1(&args[0], &r, n, |x| quote!((#one / #q::rt::sqrt(#x))), None)?
            }
            B::Abs
            | B::Real
            | B::Imag
            | B::Conj
            | B::Sign
            | B::Saturate
            | B::Isnan
            | B::Isinf
            | B::Isfinite => {
                arity(nargs == 1)?;
                let a = self.expr(&args[0])?;
                let an = a.r.num().ok_or_else(bad)?;
                let fi = format_ident!("{}", name);
                let out = rn.ok_or_else(bad)?;
                match &a.r {
                    // `half` through `f32` (exact for these functions).
                    Repr::Num(Num::F16) => {
                        let x = a.t;
                        let f = Num::F32;
                        cast_num(result_num(b, f), out, quote!(#q::rt::#fi((#x).to_f32())), &rt)
                    }
                    Repr::Num(_) => {
                        let x = a.t;
                        cast_num(result_num(b, an), out, quote!(#q::rt::#fi(#x)), &rt)
                    }
                    Repr::Array(..) => {
                        let x = a.t;
                        let call = quote!(#bi::#fi(&#x)?);
                        let produced = Repr::Array(result_num(b, an), None);
                        self.convert(V { t: call, r: produced }, &r, span)?
                    }
                    Repr::Fixed(_, s) => {
                        let len: usize = s.iter().product();
                        let x = a.t;
                        let e =
                            cast_num(result_num(b, an), out, quote!(#q::rt::#fi(__a[__k])), &rt);
                        quote!({ let __a = #x; ::core::array::from_fn::<_, #len, _>(|__k| #e) })
                    }
                    _ => return Err(bad()),
                }
            }
            B::Mod | B::Atan2 | B::Pow | B::Min | B::Max if nargs == 2 => {
                let n = rn.ok_or_else(bad)?;
                let (sf, af) = match b {
                    B::Mod => (quote!(modulo), quote!(modulo)),
                    B::Atan2 => (quote!(atan2), quote!(atan2)),
                    B::Pow if self.g.fused => (quote!(pow_sel::<__F, _>), quote!(pow)),
                    B::Pow => (quote!(pow), quote!(pow)),
                    B::Min => (quote!(min), quote!(minimum)),
                    _ => (quote!(max), quote!(maximum)),
                };
                let scalar = |x: TokenStream, y: TokenStream| match n {
                    Num::F16 => quote!(#rt::run::f16::from_f32(#q::rt::#sf(
                        (#x).to_f32(),
                        (#y).to_f32()
                    ))),
                    _ => quote!(#q::rt::#sf(#x, #y)),
                };
                self.map2(&args[0], &args[1], &r, n, scalar, quote!(#bi::#af))?
            }
            B::Mod | B::Atan2 | B::Pow => return Err(bad()),
            B::Clamp => {
                arity(nargs == 3)?;
                let n = rn.ok_or_else(bad)?;
                let x = self.num_as(&args[0], n)?;
                let lo = self.num_as(&args[1], n)?;
                let hi = self.num_as(&args[2], n)?;
                quote!(#q::rt::clamp(#x, #lo, #hi))
            }
            B::Lerp => {
                arity(nargs == 3)?;
                let n = rn.ok_or_else(bad)?;
                let x = self.num_as(&args[0], n)?;
                let y = self.num_as(&args[1], n)?;
                let w = self.num_as(&args[2], n)?;
                quote!({ let (__x, __y, __w) = (#x, #y, #w); __x + (__y - __x) * __w })
            }
            B::Periodize | B::MirrorExt => {
                arity(nargs == 2)?;
                let x = self.num_as(&args[0], Num::I64)?;
                let m = self.num_as(&args[1], Num::I64)?;
                let fi = format_ident!("{}", name);
                // A coordinate (an `int`), converted to the result type of float arguments.
                let n = rn.ok_or_else(bad)?;
                cast_num(Num::I32, n, quote!((#q::rt::#fi(#x, #m) as i32)), &rt)
            }
            B::Complex if nargs == 2 => {
                let n = rn.ok_or_else(bad)?;
                let p = n.part();
                let re = self.num_as(&args[0], p)?;
                let im = self.num_as(&args[1], p)?;
                if !matches!(r, Repr::Num(_)) {
                    return Err(bad());
                }
                quote!(#q::rt::complex(#re, #im))
            }
            B::Int
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
            | B::Complex
            | B::ScalarToHalf => {
                arity((1..=2).contains(&nargs))?;
                let a = self.expr(&args[0])?;
                self.convert(a, &r, span)?
            }
            B::Zeros | B::Ones | B::Uninit | B::Rand | B::Randn | B::Czeros | B::Cones => {
                let n = rn.ok_or_else(bad)?;
                let nt = n.tokens(&rt);
                let fi = match b {
                    B::Czeros => format_ident!("zeros"),
                    B::Cones => format_ident!("ones"),
                    _ => format_ident!("{}", name),
                };
                let fixed_ok = !matches!(b, B::Rand | B::Randn);
                match &r {
                    Repr::Array(..) => {
                        let dims = self.dims_arg(name, args)?;
                        quote!(#bi::#fi::<#nt>(&#dims)?)
                    }
                    Repr::Fixed(_, s) if fixed_ok => {
                        let len: usize = s.iter().product();
                        let v = if matches!(b, B::Ones | B::Cones) {
                            n.literal(1.0, &rt)
                        } else {
                            n.zero(&rt)
                        };
                        quote!([#v; #len])
                    }
                    _ => return Err(bad()),
                }
            }
            B::Eye => {
                arity(nargs == 1 || nargs == 2)?;
                let n = rn.ok_or_else(bad)?;
                let nt = n.tokens(&rt);
                let m = self.num_as(&args[0], Num::I64)?;
                if nargs == 1 {
                    quote!(#bi::eye::<#nt>(#bi::to_dims("eye", &[#m as i32])?[0])?)
                } else {
                    let k = self.num_as(&args[1], Num::I64)?;
                    quote!({ let __d = #bi::to_dims("eye", &[#m as i32, #k as i32])?; #bi::eye_rect::<#nt>(__d[0], __d[1])? })
                }
            }
            B::Linspace => {
                arity(nargs == 3)?;
                let n = rn.ok_or_else(bad)?;
                let a = self.num_as(&args[0], n)?;
                let c = self.num_as(&args[1], n)?;
                let k = self.num_as(&args[2], Num::I64)?;
                quote!(#bi::linspace(#a, #c, #bi::to_dims("linspace", &[#k as i32])?[0])?)
            }
            B::Size => match nargs {
                1 => self.size_of(&args[0], &r, span)?,
                2 if !matches!(
                    super::repr::repr_in(self.g, &args[1].ty, self.ctx, span)?,
                    Repr::Num(_)
                ) =>
                {
                    self.size_dims(&args[0], &args[1], &r, span)?
                }
                2 => {
                    let a = self.expr(&args[0])?;
                    let d = self.num_as(&args[1], Num::I32)?;
                    let x = a.t;
                    match a.r {
                        Repr::Value => {
                            let v = self.vtry(quote!((#x).size_dim(#d as i64)), span);
                            quote!((#v as i32))
                        }
                        Repr::Array(..) => quote!(#bi::size_dim(&#x, #d)?),
                        Repr::View(..) => quote!((#x.dim(#d.max(0) as usize) as i32)),
                        Repr::Fixed(_, s) => {
                            let dims = s.iter().map(|v| *v as i32);
                            quote!({ let __s = [#(#dims),*]; let __d = #d; if __d >= 0 && (__d as usize) < __s.len() { __s[__d as usize] } else { 1 } })
                        }
                        _ => return Err(bad()),
                    }
                }
                _ => return Err(bad()),
            },
            B::Numel => {
                arity(nargs == 1)?;
                let a = self.expr(&args[0])?;
                let x = a.t;
                match a.r {
                    Repr::Value => quote!((#x.numel() as i32)),
                    Repr::Str => quote!((#x.chars().count() as i32)),
                    Repr::Array(..) => quote!(#bi::numel(&#x)?),
                    Repr::View(..) => quote!((#x.numel() as i32)),
                    Repr::Fixed(_, s) => {
                        let len: usize = s.iter().product();
                        let len = len as i32;
                        quote!(#len)
                    }
                    _ => return Err(bad()),
                }
            }
            B::Ndims => {
                arity(nargs == 1)?;
                let a = self.expr(&args[0])?;
                let x = a.t;
                match a.r {
                    Repr::Value => quote!(((#x).ndims() as i32)),
                    Repr::Array(..) => quote!(#bi::ndims(&#x)),
                    Repr::View(..) => quote!((#x.shape().ndim() as i32)),
                    Repr::Fixed(_, s) => {
                        let n = s.len() as i32;
                        quote!(#n)
                    }
                    _ => return Err(bad()),
                }
            }
            B::Copy | B::Deepcopy | B::Transpose | B::Squeeze => {
                arity(nargs == 1)?;
                let a = self.expr(&args[0])?;
                let x = a.t;
                let fi = format_ident!("{}", name);
                match a.r {
                    Repr::Array(..) => quote!(#bi::#fi(&#x)?),
                    Repr::Fixed(..) if b != B::Transpose => x,
                    // A small matrix in a kernel: its elements in the transposed order.
                    Repr::Fixed(_, s) => {
                        let order = crate::backend::small_layout::transposed(&s).ok_or_else(bad)?;
                        quote!({ let __a = #x; [#(__a[#order]),*] })
                    }
                    // A cell array, object or `??` value: a deep copy (manual §2.1).
                    Repr::Value if matches!(b, B::Copy | B::Deepcopy) => {
                        self.vtry(quote!((#x).deep_copy()), span)
                    }
                    _ => return Err(bad()),
                }
            }
            // The conjugate transpose (the transpose of a real matrix).
            B::HermTranspose => {
                arity(nargs == 1)?;
                let a = self.expr(&args[0])?;
                let x = a.t;
                match a.r {
                    Repr::Array(..) => quote!(#bi::conj(&#bi::transpose(&#x)?)?),
                    _ => return Err(bad()),
                }
            }
            B::Reshape | B::Repmat => {
                arity(nargs >= 2)?;
                let a = self.expr(&args[0])?;
                let Repr::Array(..) = a.r else { return Err(bad()) };
                let dims = self.dims_arg(name, &args[1..])?;
                let x = a.t;
                let fi = format_ident!("{}", name);
                quote!(#bi::#fi(&#x, &#dims)?)
            }
            B::Sum | B::Prod | B::Mean | B::Min | B::Max | B::Cumsum | B::Cumprod => {
                arity(nargs == 1 || nargs == 2)?;
                self.reduction(b, args, &r, span)?
            }
            B::Dotprod => {
                arity(nargs == 2)?;
                let n = rn.ok_or_else(bad)?;
                let nt = n.tokens(&rt);
                // Fixed-size vectors (kernels, `vec3` on the host): the sum of the products,
                // in order, in the result's type.
                let rx = self.repr_of(&args[0].ty, args[0].span)?;
                let ry = self.repr_of(&args[1].ty, args[1].span)?;
                if let (Repr::Fixed(nx, sx), Repr::Fixed(ny, sy)) = (&rx, &ry) {
                    let len: usize = sx.iter().product();
                    if len != sy.iter().product::<usize>() || len == 0 {
                        return Err(unsupported(
                            span,
                            "`dotprod` of vectors of different lengths",
                            "pass two vectors of the same length",
                        ));
                    }
                    let ex = cast_num(*nx, n, quote!(__x[__k]), &rt);
                    let ey = cast_num(*ny, n, quote!(__y[__k]), &rt);
                    let tx = self.expr_as(&args[0], &rx)?;
                    let ty = self.expr_as(&args[1], &ry)?;
                    return Ok(V {
                        t: quote!({
                            let __x = #tx;
                            let __y = #ty;
                            let __k = 0usize;
                            let mut __acc = #ex * #ey;
                            for __k in 1..#len { __acc = __acc + #ex * #ey; }
                            __acc
                        }),
                        r,
                    });
                }
                let x = self.expr_as(&args[0], &Repr::Array(n, None))?;
                let y = self.expr_as(&args[1], &Repr::Array(n, None))?;
                quote!(<_ as #bi::Cast<#nt>>::cast(#bi::dotprod(&#x, &#y)?))
            }
            B::Imread => {
                arity(nargs == 1 || nargs == 2)?;
                let p = self.expr_as(&args[0], &Repr::Str)?;
                let t = match args.get(1) {
                    Some(m) => {
                        let m = self.expr_as(m, &Repr::Str)?;
                        quote!(#q::image::imread_mode(&#p, &#m)?)
                    }
                    None => quote!(#q::image::imread(&#p)?),
                };
                self.convert(V { t, r: Repr::Array(Num::F32, Some(3)) }, &r, span)?
            }
            B::Imwrite => {
                arity(nargs == 2 || nargs == 3)?;
                let p = self.expr_as(&args[0], &Repr::Str)?;
                let x = self.expr_as(&args[1], &Repr::Array(Num::F32, None))?;
                match args.get(2) {
                    None => quote!(#q::image::imwrite(&#p, &#x)?),
                    Some(range) => {
                        let range = self.expr_as(range, &Repr::Array(Num::F32, None))?;
                        quote!({
                            let __r = #range.to_vec()?;
                            let [__lo, __hi] = __r[..] else {
                                return ::core::result::Result::Err(#rt::run::Error::argument("imwrite", ::std::format!("the value range must be [min, max], found {} values", __r.len())));
                            };
                            #q::image::imwrite_range(&#p, &#x, __lo, __hi)?
                        })
                    }
                }
            }
            B::Sprintf
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
            | B::Imshow
            | B::Hold
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
            | B::Cell
            | B::Mat2cell
            | B::Cell2mat
            | B::Inv
            | B::Svd
            | B::Det
            | B::Linsolve
            | B::Chol
            | B::Symeig
            | B::Fft1
            | B::Ifft1
            | B::Fft2
            | B::Ifft2
            | B::Fft3
            | B::Ifft3
            | B::Irealfft1
            | B::Irealfft2
            | B::Irealfft3
            | B::Factorial
            | B::Shuffledims
            | B::Ind2pos
            | B::Pos2ind
            | B::Isreal
            | B::Iscomplex
            | B::Isscalar
            | B::Isvector
            | B::Ismatrix
            | B::Iscube => self.library(b, args, &r, span)?,
            B::MaxBlockSize | B::OptBlockSize | B::OptBlockCnt | B::GpuFeature => {
                self.launch_query(b, args, &r, span)?
            }
            B::And | B::Or | B::Xor | B::Shl | B::Shr | B::Not | B::Angle | B::Maxvalue | B::Minvalue => {
                self.bits_and_limits(b, args, &r, span)?
            }
            B::Find => {
                arity(nargs == 1)?;
                let a = self.expr(&args[0])?;
                let n = a.r.num().ok_or_else(bad)?;
                let x = self.convert(a, &Repr::Array(n, None), span)?;
                quote!(#q::rt::find(&#x)?)
            }
            B::Any | B::All => {
                arity(nargs == 1)?;
                let a = self.expr(&args[0])?;
                let n = a.r.num().ok_or_else(bad)?;
                let z = n.zero(&rt);
                let x = a.t;
                let f = format_ident!("{}", name);
                match a.r {
                    Repr::Array(..) => quote!((#x.to_vec()?.iter().#f(|__v| *__v != #z) as i32)),
                    Repr::Fixed(..) => quote!((#x.iter().#f(|__v| *__v != #z) as i32)),
                    _ => quote!(((#x != #z) as i32)),
                }
            }
            B::Type if nargs <= 2 => self.library(b, args, &r, span)?,
            // `$target("cpu")`: this back end compiles for the CPU (manual §17.2.6).
            B::MetaTarget if nargs == 1 => {
                let holds = match args[0].constant() {
                    Some(crate::ir::Const::Str(t)) => crate::sema::check::target_holds(t, false),
                    _ => return Err(bad()),
                };
                let v = i32::from(holds);
                quote!(#v)
            }
            // `print(s)` as an expression (in a lambda's `(a; print(a); b)`), as the statement.
            B::Print if self.ctx == Ctx::Host => {
                let parts = self.show_parts(args)?;
                quote!({ #q::rt::print_line(&[#(&#parts as &dyn #q::rt::Show),*]); })
            }
            // Not compiled by this back end (yet).
            B::Type
            | B::Typename
            | B::Print
            | B::Unassert
            | B::Assert
            | B::Shared
            | B::SharedZeros
            | B::Syncthreads
            | B::Syncthread
            | B::Memfence
            // GPU-only kernels never reach here (`gpu_only.rs`).
            | B::GroupSync
            | B::GroupPartition
            | B::GroupShfl
            | B::GroupShflUp
            | B::GroupShflDown
            | B::GroupShflXor
            | B::GroupAll
            | B::GroupAny
            | B::GroupBallot
            | B::GroupMatchAny
            | B::GroupMatchAll
            | B::MetaStr
            | B::MetaEval
            | B::MetaTarget
            | B::MetaFtype => {
                return Err(unsupported(
                    span,
                    format_args!("the built-in `{b}` ({nargs} arguments)"),
                    "pass the arguments the manual lists for this built-in",
                ))
            }
            // Manual §8.6: "only provided for testing"; `$str`, `$eval`, `$target` and
            // `$ftype` are answered when compiling (`sema/check/meta.rs`).
            B::MetaCheck
            | B::MetaSimplify
            | B::MetaUbound
            | B::MetaInline
            | B::MetaSpecialize
            | B::MetaNops
            | B::MetaAssump
            | B::MetaSubs
            | B::MetaOp
            | B::MetaArgs
            | B::MetaTyperecon => {
                return Err(unsupported(
                    span,
                    format_args!("the meta function `{b}`"),
                    "write the code it stands for; this compiler answers `$str`, `$eval`, \
                     `$target`, `$ftype`, `$specialize` and `$inline` when compiling",
                ))
            }
        };
        Ok(V { t, r })
    }
}
