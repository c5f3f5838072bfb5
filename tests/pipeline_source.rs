//! The Quasar source bundled with the `pipeline` example stays valid.

use quasar_core::syntax::{self, ast};
use quasar_core::SourceMap;

#[test]
fn pipeline_q_parses_without_diagnostics() {
    let mut map = SourceMap::new();
    let file = map.add("examples/pipeline.q", include_str!("../examples/pipeline.q"));
    let parsed = syntax::parse(map.source(file), file);
    assert!(parsed.diagnostics.is_empty(), "{}", map.render(&parsed.diagnostics));
    let names: Vec<&str> = parsed
        .program
        .body
        .iter()
        .filter_map(|s| match &s.kind {
            ast::StmtKind::Function(f) => Some(f.name.name.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(
        names,
        [
            "gaussian_coefficients",
            "blur_horizontal",
            "blur_vertical",
            "gaussian_blur",
            "gamma_correct",
            "sharpen_kernel",
            "sharpen"
        ]
    );
}
