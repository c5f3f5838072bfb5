//! Integration tests of the `quasar` binary: exit codes and diagnostics.

use std::path::Path;
use std::process::{Command, Output};

const VALID: &str = "\
function y = brighten(x : mat, a : scalar)
    y = x + a
endfunction
";

/// The `)` on line 2, column 5 cannot start an expression.
const INVALID: &str = "x = 1\ny = ) 2\n";

fn quasar(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_quasar"))
        .args(args)
        .current_dir(dir)
        .env_remove("NO_COLOR")
        .output()
        .expect("the quasar binary runs")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn dir_with(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    dir
}

#[test]
fn check_syntax_of_a_valid_file_exits_0() {
    let dir = dir_with(&[("good.q", VALID)]);
    let out = quasar(&["check", "--syntax", "good.q"], dir.path());
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("checked 1 file: 0 errors, 0 warnings"), "{err}");
    assert!(!err.contains("type checking"), "{err}");
}

#[test]
fn check_syntax_error_names_file_line_and_column_and_exits_1() {
    let dir = dir_with(&[("good.q", VALID), ("bad.q", INVALID)]);
    let out = quasar(&["check", "--syntax", "good.q", "bad.q"], dir.path());
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("bad.q:2:5"), "{err}");
    assert!(err.contains("error"), "{err}");
    assert!(!err.contains("good.q:"), "{err}");
    assert!(err.contains("(1 file with errors)"), "{err}");
    assert!(!err.contains('\x1b'), "no colour when stderr is not a terminal: {err}");
}

#[test]
fn check_reports_an_unreadable_file_without_panicking() {
    let dir = dir_with(&[("good.q", VALID)]);
    let out = quasar(&["check", "--syntax", "missing.q", "good.q"], dir.path());
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("cannot read `missing.q`"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(err.contains("checked 2 files: 1 error"), "{err}");
}

#[test]
fn check_without_syntax_flag_says_type_checking_is_not_available() {
    let dir = dir_with(&[("good.q", VALID)]);
    let out = quasar(&["check", "good.q"], dir.path());
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("type checking is not available yet"), "{err}");
}

#[test]
fn emit_and_run_are_not_implemented_and_exit_2() {
    let dir = dir_with(&[("good.q", VALID)]);
    for args in
        [&["emit", "--rust", "good.q"][..], &["emit", "--ptx", "good.q"], &["run", "good.q"]]
    {
        let out = quasar(args, dir.path());
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("not implemented yet"), "{args:?}: {err}");
    }
}
