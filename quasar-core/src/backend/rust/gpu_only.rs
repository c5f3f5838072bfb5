//! Kernels that only an NVIDIA GPU can run (manual §9.8): cooperative groups
//! (`coalesced_threads`, `this_thread_block`, …), warp shuffles, votes and
//! `syncthreads(warp|grid|…)`. "Using this functionality will require the CUDA target …
//! For CPU execution a separate kernel needs to be written": the CPU backend does not
//! simulate warps, so such a kernel still compiles, but its CPU block function is a stub
//! that returns `Error::Unsupported` naming the kernel. Device functions that use thread
//! groups are not generated for the CPU at all (only such kernels can call them).

use super::{GResult, Gen};
use crate::ir::walk::walk_block;
use crate::ir::{Callee, Const, ExprKind, FunctionId, Module};
use crate::sema::types::Type;
use crate::syntax::ast::FunctionKind;
use proc_macro2::TokenStream;
use quote::quote;

/// What makes function `id` GPU-only (it, or a function it calls), if anything.
pub(crate) fn warp_level_use(m: &Module, id: FunctionId) -> Option<&'static str> {
    let mut seen = vec![id];
    let mut todo = vec![id];
    while let Some(id) = todo.pop() {
        let f = m.functions.get(id.0 as usize)?;
        if f.locals.iter().any(|l| matches!(l.ty, Type::ThreadBlock(_))) {
            return Some("cooperative groups (`thread_block`)");
        }
        let mut found = None;
        walk_block(&f.body, &mut |_| {}, &mut |e| match &e.kind {
            ExprKind::Call { callee: Callee::Builtin(b), .. }
                if b.kind() == crate::ir::BuiltinKind::GroupMethod =>
            {
                found = found.or(Some("warp shuffles and votes"));
            }
            // `syncthreads(warp)`, `syncthreads(grid)`, …; `syncthreads(block)` is a plain
            // barrier (`StmtKind::SyncThreads`), which the CPU runs.
            ExprKind::Call {
                callee:
                    Callee::Builtin(crate::ir::Builtin::Syncthreads | crate::ir::Builtin::Syncthread),
                args,
            } => {
                if let Some(Const::Str(s)) = args.first().and_then(|a| a.constant()) {
                    if s != "block" {
                        found = found.or(Some("`syncthreads` across a warp or grid"));
                    }
                }
            }
            ExprKind::Call { callee: Callee::Function(c), .. }
            | ExprKind::Closure { function: c, .. }
            | ExprKind::FunctionRef(c) => {
                // A kernel named in host code (`max_block_size(k, …)`) is not called there.
                let kernel =
                    m.functions.get(c.0 as usize).is_some_and(|g| g.kind == FunctionKind::Kernel);
                if !kernel && !seen.contains(c) {
                    seen.push(*c);
                    todo.push(*c);
                }
            }
            _ if matches!(e.ty, Type::ThreadBlock(_)) => {
                found = found.or(Some("cooperative groups (`thread_block`)"));
            }
            _ => {}
        });
        if found.is_some() {
            return found;
        }
    }
    None
}

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
