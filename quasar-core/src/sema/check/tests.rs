//! Tests of type inference and its diagnostics.
