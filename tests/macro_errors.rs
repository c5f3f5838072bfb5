//! Compile-fail tests of the `quasar!` macro's error messages (trybuild).

#[test]
fn macro_errors() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
