//! Compiler diagnostics and their rendering (file, line, column, snippet with a caret).

use crate::span::{FileId, Span};
use codespan_reporting::diagnostic::{Diagnostic as CsDiagnostic, Label};
use codespan_reporting::files::SimpleFiles;
use codespan_reporting::term;

/// How serious a [`Diagnostic`] is: errors stop compilation, warnings and notes do not.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    /// Information the program asked for (`#pragma show_reductions on`, manual §17.3).
    Note,
    /// The program compiles; something deserves a look (e.g. a kernel left on the CPU).
    Warning,
    /// The program is rejected.
    Error,
}

/// One message about the source, with a primary span and optional secondary labels.
#[derive(Clone, Debug, PartialEq)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// One sentence saying what is wrong, without the position.
    pub message: String,
    /// Where it is (the caret of the rendered snippet).
    pub span: Span,
    /// Text shown under the caret; empty when the message says it all.
    pub label: String,
    /// Secondary spans with their own labels (e.g. where a block was opened).
    pub secondary: Vec<(Span, String)>,
    /// Plain-language explanations or hints, printed after the snippet.
    pub notes: Vec<String>,
}

impl Diagnostic {
    /// An error at `span`.
    pub fn error(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            message: message.into(),
            span,
            label: String::new(),
            secondary: Vec::new(),
            notes: Vec::new(),
        }
    }

    /// A warning at `span`.
    pub fn warning(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic { severity: Severity::Warning, ..Diagnostic::error(span, message) }
    }

    /// A note at `span`: information, not a problem.
    pub fn note(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic { severity: Severity::Note, ..Diagnostic::error(span, message) }
    }

    /// Sets the text shown under the caret.
    pub fn with_label(mut self, label: impl Into<String>) -> Diagnostic {
        self.label = label.into();
        self
    }

    /// Adds a secondary position with its own label.
    pub fn with_secondary(mut self, span: Span, label: impl Into<String>) -> Diagnostic {
        self.secondary.push((span, label.into()));
        self
    }

    /// Adds a note printed after the snippet (a hint or what to write instead).
    pub fn with_note(mut self, note: impl Into<String>) -> Diagnostic {
        self.notes.push(note.into());
        self
    }

    /// Whether this is an error rather than a warning or a note.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// The source files of one compilation, addressed by [`FileId`].
#[derive(Default)]
pub struct SourceMap {
    files: SimpleFiles<String, String>,
}

impl SourceMap {
    /// An empty map.
    pub fn new() -> SourceMap {
        SourceMap::default()
    }

    /// Adds a file by name and text; its id is the one spans in it carry.
    pub fn add(&mut self, name: impl Into<String>, source: impl Into<String>) -> FileId {
        FileId(self.files.add(name.into(), source.into()) as u32)
    }

    /// The name a file was added with (`<unknown>` for an id not in the map).
    pub fn name(&self, file: FileId) -> &str {
        self.files.get(file.0 as usize).map(|f| f.name().as_str()).unwrap_or("<unknown>")
    }

    /// The names of all files, in [`FileId`] order.
    pub fn names(&self) -> Vec<String> {
        (0..).map_while(|i| self.files.get(i).ok().map(|f| f.name().clone())).collect()
    }

    /// The text of a file (empty for an id not in the map).
    pub fn source(&self, file: FileId) -> &str {
        self.files.get(file.0 as usize).map(|f| f.source().as_str()).unwrap_or("")
    }

    /// Renders diagnostics as plain text (no colour): `error: msg`, `--> file:line:col`,
    /// the source line with a caret, and the notes.
    pub fn render(&self, diagnostics: &[Diagnostic]) -> String {
        let mut out = term::termcolor::NoColor::new(Vec::new());
        self.emit(&mut out, diagnostics);
        String::from_utf8_lossy(&out.into_inner()).into_owned()
    }

    /// Renders diagnostics to a colour-capable writer (e.g. a terminal's stderr).
    pub fn emit(&self, out: &mut dyn term::termcolor::WriteColor, diagnostics: &[Diagnostic]) {
        let config = term::Config::default();
        for d in diagnostics {
            // A failed write to the terminal is not a compile error; nothing else to do.
            let _ = term::emit_to_write_style(out, &config, &self.files, &self.to_codespan(d));
        }
    }

    fn to_codespan(&self, d: &Diagnostic) -> CsDiagnostic<usize> {
        let base = match d.severity {
            Severity::Error => CsDiagnostic::error(),
            Severity::Warning => CsDiagnostic::warning(),
            Severity::Note => CsDiagnostic::note(),
        };
        let clamp = |s: Span| {
            let len = self.source(s.file).len();
            let start = (s.start as usize).min(len);
            start..(s.end as usize).clamp(start, len)
        };
        let mut labels =
            vec![Label::primary(d.span.file.0 as usize, clamp(d.span)).with_message(&d.label)];
        for (s, msg) in &d.secondary {
            labels.push(Label::secondary(s.file.0 as usize, clamp(*s)).with_message(msg));
        }
        base.with_message(&d.message).with_labels(labels).with_notes(d.notes.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_file_line_column_and_caret() {
        let mut map = SourceMap::new();
        let f = map.add("demo.q", "a = 1\nb = ) 2\n");
        let d = Diagnostic::error(Span::new(f, 10, 11, 2, 5), "unexpected `)`")
            .with_label("expected an expression")
            .with_note("every `)` must close a `(`");
        let text = map.render(&[d]);
        assert!(text.contains("error: unexpected `)`"), "{text}");
        assert!(text.contains("demo.q:2:5"), "{text}");
        assert!(text.contains("b = ) 2"), "{text}");
        assert!(text.contains('^'), "{text}");
        assert!(text.contains("every `)` must close"), "{text}");
    }
}
