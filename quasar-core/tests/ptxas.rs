//! Every kernel of the test suite and the examples, compiled to PTX and assembled by NVIDIA's
//! `ptxas` for sm_80 and sm_90: any `ptxas` error fails the test.
//!
//! The manual's code snippets are checked too when `shared/tools/manual-snippets.py` is there.
//!
//! `ptxas` is `$QUASAR_PTXAS`, else `ptxas` on the `PATH`; without one the test passes with a
//! message, unless `CI` is set (CI must always check: `.ci/run` installs it with
//! `scripts/install-ptxas.sh`).

mod common;

use quasar_core::backend::ptx::{emit_module_with, PtxOptions, PtxOutput};
use quasar_core::driver;
use std::path::{Path, PathBuf};
use std::process::Command;

const ARCHS: [&str; 2] = ["sm_80", "sm_90"];

fn find_ptxas() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("QUASAR_PTXAS").filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|d| d.join("ptxas")).find(|p| p.is_file())
}

/// The `.q` files to check: the type-checker's good programs, the examples, the PTX kernels,
/// the workspace's test programs, and the inline `quasar!` blocks of the workspace's tests and
/// examples (written out as `.q` files).
fn sources() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    let mut rust = Vec::new();
    for dir in ["tests/types_ok", "../examples", "tests/ptx_kernels", "../tests", "../tests/common"]
    {
        let Ok(entries) = std::fs::read_dir(root.join(dir)) else { continue };
        for e in entries.flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "q") {
                files.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") && dir.starts_with("..") {
                rust.push(p);
            }
        }
    }
    rust.sort();
    let out = std::env::temp_dir().join(format!("quasar-ptxas-blocks-{}", std::process::id()));
    for p in rust {
        let Ok(text) = std::fs::read_to_string(&p) else { continue };
        let stem = p.file_stem().and_then(|s| s.to_str()).unwrap_or("block").to_string();
        for (k, block) in inline_blocks(&text).into_iter().enumerate() {
            std::fs::create_dir_all(&out).expect("temporary directory");
            let file = out.join(format!("{stem}.block{k}.q"));
            std::fs::write(&file, block).expect("write block");
            files.push(file);
        }
    }
    files.sort();
    files
}

/// The Quasar source of each `quasar! { r#"…"# }` block of a Rust file (UI tests, whose
/// programs are wrong on purpose, are not in the directories searched).
fn inline_blocks(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("quasar! {") {
        rest = &rest[at..];
        let Some(open) = rest.find("r#\"") else { break };
        let body = &rest[open + 3..];
        let Some(close) = body.find("\"#") else { break };
        out.push(body[..close].to_string());
        rest = &body[close..];
    }
    out
}

/// The PTX of a file (`None` when it does not type-check: many manual snippets are fragments;
/// the project's own files must type-check).
fn ptx_of(path: &Path, own: bool, double: bool) -> Option<PtxOutput> {
    let src = std::fs::read_to_string(path).ok()?;
    // Through the driver, as `quasar!` compiles it (passes and verifier included).
    let opts = driver::Options::new(path.display().to_string(), src, path);
    let (art, loader) = driver::compile(&driver::Options { double, ..opts });
    // With the file names, so that ptxas sees the `.file`/`.loc` directives too.
    let opts = PtxOptions { files: loader.map.names(), ..PtxOptions::default() };
    match art.module {
        Some(m) if !art.has_errors() => Some(emit_module_with(&m, &opts)),
        _ => {
            assert!(!own, "{} does not type-check", path.display());
            None
        }
    }
}

/// The PTX lines around those `ptxas` complains about (`…, line 12; error …`).
fn context_of(err: &str, ptx: &str) -> String {
    let lines: Vec<&str> = ptx.lines().collect();
    let mut out = String::new();
    for part in err.split(", line ").skip(1) {
        let Some(n) = part.split(';').next().and_then(|n| n.trim().parse::<usize>().ok()) else {
            continue;
        };
        out.push_str(&format!("--- PTX line {n} ---\n"));
        for (i, l) in lines.iter().enumerate().take(n + 1).skip(n.saturating_sub(4)) {
            out.push_str(&format!("{:5} {l}\n", i + 1));
        }
    }
    out
}

#[test]
fn ptxas_accepts_every_kernel() {
    let Some(ptxas) = find_ptxas() else {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI is set but no ptxas was found: set QUASAR_PTXAS (scripts/install-ptxas.sh)"
        );
        eprintln!("skipping: no ptxas (set QUASAR_PTXAS or put ptxas on the PATH)");
        return;
    };
    let dir = std::env::temp_dir().join(format!("quasar-ptxas-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temporary directory");
    let snippets = common::manual_snippets("ptxas");
    let mut files = sources();
    if let Some((_, snips)) = &snippets {
        files.extend(snips.iter().cloned());
    }
    let mut failures = Vec::new();
    let mut kernels = 0;
    let mut skipped = 0;
    let mut ptx_kernel_files = 0;
    let own = sources().len();
    let mut double_kernels = 0;
    for (n, path) in files.into_iter().enumerate() {
        let in_ptx_dir = path.components().any(|c| c.as_os_str() == "ptx_kernels");
        // The kernels written for this test are assembled in double precision too.
        let modes: &[bool] = if in_ptx_dir { &[false, true] } else { &[false] };
        for &double in modes {
            let Some(out) = ptx_of(&path, n < own, double) else { continue };
            let mode = if double { " (double)" } else { "" };
            for d in &out.diagnostics {
                eprintln!("{}:{}{mode}: {}", path.display(), d.span.line, d.message);
            }
            if in_ptx_dir {
                ptx_kernel_files += usize::from(!double);
                // The kernels written for this test must all compile.
                if !out.diagnostics.is_empty() {
                    failures.push(format!("{}{mode}: kernels were skipped", path.display()));
                }
            } else {
                skipped += out.diagnostics.len();
            }
            if out.kernels.is_empty() {
                continue;
            }
            let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("kernel");
            let stem = if double { format!("{stem}.f64") } else { stem.to_string() };
            let file = dir.join(format!("{stem}.ptx"));
            std::fs::write(&file, &out.text).expect("write PTX");
            for arch in ARCHS {
                let result = Command::new(&ptxas)
                    .arg(format!("-arch={arch}"))
                    .arg(&file)
                    .arg("-o")
                    .arg(dir.join(format!("{stem}.{arch}.cubin")))
                    .output();
                match result {
                    Ok(o) if o.status.success() => {}
                    Ok(o) => {
                        let err = String::from_utf8_lossy(&o.stderr).into_owned();
                        let context = context_of(&err, &out.text);
                        failures
                            .push(format!("{}{mode} ({arch}):\n{err}{context}", path.display()));
                    }
                    Err(e) => panic!("cannot run {}: {e}", ptxas.display()),
                }
            }
            if double {
                double_kernels += out.kernels.len();
            } else {
                kernels += out.kernels.len();
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(failures.is_empty(), "ptxas rejected PTX:\n{}", failures.join("\n\n"));
    assert!(ptx_kernel_files > 0, "no files in tests/ptx_kernels");
    println!(
        "ptxas ({}) accepted {kernels} kernels (and {double_kernels} of tests/ptx_kernels in \
         double precision) for {}; {skipped} kernels were left to the CPU",
        ptxas.display(),
        ARCHS.join(" and ")
    );
}
