//! Semantic analysis: name resolution and type inference, from the AST to the typed IR.

pub mod builtins;
pub mod check;
pub mod decls;
pub mod ops;
pub mod resolve_type;
pub mod types;
