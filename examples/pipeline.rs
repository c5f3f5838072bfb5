//! The main example of Quasar for Rust: an image pipeline written in Quasar
//! (`examples/pipeline.q`: a separable Gaussian blur with `parallel_do` kernels, then gamma
//! correction with a `__device__` lambda).
//!
//! Code generation does not exist yet, so today this example can only check the pipeline's
//! syntax with the compiler front end and list the functions it defines. Once `quasar!`
//! generates code, it will run the pipeline on a bundled image.
//!
//! Run with `cargo run --release --example pipeline`.

use quasar::compiler::syntax::{self, ast};
use quasar::compiler::SourceMap;
use std::process::ExitCode;

const NAME: &str = "examples/pipeline.q";
const SOURCE: &str = include_str!("pipeline.q");

fn main() -> ExitCode {
    let mut map = SourceMap::new();
    let file = map.add(NAME, SOURCE);
    let parsed = syntax::parse(map.source(file), file);
    eprint!("{}", map.render(&parsed.diagnostics));
    if parsed.has_errors() {
        eprintln!("{NAME} has syntax errors");
        return ExitCode::FAILURE;
    }

    println!("{NAME} parses. Functions it defines:");
    for stmt in &parsed.program.body {
        if let ast::StmtKind::Function(f) = &stmt.kind {
            let kind = f.kind.word().unwrap_or("host");
            let params: Vec<&str> = f.params.iter().map(|p| p.name.name.as_str()).collect();
            println!(
                "  line {:>3}  {:<10} {}({})",
                f.span.line,
                kind,
                f.name.name,
                params.join(", ")
            );
        }
    }
    println!("Code generation arrives in a later version: the pipeline cannot run yet.");
    ExitCode::SUCCESS
}
