//! Kernels that only an NVIDIA GPU can run (manual §9.8): cooperative groups
//! (`coalesced_threads`, `this_thread_block`, …), warp shuffles, votes and
//! `syncthreads(warp|grid|…)`. "Using this functionality will require the CUDA target …
//! For CPU execution a separate kernel needs to be written": the CPU backend does not
//! simulate warps, so such a kernel still compiles, but its CPU block function is a stub
//! that returns `Error::Unsupported` naming the kernel. Device functions that use thread
//! groups are not generated for the CPU at all (only such kernels can call them). Which
//! functions are GPU-only is `analysis::FunctionInfo::gpu_only`.

use super::func::{Ctx, FnGen};
use super::ty::{Num, Repr};
use super::{unsupported, GResult, Gen};
use crate::ir::{Expr, FunctionId, LocalId};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

/// The CPU side of a GPU-only kernel: a block function that returns `Error::Unsupported`.
pub(crate) fn stub_kernel(g: &mut Gen, id: FunctionId, what: &str) -> GResult<TokenStream> {
    let rt = g.rt.clone();
    let f = g.m.function(id);
    let name = g.fn_ident(id);
    let stat = g.kernel_static(id);
    let kname = super::sanitize(&f.instance_name);
    // The PTX carves the top-level `shared(…)` arrays from the dynamic shared memory, sized
    // by the launch from `Kernel::shared_bytes`: the stub's descriptor counts them too.
    let shared: Vec<(LocalId, Vec<Expr>)> = g
        .info
        .kernel(id)
        .map(|k| k.shared.iter().map(|s| (s.local, s.dims.clone())).collect())
        .unwrap_or_default();
    let src = &f.name;
    let (shared_fn, mut kernel) =
        (quote!(), quote!(#rt::run::Kernel::new(#kname, #name).with_source_name(#src)));
    let shared_fn = if shared.is_empty() {
        shared_fn
    } else {
        let mut fg = FnGen::new(g, id, Ctx::Kernel)?;
        for (l, args) in &shared {
            let n = fg.f.local(*l).ty.as_array().and_then(|a| Num::of(&a.elem));
            let n = n.ok_or_else(|| {
                unsupported(
                    fg.f.span,
                    "this shared array",
                    "give `shared` arrays a numeric element type",
                )
            })?;
            fg.set_repr(*l, Repr::View(n, Some(args.len().max(1) as u8)));
        }
        let d = fg.g.info.kernel(id).and_then(|k| k.position_rank).unwrap_or(1);
        let code = super::shared::shared_bytes_fn(&mut fg, d, &shared)?;
        let sname = format_ident!("{}__shared", name);
        kernel = quote!(#kernel.with_shared(#sname));
        code
    };
    let f = g.m.function(id);
    let builder =
        g.ptx.attach(&f.instance_name, quote!(#kernel.block_sensitive().gpu_only()), true);
    let msg = format!(
        "kernel `{}` uses warp-level operations ({what}) that run only on an NVIDIA GPU \
         (manual §9.8: they need the CUDA target); write a separate kernel for the CPU",
        f.name
    );
    Ok(quote! {
        #shared_fn
        #[allow(non_snake_case)]
        fn #name(_: &#rt::run::BlockCtx<'_>, _: &#rt::run::KernelArgs<'_>) -> #rt::run::Result<()> {
            ::core::result::Result::Err(#rt::run::Error::Unsupported(::std::string::String::from(#msg)))
        }
        #[doc(hidden)]
        #[allow(non_upper_case_globals)]
        static #stat: #rt::run::Kernel = #builder;
    })
}
