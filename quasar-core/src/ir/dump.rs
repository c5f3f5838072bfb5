//! A readable textual form of the IR, for tests and `quasar check --types`.
//!
//! Instances are listed in module order (the order in which inference finished them, so a
//! callee comes before its caller and the script instance comes after what it calls).
//! The script instance is named `<script>`, lambdas `<lambda@line:col>`.

use super::{Function, LocalId, LocalRole, Module};
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

/// Like [`signatures`], with each instance's local variables (not its parameters, outputs or
/// captures) on the following lines, indented by four spaces, in order of first assignment:
///
/// ```text
/// scale(x : mat, a : scalar) -> (y : mat)
///     t : mat
/// ```
pub fn instances(module: &Module) -> String {
    let mut out = String::new();
    for f in &module.functions {
        let _ = writeln!(out, "{}", signature(f));
        for l in f.locals.iter().filter(|l| l.role == LocalRole::Var) {
            let _ = writeln!(out, "    {} : {}", l.name, l.ty);
        }
    }
    out
}

/// `__kernel__ k(x : mat, pos : ivec2) -> ()`
pub fn signature(f: &Function) -> String {
    let list = |ids: &[LocalId]| {
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
    if f.outputs_from_identity {
        s.push_str(" | outputs from the identity");
    }
    s
}
