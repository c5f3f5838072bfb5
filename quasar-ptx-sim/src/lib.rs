//! A PTX interpreter for exactly the subset the Quasar PTX back end emits
//! (`quasar-core/src/backend/ptx`), so that the PTX of every kernel can be executed and
//! compared with the CPU on machines without a GPU. It is the engine of the simulated GPU's
//! `QUASAR_SIM_GPU=ptx` mode in `quasar-runtime`.
//!
//! * **Subset.** `.version/.target/.address_size`, `.global` variables, the dynamic
//!   `.extern .shared` array, entries with `.param` (also `.b8` arrays), `.reg`, static
//!   `.shared` arrays, labels, predication and the opcodes the back end writes. Anything else
//!   is a [`ParseError`] naming its line, which doubles as a check on the emitter.
//! * **Pre-decoded.** [`Module::parse`] turns each instruction into a compact form whose
//!   operands are register indices (immediates live in constant registers); execution never
//!   looks at text.
//! * **Semantics where PTX differs from Rust**: ordered and unordered compares; `cvt` rounding
//!   (`.rni` is half-to-even), saturation of float-to-integer conversions (NaN is 0) and
//!   `.sat`; half precision; shifts clamped to the width; integer division by zero yields a
//!   value and is reported in the [`Report`] rather than panicking; `mul`/`add` are not fused
//!   (hardware may fuse them: tests need tolerances for that); the `.approx` functions are
//!   exact, or moved to the ISA's stated error bounds ([`Approx::Bounds`]); NaN results are
//!   canonical; atomics are indivisible (host atomics), `atom.global.add.f32` flushes
//!   subnormals as the ISA says; predicated-off loads and stores do not touch memory.
//! * **Execution model.** Warps of 32 lanes in lockstep with a program counter per lane and
//!   min-PC reconvergence (`warp.rs`); `shfl.sync`, `vote.sync`, `match.sync`, `activemask`
//!   and `bar.warp.sync` over the lanes that take part; `bar.sync` completes when every
//!   non-exited thread of the block waits at the same `bar.sync` (different ones, or threads
//!   that can never arrive, are a [`Fault`]); shared memory per block; blocks in parallel on
//!   rayon's threads.
//! * **Memcheck.** Every global access must lie inside a buffer of the launch (or a module
//!   variable) and every shared access inside the block's shared memory, aligned to its size;
//!   otherwise the launch fails with the kernel, PTX line, instruction, block, thread and
//!   address ([`Fault`]).

#![warn(missing_docs)]

mod alu;
mod block;
pub mod coverage;
mod decode;
mod decode_arith;
mod decode_mem;
mod decode_warp;
mod error;
mod fp;
mod inst;
mod launch;
mod lex;
mod memory;
mod parse;
mod warp;

pub use error::{Error, Fault, FaultKind, ParseError, Space};
pub use fp::Approx;
pub use launch::{Globals, Launch, Options, Report};
pub use memory::Region;
pub use parse::{Entry, GlobalVar, Module, ParamDecl};

#[cfg(test)]
mod tests;
