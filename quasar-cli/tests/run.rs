//! `quasar run`: a program built through a hidden cargo project (the `quasar!` path) and run.
//!
//! The tests share one cache directory in cargo's target directory, so the Quasar crates are
//! built in release mode once (the first run of these tests takes minutes), and each test
//! program has a fixed path there (a rerun of the tests finds its build).

use std::path::PathBuf;
use std::process::{Command, Output};

/// Writes `text` to the test program `name` and returns its path.
fn program(name: &str, text: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("quasar-run-tests");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn quasar_run(args: &[&str]) -> Output {
    let cache = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("quasar-run-cache");
    Command::new(env!("CARGO_BIN_EXE_quasar"))
        .arg("run")
        .args(args)
        .env("QUASAR_CACHE_DIR", cache)
        .env("QUASAR_DEVICE", "cpu")
        .output()
        .expect("the quasar binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn a_script_runs_and_an_unchanged_rerun_does_not_build() {
    // Top-level statements, a kernel and a function, then `main` without parameters.
    let src = "function [] = __kernel__ square(x : vec, y : vec, pos : int)\n    \
               y[pos] = x[pos] * x[pos]\nendfunction\n\
               function s = total(v : vec)\n    s = sum(v)\nendfunction\n\
               x = [1.0, 2.0, 3.0]\ny = zeros(1, 3)\nparallel_do(3, x, y, square)\n\
               print \"total \", total(y)\n\
               function [] = main()\n    print \"main ran\"\nendfunction\n";
    let path = program("script.q", src);
    let first = quasar_run(&[path.to_str().unwrap()]);
    let (out, err) = (text(&first.stdout), text(&first.stderr));
    assert!(first.status.success(), "{err}");
    // 1 + 4 + 9, then main.
    assert_eq!(out, "total 14\nmain ran\n", "{err}");

    let start = std::time::Instant::now();
    let again = quasar_run(&[path.to_str().unwrap()]);
    let elapsed = start.elapsed();
    let err = text(&again.stderr);
    assert!(again.status.success(), "{err}");
    assert_eq!(text(&again.stdout), "total 14\nmain ran\n");
    // No compilation and no cargo: nothing on stderr.
    assert!(!err.contains("building") && !err.contains("Compiling"), "{err}");
    assert!(err.is_empty(), "{err}");
    assert!(elapsed.as_secs() < 10, "{elapsed:?}");
}

#[test]
fn main_takes_the_command_line_arguments() {
    // A declared scalar, an untyped parameter (a string here, a scalar below: each build
    // is cached), a default value and a variadic rest (manual §13.1).
    let src = "function [] = main(a : scalar, label, b : scalar = 0.5, ...rest)\n    \
               print label, \" \", a * 2 + b, \" \", numel(rest)\nendfunction\n";
    let path = program("args.q", src);
    let path = path.to_str().unwrap();
    let out = quasar_run(&[path, "3", "width"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "width 6.5 0\n");
    let out = quasar_run(&[path, "-1", "7", "2", "10", "20"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "7 0 2\n");
    // A declared scalar given a word: an error naming the argument, nothing run.
    let out = quasar_run(&[path, "three", "x"]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.contains("argument 1 (`a`) of `main` is a number"), "{err}");
    assert!(out.stdout.is_empty());
}

#[test]
fn a_program_with_errors_prints_the_check_diagnostics_and_is_not_run() {
    let path = program("errors.q", "print 1\ny = undefined_thing + 1\n");
    let out = quasar_run(&[path.to_str().unwrap()]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("errors.q:2:5"), "{err}");
    assert!(err.contains("undefined name `undefined_thing`"), "{err}");
    assert!(err.contains("it was not run") && !err.contains("building"), "{err}");
    assert!(out.stdout.is_empty());
    // The same diagnostic as `quasar check`.
    let check = Command::new(env!("CARGO_BIN_EXE_quasar")).arg("check").arg(&path).output();
    let check = text(&check.unwrap().stderr);
    let first = |s: &str| s.lines().take(5).collect::<Vec<_>>().join("\n");
    assert_eq!(first(&err), first(&check));
    // Arguments that `main` cannot take are reported the same way.
    let path = program("noargs.q", "function [] = main()\n    print 1\nendfunction\n");
    let out = quasar_run(&[path.to_str().unwrap(), "5"]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("cannot be called with the 1 argument(s)"), "{err}");
}
