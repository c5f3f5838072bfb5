//! The PTX back end: every kernel of a module as an `.entry` of one PTX module
//! (`.version 7.8`, `.target sm_80`, 64-bit addresses), for the CUDA device of the runtime.
//!
//! Kernels that use a construct this back end does not compile yet are left out of the PTX
//! with a warning naming the construct and, in a note, what to write instead for that
//! construct (`unsupported()` requires it); the CPU backend still runs them.
//!
//! # Parameter ABI (what `quasar-runtime/src/device/cuda.rs` passes)
//!
//! The `.entry` parameters of a kernel, in order ([`PtxKernel::params`] lists them):
//!
//! 1. the launch dimensions, one `.u32` per dimension of the launch (its rank is the length
//!    of `pos`/`blkpos`/…, or of the `dims` of the `parallel_do` calls in the module);
//! 2. per *launch argument*, i.e. the kernel's non-special parameters in order followed by its
//!    captured values (the order of `ExprKind::ParallelDo::args`):
//!    * an array: a `.u64` device pointer, then one `.u32` extent per dimension of the
//!      parameter's **static rank** (`vec` 1, `mat` 2, `cube` 3). The runtime passes
//!      `shape.dims()`, which matches whenever the array has exactly that rank; an array of
//!      lower rank (a `vec` passed as a `mat`) must be padded with trailing extents of 1;
//!    * a number: its value (`.s32`, `.f32`, `.u8`, …, `.f64` in double mode, `.b16` holding
//!      the IEEE binary16 bits for `scalar'half`; arrays of half are 2-byte elements);
//!    * a complex number (`cscalar`): by value, `.align <part> .b8 name[2·<part>]`, the real
//!      part then the imaginary part, i.e. the bytes of `num_complex::Complex<T>`
//!      (`repr(C)`; `<part>` is 4, or 8 for `cscalar'double` and in double mode). Arrays of
//!      complex numbers are arrays as above whose elements are such pairs;
//!    * a fixed-size vector (`ivec2`, `vec3`, … up to 64 elements) that the kernel never
//!      writes: by value, `.align <elem> .b8 name[<bytes>]`, elements in order (a `[T; N]`);
//!      one the kernel writes is an array as above;
//!    * a function value (`fn : [__device__ scalar -> scalar]`): by value,
//!      `.align <a> .b8 name[<bytes>]`, the bytes of the host's `#[repr(C, u32)]` enum of its
//!      function type (`backend/rust/fnval.rs`): a `u32` tag at offset 0, the index of the
//!      function among the type's functions in module order (`analysis::FnValues::variants`), then a
//!      `repr(C)` union of one `repr(C)` struct per function holding its captured values
//!      (numbers, complex numbers, fixed-size vectors, laid out as above), at offset
//!      `round_up(4, a_u)` where `a_u` is the largest alignment among all the captures;
//!      `<a> = max(4, a_u)` and `<bytes>` is the size rounded up to `<a>` (RFC 2195). A call
//!      branches on the tag to each function, inlined (`fnvalue.rs`). Functions capturing
//!      anything else (arrays, other function values) are not passed to kernels;
//!    * a value of a class (`w : weights`, `mutable class` too): by value, `.align <a> .b8 name[<bytes>]`,
//!      the bytes of the host's `#[repr(C)]` struct of the class (`class.rs` gives the
//!      layout). An array of class values (`vec[pixel]`) is an array as above whose elements
//!      are such structs;
//! 3. per output argument (`function [s : scalar] = __kernel__ …`), in order: a `.u64`
//!    pointer to a zeroed slot that threads combine into atomically (`+=` → `atom.add`,
//!    `^^=`/`__=` → max/min, `|=` → or; a plain `=` stores non-zero values);
//! 4. only in a kernel that can fail at run time (it has [`PtxOutput::check_sites`]): a
//!    `.u64` pointer to the launch's zeroed error word (see below).
//!
//! Special parameters (`pos`, `blkpos`, `blkidx`, `blkdim`, `blkcnt`, `warpsize`) are not
//! passed: they come from `%tid`/`%ctaid`/`%ntid`/`%nctaid`, with launch dimension `n-1`
//! on CUDA axis x (`LaunchConfig::cuda_grid_block`). Threads past the launch dimensions return
//! at once, unless the kernel uses `syncthreads` (every thread must reach the barrier) or
//! cooperative groups (`coalesced_threads`, `this_thread_block`, …; warps must be complete:
//! see `coop.rs`, which also says what each group's `thread_idx`/`size`/shuffles mean).
//!
//! # Shared memory
//!
//! The arrays of `local = shared(dims…)` / `shared_zeros(dims…)` statements at the top level
//! of a kernel body live in the dynamic shared memory, `.extern .shared .align 64 .b8
//! quasar_shared[]`, laid out as the CPU backend's `shared_bytes(blkdim)` counts them: in
//! statement order, each at the running byte count rounded up to 64, taking
//! `product(dims) · sizeof(elem)` bytes. Their dimensions may depend on `blkdim` (computed at
//! run time); the runtime launches with `Kernel::shared_bytes(blkdim)` bytes of dynamic
//! shared memory, which is exactly the total. Other `shared(…)` calls (in a branch, a loop, a
//! device function) need constant dimensions and get a static `.shared` array. A kernel
//! without such arrays that only accumulates into an argument (`h[i] += v`) has a static
//! `<entry>_acc` area for block copies of it (`private.rs`).
//!
//! # Run-time errors: `'checked` accesses, `error`, `assert`
//!
//! A kernel with such sites takes the address of an error word of [`ERROR_WORDS`] 32-bit
//! words as its last parameter, zero before the launch; the runtime gives each launch its own
//! (from a pool), so concurrent launches of one kernel never see each other's errors. The
//! first failing site sets word 0 to 1 and writes its index in
//! [`PtxOutput::check_sites`] (which holds its kind and Quasar location) to word 1. An
//! out-of-range `'checked` access also writes the failing dimension to word 2 and its
//! subscript to word 3, the number of subscripts `n` to word 4 and the array's rank `r` to
//! word 5, then the subscripts to words 6.. and the array's extents to words 14.. (at most
//! [`ERROR_SUBSCRIPTS`] of each, so that the host names the whole index and the shape), and
//! is skipped (a read gives 0); `error` and a failed `assert` end the thread
//! (`exit`), as on the CPU the error ends the kernel. Messages are constant on the GPU. The
//! host reads the word after the kernel and turns it into the error the CPU gives, naming the
//! site's Quasar file:line:col.

mod abi;
mod assign;
mod builtins;
mod call;
mod class;
mod class_fields;
#[cfg(test)]
mod class_fields_tests;
mod complex;
mod coop;
#[cfg(test)]
mod coop_tests;
mod coords;
mod emit_expr;
mod emit_stmt;
mod fnvalue;
#[cfg(test)]
mod fnvalue_tests;
mod fp;
mod heap;
mod index;
mod kernel;
mod math;
mod math_f64;
mod math_f64_tables;
#[cfg(test)]
mod math_f64_tests;
mod operators;
mod partition;
mod private;
#[cfg(test)]
mod private_tests;
mod reduce_array;
mod regs;
mod shared;
mod slice;
#[cfg(test)]
mod slice_tests;
mod small;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod unsupported_tests;

use crate::analysis::ModuleInfo;
use crate::ir::{self, Module};
use crate::span::Span;
use crate::syntax::ast::FunctionKind;
use crate::Diagnostic;
use std::collections::HashSet;
use std::fmt::Write as _;

/// Options of the PTX back end.
#[derive(Clone, Debug, Default)]
pub struct PtxOptions {
    /// Debug builds: `'unchecked` accesses are tested and reported like `'checked` ones
    /// (ARCHITECTURE §5).
    pub check_unchecked: bool,
    /// The names of the source files, indexed by [`FileId`](crate::span::FileId): with them
    /// the PTX carries `.file` and `.loc` directives (profilers and debuggers then show Quasar
    /// lines); without them, `// line N` comments.
    pub files: Vec<String>,
}

/// The PTX of a module.
#[derive(Clone, Debug, Default)]
pub struct PtxOutput {
    /// One PTX module containing every kernel entry.
    pub text: String,
    /// The kernels in `text`.
    pub kernels: Vec<PtxKernel>,
    /// Warnings about kernels left out of the PTX.
    pub diagnostics: Vec<Diagnostic>,
    /// The sites that can fail (`'checked` accesses, `error`, `assert`), numbered as in word 1
    /// of a launch's error word.
    pub check_sites: Vec<PtxCheckSite>,
}

/// One kernel entry of the module.
#[derive(Clone, Debug, PartialEq)]
pub struct PtxKernel {
    /// The IR instance (`ir::Function::instance_name`).
    pub instance_name: String,
    /// The `.entry` name.
    pub entry: String,
    /// The `.entry` parameters in order.
    pub params: Vec<PtxParam>,
    /// The number of launch dimensions the kernel expects (1 to 3).
    pub launch_rank: usize,
    /// Uses `syncthreads` or shared memory: the block decomposition matters.
    pub block_sensitive: bool,
}

/// One `.entry` parameter.
#[derive(Clone, Debug, PartialEq)]
pub struct PtxParam {
    /// The PTX name.
    pub name: String,
    /// Its declaration after `.param` (`.u32`, `.u64`, `.f32`, `.align 4 .b8 x[12]` without
    /// the name and brackets: see [`PtxParam::declaration`]).
    pub ty: String,
    /// Bytes of the value (for `.b8` arrays the whole array).
    pub bytes: usize,
    /// What the runtime passes in it.
    pub role: PtxParamRole,
}

impl PtxParam {
    /// The parameter as declared in the `.entry` line.
    pub fn declaration(&self) -> String {
        match self.role {
            PtxParamRole::Value { by_bytes: true, .. } => {
                format!(".param {} {}[{}]", self.ty, self.name, self.bytes)
            }
            _ => format!(".param {} {}", self.ty, self.name),
        }
    }
}

/// What a parameter carries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PtxParamRole {
    /// A launch dimension.
    LaunchDim {
        /// Which one, in Quasar order.
        dim: usize,
    },
    /// The device pointer of an array argument.
    ArrayData {
        /// The launch argument.
        arg: usize,
    },
    /// One extent of an array argument.
    ArrayExtent {
        /// The launch argument.
        arg: usize,
        /// The dimension.
        dim: usize,
    },
    /// A launch argument by value.
    Value {
        /// The launch argument.
        arg: usize,
        /// Passed as a `.b8` array (a fixed-size vector, a complex number, a function value).
        by_bytes: bool,
    },
    /// The slot an output argument is combined into.
    Output {
        /// The output, in order.
        output: usize,
    },
    /// The launch's error word (last, only in kernels with check sites).
    ErrorWord,
}

/// A place in a kernel that can fail at run time, as reported in word 1 of the error word.
#[derive(Clone, Debug)]
pub struct PtxCheckSite {
    /// The `.entry` the site is in.
    pub kernel: String,
    /// What fails there.
    pub kind: PtxSiteKind,
    /// The array of an access (empty for `error`/`assert`).
    pub array: String,
    /// Where it is in the Quasar source.
    pub span: Span,
}

/// What fails at a [`PtxCheckSite`].
#[derive(Clone, Debug, PartialEq)]
pub enum PtxSiteKind {
    /// A `'checked` access (or, in debug builds, an `'unchecked` one) out of range.
    Index,
    /// `error(…)` with its constant message.
    Error(String),
    /// A failed `assert`: its constant message, or `None` for the condition's source text
    /// (at `cond`).
    Assert {
        /// The message given, if any.
        message: Option<String>,
        /// The condition as written.
        cond: Span,
    },
}

/// A construct the back end does not compile yet, where it is, and what the user can write
/// instead so that the kernel runs on the GPU.
#[derive(Clone, Debug)]
pub(super) struct Unsupported {
    pub what: String,
    /// A sentence starting with a verb ("use `dotprod(a, b)` …"), specific to the construct.
    pub instead: String,
    pub span: Span,
}

/// The length in 32-bit words of a launch's error word (see the module docs).
pub const ERROR_WORDS: usize = 6 + 2 * ERROR_SUBSCRIPTS;

/// How many subscripts and extents of a failing access the error word holds.
pub const ERROR_SUBSCRIPTS: usize = 8;

/// The dynamic shared memory of the module's kernels (`.extern .shared`).
pub(super) const DYNAMIC_SHARED: &str = "quasar_shared";

pub(super) type Res<T> = Result<T, Unsupported>;

/// `what` is not compiled to PTX; `instead` says what to write so that it is (a sentence that
/// starts with a verb, specific to the construct).
pub(super) fn unsupported<T>(
    span: Span,
    what: impl Into<String>,
    instead: impl Into<String>,
) -> Res<T> {
    Err(Unsupported { what: what.into(), instead: instead.into(), span })
}

/// The PTX the `quasar!` macro embeds, for release builds and for debug builds (which also
/// check `'unchecked` accesses, ARCHITECTURE §5).
#[derive(Clone, Debug, Default)]
pub struct PtxBuilds {
    /// `'unchecked` accesses are not tested.
    pub release: PtxOutput,
    /// `'unchecked` accesses are tested like `'checked` ones.
    pub debug: PtxOutput,
}

/// The PTX of every kernel of `module` (analysed as `info`) for both build profiles.
/// `files` names the source files for `.loc` ([`PtxOptions::files`]).
pub fn emit_builds(module: &Module, info: &ModuleInfo, files: &[String]) -> PtxBuilds {
    let opts = |check_unchecked| PtxOptions { check_unchecked, files: files.to_vec() };
    PtxBuilds { release: emit(module, info, &opts(false)), debug: emit(module, info, &opts(true)) }
}

/// The PTX of every kernel of `module` with the default options.
pub fn emit_module(module: &Module) -> PtxOutput {
    emit_module_with(module, &PtxOptions::default())
}

/// The PTX of every kernel of `module`, analysing it first.
pub fn emit_module_with(module: &Module, opts: &PtxOptions) -> PtxOutput {
    emit(module, &ModuleInfo::of(module), opts)
}

/// The PTX of every kernel of `module`, analysed as `info`.
pub fn emit(module: &Module, info: &ModuleInfo, opts: &PtxOptions) -> PtxOutput {
    let mut out = PtxOutput::default();
    let mut text = String::new();
    text.push_str("//\n// Generated by quasar-core (the Quasar PTX back end).\n//\n\n");
    text.push_str(".version 7.8\n.target sm_80\n.address_size 64\n\n");
    if !opts.files.is_empty() {
        text.push_str("// The Quasar source files `.loc` refers to.\n");
        for (i, name) in opts.files.iter().enumerate() {
            // PTX strings have no escapes: a quote or backslash in a path becomes `_`.
            let name = name.replace(['"', '\\'], "_");
            let _ = writeln!(text, ".file {} \"{name}\"", i + 1);
        }
        text.push('\n');
    }
    // Module-level declarations go here, before the entries that use them. Run-time errors
    // go to the error word each launch passes (see the module docs).
    let decls_at = text.len();
    let mut used = HashSet::new();
    for (i, f) in module.functions.iter().enumerate() {
        if f.kind != FunctionKind::Kernel || f.generic {
            continue;
        }
        let entry = unique_entry(&f.instance_name, &mut used);
        let id = ir::FunctionId(i as u32);
        let mut sites = Vec::new();
        let site_base = out.check_sites.len();
        match kernel::emit_kernel(module, info, id, &entry, opts, site_base, &mut sites) {
            Ok((ptx, k)) => {
                let _ = write!(text, "\n{ptx}");
                out.kernels.push(k);
                out.check_sites.extend(sites);
            }
            Err(u) => {
                used.remove(&entry);
                out.diagnostics.push(
                    Diagnostic::warning(
                        u.span,
                        format!(
                            "kernel `{}` is not compiled for NVIDIA GPUs: {} is not supported \
                             by the PTX back end yet",
                            f.name, u.what
                        ),
                    )
                    .with_secondary(f.span, "in this kernel")
                    .with_note("the kernel runs on the CPU, with the same results")
                    .with_note(format!("instead, to run it on the GPU: {}", u.instead)),
                );
            }
        }
    }
    if text.contains("), malloc, (") {
        let decl = "\n// The device heap (dynamic kernel memory, see `heap.rs`).\n\
                    .extern .func (.param .b64 func_retval0) malloc\n(\n\t.param .b64 \
                    malloc_param_0\n)\n;\n.extern .func free\n(\n\t.param .b64 free_param_0\n)\n;\n";
        text.insert_str(decls_at, decl);
    }
    if text.contains(DYNAMIC_SHARED) {
        let decl = format!(
            "\n// Dynamic shared memory: the shared arrays of each block (see the crate docs).\n\
             .extern .shared .align 64 .b8 {DYNAMIC_SHARED}[];\n"
        );
        text.insert_str(decls_at, &decl);
    }
    out.text = text;
    out
}

/// A valid PTX identifier from an instance name, unique in the module.
fn unique_entry(name: &str, used: &mut HashSet<String>) -> String {
    let mut s: String =
        name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' }).collect();
    if !s.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        s.insert(0, '_');
    }
    // Avoid the names the module itself declares.
    if s == DYNAMIC_SHARED {
        s.push('_');
    }
    let base = s.clone();
    let mut n = 1;
    while !used.insert(s.clone()) {
        s = format!("{base}_{n}");
        n += 1;
    }
    s
}
