//! Import resolution on real files: Windows paths, `QUASAR_PATH`, library modules, native
//! libraries.

use super::Loader;
use crate::span::FileId;
use crate::syntax;
use std::path::Path;

/// Writes `files` into a new directory.
fn dir_with(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary directory");
    for (name, text) in files {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("directories");
        std::fs::write(path, text).expect("a file");
    }
    dir
}

/// `line:col: message` of every diagnostic of loading and checking `main` (in `dir`); the
/// search path is passed explicitly (tests run in parallel, so no environment variable).
fn check(dir: &Path, main: &str) -> Vec<String> {
    let path = dir.join(main);
    let source = std::fs::read_to_string(&path).expect("the main file");
    let mut loader = Loader::default();
    let file = loader.map.add(path.display().to_string(), source);
    assert_eq!(file, FileId(0));
    let parsed = syntax::parse(loader.map.source(file), file);
    assert!(!parsed.has_errors(), "{:?}", parsed.diagnostics);
    let (checked, mut diags) = loader.check(&path, &parsed.program);
    diags.extend(checked.map(|c| c.diagnostics).unwrap_or_default());
    diags
        .iter()
        .map(|d| {
            let sev = if d.is_error() { "error" } else { "warning" };
            format!("{}:{}: {sev}: {}", d.span.line, d.span.col, d.message)
        })
        .collect()
}

#[test]
fn an_absolute_windows_path_falls_back_to_the_file_name_next_to_the_importer() {
    let dir = dir_with(&[
        ("main.q", "import \"C:\\Users\\someone\\lib\\helpers.q\"\ny = twice(2.0)\n"),
        ("helpers.q", "function y = twice(x)\n    y = 2 * x\nendfunction\n"),
    ]);
    assert_eq!(check(dir.path(), "main.q"), Vec::<String>::new());
}

#[test]
fn a_missing_import_lists_where_it_was_looked_for() {
    let dir = dir_with(&[("main.q", "import \"D:\\x\\nowhere.q\"\n")]);
    let out = check(dir.path(), "main.q");
    assert_eq!(out, ["1:1: error: cannot find the imported file `D:\\x\\nowhere.q`"]);
}

#[test]
fn library_modules_not_shipped_warn_and_their_functions_are_named_at_the_call() {
    // `imresize.q` ships (its `imresize` is found); `imunshipped.q` (the unit tests' entry of
    // `NOT_SHIPPED`) does not; `imerode` is in a shipped module this program does not import.
    let src = "import \"imunshipped.q\"\nimport \"imresize.q\"\nx = ones(4, 4)\ny = unshipped_filter(x)\n\
               z = unknown_fn(x)\nw = imerode(x)\nv = imresize(x, 0.5)\n";
    let dir = dir_with(&[("main.q", src)]);
    let out = check(dir.path(), "main.q");
    assert_eq!(
        out,
        [
            "1:1: warning: the library module `imunshipped.q` is not shipped yet: its functions are unknown here",
            "4:5: error: `unshipped_filter` comes from the library module `imunshipped.q`, which is not shipped yet",
            "5:5: error: undefined function `unknown_fn`",
            "6:5: error: undefined function `imerode`",
        ]
    );
}

#[test]
fn a_native_library_is_a_warning_and_a_call_into_it_an_error_naming_it() {
    let src = "import \"Video.dll\"\nimport \"..\\bin\\Other.dll\"\nv = vidopen(\"a.mp4\")\n";
    let dir = dir_with(&[("main.q", src)]);
    assert_eq!(
        check(dir.path(), "main.q"),
        [
            "1:1: warning: `Video.dll` is a native library, which cannot be loaded here",
            "2:1: warning: `Other.dll` is a native library, which cannot be loaded here",
            "3:5: error: `vidopen` is not defined here: it would come from one of the native libraries `Video.dll`, `Other.dll`",
        ]
    );
}

#[test]
fn a_local_file_shadows_a_library_module_of_the_same_name() {
    let dir = dir_with(&[
        ("main.q", "import \"imresize.q\"\ny = imresize(1.0, 2.0)\n"),
        ("imresize.q", "function y = imresize(x, f)\n    y = x * f\nendfunction\n"),
    ]);
    assert_eq!(check(dir.path(), "main.q"), Vec::<String>::new());
}

#[test]
fn the_search_path_finds_modules_by_path_and_by_name() {
    let lib = dir_with(&[("sub/util.q", "function y = inc(x)\n    y = x + 1\nendfunction\n")]);
    let dir = dir_with(&[("main.q", "import \"sub/util.q\"\ny = inc(1)\n")]);
    let search = lib.path().as_os_str();
    let c = super::search::candidates("sub/util.q", dir.path(), Some(search));
    assert!(c.iter().any(|p| p.is_file()), "{c:?}");
    let c = super::search::candidates("C:\\elsewhere\\util.q", dir.path(), Some(search));
    assert!(!c.iter().any(|p| p.is_file()), "only sub/util.q exists: {c:?}");
}
