//! Golden tests for syntax diagnostics: each `syntax_errors/NAME.q` is parsed and its rendered
//! diagnostics are compared with `syntax_errors/NAME.stderr`.
//! Run with `UPDATE_GOLDEN=1` to rewrite the expected files after an intended change.

use quasar_core::{syntax::parse, SourceMap};
use std::path::Path;

#[test]
fn syntax_error_diagnostics_match_golden_files() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/syntax_errors");
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    let mut inputs: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/syntax_errors exists")
        .map(|e| e.expect("readable directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "q"))
        .collect();
    inputs.sort();
    assert!(!inputs.is_empty());
    let mut mismatches = Vec::new();
    for input in &inputs {
        let source = std::fs::read_to_string(input).expect("readable input");
        let name = input.file_name().unwrap().to_string_lossy().into_owned();
        let mut map = SourceMap::new();
        let file = map.add(name.clone(), source.clone());
        let parsed = parse(&source, file);
        assert!(parsed.has_errors(), "{name} should have syntax errors");
        let rendered = map.render(&parsed.diagnostics);
        let expected_path = input.with_extension("stderr");
        if update {
            std::fs::write(&expected_path, &rendered).expect("writable golden file");
            continue;
        }
        let expected = std::fs::read_to_string(&expected_path).unwrap_or_default();
        if rendered != expected {
            mismatches.push(format!("--- {name}: expected\n{expected}\n--- got\n{rendered}"));
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}
