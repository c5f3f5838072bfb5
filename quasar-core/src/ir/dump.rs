//! A readable textual form of the IR, for tests and `quasar check --types`.

use super::{Function, Module};
use std::fmt::Write;

/// One line per function instance: `kind name(param : type, …) -> (output : type, …)`,
/// with captured variables after `|`.
pub fn signatures(module: &Module) -> String {
    let mut out = String::new();
    for f in &module.functions {
        let _ = writeln!(out, "{}", signature(f));
    }
    out
}

/// `__kernel__ k(x : mat, pos : ivec2) -> ()`
pub fn signature(f: &Function) -> String {
    let list = |ids: &[super::LocalId]| {
        ids.iter()
            .map(|id| {
                let l = f.local(*id);
                format!("{} : {}", l.name, l.ty)
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    let kind = f.kind.word().map(|w| format!("{w} ")).unwrap_or_default();
    let mut s = format!("{kind}{}({}) -> ({})", f.name, list(&f.params), list(&f.outputs));
    if !f.captures.is_empty() {
        let _ = write!(s, " | captures {}", list(&f.captures));
    }
    s
}
