//! Loading the files a program imports (`import "helpers.q"`), for the command line and the
//! `quasar!` macro: each file is read and parsed once per loader, imports are resolved relative
//! to the directory of the importing file, cycles are harmless, and the manual's standard
//! modules that this version does not ship give a warning rather than an error.

use crate::sema::check::{check_program_with_imports, Checked};
use crate::syntax::ast::{Program, Stmt, StmtKind};
use crate::syntax::encoding::Decoded;
use crate::{syntax, Diagnostic, SourceMap, Span};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Standard modules of the manual that this version does not ship (the shipped ones are in
/// `std_modules`).
const STANDARD_MODULES: &[&str] = &["immedfilt.q"];

/// An imported file, parsed once per run.
pub struct Loaded {
    /// The file's path as read.
    pub path: PathBuf,
    /// Its id in [`Loader::map`] (the file of its spans).
    pub file: crate::FileId,
    pub program: Program,
    pub has_errors: bool,
    /// A standard module shipped with the compiler (`std_modules`), not a file: nothing to
    /// track for rebuilds.
    pub shipped: bool,
}

/// The directory name that keys shipped standard modules (never a real path).
const SHIPPED: &str = "<quasar standard modules>";

/// What one `import` path (as written) provides to the type checker of one program.
pub struct Import {
    pub written: String,
    /// The file, an index in [`Loader::files`]; `None` when it provides nothing: a missing
    /// file, an unavailable standard module, or a file already provided under another name.
    pub file: Option<usize>,
}

/// Reads and parses imported files, each once per run, into one [`SourceMap`].
#[derive(Default)]
pub struct Loader {
    /// Every file read, for rendering diagnostics (the caller adds the main file too).
    pub map: SourceMap,
    pub files: Vec<Loaded>,
    /// Canonical path → index in `files`.
    by_path: HashMap<PathBuf, usize>,
}

impl Loader {
    /// Loads the imports of `program` (the file at `path`, parsed without errors) and
    /// type-checks it with them. Returns the checked program (`None` when an imported file has
    /// syntax errors) and the diagnostics of loading.
    pub fn check(&mut self, path: &Path, program: &Program) -> (Option<Checked>, Vec<Diagnostic>) {
        let (imports, diagnostics) = self.load_imports(path, program);
        if imports.iter().any(|i| i.file.is_some_and(|index| self.files[index].has_errors)) {
            return (None, diagnostics);
        }
        // What stands for an import that provides nothing (so the checker does not report it
        // again as not loaded).
        let empty = Program { body: Vec::new(), style: Default::default(), span: program.span };
        let programs: Vec<(&str, &Program)> = imports
            .iter()
            .map(|i| {
                let program = i.file.map_or(&empty, |index| &self.files[index].program);
                (i.written.as_str(), program)
            })
            .collect();
        (Some(check_program_with_imports(program, &programs)), diagnostics)
    }

    /// Loads the files `program` imports and, transitively, the files they import (each once,
    /// also through import cycles). Returns what to pass to the checker, one entry per
    /// distinct path as written, and the diagnostics of loading: syntax errors of imported
    /// files (the first time a file is loaded), missing files, unavailable standard modules.
    pub fn load_imports(
        &mut self,
        path: &Path,
        program: &Program,
    ) -> (Vec<Import>, Vec<Diagnostic>) {
        let mut diagnostics = Vec::new();
        let mut imports: Vec<Import> = Vec::new();
        let mut written_seen: Vec<String> = Vec::new();
        let mut included: Vec<usize> = Vec::new();
        let main = canonical(path);
        // Breadth first, so that the main file's own imports are recorded under the names it
        // writes.
        let mut queue: std::collections::VecDeque<(PathBuf, Vec<(String, Span)>)> =
            std::collections::VecDeque::new();
        queue.push_back((directory(path), import_statements(&program.body)));
        while let Some((dir, statements)) = queue.pop_front() {
            for (written, span) in statements {
                let target = dir.join(&written);
                let key = canonical(&target);
                let first_mention = !written_seen.contains(&written);
                if first_mention {
                    written_seen.push(written.clone());
                }
                if key == main {
                    continue; // an import cycle back to the checked file
                }
                // A standard module that is not a file next to the importer: the copy
                // shipped with the compiler (`std_modules`).
                let shipped = crate::std_modules::source(&written)
                    .filter(|_| Path::new(&written).components().count() == 1 && !target.exists());
                let key =
                    if shipped.is_some() { PathBuf::from(SHIPPED).join(&written) } else { key };
                let index = match self.by_path.get(&key) {
                    Some(&index) => Some(index),
                    None if shipped.is_some() => {
                        let text = shipped.unwrap_or_default().to_string();
                        let file = self.map.add(written.clone(), text);
                        let parsed = syntax::parse(self.map.source(file), file);
                        diagnostics.extend(parsed.diagnostics.iter().cloned());
                        let index = self.files.len();
                        self.files.push(Loaded {
                            path: key.clone(),
                            file,
                            has_errors: parsed.has_errors(),
                            program: parsed.program,
                            shipped: true,
                        });
                        self.by_path.insert(key, index);
                        Some(index)
                    }
                    None => match read_source(&target) {
                        Ok(source) => {
                            let file =
                                self.map.add(target.display().to_string(), source.text.clone());
                            diagnostics.extend(source.warning(file));
                            let parsed = syntax::parse(self.map.source(file), file);
                            diagnostics.extend(parsed.diagnostics.iter().cloned());
                            let index = self.files.len();
                            self.files.push(Loaded {
                                path: target.clone(),
                                file,
                                has_errors: parsed.has_errors(),
                                program: parsed.program,
                                shipped: false,
                            });
                            self.by_path.insert(key, index);
                            Some(index)
                        }
                        Err(e) => {
                            diagnostics.push(missing_import(&written, &target, span, &e));
                            None
                        }
                    },
                };
                match index {
                    Some(index) if !included.contains(&index) => {
                        included.push(index);
                        imports.push(Import { written, file: Some(index) });
                        queue.push_back((
                            directory(&target),
                            import_statements(&self.files[index].program.body),
                        ));
                    }
                    // A file already included under another name, or one that cannot be read:
                    // the checker only needs to know that the import was dealt with.
                    _ if first_mention => imports.push(Import { written, file: None }),
                    _ => {}
                }
            }
        }
        (imports, diagnostics)
    }
}

/// Reads a `.q` file: UTF-8, or Windows-1252 when it is not (see [`syntax::encoding`]; the
/// caller reports [`Decoded::warning`] once it has registered the file).
pub fn read_source(path: &Path) -> std::io::Result<Decoded> {
    std::fs::read(path).map(syntax::encoding::decode)
}

/// The diagnostic for an `import` whose file cannot be read: a warning for the manual's
/// standard modules and native libraries (not available in this version), an error otherwise.
fn missing_import(written: &str, target: &Path, span: Span, e: &std::io::Error) -> Diagnostic {
    let bare = Path::new(written).components().count() == 1;
    if bare && STANDARD_MODULES.contains(&written) {
        return Diagnostic::warning(
            span,
            format!("the standard module `{written}` is not available yet: its definitions are unknown here"),
        )
        .with_label(format!("`{}` does not exist either", target.display()));
    }
    if Path::new(written).extension().is_some_and(|x| x != "q") {
        return Diagnostic::warning(
            span,
            format!("importing the native library `{written}` is not supported: its definitions are unknown here"),
        );
    }
    let what = if e.kind() == std::io::ErrorKind::NotFound {
        format!("cannot find the imported file `{written}`")
    } else {
        format!("cannot read the imported file `{written}`: {e}")
    };
    Diagnostic::error(span, what)
        .with_label(format!("looked for `{}`", target.display()))
        .with_note(
            "imports are resolved relative to the directory of the file that contains the `import`",
        )
}

/// The directory of `path` (empty for a bare file name, i.e. the current directory).
fn directory(path: &Path) -> PathBuf {
    path.parent().map(Path::to_path_buf).unwrap_or_default()
}

/// `path` made absolute with symbolic links resolved, or as given when it does not exist.
fn canonical(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// The `import` statements anywhere in `body` (also inside blocks and function bodies), with
/// their spans, in source order.
fn import_statements(body: &[Stmt]) -> Vec<(String, Span)> {
    fn walk(body: &[Stmt], out: &mut Vec<(String, Span)>) {
        for stmt in body {
            match &stmt.kind {
                StmtKind::Import { path } => out.push((path.clone(), stmt.span)),
                StmtKind::Function(def) => walk(&def.body, out),
                StmtKind::If { branches, else_body } => {
                    for (_, b) in branches {
                        walk(b, out);
                    }
                    if let Some(b) = else_body {
                        walk(b, out);
                    }
                }
                StmtKind::For { body, .. }
                | StmtKind::While { body, .. }
                | StmtKind::Repeat { body, .. } => walk(body, out),
                StmtKind::Match { arms, .. } => {
                    for arm in arms {
                        walk(&arm.body, out);
                    }
                }
                StmtKind::Try { body, catch_body, .. } => {
                    walk(body, out);
                    walk(catch_body, out);
                }
                _ => {}
            }
        }
    }
    let mut out = Vec::new();
    walk(body, &mut out);
    out
}
