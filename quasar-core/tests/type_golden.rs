//! Golden tests for the type checker.
//!
//! * `type_errors/NAME.q`: a program with one mistake; its rendered diagnostics (errors and
//!   warnings) are compared with `type_errors/NAME.stderr`.
//! * `types_ok/NAME.q`: a program without errors; its rendered warnings (if any) followed by
//!   every function instance with its parameter, output and variable types
//!   (`ir::dump::instances`) are compared with `types_ok/NAME.types`.
//!
//! Every input must parse without errors. Run with `UPDATE_GOLDEN=1` to rewrite the expected
//! files after an intended change, then read the differences before committing them.

use quasar_core::ir::dump;
use quasar_core::sema::check::{check_program, Checked};
use quasar_core::syntax::parse;
use quasar_core::SourceMap;
use std::path::{Path, PathBuf};

fn inputs(dir: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests").join(dir);
    let mut inputs: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("readable directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "q"))
        .collect();
    inputs.sort();
    assert!(!inputs.is_empty(), "no inputs in {}", dir.display());
    inputs
}

/// Parses and checks `input`; returns the source map (to render with) and the result.
fn check_file(input: &Path) -> (SourceMap, Checked) {
    let source = std::fs::read_to_string(input).expect("readable input");
    let name = input.file_name().unwrap().to_string_lossy().into_owned();
    let mut map = SourceMap::new();
    let file = map.add(name.clone(), source);
    let parsed = parse(map.source(file), file);
    assert!(
        !parsed.has_errors(),
        "{name} must parse without errors:\n{}",
        map.render(&parsed.diagnostics)
    );
    let checked = check_program(&parsed.program);
    (map, checked)
}

/// Compares `actual` with the file next to `input` with extension `ext` (or rewrites it).
fn compare(input: &Path, ext: &str, actual: &str, mismatches: &mut Vec<String>) {
    let expected_path = input.with_extension(ext);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&expected_path, actual).expect("writable golden file");
        return;
    }
    let expected = std::fs::read_to_string(&expected_path).unwrap_or_default();
    if actual != expected {
        let name = input.file_name().unwrap().to_string_lossy();
        mismatches.push(format!("--- {name}: expected\n{expected}\n--- got\n{actual}"));
    }
}

#[test]
fn type_error_diagnostics_match_golden_files() {
    let mut mismatches = Vec::new();
    for input in inputs("type_errors") {
        let (map, checked) = check_file(&input);
        assert!(
            !checked.diagnostics.is_empty(),
            "{} should have a type error or warning",
            input.display()
        );
        compare(&input, "stderr", &map.render(&checked.diagnostics), &mut mismatches);
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}

#[test]
fn inferred_types_match_golden_files() {
    let mut mismatches = Vec::new();
    for input in inputs("types_ok") {
        let (map, checked) = check_file(&input);
        assert!(
            !checked.has_errors(),
            "{} should type-check without errors:\n{}",
            input.display(),
            map.render(&checked.diagnostics)
        );
        let actual = map.render(&checked.diagnostics) + &dump::instances(&checked.module);
        compare(&input, "types", &actual, &mut mismatches);
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}
