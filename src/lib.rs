//! Quasar for Rust: the Quasar array language as an embeddable Rust library.
//!
//! Quasar is a high-level, MATLAB-like array language with kernel and device functions,
//! closures and type inference. The [`quasar!`] macro compiles Quasar source when your crate
//! is compiled: every top-level Quasar `function` becomes a Rust `pub fn`; kernels run on all
//! CPU cores and, with the `cuda` feature, on NVIDIA GPUs through PTX embedded in your
//! binary. Quasar compile errors are Rust compile errors at the Quasar line and column;
//! run-time errors are [`Error`] values, never panics.
//!
//! ```
//! quasar::quasar! { r#"
//! function y = brighten(x : mat, a : scalar)
//!     y = x + a
//! endfunction
//!
//! function [lo, hi] = value_range(x : mat)
//!     lo = min(x)
//!     hi = max(x)
//! endfunction
//!
//! function [] = __kernel__ scale_kernel(x : mat, y : mat, a : scalar, pos : ivec2)
//!     y[pos] = a * x[pos]
//! endfunction
//!
//! function y = scale(x : mat, a : scalar)
//!     y = zeros(size(x))
//!     parallel_do(size(x), x, y, a, scale_kernel)
//! endfunction
//! "# }
//!
//! fn main() -> quasar::Result<()> {
//!     let x = quasar::Array::from_vec(&[2, 3], vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0])?;
//!     let y = brighten(&x, 0.5)?;
//!     assert_eq!(y.to_vec()?, [1.5, 2.5, 3.5, 4.5, 5.5, 6.5]);
//!     let (lo, hi) = value_range(&y)?; // several results: a tuple
//!     assert_eq!((lo, hi), (1.5, 6.5));
//!     let z = scale(&x, 2.0)?; // a kernel launch over a 2 x 3 grid
//!     assert_eq!(z.to_vec()?, [2.0, 4.0, 6.0, 8.0, 10.0, 12.0]);
//!     Ok(())
//! }
//! ```
//!
//! A `.q` file is compiled the same way, with its path relative to your crate's
//! `Cargo.toml` (edits to the file, and to the files it `import`s, rebuild the crate). Here,
//! the image pipeline of this repository's example:
//!
//! ```
//! mod filters {
//!     quasar::quasar!(file = "examples/pipeline.q");
//! }
//!
//! fn main() -> quasar::Result<()> {
//!     let img = quasar::Array::from_fn(&[32, 48, 3], |i| (i % 256) as f32)?; // or imread
//!     let blurred = filters::gaussian_blur(&img, 2.0)?;
//!     assert_eq!(blurred.shape(), [32, 48, 3]);
//!     // quasar::imwrite("out.png", &blurred)?;
//!     Ok(())
//! }
//! ```
//!
//! # What `quasar!` generates
//!
//! * One `pub fn` per top-level Quasar function that is not a `__kernel__` (kernels are
//!   launched by `parallel_do` inside the module), with the Rust types of the table below,
//!   returning [`Result`]: `Result<()>` for no result, `Result<T>` for one, and
//!   `Result<(T1, T2, …)>` in the order of the Quasar results for several. Each carries a
//!   doc comment with its Quasar signature. A name that is a Rust keyword becomes a raw
//!   identifier (`r#type`).
//! * A function whose parameters have no types is instantiated for the types it is called
//!   with inside the module; one that no call fixes is a compile error that says which
//!   annotation to add.
//! * `pub fn script() -> quasar::Result<()>` runs the top-level statements and then, if the
//!   module defines `function main()` without parameters, `main` (Quasar's `main`
//!   convention). Calling the other functions does not run the top-level statements.
//! * With the `cuda` feature, the PTX of the module's kernels as one `static` string; a
//!   kernel that the PTX back end cannot compile runs on the CPU.
//!
//! Options follow the source, separated by commas: `double = true` makes `scalar` `f64`;
//! `ptx = false` embeds no PTX (every kernel runs on the CPU); `main_args = "scalar, string"`
//! instantiates `main` for a command line with arguments of these types and exports it as
//! `pub fn main` (what `quasar run` does; `script()` then does not call it).
//!
//! ```
//! mod precise {
//!     quasar::quasar! { r#"
//! function y = half_of(x : scalar)
//!     y = x / 2
//! endfunction
//! "#, double = true }
//! }
//! assert_eq!(precise::half_of(1.0f64).unwrap(), 0.5f64);
//! ```
//!
//! # Quasar types in Rust
//!
//! | Quasar | parameter | result |
//! |---|---|---|
//! | `scalar` | `f32` (`f64` with `double = true`); alias [`Scalar`] | the same |
//! | `scalar'half`, `scalar'single`, `scalar'double` | [`f16`](struct@f16), `f32`, `f64` | the same |
//! | `int`; `int8` … `int64`, `uint8` … `uint64` | `i32`; `i8` … `i64`, `u8` … `u64` | the same |
//! | `cscalar` | [`Complex<f32>`](Complex) (`Complex<f64>` with `double = true`) | the same |
//! | `vec`, `mat`, `cube`, `cube{n}` (any size, also `vec3`, `mat(4,4)`) | `&Array<f32>` | `Array<f32>` |
//! | `vec[int]`, `ivec3`, `cube[uint8]`, `cvec` … | `&Array<i32>`, `&Array<u8>`, `&Array<Complex<f32>>` … | `Array<…>` |
//! | `string` | `&str` | `String` |
//! | access modes (`mat'clamped`, `cube'unchecked`) | as without the mode | |
//!
//! [`Array`] is a reference type, as arrays are in Quasar: `clone` shares the elements, and a
//! function that writes into an array argument writes into the caller's array.
//! [`Array::copy`] copies. Arrays are row-major with dimension 0 the row; a Quasar `vec` is a
//! `1 x n` row. A function with a parameter that cannot cross to Rust (a function value, a
//! class, a cell array, a `??` value) is not exported; the module's other functions still
//! call it, and `quasar check` names the parameter in a warning.
//!
//! # Arrays and `ndarray`
//!
//! [`Array`] converts from and to the arrays of the re-exported [`ndarray`] crate (a crate
//! that adds `ndarray` with `cargo add ndarray` gets the same version):
//!
//! ```
//! use quasar::ndarray::{array, Array2};
//! use quasar::Array;
//!
//! let nd = array![[1.0f32, 2.0], [3.0, 4.0]];
//! let a = Array::try_from(nd.clone())?; // no copy for standard-layout arrays
//! let back = Array2::<f32>::try_from(&a)?;
//! assert_eq!(back, nd);
//! let view = a.host_view()?; // borrow without copying
//! assert_eq!(view.as_ndarray()[[1, 0]], 3.0);
//! # Ok::<(), quasar::Error>(())
//! ```
//!
//! # Errors
//!
//! * At compile time: syntax, type and code-generation errors are `compile_error!`s with the
//!   Quasar file, line and column and the source line with a caret. A construct the back
//!   ends do not support yet is an error that names it and says what to write instead.
//! * At run time: `error(…)`, a failed `assert`, a `'checked` access out of range, a shape
//!   mismatch, an unreadable file or a GPU failure is an `Err(`[`Error`]`)`; the error
//!   carries the Quasar [`SourceLocation`] where it has one. A kernel's `error`, `assert`
//!   and `'checked` accesses name their file:line:col and the kernel on the CPU and on the
//!   GPU alike, e.g. ``filters.q:5:14: in kernel `shift`: index [8] is out of range for `x`
//!   with shape [8]`` (on the GPU, the
//!   messages of `error`/`assert` must be string literals, or the kernel runs on the CPU).
//!
//! # Devices and scheduling
//!
//! Each kernel launch picks a device: the CPU (all cores, through rayon; the hot loops of
//! kernels are compiled for AVX2+FMA and, where needed, baseline x86-64 and chosen at run time), or
//! an NVIDIA GPU when the `cuda` feature is on, a driver is found and the launch is large
//! enough to pay for the transfers. Data moves between host and GPU only when a launch or a
//! read needs it.
//!
//! | knob | effect |
//! |---|---|
//! | [`set_mode`]`(`[`SchedMode::Cpu`]` / `[`Gpu`](SchedMode::Gpu)` / `[`Auto`](SchedMode::Auto)`)` | force the CPU, force the GPU (an error when there is none), or let the scheduler decide (the default) |
//! | `QUASAR_DEVICE=cpu\|gpu\|auto` | the initial mode, from the environment |
//! | [`Runtime::global()`](Runtime::global)`.set_scheduler_config(…)` | the cost model of `Auto` ([`SchedulerConfig`](quasar_runtime::SchedulerConfig): CPU and GPU cost per item, launch costs, transfer bandwidth) |
//! | [`set_host_memory_limit`], `QUASAR_HOST_MEMORY_LIMIT=2G` | a budget for array memory on the host; beyond it allocation is [`Error::OutOfMemory`] |
//! | `QUASAR_NO_AVX2=1` | CPU kernels skip their AVX2+FMA versions (as on a CPU without them: the baseline x86-64 copy, with the `x86-baseline-copies` feature, or the border code over whole rows) |
//! | `RUNTIME_GPU_MEMORYMODEL`, `RUNTIME_GPU_RESERVEDMEM`, `RUNTIME_GPU_SCHEDULINGMODE` | the manual's GPU memory settings (footprint, memory left to the display, what to do when GPU memory runs out) |
//! | [`profile()`](profile), [`print_profile()`](print_profile) | launches, device, time and bytes moved per kernel |
//! | [`write_trace`]`("trace.json")` | the timeline of kernels and transfers for Perfetto or `chrome://tracing` |
//!
//! # Feature flags
//!
//! | feature | default | what it adds |
//! |---|---|---|
//! | `png` | yes | [`imread`]/[`imwrite`] of PNG files |
//! | `jpeg` | yes | [`imread`]/[`imwrite`] of JPEG files |
//! | `image-formats` | no | TIFF, BMP, GIF, WebP, PNM, TGA, HDR, QOI, ICO through the `image` crate (about twice the build time of PNG and JPEG) |
//! | `exr` | no | OpenEXR files for [`imread`] (with `image-formats`) |
//! | `linalg` | no | `inv`, `det`, `linsolve`, `chol`, `svd`, `symeig` through `nalgebra` |
//! | `plot` | no | `plot`, `title`, `xlabel`, … drawn into PNG files through `plotters` |
//! | `cuda` | no | the NVIDIA back end (the driver is loaded at run time; building needs no CUDA toolkit) |
//! | `x86-baseline-copies` | no | a baseline x86-64 copy of each CPU kernel loop that has an AVX2+FMA one: on x86-64 CPUs without AVX2+FMA (before 2013, some low-power and virtualised CPUs) such kernels run 3-6× faster than through their border code, for about 25% more release compile time of kernel code |
//! | `ptx-sim` | no | a PTX interpreter behind the simulated GPU (`QUASAR_SIM_GPU=ptx`), for testing kernels without a GPU |
//! | `compiler` | no | `quasar::compiler`: the Quasar compiler as a library (not needed for [`quasar!`]) |
//!
//! The `quasar` command line (`quasar check FILE.q`, `quasar emit --rust FILE.q`) is a
//! separate crate: `cargo install quasar-cli`.

#![warn(missing_docs)]

pub use quasar_macros::quasar;

#[doc(inline)]
pub use quasar_runtime::{
    host_memory_in_use, print_profile, profile, release_spare_host_memory, set_host_memory_limit,
    set_mode, spare_host_memory, write_trace, Array, Element, Error, Profile, Result, Runtime,
    SchedMode, SourceLocation, Trace, TransferReason,
};

/// `half::f16`: the element type of `scalar'half`.
pub use quasar_runtime::f16;
/// The `ndarray` crate that [`Array`] converts from and to; use it (or the same version) for
/// `Array::try_from(nd)` and `ndarray::Array2::try_from(&array)`.
pub use quasar_runtime::ndarray;
/// `num_complex::Complex`: `cscalar` is `Complex<Scalar>`.
pub use quasar_runtime::Complex;

/// Quasar's `scalar` as generated code uses it by default: `f32` (`f64` with
/// `quasar!(…, double = true)`).
pub type Scalar = f32;

/// The host built-ins of Quasar as Rust functions over [`Array`]s (`zeros`, `sum`,
/// `linspace`, `matmul`, …).
pub use quasar_std::builtins;
/// Every element of an array converted to another element type (`float(x)`, `int(x)`,
/// `uint8(x)` as one generic function).
pub use quasar_std::builtins::cast;
#[doc(inline)]
pub use quasar_std::image::{imread, imread_mode, imwrite, imwrite_range};
/// A value whose type is known at run time only (`??`, `object()`, cell arrays): what
/// generated code passes for parameters declared `??` or `object`.
pub use quasar_std::value::Value;
/// The run-time library of manual chapter 14 for use from Rust: FFTs, linear algebra
/// (feature `linalg`), strings, files, timing, and figures (`figure::set_output` chooses
/// where `imshow` and `plot` write their PNG files).
pub use quasar_std::{fft, figure, files, linalg, system, text};

/// What code generated by [`quasar!`] refers to. Not a public API.
#[doc(hidden)]
pub mod __rt {
    pub use quasar_runtime as run;
    pub use quasar_std as qstd;
}

/// The Quasar compiler (the `quasar-core` crate), with the `compiler` feature:
/// `compiler::driver::compile` runs every stage as `quasar!` does (parse, imports, type check,
/// verifier, passes, PTX and Rust back ends); `docs/ARCHITECTURE.md` describes the layers.
#[cfg(feature = "compiler")]
pub mod compiler {
    pub use quasar_core::*;
}
