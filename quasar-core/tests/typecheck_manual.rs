//! Type-checks every code block of the Quasar manual that parses without errors: the checker
//! must not panic on any of them, and at least [`MIN_CLEAN_SNIPPETS`] must check without
//! errors.
//!
//! The snippets are extracted by `shared/tools/manual-snippets.py` (next to the workspace);
//! the test is skipped, with a message, when that script or `python3` is not available.
//! `SHOW_SNIPPET_ERRORS=1` prints the first error of every snippet that does not check.

use quasar_core::sema::check::check_program;
use quasar_core::syntax::parse;
use quasar_core::FileId;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{SystemTime, UNIX_EPOCH};

/// How many of the manual's 491 snippets type-check without errors today (364 parse). Most of
/// the others are excerpts that use names defined elsewhere (`img_in`, `x`, functions of
/// `system.q`), call built-ins this version does not have yet, or show mistakes on purpose; a
/// drop below this number means the checker rejects something it used to accept.
const MIN_CLEAN_SNIPPETS: usize = 198;

fn unique_temp_dir() -> PathBuf {
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
    std::env::temp_dir().join(format!("quasar-typecheck-manual-{}-{nanos}", std::process::id()))
}

/// Removes the directory when the test ends, also when it fails.
struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn manual_snippets_type_check_without_panicking() {
    let script =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/tools/manual-snippets.py");
    if !script.exists() {
        eprintln!("skipping manual type check: {} not found", script.display());
        return;
    }
    let dir = TempDir(unique_temp_dir());
    let output = match Command::new("python3").arg(&script).arg(&dir.0).output() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("skipping manual type check: cannot run python3: {e}");
            return;
        }
    };
    assert!(
        output.status.success(),
        "{} failed: {}",
        script.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir.0)
        .expect("snippet directory")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "q"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no snippets were extracted");

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
                let msg = e
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
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
