//! The `quasar!` procedural macro of Quasar for Rust.
//!
//! `quasar!` takes Quasar source, either inline as a string literal or from a `.q` file, and
//! hands it to the compiler in `quasar-core`. Quasar compile errors become Rust compile errors
//! (`compile_error!`) whose text carries the Quasar file, line and column and a snippet with a
//! caret.
//!
//! Use the `quasar` crate, which re-exports this macro (generated code refers to `::quasar`).

#![warn(missing_docs)]

mod cache;
mod stubs;

use proc_macro::TokenStream;
use proc_macro2::Span;
use quasar_core::driver::{self, BackEnd, Options, Stage};
use quasar_core::{Diagnostic, SourceMap};
use quote::{quote, quote_spanned};
use std::path::{Path, PathBuf};
use syn::parse::{Parse, ParseStream};
use syn::{Ident, LitStr, Token};

/// The name diagnostics use for inline source.
const INLINE_NAME: &str = "<quasar! block>";

/// Compiles Quasar source into Rust items.
///
/// ```ignore
/// quasar::quasar! { r#"
/// function y = brighten(x : mat, a : scalar)
///     y = x + a
/// endfunction
/// "# }
///
/// mod filters {
///     quasar::quasar!(file = "src/filters.q"); // relative to CARGO_MANIFEST_DIR
/// }
/// ```
///
/// Every top-level Quasar function becomes a `pub fn` with Rust types returning
/// `quasar::Result`; the file's top-level statements become `pub fn script()`. Syntax, type
/// and code-generation errors are compile errors with the Quasar file, line and column.
///
/// Options after the source, comma-separated:
///
/// * `double = true`: `scalar` is `f64`.
/// * `ptx = false`: do not embed PTX; every kernel then runs on the CPU. By default, when
///   `quasar`'s `cuda` (or `ptx-sim`) feature is on, the PTX of all kernels is embedded once
///   per invocation (a `static &str`), so that kernels can run on an NVIDIA GPU. Without
///   those features no PTX is generated at all (it could never run, and generating it is
///   about 40% of a debug rebuild of a kernel library). Kernels the PTX back end cannot compile yet
///   run on the CPU; the macro does not warn about them (the program is correct), and
///   `quasar emit --ptx FILE.q` lists them with the reason. A launch forced onto the GPU
///   (`SchedMode::Gpu`) of such a kernel is an error that gives the reason.
/// * `main_args = "scalar, string"`: `main` is instantiated for a command line with
///   arguments of these types (`scalar`, `int` or `string`; a declared parameter type wins)
///   and exported as `pub fn main`, which `script()` then does not call. This is how
///   `quasar run` passes its arguments (manual §13.1).
#[proc_macro]
pub fn quasar(input: TokenStream) -> TokenStream {
    let mut input = syn::parse_macro_input!(input as Input);
    // Without a GPU back end in the build (this crate's `ptx` feature, which `quasar/cuda`
    // and `quasar/ptx-sim` turn on), PTX could never run.
    input.ptx &= cfg!(feature = "ptx");
    let cache =
        std::env::var_os("CARGO_MANIFEST_DIR").and_then(|dir| cache::directory(Path::new(&dir)));
    expand(input, cache.as_deref()).into()
}

/// What the macro accepts: a string literal with Quasar source, or `file = "path.q"`, and
/// options (`double = true`: `scalar` is `f64`; `ptx = false`: no PTX).
struct Input {
    source: Source,
    double: bool,
    ptx: bool,
    main_args: Option<Vec<quasar_core::sema::types::Type>>,
}

enum Source {
    Inline(LitStr),
    File(LitStr),
}

impl Parse for Input {
    fn parse(input: ParseStream) -> syn::Result<Input> {
        const EXPECTED: &str = "expected Quasar source as a string literal (`r#\"…\"#`) or \
                                `file = \"path.q\"`, optionally followed by `, double = true` \
                                and/or `, ptx = false`";
        let mut source = None;
        let mut double = false;
        let mut ptx = true;
        let mut main_args = None;
        while !input.is_empty() {
            if input.peek(LitStr) {
                if source.is_some() {
                    return Err(input.error("unexpected input after the Quasar source"));
                }
                source = Some(Source::Inline(input.parse()?));
            } else if input.peek(Ident) {
                let key: Ident = input.parse()?;
                input.parse::<Token![=]>()?;
                if key == "file" {
                    if source.is_some() {
                        return Err(syn::Error::new(
                            key.span(),
                            "the Quasar source is given twice",
                        ));
                    }
                    source = Some(Source::File(input.parse()?));
                } else if key == "double" {
                    double = input.parse::<syn::LitBool>()?.value;
                } else if key == "ptx" {
                    ptx = input.parse::<syn::LitBool>()?.value;
                } else if key == "main_args" {
                    let lit: LitStr = input.parse()?;
                    let types = driver::parse_main_args(&lit.value())
                        .map_err(|e| syn::Error::new(lit.span(), e))?;
                    main_args = Some(types);
                } else {
                    return Err(syn::Error::new(key.span(), EXPECTED));
                }
            } else {
                return Err(input.error(EXPECTED));
            }
            if !input.is_empty() {
                input.parse::<Token![,]>()?;
            }
        }
        match source {
            Some(source) => Ok(Input { source, double, ptx, main_args }),
            None => Err(input.error(EXPECTED)),
        }
    }
}

/// Expands `input`, reusing the output cached in `cache` for the same source and options
/// (see [`cache`]).
fn expand(input: Input, cache: Option<&Path>) -> proc_macro2::TokenStream {
    let Some(dir) = std::env::var_os("CARGO_MANIFEST_DIR").map(PathBuf::from) else {
        return error(
            Span::call_site(),
            "quasar!: CARGO_MANIFEST_DIR is not set, so files cannot be resolved (build with Cargo)",
        );
    };
    let (name, source, span, path) = match &input.source {
        // Imports of an inline block are relative to the crate's directory.
        Source::Inline(lit) => {
            let (name, source) = match in_rust_file(lit) {
                Some((file, padding)) => (file, padding + &lit.value()),
                None => (INLINE_NAME.to_string(), lit.value()),
            };
            (name, source, lit.span(), dir.join(INLINE_NAME))
        }
        Source::File(lit) => {
            let relative = lit.value();
            let path = dir.join(&relative);
            // A file that is not UTF-8 is read as Windows-1252 (the warning has no place in
            // a proc macro's output on stable Rust).
            match quasar_core::load::read_source(&path) {
                Ok(source) => (relative, source.text, lit.span(), path),
                Err(e) => {
                    return error(
                        lit.span(),
                        &format!(
                            "quasar!: cannot read `{relative}` (relative to CARGO_MANIFEST_DIR, \
                             `{}`): {e}",
                            path.display()
                        ),
                    )
                }
            }
        }
    };
    let search_path = std::env::var_os(quasar_core::load::search::SEARCH_PATH_VAR);
    let options = format!("{} {} {:?} {:?}", input.double, input.ptx, input.main_args, search_path);
    let key = cache::key(&[
        quasar_core::BUILD_ID.as_bytes(),
        name.as_bytes(),
        source.as_bytes(),
        path.as_os_str().as_encoded_bytes(),
        options.as_bytes(),
    ]);
    let cached = cache.and_then(|dir| cache::lookup(dir, &key)).and_then(|(text, tracked)| {
        Some((text.parse::<proc_macro2::TokenStream>().ok()?, tracked))
    });
    let (mut out, mut tracked) = match cached {
        Some(hit) => hit,
        None => {
            let (out, tracked, ok) = compile(&name, &source, &path, span, &input);
            if let (true, Some(dir)) = (ok, cache) {
                cache::store(dir, &key, &out.to_string(), &tracked);
            }
            (out, tracked)
        }
    };
    if path.is_file() {
        tracked.insert(0, path);
    }
    for path in tracked.iter().filter_map(|p| p.to_str()) {
        // Makes Cargo rebuild when a `.q` file (the macro's or an imported one) changes.
        out.extend(quote! { const _: &[u8] = ::core::include_bytes!(#path); });
    }
    out
}

/// The `.rs` file an inline block is written in, and the whitespace that puts its source at
/// the literal's line and column there: prefixed with it, the source's line and column
/// numbers are the `.rs` file's, in compile errors and in run-time error locations. `None`
/// outside a compiler's macro expansion (unit tests), for a span without a file, and for a
/// non-raw string with escapes (whose text is not the source's).
fn in_rust_file(lit: &LitStr) -> Option<(String, String)> {
    if !proc_macro::is_available() {
        return None;
    }
    let span = lit.span().unwrap();
    // Only a span in a real file; named as rustc names it.
    span.local_file()?;
    let written = lit.token().to_string();
    let opening = if written.starts_with('r') {
        written.find('"')? + 1
    } else if written.contains('\\') {
        return None;
    } else {
        1
    };
    let (line, column) = (span.line(), span.column());
    let padding = "\n".repeat(line.saturating_sub(1)) + &" ".repeat(column - 1 + opening);
    Some((span.file(), padding))
}

/// Compiles through the driver (parse, imports, type check, passes, PTX, Rust); any error
/// becomes one `compile_error!`. Also returns the imported files read (to be tracked) and
/// whether it succeeded.
fn compile(
    name: &str,
    source: &str,
    path: &Path,
    span: Span,
    input: &Input,
) -> (proc_macro2::TokenStream, Vec<PathBuf>, bool) {
    let double = input.double;
    let back_ends = if input.ptx { vec![BackEnd::Ptx, BackEnd::Rust] } else { vec![BackEnd::Rust] };
    let opts = Options {
        double,
        back_ends,
        main_args: input.main_args.clone(),
        ..Options::new(name, source, path)
    };
    let (mut art, loader) = driver::compile(&opts);
    match (art.failed, art.rust.take()) {
        (None, Some(tokens)) => (tokens, art.imported, true),
        (failed, _) => {
            let kind = failed.unwrap_or(Stage::CodeGeneration).word();
            let mut out = failure(&loader.map, &art.diagnostics, kind, name, span);
            // The module's items all the same, so that the caller's code has no errors of its
            // own: the parse recovers, so a syntax error leaves the other functions.
            let program = match art.program {
                Some(program) => program,
                None => {
                    let mut map = SourceMap::new();
                    let file = map.add(name, source.to_string());
                    quasar_core::syntax::parse(map.source(file), file).program
                }
            };
            out.extend(stubs::stubs(&program, art.checked.as_ref(), double));
            (out, art.imported, false)
        }
    }
}

/// `quasar!: N <kind> errors in `name`` with the rendered diagnostics.
fn failure(
    map: &SourceMap,
    diagnostics: &[Diagnostic],
    kind: &str,
    name: &str,
    span: Span,
) -> proc_macro2::TokenStream {
    let errors: Vec<Diagnostic> = diagnostics.iter().filter(|d| d.is_error()).cloned().collect();
    let n = errors.len();
    let plural = if n == 1 { "" } else { "s" };
    let rendered = map.render(&errors);
    error(span, &format!("quasar!: {n} {kind} error{plural} in `{name}`\n\n{rendered}"))
}

fn error(span: Span, message: &str) -> proc_macro2::TokenStream {
    quote_spanned! {span=> ::core::compile_error! { #message } }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expand_tokens(tokens: proc_macro2::TokenStream) -> String {
        expand(syn::parse2::<Input>(tokens).expect("input parses"), None).to_string()
    }

    #[test]
    fn unchanged_source_is_served_from_the_cache_and_failures_are_not_cached() {
        let dir = std::env::temp_dir().join(format!("quasar-macros-cache-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let run = |src: &str| {
            expand(syn::parse2::<Input>(quote!(#src)).expect("input parses"), Some(&dir))
                .to_string()
        };
        let src = "function y = f(x : scalar)\n    y = x + 1\nendfunction\n";
        let first = run(src);
        let entries: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
        assert_eq!(entries.len(), 1, "{entries:?}");
        // The entry's text re-parses to the same tokens.
        assert_eq!(run(src), first);
        // A hit is really served from the entry: mark it and see the mark.
        let text = std::fs::read_to_string(&entries[0]).unwrap();
        std::fs::write(&entries[0], text.replace("pub fn f", "pub fn f_from_cache")).unwrap();
        assert!(run(src).contains("pub fn f_from_cache"));
        // Another source or option is another entry; a failure is not stored.
        assert!(
            !run("function y = f(x : scalar)\n    y = x + 2\nendfunction\n").contains("from_cache")
        );
        assert!(run("y = ) 2\n").contains("compile_error"));
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 2);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn accepts_a_string_or_file_and_rejects_anything_else() {
        assert!(syn::parse2::<Input>(quote!(r#"x = 1"#)).is_ok());
        assert!(syn::parse2::<Input>(quote!(file = "a.q")).is_ok());
        assert!(syn::parse2::<Input>(quote!(file = "a.q",)).is_ok());
        assert!(syn::parse2::<Input>(quote!(path = "a.q")).is_err());
        assert!(syn::parse2::<Input>(quote!("a", double = true)).is_ok());
        assert!(syn::parse2::<Input>(quote!("a" "b")).is_err());
        assert!(syn::parse2::<Input>(quote!()).is_err());
    }

    #[test]
    fn a_missing_import_is_an_error_naming_it() {
        let out = expand_tokens(quote!("import \"nope.q\"\nx = 1\n"));
        assert!(out.contains("compile_error"), "{out}");
        assert!(out.contains("import error"), "{out}");
        assert!(out.contains("cannot find the imported file `nope.q`"), "{out}");
        assert!(out.contains("<quasar! block>:1:1"), "{out}");
    }

    #[test]
    fn syntax_errors_name_the_block_line_and_column() {
        let out = expand_tokens(quote!("x = 1\ny = ) 2\n"));
        assert!(out.contains("compile_error"), "{out}");
        assert!(out.contains("syntax error"), "{out}");
        assert!(out.contains("<quasar! block>:2:5"), "{out}");
    }

    #[test]
    fn valid_source_generates_an_exported_function() {
        let out = expand_tokens(quote!("function y = f(x : scalar)\n    y = x + 1\nendfunction\n"));
        assert!(!out.contains("compile_error"), "{out}");
        assert!(out.contains("pub fn f"), "{out}");
        assert!(out.contains("pub fn script"), "{out}");
    }

    #[test]
    fn the_double_option_makes_scalars_f64() {
        let out = expand_tokens(quote!(
            "function y = f(x : scalar)\n    y = x\nendfunction\n",
            double = true
        ));
        assert!(out.contains("f64"), "{out}");
        assert!(syn::parse2::<Input>(quote!(file = "a.q", double = false)).is_ok());
        assert!(syn::parse2::<Input>(quote!(double = 1)).is_err());
    }

    #[test]
    fn ptx_is_embedded_once_unless_turned_off() {
        let src = "function [] = __kernel__ k(x : vec, pos : int)\n    x[pos] = 1.0\nendfunction\n\
                   function [] = __kernel__ k2(x : vec, pos : int)\n    x[pos] = 2.0\nendfunction\n";
        let out = expand_tokens(quote!(#src));
        assert!(!out.contains("compile_error"), "{out}");
        assert_eq!(out.matches("static __Q_PTX :").count(), 1, "{out}");
        assert_eq!(out.matches("with_ptx_entry").count(), 2, "{out}");
        assert!(out.contains(".entry k"), "{out}");
        let out = expand_tokens(quote!(#src, ptx = false));
        assert!(!out.contains("__Q_PTX"), "{out}");
        assert!(syn::parse2::<Input>(quote!("a", ptx = 1)).is_err());
    }

    #[test]
    fn unchecked_accesses_get_a_debug_and_a_release_ptx() {
        // Debug builds check 'unchecked accesses on the CPU; the GPU must do the same.
        let src = "function [] = __kernel__ k(x : vec'unchecked, pos : int)\n    x[pos + 1] = 1.0\nendfunction\n";
        let out = expand_tokens(quote!(#src));
        assert!(!out.contains("compile_error"), "{out}");
        assert_eq!(out.matches("static __Q_PTX :").count(), 2, "{out}");
        assert!(
            out.contains("# [cfg (debug_assertions)] # [doc (hidden)] static __Q_PTX :"),
            "{out}"
        );
        assert!(out.contains("# [cfg (not (debug_assertions))]"), "{out}");
        assert!(out.contains("checked : true"), "{out}");
    }

    #[test]
    fn file_input_is_read_and_tracked_and_a_missing_file_is_an_error() {
        let out = expand_tokens(quote!(file = "does/not/exist.q"));
        assert!(out.contains("cannot read `does/not/exist.q`"), "{out}");

        let path =
            std::env::temp_dir().join(format!("quasar-macros-test-{}.q", std::process::id()));
        std::fs::write(&path, "x = 1\n").unwrap();
        let name = path.to_str().unwrap();
        let out = expand_tokens(quote!(file = #name));
        std::fs::remove_file(&path).unwrap();
        assert!(out.contains("pub fn script"), "{out}");
        assert!(out.contains("include_bytes"), "{out}");
    }
}
