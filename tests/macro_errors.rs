//! Compile-fail tests of the `quasar!` macro's error messages (trybuild).
//!
//! Each `tests/ui/<name>.rs` holds one error and `<name>.stderr` its exact text: syntax
//! errors, type errors and code-generation errors carry the Quasar file, line and column and a
//! snippet; bad macro input points at the offending token. Regenerate the expected output with
//! `TRYBUILD=overwrite cargo test --test macro_errors` and read the diff.

#[test]
fn macro_errors() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
