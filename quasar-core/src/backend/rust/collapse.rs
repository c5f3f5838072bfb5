//! Flat loops for kernels over three or more dimensions (`y[pos] = f(x[pos])` on an
//! M x N x 3 image, or a filter along the rows of one): the trailing dimensions of a block row
//! are one contiguous run when the views' extents equal the launch's, so the block function
//! loops over that run flat and the innermost loop is long (and vectorises) even when the last
//! dimension is 3 colour channels.
//!
//! The interior copy of the body runs with `__p1 = … = 0` and `__p{last}` = the flat index
//! `j`: its offsets `p0·s0 + (p1 + o)·s1 + … + p_last` are then exactly the flat ones, with no
//! division. That needs every use of `pos` to be inside an access the interior analysis
//! covers, indexing dimension k with launch dimension k, offset only along dimension 1 (by
//! whole runs of the trailing dimensions) and dimension 0 (per row). The border of a row, where
//! offsets leave the array, runs the general body with `pos` recovered from `j`.

use super::func::FnGen;
use super::kernel::{bound_tokens, non_negative};
use crate::ir::partition::Partition;
use crate::ir::LocalId;
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

/// The flat loop (`Partition::flat` holds): used when every view's trailing extents equal the
/// launch's and the block spans them, else `code` (the ordinary loops). `interior` runs the
/// interior `__lo..__hi` of row `__p0` and `general` one border thread at `__p0…`, both
/// `Result`s.
pub(crate) fn flat_loop(
    fg: &FnGen,
    d: usize,
    facts: &Partition,
    interior: &TokenStream,
    general: &TokenStream,
    code: TokenStream,
) -> TokenStream {
    let mut bases: Vec<LocalId> = facts.region.iter().map(|c| c.base).collect();
    bases.sort_by_key(|b| b.0);
    bases.dedup();
    let mut same = Vec::new();
    for b in &bases {
        let v = &fg.names[b.0 as usize];
        for k in 1..d {
            same.push(quote!(#v.dim(#k) == __ctx.dims()[#k]));
        }
    }
    for k in 1..d {
        same.push(quote!(__ctx.range(#k) == (0..__ctx.dims()[#k])));
    }
    // The interior of a row in `j`, from the offsets along dimension 1, and the row test.
    let s1 = (2..d).map(|k| quote!(__ctx.dims()[#k]));
    // (`split_row` clips them to the row.)
    let (mut jlo, mut jhi, mut row_ok) = (Vec::new(), Vec::new(), Vec::new());
    let rt = &fg.g.rt;
    for c in &facts.region {
        let v = &fg.names[c.base.0 as usize];
        let (lo, hi) = (bound_tokens(&c.lo, &fg.names), bound_tokens(&c.hi, &fg.names));
        match c.launch_dim {
            0 => row_ok.push(quote!(#rt::qstd::rt::inside(__p0, #lo, #hi, #v.dim(0)))),
            1 => {
                if !non_negative(&c.lo) {
                    jlo.push(quote!(-#lo * __s1));
                }
                let e = super::kernel::extent_minus(quote!(#v.dim(1)), &c.hi, &hi);
                jhi.push(quote!((#e) * __s1));
            }
            _ => {}
        }
    }
    // `pos` from the flat index, for the general body.
    let ps = (1..d).map(|k| format_ident!("__p{}", k));
    let n = d - 1;
    let split = quote!(let [#(#ps),*] = #rt::qstd::rt::unflatten::<#n>(__j, &__ctx.dims()[1..]););
    if row_ok.is_empty() {
        row_ok.push(quote!(true));
    }
    quote! {
        if #(#same)&&* {
            let __s1: i64 = 1i64 #(* (#s1 as i64))*;
            let __run: usize = __ctx.dims()[1] * (__s1 as usize);
            let (__jlo, __jhi) = ([#(#jlo),*], [#(#jhi),*]);
            for __p0 in __ctx.range(0) {
                #rt::qstd::rt::split_row(
                    0..__run,
                    &__jlo,
                    &__jhi,
                    #(#row_ok)&&*,
                    &mut |__jlo, __jhi| {
                        for __j in __jlo..__jhi { #split #general?; }
                        ::core::result::Result::Ok(())
                    },
                    &mut |__lo, __hi| #interior,
                )?;
            }
        } else {
            #code
        }
    }
}
