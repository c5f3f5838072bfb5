//! Run-time support for generated code: what the Rust back end of `quasar!` emits calls to,
//! besides the built-ins of [`crate::builtins`].
//!
//! | module | contents |
//! |---|---|
//! | [`scalar`] | `exp log pow sin … floor round mod min max clamp sign isnan real conj complex` on numbers, `#[inline(always)]` and branch-free for kernel loops |
//! | [`access`] | the boundary access modes ([`Mode`]), [`map_index`], [`periodize`], [`clamp_ext`], [`mirror_ext`], element reads and writes with a mode, kernels' view accesses ([`view_get`], [`view_set`]) |
//! | [`index`] | slicing `A[:, 1]`, `A[0..2, [1, 3]]` and slice assignment; range values `0..9`, `0..0.1..1` |
//! | [`concat`](mod@concat) | matrix literals with array parts: [`cat`], [`stack_rows`] |
//! | [`show`] | `print` and `error` messages: [`Show`], [`print_line`], [`format_parts`] |
//! | [`cpu`] | CPU kernels: [`has_avx2_fma`], [`pick`], [`inside`], [`split_row`], [`unflatten`], [`lanes`], [`Lanes`] |
//! | [`rows`] | the loops over a CPU block's rows, split into interior and border: [`block_rows`], [`block_row_pairs`], [`block_runs`], [`Reach`] |
//! | [`heap`] | dynamic kernel memory on the CPU: [`kernel_alloc`] into a per-thread [`KernelArena`] |
//! | [`fixed`] | fixed-size vectors `[T; N]` (`vec3`, `ivec2`): [`map`], [`zip`], [`dot`], … |
//!
//! Nothing here panics on user input: failures are [`quasar_runtime::Error`]s.

pub mod access;
pub mod concat;
pub mod cpu;
pub mod fixed;
pub mod heap;
pub mod index;
pub mod private;
pub mod rows;
pub mod scalar;
pub mod show;

#[cfg(test)]
mod tests;

pub use access::{
    clamp_ext, elem_offset, get_elem, index_error, index_error_at, map_index, mirror_ext,
    periodize, set_elem, view_get, view_read, view_set, view_write, Mode,
};
pub use concat::{cat, stack_rows, Part};
pub use cpu::{
    has_avx2_fma, inside, lanes, pick, split_row, unflatten, x86_baseline_copies, Lanes,
};
pub use fixed::{dot, from_array, map, prod, splat, sum, to_array, widen, zip, IndexInt};
pub use heap::{kernel_alloc, kernel_empty, KernelArena};
pub use index::{
    find, index_fill, index_get, index_set, range_array_f, range_array_i32, range_vec, Sub,
};
pub use private::{acc_add, acc_sub, private_buf, private_merge, private_view};
pub use rows::{block_row_pairs, block_rows, block_runs, Reach, Segment};
pub use scalar::{
    abs, acos, asin, atan, atan2, cast, ceil, clamp, complex, conj, cos, cosh, exp, exp2, floor,
    frac, imag, isfinite, isinf, isnan, log, log10, log2, max, min, modulo, pow, pow_fma, pow_sel,
    real, round, saturate, sign, sin, sinh, sqrt, tan, tanh, Arith, Cast, Float, Magnitude, Real,
    RtFloat, RtMath, RtRound,
};
pub use show::{format_parts, print_line, show_fixed, Show};
