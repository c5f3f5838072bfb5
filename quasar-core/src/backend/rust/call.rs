//! Calls: function instances of the module, function values, and the built-ins of manual
//! chapter 14 (`quasar_std::builtins` on host arrays, `quasar_std::rt` on numbers and inside
//! kernels).

use super::arith::num_binary;
use super::expr::{cast_num, V};
use super::func::{Ctx, FnGen};
use super::ty::{Num, Repr};
use super::{unsupported, GResult};
use crate::ir::{BinaryOp, Builtin, Builtin as B, Callee, Expr, ExprKind, FunctionId};
use crate::sema::types::Type;
use crate::span::Span;
use crate::syntax::ast::FunctionKind;
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

impl<'g, 'm> FnGen<'g, 'm> {
    pub fn call(&mut self, callee: &Callee, args: &[Expr], ty: &Type, span: Span) -> GResult<V> {
        if args.iter().any(|a| matches!(a.kind, ExprKind::Spread(_))) {
            return Err(unsupported(
                span,
                "`...` spread arguments in calls",
                "pass the elements as separate arguments",
            ));
        }
        match callee {
            Callee::Function(id) => self.call_function(*id, args, ty, span),
            Callee::Value(f) => {
                let fv = self.expr(f)?;
                if fv.r == Repr::Value {
                    return self.call_dynamic(fv, args, span);
                }
                let Repr::FnVal(k) = fv.r else {
                    return Err(unsupported(
                        span,
                        "calling this value",
                        "call a function by name, or a lambda or `@f` stored in a variable",
                    ));
                };
                let sig = self.g.info.fnvals.signature(k).clone();
                let mut vals = Vec::new();
                let mut borrows = Vec::new();
                for (i, (a, p)) in args.iter().zip(&sig.params).enumerate() {
                    let pr = self.repr_of(p, a.span)?;
                    let v = self.expr_as(a, &pr)?;
                    // A host array given to a `__device__` function value: borrowed as a
                    // kernel view for the call, as for a device function called by name.
                    match self.device_value_view(k, i, p, a.span)? {
                        Some((write, rank)) => {
                            let (x, h, w) = (
                                format_ident!("__da{}", i),
                                format_ident!("__dh{}", i),
                                format_ident!("__dv{}", i),
                            );
                            borrows.push(if write {
                                quote!(let #x = #v; let mut #h = #x.host_view_mut()?; let #w = #h.kernel_view(#rank)?;)
                            } else {
                                quote!(let #x = #v; let #h = #x.host_view()?; let #w = #h.kernel_view(#rank)?;)
                            });
                            vals.push(quote!(#w));
                        }
                        None => vals.push(v),
                    }
                }
                let r = self.repr_of(ty, span)?;
                let t = fv.t;
                let t = if borrows.is_empty() {
                    quote!(#t.call(#(#vals),*)?)
                } else {
                    quote!({ #(#borrows)* #t.call(#(#vals),*)? })
                };
                Ok(V { t, r })
            }
            Callee::Builtin(b) => self.builtin(*b, args, ty, span),
            Callee::Unresolved(name) => Err(unsupported(
                span,
                format_args!("this call of `{name}` (its result type could not be inferred)"),
                "annotate the variable that receives the result, e.g. `y : mat = …`",
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
            return Err(unsupported(
                span,
                "calling a kernel function directly",
                "launch it with `parallel_do(dims, args…, kernel)`",
            ));
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
                "pass one argument per parameter",
            ));
        }
        let mut vals = Vec::new();
        // Host arrays given to a device function (`D = __device__ (x : scalar) -> sum(A) + x;
        // D(0)`, manual §4.2): borrowed on the host for the call, as a kernel's views.
        let mut borrows = Vec::new();
        for (i, (a, p)) in args.iter().zip(&slots).enumerate() {
            let l = f.local(*p);
            let pr = super::repr::repr_in(self.g, &l.ty, callee_ctx, l.span)?;
            let param = format!("argument `{}` of `{}`", l.name, f.name);
            if let (Ctx::Host, Repr::View(n, rank)) = (self.ctx, &pr) {
                let arr = self.arg_as(a, &Repr::Array(*n, *rank), &param, &l.ty)?;
                let (x, h, v) = (
                    format_ident!("__da{}", i),
                    format_ident!("__dh{}", i),
                    format_ident!("__dv{}", i),
                );
                let rank = match rank {
                    Some(r) => {
                        let r = *r as usize;
                        quote!(::core::option::Option::Some(#r))
                    }
                    None => quote!(::core::option::Option::None),
                };
                borrows.push(if self.g.info.effects.of(id, *p).write {
                    quote!(let #x = #arr; let mut #h = #x.host_view_mut()?; let #v = #h.kernel_view(#rank)?;)
                } else {
                    quote!(let #x = #arr; let #h = #x.host_view()?; let #v = #h.kernel_view(#rank)?;)
                });
                vals.push(quote!(#v));
                continue;
            }
            vals.push(self.arg_as(a, &pr, &param, &l.ty)?);
        }
        let name = self.g.fn_ident(id);
        // The result as the callee returns it, then as this function holds it.
        let mut outs = Vec::new();
        for o in &f.outputs {
            let l = f.local(*o);
            outs.push(super::repr::repr_in(self.g, &l.ty, callee_ctx, l.span)?);
        }
        let t = if borrows.is_empty() {
            quote!(#name(#(#vals),*)?)
        } else {
            if outs.iter().any(|o| matches!(o, Repr::View(..))) {
                return Err(unsupported(
                    span,
                    "a device function called from host code that returns an array",
                    "call the device function from a kernel",
                ));
            }
            quote!({ #(#borrows)* #name(#(#vals),*)? })
        };
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

    /// In host code, whether parameter `i` (of type `p`) of the `__device__` function type
    /// `k` is a kernel view, and if so whether a function of that type writes it and the
    /// view's rank (tokens of an `Option<usize>`).
    fn device_value_view(
        &self,
        k: usize,
        i: usize,
        p: &Type,
        span: Span,
    ) -> GResult<Option<(bool, TokenStream)>> {
        let sig = self.g.info.fnvals.signature(k);
        if self.ctx != Ctx::Host || sig.kind != FunctionKind::Device {
            return Ok(None);
        }
        let Repr::View(_, rank) = super::repr::repr_in(self.g, p, Ctx::Device, span)? else {
            return Ok(None);
        };
        let write = self.g.info.fnvals.variants(k).iter().any(|&f| {
            let func = self.g.m.function(f);
            func.params.get(i).is_some_and(|&l| self.g.info.effects.of(f, l).write)
        });
        let rank = match rank {
            Some(r) => {
                let r = r as usize;
                quote!(::core::option::Option::Some(#r))
            }
            None => quote!(::core::option::Option::None),
        };
        Ok(Some((write, rank)))
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
                let f = array_fn.ok_or_else(|| {
                    unsupported(
                        a.span,
                        "this built-in on host arrays",
                        "apply it element by element, in a loop or a kernel",
                    )
                })?;
                let x = self.expr_as(a, r)?;
                quote!(#f(&#x)?)
            }
            _ => {
                return Err(unsupported(
                    a.span,
                    "this argument",
                    "pass a number or an array of numbers",
                ))
            }
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
                _ => {
                    return Err(unsupported(
                        e.span,
                        "this argument",
                        "pass a number or an array of numbers",
                    ))
                }
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
            _ => {
                return Err(unsupported(
                    a.span,
                    "these arguments",
                    "pass numbers or arrays of numbers",
                ))
            }
        })
    }

    /// `size(x)` of an array variable as dimensions: its extents as a `[i32; k]`, without the
    /// array `size` returns as a value (short code for the commonest dimension argument,
    /// `uninit(size(x))` and `parallel_do(size(x), …)`). `None` for any other expression.
    pub(super) fn size_as_dims(&mut self, e: &Expr) -> Option<TokenStream> {
        let ExprKind::Call { callee: Callee::Builtin(Builtin::Size), args } = &e.kind else {
            return None;
        };
        let [x] = args.as_slice() else { return None };
        let ExprKind::Local(l) = x.kind else { return None };
        // The rank of `x` (as `size_of` reads it): the length of `size(x)`.
        let k = self.fixed_len_of(x)?;
        if !matches!(self.local_repr(l), Repr::Array(..)) {
            return None;
        }
        let (rt, n) = (self.g.rt.clone(), self.names[l.0 as usize].clone());
        Some(quote!(#rt::qstd::builtins::size_n::<#k, _>(&#n)?))
    }

    /// Dimension arguments (`zeros(m, n)`, `zeros(size(x))`, `zeros([2, 3])`) as a `Vec<usize>`.
    pub(super) fn dims_arg(&mut self, name: &str, args: &[Expr]) -> GResult<TokenStream> {
        let rt = self.g.rt.clone();
        let q = quote!(#rt::qstd);
        if let [a] = args {
            if let Some(s) = self.size_as_dims(a) {
                return Ok(quote!(#q::builtins::to_dims(#name, &#s)?));
            }
        }
        let mut pushes = Vec::new();
        // Only numbers (`zeros(m, n)`): the dimensions as one array, without a vector to fill.
        let mut numbers = Vec::new();
        for a in args {
            let v = self.expr(a)?;
            let t = v.t;
            match &v.r {
                Repr::Num(n) if !n.is_complex() => {
                    let x = cast_num(*n, Num::I32, t, &rt);
                    numbers.push(x.clone());
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
                _ => return Err(unsupported(
                    a.span,
                    "this dimension argument",
                    "give the dimensions as integers or an integer vector, e.g. `zeros(m, n)` or \
                     `zeros(size(x))`",
                )),
            }
        }
        if numbers.len() == pushes.len() {
            return Ok(quote!(#q::builtins::to_dims(#name, &[#(#numbers),*])?));
        }
        Ok(
            quote!(#q::builtins::to_dims(#name, &{ let mut __d: ::std::vec::Vec<i32> = ::std::vec::Vec::new(); #(#pushes)* __d })?),
        )
    }

    pub(super) fn size_of(&mut self, a: &Expr, r: &Repr, span: Span) -> GResult<TokenStream> {
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
            (Repr::Value, Repr::Array(..)) => {
                quote!({ let __s = (#x).size_i32(); let __n = __s.len(); #rt::run::Array::from_vec(&[__n], __s)? })
            }
            (Repr::Value, Repr::Value) => {
                quote!(#rt::qstd::value::Value::Array(#rt::qstd::value::AnyArray::I32({ let __s = (#x).size_i32(); let __n = __s.len(); #rt::run::Array::from_vec(&[__n], __s)? })))
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
            _ => {
                return Err(unsupported(
                    span,
                    "`size` of this value",
                    "call `size` on an array, vector or matrix",
                ))
            }
        })
    }

    /// The length of `size(a)`'s result type, when fixed.
    /// `size(x, dims)` with a vector of dimensions (`size(x, 0..1)`): the listed extents, as a
    /// fixed-size vector when the result type has a known length, else as an array.
    pub(super) fn size_dims(
        &mut self,
        a: &Expr,
        dims: &Expr,
        r: &Repr,
        span: Span,
    ) -> GResult<TokenStream> {
        let rt = self.g.rt.clone();
        let b = quote!(#rt::qstd::builtins);
        let v = self.expr(a)?;
        let x = v.t;
        // `size(x, 0..1)` of a kernel's array: the extents one by one (no vector built).
        if let (Some(ds), Repr::View(..), Repr::Fixed(_, s)) =
            (crate::ir::slice::constant_range_values(dims), &v.r, r)
        {
            let k: usize = s.iter().product();
            let ext = ds.iter().chain(std::iter::repeat(&i64::MAX)).take(k).map(|&d| {
                if d == i64::MAX {
                    quote!(1i32)
                } else {
                    let d = d as i32;
                    quote!(if #d < 0 { 0 } else { #x.dim(#d as usize) as i32 })
                }
            });
            return Ok(quote!([#(#ext),*]));
        }
        let d = self.expr(dims)?;
        let dt = d.t;
        let list = match d.r {
            Repr::Fixed(..) => {
                quote!(#dt.iter().map(|&__d| __d as i32).collect::<::std::vec::Vec<i32>>())
            }
            Repr::Array(..) => {
                quote!(#dt.to_vec()?.into_iter().map(|__d| __d as i32).collect::<::std::vec::Vec<i32>>())
            }
            _ => {
                return Err(unsupported(
                    span,
                    "`size(x, dims)` with these dimensions",
                    "give the dimension as an integer or a constant vector, e.g. `size(x, 0)` or \
                     `size(x, 0..1)`",
                ))
            }
        };
        // The extent of dimension `__d` of `x` (1 past its last dimension).
        let extent = match v.r {
            Repr::Array(..) => quote!(#b::size_dim(&#x, __d)?),
            Repr::View(..) => quote!(if __d < 0 { 0 } else { #x.dim(__d as usize) as i32 }),
            _ => {
                return Err(unsupported(
                    span,
                    "`size(x, dims)` of this value",
                    "call `size` on an array",
                ))
            }
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
            _ => {
                return Err(unsupported(
                    span,
                    "`size(x, dims)` with this result type",
                    "assign the result to an `int` or an integer vector",
                ))
            }
        })
    }

    fn fixed_len_of(&self, a: &Expr) -> Option<usize> {
        let arr = a.ty.as_array()?;
        super::ty::rank_of(arr).map(|r| r as usize)
    }

    pub(super) fn reduction(
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
        let rn = r.num().ok_or_else(|| {
            unsupported(
                span,
                format_args!("`{name}` with this result"),
                "assign the result to a number or an array of numbers",
            )
        })?;
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
            // `sum(m, d)` of a small matrix in a kernel: the elements along `d`, in order.
            (Repr::Fixed(n, s), 2) if matches!(b, B::Sum | B::Prod | B::Mean) => {
                let d = match args[1].constant() {
                    Some(crate::ir::Const::Int(d)) if *d >= 0 => *d as usize,
                    _ => {
                        return Err(unsupported(
                            span,
                            format_args!("`{name}(m, d)` of a small array with this `d`"),
                            "give the dimension as a constant (`sum(m, 0)`)",
                        ))
                    }
                };
                let groups = crate::backend::small_layout::along(s, d);
                if r.fixed_len() != Some(groups.len()) {
                    return Err(unsupported(
                        span,
                        format_args!("`{name}(m, d)` with this result"),
                        "assign the result to a variable of the reduced shape",
                    ));
                }
                let elem = |k: usize| cast_num(*n, rn, quote!(__a[#k]), &rt);
                let op = if b == B::Prod { BinaryOp::Mul } else { BinaryOp::Add };
                let fused = self.g.fused;
                let combine = |x, y| num_binary(op, rn, rn, x, y, &args[1], &rt, fused);
                let each = groups.iter().map(|g| {
                    let total = g.iter().map(|&k| elem(k)).reduce(&combine).unwrap_or_default();
                    if b == B::Mean {
                        let count = rn.literal(g.len() as f64, &rt);
                        num_binary(BinaryOp::Div, rn, rn, total, count, &args[1], &rt, fused)
                    } else {
                        total
                    }
                });
                quote!({ let __a = #x; [#(#each),*] })
            }
            // A whole array captured by device code (`D = __device__ (x : scalar) -> sum(A) +
            // x`, manual §4.2): a loop over its elements (views are dense).
            (Repr::View(n, _), 1) if matches!(b, B::Sum | B::Prod | B::Mean) => {
                let e = cast_num(*n, rn, quote!(unsafe { __a.get_unchecked(__k) }), &rt);
                let (init, op) = match b {
                    B::Prod => (rn.literal(1.0, &rt), quote!(*)),
                    _ => (rn.literal(0.0, &rt), quote!(+)),
                };
                let fin = if b == B::Mean {
                    let count = cast_num(Num::I64, rn, quote!((__a.numel() as i64)), &rt);
                    quote!(__acc / #count)
                } else {
                    quote!(__acc)
                };
                quote!({ let __a = #x; let mut __acc = #init; for __k in 0..__a.numel() { __acc = __acc #op #e; } #fin })
            }
            (Repr::Num(n), 1) => cast_num(*n, rn, x, &rt),
            _ => {
                return Err(unsupported(
                    span,
                    format_args!("`{name}` of this value here"),
                    "apply it to a number or an array of numbers",
                ))
            }
        })
    }
}

/// The element type a one-argument built-in produces from `arg`.
pub(super) fn result_num(b: Builtin, arg: Num) -> Num {
    match b {
        B::Abs | B::Real | B::Imag => arg.part(),
        B::Isnan | B::Isinf | B::Isfinite => Num::I32,
        _ => arg,
    }
}
