//! The module's API when it has Quasar errors: one `pub fn` per function that would be
//! exported, with the Rust types its annotations give, and `script()`. The user's Rust code
//! that calls them then compiles on its own, so the only errors are the Quasar ones (no
//! "cannot find function" or type errors caused by the missing items). An unannotated
//! parameter or result is a type parameter, which the caller's code fixes. The bodies never
//! run: the `compile_error!` beside them stops the build.

use proc_macro2::{Ident, Span, TokenStream};
use quasar_core::backend::rust::ty::Num;
use quasar_core::ir::Module;
use quasar_core::sema::types::Type;
use quasar_core::syntax::ast::{FunctionKind, Program, StmtKind, TypeExpr, TypeKind};
use quote::{format_ident, quote};
use std::collections::BTreeMap;

/// A function's Rust parameter and result types; `None` where a type is not known.
struct Signature {
    params: Vec<Option<Rust>>,
    results: Vec<Option<Rust>>,
}

/// The stubs of the exported functions: with the types the type checker found where it ran
/// (`module`, also when it reported errors), else with the types of the annotations.
pub(crate) fn stubs(program: &Program, module: Option<&Module>, double: bool) -> TokenStream {
    let mut by_name: BTreeMap<String, Signature> = BTreeMap::new();
    if let Some(m) = module {
        for f in &m.functions {
            if !exported(f.kind, &f.name) || !f.top_level || f.generic {
                continue;
            }
            let of = |ids: &[quasar_core::ir::LocalId]| {
                ids.iter().map(|&id| typed(&f.local(id).ty, double)).collect()
            };
            keep(
                &mut by_name,
                &f.name,
                Signature { params: of(&f.params), results: of(&f.outputs) },
            );
        }
    }
    let typed_names: Vec<String> = by_name.keys().cloned().collect();
    for stmt in &program.body {
        let StmtKind::Function(f) = &stmt.kind else { continue };
        if !exported(f.kind, &f.name.name) || f.is_macro || typed_names.contains(&f.name.name) {
            continue;
        }
        let of = |ps: &[quasar_core::syntax::ast::Param]| {
            ps.iter().map(|p| p.ty.as_ref().and_then(|t| annotated(t, double))).collect()
        };
        let sig = Signature { params: of(&f.params), results: of(&f.outputs) };
        keep(&mut by_name, &f.name.name, sig);
    }

    let rt = quote!(::quasar::__rt::run);
    let mut items = Vec::new();
    for (name, sig) in by_name {
        let Some(ident) = rust_ident(&name) else { continue };
        let mut generics = Vec::new();
        let mut params = Vec::new();
        for (i, p) in sig.params.into_iter().enumerate() {
            let ty = match p {
                Some(Rust::Array(elem)) => quote!(&#rt::Array<#elem>),
                Some(Rust::Str) => quote!(&str),
                Some(Rust::Value(t)) => t,
                None => {
                    let g = format_ident!("P{}", i);
                    generics.push(g.clone());
                    quote!(#g)
                }
            };
            params.push(quote!(_: #ty));
        }
        let mut results = Vec::new();
        for (i, r) in sig.results.into_iter().enumerate() {
            results.push(match r {
                Some(Rust::Array(elem)) => quote!(#rt::Array<#elem>),
                Some(Rust::Str) => quote!(::std::string::String),
                Some(Rust::Value(t)) => t,
                None => {
                    let g = format_ident!("R{}", i);
                    generics.push(g.clone());
                    quote!(#g)
                }
            });
        }
        let result = match results.len() {
            0 => quote!(()),
            1 => results.remove(0),
            _ => quote!((#(#results),*)),
        };
        items.push(quote! {
            #[allow(clippy::too_many_arguments, clippy::extra_unused_type_parameters)]
            pub fn #ident<#(#generics),*>(#(#params),*) -> #rt::Result<#result> {
                ::core::unreachable!("quasar! reported errors for this module")
            }
        });
    }
    quote! {
        #(#items)*
        /// The module's top-level statements (not compiled: the module has errors).
        pub fn script() -> #rt::Result<()> {
            ::core::unreachable!("quasar! reported errors for this module")
        }
    }
}

/// Keeps `sig` for `name` unless a signature with as many parameters is there.
fn keep(by_name: &mut BTreeMap<String, Signature>, name: &str, sig: Signature) {
    if by_name.get(name).is_none_or(|old| sig.params.len() > old.params.len()) {
        by_name.insert(name.to_string(), sig);
    }
}

/// Whether a top-level function of this kind and name is exported.
fn exported(kind: FunctionKind, name: &str) -> bool {
    kind != FunctionKind::Kernel && name != "main" && !name.starts_with('<')
}

/// The Rust type of a checked type, for the types a module exports.
fn typed(t: &Type, double: bool) -> Option<Rust> {
    let rt = quote!(::quasar::__rt);
    // The checker's types keep `scalar`'s default precision; the double mode decides it.
    let t = t.map_precision(&|p| p.resolved(double));
    match &t {
        Type::String => Some(Rust::Str),
        Type::Array(a) => Num::of(&a.elem).map(|n| Rust::Array(n.tokens(&rt))),
        t => Num::of(t).map(|n| Rust::Value(n.tokens(&rt))),
    }
}

/// A Rust identifier for a Quasar function name (raw for a Rust keyword), or `None` when the
/// name is not an identifier in Rust.
fn rust_ident(name: &str) -> Option<Ident> {
    let mut chars = name.chars();
    let first = chars.next()?;
    let valid = (first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && name != "_";
    if !valid || matches!(name, "self" | "Self" | "crate" | "super") {
        return None;
    }
    Some(match syn::parse_str::<Ident>(name) {
        Ok(ident) => ident,
        Err(_) => Ident::new_raw(name, Span::call_site()),
    })
}

/// How an annotated type crosses to Rust.
enum Rust {
    /// `&Array<T>` as a parameter, `Array<T>` as a result.
    Array(TokenStream),
    /// `&str` as a parameter, `String` as a result.
    Str,
    /// The same type both ways.
    Value(TokenStream),
}

/// The Rust type of a type annotation, for the types a module exports.
fn annotated(t: &TypeExpr, double: bool) -> Option<Rust> {
    let TypeKind::Named { name, dims, args, .. } = &t.kind else { return None };
    let has = |m: &str| t.modifiers.iter().any(|x| x.name.name == m);
    let float = if has("half") {
        quote!(::quasar::__rt::run::f16)
    } else if has("double") || (double && !has("single")) {
        quote!(f64)
    } else {
        quote!(f32)
    };
    let complex = quote!(::quasar::__rt::run::Complex<#float>);
    let name = name.name.as_str();
    let number = match name {
        "scalar" => Some(float.clone()),
        "cscalar" => Some(complex.clone()),
        "int" | "int32" => Some(quote!(i32)),
        "int8" => Some(quote!(i8)),
        "int16" => Some(quote!(i16)),
        "int64" => Some(quote!(i64)),
        "uint8" => Some(quote!(u8)),
        "uint16" => Some(quote!(u16)),
        "uint32" => Some(quote!(u32)),
        "uint64" => Some(quote!(u64)),
        _ => None,
    };
    if let Some(n) = number {
        return (dims.is_none() && args.is_empty()).then_some(Rust::Value(n));
    }
    if name == "string" {
        return Some(Rust::Str);
    }
    // Arrays: vec, mat, cube (with a size suffix like vec3, a prefix i/c for int/complex
    // elements, or an element type in brackets).
    let (prefix, rest) = match name.as_bytes().first() {
        Some(b'i') => ("i", &name[1..]),
        Some(b'c') if name != "cube" && !name.starts_with("cube") => ("c", &name[1..]),
        _ => ("", name),
    };
    let base = rest.trim_end_matches(|c: char| c.is_ascii_digit());
    if !matches!(base, "vec" | "mat" | "cube") {
        return None;
    }
    let elem = match (args.first(), prefix) {
        (Some(arg), _) => match annotated(arg, double)? {
            Rust::Value(t) => t,
            _ => return None,
        },
        (None, "i") => quote!(i32),
        (None, "c") => complex,
        (None, _) => float,
    };
    Some(Rust::Array(elem))
}
