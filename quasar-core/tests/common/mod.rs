//! Shared by the tests that read the manual's code blocks.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{SystemTime, UNIX_EPOCH};

/// A temporary directory, removed when dropped (also when a test fails).
pub struct TempDir(pub PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The manual's snippets as `.q` files (sorted), extracted by
/// `shared/tools/manual-snippets.py` next to the workspace; `None`, with a message, when the
/// script or `python3` is not available, so the calling test can skip.
pub fn manual_snippets(purpose: &str) -> Option<(TempDir, Vec<PathBuf>)> {
    // `QUASAR_SNIPPETS_SCRIPT` names the script where the workspace is elsewhere (a worktree).
    let script =
        std::env::var_os("QUASAR_SNIPPETS_SCRIPT").map(PathBuf::from).unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/tools/manual-snippets.py")
        });
    if !script.exists() {
        eprintln!("skipping {purpose}: {} not found", script.display());
        return None;
    }
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
    let dir = TempDir(
        std::env::temp_dir()
            .join(format!("quasar-{purpose}-{}-{nanos}", std::process::id()).replace(' ', "-")),
    );
    let output = match Command::new("python3").arg(&script).arg(&dir.0).output() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("skipping {purpose}: cannot run python3: {e}");
            return None;
        }
    };
    assert!(
        output.status.success(),
        "{} failed: {}",
        script.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir.0)
        .expect("snippet directory")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "q"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no snippets were extracted");
    Some((dir, files))
}

/// The message of a caught panic (`String` or `&str` payloads; empty otherwise).
#[allow(dead_code)] // not every test that includes this module catches panics
pub fn panic_message(e: &(dyn std::any::Any + Send)) -> String {
    e.downcast_ref::<String>()
        .cloned()
        .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}
