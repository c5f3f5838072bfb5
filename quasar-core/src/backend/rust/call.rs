//! Calls: function instances of the module, function values, and the built-ins of manual
//! chapter 14 (`quasar_std::builtins` on host arrays, `quasar_std::rt` on numbers and inside
//! kernels).

use super::expr::{cast_num, V};
use super::func::{Ctx, FnGen};
use super::ty::{Num, Repr};
use super::{unsupported, GResult};
use crate::ir::{Builtin, Builtin as B, Callee, Expr, ExprKind, FunctionId};
use crate::sema::types::Type;
use crate::span::Span;
use crate::syntax::ast::FunctionKind;
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

impl<'g, 'm> FnGen<'g, 'm> {
    pub fn call(&mut self, callee: &Callee, args: &[Expr], ty: &Type, span: Span) -> GResult<V> {
        if args.iter().any(|a| matches!(a.kind, ExprKind::Spread(_))) {
            return Err(unsupported(span, "`...` spread arguments in calls"));
        }
        match callee {
            Callee::Function(id) => self.call_function(*id, args, ty, span),
            Callee::Value(f) => {
                let fv = self.expr(f)?;
                let Repr::FnVal(k) = fv.r else {
                    return Err(unsupported(span, "calling this value"));
                };
                let sig = self.g.info.fnvals.signature(k).clone();
                let mut vals = Vec::new();
                for (a, p) in args.iter().zip(&sig.params) {
                    let pr = self.repr_of(p, a.span)?;
                    vals.push(self.expr_as(a, &pr)?);
                }
                let r = self.repr_of(ty, span)?;
                let t = fv.t;
                Ok(V { t: quote!(#t.call(#(#vals),*)?), r })
            }
            Callee::Builtin(b) => self.call_builtin(*b, args, ty, span),
            Callee::Unresolved(name) => Err(unsupported(
                span,
                format_args!("this call of `{name}` (its result type could not be inferred)"),
            )),
        }
    }

    fn call_function(
        &mut self,
        id: FunctionId,
        args: &[Expr],
        ty: &Type,
        span: Span,
    ) -> GResult<V> {
        let f = self.g.m.function(id);
        if f.kind == FunctionKind::Kernel {
            return Err(unsupported(span, "calling a kernel function directly (use parallel_do)"));
        }
        // A device function called from host code also runs over device values
        // (numbers and fixed vectors), converted at the call.
        let callee_ctx = if f.kind == FunctionKind::Device { Ctx::Device } else { Ctx::Host };
        let slots: Vec<_> = f.params.iter().chain(&f.captures).copied().collect();
        if slots.len() != args.len() {
            return Err(unsupported(
                span,
                format_args!(
                    "this call of `{}` ({} arguments for {} parameters)",
                    f.name,
                    args.len(),
                    slots.len()
                ),
            ));
        }
        let mut vals = Vec::new();
        for (a, p) in args.iter().zip(&slots) {
            let l = f.local(*p);
            let pr = super::expr::repr_in(self.g, &l.ty, callee_ctx, l.span)?;
            if self.ctx == Ctx::Host && matches!(pr, Repr::View(..)) {
                return Err(unsupported(
                    a.span,
                    "passing a host array to a device function (call it from a kernel)",
                ));
            }
            let param = format!("argument `{}` of `{}`", l.name, f.name);
            vals.push(self.arg_as(a, &pr, &param, &l.ty)?);
        }
        let name = self.g.fn_ident(id);
        // The result as the callee returns it, then as this function holds it.
        let mut outs = Vec::new();
        for o in &f.outputs {
            let l = f.local(*o);
            outs.push(super::expr::repr_in(self.g, &l.ty, callee_ctx, l.span)?);
        }
        let t = quote!(#name(#(#vals),*)?);
        let r = self.repr_of(ty, span)?;
        let produced = match outs.len() {
            0 => Repr::Unit,
            1 => outs.pop().unwrap_or(Repr::Unit),
            _ => Repr::Tuple(outs),
        };
        if produced == r || matches!(produced, Repr::Tuple(_)) {
            return Ok(V { t, r: produced });
        }
        let t = self.convert(V { t, r: produced }, &r, span)?;
        Ok(V { t, r })
    }

    /// A built-in call. The `match` is exhaustive: the arms at the end list what this back
    /// end does not compile.
    fn call_builtin(&mut self, b: Builtin, args: &[Expr], ty: &Type, span: Span) -> GResult<V> {
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
        let bad = || unsupported(span, format_args!("the built-in `{name}` with these arguments"));
        let nargs = args.len();
        let arity = |ok: bool| if ok { Ok(()) } else { Err(bad()) };
        let t = match b {
            B::Schedule | B::SchedAttr | B::AllocAttr | B::TransferAttr => {
                return self.runtime_control(b, args, span)
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
                self.map1(&args[0], &r, n, |x| quote!(#q::rt::#fi(#x)), Some(quote!(#bi::#fi)))?
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
                    B::Pow if self.g.fused => (quote!(pow_fma), quote!(pow)),
                    B::Pow => (quote!(pow), quote!(pow)),
                    B::Min => (quote!(min), quote!(minimum)),
                    _ => (quote!(max), quote!(maximum)),
                };
                self.map2(
                    &args[0],
                    &args[1],
                    &r,
                    n,
                    |x, y| quote!(#q::rt::#sf(#x, #y)),
                    quote!(#bi::#af),
                )?
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
                quote!((#q::rt::#fi(#x, #m) as i32))
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
                    super::expr::repr_in(self.g, &args[1].ty, self.ctx, span)?,
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
                    Repr::Array(..) => quote!(#bi::ndims(&#x)),
                    Repr::View(..) => quote!((#x.shape().ndim() as i32)),
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
            // Not compiled by this back end (yet).
            B::Type
            | B::Typename
            | B::HermTranspose
            | B::Print
            | B::Unassert
            | B::Assert
            | B::Shared
            | B::SharedZeros
            | B::Syncthreads
            | B::Syncthread
            | B::Memfence
            | B::MaxBlockSize
            | B::OptBlockSize
            | B::OptBlockCnt
            | B::GpuFeature
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
            | B::MetaCheck
            | B::MetaStr
            | B::MetaEval
            | B::MetaSimplify
            | B::MetaUbound
            | B::MetaInline
            | B::MetaSpecialize
            | B::MetaTarget
            | B::MetaFtype
            | B::MetaNops
            | B::MetaAssump
            | B::MetaSubs
            | B::MetaOp
            | B::MetaArgs
            | B::MetaTyperecon => {
                return Err(unsupported(
                    span,
                    format_args!("the built-in `{b}` ({nargs} arguments)"),
                ))
            }
        };
        Ok(V { t, r })
    }

    /// A one-argument float function over a number, a fixed vector or a host array.
    pub(super) fn map1(
        &mut self,
        a: &Expr,
        r: &Repr,
        n: Num,
        scalar: impl Fn(TokenStream) -> TokenStream,
        array_fn: Option<TokenStream>,
    ) -> GResult<TokenStream> {
        Ok(match r {
            Repr::Num(_) => scalar(self.num_as(a, n)?),
            Repr::Fixed(_, s) => {
                let len: usize = s.iter().product();
                let x = self.expr_as(a, r)?;
                let e = scalar(quote!(__a[__k]));
                quote!({ let __a = #x; ::core::array::from_fn::<_, #len, _>(|__k| #e) })
            }
            Repr::Array(..) => {
                let f =
                    array_fn.ok_or_else(|| unsupported(a.span, "this built-in on host arrays"))?;
                let x = self.expr_as(a, r)?;
                quote!(#f(&#x)?)
            }
            _ => return Err(unsupported(a.span, "this argument")),
        })
    }

    /// A two-argument function with broadcasting of numbers.
    pub(super) fn map2(
        &mut self,
        a: &Expr,
        c: &Expr,
        r: &Repr,
        n: Num,
        scalar: impl Fn(TokenStream, TokenStream) -> TokenStream,
        array_fn: TokenStream,
    ) -> GResult<TokenStream> {
        let one = |e: &Expr, me: &mut Self| -> GResult<(TokenStream, bool)> {
            let v = me.expr(e)?;
            Ok(match v.r.clone() {
                Repr::Num(_) => (me.convert(v, &Repr::Num(n), e.span)?, false),
                Repr::Array(_, k) => (me.convert(v, &Repr::Array(n, k), e.span)?, true),
                Repr::Fixed(_, s) => (me.convert(v, &Repr::Fixed(n, s), e.span)?, true),
                _ => return Err(unsupported(e.span, "this argument")),
            })
        };
        let (x, xa) = one(a, self)?;
        let (y, ya) = one(c, self)?;
        Ok(match r {
            Repr::Num(_) => scalar(x, y),
            Repr::Fixed(_, s) => {
                let len: usize = s.iter().product();
                let xe = if xa { quote!(__a[__k]) } else { quote!(__a) };
                let ye = if ya { quote!(__b[__k]) } else { quote!(__b) };
                let e = scalar(xe, ye);
                quote!({ let __a = #x; let __b = #y; ::core::array::from_fn::<_, #len, _>(|__k| #e) })
            }
            Repr::Array(..) => {
                let xo = if xa { quote!(&#x) } else { x };
                let yo = if ya { quote!(&#y) } else { y };
                quote!(#array_fn(#xo, #yo)?)
            }
            _ => return Err(unsupported(a.span, "these arguments")),
        })
    }

    /// Dimension arguments (`zeros(m, n)`, `zeros(size(x))`, `zeros([2, 3])`) as a `Vec<usize>`.
    pub(super) fn dims_arg(&mut self, name: &str, args: &[Expr]) -> GResult<TokenStream> {
        let rt = self.g.rt.clone();
        let q = quote!(#rt::qstd);
        let mut pushes = Vec::new();
        for a in args {
            let v = self.expr(a)?;
            let t = v.t;
            match &v.r {
                Repr::Num(n) if !n.is_complex() => {
                    let x = cast_num(*n, Num::I32, t, &rt);
                    pushes.push(quote!(__d.push(#x);));
                }
                Repr::Array(n, _) if n.is_int() => {
                    pushes.push(quote!(__d.extend(#t.to_vec()?.into_iter().map(|__v| __v as i32));))
                }
                Repr::Fixed(n, _) if n.is_int() => {
                    pushes.push(quote!(__d.extend(#t.iter().map(|__v| *__v as i32));))
                }
                // `scalar` dimensions (`repmat(x, [r, 1])` with a scalar `r`): whole numbers.
                Repr::Array(n, _) if n.is_float() => pushes.push(
                    quote!(for __v in #t.to_vec()? { __d.push(#q::builtins::float_dim(#name, f64::from(__v))?); }),
                ),
                Repr::Fixed(n, _) if n.is_float() => pushes.push(
                    quote!(for __v in #t { __d.push(#q::builtins::float_dim(#name, f64::from(__v))?); }),
                ),
                _ => return Err(unsupported(a.span, "this dimension argument")),
            }
        }
        Ok(
            quote!(#q::builtins::to_dims(#name, &{ let mut __d: ::std::vec::Vec<i32> = ::std::vec::Vec::new(); #(#pushes)* __d })?),
        )
    }

    fn size_of(&mut self, a: &Expr, r: &Repr, span: Span) -> GResult<TokenStream> {
        let rt = self.g.rt.clone();
        let b = quote!(#rt::qstd::builtins);
        let v = self.expr(a)?;
        let x = v.t;
        Ok(match (&v.r, r) {
            (Repr::Array(..), Repr::Array(..)) => {
                let len = self.fixed_len_of(a);
                match len {
                    Some(k) => quote!(#rt::qstd::rt::to_array(#b::size_n::<#k, _>(&#x)?, &[#k])?),
                    None => {
                        quote!({ let __s = #b::size(&#x)?; let __n = __s.len(); #rt::run::Array::from_vec(&[__n], __s)? })
                    }
                }
            }
            (Repr::View(..), Repr::Fixed(_, s)) => {
                let len: usize = s.iter().product();
                let ds = (0..len).map(|d| quote!((__v.dim(#d) as i32)));
                quote!({ let __v = #x; [#(#ds),*] })
            }
            (Repr::Fixed(_, s), Repr::Fixed(_, rs)) => {
                let len: usize = rs.iter().product();
                let ds = (0..len).map(|d| s.get(d).copied().unwrap_or(1) as i32);
                quote!([#(#ds),*])
            }
            _ => return Err(unsupported(span, "`size` of this value")),
        })
    }

    /// The length of `size(a)`'s result type, when fixed.
    /// `size(x, dims)` with a vector of dimensions (`size(x, 0..1)`): the listed extents, as a
    /// fixed-size vector when the result type has a known length, else as an array.
    fn size_dims(&mut self, a: &Expr, dims: &Expr, r: &Repr, span: Span) -> GResult<TokenStream> {
        let rt = self.g.rt.clone();
        let b = quote!(#rt::qstd::builtins);
        let v = self.expr(a)?;
        let x = v.t;
        let d = self.expr(dims)?;
        let dt = d.t;
        let list = match d.r {
            Repr::Fixed(..) => {
                quote!(#dt.iter().map(|&__d| __d as i32).collect::<::std::vec::Vec<i32>>())
            }
            Repr::Array(..) => {
                quote!(#dt.to_vec()?.into_iter().map(|__d| __d as i32).collect::<::std::vec::Vec<i32>>())
            }
            _ => return Err(unsupported(span, "`size(x, dims)` with these dimensions")),
        };
        // The extent of dimension `__d` of `x` (1 past its last dimension).
        let extent = match v.r {
            Repr::Array(..) => quote!(#b::size_dim(&#x, __d)?),
            Repr::View(..) => quote!(if __d < 0 { 0 } else { #x.dim(__d as usize) as i32 }),
            _ => return Err(unsupported(span, "`size(x, dims)` of this value")),
        };
        let collect = quote!({
            let mut __e: ::std::vec::Vec<i32> = ::std::vec::Vec::new();
            for __d in #list { __e.push(#extent); }
            __e
        });
        Ok(match r {
            Repr::Fixed(_, s) => {
                let k: usize = s.iter().product();
                let idx = (0..k).map(|i| quote!(__e.get(#i).copied().unwrap_or(1)));
                quote!({ let __e = #collect; [#(#idx),*] })
            }
            Repr::Array(..) => {
                quote!({ let __e = #collect; let __n = __e.len(); #rt::run::Array::from_vec(&[__n], __e)? })
            }
            _ => return Err(unsupported(span, "`size(x, dims)` with this result type")),
        })
    }

    fn fixed_len_of(&self, a: &Expr) -> Option<usize> {
        let arr = a.ty.as_array()?;
        super::ty::rank_of(arr).map(|r| r as usize)
    }

    fn reduction(
        &mut self,
        b: Builtin,
        args: &[Expr],
        r: &Repr,
        span: Span,
    ) -> GResult<TokenStream> {
        let rt = self.g.rt.clone();
        let q = quote!(#rt::qstd);
        let bi = quote!(#q::builtins);
        let name = b.name();
        let a = self.expr(&args[0])?;
        let rn =
            r.num().ok_or_else(|| unsupported(span, format_args!("`{name}` with this result")))?;
        let rnt = rn.tokens(&rt);
        let x = a.t.clone();
        let fi = format_ident!("{}", name);
        Ok(match (&a.r, args.len()) {
            (Repr::Array(..), 1) if matches!(b, B::Cumsum | B::Cumprod) => {
                quote!(#bi::cast::<#rnt, _>(&#bi::#fi(&#x)?)?)
            }
            (Repr::Array(..), 1) => {
                if b == B::Mean {
                    quote!(#bi::mean::<_, #rnt>(&#x)?)
                } else {
                    quote!(<_ as #bi::Cast<#rnt>>::cast(#bi::#fi(&#x)?))
                }
            }
            (Repr::Array(..), 2) => {
                let d = self.num_as(&args[1], Num::I32)?;
                let fd = format_ident!("{}_dim", name);
                if b == B::Mean {
                    quote!(#bi::mean_dim::<_, #rnt>(&#x, #d)?)
                } else {
                    quote!(#bi::cast::<#rnt, _>(&#bi::#fd(&#x, #d)?)?)
                }
            }
            (Repr::Fixed(n, s), 1) if !matches!(b, B::Cumsum | B::Cumprod) => {
                let len: usize = s.iter().product();
                let e = cast_num(*n, rn, quote!(__a[__k]), &rt);
                let body = match b {
                    B::Sum | B::Mean => {
                        quote!(let mut __acc = #e; for __k in 1..#len { __acc = __acc + { let __k = __k; #e }; })
                    }
                    B::Prod => {
                        quote!(let mut __acc = #e; for __k in 1..#len { __acc = __acc * { let __k = __k; #e }; })
                    }
                    B::Min => {
                        quote!(let mut __acc = #e; for __k in 1..#len { __acc = #q::rt::min(__acc, { let __k = __k; #e }); })
                    }
                    _ => {
                        quote!(let mut __acc = #e; for __k in 1..#len { __acc = #q::rt::max(__acc, { let __k = __k; #e }); })
                    }
                };
                let fin = if b == B::Mean {
                    let l = rn.literal(len as f64, &rt);
                    quote!(__acc / #l)
                } else {
                    quote!(__acc)
                };
                quote!({ let __a = #x; let __k = 0usize; #body #fin })
            }
            (Repr::Num(n), 1) => cast_num(*n, rn, x, &rt),
            _ => return Err(unsupported(span, format_args!("`{name}` of this value here"))),
        })
    }
}

/// The element type a one-argument built-in produces from `arg`.
fn result_num(b: Builtin, arg: Num) -> Num {
    match b {
        B::Abs | B::Real | B::Imag => arg.part(),
        B::Isnan | B::Isinf | B::Isfinite => Num::I32,
        _ => arg,
    }
}
