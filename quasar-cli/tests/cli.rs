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

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn dir_with(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
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
fn check_reads_a_file_that_is_not_utf8_as_windows_1252_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    // `é` (0xE9) in a comment and curly quotes (0x93, 0x94) in a string, as Windows-1252.
    let latin = b"function y = f(x : int)\ny = 2 % r\xe9sum\xe9\nz = \"\x93q\x94\"\nendfunction\n";
    std::fs::write(dir.path().join("latin.q"), latin).unwrap();
    std::fs::write(dir.path().join("main.q"), b"import \"latin.q\"\nw = f(1)\n").unwrap();
    for file in ["latin.q", "main.q"] {
        let out = quasar(&["check", file], dir.path());
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(0), "{err}");
        assert!(err.contains("not UTF-8; it was read as Windows-1252"), "{err}");
        // Line 2, column 10: the `é` after `y = 2 % r`.
        assert!(err.contains("latin.q:2:10"), "{err}");
        assert!(err.contains("résumé"), "{err}");
    }
}

#[test]
fn check_type_checks_a_valid_file_and_exits_0() {
    let dir = dir_with(&[("good.q", VALID)]);
    let out = quasar(&["check", "good.q"], dir.path());
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("checked 1 file: 0 errors, 0 warnings"), "{err}");
    assert!(!err.contains("not available yet"), "{err}");
    assert!(stdout(&out).is_empty(), "types are printed only with --types");
}

/// `x` is undefined on line 4, column 9; `"no"` is not a `mat` (the call on line 5).
const TYPE_ERRORS: &str = "\
function y = scale(x : mat, a : scalar)
    y = x * a
endfunction
z = 1 + x
w = scale(\"no\", 2.0)
";

#[test]
fn check_type_errors_name_file_line_and_column_and_exit_1() {
    let dir = dir_with(&[("types.q", TYPE_ERRORS)]);
    let out = quasar(&["check", "types.q"], dir.path());
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("types.q:4:9"), "{err}");
    assert!(err.contains("undefined name `x`"), "{err}");
    assert!(err.contains("types.q:5:5"), "{err}");
    assert!(err.contains("mat") && err.contains("string"), "both types are named: {err}");
    assert!(err.contains("checked 1 file: 2 errors"), "{err}");
}

/// `#pragma show_reductions on` (manual §17.3): line 5 is rewritten by the reduction.
const SHOWN: &str = "\
reduction (x : mat) -> transpose(transpose(x)) = x
#pragma show_reductions on
function y = f(a : mat)
    b = a
    y = transpose(transpose(b))
endfunction
";

#[test]
fn check_prints_the_reductions_applied_as_notes_that_are_no_warnings() {
    let dir = dir_with(&[("shown.q", SHOWN)]);
    let out = quasar(&["check", "shown.q"], dir.path());
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("shown.q:5:9"), "{err}");
    let note = "note: applied reduction `transpose(transpose(x)) = x` to `transpose(transpose(b))`";
    assert!(err.contains(note), "{err}");
    assert!(err.contains("checked 1 file: 0 errors, 0 warnings"), "{err}");
}

#[test]
fn check_syntax_flag_skips_type_checking() {
    let dir = dir_with(&[("types.q", TYPE_ERRORS)]);
    let out = quasar(&["check", "--syntax", "types.q"], dir.path());
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("checked 1 file: 0 errors, 0 warnings"), "{err}");
}

#[test]
fn check_does_not_type_check_a_file_with_syntax_errors() {
    let dir = dir_with(&[("bad.q", "y = ) 2\nz = undefined_name\n")]);
    let out = quasar(&["check", "bad.q"], dir.path());
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("bad.q:1:5"), "{err}");
    assert!(!err.contains("undefined"), "no type errors after syntax errors: {err}");
}

#[test]
fn check_types_prints_every_instance_with_its_types() {
    let src = "\
function y = scale(x : mat, a : scalar)
    y = x * a
endfunction
function y = twice(x)
    y = 2 * x
endfunction
a = twice(3)
b = twice(1.5)
sq = v -> v * v
c = sq(4)
";
    let dir = dir_with(&[("prog.q", src)]);
    let out = quasar(&["check", "--types", "prog.q"], dir.path());
    let (err, text) = (stderr(&out), stdout(&out));
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(text.contains("scale(x : mat, a : scalar) -> (y : mat)"), "{text}");
    assert!(text.contains("twice(x : int) -> (y : int)"), "{text}");
    assert!(text.contains("twice(x : scalar) -> (y : scalar)"), "{text}");
    assert!(text.contains("<lambda@9:6>(v : int) -> "), "{text}");
    assert!(text.contains("<script>() -> ()"), "{text}");
    assert!(text.contains("    b : scalar"), "variables are listed under their instance: {text}");
    assert!(err.contains("checked 1 file: 0 errors"), "{err}");
}

#[test]
fn check_types_conflicts_with_syntax() {
    let dir = dir_with(&[("good.q", VALID)]);
    let out = quasar(&["check", "--syntax", "--types", "good.q"], dir.path());
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
}

#[test]
fn check_loads_imported_files_relative_to_the_importing_file() {
    let dir = dir_with(&[
        (
            "main.q",
            "import \"lib/helpers.q\"\nfunction y = f(x : scalar)\n    y = helper(x)\nendfunction\nz = f(2.0)\n",
        ),
        ("lib/helpers.q", "import \"more.q\"\nfunction y = helper(x)\n    y = more(x) + 1\nendfunction\n"),
        // An import cycle back to the checked file and to the importing file.
        ("lib/more.q", "import \"helpers.q\"\nimport \"../main.q\"\nfunction y = more(x)\n    y = 2 * x\nendfunction\n"),
    ]);
    let out = quasar(&["check", "--types", "main.q"], dir.path());
    let (err, text) = (stderr(&out), stdout(&out));
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("checked 1 file: 0 errors, 0 warnings"), "{err}");
    assert!(text.contains("helper(x : scalar) -> (y : scalar)"), "{text}");
    assert!(text.contains("    z : scalar"), "{text}");
}

#[test]
fn check_reports_a_missing_import_at_the_import_statement() {
    let dir = dir_with(&[
        ("main.q", "x = 1\nimport \"missing.q\"\ny = x\n"),
        ("std.q", "import \"Quasar.UI.dll\"\nx = 1\n"),
    ]);
    let out = quasar(&["check", "main.q", "std.q"], dir.path());
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("main.q:2:1"), "{err}");
    assert!(err.contains("cannot find the imported file `missing.q`"), "{err}");
    // A library that cannot be loaded here is a warning, not an error.
    assert!(err.contains("std.q:1:1"), "{err}");
    assert!(err.contains("warning: `Quasar.UI.dll` is a native library"), "{err}");
    assert!(err.contains("checked 2 files: 1 error, 1 warning (1 file with errors)"), "{err}");
}

#[test]
fn check_finds_imports_by_file_name_and_on_quasar_path() {
    // An absolute Windows path from another machine: found by its file name on QUASAR_PATH.
    let lib = dir_with(&[("shared/tf.q", "function y = gain(x)\n    y = 2 * x\nendfunction\n")]);
    let dir = dir_with(&[(
        "main.q",
        "import \"C:\\Users\\someone\\tf.q\"\nimport \"Video.dll\"\ny = gain(3)\nv = vidopen(\"a.mp4\")\n",
    )]);
    let out = Command::new(env!("CARGO_BIN_EXE_quasar"))
        .args(["check", "main.q"])
        .current_dir(dir.path())
        .env("QUASAR_PATH", lib.path().join("shared"))
        .output()
        .expect("the quasar binary runs");
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(!err.contains("cannot find"), "{err}");
    assert!(err.contains("main.q:2:1") && err.contains("`Video.dll` is a native library"), "{err}");
    assert!(err.contains("main.q:4:5"), "{err}");
    assert!(err.contains("it would come from the native library `Video.dll`"), "{err}");
    assert!(err.contains("checked 1 file: 1 error, 1 warning"), "{err}");
}

#[test]
fn check_reports_syntax_errors_of_imported_files_under_their_own_name() {
    let dir = dir_with(&[
        ("main.q", "import \"lib.q\"\nz = f(1)\n"),
        ("lib.q", "function y = f(x)\n    y = ) x\nendfunction\n"),
    ]);
    let out = quasar(&["check", "main.q"], dir.path());
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("lib.q:2:9"), "{err}");
    assert!(!err.contains("main.q:"), "{err}");
}

#[test]
fn emit_rust_prints_the_generated_functions() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("k.q");
    let src = "function [] = __kernel__ scale(x : vec, y : vec, a : scalar, pos : int)\n    \
               y[pos] = a * x[pos]\nendfunction\nfunction y : vec = twice(x : vec)\n    \
               y = zeros(numel(x))\n    parallel_do(numel(x), x, y, 2.0, scale)\nendfunction\n";
    std::fs::write(&path, src).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_quasar"))
        .args(["emit", "--rust"])
        .arg(&path)
        .output()
        .expect("run quasar");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout.contains("pub fn twice"), "{stdout}");
    assert!(stdout.contains("Kernel::new"), "{stdout}");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_quasar"))
        .args(["emit", "--ptx"])
        .arg(&path)
        .output()
        .expect("run quasar");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout.contains(".entry"), "{stdout}");
}

#[test]
fn check_ir_prints_typed_bodies() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("ir.q");
    std::fs::write(&path, "function y = twice(x)\n    y = 2 * x\nendfunction\nz = twice(1.5)\n")
        .unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_quasar"))
        .args(["check", "--ir"])
        .arg(&path)
        .output()
        .expect("run quasar");
    assert!(out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("y{scalar} = (2{int} * x{scalar}){scalar}"), "{stdout}");
}

#[test]
fn check_ir_after_a_pass_prints_that_stage_and_rejects_unknown_passes() {
    let src = "function y = f(x : scalar)\n    if 1\n        y = x\n    else\n        y = -x\n    endif\nendfunction\nz = f(1.5)\n";
    let dir = dir_with(&[("p.q", src)]);
    let out = quasar(&["check", "--ir", "p.q"], dir.path());
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("if 1{int}"), "before the passes: {}", stdout(&out));
    let out = quasar(&["check", "--ir", "--after=fold-guards", "p.q"], dir.path());
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    // After type checking `scalar` is resolved for the (single-precision) mode.
    assert!(
        !text.contains("if ") && text.contains("y{scalar'single} = x{scalar'single}"),
        "{text}"
    );
    let out = quasar(&["check", "--ir", "--after=no-such-pass", "p.q"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("fold-guards"), "the known passes are listed: {}", stderr(&out));
}

#[test]
fn check_suggests_the_closest_name_for_a_misspelt_one() {
    let src = "function y = scaled(x : mat, factor : scalar)\n    acc = zeroes(size(x))\n    \
               y = acc + x * facter\nendfunction\n";
    let dir = dir_with(&[("typo.q", src)]);
    let out = quasar(&["check", "typo.q"], dir.path());
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    let expected = "\
error: undefined function `zeroes`
  ┌─ typo.q:2:11
  │
2 │     acc = zeroes(size(x))
  │           ^^^^^^ not a function, lambda, type or built-in
  │
  = did you mean `zeros`?

error: undefined name `facter`
  ┌─ typo.q:3:19
  │
3 │     y = acc + x * facter
  │                   ^^^^^^ not a variable, function, type or built-in
  │
  = did you mean `factor`?
";
    assert!(err.contains(expected), "{err}");
}

/// A program that type-checks but that the back end rejects: `check` rejects it too, with the
/// back end's message, so that what it accepts compiles with `quasar!`.
#[test]
fn check_runs_the_back_ends_and_reports_their_errors() {
    let src = "\
function [] = __kernel__ smooth(y : vec, pos : int, blkpos : int, blkdim : int)
    tile = shared(blkdim)
    if blkdim > 4
        tile[blkpos] = y[pos]
        syncthreads
        y[pos] = tile[blkdim - 1 - blkpos]
    endif
endfunction
function [] = smooth_in_blocks(y : vec)
    parallel_do([[numel(y)], [8]], y, smooth)
endfunction
";
    let dir = dir_with(&[("branch.q", src)]);
    let out = quasar(&["check", "branch.q"], dir.path());
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains(
            "error: code generation does not support `syncthreads` inside a branch, `repeat` or \
             `for` over values yet\n  ┌─ branch.q:3:5"
        ),
        "{err}"
    );
    // What to write instead.
    assert!(
        err.contains(
            "= instead: call `syncthreads` at the top level of the kernel body or in a `for` \
             range or `while` loop, and branch around the code between barriers\n"
        ),
        "{err}"
    );
}

#[test]
fn check_says_what_to_write_instead_of_an_unsupported_construct() {
    let src = "\
function [] = __kernel__ double_all(x : mat, y : mat, pos : ivec2)
    y[pos] = sum(x + x)
endfunction
function y : mat = doubled(x : mat)
    y = zeros(size(x))
    parallel_do(size(x), x, y, double_all)
endfunction
";
    let dir = dir_with(&[("whole.q", src)]);
    let out = quasar(&["check", "whole.q"], dir.path());
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    let expected = "\
error: code generation does not support whole-array arithmetic on arrays inside a kernel yet
  ┌─ whole.q:2:18
  │
2 │     y[pos] = sum(x + x)
  │                  ^^^^^
  │
  = instead: compute one element per thread (`y[pos] = a[pos] + b[pos]`), or loop with `for`
";
    assert!(err.contains(expected), "{err}");
}

#[test]
fn check_says_how_to_get_a_kernel_left_on_the_cpu_onto_the_gpu() {
    // The CPU compiles a message with values; the GPU's messages are constant.
    let src = "\
function [] = __kernel__ refuse(y : vec, s : int, pos : int)
    if s < 0
        error(\"negative shift \", s)
    endif
    y[pos] = s
endfunction
function y : vec = shifted(n : int, s : int)
    y = zeros(n)
    parallel_do(n, y, s, refuse)
endfunction
";
    let dir = dir_with(&[("refuse.q", src)]);
    let out = quasar(&["check", "refuse.q"], dir.path());
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    for line in [
        "warning: kernel `refuse` is not compiled for NVIDIA GPUs: a value that is not a string \
         literal in the message of `error` is not supported by the PTX back end yet",
        "  ┌─ refuse.q:3:34",
        "  = the kernel runs on the CPU, with the same results",
        "  = instead, to run it on the GPU: give `error` a string literal message \
         (`error(\"index too large\")`) and report values from host code",
    ] {
        assert!(err.lines().any(|l| l == line), "no line {line:?} in:\n{err}");
    }
}
