//! The supported subset: what is outside it is an error naming its line.

use super::HEADER;
use crate::Module;

fn err(body: &str) -> (u32, String) {
    let text = format!("{HEADER}.visible .entry k()\n{{\n\t.reg .b32 %r<4>;\n{body}\n\tret;\n}}\n");
    let e = Module::parse(&text).expect_err(body);
    (e.line, e.message)
}

#[test]
fn instructions_outside_the_subset_are_errors_naming_their_line() {
    // Line 7: header (3), entry and brace (2), one `.reg`, then the statement.
    let (line, m) = err("\tpopc.b32 %r1, %r2;");
    assert_eq!(line, 7);
    assert!(m.contains("`popc.b32` is outside the PTX subset"), "{m}");
    assert!(err("\tadd.rz.f32 %r1, %r2, %r3;").1.contains("outside"));
    assert!(err("\tdiv.approx.f32 %r1, %r2, %r3;").1.contains("outside"));
    assert!(err("\tadd.s32 %r1, %r2, %r9;").1.contains("unknown register `%r9`"));
    assert!(err("\tcvt.f32.s32 %r1, %r2;").1.contains("rounding modifier"));
    assert!(err("\tbar.sync 0, 64;").1.contains("thread count"));
    assert!(err("\tld.local.u32 %r1, [%r2];").1.contains("outside"));
    assert!(err("\tbra $L_nowhere;").1.contains("unknown label"));
}

#[test]
fn module_structure_outside_the_subset_is_an_error() {
    let e = Module::parse(".version 7.8\n.target sm_80\n.address_size 32\n").unwrap_err();
    assert_eq!((e.line, e.message.as_str()), (3, "only 64-bit addresses are supported"));
    let e = Module::parse(&format!("{HEADER}.global .u32 x = 5;\n")).unwrap_err();
    assert!(e.message.contains("initialised"), "{e}");
    let e = Module::parse(&format!("{HEADER}.func f()\n{{\n}}\n")).unwrap_err();
    assert!(e.message.contains("unsupported directive `.func`"), "{e}");
    let e = Module::parse(&format!(
        "{HEADER}.visible .entry k()\n{{\n\t.reg .b32 %r<2>;\n\tmov.u32 %r1, 0;\n}}\n"
    ))
    .unwrap_err();
    assert!(e.message.contains("does not end with `ret`"), "{e}");
}

#[test]
fn an_emitted_module_parses_with_its_entries_and_parameters() {
    let text = format!(
        "//\n// comment\n//\n\n{HEADER}\n.extern .shared .align 64 .b8 quasar_shared[];\n\
         .visible .global .align 4 .u32 quasar_error[4];\n\n// k (k_0)\n.visible .entry k_0(\n\
         \t.param .u32 k_0_dim0,\n\t.param .u64 k_0_a0,\n\t.param .align 8 .b8 k_0_a1[16]\n)\n{{\n\
         \t.reg .pred %p<2>;\n\t.reg .b32 %r<3>;\n\tld.param.u32 %r1, [k_0_dim0];\n$L__1:\n\tret;\n}}\n"
    );
    let m = Module::parse(&text).unwrap();
    assert_eq!(m.globals.len(), 1);
    let e = m.entry("k_0").unwrap();
    let p: Vec<(&str, usize, usize)> =
        e.params.iter().map(|p| (p.name.as_str(), p.size, p.offset)).collect();
    assert_eq!(p, [("k_0_dim0", 4, 0), ("k_0_a0", 8, 8), ("k_0_a1", 16, 16)]);
}

#[test]
fn source_locations_are_accepted_and_run_as_nothing() {
    let text = format!(
        "{HEADER}.file 1 \"blur.q\"\n.file 2 \"lib/util.q\", 0, 0\n.visible .entry k()\n{{\n\
         \t.reg .b32 %r<2>;\n\t.loc 1 4 5\n\tmov.u32 %r1, 7;\n\t.loc 2 10 1\n\tret;\n}}\n"
    );
    let m = Module::parse(&text).unwrap();
    // The `.loc` lines are not statements: the entry holds the `mov` and the `ret`.
    assert_eq!(m.entry("k").unwrap().code.len(), 2);
    let e = Module::parse(&format!("{HEADER}.file 1 \"blur.q\n")).unwrap_err();
    assert!(e.message.contains("unterminated string"), "{e}");
    let e = Module::parse(&format!("{HEADER}.file \"blur.q\"\n")).unwrap_err();
    assert!(e.message.contains("expected a number"), "{e}");
}
