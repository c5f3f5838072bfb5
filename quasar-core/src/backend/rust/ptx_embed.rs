//! The GPU half of the generated code: the module's PTX (from [`crate::backend::ptx`]) as
//! one `static __Q_PTX: &str` per `quasar!` invocation, one `PtxEntry` static per compiled
//! kernel with what the runtime must know to launch it (entry name, launch rank, per launch
//! argument the static rank of arrays or the size of values, the number of outputs), and the
//! module's table of the sites that can fail (`'checked` accesses, `error`, `assert`: kind,
//! array, launch argument, Quasar file/line/col) that word 1 of a launch's error word indexes.
//!
//! * The PTX is emitted twice, with and without checks on `'unchecked` accesses; when the two
//!   texts differ, each set of items is under `#[cfg(debug_assertions)]` or its negation, so
//!   that a build has one `__Q_PTX` and GPU kernels check exactly what CPU kernels check
//!   (ARCHITECTURE §5: debug builds report `'unchecked` accesses out of range).
//! * Kernels the PTX back end skips get `.without_ptx(reason)`: they run on the CPU, and a
//!   launch forced onto the GPU fails with the reason. The back end's warnings are not
//!   reported by the macro (the program is correct and runs); `quasar emit --ptx` shows them.

use super::{sanitize, Options};
use crate::analysis::ModuleInfo;
use crate::backend::ptx::{PtxBuilds, PtxOutput, PtxParamRole, PtxSiteKind};
use crate::ir::Module;
use crate::syntax::ast::FunctionKind;
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};
use std::collections::{HashMap, HashSet};

/// What [`embed`] adds to the generated code.
#[derive(Default)]
pub(crate) struct Embedded {
    /// The statics (PTX text, sites, entries), possibly in two `cfg` variants.
    pub items: TokenStream,
    /// Per kernel instance: the builder calls to append to its `Kernel::new(..)`.
    pub builders: HashMap<String, TokenStream>,
    /// Kernel instances whose PTX depends on the block decomposition.
    pub block_sensitive: HashSet<String>,
}

impl Embedded {
    /// `builder` with the kernel's PTX (or the reason it has none) and, when the PTX is
    /// block-sensitive and the CPU kernel is not, marked block-sensitive so that the CPU uses
    /// GPU-like blocks and both devices agree.
    pub fn attach(&self, instance: &str, builder: TokenStream, cpu_sensitive: bool) -> TokenStream {
        let mut b = builder;
        if let Some(more) = self.builders.get(instance) {
            b = quote!(#b #more);
        }
        if !cpu_sensitive && self.block_sensitive.contains(instance) {
            b = quote!(#b.block_sensitive());
        }
        b
    }
}

/// The PTX items of module `m` (see the module documentation), from the driver's `builds`.
pub(crate) fn embed(
    m: &Module,
    info: &ModuleInfo,
    opts: &Options,
    rt: &TokenStream,
    builds: &PtxBuilds,
) -> Embedded {
    let (rel, d) = (&builds.release, &builds.debug);
    let names = |o: &PtxOutput| -> Vec<String> {
        o.kernels.iter().map(|k| k.instance_name.clone()).collect()
    };
    let mut out = Embedded::default();
    let rel_items = variant(m, info, opts, rt, rel, &mut out);
    if d.text != rel.text && names(d) == names(rel) {
        // Same kernels, different checks: one variant per build profile.
        let dbg_items = variant(m, info, opts, rt, d, &mut Embedded::default());
        out.items = cfg_each(rel_items, quote!(not(debug_assertions)));
        out.items.extend(cfg_each(dbg_items, quote!(debug_assertions)));
    } else {
        out.items = quote!(#(#rel_items)*);
    }
    for (k, reason) in skipped(m, rel) {
        out.builders.insert(k, quote!(.without_ptx(#reason)));
    }
    out
}

/// The kernels the back end left out, with the reason from its warning (in module order).
fn skipped(m: &Module, o: &PtxOutput) -> Vec<(String, String)> {
    let done: HashSet<&str> = o.kernels.iter().map(|k| k.instance_name.as_str()).collect();
    let mut why = o.diagnostics.iter().map(|d| d.message.clone());
    m.functions
        .iter()
        .filter(|f| f.kind == FunctionKind::Kernel && !f.generic)
        .filter(|f| !done.contains(f.instance_name.as_str()))
        .map(|f| {
            let reason =
                why.next().unwrap_or_else(|| "the PTX back end does not compile it".into());
            (f.instance_name.clone(), reason)
        })
        .collect()
}

/// `#[cfg(pred)]` on each item of `items` (a sequence of `static`s).
fn cfg_each(items: Vec<TokenStream>, pred: TokenStream) -> TokenStream {
    items.into_iter().map(|i| quote!(#[cfg(#pred)] #i)).collect()
}

fn entry_static(instance: &str) -> Ident {
    format_ident!("__Q_PTXK_{}", sanitize(instance).to_uppercase())
}

/// The statics of one PTX output; fills `out.builders`/`out.block_sensitive`.
fn variant(
    m: &Module,
    info: &ModuleInfo,
    opts: &Options,
    rt: &TokenStream,
    o: &PtxOutput,
    out: &mut Embedded,
) -> Vec<TokenStream> {
    let mut items = Vec::new();
    let text = &o.text;
    items.push(quote!(#[doc(hidden)] static __Q_PTX: &str = #text;));
    // Launch-argument names per kernel entry, to say which argument a site's array is.
    let mut arg_names: HashMap<&str, Vec<String>> = HashMap::new();
    for k in &o.kernels {
        let id = m.functions.iter().position(|f| f.instance_name == k.instance_name);
        if let Some((f, ki)) = id.and_then(|i| {
            let id = crate::ir::FunctionId(i as u32);
            Some((m.function(id), info.kernel(id)?))
        }) {
            let names = ki.arg_slots.iter().map(|p| f.local(*p).name.clone()).collect();
            arg_names.insert(k.entry.as_str(), names);
        }
    }
    let sites = o.check_sites.iter().map(|s| {
        let (kernel, array, line, col) = (&s.kernel, &s.array, s.span.line, s.span.col);
        let file = opts.file_name_of(s.span);
        let arg = match arg_names.get(kernel.as_str()).and_then(|n| n.iter().position(|x| x == array))
        {
            Some(i) => {
                let i = i as u16;
                quote!(::core::option::Option::Some(#i))
            }
            None => quote!(::core::option::Option::None),
        };
        let kind = match &s.kind {
            PtxSiteKind::Index => quote!(#rt::run::ptx::SiteKind::Index),
            PtxSiteKind::Error(message) => quote!(#rt::run::ptx::SiteKind::Error(#message)),
            PtxSiteKind::Assert { message, cond } => {
                // As the CPU's message: the assertion's own, or the condition as written.
                let text = message.clone().unwrap_or_else(|| {
                    opts.source_of(*cond).get(cond.range()).unwrap_or("condition").to_string()
                });
                quote!(#rt::run::ptx::SiteKind::Assert(#text))
            }
        };
        quote!(#rt::run::ptx::CheckSite { kernel: #kernel, kind: #kind, array: #array, arg: #arg, file: #file, line: #line, col: #col })
    });
    items.push(
        quote!(#[doc(hidden)] static __Q_PTX_SITES: &[#rt::run::ptx::CheckSite] = &[#(#sites),*];),
    );
    for k in &o.kernels {
        let mut args: Vec<(usize, TokenStream)> = Vec::new();
        let mut ranks: HashMap<usize, u8> = HashMap::new();
        let mut outputs = 0u8;
        for p in &k.params {
            match p.role {
                PtxParamRole::ArrayExtent { arg, .. } => *ranks.entry(arg).or_default() += 1,
                PtxParamRole::ArrayData { arg } => args.push((arg, TokenStream::new())),
                PtxParamRole::Value { arg, .. } => {
                    let bytes = p.bytes as u16;
                    args.push((arg, quote!(#rt::run::ptx::PtxArg::Value { bytes: #bytes })));
                }
                PtxParamRole::Output { .. } => outputs += 1,
                // `checked` below says that the launch passes its error word.
                PtxParamRole::LaunchDim { .. } | PtxParamRole::ErrorWord => {}
            }
        }
        args.sort_by_key(|a| a.0);
        let args = args.into_iter().map(|(arg, t)| match ranks.get(&arg) {
            Some(&rank) if t.is_empty() => quote!(#rt::run::ptx::PtxArg::Array { rank: #rank }),
            _ => t,
        });
        let (entry, rank) = (&k.entry, k.launch_rank as u8);
        let checked = k.params.iter().any(|p| p.role == PtxParamRole::ErrorWord);
        let stat = entry_static(&k.instance_name);
        items.push(quote! {
            #[doc(hidden)]
            #[allow(non_upper_case_globals)]
            static #stat: #rt::run::ptx::PtxEntry = #rt::run::ptx::PtxEntry {
                module: __Q_PTX,
                entry: #entry,
                launch_rank: #rank,
                args: &[#(#args),*],
                outputs: #outputs,
                sites: __Q_PTX_SITES,
                checked: #checked,
            };
        });
        out.builders.insert(k.instance_name.clone(), quote!(.with_ptx_entry(&#stat)));
        if k.block_sensitive {
            out.block_sensitive.insert(k.instance_name.clone());
        }
    }
    items
}
