//! `print` of class values, objects and pointers (host code): the class's name and its
//! fields as a constructor writes them, `point(x := 1, y := 2)`, as dynamic objects print
//! (`object(a := 1)`); `nullptr` for a null pointer. A field holding an object or pointer
//! prints its class's name only, since objects may refer to each other in cycles; a field
//! holding a function value prints its type.

use super::classes::{def, field_ident, field_reprs, getter};
use super::expr::V;
use super::func::FnGen;
use super::ty::Repr;
use super::GResult;
use crate::sema::types::{FnType, Type};
use crate::span::Span;
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

impl FnGen<'_, '_> {
    /// The printed form of `v` (a class value, object or pointer) as a `String` expression.
    pub(super) fn show_class(&mut self, v: V, span: Span) -> GResult<TokenStream> {
        self.show_class_at(v.t, &v.r, span, 0)
    }

    fn show_class_at(
        &mut self,
        t: TokenStream,
        r: &Repr,
        span: Span,
        depth: usize,
    ) -> GResult<TokenStream> {
        let o = format_ident!("__o{}", depth);
        let (k, object) = match r {
            Repr::Class(k) => (*k, false),
            Repr::Obj(k) | Repr::Ptr(k) => (*k, true),
            _ => return Ok(quote!(::std::string::String::new())),
        };
        let name = self.class_name(k);
        let q = {
            let rt = &self.g.rt;
            quote!(#rt::qstd)
        };
        let mut parts = Vec::new();
        for (i, (f, fr)) in field_reprs(self.g, k, span)?.into_iter().enumerate() {
            let read = if object {
                let get = getter(&f);
                quote!(#o.#get())
            } else {
                let field = field_ident(&f);
                quote!(#o.#field.clone())
            };
            let sep = if i == 0 { "" } else { ", " };
            let label = format!("{sep}{f} := ");
            let value = match &fr {
                Repr::Num(n) if !matches!(n, super::ty::Num::Class(_)) => {
                    quote!(#q::rt::Show::show(&#read, &mut __s);)
                }
                Repr::Str | Repr::Array(..) | Repr::Fixed(..) | Repr::Value => {
                    quote!(#q::rt::Show::show(&#read, &mut __s);)
                }
                Repr::Class(_) => {
                    let inner = self.show_class_at(read, &fr, span, depth + 1)?;
                    quote!(__s.push_str(&#inner);)
                }
                Repr::Obj(j) => {
                    let n = self.class_name(*j);
                    quote!(__s.push_str(#n);)
                }
                Repr::Ptr(j) => {
                    let n = self.class_name(*j);
                    quote!(__s.push_str(if #read.is_some() { #n } else { "nullptr" });)
                }
                Repr::FnVal(j) => {
                    let ft: FnType = self.g.info.fnvals.signature(*j).clone();
                    let ty = Type::Function(Box::new(ft)).spelled_with_scalar(self.g.opts.scalar);
                    let text = format!("function value of type {ty}");
                    quote!(__s.push_str(#text);)
                }
                _ => quote!(__s.push_str("…");),
            };
            parts.push(quote!(__s.push_str(#label); #value));
        }
        let open = format!("{name}(");
        let body = quote!({
            let mut __s = ::std::string::String::from(#open);
            #(#parts)*
            __s.push(')');
            __s
        });
        Ok(match r {
            Repr::Ptr(_) => quote!(match &#t {
                ::core::option::Option::Some(#o) => #body,
                ::core::option::Option::None => ::std::string::String::from("nullptr"),
            }),
            _ => quote!({ let #o = &#t; #body }),
        })
    }

    /// The name of class instance `k` as the program writes it.
    fn class_name(&self, k: usize) -> String {
        let c = self.g.classes.borrow()[k].clone();
        def(self.g, &c).map_or_else(|| c.name.clone(), |d| d.name.clone())
    }
}
