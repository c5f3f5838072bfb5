//! Where an `import "…"` is looked for. Real code imports by absolute Windows paths that do
//! not exist on another machine (`C:\Users\…\transfer_functions.q`); the original found a
//! module by name next to the program and on its library path too. In order:
//!
//! 1. the path as written, relative to the importing file's directory (absolute paths as they
//!    are; `\` separates directories as well as `/`);
//! 2. the file name alone, next to the importing file;
//! 3. the path as written, then the file name, in each directory of `QUASAR_PATH` (separated
//!    like `PATH`: `:` on Unix, `;` on Windows).

use std::path::{Path, PathBuf};

/// The environment variable with the library search path.
pub const SEARCH_PATH_VAR: &str = "QUASAR_PATH";

/// `written` with `\` as a directory separator too (Quasar code from Windows).
fn normalized(written: &str) -> PathBuf {
    if cfg!(windows) {
        PathBuf::from(written)
    } else {
        PathBuf::from(written.replace('\\', "/"))
    }
}

/// Whether `written` names a path from the root of a file system (`/x`, `C:\x`, `\\host\x`).
fn is_absolute(written: &str) -> bool {
    let b = written.as_bytes();
    written.starts_with(['/', '\\']) || (b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':')
}

/// The last component of `written` (the file name), with either separator.
pub fn file_name(written: &str) -> &str {
    written.rsplit(['/', '\\']).next().unwrap_or(written)
}

/// The places to look for `written`, imported from a file in `dir`, in order (see the
/// module documentation); `search_path` is the value of `QUASAR_PATH`, if set.
pub fn candidates(
    written: &str,
    dir: &Path,
    search_path: Option<&std::ffi::OsStr>,
) -> Vec<PathBuf> {
    let as_written = normalized(written);
    let name = PathBuf::from(file_name(written));
    let mut out = Vec::new();
    if is_absolute(written) {
        out.push(as_written.clone());
    } else {
        out.push(dir.join(&as_written));
    }
    if name != as_written {
        out.push(dir.join(&name));
    }
    if let Some(path) = search_path {
        for d in std::env::split_paths(path).filter(|d| !d.as_os_str().is_empty()) {
            if !is_absolute(written) {
                out.push(d.join(&as_written));
            }
            if name != as_written || is_absolute(written) {
                out.push(d.join(&name));
            }
        }
    }
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_paths_fall_back_to_the_file_name() {
        let c = candidates(r"C:\Users\me\lib\transfer.q", Path::new("/prj"), None);
        assert_eq!(c.last(), Some(&PathBuf::from("/prj/transfer.q")));
        assert_eq!(file_name(r"D:\a\b.q"), "b.q");
        assert_eq!(file_name("sub/c.q"), "c.q");
    }

    #[test]
    fn relative_paths_then_the_search_path() {
        let sp = std::env::join_paths(["/lib/a", "/lib/b"]).unwrap();
        let c = candidates(r"sub\x.q", Path::new("/prj"), Some(&sp));
        let want: Vec<PathBuf> = if cfg!(windows) {
            vec![]
        } else {
            [
                "/prj/sub/x.q",
                "/prj/x.q",
                "/lib/a/sub/x.q",
                "/lib/a/x.q",
                "/lib/b/sub/x.q",
                "/lib/b/x.q",
            ]
            .iter()
            .map(PathBuf::from)
            .collect()
        };
        if !cfg!(windows) {
            assert_eq!(c, want);
        }
        let c = candidates("x.q", Path::new("/prj"), Some(&sp));
        assert_eq!(c.len(), 3, "{c:?}");
    }
}
