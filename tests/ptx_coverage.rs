//! Which of the project's kernels have run on the PTX interpreter.
//!
//! Lists every `.entry` that the project's own Quasar sources emit (the `.q` files of the
//! examples, tests, shipped modules and compiler tests, and the inline `quasar!` blocks of the
//! tests and examples, compiled as `quasar!` compiles them, debug PTX) and checks that
//! each module loads on the interpreter (`quasar-ptx-sim` accepts exactly the subset the back
//! end emits).
//!
//! With `QUASAR_PTX_LOG=FILE`, the file the simulated GPU's PTX mode appends each launched
//! entry to (`.ci/run` sets it for the tests it runs under `QUASAR_SIM_GPU=ptx`), the test also
//! matches the entries with the launches (by the fingerprint of the entry's PTX text), prints
//! the count covered and fails for any entry that never ran, except those listed in
//! [`NOT_LAUNCHED`] with the reason. Run with `--nocapture` for the table.

use quasar_core::driver::{self, BackEnd};
use quasar_ptx_sim::coverage::fingerprint;
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

/// Entries no test launches on the interpreter, by `(file, entry, why)`: none today. An entry
/// that cannot be launched yet goes here with the reason, so that the gap stays visible.
const NOT_LAUNCHED: &[(&str, &str, &str)] = &[];

/// One emitted entry.
struct Emitted {
    file: String,
    entry: String,
    fingerprint: u64,
}

/// The Quasar sources: `(name, text, path for imports, double)`.
fn sources() -> Vec<(String, String, PathBuf, bool)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    let dirs = [
        "examples",
        "tests",
        "tests/common",
        "tests/common/imports",
        "quasar-core/modules",
        "quasar-core/tests/ptx_kernels",
        "quasar-core/tests/types_ok",
    ];
    for dir in dirs {
        let Ok(entries) = std::fs::read_dir(root.join(dir)) else { continue };
        let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
        paths.sort();
        for p in paths {
            let Ok(text) = std::fs::read_to_string(&p) else { continue };
            let name = p.strip_prefix(root).unwrap_or(&p).display().to_string();
            match p.extension().and_then(|x| x.to_str()) {
                Some("q") => out.push((name, text, p.clone(), false)),
                Some("rs") => {
                    for (k, (block, double)) in inline_blocks(&text).into_iter().enumerate() {
                        out.push((format!("{name} block {k}"), block, p.clone(), double));
                    }
                }
                _ => {}
            }
        }
    }
    out
}

/// The Quasar source of each inline `quasar!` block (a raw string, after `double = true,`
/// when given), with its `double`.
fn inline_blocks(text: &str) -> Vec<(String, bool)> {
    // Spelled in two pieces so that tests/ptxas.rs does not take this file for a block.
    const OPEN: &str = concat!("quasar!", " {");
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find(OPEN) {
        rest = &rest[at..];
        let Some(open) = rest.find("r#\"") else { break };
        let double = rest[..open].contains("double = true");
        let body = &rest[open + 3..];
        let Some(close) = body.find("\"#") else { break };
        out.push((body[..close].to_string(), double));
        rest = &body[close..];
    }
    out
}

/// Every entry of every source, and the sources whose PTX the interpreter does not load.
fn emitted() -> (Vec<Emitted>, Vec<String>) {
    let mut out = Vec::new();
    let mut failures = Vec::new();
    for (name, text, path, double) in sources() {
        let mut opts = driver::Options::new(name.clone(), text, path);
        opts.double = double;
        opts.back_ends = vec![BackEnd::Ptx];
        let (art, _) = driver::compile(&opts);
        // Programs that do not compile (UI tests' blocks, error examples) emit nothing.
        let failed = art.has_errors();
        let Some(builds) = art.ptx.filter(|_| !failed) else { continue };
        let ptx = &builds.debug;
        if ptx.kernels.is_empty() {
            continue;
        }
        if let Err(e) = quasar_ptx_sim::Module::parse(&ptx.text) {
            failures.push(format!("{name}: its PTX does not load on the interpreter: {e}"));
        }
        for k in &ptx.kernels {
            let fingerprint = fingerprint(&ptx.text, &k.entry).expect("an emitted entry");
            out.push(Emitted { file: name.clone(), entry: k.entry.clone(), fingerprint });
        }
    }
    (out, failures)
}

#[test]
fn every_emitted_entry_loads_and_ran_on_the_interpreter() {
    let (entries, failures) = emitted();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(entries.len() > 50, "only {} entries found", entries.len());
    let distinct: HashSet<u64> = entries.iter().map(|e| e.fingerprint).collect();
    println!(
        "{} entries ({} distinct) emitted by the project's sources",
        entries.len(),
        distinct.len()
    );
    let Some(log) = std::env::var_os("QUASAR_PTX_LOG").filter(|l| !l.is_empty()) else {
        for e in &entries {
            println!("{:016x}  {}: {}", e.fingerprint, e.file, e.entry);
        }
        println!("(set QUASAR_PTX_LOG to the launch log of the interpreted runs to match them)");
        return;
    };
    let text = std::fs::read_to_string(&log)
        .unwrap_or_else(|e| panic!("QUASAR_PTX_LOG={}: {e}", Path::new(&log).display()));
    let mut launches: BTreeMap<u64, usize> = BTreeMap::new();
    for line in text.lines() {
        let fp = line.split('\t').next().and_then(|h| u64::from_str_radix(h, 16).ok());
        *launches.entry(fp.expect("a log line starts with a fingerprint")).or_default() += 1;
    }
    let mut missing = Vec::new();
    let mut covered = HashSet::new();
    for e in &entries {
        let n = launches.get(&e.fingerprint).copied().unwrap_or(0);
        let excused = NOT_LAUNCHED.iter().find(|(f, k, _)| *f == e.file && *k == e.entry);
        match (n, excused) {
            (0, Some((_, _, why))) => {
                println!("     -  {}: {} (not launched: {why})", e.file, e.entry)
            }
            (0, None) => missing.push(format!("{}: {}", e.file, e.entry)),
            _ => {
                covered.insert(e.fingerprint);
                println!("{n:6}  {}: {}", e.file, e.entry);
            }
        }
    }
    let covered_entries = entries.iter().filter(|e| covered.contains(&e.fingerprint)).count();
    println!(
        "covered on the interpreter: {covered_entries} of {} entries ({} of {} distinct), {} \
         launches logged",
        entries.len(),
        covered.len(),
        distinct.len(),
        launches.values().sum::<usize>()
    );
    assert!(
        missing.is_empty(),
        "entries that never ran on the interpreter:\n{}",
        missing.join("\n")
    );
}
