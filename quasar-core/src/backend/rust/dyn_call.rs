//! Calling a value of type `??` (a function value read from a cell array of type `vec[??]`:
//! `c = cell(2); c[0] = (x : scalar) -> x + 1; y = c[0](2.5)`): the value may hold a function
//! value of any function type of the module (`Value::Func`, `dynamic.rs`). The call tries each
//! function type whose parameters take the arguments as they are, in module order, and gives
//! the result as a `??`; a value of no such type is a run-time error naming its type.

use super::expr::V;
use super::func::{Ctx, FnGen};
use super::repr::repr_in;
use super::ty::Repr;
use super::{unsupported, GResult};
use crate::ir::Expr;
use crate::span::Span;
use crate::syntax::ast::FunctionKind;
use quote::quote;

impl FnGen<'_, '_> {
    /// `f(args…)` where `f` (already generated, `fv`) is a `??` value, in host code.
    pub fn call_dynamic(&mut self, fv: V, args: &[Expr], span: Span) -> GResult<V> {
        if self.ctx != Ctx::Host {
            return Err(unsupported(
                span,
                "calling a value of type `??` in kernel or device code",
                "give the function value a function type (`f : [__device__ scalar -> scalar]`)",
            ));
        }
        let mut vals = Vec::new();
        let mut reprs = Vec::new();
        for a in args {
            let v = self.expr(a)?;
            reprs.push(v.r.clone());
            vals.push(v.t);
        }
        let binds: Vec<proc_macro2::Ident> =
            (0..vals.len()).map(|i| quote::format_ident!("__x{}", i)).collect();
        let mut arms = Vec::new();
        for k in 0..self.g.info.fnvals.len() {
            let ft = self.g.info.fnvals.signature(k).clone();
            if ft.kind == FunctionKind::Kernel || ft.variadic || ft.params.len() != args.len() {
                continue;
            }
            let inner = if ft.kind == FunctionKind::Device { Ctx::Device } else { Ctx::Host };
            let takes = ft.params.iter().zip(&reprs).all(|(p, r)| {
                repr_in(self.g, p, inner, span).is_ok_and(|pr| pr == *r && !has_view(&pr))
            });
            let result = match ft.results.as_slice() {
                [] => Some(Repr::Unit),
                [t] => repr_in(self.g, t, inner, span).ok(),
                _ => None,
            };
            let Some(result) = result.filter(|r| !has_view(r)) else { continue };
            if !takes {
                continue;
            }
            let e = self.rust_type(&Repr::FnVal(k));
            let out = match result {
                Repr::Unit => quote!({ __f.call(#(#binds.clone()),*)?; __v::Value::Null }),
                r => {
                    let call = V { t: quote!(__f.call(#(#binds.clone()),*)?), r };
                    self.as_dynamic(call, span)?
                }
            };
            arms.push(quote!(if let ::core::result::Result::Ok(__f) = (__g).to_func::<#e>("") {
                #out
            } else));
        }
        let p = {
            let rt = &self.g.rt;
            quote!(#rt::qstd::value)
        };
        let args_shown = args.iter().map(|a| a.ty.to_string()).collect::<Vec<_>>().join(", ");
        let fail = self.vtry(
            quote!(::core::result::Result::<#p::Value, ::std::string::String>::Err(
                ::std::format!("{} cannot be called with ({})", __g.type_name(), #args_shown)
            )),
            span,
        );
        let g = fv.t;
        let t = quote!({
            use #p as __v;
            let __g: __v::Value = #g;
            #(let #binds = #vals;)*
            #(#arms)* { #fail }
        });
        Ok(V { t, r: Repr::Value })
    }
}

/// Whether a value of this representation borrows kernel memory (not held by host code).
fn has_view(r: &Repr) -> bool {
    match r {
        Repr::View(..) => true,
        Repr::Tuple(rs) => rs.iter().any(has_view),
        _ => false,
    }
}
