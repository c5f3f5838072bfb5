//! Round-trips every code block of the Quasar manual through the pretty-printer: for each
//! snippet that parses without errors, printing it and parsing the result again must give an
//! equal tree, and printing must be idempotent.
//!
//! The snippets are extracted by `shared/tools/manual-snippets.py` (next to the workspace);
//! the test is skipped, with a message, when that script or `python3` is not available.

mod common;

use quasar_core::syntax::ast::Program;
use quasar_core::syntax::parse;
use quasar_core::syntax::printer::print_program;
use quasar_core::FileId;

/// How many of the manual's 491 snippets parse today. The rest are page-break excerpts,
/// elided code (`...`), program output and typos in the manual; a drop below this number
/// means the parser lost a construct it used to accept.
const MIN_PARSING_SNIPPETS: usize = 364;

fn shorten(s: String, max: usize) -> String {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &s[..end])
}

/// Describes where two programs first differ: the statement index and both statements.
fn first_difference(a: &Program, b: &Program) -> String {
    if a.style != b.style {
        return format!("block style {:?} became {:?}", a.style, b.style);
    }
    for (i, (x, y)) in a.body.iter().zip(&b.body).enumerate() {
        if x != y {
            return format!(
                "statement {i} differs:\n  original: {}\n  reparsed: {}",
                shorten(format!("{:?}", x.kind), 1500),
                shorten(format!("{:?}", y.kind), 1500)
            );
        }
    }
    format!("statement count {} became {}", a.body.len(), b.body.len())
}

/// Checks one snippet; `Ok(false)` when the original does not parse (not a printer matter).
fn check(source: &str) -> Result<bool, String> {
    let first = parse(source, FileId(0));
    if first.has_errors() {
        return Ok(false);
    }
    let printed = print_program(&first.program);
    let second = parse(&printed, FileId(0));
    if second.has_errors() {
        let msgs: Vec<String> = second
            .diagnostics
            .iter()
            .filter(|d| d.is_error())
            .map(|d| format!("{}:{}: {}", d.span.line, d.span.col, d.message))
            .collect();
        return Err(format!(
            "printed form does not parse: {}\n--- printed ---\n{printed}",
            msgs.join("; ")
        ));
    }
    if second.program != first.program {
        return Err(format!(
            "{}\n--- printed ---\n{printed}",
            first_difference(&first.program, &second.program)
        ));
    }
    let again = print_program(&second.program);
    if again != printed {
        return Err(format!(
            "printing is not idempotent\n--- first ---\n{printed}\n--- second ---\n{again}"
        ));
    }
    Ok(true)
}

#[test]
fn manual_snippets_round_trip() {
    let Some((_dir, files)) = common::manual_snippets("manual round-trip") else { return };

    let mut parsed = 0;
    let mut failures = Vec::new();
    for file in &files {
        let name = file.file_name().unwrap_or_default().to_string_lossy().into_owned();
        let source = std::fs::read_to_string(file).expect("snippet is UTF-8");
        match check(&source) {
            Ok(true) => parsed += 1,
            Ok(false) => {}
            Err(msg) => {
                parsed += 1;
                failures.push(format!("== {name}: {msg}"));
            }
        }
    }
    eprintln!(
        "manual round-trip: {} snippets, {parsed} parse without errors, {} of those fail",
        files.len(),
        failures.len()
    );
    assert!(
        parsed >= MIN_PARSING_SNIPPETS,
        "only {parsed} manual snippets parse; {MIN_PARSING_SNIPPETS} did before"
    );
    assert!(
        failures.is_empty(),
        "{} of {parsed} parsable manual snippets do not round-trip:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}
