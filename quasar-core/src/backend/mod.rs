//! Code generation from the typed IR.
//!
//! * [`rust`]: host functions as Rust functions over runtime values, and every kernel as a CPU
//!   kernel over one block (ARCHITECTURE §3).
//! * [`ptx`]: every kernel (with the device functions it calls inlined) as an entry of one PTX
//!   module, checked by `ptxas` in CI.
//! * [`small_product`], [`small_layout`]: matrix products, transposes and reductions along a
//!   dimension of small fixed-size arrays, for both.

pub mod heap;
pub mod ptx;
pub mod rust;
pub mod small_layout;
pub mod small_product;
