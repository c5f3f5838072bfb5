//! The Rust backend: typed IR → Rust tokens (ARCHITECTURE §3).
//!
//! * Every function instance becomes a private Rust function `__q_<instance>` over runtime
//!   values ([`ty`] says which); every top-level Quasar function is also exported as a
//!   `pub fn` with its source name (`exports`).
//! * Every kernel becomes a `static Kernel` with a CPU implementation over one block
//!   (`kernel`), whose innermost loop runs along the contiguous dimension, with an interior
//!   fast path without boundary handling (the kernel's partition, `transform::interior`).
//! * The file's top-level statements become `pub fn script()`, followed by `main()` if the
//!   module has one.
//!
//! Generated code names the runtime and the standard library through `<krate>::__rt`
//! (`run` = `quasar-runtime`, `qstd` = `quasar-std`), so it depends on nothing else.
//! Anything the backend cannot translate is a compile error naming the construct and its
//! Quasar location, never wrong code.

mod arith;
mod barrier;
mod bits;
mod builtins;
mod call;
mod class_fields;
mod classes;
mod components;
mod control;
mod dyn_call;
mod dynamic;
mod exports;
mod expr;
pub(crate) mod fnval;
mod func;
mod gpu_only;
mod heap;
mod host_index;
mod index;
mod kernel;
mod launch;
mod launch_query;
mod library;
mod matrix;
mod ptx_embed;
mod repr;
mod shared;
mod show_class;
mod slice;
mod stmt;
mod strip;
#[cfg(test)]
mod tests;
pub mod ty;
mod versions;

use crate::analysis::ModuleInfo;
use crate::diagnostics::Diagnostic;
use crate::ir::{FunctionId, Module};
use crate::span::Span;
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

/// Code generation options.
#[derive(Clone, Debug)]
pub struct Options {
    /// The precision `scalar` has in this compilation (`'single`, or `'double` in double
    /// mode): the IR has it resolved already; messages and docs spell it `scalar` again.
    pub scalar: crate::sema::types::Precision,
    /// The path of the `quasar` facade crate in generated code (`::quasar`).
    pub krate: TokenStream,
    /// The Quasar file name used in run-time error locations.
    pub file_name: String,
    /// The Quasar source text (quoted in failed-assertion messages).
    pub source: String,
    /// Imported files (their `FileId` in spans, name and text), for locations and quoted
    /// conditions in code that comes from them; other spans are in `file_name`.
    pub imported: Vec<(crate::FileId, String, String)>,
}

impl Options {
    /// The name of the file `span` is in.
    pub fn file_name_of(&self, span: Span) -> &str {
        self.imported
            .iter()
            .find(|(f, _, _)| *f == span.file)
            .map_or(self.file_name.as_str(), |(_, n, _)| n.as_str())
    }

    /// The source text of the file `span` is in.
    pub fn source_of(&self, span: Span) -> &str {
        self.imported
            .iter()
            .find(|(f, _, _)| *f == span.file)
            .map_or(self.source.as_str(), |(_, _, s)| s.as_str())
    }
}

impl Default for Options {
    fn default() -> Self {
        Options {
            scalar: crate::sema::types::Precision::Single,
            krate: quote!(::quasar),
            file_name: "<quasar>".into(),
            source: String::new(),
            imported: Vec::new(),
        }
    }
}

/// What [`generate`] produces: Rust items, or the errors that prevented them.
#[derive(Debug)]
pub struct Output {
    /// The generated items (empty for items that failed).
    pub tokens: TokenStream,
    /// Code-generation errors, each naming the construct and what to write instead.
    pub diagnostics: Vec<Diagnostic>,
}

impl Output {
    /// Whether any diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(|d| d.is_error())
    }
}

/// The errors for the functions that would be exported but whose parameter types nothing
/// fixes, from the module as type checking produced it (the driver prunes their error-only
/// generic instances before code generation).
pub fn untyped_exports(module: &Module) -> Vec<Diagnostic> {
    let mut names: Vec<&str> = Vec::new();
    let mut out = Vec::new();
    // A generic function of an imported library that the program never calls is simply not
    // exported (as in the original, an import does not make every library function need
    // annotations); only the module's own functions must be typed.
    let main_file = module.script.map(|s| module.function(s).span.file);
    for f in &module.functions {
        let exported = f.top_level
            && main_file.is_none_or(|m| f.span.file == m)
            && f.kind != crate::syntax::ast::FunctionKind::Kernel
            && f.name != "main"
            && !f.name.starts_with('<');
        if !exported || names.contains(&f.name.as_str()) {
            continue;
        }
        names.push(&f.name);
        let concrete = module.functions.iter().any(|g| g.name == f.name && !g.generic);
        if !concrete {
            out.extend(exports::untyped_error(f));
        }
    }
    out
}

/// Generates the Rust items for a checked module; `ptx` is embedded so that kernels can run
/// on NVIDIA GPUs (the `quasar!` macro's default; none for `ptx = false` and for
/// `quasar emit --rust`).
pub fn generate(
    module: &Module,
    info: &ModuleInfo,
    opts: &Options,
    ptx: Option<&crate::backend::ptx::PtxBuilds>,
) -> Output {
    let mut g = Gen::new(module, info, opts);
    if let Some(builds) = ptx {
        g.ptx = ptx_embed::embed(module, info, opts, &g.rt, builds);
    }
    let mut items = vec![std::mem::take(&mut g.ptx.items)];
    for (i, f) in module.functions.iter().enumerate() {
        if f.generic {
            continue;
        }
        let id = FunctionId(i as u32);
        let gpu_only = info.function(id).gpu_only;
        let result = match (f.kind, gpu_only) {
            (crate::syntax::ast::FunctionKind::Kernel, Some(what)) => {
                gpu_only::stub_kernel(&mut g, id, what)
            }
            (crate::syntax::ast::FunctionKind::Kernel, None) => kernel::generate(&mut g, id),
            // Only GPU-only kernels can call it (see `gpu_only.rs`).
            (_, Some(_)) => continue,
            (_, None) => func::generate(&mut g, id),
        };
        match result {
            Ok(ts) => items.push(ts),
            Err(d) => g.diagnostics.push(d),
        }
    }
    items.push(exports::generate(&mut g));
    items.push(fnval::generate(&mut g));
    items.push(classes::generate(&mut g));
    let body = quote! { #(#items)* };
    Output { tokens: body, diagnostics: g.diagnostics }
}

/// A compile error of the backend: `construct` is not supported (yet) by code generation.
/// A construct the Rust back end does not compile, named, with what to write instead (a
/// sentence that starts with a verb: "pass the captured values as parameters").
pub(crate) fn unsupported(
    span: Span,
    construct: impl std::fmt::Display,
    instead: impl std::fmt::Display,
) -> Diagnostic {
    Diagnostic::error(span, format!("code generation does not support {construct} yet"))
        .with_note(format!("instead: {instead}"))
}

pub(crate) type GResult<T> = Result<T, Diagnostic>;

/// Module-wide state of the generator.
pub(crate) struct Gen<'m> {
    pub m: &'m Module,
    pub opts: &'m Options,
    /// `<krate>::__rt`
    pub rt: TokenStream,
    pub diagnostics: Vec<Diagnostic>,
    /// The analyses of the module.
    pub info: &'m ModuleInfo,
    /// The embedded PTX (empty unless [`Options::ptx`]).
    pub ptx: ptx_embed::Embedded,
    /// Generating the generic copy of a kernel body (`rows<const __F: bool>`): math routines
    /// that can fuse multiply-adds are called through `pow_sel::<__F, _>`.
    pub fused: bool,
    /// The class instances the generated code uses, numbered (`classes.rs`).
    pub classes: std::cell::RefCell<Vec<crate::sema::types::ClassRef>>,
}

impl<'m> Gen<'m> {
    fn new(m: &'m Module, info: &'m ModuleInfo, opts: &'m Options) -> Gen<'m> {
        let krate = &opts.krate;
        Gen {
            m,
            opts,
            rt: quote!(#krate::__rt),
            diagnostics: Vec::new(),
            info,
            ptx: ptx_embed::Embedded::default(),
            fused: false,
            classes: std::cell::RefCell::new(Vec::new()),
        }
    }

    /// The Rust name of a function instance.
    pub fn fn_ident(&self, id: FunctionId) -> Ident {
        format_ident!("__q_{}", sanitize(&self.m.function(id).instance_name))
    }

    /// The `static Kernel` of a kernel instance.
    pub fn kernel_static(&self, id: FunctionId) -> Ident {
        format_ident!("__Q_KERNEL_{}", sanitize(&self.m.function(id).instance_name).to_uppercase())
    }

    /// The run-time error location of a span.
    pub fn location(&self, span: Span) -> TokenStream {
        let rt = &self.rt;
        let file = self.opts.file_name_of(span);
        let (line, col) = (span.line, span.col);
        quote!(#rt::run::SourceLocation::new(#file, #line, #col))
    }
}

/// A valid Rust identifier fragment from a Quasar name.
pub(crate) fn sanitize(name: &str) -> String {
    let mut s: String =
        name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' }).collect();
    if s.is_empty() || s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert(0, '_');
    }
    s
}

/// A local variable's Rust name (`r#` is avoided: a suffix keeps keywords apart).
pub(crate) fn local_ident(name: &str, index: u32) -> Ident {
    format_ident!("q_{}_{}", sanitize(name), index)
}
