//! The run-time [`Error`] type and [`Result`] alias that every generated function returns.

use crate::memory::MemoryReport;
use std::fmt;
use std::path::PathBuf;

/// Where in a Quasar source file something happened (1-based line and column).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SourceLocation {
    /// The Quasar file as the user named it, e.g. `src/filters.q` or `<quasar! block>`.
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub col: u32,
    /// The kernel whose launch failed there, when the error comes from a kernel's code (the
    /// site may be in a device function it calls).
    pub kernel: Option<&'static str>,
}

impl SourceLocation {
    /// `file:line:col` in `file`, outside any kernel.
    pub fn new(file: impl Into<String>, line: u32, col: u32) -> SourceLocation {
        SourceLocation { file: file.into(), line, col, kernel: None }
    }
}

impl fmt::Display for SourceLocation {
    /// `file:line:col`, followed by `: in kernel `name`` for an error in a kernel.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.col)?;
        match &self.kernel {
            Some(k) => write!(f, ": in kernel `{k}`"),
            None => Ok(()),
        }
    }
}

/// A run-time error of Quasar code. Generated functions return these instead of panicking.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The Quasar program called `error(...)`.
    #[error("{location}: {message}")]
    User {
        /// The message given to `error`.
        message: String,
        /// Where `error` was called.
        location: SourceLocation,
    },

    /// An `assert(...)` in the Quasar program failed.
    #[error("{location}: assertion failed: {condition}")]
    AssertionFailed {
        /// The asserted condition as written in the source (or the assertion's message).
        condition: String,
        /// Where the assertion is.
        location: SourceLocation,
    },

    /// A checked array access (`'checked`, the default in host code) was outside the array.
    #[error(
        "{}index {} is out of range for `{array}` with shape {}",
        location_prefix(.location),
        list(.index),
        list(.shape)
    )]
    IndexOutOfRange {
        /// The array as named in the Quasar source.
        array: String,
        /// The index that was used, one entry per subscript (the same on the CPU and on
        /// the GPU).
        index: Vec<i64>,
        /// The array's shape at the time of the access.
        shape: Vec<usize>,
        /// Where the access is in the Quasar source (kernels' accesses, on every device).
        location: Option<SourceLocation>,
    },

    /// Data that was loaded at run time (a file, a dynamic value) does not have the type the
    /// program declared for it.
    #[error("type check failed for {what}: `{found}` is not `{expected}`")]
    TypeCheck {
        /// What was checked, e.g. `the value loaded from "weights.qd"`.
        what: String,
        /// The type the program declared.
        expected: String,
        /// The type that was found.
        found: String,
    },

    /// GPU execution was required (e.g. `--gpu` or `{!sched mode=gpu}`) but no usable GPU exists.
    #[error("no GPU available: {reason}")]
    NoGpu {
        /// Why there is no GPU (no driver, no device, the feature `cuda` is off, …).
        reason: String,
    },

    /// A call into the CUDA driver failed.
    #[error("CUDA error during {operation}: {message}")]
    Cuda {
        /// What the runtime was doing, e.g. `kernel launch of gaussian_blur`.
        operation: String,
        /// The driver's error text.
        message: String,
    },

    /// Reading or writing a file failed.
    #[error("I/O error on `{}`: {source}", .path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },

    /// A shape is not valid for an array: more than [`MAX_DIMS`](crate::MAX_DIMS) dimensions, an
    /// element count that overflows, or a shape that does not match the data supplied.
    #[error("invalid shape {}: {reason}", list(.shape))]
    InvalidShape {
        /// The shape that was asked for.
        shape: Vec<usize>,
        /// What is wrong with it.
        reason: String,
    },

    /// Two arrays (or an array and a launch) have shapes that do not fit together.
    #[error("shape mismatch in {operation}: {} vs {}", list(.left), list(.right))]
    ShapeMismatch {
        /// What was being done.
        operation: String,
        /// The first shape.
        left: Vec<usize>,
        /// The second shape.
        right: Vec<usize>,
    },

    /// An array's data is borrowed in a way that conflicts with the requested access (like a
    /// `RefCell`: a host view is alive while something tries to write the array, or the array
    /// is being written by a CPU kernel while something reads it).
    #[error("array is borrowed: cannot {operation} while {holder}")]
    Borrowed {
        /// What was attempted, e.g. `write to the host copy`.
        operation: String,
        /// What holds the conflicting borrow, e.g. `a host view is alive`.
        holder: String,
    },

    /// A kernel argument does not have the type the kernel expects, or does not exist.
    #[error("kernel `{kernel}`, argument {index}: {message}")]
    KernelArgument {
        /// The kernel's name.
        kernel: String,
        /// Zero-based position of the argument.
        index: usize,
        /// What is wrong.
        message: String,
    },

    /// A launch configuration that cannot be executed (bad dimensions, block size, too many
    /// blocks for the device, …).
    #[error("invalid launch of kernel `{kernel}`: {reason}")]
    InvalidLaunch {
        /// The kernel's name.
        kernel: String,
        /// Why the launch is not possible.
        reason: String,
    },

    /// A kernel failed while running (on any device), e.g. a `'checked` access out of range.
    #[error("kernel `{kernel}` failed on {device}: {message}")]
    KernelFailed {
        /// The kernel's name.
        kernel: String,
        /// The device it ran on, e.g. `CPU` or `NVIDIA H100 (CUDA)`.
        device: String,
        /// What went wrong.
        message: String,
    },

    /// An allocation failed: on the host (the allocator, or the budget of
    /// [`set_host_memory_limit`](crate::set_host_memory_limit)), or on a device even after its
    /// cache was released and idle buffers were moved to the host (in the
    /// [`MaximizePerformance`](crate::GpuPolicy::MaximizePerformance) policy; under
    /// `MaximizeStability` the launch runs on the CPU instead).
    #[error(
        "out of memory on {device}: {bytes} bytes requested{}: {detail}{}",
        array_suffix(.array),
        report_lines(.report)
    )]
    OutOfMemory {
        /// `host`, or the device's name.
        device: String,
        /// The allocation that failed, in bytes.
        bytes: usize,
        /// The Quasar array it was for, where known: ``"`img`"``, or
        /// ``"`x`, argument 0 of kernel `blur`"`` for a kernel argument.
        array: Option<String>,
        /// Why it failed, in words.
        detail: String,
        /// For device memory: the state of the device's memory (as in the manual's
        /// out-of-memory report).
        report: Option<Box<MemoryReport>>,
    },

    /// A device (other than CUDA) reported an error, e.g. the simulated device used in tests.
    #[error("device error on {device} during {operation}: {message}")]
    Device {
        /// The device.
        device: String,
        /// What the runtime was doing.
        operation: String,
        /// The device's error text.
        message: String,
    },

    /// Something the runtime does not support (yet); the text says what.
    #[error("unsupported: {0}")]
    Unsupported(String),

    /// A library function was given an argument it cannot work with (a string where a number
    /// is needed, a format that does not match its values, a non-square matrix for `inv`, …).
    #[error("`{function}`: {message}")]
    Argument {
        /// The Quasar name of the function, e.g. `sprintf`.
        function: String,
        /// What is wrong with the argument.
        message: String,
    },
}

impl Error {
    /// The error with its Quasar location marked as inside kernel `name` (`error`, `assert`
    /// and out-of-range accesses of a kernel's code); a location already marked keeps its
    /// kernel, other errors are unchanged.
    pub fn in_kernel(mut self, name: &'static str) -> Error {
        let location = match &mut self {
            Error::User { location, .. } | Error::AssertionFailed { location, .. } => {
                Some(location)
            }
            Error::IndexOutOfRange { location, .. } => location.as_mut(),
            _ => None,
        };
        if let Some(l) = location.filter(|l| l.kernel.is_none()) {
            l.kernel = Some(name);
        }
        self
    }

    /// An [`Error::Argument`]: `function` (its Quasar name) was given a bad argument.
    pub fn argument(function: &str, message: impl Into<String>) -> Error {
        Error::Argument { function: function.to_string(), message: message.into() }
    }

    /// An [`Error::Io`] for `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Error {
        Error::Io { path: path.into(), source }
    }

    /// The error with the Quasar array it concerns, if it is an [`Error::OutOfMemory`] that
    /// does not name one yet (generated code adds the variable's name).
    pub fn for_array(self, name: &str) -> Error {
        match self {
            Error::OutOfMemory { device, bytes, array: None, detail, report } => {
                let array = Some(format!("`{name}`"));
                Error::OutOfMemory { device, bytes, array, detail, report }
            }
            e => e,
        }
    }

    /// An [`Error::InvalidShape`].
    pub(crate) fn shape(shape: &[usize], reason: impl Into<String>) -> Error {
        Error::InvalidShape { shape: shape.to_vec(), reason: reason.into() }
    }

    /// An [`Error::Borrowed`].
    pub(crate) fn borrowed(operation: &str, holder: &str) -> Error {
        Error::Borrowed { operation: operation.into(), holder: holder.into() }
    }
}

/// `Result` with the run-time [`Error`]: what every generated Quasar function returns.
pub type Result<T> = std::result::Result<T, Error>;

fn location_prefix(location: &Option<SourceLocation>) -> String {
    location.as_ref().map_or(String::new(), |l| format!("{l}: "))
}

fn array_suffix(array: &Option<String>) -> String {
    array.as_ref().map_or(String::new(), |a| format!(" for {a}"))
}

fn report_lines(report: &Option<Box<MemoryReport>>) -> String {
    report.as_ref().map_or(String::new(), |r| format!("\n{r}"))
}

/// Formats `[a, b, c]`.
fn list<T: fmt::Display>(items: &[T]) -> String {
    let parts: Vec<String> = items.iter().map(|x| x.to_string()).collect();
    format!("[{}]", parts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::error::Error as _;

    fn loc() -> SourceLocation {
        SourceLocation::new("filters.q", 12, 5)
    }

    #[test]
    fn user_error_and_assert_name_the_quasar_location() {
        let e = Error::User { message: "radius must be positive".into(), location: loc() };
        assert_eq!(e.to_string(), "filters.q:12:5: radius must be positive");
        let e = Error::AssertionFailed { condition: "numel(x) > 0".into(), location: loc() };
        assert_eq!(e.to_string(), "filters.q:12:5: assertion failed: numel(x) > 0");
    }

    #[test]
    fn index_error_names_array_index_and_shape() {
        let (array, index, shape) = ("img".to_string(), vec![4, -1], vec![4, 3]);
        let e = Error::IndexOutOfRange {
            array: array.clone(),
            index: index.clone(),
            shape: shape.clone(),
            location: None,
        };
        assert_eq!(e.to_string(), "index [4, -1] is out of range for `img` with shape [4, 3]");
        let e = Error::IndexOutOfRange { array, index, shape, location: Some(loc()) };
        assert_eq!(
            e.to_string(),
            "filters.q:12:5: index [4, -1] is out of range for `img` with shape [4, 3]"
        );
    }

    #[test]
    fn errors_of_a_kernel_name_it_once() {
        let e = Error::User { message: "bad radius".into(), location: loc() }.in_kernel("blur");
        assert_eq!(e.to_string(), "filters.q:12:5: in kernel `blur`: bad radius");
        // A location already inside a kernel keeps it (the launch that reports it again).
        let e = e.in_kernel("other");
        assert_eq!(e.to_string(), "filters.q:12:5: in kernel `blur`: bad radius");
        let e = Error::IndexOutOfRange {
            array: "img".into(),
            index: vec![9],
            shape: vec![4],
            location: Some(loc()),
        }
        .in_kernel("blur");
        assert_eq!(
            e.to_string(),
            "filters.q:12:5: in kernel `blur`: index [9] is out of range for `img` with shape [4]"
        );
        // Without a Quasar location, or another kind of error: unchanged.
        let e = Error::shape(&[2], "odd").in_kernel("blur");
        assert_eq!(e.to_string(), "invalid shape [2]: odd");
    }

    #[test]
    fn type_check_gpu_and_cuda_messages() {
        let e = Error::TypeCheck {
            what: "the value loaded from \"w.qd\"".into(),
            expected: "cube".into(),
            found: "string".into(),
        };
        assert_eq!(
            e.to_string(),
            "type check failed for the value loaded from \"w.qd\": `string` is not `cube`"
        );
        let e = Error::NoGpu { reason: "the CUDA driver could not be loaded".into() };
        assert_eq!(e.to_string(), "no GPU available: the CUDA driver could not be loaded");
        let e = Error::Cuda { operation: "kernel launch".into(), message: "out of memory".into() };
        assert_eq!(e.to_string(), "CUDA error during kernel launch: out of memory");
    }

    #[test]
    fn io_error_keeps_path_and_source() {
        let e = Error::io("photo.png", std::io::Error::from(std::io::ErrorKind::NotFound));
        assert!(e.to_string().starts_with("I/O error on `photo.png`: "), "{e}");
        assert!(e.source().is_some());
    }

    #[test]
    fn runtime_errors_say_what_and_where() {
        let e = Error::shape(&[2, 3], "17 dimensions, at most 16");
        assert_eq!(e.to_string(), "invalid shape [2, 3]: 17 dimensions, at most 16");
        let e = Error::KernelFailed {
            kernel: "saxpy".into(),
            device: "CPU".into(),
            message: "boom".into(),
        };
        assert_eq!(e.to_string(), "kernel `saxpy` failed on CPU: boom");
        let e = Error::OutOfMemory {
            device: "host".into(),
            bytes: 64,
            array: None,
            detail: "the allocator could not provide it".into(),
            report: None,
        };
        assert_eq!(
            e.for_array("img").to_string(),
            "out of memory on host: 64 bytes requested for `img`: the allocator could not provide it"
        );
        let e = Error::borrowed("write to the host copy", "a host view is alive");
        assert_eq!(
            e.to_string(),
            "array is borrowed: cannot write to the host copy while a host view is alive"
        );
    }
}
