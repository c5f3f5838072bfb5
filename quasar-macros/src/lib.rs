//! The `quasar!` procedural macro of Quasar for Rust.
//!
//! `quasar!` takes Quasar source, either inline as a string literal or from a `.q` file, and
//! hands it to the compiler in `quasar-core`. Quasar compile errors become Rust compile errors
//! (`compile_error!`) whose text carries the Quasar file, line and column and a snippet with a
//! caret.
//!
//! **Status:** this crate is being built. Today the macro parses and type-checks the source and
//! reports its errors; code generation does not exist yet, so a program that checks is answered with a
//! compile error that says exactly that. Use the `quasar` crate, which re-exports this macro.

use proc_macro::TokenStream;
use proc_macro2::Span;
use quasar_core::syntax;
use quasar_core::SourceMap;
use quote::{quote, quote_spanned};
use std::path::PathBuf;
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
/// Syntax and type errors are reported as compile errors with the Quasar file, line and
/// column. Code generation is not implemented yet: source that type-checks is answered with a
/// compile error that says so.
#[proc_macro]
pub fn quasar(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as Input);
    expand(input).into()
}

/// What the macro accepts: a string literal with Quasar source, or `file = "path.q"`.
enum Input {
    Inline(LitStr),
    File(LitStr),
}

impl Parse for Input {
    fn parse(input: ParseStream) -> syn::Result<Input> {
        const EXPECTED: &str =
            "expected Quasar source as a string literal (`r#\"…\"#`) or `file = \"path.q\"`";
        let parsed = if input.peek(LitStr) {
            Input::Inline(input.parse()?)
        } else if input.peek(Ident) {
            let key: Ident = input.parse()?;
            if key != "file" {
                return Err(syn::Error::new(key.span(), EXPECTED));
            }
            input.parse::<Token![=]>()?;
            let path = input.parse()?;
            let _ = input.parse::<Option<Token![,]>>()?;
            Input::File(path)
        } else {
            return Err(input.error(EXPECTED));
        };
        if !input.is_empty() {
            return Err(input.error("unexpected input after the Quasar source"));
        }
        Ok(parsed)
    }
}

fn expand(input: Input) -> proc_macro2::TokenStream {
    let (name, source, span, tracked) = match input {
        Input::Inline(lit) => (INLINE_NAME.to_string(), lit.value(), lit.span(), None),
        Input::File(lit) => {
            let relative = lit.value();
            let Some(dir) = std::env::var_os("CARGO_MANIFEST_DIR") else {
                return error(
                    lit.span(),
                    "quasar!: CARGO_MANIFEST_DIR is not set, so `file = …` cannot be resolved \
                     (build with Cargo)",
                );
            };
            let path = PathBuf::from(dir).join(&relative);
            match std::fs::read_to_string(&path) {
                Ok(source) => (relative, source, lit.span(), Some(path)),
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

    let mut map = SourceMap::new();
    let file = map.add(name.as_str(), source);
    let parsed = syntax::parse(map.source(file), file);
    let rendered = map.render(&parsed.diagnostics);

    let message = if parsed.has_errors() {
        let n = parsed.diagnostics.iter().filter(|d| d.is_error()).count();
        let plural = if n == 1 { "" } else { "s" };
        format!("quasar!: {n} syntax error{plural} in `{name}`\n\n{rendered}")
    } else {
        let checked = quasar_core::sema::check::check_program(&parsed.program);
        let mut diagnostics = parsed.diagnostics.clone();
        diagnostics.extend(checked.diagnostics.iter().cloned());
        let rendered = map.render(&diagnostics);
        let n = checked.diagnostics.iter().filter(|d| d.is_error()).count();
        let mut message = if n > 0 {
            let plural = if n == 1 { "" } else { "s" };
            format!("quasar!: {n} type error{plural} in `{name}`")
        } else {
            String::from(
                "quasar!: the source parses and type-checks, but code generation is not \
                 implemented yet in this version",
            )
        };
        if !diagnostics.is_empty() {
            message.push_str("\n\n");
            message.push_str(&rendered);
        }
        message
    };

    let mut out = error(span, &message);
    if let Some(path) = tracked.and_then(|p| p.to_str().map(str::to_owned)) {
        // Makes Cargo rebuild when the `.q` file changes.
        out.extend(quote! { const _: &[u8] = ::core::include_bytes!(#path); });
    }
    out
}

fn error(span: Span, message: &str) -> proc_macro2::TokenStream {
    quote_spanned! {span=> ::core::compile_error! { #message } }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expand_tokens(tokens: proc_macro2::TokenStream) -> String {
        expand(syn::parse2::<Input>(tokens).expect("input parses")).to_string()
    }

    #[test]
    fn accepts_a_string_or_file_and_rejects_anything_else() {
        assert!(syn::parse2::<Input>(quote!(r#"x = 1"#)).is_ok());
        assert!(syn::parse2::<Input>(quote!(file = "a.q")).is_ok());
        assert!(syn::parse2::<Input>(quote!(file = "a.q",)).is_ok());
        assert!(syn::parse2::<Input>(quote!(path = "a.q")).is_err());
        assert!(syn::parse2::<Input>(quote!("a" "b")).is_err());
        assert!(syn::parse2::<Input>(quote!()).is_err());
    }

    #[test]
    fn syntax_errors_name_the_block_line_and_column() {
        let out = expand_tokens(quote!("x = 1\ny = ) 2\n"));
        assert!(out.contains("compile_error"), "{out}");
        assert!(out.contains("syntax error"), "{out}");
        assert!(out.contains("<quasar! block>:2:5"), "{out}");
    }

    #[test]
    fn valid_source_says_code_generation_is_not_implemented() {
        let out = expand_tokens(quote!("function y = f(x : scalar)\n    y = x + 1\nendfunction\n"));
        assert!(out.contains("compile_error"), "{out}");
        assert!(out.contains("code generation is not implemented yet"), "{out}");
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
        assert!(out.contains("code generation is not implemented yet"), "{out}");
        assert!(out.contains("include_bytes"), "{out}");
    }
}
