//! The Quasar compiler as a plain library: source text in, diagnostics, typed IR, Rust tokens
//! and PTX text out.
//!
//! Layers: [`syntax`] (lexer, parser, AST, printer) → [`sema`] (type inference, lowering to the
//! IR) → [`ir`] (the typed IR, its verifier and visitor) → [`transform`] (passes) →
//! [`analysis`] (facts both back ends read) → [`backend`] (Rust and PTX). [`driver::compile`]
//! runs them all, as the `quasar!` macro and the `quasar` binary do; `docs/ARCHITECTURE.md`
//! in the repository describes them for a newcomer.

#![warn(missing_docs)]

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

/// Identifies this build of the compiler: a hash of its sources, so that output cached by the
/// `quasar!` macro is used only by the compiler that produced it.
pub const BUILD_ID: &str = env!("QUASAR_CORE_BUILD_ID");

pub use diagnostics::{Diagnostic, Severity, SourceMap};
pub use span::{FileId, Span};
