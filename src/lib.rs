//! Quasar for Rust: the Quasar array language as an embeddable Rust library.
//!
//! Quasar is a high-level, MATLAB-like array language with kernel and device functions,
//! closures and type inference. The `quasar!` macro compiles Quasar source at Rust compile time:
//! every top-level Quasar `function` is meant to become a `pub fn` with Rust types, running on
//! multicore CPUs and (with the `cuda` feature) on NVIDIA GPUs through embedded PTX. Quasar
//! compile errors become Rust compile errors that name the Quasar file, line and column;
//! run-time errors are [`Error`] values, never panics.
//!
//! ```ignore
//! quasar::quasar! { r#"
//! function y = brighten(x : mat, a : scalar)
//!     y = x + a
//! endfunction
//! "# }
//! ```
//!
//! **Status:** this crate is being built. Today [`quasar!`] parses its input and reports syntax
//! errors as Rust compile errors; it does not generate code yet (it says so with a compile
//! error). The compiler front end is available as [`compiler`], and the `quasar` binary checks
//! the syntax of `.q` files.

pub use quasar_macros::quasar;
/// Arrays, device selection and the profiler (from `quasar-runtime`).
pub use quasar_runtime::{profile, set_mode, Array, Element, Profile, Runtime, SchedMode};
pub use quasar_runtime::{Error, Result, SourceLocation};

/// The Quasar compiler (the `quasar-core` crate): lexer, parser, AST and diagnostics.
pub mod compiler {
    pub use quasar_core::*;
}
