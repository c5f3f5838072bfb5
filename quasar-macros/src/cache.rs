//! A disk cache of the macro's output, so that a crate whose Quasar source has not changed
//! does not compile it again when rustc re-expands `quasar!` (after an edit to the crate's
//! Rust code, or in a second profile). Proc macros are built without optimisation, so the
//! compiler costs about a tenth of a second per kernel there.
//!
//! An entry is keyed by everything the output depends on: the compiler's build
//! ([`quasar_core::BUILD_ID`], new whenever quasar-core's sources change), the source and its
//! name and path, the options and the import search path. It lists the imported files with a
//! hash of their contents, checked on every hit. Only successful compilations are kept (a
//! failure's diagnostics carry spans), and the output is plain tokens at `call_site`, so
//! re-parsing its text gives the same code. Every I/O failure means "no cache", never an error.
//!
//! The directory is `quasar-macro-cache` in the Cargo target directory (`CARGO_TARGET_DIR`
//! when it is absolute, else the first `target` with Cargo's `CACHEDIR.TAG` above the crate);
//! `QUASAR_MACRO_CACHE` names another directory, or turns the cache off with `0`.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// Entries kept; older ones are removed when a write finds more than this.
const MAX_ENTRIES: usize = 256;

/// The first line of an entry, so that a file of another format is never read as one.
const MAGIC: &str = "// quasar-macro-cache 1";

/// A 128-bit key (two independent 64-bit hashes) of `parts`, in hex.
pub fn key(parts: &[&[u8]]) -> String {
    let mut halves = [0u64; 2];
    for (seed, half) in halves.iter_mut().enumerate() {
        let mut h = DefaultHasher::new();
        seed.hash(&mut h);
        for part in parts {
            part.hash(&mut h);
        }
        *half = h.finish();
    }
    format!("{:016x}{:016x}", halves[0], halves[1])
}

/// The hash of a file's contents, `None` when it cannot be read.
fn file_hash(path: &Path) -> Option<String> {
    std::fs::read(path).ok().map(|bytes| key(&[&bytes]))
}

/// The cache directory, `None` when there is none (or it is turned off).
pub fn directory(manifest_dir: &Path) -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("QUASAR_MACRO_CACHE") {
        return (dir != "0" && !dir.is_empty()).then(|| PathBuf::from(dir));
    }
    let target = match std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from) {
        Some(dir) if dir.is_absolute() => dir,
        _ => manifest_dir
            .ancestors()
            .map(|a| a.join("target"))
            .find(|t| t.join("CACHEDIR.TAG").is_file())?,
    };
    Some(target.join("quasar-macro-cache"))
}

/// The cached output for `key` and the imported files it tracks, if there is an entry and
/// every imported file still has the contents it had.
pub fn lookup(dir: &Path, key: &str) -> Option<(String, Vec<PathBuf>)> {
    let text = std::fs::read_to_string(dir.join(format!("{key}.rs"))).ok()?;
    let (header, output) = text.split_once("\n// end of imports\n")?;
    let mut lines = header.lines();
    if lines.next()? != MAGIC {
        return None;
    }
    let mut imported = Vec::new();
    for line in lines {
        let (hash, path) = line.strip_prefix("// ")?.split_once(' ')?;
        let path = PathBuf::from(path);
        if file_hash(&path)? != hash {
            return None;
        }
        imported.push(path);
    }
    Some((output.to_string(), imported))
}

/// Stores `output` under `key` (written to a temporary file and renamed, so that a reader
/// never sees half an entry), then trims the directory to [`MAX_ENTRIES`].
pub fn store(dir: &Path, key: &str, output: &str, imported: &[PathBuf]) {
    let mut text = format!("{MAGIC}\n");
    for path in imported {
        let (Some(hash), Some(p)) = (file_hash(path), path.to_str()) else {
            return; // an import that cannot be read back or named: not cacheable
        };
        if p.contains('\n') {
            return;
        }
        text.push_str(&format!("// {hash} {p}\n"));
    }
    text.push_str("// end of imports\n");
    text.push_str(output);
    if std::fs::create_dir_all(dir).is_err() {
        return;
    }
    let temp = dir.join(format!("{key}.{}.tmp", std::process::id()));
    if std::fs::write(&temp, text).is_ok()
        && std::fs::rename(&temp, dir.join(format!("{key}.rs"))).is_ok()
    {
        trim(dir);
    } else {
        let _ = std::fs::remove_file(&temp);
    }
}

/// Removes the least recently written entries beyond [`MAX_ENTRIES`].
fn trim(dir: &Path) {
    let Ok(read) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<(SystemTime, PathBuf)> = read
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "rs"))
        .filter_map(|p| Some((p.metadata().ok()?.modified().ok()?, p)))
        .collect();
    if entries.len() <= MAX_ENTRIES {
        return;
    }
    entries.sort();
    let excess = entries.len() - MAX_ENTRIES;
    for (_, path) in entries.into_iter().take(excess) {
        let _ = std::fs::remove_file(path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("quasar-cache-test-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn keys_differ_with_any_part_and_with_how_the_parts_are_split() {
        let a = key(&[b"ab", b"c"]);
        assert_eq!(a, key(&[b"ab", b"c"]));
        assert_ne!(a, key(&[b"a", b"bc"]));
        assert_ne!(a, key(&[b"ab", b"d"]));
        assert_eq!(a.len(), 32);
    }

    #[test]
    fn an_entry_is_found_until_an_imported_file_changes() {
        let dir = temp_dir("imports");
        let import = dir.join("lib.q");
        std::fs::write(&import, "function y = f(x)\n y = x\nendfunction\n").unwrap();
        store(&dir, "k", "pub fn f() {}", std::slice::from_ref(&import));
        let (output, imported) = lookup(&dir, "k").expect("a hit");
        assert_eq!(output, "pub fn f() {}");
        assert_eq!(imported, vec![import.clone()]);
        assert!(lookup(&dir, "other").is_none());
        std::fs::write(&import, "function y = f(x)\n y = 2*x\nendfunction\n").unwrap();
        assert!(lookup(&dir, "k").is_none(), "a changed import invalidates the entry");
        std::fs::remove_file(&import).unwrap();
        assert!(lookup(&dir, "k").is_none(), "so does a removed one");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_file_without_the_header_is_not_an_entry() {
        let dir = temp_dir("magic");
        std::fs::write(dir.join("k.rs"), "// end of imports\npub fn f() {}").unwrap();
        assert!(lookup(&dir, "k").is_none());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_directory_keeps_at_most_max_entries() {
        let dir = temp_dir("trim");
        for i in 0..MAX_ENTRIES + 5 {
            store(&dir, &format!("k{i}"), "x", &[]);
        }
        let n = std::fs::read_dir(&dir).unwrap().count();
        assert_eq!(n, MAX_ENTRIES);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
