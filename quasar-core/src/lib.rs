//! The Quasar compiler as a plain library: source text in, diagnostics, typed IR and
//! (in later layers) Rust tokens and PTX text out.
//!
//! Layers: [`syntax`] (lexer, parser, AST, printer) → `sema` → `ir` → `transform` → `backend`.

pub mod analysis;
pub mod backend;
pub mod diagnostics;
pub mod driver;
pub mod ir;
pub mod load;
pub mod sema;
pub mod span;
pub mod stack;
pub mod std_modules;
pub mod suggest;
pub mod syntax;
pub mod transform;

pub use diagnostics::{Diagnostic, Severity, SourceMap};
pub use span::{FileId, Span};
