//! Function values (lambdas, closures, function handles) by defunctionalisation: each function
//! type of the module becomes an enum with one variant per function that flows into it,
//! holding its captured values; calling it is a `match` (which LLVM hoists out of kernel
//! loops), never a boxed closure or a reference count.
//!
//! An enum with variants is `#[repr(C, u32)]`: its bytes are what a kernel launch passes (an
//! enum whose captures are all numbers is an `Element`), and the PTX back end reads them with
//! this defined layout (a `u32` tag, the variant's index in
//! [`crate::analysis::FnValues::variants`], then a
//! `repr(C)` union of the variants' fields; see the ABI section of `backend/ptx/mod.rs`).

use super::func::Ctx;
use super::repr::repr_in;
use super::ty::Repr;
use super::{unsupported, GResult, Gen};
use crate::ir::{Expr, FunctionId};
use crate::sema::types::Type;
use crate::syntax::ast::FunctionKind;
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

pub(crate) use super::ty::enum_ident;

fn variant_ident(f: FunctionId) -> Ident {
    format_ident!("F{}", f.0)
}

impl<'g, 'm> super::func::FnGen<'g, 'm> {
    /// The value of a closure (or a function handle when `captures` is empty).
    pub fn closure_value(
        &mut self,
        f: FunctionId,
        captures: &[Expr],
        ty: &Type,
        span: crate::span::Span,
    ) -> GResult<TokenStream> {
        let Type::Function(ft) = ty else {
            return Err(unsupported(
                span,
                "this function value",
                "call the function by name, or store a lambda with typed parameters in a variable",
            ));
        };
        let k = self.g.info.fnvals.index_of(ft).ok_or_else(|| {
            unsupported(
                span,
                "this function value",
                "call the function by name, or store a lambda with typed parameters in a variable",
            )
        })?;
        let ctx = if ft.kind == FunctionKind::Device { Ctx::Device } else { Ctx::Host };
        let func = self.g.m.function(f);
        if captures.len() != func.captures.len() {
            return Err(unsupported(
                span,
                "this closure (its captures do not match)",
                "pass the captured values as parameters",
            ));
        }
        let mut vals = Vec::new();
        for (c, cap) in captures.iter().zip(&func.captures) {
            let l = func.local(*cap);
            let pr = repr_in(self.g, &l.ty, ctx, l.span)?;
            if ctx == Ctx::Device && self.ctx == Ctx::Host && matches!(pr, Repr::View(..)) {
                // The value would carry a host array into a kernel: only a device function
                // the kernel calls directly (inlined, its captures bound at the launch) can.
                return Err(unsupported(
                    span,
                    format_args!(
                        "a `__device__` function value that captures the array `{}` and is \
                         passed on as a value",
                        l.name
                    ),
                    "call the device function directly in a kernel defined in the same \
                     function (its captured arrays are then launch arguments), or pass the \
                     array to the kernel as a parameter",
                ));
            }
            let v = self.expr_as(c, &pr)?;
            vals.push(if boxed_capture(&l.ty, ctx, ft) {
                quote!(::std::boxed::Box::new(#v))
            } else {
                v
            });
        }
        let e = enum_ident(k);
        let v = variant_ident(f);
        Ok(quote!(#e::#v(#(#vals),*)))
    }
}

/// The enums of the module's function types.
pub(crate) fn generate(g: &mut Gen) -> TokenStream {
    let rt = g.rt.clone();
    let mut items = Vec::new();
    for k in 0..g.info.fnvals.len() {
        let ft = g.info.fnvals.signature(k).clone();
        let name = enum_ident(k);
        let ctx = if ft.kind == FunctionKind::Device { Ctx::Device } else { Ctx::Host };
        let mut variants = Vec::new();
        let mut arms = Vec::new();
        let mut plain = true;
        let params: Vec<Ident> = (0..ft.params.len()).map(|i| format_ident!("__a{}", i)).collect();
        let mut param_tys = Vec::new();
        let mut ok = true;
        for p in &ft.params {
            match repr_in(g, p, ctx, crate::span::Span::default()) {
                // Kernel views passed to a device function value live as long as the call.
                Ok(r) => param_tys.push(super::ty::rust_type(&r, &g.rt, &quote!('__v))),
                Err(_) => ok = false,
            }
        }
        let ret = match ft.results.len() {
            0 => Ok(quote!(())),
            1 => repr_in(g, &ft.results[0], ctx, crate::span::Span::default())
                .map(|r| type_tokens(g, &r)),
            _ => ft
                .results
                .iter()
                .map(|t| {
                    repr_in(g, t, ctx, crate::span::Span::default()).map(|r| type_tokens(g, &r))
                })
                .collect::<GResult<Vec<_>>>()
                .map(|ts| quote!((#(#ts),*))),
        };
        let Ok(ret) = ret else { continue };
        if !ok {
            continue;
        }
        for f in g.info.fnvals.variants(k).to_vec() {
            let func = g.m.function(f);
            if func.generic {
                g.diagnostics.push(unsupported(
                    func.span,
                    format_args!(
                        "`{}` as a value of type {}: its parameter types are not known",
                        func.name,
                        Type::Function(Box::new(ft.clone()))
                    ),
                    "give the function's parameters types",
                ));
                continue;
            }
            let mut caps = Vec::new();
            let mut reads = Vec::new();
            for (i, c) in func.captures.iter().enumerate() {
                let l = func.local(*c);
                let b = format_ident!("__c{}", i);
                match repr_in(g, &l.ty, ctx, l.span) {
                    Ok(r) if boxed_capture(&l.ty, ctx, &ft) => {
                        plain = false;
                        let t = type_tokens(g, &r);
                        caps.push(quote!(::std::boxed::Box<#t>));
                        reads.push(quote!((**#b).clone()));
                    }
                    Ok(r) => {
                        plain &= matches!(r, Repr::Num(_) | Repr::Fixed(..));
                        caps.push(type_tokens(g, &r));
                        reads.push(quote!(#b.clone()));
                    }
                    Err(d) => {
                        g.diagnostics.push(d);
                        continue;
                    }
                }
            }
            let v = variant_ident(f);
            let fname = g.fn_ident(f);
            let binds: Vec<Ident> = (0..caps.len()).map(|i| format_ident!("__c{}", i)).collect();
            variants.push(quote!(#v(#(#caps),*)));
            arms.push(quote!(#name::#v(#(#binds),*) => #fname(#(#params,)* #(#reads),*)));
        }
        let element = if plain {
            quote! {
                // SAFETY: every variant holds numbers only (no pointers); values are only
                // copied byte-wise into kernel arguments and read back as the same type.
                unsafe impl #rt::run::Element for #name {}
                impl ::core::marker::Copy for #name {}
            }
        } else {
            quote!()
        };
        let body = if arms.is_empty() {
            quote!(match *self {})
        } else {
            quote!(match self { #(#arms,)* })
        };
        // The defined layout the PTX back end reads (a zero-variant enum cannot have one).
        let repr = if variants.is_empty() { quote!() } else { quote!(#[repr(C, u32)]) };
        items.push(quote! {
            #[doc(hidden)]
            #[allow(non_camel_case_types, dead_code)]
            #[derive(Clone)]
            #repr
            pub enum #name { #(#variants,)* }
            #element
            #[allow(clippy::all, unreachable_code, unused_variables)]
            impl #name {
                #[inline(always)]
                pub fn call<'__v>(&self, #(#params: #param_tys),*) -> #rt::run::Result<#ret> {
                    #body
                }
            }
        });
    }
    quote!(#(#items)*)
}

/// Whether a closure keeps this captured value behind a `Box`: a host function value, or a
/// device function value of the closure's own type `own` (an image closure capturing another
/// image, manual chapter 15, would otherwise make the enum of its function type contain
/// itself; such an enum is not plain data, so kernels do not take it).
fn boxed_capture(ty: &Type, ctx: Ctx, own: &crate::sema::types::FnType) -> bool {
    match ty {
        Type::Function(f) => matches!(ctx, Ctx::Host) || **f == *own,
        _ => false,
    }
}

/// Whether the enum of the device function type `ft` is plain data a kernel launch can copy:
/// every variant holds numbers and fixed-size vectors only, none boxed.
pub(crate) fn is_plain(g: &Gen, ft: &crate::sema::types::FnType) -> bool {
    let Some(k) = g.info.fnvals.index_of(ft) else { return true };
    g.info.fnvals.variants(k).iter().all(|&f| {
        let func = g.m.function(f);
        func.captures.iter().all(|c| {
            let l = func.local(*c);
            !boxed_capture(&l.ty, Ctx::Device, ft)
                && matches!(
                    repr_in(g, &l.ty, Ctx::Device, l.span),
                    Ok(Repr::Num(_) | Repr::Fixed(..))
                )
        })
    })
}

pub(crate) fn type_tokens(g: &Gen, r: &Repr) -> TokenStream {
    super::ty::rust_type(r, &g.rt, &quote!('static))
}
