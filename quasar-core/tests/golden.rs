//! Golden tests of the compiler's layers: for each `tests/golden/NAME.q`, the IR after every
//! stage of the driver (`NAME.ir`, one section per stage: type checking, prune, each pass),
//! the Rust items (`NAME.rs`, pretty-printed) and the PTX (`NAME.ptx`, what `quasar!` embeds
//! in release builds). A difference fails with both texts; `UPDATE_GOLDEN=1 cargo test -p
//! quasar-core --test golden` rewrites the files after a deliberate change (review the diff).

use quasar_core::driver::{self, BackEnd, Options};
use std::path::{Path, PathBuf};

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

/// The three texts of one program.
fn outputs(path: &Path) -> Vec<(&'static str, String)> {
    let src = std::fs::read_to_string(path).expect("the program");
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("golden.q").to_string();
    let opts = Options {
        back_ends: vec![BackEnd::Ptx, BackEnd::Rust],
        dump_ir_after: driver::stage_names().iter().map(|s| s.to_string()).collect(),
        ..Options::new(name, src, path)
    };
    let (art, loader) = driver::compile(&opts);
    assert!(!art.has_errors(), "{}", loader.map.render(&art.diagnostics));
    let mut ir = String::new();
    for (stage, text) in &art.ir_dumps {
        ir.push_str(&format!("=== after {stage} ===\n{text}"));
    }
    let file: syn::File = syn::parse2(art.rust.expect("Rust items")).expect("the Rust parses");
    let rust = prettyplease::unparse(&file);
    let ptx = art.ptx.expect("PTX").release.text;
    vec![("ir", ir), ("rs", rust), ("ptx", ptx)]
}

#[test]
fn golden_outputs() {
    let update = std::env::var("UPDATE_GOLDEN").is_ok_and(|v| v == "1");
    let mut programs: Vec<PathBuf> = std::fs::read_dir(golden_dir())
        .expect("tests/golden")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "q"))
        .collect();
    programs.sort();
    assert!(programs.len() >= 3);
    let mut failures = Vec::new();
    for q in &programs {
        for (ext, got) in outputs(q) {
            let file = q.with_extension(ext);
            if update {
                std::fs::write(&file, &got).expect("write the golden file");
                continue;
            }
            let want = std::fs::read_to_string(&file).unwrap_or_default();
            if want != got {
                let first = want.lines().zip(got.lines()).position(|(a, b)| a != b);
                failures.push(format!(
                    "{} differs (first at line {}; UPDATE_GOLDEN=1 rewrites it):\n{got}",
                    file.display(),
                    first.map_or(want.lines().count().min(got.lines().count()) + 1, |l| l + 1)
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
