//! The public API of a `quasar!` block (ARCHITECTURE §1): one `pub fn` per top-level
//! function, with Rust types and `quasar::Result`, and `pub fn script()`.

use super::func::Ctx;
use super::repr::repr_in;
use super::ty::Repr;
use super::{unsupported, Gen};
use crate::diagnostics::Diagnostic;
use crate::ir::{FunctionId, LocalId};
use crate::syntax::ast::FunctionKind;
use proc_macro2::{Ident, Span as PmSpan, TokenStream};
use quote::quote;
use std::collections::BTreeMap;

const RUST_KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern",
    "false", "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub",
    "ref", "return", "self", "Self", "static", "struct", "super", "trait", "true", "type",
    "unsafe", "use", "where", "while", "abstract", "become", "box", "do", "final", "macro",
    "override", "priv", "typeof", "unsized", "virtual", "yield", "try", "gen",
];

/// A Rust identifier for a Quasar name (raw when it is a Rust keyword).
pub(crate) fn rust_ident(name: &str) -> Ident {
    let s = super::sanitize(name);
    if RUST_KEYWORDS.contains(&s.as_str())
        && !matches!(s.as_str(), "self" | "Self" | "crate" | "super")
    {
        Ident::new_raw(&s, PmSpan::call_site())
    } else {
        Ident::new(&s, PmSpan::call_site())
    }
}

pub(crate) fn generate(g: &mut Gen) -> TokenStream {
    let m = g.m;
    let mut by_name: BTreeMap<&str, Vec<FunctionId>> = BTreeMap::new();
    for (i, f) in m.functions.iter().enumerate() {
        // `main` is called by `script()`; one with parameters (instantiated for a command
        // line, `quasar run`) is exported for the caller to pass them.
        let main_with_params = m.main == Some(FunctionId(i as u32)) && !f.params.is_empty();
        if f.top_level
            && f.kind != FunctionKind::Kernel
            && (f.name != "main" || main_with_params)
            && !f.name.starts_with('<')
            // Device functions over thread groups exist on the GPU only.
            && g.info.function(FunctionId(i as u32)).gpu_only.is_none()
        {
            by_name.entry(f.name.as_str()).or_default().push(FunctionId(i as u32));
        }
    }
    let mut items = Vec::new();
    for (name, ids) in by_name {
        let concrete: Vec<FunctionId> =
            ids.iter().copied().filter(|id| !m.function(*id).generic).collect();
        // Without a concrete instance the driver reported the missing annotation
        // (`driver::untyped_exports`).
        let Some(&best) = concrete
            .iter()
            .max_by_key(|id| (m.function(**id).params.len(), std::cmp::Reverse(id.0)))
        else {
            continue;
        };
        match export(g, name, best) {
            Ok(ts) => items.push(ts),
            Err(d) => g.diagnostics.push(d),
        }
    }
    items.push(script(g));
    quote!(#(#items)*)
}

/// The error for an exported function whose parameter types no call fixes (`f` is its
/// error-only generic instance).
pub(crate) fn untyped_error(f: &crate::ir::Function) -> Option<Diagnostic> {
    let p = f.params.iter().map(|p| f.local(*p)).find(|l| !l.ty.is_concrete())?;
    Some(
        Diagnostic::error(
            f.span,
            format!(
                "the exported function `{}` has a parameter `{}` whose type is not known",
                f.name, p.name
            ),
        )
        .with_secondary(p.span, "no call in this module fixes its type")
        .with_note(format!(
            "add a type annotation, e.g. `{} : scalar` or `{} : mat`",
            p.name, p.name
        )),
    )
}

fn export(g: &mut Gen, name: &str, id: FunctionId) -> Result<TokenStream, Diagnostic> {
    let f = g.m.function(id);
    let ctx = if f.kind == FunctionKind::Device { Ctx::Device } else { Ctx::Host };
    let rt = g.rt.clone();
    let mut params = Vec::new();
    let mut args = Vec::new();
    for p in &f.params {
        let l = f.local(*p);
        let r = repr_in(g, &l.ty, ctx, l.span)?;
        if matches!(
            r,
            Repr::FnVal(_) | Repr::View(..) | Repr::Class(_) | Repr::Obj(_) | Repr::Ptr(_)
        ) {
            // Rust callers cannot make Quasar function values or kernel views: such a
            // function stays internal to the module.
            g.diagnostics.push(Diagnostic::warning(
                l.span,
                format!(
                    "`{name}` is not exported to Rust: its parameter `{}` is {}",
                    l.name,
                    l.ty.spelled_with_scalar(g.opts.scalar)
                ),
            ));
            return Ok(quote!());
        }
        let ident = rust_ident(&l.name);
        let (ty, arg) = param_type(g, &r, &ident, l.span)?;
        params.push(quote!(#ident: #ty));
        // An array from Rust is seen at the parameter's rank, checked (a vector is a row; a
        // `[m, n, 1]` cube fits a `mat`, a `[m, n, 3]` one does not).
        let arg = match r {
            Repr::Array(_, Some(rank)) => {
                let rank = rank as usize;
                let what = format!("argument `{}` of `{name}`", l.name);
                let declared = l.ty.spelled_with_scalar(g.opts.scalar).to_string();
                quote!(#ident.with_rank(#rank, #what, #declared)?)
            }
            _ => arg,
        };
        args.push(arg);
    }
    if !f.captures.is_empty() {
        return Err(unsupported(
            f.span,
            "exporting a function that captures variables",
            "pass the captured values as parameters",
        ));
    }
    let ret = results(g, &f.outputs, id, ctx)?;
    let inner = g.fn_ident(id);
    let ident = rust_ident(name);
    let doc = format!(" The Quasar function `{name}` ({}).", signature_text(g, id));
    Ok(quote! {
        #[doc = #doc]
        #[allow(clippy::too_many_arguments)]
        pub fn #ident(#(#params),*) -> #rt::run::Result<#ret> {
            #inner(#(#args),*)
        }
    })
}

/// The Rust parameter type of an exported function and the argument passed inside.
fn param_type(
    g: &Gen,
    r: &Repr,
    ident: &Ident,
    span: crate::span::Span,
) -> Result<(TokenStream, TokenStream), Diagnostic> {
    let rt = &g.rt;
    Ok(match r {
        Repr::Num(n) => (n.tokens(rt), quote!(#ident)),
        Repr::Str => (quote!(&str), quote!(::std::string::String::from(#ident))),
        Repr::Array(n, _) => {
            let t = n.tokens(rt);
            (quote!(&#rt::run::Array<#t>), quote!(#ident.clone()))
        }
        Repr::Fixed(n, s) => {
            let t = n.tokens(rt);
            let len: usize = s.iter().product();
            (quote!([#t; #len]), quote!(#ident))
        }
        Repr::Value => (quote!(&#rt::qstd::value::Value), quote!(#ident.clone())),
        _ => {
            return Err(unsupported(
                span,
                "a parameter of this type in an exported function",
                "give exported functions parameters that are numbers, strings or arrays of numbers",
            ))
        }
    })
}

fn results(
    g: &Gen,
    outputs: &[LocalId],
    id: FunctionId,
    ctx: Ctx,
) -> Result<TokenStream, Diagnostic> {
    let f = g.m.function(id);
    let mut ts = Vec::new();
    for o in outputs {
        let l = f.local(*o);
        let r = repr_in(g, &l.ty, ctx, l.span)?;
        ts.push(super::fnval::type_tokens(g, &r));
    }
    Ok(match ts.len() {
        0 => quote!(()),
        1 => ts.remove(0),
        _ => quote!((#(#ts),*)),
    })
}

fn signature_text(g: &Gen, id: FunctionId) -> String {
    let f = g.m.function(id);
    let ps: Vec<String> = f
        .params
        .iter()
        .map(|p| {
            let l = f.local(*p);
            format!("{} : {}", l.name, l.ty.spelled_with_scalar(g.opts.scalar))
        })
        .collect();
    let os: Vec<String> = f
        .outputs
        .iter()
        .map(|p| f.local(*p).ty.spelled_with_scalar(g.opts.scalar).to_string())
        .collect();
    format!("({}) -> ({})", ps.join(", "), os.join(", "))
}

/// `pub fn script()`: the top-level statements, then `main` when it takes no parameters
/// (manual §13.1).
fn script(g: &mut Gen) -> TokenStream {
    let rt = g.rt.clone();
    let mut calls = Vec::new();
    if let Some(s) = g.m.script {
        let f = g.m.function(s);
        if !f.generic && !f.body.is_empty() {
            let name = g.fn_ident(s);
            calls.push(quote!(#name()?;));
        }
    }
    if let Some(mn) = g.m.main.filter(|&mn| g.m.function(mn).params.is_empty()) {
        let name = g.fn_ident(mn);
        calls.push(quote!(#name()?;));
    }
    quote! {
        /// Runs the Quasar file's top-level statements, then its `main` function if it has one.
        pub fn script() -> #rt::run::Result<()> {
            #(#calls)*
            ::core::result::Result::Ok(())
        }
    }
}
