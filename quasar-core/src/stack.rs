//! Deep recursion without stack overflows: the parser, the printer and the type checker
//! recurse once per level of nesting, and programs (or fuzzers) can nest deeply, so each
//! recursive step runs through [`guard`], which moves to a fresh heap-allocated stack
//! segment when little of the current one is left (the `stacker` crate, as rustc does).

/// Runs `f`, first growing the stack if less than 128 KiB of it remain.
#[inline]
pub fn guard<R>(f: impl FnOnce() -> R) -> R {
    stacker::maybe_grow(128 * 1024, 4 * 1024 * 1024, f)
}
