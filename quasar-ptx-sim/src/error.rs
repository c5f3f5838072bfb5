//! Errors: PTX text outside the supported subset ([`ParseError`]), launches that do not fit the
//! entry ([`Error::Launch`]), and faults of a running kernel ([`Fault`]).

use std::fmt;

/// PTX text the interpreter does not accept, with the line it is on.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("PTX line {line}: {message}")]
pub struct ParseError {
    /// 1-based line.
    pub line: u32,
    /// What is wrong.
    pub message: String,
}

impl ParseError {
    pub(crate) fn new(line: u32, message: impl Into<String>) -> ParseError {
        ParseError { line, message: message.into() }
    }
}

/// A state space of memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Space {
    /// `.global`: device memory.
    Global,
    /// `.shared`: the block's shared memory.
    Shared,
    /// `.param`: the kernel's parameters.
    Param,
}

impl fmt::Display for Space {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Space::Global => "global",
            Space::Shared => "shared",
            Space::Param => "param",
        })
    }
}

/// What went wrong in a running kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FaultKind {
    /// An access outside every buffer of the launch (global), or outside the block's shared
    /// memory.
    OutOfBounds {
        /// The state space.
        space: Space,
        /// The first byte accessed.
        address: u64,
        /// Bytes accessed.
        bytes: u32,
        /// The closest buffer, described.
        nearest: String,
    },
    /// An access not aligned to its size (the hardware faults on these).
    Misaligned {
        /// The state space.
        space: Space,
        /// The address.
        address: u64,
        /// Bytes accessed.
        bytes: u32,
    },
    /// Threads of a block wait at different `bar.sync` instructions (`bar.sync` is `.aligned`:
    /// every thread must execute the same one).
    BarrierMismatch {
        /// The PTX lines of the barriers threads wait at.
        lines: Vec<u32>,
    },
    /// No thread of a block can make progress.
    Deadlock(String),
    /// A warp-synchronous instruction used wrongly (a thread outside its own membermask,
    /// different membermasks, a lane reading from a lane that does not take part).
    WarpSync(String),
    /// `bra.uni` taken by some threads of a warp and not by others.
    DivergentUniformBranch,
}

impl fmt::Display for FaultKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FaultKind::OutOfBounds { space, address, bytes, nearest } => write!(
                f,
                "{space} address {address:#x} ({bytes} bytes) is out of bounds ({nearest})"
            ),
            FaultKind::Misaligned { space, address, bytes } => {
                write!(f, "misaligned {bytes}-byte {space} access at {address:#x}")
            }
            FaultKind::BarrierMismatch { lines } => write!(
                f,
                "threads of the block wait at different bar.sync instructions (PTX lines {lines:?})"
            ),
            FaultKind::Deadlock(m) => write!(f, "deadlock: {m}"),
            FaultKind::WarpSync(m) => f.write_str(m),
            FaultKind::DivergentUniformBranch => {
                f.write_str("bra.uni is divergent: some threads of the warp branch, others do not")
            }
        }
    }
}

/// A fault of a running kernel: where (kernel, PTX line and instruction, block and thread) and
/// what.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "kernel `{kernel}`, PTX line {line} `{instruction}`, block {block:?}, thread {thread:?}: {kind}"
)]
pub struct Fault {
    /// The `.entry`.
    pub kernel: String,
    /// 1-based PTX line of the instruction.
    pub line: u32,
    /// The instruction as written.
    pub instruction: String,
    /// `%ctaid` of the block.
    pub block: [u32; 3],
    /// `%tid` of the (first) thread concerned.
    pub thread: [u32; 3],
    /// What happened.
    pub kind: FaultKind,
}

/// Any error of the interpreter.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// The module is outside the supported subset.
    #[error(transparent)]
    Parse(#[from] ParseError),
    /// The launch does not fit the entry (unknown entry, parameters, block size, shared memory).
    #[error("launch of `{entry}`: {message}")]
    Launch {
        /// The entry.
        entry: String,
        /// What does not fit.
        message: String,
    },
    /// The kernel faulted.
    #[error(transparent)]
    Fault(#[from] Box<Fault>),
}
