//! Matrix literals `[a, b; c, d]`: fixed-size vectors in kernels, owned arrays on the host
//! (spread items concatenated along the outer dimension).

use super::expr::V;
use super::func::FnGen;
use super::ty::Repr;
use super::{unsupported, GResult};
use crate::ir::Expr;
use crate::span::Span;
use quote::quote;

impl<'g, 'm> FnGen<'g, 'm> {
    pub(super) fn matrix(&mut self, items: &[Expr], r: Repr, span: Span) -> GResult<V> {
        let rt = self.g.rt.clone();
        let q = quote!(#rt::qstd);
        match &r {
            Repr::Fixed(n, _) => {
                let mut parts = Vec::new();
                let mut lets = Vec::new();
                for (i, it) in items.iter().enumerate() {
                    let v = self.expr(it)?;
                    match &v.r {
                        Repr::Num(_) => parts.push(self.convert(v, &Repr::Num(*n), it.span)?),
                        Repr::Fixed(_, s) => {
                            let len: usize = s.iter().product();
                            let s = s.clone();
                            let t = self.convert(v, &Repr::Fixed(*n, s), it.span)?;
                            let name = quote::format_ident!("__row{}", i);
                            lets.push(quote!(let #name = #t;));
                            for k in 0..len {
                                parts.push(quote!(#name[#k]));
                            }
                        }
                        _ => return Err(unsupported(it.span, "this element of a matrix literal")),
                    }
                }
                Ok(V { t: quote!({ #(#lets)* [#(#parts),*] }), r })
            }
            Repr::Array(n, rank) => {
                let nt = n.tokens(&rt);
                let all_numbers = items.iter().all(|i| i.ty.is_number());
                if all_numbers {
                    let vals =
                        items.iter().map(|i| self.num_as(i, *n)).collect::<GResult<Vec<_>>>()?;
                    let len = vals.len();
                    return Ok(V {
                        t: quote!(#rt::run::Array::<#nt>::from_vec(&[#len], ::std::vec![#(#vals),*])?),
                        r,
                    });
                }
                let elem_rank = items
                    .iter()
                    .filter_map(|i| i.ty.as_array())
                    .filter_map(super::ty::rank_of)
                    .max()
                    .unwrap_or(0);
                let stacked = rank.map(|r| r > elem_rank).unwrap_or(false)
                    && items.iter().all(|i| i.ty.as_array().is_some());
                let mut parts = Vec::new();
                for it in items {
                    let v = self.expr(it)?;
                    match &v.r {
                        Repr::Num(_) if !stacked => {
                            let x = self.convert(v, &Repr::Num(*n), it.span)?;
                            parts.push(quote!(#q::rt::Part::Value(#x)));
                        }
                        Repr::Array(_, rk) => {
                            let rk = *rk;
                            let x = self.convert(v, &Repr::Array(*n, rk), it.span)?;
                            parts.push(if stacked { x } else { quote!(#q::rt::Part::Array(&#x)) });
                        }
                        _ => return Err(unsupported(it.span, "this element of a matrix literal")),
                    }
                }
                let t = if stacked {
                    quote!(#q::rt::stack_rows::<#nt>(&[#(#parts),*])?)
                } else {
                    let dim = elem_rank.max(1) as usize - 1;
                    quote!(#q::rt::cat::<#nt>(#dim, &[#(#parts),*])?)
                };
                Ok(V { t, r })
            }
            _ => Err(unsupported(span, "this matrix literal")),
        }
    }
}
