//! Semantic analysis: name resolution and type inference, from the AST to the typed IR.

pub mod builtins;
pub mod types;
