//! Shared memory of CPU kernels: the arrays of the top-level `shared(…)` statements
//! (`analysis::SharedDecl`) sized from `blkdim` for the kernel descriptor, or by the bound an
//! assertion gives when launch arguments size them.

use super::func::FnGen;
use super::ty::Repr;
use super::{unsupported, GResult};
use crate::ir::{Expr, ExprKind, LocalId, Special};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

/// `fn(blkdim) -> bytes` for the kernel descriptor: the shared arrays' sizes from the block
/// dimensions (each aligned to 64 bytes).
pub(super) fn shared_bytes_fn(
    fg: &mut FnGen,
    d: usize,
    shared: &[(LocalId, Vec<Expr>)],
) -> GResult<TokenStream> {
    let rt = fg.g.rt.clone();
    let name = format_ident!("{}__shared", fg.g.fn_ident(fg.id));
    let blkdim = fg.f.locals.iter().position(|l| l.special() == Some(Special::BlkDim));
    let bind = match blkdim {
        Some(i) => {
            let n = &fg.names[i];
            let comps = (0..d).map(|k| quote!((*__b.get(#k).unwrap_or(&1) as i32)));
            if fg.f.locals[i].ty.is_int() {
                quote!(let #n: i32 = *__b.first().unwrap_or(&1) as i32;)
            } else {
                quote!(let #n = [#(#comps),*];)
            }
        }
        None => quote!(),
    };
    let mut sizes = Vec::new();
    for (l, args) in shared {
        let bound =
            fg.g.info
                .kernel(fg.id)
                .and_then(|k| k.shared.iter().find(|s| s.local == *l).and_then(|s| s.bound));
        let Repr::View(n, _) = fg.local_repr(*l).clone() else { continue };
        let nt = n.tokens(&rt);
        if let Err(e) = args.iter().try_for_each(|a| check_blkdim_only(fg, a)) {
            // Sized by launch arguments: the asserted bound is what the block reserves.
            let Some(b) = bound else { return Err(e) };
            let b = b as usize;
            sizes.push(quote!(
                __total = (__total + 63) / 64 * 64 + #b * ::core::mem::size_of::<#nt>();
            ));
            continue;
        }
        let dims = fg.shared_dims(args)?;
        sizes.push(quote!({
            let __dims: ::std::vec::Vec<usize> = #dims;
            __total = (__total + 63) / 64 * 64 + __dims.iter().product::<usize>() * ::core::mem::size_of::<#nt>();
        }));
    }
    Ok(quote! {
        #[allow(non_snake_case, unused_variables, clippy::all)]
        pub(super) fn #name(__b: &[usize]) -> usize {
            let __f = || -> #rt::run::Result<usize> {
                #bind
                let mut __total = 0usize;
                #(#sizes)*
                ::core::result::Result::Ok(__total)
            };
            __f().unwrap_or(0)
        }
    })
}

fn check_blkdim_only(fg: &FnGen, e: &Expr) -> GResult<()> {
    let mut bad = None;
    crate::ir::walk::walk_expr(e, &mut |x| {
        if let ExprKind::Local(l) = x.kind {
            let local = fg.f.local(l);
            if local.special() != Some(Special::BlkDim) {
                bad = Some(x.span);
            }
        }
    });
    match bad {
        Some(span) => Err(unsupported(
            span,
            "a shared array whose size depends on something other than `blkdim` and constants",
            "compute the size from `blkdim` and constants, or bound it with an assertion \
             before the allocation (`assert(M*N*K <= 512)`, manual §9.2.1)",
        )),
        None => Ok(()),
    }
}

impl FnGen<'_, '_> {
    /// The dimensions of `shared(args…)` as a `Vec<usize>` expression.
    pub(super) fn shared_dims(&mut self, args: &[Expr]) -> GResult<TokenStream> {
        let mut pushes = Vec::new();
        for a in args {
            let v = self.expr(a)?;
            let t = v.t;
            match v.r {
                Repr::Num(n) if n.is_int() => pushes.push(quote!(__d.push((#t).max(0) as usize);)),
                Repr::Fixed(n, _) if n.is_int() => {
                    pushes.push(quote!(__d.extend((#t).iter().map(|__v| (*__v).max(0) as usize));))
                }
                _ => {
                    return Err(unsupported(
                        a.span,
                        "this shared-array dimension",
                        "give the dimensions as integers computed from `blkdim` and constants",
                    ))
                }
            }
        }
        Ok(
            quote!({ let mut __d: ::std::vec::Vec<usize> = ::std::vec::Vec::new(); #(#pushes)* __d }),
        )
    }
}
