//! Compile-fail tests of the `quasar!` macro's error messages (trybuild).
//!
//! Each `tests/ui/<name>.rs` holds one error and `<name>.stderr` its exact text: syntax
//! errors, type errors and code-generation errors carry the file, line and column (for an
//! inline block, those of the `.rs` file) and a snippet; misspelt names get a "did you mean"
//! note; a module with errors still defines its functions, so the calling code adds no errors
//! (`no_knock_on_errors`); bad macro input points at the offending token. Regenerate the expected output with
//! `TRYBUILD=overwrite cargo test --test macro_errors` and read the diff.

#[test]
fn macro_errors() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
