//! Compiles every code block of the Quasar manual through the whole driver, as `quasar!` does
//! (type checking, the passes, the PTX and Rust back ends): none may panic, and at least
//! [`MIN_COMPILED_SNIPPETS`] must compile without errors.
//!
//! `QUASAR_EXTRA_Q_DIR=DIR` also compiles every `.q` file under `DIR` (imports resolved next
//! to each file) and prints how many compile: a measure for other people's Quasar code, which
//! this repository does not ship. `SHOW_SNIPPET_ERRORS=1` prints the first error of each
//! program that does not compile.

mod common;

use quasar_core::driver::{self, BackEnd, Options};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

/// How many of the manual's snippets compile through `quasar!` without errors today. Most of
/// the others are excerpts that use names defined elsewhere, call built-ins this version does
/// not have, or show mistakes on purpose; a drop below this number means the compiler rejects
/// something it used to accept.
const MIN_COMPILED_SNIPPETS: usize = 181;

/// What compiling one file gave: `Ok(true)` without errors, `Ok(false)` with errors (the
/// first one printed when asked), `Err` a panic's message.
fn compile(path: &Path, show: bool) -> Result<bool, String> {
    // Other people's files may be Windows-1252, decoded as the macro and the CLI do.
    let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
    let source = quasar_core::syntax::encoding::decode(bytes).text;
    let name = path.file_name().unwrap_or_default().to_string_lossy().into_owned();
    let opts = Options {
        back_ends: vec![BackEnd::Ptx, BackEnd::Rust],
        ..Options::new(&name, source, path)
    };
    let art = catch_unwind(AssertUnwindSafe(|| driver::compile(&opts).0))
        .map_err(|e| common::panic_message(&*e))?;
    if art.has_errors() && show {
        let d = art.diagnostics.iter().find(|d| d.is_error()).expect("an error");
        eprintln!("{}:{}:{}: {}", path.display(), d.span.line, d.span.col, d.message);
    }
    Ok(!art.has_errors())
}

/// Every `.q` file under `dir` (unsorted).
fn q_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            q_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "q") {
            out.push(p);
        }
    }
}

#[test]
fn manual_snippets_compile_through_the_whole_driver() {
    let Some((_dir, files)) = common::manual_snippets("manual compile") else { return };
    let show = std::env::var_os("SHOW_SNIPPET_ERRORS").is_some();
    let (mut compiled, mut panics) = (0, Vec::new());
    for file in &files {
        match compile(file, show) {
            Ok(ok) => compiled += usize::from(ok),
            Err(msg) => panics.push(format!("{}: {msg}", file.display())),
        }
    }
    eprintln!("manual compile: {} snippets, {compiled} compile without errors", files.len());
    if let Some(dir) = std::env::var_os("QUASAR_EXTRA_Q_DIR") {
        let mut extra = Vec::new();
        q_files(Path::new(&dir), &mut extra);
        extra.sort();
        let mut ok = 0;
        for file in &extra {
            match compile(file, show) {
                Ok(good) => ok += usize::from(good),
                Err(msg) => panics.push(format!("{}: {msg}", file.display())),
            }
        }
        eprintln!("{}: {} files, {ok} compile without errors", dir.to_string_lossy(), extra.len());
    }
    assert!(panics.is_empty(), "the compiler panics on:\n{}", panics.join("\n"));
    assert!(
        compiled >= MIN_COMPILED_SNIPPETS,
        "only {compiled} manual snippets compile; {MIN_COMPILED_SNIPPETS} did before"
    );
}
