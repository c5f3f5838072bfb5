//! Type-checks every code block of the Quasar manual that parses without errors: the checker
//! must not panic on any of them, and at least [`MIN_CLEAN_SNIPPETS`] must check without
//! errors.
//!
//! The snippets are extracted by `shared/tools/manual-snippets.py` (next to the workspace);
//! the test is skipped, with a message, when that script or `python3` is not available.
//! `SHOW_SNIPPET_ERRORS=1` prints the first error of every snippet that does not check.

mod common;

use quasar_core::sema::check::check_program;
use quasar_core::syntax::parse;
use quasar_core::FileId;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// How many of the manual's 491 snippets type-check without errors today (364 parse). Most of
/// the others are excerpts that use names defined elsewhere (`img_in`, `x`, functions of
/// `system.q`), call built-ins this version does not have yet, or show mistakes on purpose; a
/// drop below this number means the checker rejects something it used to accept. (198 before
/// reductions were applied: the manual's reduction snippets that call undefined functions,
/// define a cycle, or use variadic, assignment or type-parameter patterns now get the named
/// errors instead of being ignored; 193 before the §6.1 `add_item(list1, 4, "text")`, which the
/// manual marks as a type mismatch, was reported as one.)
const MIN_CLEAN_SNIPPETS: usize = 199;

#[test]
fn manual_snippets_type_check_without_panicking() {
    let Some((_dir, files)) = common::manual_snippets("manual type check") else { return };

    let show = std::env::var_os("SHOW_SNIPPET_ERRORS").is_some();
    let (mut parsed, mut clean) = (0, 0);
    let mut panics = Vec::new();
    for file in &files {
        let name = file.file_name().unwrap_or_default().to_string_lossy().into_owned();
        let source = std::fs::read_to_string(file).expect("snippet is UTF-8");
        let program = parse(&source, FileId(0));
        if program.has_errors() {
            continue;
        }
        parsed += 1;
        match catch_unwind(AssertUnwindSafe(|| check_program(&program.program))) {
            Ok(checked) if !checked.has_errors() => clean += 1,
            Ok(checked) => {
                if show {
                    let d = checked.diagnostics.iter().find(|d| d.is_error()).unwrap();
                    eprintln!("{name}:{}:{}: {}", d.span.line, d.span.col, d.message);
                }
            }
            Err(e) => {
                let msg = common::panic_message(&*e);
                panics.push(format!("== {name}: {msg}\n{source}"));
            }
        }
    }
    eprintln!(
        "manual type check: {} snippets, {parsed} parse, {clean} type-check without errors, \
         {} panic",
        files.len(),
        panics.len()
    );
    assert!(panics.is_empty(), "the type checker panics on:\n{}", panics.join("\n"));
    assert!(
        clean >= MIN_CLEAN_SNIPPETS,
        "only {clean} manual snippets type-check without errors; {MIN_CLEAN_SNIPPETS} did before"
    );
}
