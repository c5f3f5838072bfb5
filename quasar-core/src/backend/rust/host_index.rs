//! Indexing host arrays: reads and writes through `quasar_std::rt` (`'checked` by default),
//! with the positions given as integers, vectors, ranges or `:`.

use super::expr::V;
use super::func::FnGen;
use super::ty::{Num, Repr};
use super::{unsupported, GResult};
use crate::ir::AssignOp;
use crate::ir::{Expr, ExprKind, Index};
use crate::sema::types::Type;
use crate::span::Span;
use proc_macro2::TokenStream;
use quote::quote;

impl<'g, 'm> FnGen<'g, 'm> {
    /// Host reads: an element (`get_elem`) or a slice (`index_get`).
    pub(super) fn host_read(
        &mut self,
        base: &Expr,
        b: V,
        n: Num,
        indices: &[Index],
        r: Repr,
        span: Span,
    ) -> GResult<V> {
        let rt = self.g.rt.clone();
        let q = quote!(#rt::qstd::rt);
        let mode = self.mode_tokens(self.access_mode(base));
        let name = self.array_name(base);
        let bt = b.t;
        let t = match &r {
            Repr::Num(m) => {
                let idx = self.host_positions(indices, span)?;
                let x = quote!(#q::get_elem(&#bt, #name, &#idx, #mode)?);
                super::expr::cast_num(n, *m, x, &rt)
            }
            Repr::Array(..) => {
                let subs = self.host_subs(indices)?;
                quote!(#q::index_get(&#bt, #name, &#subs, #mode)?)
            }
            // An element of an array of classes.
            Repr::Class(k) if n == Num::Class(*k) => {
                let idx = self.host_positions(indices, span)?;
                quote!(#q::get_elem(&#bt, #name, &#idx, #mode)?)
            }
            // An element of an array of a `mutable class`: a new object holding its value
            // (the array keeps its own; `a[i].x = v` writes the element in place).
            Repr::Obj(k) if n == Num::Class(*k) => {
                let idx = self.host_positions(indices, span)?;
                let tr = super::classes::trait_ident(*k);
                quote!((::std::sync::Arc::new(::std::sync::Mutex::new(#q::get_elem(&#bt, #name, &#idx, #mode)?)) as ::std::sync::Arc<dyn #tr>))
            }
            _ => {
                return Err(unsupported(
                    span,
                    "this index",
                    "index with numbers, ranges (`a..b`), `:` or integer vectors",
                ))
            }
        };
        Ok(V { t, r })
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn host_write(
        &mut self,
        base: &Expr,
        b: V,
        n: Num,
        indices: &[Index],
        op: AssignOp,
        value: &Expr,
        elem_ty: &Type,
        span: Span,
    ) -> GResult<TokenStream> {
        let rt = self.g.rt.clone();
        let q = quote!(#rt::qstd::rt);
        let mode = self.mode_tokens(self.access_mode(base));
        let name = self.array_name(base);
        let bt = b.t;
        let value_expr = match super::stmt::binary_of(op) {
            None => value.clone(),
            Some(bop) => {
                let read = Expr::new(
                    ExprKind::Index { base: Box::new(base.clone()), indices: indices.to_vec() },
                    elem_ty.clone(),
                    span,
                );
                Expr::new(
                    ExprKind::Binary { op: bop, lhs: Box::new(read), rhs: Box::new(value.clone()) },
                    elem_ty.clone(),
                    span,
                )
            }
        };
        if matches!(
            op,
            AssignOp::Max | AssignOp::Min | AssignOp::Xor | AssignOp::Or | AssignOp::And
        ) {
            return Err(unsupported(
                span,
                "this compound assignment on host array elements",
                "write it out: `x[i] = max(x[i], v)` (or `min`, `xor`, `or`, `and`)",
            ));
        }
        let element = elem_ty.is_number() || matches!(n, Num::Class(_));
        if element {
            let idx = self.host_positions(indices, span)?;
            let v = self.num_as(&value_expr, n)?;
            return Ok(quote!({ let __x = #v; #q::set_elem(&#bt, #name, &#idx, __x, #mode)?; }));
        }
        let subs = self.host_subs(indices)?;
        let v = self.expr(&value_expr)?;
        Ok(match &v.r {
            Repr::Num(_) => {
                let x = self.convert(v, &Repr::Num(n), span)?;
                quote!({ let __x = #x; #q::index_fill(&#bt, #name, &#subs, __x, #mode)?; })
            }
            Repr::Array(..) => {
                let x = self.convert(v, &Repr::Array(n, None), span)?;
                quote!({ let __x = #x; #q::index_set(&#bt, #name, &#subs, &__x, #mode)?; })
            }
            _ => {
                return Err(unsupported(
                    span,
                    "assigning this value to a slice",
                    "assign a number or an array with the slice's shape",
                ))
            }
        })
    }

    /// Host element positions as a `Vec<i64>` expression (numbers and position vectors).
    pub(super) fn host_positions(&mut self, indices: &[Index], span: Span) -> GResult<TokenStream> {
        let mut pushes = Vec::new();
        for ix in indices {
            match ix {
                Index::At(e) | Index::Spread(e) => {
                    let v = self.expr(e)?;
                    let t = v.t;
                    match &v.r {
                        Repr::Num(m) if m.is_int() => pushes.push(quote!(__ix.push(#t as i64);)),
                        Repr::Num(Num::F32 | Num::F64) => {
                            pushes.push(quote!(__ix.push(#t as i64);))
                        }
                        Repr::Array(m, _) if m.is_int() => pushes.push(
                            quote!(__ix.extend(#t.to_vec()?.into_iter().map(|__v| __v as i64));),
                        ),
                        _ => {
                            return Err(unsupported(
                                e.span,
                                "this index",
                                "index with numbers, ranges (`a..b`), `:` or integer vectors",
                            ))
                        }
                    }
                }
                _ => {
                    return Err(unsupported(
                        span,
                        "a slice where one element is expected",
                        "index with one number per dimension, e.g. `x[i, j]`",
                    ))
                }
            }
        }
        Ok(
            quote!({ let mut __ix: ::std::vec::Vec<i64> = ::std::vec::Vec::with_capacity(4); #(#pushes)* __ix }),
        )
    }

    /// Host subscripts as a `Vec<Sub>` expression.
    fn host_subs(&mut self, indices: &[Index]) -> GResult<TokenStream> {
        let rt = self.g.rt.clone();
        let q = quote!(#rt::qstd::rt);
        let mut pushes = Vec::new();
        for ix in indices {
            match ix {
                Index::At(e) => {
                    let v = self.expr(e)?;
                    let t = v.t;
                    match &v.r {
                        Repr::Num(m) if !m.is_complex() => {
                            pushes.push(quote!(__s.push(#q::Sub::At(#t as i64));))
                        }
                        Repr::Array(m, _) if m.is_int() => pushes.push(
                            quote!(for __v in #t.to_vec()? { __s.push(#q::Sub::At(__v as i64)); }),
                        ),
                        _ => {
                            return Err(unsupported(
                                e.span,
                                "this index",
                                "index with numbers, ranges (`a..b`), `:` or integer vectors",
                            ))
                        }
                    }
                }
                Index::Spread(e) => {
                    let t = self.expr_as(e, &Repr::Array(Num::I32, Some(1)))?;
                    pushes.push(
                        quote!(for __v in #t.to_vec()? { __s.push(#q::Sub::At(__v as i64)); }),
                    );
                }
                Index::All => pushes.push(quote!(__s.push(#q::Sub::All);)),
                Index::Range { start, step, end } => {
                    let s = self.num_as(start, Num::I64)?;
                    let e = self.num_as(end, Num::I64)?;
                    let st = match step {
                        Some(st) => self.num_as(st, Num::I64)?,
                        None => quote!(1i64),
                    };
                    pushes
                        .push(quote!(__s.push(#q::Sub::Range { start: #s, step: #st, end: #e });));
                }
                Index::List(e) => {
                    let t = self.expr_as(e, &Repr::Array(Num::I64, Some(1)))?;
                    pushes.push(quote!(__s.push(#q::Sub::List(#t.to_vec()?));));
                }
            }
        }
        Ok(
            quote!({ let mut __s: ::std::vec::Vec<#q::Sub> = ::std::vec::Vec::new(); #(#pushes)* __s }),
        )
    }
}
