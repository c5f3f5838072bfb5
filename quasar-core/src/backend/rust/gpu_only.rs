//! Kernels that only an NVIDIA GPU can run (manual §9.8): cooperative groups
//! (`coalesced_threads`, `this_thread_block`, …), warp shuffles, votes and
//! `syncthreads(warp|grid|…)`. "Using this functionality will require the CUDA target …
//! For CPU execution a separate kernel needs to be written": the CPU backend does not
//! simulate warps, so such a kernel still compiles, but its CPU block function is a stub
//! that returns `Error::Unsupported` naming the kernel. Device functions that use thread
//! groups are not generated for the CPU at all (only such kernels can call them). Which
//! functions are GPU-only is `analysis::FunctionInfo::gpu_only`.

use super::{GResult, Gen};
use crate::ir::FunctionId;
use proc_macro2::TokenStream;
use quote::quote;

/// The CPU side of a GPU-only kernel: a block function that returns `Error::Unsupported`.
pub(crate) fn stub_kernel(g: &mut Gen, id: FunctionId, what: &str) -> GResult<TokenStream> {
    let rt = g.rt.clone();
    let f = g.m.function(id);
    let name = g.fn_ident(id);
    let stat = g.kernel_static(id);
    let kname = super::sanitize(&f.instance_name);
    let builder = g.ptx.attach(
        &f.instance_name,
        quote!(#rt::run::Kernel::new(#kname, #name).block_sensitive().gpu_only()),
        true,
    );
    let msg = format!(
        "kernel `{}` uses warp-level operations ({what}) that run only on an NVIDIA GPU \
         (manual §9.8: they need the CUDA target); write a separate kernel for the CPU",
        f.name
    );
    Ok(quote! {
        #[allow(non_snake_case)]
        fn #name(_: &#rt::run::BlockCtx<'_>, _: &#rt::run::KernelArgs<'_>) -> #rt::run::Result<()> {
            ::core::result::Result::Err(#rt::run::Error::Unsupported(::std::string::String::from(#msg)))
        }
        #[doc(hidden)]
        #[allow(non_upper_case_globals)]
        static #stat: #rt::run::Kernel = #builder;
    })
}
