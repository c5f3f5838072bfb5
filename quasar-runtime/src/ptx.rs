//! What the CUDA device must know about a kernel's PTX entry beyond its text, as the
//! `quasar!` macro embeds it ([`PtxEntry`]), and the two pure steps of a GPU launch that
//! depend on it: packing the `.entry` parameters ([`pack_params`]) and turning a launch's
//! error word into an [`Error`] ([`decode_error_word`]).
//!
//! Both are plain functions so that they are tested without a driver; `device/cuda.rs` only
//! hands their bytes to `cuLaunchKernel`, and the device front end reads the word back.
//!
//! # Parameter ABI (the PTX back end's, `quasar-core/src/backend/ptx/mod.rs`)
//!
//! 1. the launch dimensions, one `.u32` each (exactly [`PtxEntry::launch_rank`] of them);
//! 2. per launch argument (the kernel's arguments without its outputs, in order): an array is
//!    a `.u64` pointer followed by exactly `rank` `.u32` extents, where `rank` is the static
//!    rank of the kernel parameter ([`PtxArg::Array`]). An array with fewer dimensions is
//!    padded as a row (a vector `[n]` is `[1, n]`) or with trailing extents of 1; one with more
//!    has its trailing dimensions folded into
//!    the last extent (Quasar's rule that the last subscript runs over the remaining
//!    dimensions, as `Shape::offset` and host indexing do). A value is passed in its own
//!    bytes, whose size must match the entry's ([`PtxArg::Value`]);
//! 3. per output argument, a `.u64` pointer to its zeroed slot;
//! 4. when the entry can fail at run time ([`PtxEntry::checked`]), a `.u64` pointer to the
//!    launch's own zeroed error word of [`ERROR_WORDS`] 32-bit words (each launch has its own,
//!    so that concurrent launches of one kernel never see each other's errors).
//!
//! A kernel without a [`PtxEntry`] (hand-written PTX attached with [`Kernel::with_ptx`])
//! gets the legacy packing: arguments in the order given, arrays with their run-time extents.

use crate::device::{DevPtr, DeviceArg};
use crate::error::{Error, Result, SourceLocation};
use crate::kernel::Kernel;

/// How the PTX entry takes one launch argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PtxArg {
    /// An array: a `.u64` pointer, then `rank` `.u32` extents (the static rank, at least 1).
    Array {
        /// Extents the entry expects.
        rank: u8,
    },
    /// A value of `bytes` bytes (a number, or a fixed-size vector as a `.b8` array).
    Value {
        /// Its size.
        bytes: u16,
    },
}

/// What a [`CheckSite`] reports when a launch's error word names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SiteKind {
    /// An array access out of range ([`Error::IndexOutOfRange`]).
    Index,
    /// `error(message)` ([`Error::User`]; the message is constant on the GPU).
    Error(&'static str),
    /// A failed `assert` ([`Error::AssertionFailed`]): its message, or the condition's text.
    Assert(&'static str),
}

/// A place in a PTX module's kernels that can fail at run time (a `'checked` access, `error`,
/// `assert`), numbered as in word 1 of the error word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CheckSite {
    /// The `.entry` the site is in.
    pub kernel: &'static str,
    /// What fails there.
    pub kind: SiteKind,
    /// The array as named in the Quasar source (empty for `error`/`assert`).
    pub array: &'static str,
    /// The launch argument holding the array, when it is one (its shape goes into the error).
    pub arg: Option<u16>,
    /// The Quasar file.
    pub file: &'static str,
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub col: u32,
}

/// A kernel's entry point in a PTX module and its calling convention.
#[derive(Debug)]
pub struct PtxEntry {
    /// The PTX module (shared by every kernel of one `quasar!` invocation: the CUDA device
    /// loads a module once per text address).
    pub module: &'static str,
    /// The `.entry` name (it may differ from the kernel's name).
    pub entry: &'static str,
    /// Launch dimensions the entry reads.
    pub launch_rank: u8,
    /// The launch arguments, outputs excluded.
    pub args: &'static [PtxArg],
    /// The number of output arguments.
    pub outputs: u8,
    /// The module's sites that can fail (all kernels', indexed by word 1 of the error word).
    pub sites: &'static [CheckSite],
    /// Whether this entry has such sites (`'checked` accesses, `error`, `assert`): it then
    /// takes the launch's error word as its last parameter, and the launcher waits for the
    /// kernel and reads the word, so that the launch returns the error as a CPU launch does
    /// (such launches are synchronous; `'safe`, the default in kernels, costs nothing of the
    /// kind).
    pub checked: bool,
}

/// The `.entry` parameters of a launch of `kernel` over `dims`, one byte vector per parameter
/// in order (the driver copies each according to the entry's declaration). `error_word` is the
/// launch's error word, which an entry with check sites needs.
pub fn pack_params(
    kernel: &Kernel,
    dims: &[usize],
    args: &[DeviceArg],
    error_word: Option<DevPtr>,
) -> Result<Vec<Vec<u8>>> {
    let bad = |reason: String| Error::InvalidLaunch { kernel: kernel.name.into(), reason };
    let u32_of = |what: &str, v: usize| {
        u32::try_from(v).map_err(|_| bad(format!("{what} {v} does not fit the 32-bit ABI")))
    };
    let mut out = Vec::with_capacity(dims.len() + 2 * args.len());
    for &d in dims {
        out.push(u32_of("launch dimension", d)?.to_ne_bytes().to_vec());
    }
    let Some(e) = kernel.ptx_entry else {
        // Legacy packing for hand-written PTX.
        for a in args {
            match a {
                DeviceArg::Array { ptr, shape, .. } => {
                    out.push(ptr.0.to_ne_bytes().to_vec());
                    for &x in shape.dims() {
                        out.push(u32_of("array extent", x)?.to_ne_bytes().to_vec());
                    }
                }
                DeviceArg::Scalar { bytes, .. } => out.push(bytes.clone()),
                DeviceArg::Output { ptr, .. } => out.push(ptr.0.to_ne_bytes().to_vec()),
            }
        }
        return Ok(out);
    };
    if dims.len() != e.launch_rank as usize {
        return Err(bad(format!(
            "the PTX entry `{}` expects {} launch dimensions, the launch has {}",
            e.entry,
            e.launch_rank,
            dims.len()
        )));
    }
    let mut outputs = Vec::new();
    let mut k = 0usize;
    for a in args {
        // A mismatch is an invalid launch (not a device failure): in `SchedMode::Auto` the
        // launch then runs on the CPU; forced onto the GPU it is this error.
        let arg_err = |message: String| bad(format!("argument {k} {message}"));
        match (a, e.args.get(k)) {
            (DeviceArg::Output { ptr, .. }, _) => {
                outputs.push(ptr.0.to_ne_bytes().to_vec());
                continue;
            }
            (DeviceArg::Array { ptr, shape, .. }, Some(PtxArg::Array { rank })) => {
                out.push(ptr.0.to_ne_bytes().to_vec());
                for x in static_extents(shape.dims(), (*rank).max(1) as usize) {
                    out.push(u32_of("array extent", x)?.to_ne_bytes().to_vec());
                }
            }
            (DeviceArg::Scalar { bytes, elem }, Some(PtxArg::Value { bytes: n })) => {
                if bytes.len() != *n as usize {
                    return Err(arg_err(format!(
                        "is a value of type {} ({} bytes); the PTX entry expects {n} bytes",
                        elem.name,
                        bytes.len()
                    )));
                }
                out.push(bytes.clone());
            }
            (_, Some(want)) => {
                return Err(arg_err(format!("does not match the PTX entry's {want:?}")));
            }
            (_, None) => {
                return Err(arg_err(format!(
                    "is one too many: the PTX entry takes {} arguments",
                    e.args.len()
                )));
            }
        }
        k += 1;
    }
    if k != e.args.len() || outputs.len() != e.outputs as usize {
        return Err(bad(format!(
            "{k} arguments and {} outputs given, the PTX entry `{}` takes {} and {}",
            outputs.len(),
            e.entry,
            e.args.len(),
            e.outputs
        )));
    }
    out.extend(outputs);
    if e.checked {
        let Some(w) = error_word else {
            return Err(bad(format!(
                "the PTX entry `{}` can fail and needs an error word; none was given",
                e.entry
            )));
        };
        out.push(w.0.to_ne_bytes().to_vec());
    }
    Ok(out)
}

/// The `n` extents of an array of shape `dims` as a parameter of static rank `n`: as
/// [`crate::Shape::as_rank`] (a vector is a row, other shapes gain trailing 1s) when it has
/// fewer dimensions, the trailing dimensions folded into the last when more.
pub fn static_extents(dims: &[usize], n: usize) -> Vec<usize> {
    let n = n.max(1);
    if dims.len() <= n {
        let mut v = if dims.len() == 1 && n >= 2 { vec![1, dims[0]] } else { dims.to_vec() };
        v.resize(n, 1);
        return v;
    }
    let mut v = dims[..n - 1].to_vec();
    v.push(dims[n - 1..].iter().product());
    v
}

/// How many subscripts and extents of a failing access the error word holds.
pub const ERROR_SUBSCRIPTS: usize = 8;

/// The length in 32-bit words of a launch's error word: flag, site, failing dimension, its
/// subscript, subscript count, rank, subscripts, extents.
pub const ERROR_WORDS: usize = 6 + 2 * ERROR_SUBSCRIPTS;

/// What a launch's error word says after the launch of `entry`.
#[derive(Debug)]
pub enum ErrorWord {
    /// Nothing failed.
    Clear,
    /// A site of this kernel failed: the error to return (the word must be reset).
    Failed(Error),
}

/// Decodes a launch's error word after a launch of `kernel` with arguments `args` into the error the
/// CPU path gives for the same site, with the site's Quasar file:line:col:
/// [`Error::IndexOutOfRange`] naming the array, the whole index and the array's shape (its
/// run-time shape when it is a launch argument, else the extents the kernel saw);
/// [`Error::User`] for `error`; [`Error::AssertionFailed`] for `assert`.
///
/// The words (`quasar-core`'s PTX back end writes them): `[flag, site, failing dimension,
/// its subscript, subscript count n, rank r, subscripts[8], extents[8]]`. A shorter word
/// (4 words, PTX of an older compiler) names only the failing subscript.
pub fn decode_error_word(kernel: &Kernel, word: &[u32], args: &[DeviceArg]) -> ErrorWord {
    let at = |i: usize| word.get(i).copied().unwrap_or(0);
    if at(0) == 0 {
        return ErrorWord::Clear;
    }
    let word = [at(0), at(1), at(2), at(3)];
    let Some(e) = kernel.ptx_entry else { return ErrorWord::Clear };
    let Some(site) = e.sites.get(word[1] as usize) else {
        return ErrorWord::Failed(Error::KernelFailed {
            kernel: kernel.name.into(),
            device: "the GPU".into(),
            message: format!("the kernel reported an error at unknown site {}", word[1]),
        });
    };
    if site.kernel != e.entry {
        // Each launch has its own word: only a corrupted word names another entry's site.
        return ErrorWord::Failed(Error::KernelFailed {
            kernel: kernel.name.into(),
            device: "the GPU".into(),
            message: format!(
                "the kernel reported an error at site {} of another kernel (`{}`)",
                word[1], site.kernel
            ),
        });
    }
    let location = SourceLocation {
        file: site.file.into(),
        line: site.line,
        col: site.col,
        kernel: Some(kernel.source_name),
    };
    // Subscripts are `int` on the GPU: the bits are read back as signed.
    let listed = |from: usize, n: u32| -> Option<Vec<u32>> {
        let n = (n as usize).min(ERROR_SUBSCRIPTS);
        (n > 0).then(|| (from..from + n).map(at).collect())
    };
    let index: Vec<i64> = listed(6, at(4))
        .map(|v| v.into_iter().map(|i| i as i32 as i64).collect())
        .unwrap_or_else(|| vec![word[3] as i32 as i64]);
    let extents = listed(6 + ERROR_SUBSCRIPTS, at(5))
        .map(|v| v.into_iter().map(|d| d as usize).collect::<Vec<_>>())
        .unwrap_or_default();
    let shape = site
        .arg
        .and_then(|a| {
            args.iter().filter(|x| !matches!(x, DeviceArg::Output { .. })).nth(a as usize)
        })
        .and_then(|x| match x {
            DeviceArg::Array { shape, .. } => Some(shape.dims().to_vec()),
            _ => None,
        })
        .unwrap_or(extents);
    ErrorWord::Failed(match site.kind {
        SiteKind::Index => Error::IndexOutOfRange {
            array: site.array.into(),
            index,
            shape,
            location: Some(location),
        },
        SiteKind::Error(message) => Error::User { message: message.into(), location },
        SiteKind::Assert(condition) => {
            Error::AssertionFailed { condition: condition.into(), location }
        }
    })
}

#[cfg(test)]
#[path = "ptx_tests.rs"]
mod tests;
