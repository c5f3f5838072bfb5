//! Calls: function instances of the module, function values, and the built-ins of manual
//! chapter 14 (`quasar_std::builtins` on host arrays, `quasar_std::rt` on numbers and inside
//! kernels).

use super::expr::{cast_num, V};
use super::func::{Ctx, FnGen};
use super::ty::{Num, Repr};
use super::{unsupported, GResult};
use crate::ir::{Callee, Expr, ExprKind, FunctionId};
use crate::sema::types::Type;
use crate::span::Span;
use crate::syntax::ast::FunctionKind;
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

/// Float functions of one argument, the same name in `quasar_std::rt` and `builtins`.
const FLOAT_UNARY: &[&str] = &[
    "exp", "exp2", "log", "log2", "log10", "sin", "cos", "tan", "asin", "acos", "atan", "sinh",
    "cosh", "tanh", "sqrt", "floor", "ceil", "round", "frac",
];

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
                let sig = self.g.fnvals.signature(k).clone();
                let mut vals = Vec::new();
                for (a, p) in args.iter().zip(&sig.params) {
                    let pr = self.repr_of(p, a.span)?;
                    vals.push(self.expr_as(a, &pr)?);
                }
                let r = self.repr_of(ty, span)?;
                let t = fv.t;
                Ok(V { t: quote!(#t.call(#(#vals),*)?), r })
            }
            Callee::Builtin(name) => self.call_builtin(name, args, ty, span),
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
            vals.push(self.expr_as(a, &pr)?);
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

    fn call_builtin(&mut self, name: &str, args: &[Expr], ty: &Type, span: Span) -> GResult<V> {
        let rt = self.g.rt.clone();
        let q = quote!(#rt::qstd);
        let b = quote!(#q::builtins);
        let r = self.repr_of(ty, span)?;
        let rn = r.num();
        let bad = || unsupported(span, format_args!("the built-in `{name}` with these arguments"));
        let nargs = args.len();
        let t = match (name, nargs) {
            (f, 1) if FLOAT_UNARY.contains(&f) => {
                let n = rn.ok_or_else(bad)?;
                let fi = format_ident!("{}", f);
                self.map1(&args[0], &r, n, |x| quote!(#q::rt::#fi(#x)), Some(quote!(#b::#fi)))?
            }
            ("rsqrt", 1) => {
                let n = rn.ok_or_else(bad)?;
                let one = n.literal(1.0, &rt);
                // No host-array version: `rsqrt` is a kernel built-in.
                self.map1(&args[0], &r, n, |x| quote!((#one / #q::rt::sqrt(#x))), None)?
            }
            (
                "abs" | "real" | "imag" | "conj" | "sign" | "saturate" | "isnan" | "isinf"
                | "isfinite",
                1,
            ) => {
                let a = self.expr(&args[0])?;
                let an = a.r.num().ok_or_else(bad)?;
                let fi = format_ident!("{}", name);
                let out = rn.ok_or_else(bad)?;
                match &a.r {
                    Repr::Num(_) => {
                        let x = a.t;
                        cast_num(result_num(name, an), out, quote!(#q::rt::#fi(#x)), &rt)
                    }
                    Repr::Array(..) => {
                        let x = a.t;
                        let call = quote!(#b::#fi(&#x)?);
                        let produced = Repr::Array(result_num(name, an), None);
                        self.convert(V { t: call, r: produced }, &r, span)?
                    }
                    Repr::Fixed(_, s) => {
                        let len: usize = s.iter().product();
                        let x = a.t;
                        let e =
                            cast_num(result_num(name, an), out, quote!(#q::rt::#fi(__a[__k])), &rt);
                        quote!({ let __a = #x; ::core::array::from_fn::<_, #len, _>(|__k| #e) })
                    }
                    _ => return Err(bad()),
                }
            }
            ("mod" | "atan2" | "pow" | "min" | "max", 2) => {
                let n = rn.ok_or_else(bad)?;
                let (sf, af) = match name {
                    "mod" => (quote!(modulo), quote!(modulo)),
                    "atan2" => (quote!(atan2), quote!(atan2)),
                    "pow" if self.g.fused => (quote!(pow_fma), quote!(pow)),
                    "pow" => (quote!(pow), quote!(pow)),
                    "min" => (quote!(min), quote!(minimum)),
                    _ => (quote!(max), quote!(maximum)),
                };
                self.map2(
                    &args[0],
                    &args[1],
                    &r,
                    n,
                    |x, y| quote!(#q::rt::#sf(#x, #y)),
                    quote!(#b::#af),
                )?
            }
            ("clamp", 3) => {
                let n = rn.ok_or_else(bad)?;
                let x = self.num_as(&args[0], n)?;
                let lo = self.num_as(&args[1], n)?;
                let hi = self.num_as(&args[2], n)?;
                quote!(#q::rt::clamp(#x, #lo, #hi))
            }
            ("lerp", 3) => {
                let n = rn.ok_or_else(bad)?;
                let x = self.num_as(&args[0], n)?;
                let y = self.num_as(&args[1], n)?;
                let w = self.num_as(&args[2], n)?;
                quote!({ let (__x, __y, __w) = (#x, #y, #w); __x + (__y - __x) * __w })
            }
            ("periodize" | "mirror_ext", 2) => {
                let x = self.num_as(&args[0], Num::I64)?;
                let m = self.num_as(&args[1], Num::I64)?;
                let fi = format_ident!("{}", name);
                quote!((#q::rt::#fi(#x, #m) as i32))
            }
            (
                "int" | "float" | "cast" | "int8" | "int16" | "int32" | "int64" | "uint8"
                | "uint16" | "uint32" | "uint64" | "scalar" | "complex" | "scalar_to_half",
                1..=2,
            ) if !(name == "complex" && nargs == 2) => {
                let a = self.expr(&args[0])?;
                self.convert(a, &r, span)?
            }
            ("complex", 2) => {
                let n = rn.ok_or_else(bad)?;
                let p = n.part();
                let re = self.num_as(&args[0], p)?;
                let im = self.num_as(&args[1], p)?;
                if !matches!(r, Repr::Num(_)) {
                    return Err(bad());
                }
                quote!(#q::rt::complex(#re, #im))
            }
            ("zeros" | "ones" | "uninit" | "rand" | "randn" | "czeros" | "cones", _) => {
                let n = rn.ok_or_else(bad)?;
                let nt = n.tokens(&rt);
                let fi = match name {
                    "czeros" => format_ident!("zeros"),
                    "cones" => format_ident!("ones"),
                    f => format_ident!("{}", f),
                };
                match &r {
                    Repr::Array(..) => {
                        let dims = self.dims_arg(name, args)?;
                        quote!(#b::#fi::<#nt>(&#dims)?)
                    }
                    Repr::Fixed(_, s)
                        if matches!(name, "zeros" | "ones" | "uninit" | "czeros" | "cones") =>
                    {
                        let len: usize = s.iter().product();
                        let v = if matches!(name, "ones" | "cones") {
                            n.literal(1.0, &rt)
                        } else {
                            n.zero(&rt)
                        };
                        quote!([#v; #len])
                    }
                    _ => return Err(bad()),
                }
            }
            ("eye", 1 | 2) => {
                let n = rn.ok_or_else(bad)?;
                let nt = n.tokens(&rt);
                let m = self.num_as(&args[0], Num::I64)?;
                if nargs == 1 {
                    quote!(#b::eye::<#nt>(#b::to_dims("eye", &[#m as i32])?[0])?)
                } else {
                    let k = self.num_as(&args[1], Num::I64)?;
                    quote!({ let __d = #b::to_dims("eye", &[#m as i32, #k as i32])?; #b::eye_rect::<#nt>(__d[0], __d[1])? })
                }
            }
            ("linspace", 3) => {
                let n = rn.ok_or_else(bad)?;
                let a = self.num_as(&args[0], n)?;
                let c = self.num_as(&args[1], n)?;
                let k = self.num_as(&args[2], Num::I64)?;
                quote!(#b::linspace(#a, #c, #b::to_dims("linspace", &[#k as i32])?[0])?)
            }
            ("size", 1) => self.size_of(&args[0], &r, span)?,
            ("size", 2)
                if !matches!(
                    super::expr::repr_in(self.g, &args[1].ty, self.ctx, span)?,
                    Repr::Num(_)
                ) =>
            {
                self.size_dims(&args[0], &args[1], &r, span)?
            }
            ("size", 2) => {
                let a = self.expr(&args[0])?;
                let d = self.num_as(&args[1], Num::I32)?;
                let x = a.t;
                match a.r {
                    Repr::Array(..) => quote!(#b::size_dim(&#x, #d)?),
                    Repr::View(..) => quote!((#x.dim(#d.max(0) as usize) as i32)),
                    Repr::Fixed(_, s) => {
                        let dims = s.iter().map(|v| *v as i32);
                        quote!({ let __s = [#(#dims),*]; let __d = #d; if __d >= 0 && (__d as usize) < __s.len() { __s[__d as usize] } else { 1 } })
                    }
                    _ => return Err(bad()),
                }
            }
            ("numel", 1) => {
                let a = self.expr(&args[0])?;
                let x = a.t;
                match a.r {
                    Repr::Array(..) => quote!(#b::numel(&#x)?),
                    Repr::View(..) => quote!((#x.numel() as i32)),
                    Repr::Fixed(_, s) => {
                        let len: usize = s.iter().product();
                        let len = len as i32;
                        quote!(#len)
                    }
                    _ => return Err(bad()),
                }
            }
            ("ndims", 1) => {
                let a = self.expr(&args[0])?;
                let x = a.t;
                match a.r {
                    Repr::Array(..) => quote!(#b::ndims(&#x)),
                    Repr::View(..) => quote!((#x.shape().ndim() as i32)),
                    _ => return Err(bad()),
                }
            }
            ("copy" | "deepcopy" | "transpose" | "squeeze", 1) => {
                let a = self.expr(&args[0])?;
                let x = a.t;
                let fi = format_ident!("{}", name);
                match a.r {
                    Repr::Array(..) => quote!(#b::#fi(&#x)?),
                    Repr::Fixed(..) if name != "transpose" => x,
                    _ => return Err(bad()),
                }
            }
            ("reshape" | "repmat", _) if nargs >= 2 => {
                let a = self.expr(&args[0])?;
                let Repr::Array(..) = a.r else { return Err(bad()) };
                let dims = self.dims_arg(name, &args[1..])?;
                let x = a.t;
                let fi = format_ident!("{}", name);
                quote!(#b::#fi(&#x, &#dims)?)
            }
            ("sum" | "prod" | "mean" | "min" | "max" | "cumsum" | "cumprod", 1 | 2) => {
                self.reduction(name, args, &r, span)?
            }
            ("dotprod", 2) => {
                let n = rn.ok_or_else(bad)?;
                let nt = n.tokens(&rt);
                let x = self.expr_as(&args[0], &Repr::Array(n, None))?;
                let y = self.expr_as(&args[1], &Repr::Array(n, None))?;
                quote!(<_ as #b::Cast<#nt>>::cast(#b::dotprod(&#x, &#y)?))
            }
            ("imread", 1) => {
                let p = self.expr_as(&args[0], &Repr::Str)?;
                let t = quote!(#q::image::imread(&#p)?);
                self.convert(V { t, r: Repr::Array(Num::F32, Some(3)) }, &r, span)?
            }
            ("imwrite", 2) => {
                let p = self.expr_as(&args[0], &Repr::Str)?;
                let x = self.expr_as(&args[1], &Repr::Array(Num::F32, None))?;
                quote!(#q::image::imwrite(&#p, &#x)?)
            }
            ("any" | "all", 1) => {
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
            _ => {
                return Err(unsupported(
                    span,
                    format_args!("the built-in `{name}` ({nargs} arguments)"),
                ))
            }
        };
        Ok(V { t, r })
    }

    /// A one-argument float function over a number, a fixed vector or a host array.
    fn map1(
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
    fn map2(
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
    fn dims_arg(&mut self, name: &str, args: &[Expr]) -> GResult<TokenStream> {
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
        name: &str,
        args: &[Expr],
        r: &Repr,
        span: Span,
    ) -> GResult<TokenStream> {
        let rt = self.g.rt.clone();
        let q = quote!(#rt::qstd);
        let b = quote!(#q::builtins);
        let a = self.expr(&args[0])?;
        let rn =
            r.num().ok_or_else(|| unsupported(span, format_args!("`{name}` with this result")))?;
        let rnt = rn.tokens(&rt);
        let x = a.t.clone();
        let fi = format_ident!("{}", name);
        Ok(match (&a.r, args.len()) {
            (Repr::Array(..), 1) if matches!(name, "cumsum" | "cumprod") => {
                quote!(#b::cast::<#rnt, _>(&#b::#fi(&#x)?)?)
            }
            (Repr::Array(..), 1) => {
                if name == "mean" {
                    quote!(#b::mean::<_, #rnt>(&#x)?)
                } else {
                    quote!(<_ as #b::Cast<#rnt>>::cast(#b::#fi(&#x)?))
                }
            }
            (Repr::Array(..), 2) => {
                let d = self.num_as(&args[1], Num::I32)?;
                let fd = format_ident!("{}_dim", name);
                if name == "mean" {
                    quote!(#b::mean_dim::<_, #rnt>(&#x, #d)?)
                } else {
                    quote!(#b::cast::<#rnt, _>(&#b::#fd(&#x, #d)?)?)
                }
            }
            (Repr::Fixed(n, s), 1) if !matches!(name, "cumsum" | "cumprod") => {
                let len: usize = s.iter().product();
                let e = cast_num(*n, rn, quote!(__a[__k]), &rt);
                let body = match name {
                    "sum" | "mean" => {
                        quote!(let mut __acc = #e; for __k in 1..#len { __acc = __acc + { let __k = __k; #e }; })
                    }
                    "prod" => {
                        quote!(let mut __acc = #e; for __k in 1..#len { __acc = __acc * { let __k = __k; #e }; })
                    }
                    "min" => {
                        quote!(let mut __acc = #e; for __k in 1..#len { __acc = #q::rt::min(__acc, { let __k = __k; #e }); })
                    }
                    _ => {
                        quote!(let mut __acc = #e; for __k in 1..#len { __acc = #q::rt::max(__acc, { let __k = __k; #e }); })
                    }
                };
                let fin = if name == "mean" {
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
fn result_num(name: &str, arg: Num) -> Num {
    match name {
        "abs" | "real" | "imag" => arg.part(),
        "isnan" | "isinf" | "isfinite" => Num::I32,
        _ => arg,
    }
}
