//! Passes over the typed IR (ARCHITECTURE §3, "Transforms"): each one a function from a
//! module to a module, with its own tests, run in [`pipeline`] order by the driver, which
//! numbers new nodes and runs the verifier after each.
//!
//! To add a pass: write `transform/NAME.rs` with a `pub fn run(module: &mut Module, cx:
//! &PassContext)`, add it to [`pipeline`], and add a golden test (`tests/golden/`).

pub mod block_guard;
pub mod collapse;
pub mod dead_fn_values;
pub mod fold_guards;
pub mod fold_launch_dims;
pub mod interior;
pub mod kernel_generator;
pub mod known_slices;
pub mod loop_deps;
pub mod loop_uses;
pub mod parallel_loops;
pub mod texture_reads;

use crate::diagnostics::Diagnostic;
use crate::ir::Module;
use std::cell::RefCell;

/// What every pass may read about the compilation, and where it reports.
#[derive(Debug, Default)]
pub struct PassContext {
    /// Warnings and errors of the passes (a loop that stays serial, a `{!parallel for}` that
    /// cannot be honoured); the driver collects them after each pass.
    pub diagnostics: RefCell<Vec<Diagnostic>>,
}

impl PassContext {
    /// A context for one run of the passes (the IR's precisions are already concrete: the
    /// driver resolved `scalar` for the double mode before the passes).
    pub fn new() -> PassContext {
        PassContext { diagnostics: RefCell::default() }
    }

    /// Adds diagnostics for the driver to report.
    pub fn report(&self, diags: impl IntoIterator<Item = Diagnostic>) {
        self.diagnostics.borrow_mut().extend(diags);
    }
}

/// One pass of the pipeline.
pub struct Pass {
    /// The name `quasar check --ir --after=NAME` knows it by.
    pub name: &'static str,
    /// What it does, in a line.
    pub about: &'static str,
    /// The pass itself.
    pub run: fn(&mut Module, &PassContext),
}

/// The passes, in the order the driver runs them.
pub fn pipeline() -> &'static [Pass] {
    &[
        Pass {
            name: "fold-guards",
            about: "branches on constant conditions become the branch taken",
            run: fold_guards::run,
        },
        Pass {
            name: "dead-fn-values",
            about: "function values stored in variables that nothing reads are removed",
            run: dead_fn_values::run,
        },
        Pass {
            name: "known-slices",
            about: "`:` over a dimension of known extent becomes the constant range `0..n-1`",
            run: known_slices::run,
        },
        Pass {
            name: "parallel-loops",
            about: "loop nests in host code with independent iterations become kernels",
            run: parallel_loops::run,
        },
        Pass {
            name: "kernel-generator",
            about: "element-wise array expressions (and sum/mean of them) become one kernel each",
            run: kernel_generator::run,
        },
        Pass {
            name: "texture-reads",
            about: "reads of 'hwtex_linear/'hwtex_nearest arrays at real positions interpolate (or round) in software",
            run: texture_reads::run,
        },
        Pass {
            name: "fold-launch-dims",
            about: "launches over more than three dimensions fold their dimensions from the third on into one",
            run: fold_launch_dims::run,
        },
        Pass {
            name: "interior",
            about: "boundary-check elimination: each kernel's interior/border partition",
            run: interior::run,
        },
    ]
}

/// The IR of `src` after the pass `stage` (and the ones before it), for the passes' tests;
/// the program must compile without errors.
#[cfg(test)]
pub(crate) fn ir_after(stage: &str, src: &str) -> String {
    let opts = crate::driver::Options {
        dump_ir_after: vec![stage.into()],
        ..crate::driver::Options::new("t.q", src, "t.q")
    };
    let (art, loader) = crate::driver::compile(&opts);
    assert!(!art.has_errors(), "{}", loader.map.render(&art.diagnostics));
    art.ir_dumps.into_iter().map(|(_, t)| t).collect()
}
