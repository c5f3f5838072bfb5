//! `quasar check` is a pre-flight check for `quasar!`: over every `.q` file of the
//! repository's tests and examples, the binary's verdict (exit code 0 or 1) is the verdict of
//! the compilation the macro runs (the driver with the macro's options: both back ends).

use quasar_core::driver::{self, BackEnd, Options};
use std::path::{Path, PathBuf};
use std::process::Command;

fn q_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            q_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "q") {
            out.push(path);
        }
    }
}

/// Whether `quasar!(file = …)` compiles the file: the driver as the macro calls it.
fn macro_accepts(root: &Path, path: &Path) -> bool {
    let source = quasar_core::load::read_source(path).expect("readable .q file").text;
    let name = path.strip_prefix(root).unwrap_or(path).display().to_string();
    let opts = Options {
        back_ends: vec![BackEnd::Ptx, BackEnd::Rust],
        ..Options::new(name, source, path)
    };
    let (art, _) = driver::compile(&opts);
    art.failed.is_none() && art.rust.is_some()
}

#[test]
fn check_accepts_exactly_what_the_macro_compiles() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    for dir in ["tests", "examples", "quasar-core/tests"] {
        q_files(&root.join(dir), &mut files);
    }
    files.sort();
    assert!(files.len() >= 20, "found only {} .q files", files.len());
    let mut disagree = Vec::new();
    let mut accepted = 0;
    for path in &files {
        let out = Command::new(env!("CARGO_BIN_EXE_quasar"))
            .arg("check")
            .arg(path)
            .output()
            .expect("the quasar binary runs");
        let check = match out.status.code() {
            Some(0) => true,
            Some(1) => false,
            other => panic!("{}: exit code {other:?}", path.display()),
        };
        let macro_ok = macro_accepts(&root, path);
        accepted += usize::from(check);
        if check != macro_ok {
            disagree.push(format!(
                "{}: check {}, quasar! {}\n{}",
                path.display(),
                if check { "accepts" } else { "rejects" },
                if macro_ok { "accepts" } else { "rejects" },
                String::from_utf8_lossy(&out.stderr)
            ));
        }
    }
    assert!(disagree.is_empty(), "verdicts differ:\n{}", disagree.join("\n"));
    // Both verdicts occur, so the comparison means something.
    assert!(accepted > 0 && accepted < files.len(), "{accepted} of {} accepted", files.len());
}
