//! Names a program uses that an import would have defined, had it been available: a library
//! module not shipped yet, or a native library (`.dll`), which this version cannot load. The
//! loader warns at the import; a use of such a name is an error that says where it would have
//! come from, instead of a bare "undefined function".

use super::Checker;
use crate::diagnostics::Diagnostic;
use crate::span::Span;

/// An import that provides nothing here.
#[derive(Clone, Debug)]
pub struct Unavailable {
    /// The module or library, as the error names it.
    pub written: String,
    /// The `import` statement.
    pub span: Span,
    /// A library module: the functions the table knows it to define. `None`: a native library.
    pub functions: Option<&'static [&'static str]>,
}

impl Checker<'_> {
    /// The error for `name` (a function when `call`), undefined in this program: it names the
    /// unavailable import it most likely comes from.
    pub(super) fn undefined(&self, name: &str, span: Span, call: bool) -> Diagnostic {
        let what = if call { "function" } else { "name" };
        let module =
            self.unavailable.iter().find(|u| u.functions.is_some_and(|f| f.contains(&name)));
        if let Some(u) = module {
            return Diagnostic::error(
                span,
                format!(
                    "`{name}` comes from the library module `{}`, which is not shipped yet",
                    u.written
                ),
            )
            .with_secondary(u.span, "imported here");
        }
        // A library module's function, from a module this program does not import (itself or
        // through the modules it imports).
        if let Some((module, shipped)) = crate::load::std_modules::defining(name) {
            let d = Diagnostic::error(span, format!("undefined {what} `{name}`"))
                .with_label(format!("defined by the library module `{module}`"));
            return if shipped {
                d.with_note(format!("add `import \"{module}\"`"))
            } else {
                d.with_note(format!("`{module}` is not shipped in this version"))
            };
        }
        let natives: Vec<&Unavailable> =
            self.unavailable.iter().filter(|u| u.functions.is_none()).collect();
        if let Some(first) = natives.first() {
            let list: Vec<String> = natives.iter().map(|u| format!("`{}`", u.written)).collect();
            let from = match natives.len() {
                1 => format!("the native library {}", list[0]),
                _ => format!("one of the native libraries {}", list.join(", ")),
            };
            return Diagnostic::error(
                span,
                format!("`{name}` is not defined here: it would come from {from}"),
            )
            .with_label("a native library cannot be loaded by this version")
            .with_secondary(first.span, "imported here");
        }
        let label = if call {
            "not a function, lambda, type or built-in"
        } else {
            "not a variable, function, type or built-in"
        };
        let d = Diagnostic::error(span, format!("undefined {what} `{name}`")).with_label(label);
        let modules: Vec<String> = self
            .unavailable
            .iter()
            .filter(|u| u.functions.is_some())
            .map(|u| format!("`{}`", u.written))
            .collect();
        match modules.len() {
            0 => d,
            _ => d.with_note(format!(
                "it may come from {}, not shipped in this version",
                modules.join(", ")
            )),
        }
    }
}
