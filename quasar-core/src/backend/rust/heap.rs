//! Dynamic kernel memory on the CPU (`backend/heap.rs`): `A = zeros(n, 2)` in a kernel is a
//! new array of the thread's own, kept in the variable's arena (`qstd::rt::KernelArena`,
//! declared with the variable) until the thread ends; `A` is a view of it as array arguments
//! are, so that every kernel array operation applies.

use super::func::{Ctx, FnGen};
use super::ty::Repr;
use super::{unsupported, GResult};
use crate::backend::heap::{allocation, Fill};
use crate::ir::{Expr, LocalId};
use crate::span::Span;
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

impl FnGen<'_, '_> {
    /// `let mut A__mem = KernelArena::new();` for each local that a statement assigns an
    /// allocation (before the locals, so that it drops after them).
    pub(super) fn declare_arenas(&self) -> TokenStream {
        let rt = &self.g.rt;
        let mut out = Vec::new();
        for &l in &self.heap_locals {
            let Repr::View(n, _) = self.local_repr(l) else { continue };
            let mem = format_ident!("{}__mem", self.names[l.0 as usize]);
            let t = n.tokens(rt);
            out.push(
                quote!(let mut #mem: #rt::qstd::rt::KernelArena<#t> = ::std::vec::Vec::new();),
            );
        }
        quote!(#(#out)*)
    }

    /// `local = value` when `value` allocates an array of run-time size; `None` otherwise.
    pub(super) fn heap_assign(
        &mut self,
        local: LocalId,
        value: &Expr,
        span: Span,
    ) -> GResult<Option<TokenStream>> {
        let Some((fill, args)) = allocation(value) else { return Ok(None) };
        let Repr::View(n, _) = self.local_repr(local).clone() else { return Ok(None) };
        if self.ctx != Ctx::Kernel {
            return Err(unsupported(
                span,
                "an array of run-time size created in a device function",
                "create it in the kernel and pass it to the device function, or give it a \
                 size known when compiling (`zeros(4)`)",
            ));
        }
        let rt = self.g.rt.clone();
        let dims = self.dims_arg("zeros", args)?;
        let v = match fill {
            Fill::Zero => n.zero(&rt),
            Fill::One => n.literal(1.0, &rt),
        };
        let t = n.tokens(&rt);
        let name = &self.names[local.0 as usize];
        let mem = format_ident!("{name}__mem");
        let target = self.local(local);
        // SAFETY (of `kernel_alloc`): the arena is declared before the view in the thread's
        // scope (`declare_arenas`) and never cleared, so the view and its copies, all locals
        // of this thread, are used only while it lives.
        Ok(Some(quote! {
            #target = unsafe { #rt::qstd::rt::kernel_alloc::<#t>(&mut #mem, &#dims, #v)? };
        }))
    }
}
