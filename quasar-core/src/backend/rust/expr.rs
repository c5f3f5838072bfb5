//! Expressions: numbers with Quasar's arithmetic, array expressions on the host (parallel
//! element-wise built-ins), fixed-size vectors in kernels, literals, conversions.

use super::func::{Ctx, FnGen};
use super::repr::{describe, repr_in};
use super::ty::{Num, Repr};
use super::{unsupported, GResult};
use crate::ir::{Const, Expr, ExprKind};
use crate::sema::types::Type;
use crate::span::Span;
use proc_macro2::TokenStream;
use quote::quote;

/// A generated expression and how its value is held. Array-valued expressions are owned
/// `Array`s (a local is read as `x.clone()`, a reference-count increment).
pub(crate) struct V {
    pub t: TokenStream,
    pub r: Repr,
}

impl<'g, 'm> FnGen<'g, 'm> {
    /// How a value of type `ty` is held in this function.
    pub fn repr_of(&mut self, ty: &Type, span: Span) -> GResult<Repr> {
        repr_in(self.g, ty, self.ctx, span)
    }

    /// The Rust type of a representation (inside a function body).
    pub fn rust_type(&self, r: &Repr) -> TokenStream {
        super::ty::rust_type(r, &self.g.rt, &quote!('_))
    }

    /// A default value of a representation (locals are declared with one).
    pub fn default_value(&self, r: &Repr, span: Span) -> GResult<TokenStream> {
        let rt = &self.g.rt;
        Ok(match r {
            Repr::Num(n) => n.zero(rt),
            Repr::Str => quote!(::std::string::String::new()),
            Repr::Unit => quote!(()),
            Repr::Array(n, _) => {
                let t = n.tokens(rt);
                quote!(#rt::run::Array::<#t>::empty())
            }
            Repr::Fixed(n, s) => {
                let z = n.zero(rt);
                let len: usize = s.iter().product();
                quote!([#z; #len])
            }
            Repr::Tuple(rs) => {
                let vs =
                    rs.iter().map(|r| self.default_value(r, span)).collect::<GResult<Vec<_>>>()?;
                quote!((#(#vs,)*))
            }
            Repr::Class(_) | Repr::Obj(_) | Repr::Ptr(_) => {
                self.class_zero(r).ok_or_else(|| {
                    unsupported(
                        span,
                        "a variable of this class without a value",
                        "assign the variable a value before it is used",
                    )
                })?
            }
            Repr::Null => quote!(()),
            Repr::Value => quote!(<#rt::qstd::value::Value as ::core::default::Default>::default()),
            Repr::View(..) | Repr::FnVal(_) => {
                return Err(unsupported(
                    span,
                    "a variable of this type without a value",
                    "assign the variable a value before it is used",
                ))
            }
        })
    }

    /// Whether values of type `ty` are dynamic (`??`, cells, objects) here.
    pub fn is_dynamic(&self, ty: &Type) -> bool {
        repr_in(self.g, ty, self.ctx, Span::default()).is_ok_and(|r| r == Repr::Value)
    }

    /// A dynamic value `v` where the IR expects `r` (a typed result, checked at run time).
    pub fn dynamic_as(&mut self, v: V, r: Repr, span: Span) -> GResult<V> {
        if r == Repr::Value {
            return Ok(v);
        }
        let t = self.dynamic_to(v.t, &r, span)?;
        Ok(V { t, r })
    }

    pub fn expr(&mut self, e: &Expr) -> GResult<V> {
        crate::stack::guard(|| self.expr_inner(e))
    }

    /// Evaluates `e` converted to `target`.
    pub fn expr_as(&mut self, e: &Expr, target: &Repr) -> GResult<TokenStream> {
        let v = self.expr(e)?;
        self.convert(v, target, e.span)
    }

    /// Evaluates an argument for a parameter held as `target`. An array whose rank differs from
    /// the parameter's (a vector passed as a `mat`, a `cube` with one channel as a `mat`) is
    /// seen at the parameter's rank, checked at run time ([`Array::with_rank`]: a vector is a
    /// row; the error names `param` and its `declared` type).
    ///
    /// [`Array::with_rank`]: quasar_runtime::Array::with_rank
    pub fn arg_as(
        &mut self,
        e: &Expr,
        target: &Repr,
        param: &str,
        declared: &Type,
    ) -> GResult<TokenStream> {
        // The type checker's conversion of an array to the parameter's type is done here,
        // with the parameter's name in the error.
        let e = match &e.kind {
            ExprKind::Convert(inner)
                if inner.ty.as_array().is_some() && e.ty.as_array().is_some() =>
            {
                inner
            }
            _ => e,
        };
        let v = self.expr(e)?;
        self.fit_arg(v, target, param, declared, e.span)
    }

    /// [`Self::arg_as`] for a value already evaluated.
    pub fn fit_arg(
        &mut self,
        v: V,
        target: &Repr,
        param: &str,
        declared: &Type,
        span: Span,
    ) -> GResult<TokenStream> {
        let from = match &v.r {
            Repr::Array(_, k) => Some(*k),
            Repr::Fixed(_, s) => Some(Some(s.len() as u8)),
            _ => None,
        };
        // Convert the elements only; the rank is fitted below with the parameter's name.
        let elems_only = match (target, &v.r) {
            (Repr::Array(n, _), Repr::Array(_, k)) => Repr::Array(*n, *k),
            _ => target.clone(),
        };
        let t = self.convert(v, &elems_only, span)?;
        Ok(match (target, from) {
            (Repr::Array(_, Some(r)), Some(k)) if k != Some(*r) => {
                let r = *r as usize;
                let declared = declared.to_string();
                quote!(#t.with_rank(#r, #param, #declared)?)
            }
            _ => t,
        })
    }

    /// Evaluates a number converted to `n`.
    pub fn num_as(&mut self, e: &Expr, n: Num) -> GResult<TokenStream> {
        self.expr_as(e, &Repr::Num(n))
    }

    fn expr_inner(&mut self, e: &Expr) -> GResult<V> {
        let rt = self.g.rt.clone();
        let r = self.repr_of(&e.ty, e.span);
        match &e.kind {
            ExprKind::Const(c) => self.constant(c, r?, e.span),
            ExprKind::Local(id) => {
                if self.outputs.contains_key(id) {
                    return Err(unsupported(
                        e.span,
                        "reading a kernel output argument inside the kernel",
                        "accumulate into it (`+=`, `^^=`, `__=`) and read the result after \
                         `parallel_do`",
                    ));
                }
                // Reports a local whose type has no representation.
                self.local_repr_checked(*id)?;
                Ok(self.read_local(*id))
            }
            ExprKind::Convert(inner) => {
                let r = r?;
                let v = self.expr(inner)?;
                let t = self.convert(v, &r, e.span)?;
                Ok(V { t, r })
            }
            ExprKind::Unary { op, operand } if self.is_dynamic(&operand.ty) => {
                let v = self.value_unary(*op, operand, e.span)?;
                self.dynamic_as(v, r?, e.span)
            }
            ExprKind::Binary { op, lhs, rhs }
                if self.is_dynamic(&lhs.ty) || self.is_dynamic(&rhs.ty) =>
            {
                let v = self.value_binary(*op, lhs, rhs, e.span)?;
                self.dynamic_as(v, r?, e.span)
            }
            ExprKind::Unary { op, operand } => self.unary(*op, operand, r?, e.span),
            ExprKind::Binary { op, lhs, rhs } => self.binary(*op, lhs, rhs, r?, e.span),
            ExprKind::Call { callee, args } => self.call(callee, args, &e.ty, e.span),
            ExprKind::ParallelDo { dims, block_dims, kernel, args } => {
                self.parallel_do(dims, block_dims.as_deref(), *kernel, args, &e.ty, e.span)
            }
            ExprKind::Index { base, indices } => self.index_read(base, indices, r?, e.span, e.id),
            ExprKind::Matrix(items) => self.matrix(items, r?, e.span),
            ExprKind::Range { start, step, end } => {
                let r = r?;
                // A range of constant length in a kernel is a small vector (`0..3`).
                if let Repr::Fixed(n, _) = &r {
                    let (n, len) = (*n, r.fixed_len().unwrap_or(0));
                    let items = crate::ir::slice::constant_range_values(e)
                        .filter(|xs| xs.len() == len)
                        .ok_or_else(|| {
                            unsupported(
                            e.span,
                            "a range with bounds that are not constants inside a kernel",
                            "use constant bounds (`i + (0..3)`), or loop over the range with `for`",
                        )
                        })?;
                    let items = items.into_iter().map(|k| n.literal(k as f64, &rt));
                    return Ok(V { t: quote!([#(#items),*]), r });
                }
                let Repr::Array(n, _) = r else {
                    return Err(unsupported(
                        e.span,
                        "a range used as a value inside a kernel",
                        "loop over the range with `for`",
                    ));
                };
                let s = self.num_as(start, n)?;
                let st = match step {
                    Some(st) => self.num_as(st, n)?,
                    None => n.literal(1.0, &rt),
                };
                let en = self.num_as(end, n)?;
                let t = if n == Num::I32 {
                    quote!(#rt::qstd::rt::range_array_i32(#s, #st, #en)?)
                } else if n.is_int() {
                    return Err(unsupported(
                        e.span,
                        "ranges of integers other than `int`",
                        "convert the bounds with `int(…)`",
                    ));
                } else {
                    quote!(#rt::qstd::rt::range_array_f(#s, #st, #en)?)
                };
                Ok(V { t, r })
            }
            ExprKind::Ternary { cond, then, otherwise } => {
                let r = r?;
                let c = self.truthy(cond)?;
                let a = self.expr_as(then, &r)?;
                let b = self.expr_as(otherwise, &r)?;
                Ok(V { t: quote!((if #c { #a } else { #b })), r })
            }
            ExprKind::Closure { function, captures } => {
                let r = r?;
                let Repr::FnVal(_) = r else {
                    return Err(unsupported(
                        e.span,
                        "this closure",
                        "define a named function and pass the captured values as parameters",
                    ));
                };
                let t = self.closure_value(*function, captures, &e.ty, e.span)?;
                Ok(V { t, r })
            }
            ExprKind::FunctionRef(id) => {
                let r = r?;
                let t = self.closure_value(*id, &[], &e.ty, e.span)?;
                Ok(V { t, r })
            }
            ExprKind::EnumValue { value, .. } => {
                let l = proc_macro2::Literal::i64_unsuffixed(*value);
                Ok(V { t: quote!((#l as i32)), r: Repr::Num(Num::I32) })
            }
            ExprKind::Sequence(items) => {
                let mut ts = Vec::new();
                let mut last = None;
                for (i, it) in items.iter().enumerate() {
                    let v = self.expr(it)?;
                    if i + 1 == items.len() {
                        last = Some(v);
                    } else {
                        let t = v.t;
                        ts.push(quote!(let _ = #t;));
                    }
                }
                let last = last.ok_or_else(|| {
                    unsupported(e.span, "an empty sequence", "give at least one expression")
                })?;
                let t = last.t;
                Ok(V { t: quote!({ #(#ts)* #t }), r: last.r })
            }
            ExprKind::Assign { place, op, value } => {
                let stmt = self.assign(place, *op, value, e.span)?;
                let read = self.place_read(place)?;
                let t = read.t;
                Ok(V { t: quote!({ #stmt #t }), r: read.r })
            }
            ExprKind::TupleField { tuple, index } => {
                let v = self.expr(tuple)?;
                let Repr::Tuple(rs) = &v.r else {
                    // A call with one result used as its first.
                    if *index == 0 {
                        return Ok(v);
                    }
                    return Err(unsupported(
                        e.span,
                        "this use of a result",
                        "assign the results to variables first: `[a, b] = f(x)`",
                    ));
                };
                let r = rs.get(*index).cloned().ok_or_else(|| {
                    unsupported(
                        e.span,
                        "this result",
                        "assign the results to variables first: `[a, b] = f(x)`",
                    )
                })?;
                let t = v.t;
                let i = syn_index(*index);
                Ok(V { t: quote!((#t).#i), r })
            }
            ExprKind::Field { base, field } => self.field_read(base, field, e.span),
            ExprKind::Construct { fields, .. } => match r? {
                Repr::Value => self.dynamic_construct(fields, e.span),
                r => self.construct(fields, r, e.span),
            },
            ExprKind::Cell(items) => {
                let v = self.cell_literal(items)?;
                self.dynamic_as(v, r?, e.span)
            }
            ExprKind::BuiltinRef(name) => Err(unsupported(
                e.span,
                format_args!("the built-in `{name}` used as a value"),
                "wrap it in a lambda, e.g. `x -> sin(x)`",
            )),
            // On the host a type value is its name, as `type(x)` gives it (table 14.1).
            ExprKind::TypeValue if self.ctx == Ctx::Host => {
                let Type::TypeValue(t) = &e.ty else {
                    return Err(unsupported(e.span, "this type value", "write the type's name"));
                };
                let name = t.spelled_with_scalar(self.g.opts.scalar).to_string();
                Ok(V { t: quote!(::std::string::String::from(#name)), r: Repr::Str })
            }
            ExprKind::TypeValue => Err(unsupported(
                e.span,
                "a type used as a value here",
                "use the type in an annotation (`x : mat`) or in `type(x, \"mat\")`",
            )),
            ExprKind::Spread(_) => {
                Err(unsupported(e.span, "`...` here", "pass the elements as separate arguments"))
            }
        }
    }

    fn constant(&mut self, c: &Const, r: Repr, span: Span) -> GResult<V> {
        let rt = &self.g.rt;
        let t = match (c, &r) {
            (Const::Int(i), Repr::Num(n)) => n.literal(*i as f64, rt),
            (Const::Scalar(f), Repr::Num(n)) => n.literal(*f, rt),
            (Const::Complex(re, im), Repr::Num(n)) if n.is_complex() => {
                let ty = n.tokens(rt);
                let re = n.part().literal(*re, rt);
                let im = n.part().literal(*im, rt);
                quote!(<#ty>::new(#re, #im))
            }
            (Const::Str(s), Repr::Str) => quote!(::std::string::String::from(#s)),
            (Const::Null, Repr::Null) => quote!(()),
            (Const::Null, Repr::Ptr(_)) => quote!(::core::option::Option::None),
            _ => {
                return Err(unsupported(
                    span,
                    format_args!("the constant {c:?} here"),
                    "assign the constant to a variable with a type annotation",
                ))
            }
        };
        Ok(V { t, r })
    }

    /// Converts a value to another representation (implicit conversions of the IR, and the
    /// operand promotions of arithmetic).
    pub fn convert(&mut self, v: V, target: &Repr, span: Span) -> GResult<TokenStream> {
        let rt = self.g.rt.clone();
        let q = quote!(#rt::qstd);
        if &v.r == target {
            return Ok(v.t);
        }
        if v.r == Repr::Value {
            return self.dynamic_to(v.t, target, span);
        }
        // An element of an array of classes is the class value itself.
        if let (Repr::Num(Num::Class(a)), Repr::Class(b))
        | (Repr::Class(a), Repr::Num(Num::Class(b))) = (&v.r, target)
        {
            if a == b {
                return Ok(v.t);
            }
        }
        if *target == Repr::Value {
            return self.as_dynamic(v, span);
        }
        // Elements of arrays of classes to and from objects (`p = a[i]`, `a[i] = p` for a
        // `mutable class`): the element's value.
        let (from, to) = match (&v.r, target) {
            (Repr::Num(Num::Class(a)), Repr::Obj(_) | Repr::Ptr(_)) => {
                (Repr::Class(*a), target.clone())
            }
            (Repr::Obj(_) | Repr::Ptr(_), Repr::Num(Num::Class(b))) => {
                (v.r.clone(), Repr::Class(*b))
            }
            _ => (v.r.clone(), target.clone()),
        };
        let v = V { t: v.t, r: from };
        let target = &to;
        if matches!(v.r, Repr::Class(_) | Repr::Obj(_) | Repr::Ptr(_) | Repr::Null) {
            return self.convert_class(&v, target, span);
        }
        let t = v.t;
        Ok(match (&v.r, target) {
            (Repr::Num(a), Repr::Num(b)) => cast_num(*a, *b, t, &rt),
            // An array held at another rank: a vector where a matrix is expected is a row
            // (ARCHITECTURE §5); a `cube` with one channel is a `mat` (checked at run time).
            (Repr::Array(a, Some(k)), Repr::Array(b, Some(r))) if k != r => {
                let x = if a == b {
                    t
                } else {
                    let bt = b.tokens(&rt);
                    quote!(#q::builtins::cast::<#bt, _>(&#t)?)
                };
                let what = format!("a value of {k} dimension(s)");
                let want = format!("an array of {r} dimension(s)");
                let r = *r as usize;
                quote!(#x.with_rank(#r, #what, #want)?)
            }
            (Repr::Array(a, _), Repr::Array(b, _)) if a == b => t,
            (Repr::Array(_, _), Repr::Array(b, _)) => {
                let bt = b.tokens(&rt);
                quote!(#q::builtins::cast::<#bt, _>(&#t)?)
            }
            (Repr::Num(a), Repr::Array(b, _)) => {
                let x = cast_num(*a, *b, t, &rt);
                quote!(#rt::run::Array::from_vec(&[1], ::std::vec![#x])?)
            }
            (Repr::Fixed(a, s), Repr::Fixed(b, s2))
                if s.iter().product::<usize>() == s2.iter().product::<usize>() =>
            {
                let len: usize = s2.iter().product();
                let x = cast_num(*a, *b, quote!(__a[__k]), &rt);
                quote!({ let __a = #t; ::core::array::from_fn::<_, #len, _>(|__k| #x) })
            }
            (Repr::Fixed(a, s), Repr::Array(b, rank)) => {
                let len: usize = s.iter().product();
                let x = cast_num(*a, *b, quote!(__a[__k]), &rt);
                // A vector held where a matrix is expected is a row.
                let row: Vec<usize> = match s.as_slice() {
                    [n] if rank.is_some_and(|r| r > 1) => vec![1, *n],
                    _ => s.clone(),
                };
                let s = &row;
                let dims = s.iter();
                quote!({ let __a = #t; let __b: [_; #len] = ::core::array::from_fn(|__k| #x); #q::rt::to_array(__b, &[#(#dims),*])? })
            }
            (Repr::Array(a, _), Repr::Fixed(b, s)) => {
                let n: usize = s.iter().product();
                let at = a.tokens(&rt);
                let x = cast_num(*a, *b, quote!(__a[__k]), &rt);
                quote!({ let __a: [#at; #n] = #q::rt::from_array(&#t, "value")?; ::core::array::from_fn::<_, #n, _>(|__k| #x) })
            }
            (Repr::View(a, _), Repr::Fixed(b, s)) => {
                let n: usize = s.iter().product();
                // `__k < #n`, and the view has exactly `#n` elements (tested below).
                let x =
                    cast_num(*a, *b, quote!(unsafe { #rt::run::unchecked::read(&__v, __k) }), &rt);
                quote!({
                    let __v = #t;
                    if __v.numel() != #n {
                        return ::core::result::Result::Err(#rt::run::Error::Unsupported(::std::format!("expected {} elements, found {}", #n, __v.numel())));
                    }
                    let __r: [_; #n] = ::core::array::from_fn(|__k| #x);
                    __r
                })
            }
            (Repr::Num(a), Repr::Fixed(b, s)) => {
                let n: usize = s.iter().product();
                let x = cast_num(*a, *b, t, &rt);
                quote!([#x; #n])
            }
            (from, to) => return Err(unsupported(
                span,
                format_args!("a conversion from {} to {}", describe(from), describe(to)),
                "convert explicitly (`int(…)`, `float(…)`, `complex(…)`), or give the variable \
                     the value's type",
            )),
        })
    }

    /// A condition: a number is true when non-zero, an array when all its elements are.
    pub fn truthy(&mut self, e: &Expr) -> GResult<TokenStream> {
        let rt = self.g.rt.clone();
        let v = self.expr(e)?;
        let t = v.t;
        Ok(match v.r {
            Repr::Num(n) => {
                let z = n.zero(&rt);
                quote!((#t != #z))
            }
            Repr::Array(n, _) => {
                let z = n.zero(&rt);
                quote!(#t.to_vec()?.iter().all(|__v| *__v != #z))
            }
            Repr::Fixed(n, _) => {
                let z = n.zero(&rt);
                quote!(#t.iter().all(|__v| *__v != #z))
            }
            Repr::Ptr(_) => quote!((#t).is_some()),
            Repr::Value => self.vtry(quote!((#t).truthy()), e.span),
            r => {
                return Err(unsupported(
                    e.span,
                    format_args!("{} as a condition", describe(&r)),
                    "compare explicitly, e.g. `x != 0`, `any(x)` or `all(x)`",
                ))
            }
        })
    }
}

pub(crate) fn syn_index(i: usize) -> proc_macro2::Literal {
    proc_macro2::Literal::usize_unsuffixed(i)
}

/// `x` converted from number type `a` to `b` (Quasar's conversions, `quasar_std::builtins::Cast`).
pub(crate) fn cast_num(a: Num, b: Num, x: TokenStream, rt: &TokenStream) -> TokenStream {
    if a == b {
        return x;
    }
    let (at, bt) = (a.tokens(rt), b.tokens(rt));
    let simple = |n: Num| n.is_int() || n == Num::F32 || n == Num::F64;
    if simple(a) && simple(b) && !(a.is_float() && b.is_int()) {
        // Plain `as` between ints (wrapping) and int → float is exactly Cast's semantics.
        return quote!((#x as #bt));
    }
    quote!(<#at as #rt::qstd::builtins::Cast<#bt>>::cast(#x))
}
