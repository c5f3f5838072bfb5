//! Parser unit tests: one per construct, written from the manual's descriptions.

use crate::span::FileId;
use crate::syntax::ast::*;
use crate::syntax::parse;

fn ok(src: &str) -> Program {
    let parsed = parse(src, FileId(0));
    assert!(parsed.diagnostics.is_empty(), "unexpected diagnostics for {src:?}: {:#?}", parsed.diagnostics);
    parsed.program
}

#[test]
fn smoke() {
    let p = ok("a = b = 1\n");
    assert_eq!(p.body.len(), 1);
}
