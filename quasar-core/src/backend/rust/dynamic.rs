//! Values of type `??` (manual §4.1), `object()` and dynamic classes (§7.4) and cell arrays
//! (§3.5) in generated host code: all held as one run-time type, `quasar_std::value::Value`,
//! whose operations check the types they meet. A `??` value meets a typed one through
//! `IntoValue` / `FromValue`; a failed check is an `Err` with the Quasar location.
//! Kernel and device code cannot hold them (manual §2.2.6): that is a compile error.

use super::expr::V;
use super::func::FnGen;
use super::ty::{Num, Repr};
use super::{unsupported, GResult};
use crate::ir::{AssignOp, BinaryOp, Expr, Index, UnaryOp};
use crate::span::Span;
use proc_macro2::TokenStream;
use quote::quote;

impl FnGen<'_, '_> {
    /// `t` (a `Result<_, String>` of the value module) with the message as a run-time error at
    /// `span`.
    pub fn vtry(&self, t: TokenStream, span: Span) -> TokenStream {
        let rt = &self.g.rt;
        let loc = self.g.location(span);
        quote!(#t.map_err(|__m| #rt::run::Error::User { message: __m, location: #loc })?)
    }

    fn value_path(&self) -> TokenStream {
        let rt = &self.g.rt;
        quote!(#rt::qstd::value)
    }

    /// The Quasar name of function type `k`, as run-time type errors show it.
    fn fn_type_name(&self, k: usize) -> String {
        let ft = self.g.info.fnvals.signature(k).clone();
        crate::sema::types::Type::Function(Box::new(ft)).to_string()
    }

    /// A typed value as a `??` value.
    pub fn as_dynamic(&self, v: V, span: Span) -> GResult<TokenStream> {
        let p = self.value_path();
        let t = v.t;
        match v.r {
            Repr::Value => Ok(t),
            Repr::Num(_) | Repr::Str | Repr::Array(..) => Ok(quote!(#p::IntoValue::into_value(#t))),
            // A cell of lambdas (`{@inc, x -> 2 * x}`, `vec[[scalar -> scalar]]`).
            Repr::FnVal(k) => {
                let name = self.fn_type_name(k);
                Ok(quote!(#p::Value::func(#t, #name)))
            }
            r => Err(unsupported(
                span,
                format_args!("{} stored as a value of type `??`", super::repr::describe(&r)),
                "store numbers, strings, arrays, cells or objects in dynamic values",
            )),
        }
    }

    /// A `??` value checked and converted to `target`.
    pub fn dynamic_to(&self, t: TokenStream, target: &Repr, span: Span) -> GResult<TokenStream> {
        let p = self.value_path();
        match target {
            Repr::Value => Ok(t),
            Repr::Num(_) | Repr::Str | Repr::Array(..) => {
                let ty = self.rust_type(target);
                Ok(self.vtry(quote!(<#ty as #p::FromValue>::from_value(&#t)), span))
            }
            Repr::FnVal(k) => {
                let (ty, name) = (self.rust_type(target), self.fn_type_name(*k));
                Ok(self.vtry(quote!((#t).to_func::<#ty>(#name)), span))
            }
            r => Err(unsupported(
                span,
                format_args!("a value of type `??` used as {}", super::repr::describe(r)),
                "give the value a number, string or array type",
            )),
        }
    }

    /// `a op b` where an operand is `??`: checked at run time.
    pub fn value_binary(&mut self, op: BinaryOp, l: &Expr, r: &Expr, span: Span) -> GResult<V> {
        let a = self.expr(l)?;
        let a = self.as_dynamic(a, l.span)?;
        let b = self.expr(r)?;
        let b = self.as_dynamic(b, r.span)?;
        let p = self.value_path();
        let sym = op.symbol();
        let t = self.vtry(quote!(#p::binary(#sym, &#a, &#b)), span);
        Ok(V { t, r: Repr::Value })
    }

    pub fn value_unary(&mut self, op: UnaryOp, operand: &Expr, span: Span) -> GResult<V> {
        let a = self.expr(operand)?;
        let a = self.as_dynamic(a, operand.span)?;
        let p = self.value_path();
        let t = match op {
            UnaryOp::Plus => a,
            UnaryOp::Neg => self.vtry(quote!(#p::unary("-", &#a)), span),
            UnaryOp::Not => self.vtry(quote!(#p::unary("!", &#a)), span),
        };
        Ok(V { t, r: Repr::Value })
    }

    /// `obj.name` on an object.
    pub fn value_field(&mut self, base: V, field: &str, span: Span) -> V {
        let b = base.t;
        let t = self.vtry(quote!((#b).field(#field)), span);
        V { t, r: Repr::Value }
    }

    /// `obj.name op= value` on an object (the field is added by a plain assignment).
    pub fn value_field_write(
        &mut self,
        base: V,
        field: &str,
        op: AssignOp,
        value: &Expr,
        span: Span,
    ) -> GResult<TokenStream> {
        let obj = base.t;
        let new = match super::stmt::binary_of(op) {
            None => {
                let v = self.expr(value)?;
                self.as_dynamic(v, value.span)?
            }
            Some(bop)
                if !matches!(
                    op,
                    AssignOp::Max | AssignOp::Min | AssignOp::Xor | AssignOp::Or | AssignOp::And
                ) =>
            {
                let v = self.expr(value)?;
                let v = self.as_dynamic(v, value.span)?;
                let p = self.value_path();
                let sym = bop.symbol();
                let old = self.vtry(quote!(__obj.field(#field)), span);
                self.vtry(quote!(#p::binary(#sym, &#old, &#v)), span)
            }
            Some(_) => {
                return Err(unsupported(
                    span,
                    "this compound assignment to a dynamic field",
                    "write the assignment in full",
                ))
            }
        };
        let set = self.vtry(quote!(__obj.set_field(#field, __new)), span);
        Ok(quote!({ let __obj = #obj; let __new = #new; #set; }))
    }

    /// The integer subscripts of a `??` value's element access.
    fn value_subscripts(&mut self, indices: &[Index], span: Span) -> GResult<TokenStream> {
        let mut subs = Vec::new();
        for ix in indices {
            let Index::At(e) = ix else {
                return Err(unsupported(
                    span,
                    "slices of cell arrays and `??` values",
                    "index one element at a time (`c[i]`)",
                ));
            };
            if e.ty.as_array().is_some() {
                return Err(unsupported(
                    span,
                    "a vector of positions into a cell array",
                    "give each subscript separately (`c[i, j]`)",
                ));
            }
            let v = self.expr(e)?;
            let i = match v.r {
                Repr::Num(n) if n.is_int() => {
                    let t = v.t;
                    quote!((#t as i64))
                }
                Repr::Value => {
                    let t = v.t;
                    let p = self.value_path();
                    self.vtry(quote!(<i64 as #p::FromValue>::from_value(&#t)), span)
                }
                _ => {
                    return Err(unsupported(
                        e.span,
                        "this subscript of a cell array",
                        "index with integers",
                    ))
                }
            };
            subs.push(i);
        }
        Ok(quote!(&[#(#subs),*]))
    }

    /// `c[i]` of a cell array (or any `??` value); `c[a..b]`, `c[a..s..b]` and `c[:]` give a
    /// new cell vector of those elements.
    pub fn value_index(&mut self, base: V, indices: &[Index], span: Span) -> GResult<V> {
        let range = match indices {
            [Index::All] => Some(quote!(::core::option::Option::None)),
            [Index::Range { start, step, end }] => {
                let a = self.num_as(start, Num::I64)?;
                let s = match step {
                    Some(s) => self.num_as(s, Num::I64)?,
                    None => quote!(1i64),
                };
                let e = self.num_as(end, Num::I64)?;
                Some(quote!(::core::option::Option::Some((#a, #s, #e))))
            }
            _ => None,
        };
        if let Some(range) = range {
            let b = base.t;
            let t = self.vtry(quote!((#b).slice(#range)), span);
            return Ok(V { t, r: Repr::Value });
        }
        let subs = self.value_subscripts(indices, span)?;
        let b = base.t;
        let t = self.vtry(quote!((#b).index(#subs)), span);
        Ok(V { t, r: Repr::Value })
    }

    /// `c[i] = value` into a cell array.
    pub fn value_index_write(
        &mut self,
        base: V,
        indices: &[Index],
        op: AssignOp,
        value: &Expr,
        span: Span,
    ) -> GResult<TokenStream> {
        if op != AssignOp::Assign {
            return Err(unsupported(
                span,
                "compound assignment into a cell array",
                "read the element, compute, and store it: `c[i] = c[i] + v`",
            ));
        }
        let subs = self.value_subscripts(indices, span)?;
        let v = self.expr(value)?;
        let v = self.as_dynamic(v, value.span)?;
        let b = base.t;
        let set = self.vtry(quote!(__c.set_index(#subs, __v)), span);
        Ok(quote!({ let __c = #b; let __v = #v; #set; }))
    }

    /// `{a, b, c}`: a cell vector.
    pub fn cell_literal(&mut self, items: &[Expr]) -> GResult<V> {
        let mut vs = Vec::new();
        for it in items {
            let v = self.expr(it)?;
            vs.push(self.as_dynamic(v, it.span)?);
        }
        let p = self.value_path();
        Ok(V { t: quote!(#p::Value::cell_of(::std::vec![#(#vs),*])), r: Repr::Value })
    }

    /// A dynamic class value (`Bird(name := "x")`): an object with the given fields.
    pub fn dynamic_construct(&mut self, fields: &[(String, Expr)], span: Span) -> GResult<V> {
        let p = self.value_path();
        let mut sets = Vec::new();
        for (name, e) in fields {
            let v = self.expr(e)?;
            let v = self.as_dynamic(v, e.span)?;
            sets.push(self.vtry(quote!(__o.set_field(#name, #v)), span));
        }
        Ok(V { t: quote!({ let __o = #p::Value::object(); #(#sets;)* __o }), r: Repr::Value })
    }

    /// `cell(m, n, …)` and `cell([m, n])`: a cell array with no values yet.
    pub fn cell_alloc(&mut self, args: &[Expr], span: Span) -> GResult<V> {
        let p = self.value_path();
        let rt = self.g.rt.clone();
        let shape = match args {
            [a] if a.ty.as_array().is_some() => {
                let v = self.expr_as(a, &Repr::Array(super::ty::Num::I32, None))?;
                quote!(#v.to_vec()?.iter().map(|__d| (*__d).max(0) as usize).collect::<::std::vec::Vec<usize>>())
            }
            _ => {
                let mut ds = Vec::new();
                for a in args {
                    let d = self.num_as(a, super::ty::Num::I32)?;
                    ds.push(quote!((#d).max(0) as usize));
                }
                // `cell(n)` is a row vector of n cells, as `zeros(n)` is (ARCHITECTURE §5).
                if ds.len() == 1 {
                    let d = &ds[0];
                    quote!(::std::vec![#d])
                } else {
                    quote!(::std::vec![#(#ds),*])
                }
            }
        };
        let _ = rt;
        let t = self.vtry(quote!(#p::Value::cell(&#shape)), span);
        Ok(V { t, r: Repr::Value })
    }

    /// `object()`.
    pub fn object_alloc(&self) -> V {
        let p = self.value_path();
        V { t: quote!(#p::Value::object()), r: Repr::Value }
    }
}
