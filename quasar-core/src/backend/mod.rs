//! Code generation from the typed IR.
//!
//! * [`rust`]: host functions as Rust functions over runtime values, and every kernel as a CPU
//!   kernel over one block (ARCHITECTURE §3).
//! * `ptx`: every kernel and device function as PTX text (issue 6).

pub mod rust;
