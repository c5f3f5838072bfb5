//! Deep recursion without stack overflows: the parser, the printer and the type checker
//! recurse once per level of nesting, and programs (or fuzzers) can nest deeply, so each
//! recursive step runs through [`guard`], which moves to a fresh heap-allocated stack
//! segment when little of the current one is left (the `stacker` crate, as rustc does).

/// Runs `f`, first growing the stack if less than 1 MiB of it remains. The margin is wide
/// because a guarded step can end in unguarded recursion over a value as deep as the program's
/// nesting (cloning or comparing the type of a 200-level curried lambda, in unoptimised builds).
#[inline]
pub fn guard<R>(f: impl FnOnce() -> R) -> R {
    stacker::maybe_grow(1024 * 1024, 8 * 1024 * 1024, f)
}
