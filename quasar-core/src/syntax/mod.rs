//! Surface syntax: tokens, lexer, recursive-descent parser, AST and pretty-printer.

pub mod ast;
pub mod encoding;
pub mod lexer;
pub mod parser;
pub mod printer;
pub mod token;

use crate::diagnostics::Diagnostic;
use crate::span::FileId;

/// The result of parsing one file: the tree (with error nodes skipped) and every
/// diagnostic found. The tree is usable only when no diagnostic is an error.
#[derive(Debug)]
pub struct Parsed {
    /// The syntax tree (with placeholders where the parser recovered from errors).
    pub program: ast::Program,
    /// Every syntax error and warning, in source order.
    pub diagnostics: Vec<Diagnostic>,
}

impl Parsed {
    /// Whether any diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(|d| d.is_error())
    }
}

/// Lexes and parses `source` (the contents of `file`). Never panics.
pub fn parse(source: &str, file: FileId) -> Parsed {
    let lexed = lexer::lex(source, file);
    let mut diagnostics = lexed.diagnostics;
    let (program, parse_diags) = parser::parse_tokens(&lexed.tokens, file, source.len());
    // A lexical error explains whatever the parser then trips over in the same place: drop
    // parser errors inside an unclosed bracket's region or on a line with a lexical error.
    let in_unclosed = |d: &Diagnostic| lexed.unclosed.iter().any(|r| r.contains(&d.span.start));
    let lexical_lines: Vec<u32> = diagnostics.iter().map(|d| d.span.line).collect();
    diagnostics.extend(
        parse_diags
            .into_iter()
            .filter(|d| !in_unclosed(d) && !lexical_lines.contains(&d.span.line)),
    );
    diagnostics.sort_by_key(|d| (d.span.file, d.span.start));
    Parsed { program, diagnostics }
}
