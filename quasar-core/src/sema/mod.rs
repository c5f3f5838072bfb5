//! Semantic analysis: name resolution and type inference, from the AST to the typed IR.

pub mod builtins;
pub mod decls;
pub mod resolve_type;
pub mod types;
