//! The Quasar standard library for Quasar for Rust.
//!
//! When finished, this crate holds the host built-ins that generated code calls (array
//! construction such as `zeros`/`ones`/`rand`, reductions, linear algebra helpers, `print`),
//! image I/O (`imread`/`imwrite`), and the standard library modules that are written in Quasar
//! source and compiled with `quasar!`. Like the runtime, it does not depend on the compiler.
//!
//! **Status:** this crate is being built; it provides no functions yet.
