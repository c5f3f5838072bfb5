//! Loading the files a program imports (`import "helpers.q"`), for the command line and the
//! `quasar!` macro: each file is read and parsed once per loader; an import is looked for next
//! to the importing file, by its file name, and on `QUASAR_PATH` ([`search`]); the original's
//! library modules resolve through [`std_modules`]; cycles are harmless. What cannot be
//! provided (a library module not shipped yet, a native `.dll`) is a warning at the import,
//! and the type checker names it at each call that would have needed it.

pub mod search;
pub mod std_modules;

use crate::sema::check::{check_program_main, Checked, Unavailable};
use crate::sema::types::Type;
use crate::syntax::ast::{Program, Stmt, StmtKind};
use crate::syntax::encoding::Decoded;
use crate::{syntax, Diagnostic, SourceMap, Span};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std_modules::{Library, NotShipped};

/// An imported file, parsed once per run.
pub struct Loaded {
    /// The file's path as read.
    pub path: PathBuf,
    /// Its id in [`Loader::map`] (the file of its spans).
    pub file: crate::FileId,
    /// The parsed file.
    pub program: Program,
    /// Parsing reported errors (the program holds what was recovered).
    pub has_errors: bool,
    /// A library module shipped with the compiler, not a file: nothing to track for rebuilds.
    pub shipped: bool,
}

/// What one `import` path (as written) provides to the type checker of one program.
pub struct Import {
    /// The path as written in the `import`.
    pub written: String,
    /// The file, an index in [`Loader::files`]; `None` when it provides nothing: a missing
    /// file, an unavailable library module or native library, or a file already provided
    /// under another name.
    pub file: Option<usize>,
    /// Why it provides nothing when that matters at the calls (a library module that is not
    /// shipped, a native library).
    pub unavailable: Option<Unavailable>,
}

/// Reads and parses imported files, each once per run, into one [`SourceMap`].
#[derive(Default)]
pub struct Loader {
    /// Every file read, for rendering diagnostics (the caller adds the main file too).
    pub map: SourceMap,
    /// Every file read, in reading order.
    pub files: Vec<Loaded>,
    /// Canonical path → index in `files`.
    by_path: HashMap<PathBuf, usize>,
}

impl Loader {
    /// Loads the imports of `program` (the file at `path`, parsed without errors) and
    /// type-checks it with them. Returns the checked program (`None` when an imported file has
    /// syntax errors) and the diagnostics of loading.
    pub fn check(&mut self, path: &Path, program: &Program) -> (Option<Checked>, Vec<Diagnostic>) {
        self.check_main(path, program, None)
    }

    /// [`check`](Self::check), with `main` instantiated for a command line with arguments of
    /// the types `main_args` ([`check_program_main`]).
    pub fn check_main(
        &mut self,
        path: &Path,
        program: &Program,
        main_args: Option<&[Type]>,
    ) -> (Option<Checked>, Vec<Diagnostic>) {
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
        let unavailable: Vec<Unavailable> =
            imports.iter().filter_map(|i| i.unavailable.clone()).collect();
        (Some(check_program_main(program, &programs, &unavailable, main_args)), diagnostics)
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
        let search_path = std::env::var_os(search::SEARCH_PATH_VAR);
        while let Some((dir, statements)) = queue.pop_front() {
            for (written, span) in statements {
                let first_mention = !written_seen.contains(&written);
                if first_mention {
                    written_seen.push(written.clone());
                }
                let found = match self.resolve(&written, &dir, search_path.as_deref()) {
                    Resolved::File(target) => {
                        let key = canonical(&target);
                        if key == main {
                            continue; // an import cycle back to the checked file
                        }
                        self.load_file(&target, key, &mut diagnostics)
                            .map(|index| (index, directory(&target)))
                            .map_err(|e| missing_file(&written, &dir, span, &e))
                    }
                    Resolved::Std(Library::Shipped(name, source)) => {
                        Ok((self.load_std(name, source, &mut diagnostics), dir.clone()))
                    }
                    Resolved::Std(Library::NotShipped(m)) => Err(unavailable_module(m, span)),
                    Resolved::Native => Err(native_library(&written, span)),
                    Resolved::NotFound(looked) => Err(not_found(&written, &looked, span)),
                };
                match found {
                    Ok((index, from)) if !included.contains(&index) => {
                        included.push(index);
                        imports.push(Import { written, file: Some(index), unavailable: None });
                        queue.push_back((from, import_statements(&self.files[index].program.body)));
                    }
                    // A file already included under another name: the checker only needs to
                    // know that the import was dealt with.
                    Ok(_) if first_mention => {
                        imports.push(Import { written, file: None, unavailable: None })
                    }
                    Ok(_) => {}
                    Err((d, unavailable)) => {
                        if first_mention {
                            diagnostics.push(d);
                            imports.push(Import { written, file: None, unavailable });
                        }
                    }
                }
            }
        }
        (imports, diagnostics)
    }
}

/// Where an import was found.
enum Resolved {
    File(PathBuf),
    /// A library module.
    Std(Library),
    Native,
    /// Not found; where it was looked for.
    NotFound(Vec<PathBuf>),
}

impl Loader {
    /// Finds `written`, imported from a file in `dir`: a file ([`search::candidates`]), else
    /// a library module of that name, else nothing. A native library is never read.
    fn resolve(
        &self,
        written: &str,
        dir: &Path,
        search_path: Option<&std::ffi::OsStr>,
    ) -> Resolved {
        let name = search::file_name(written);
        let ext = Path::new(name).extension().map(|e| e.to_ascii_lowercase());
        if ext.as_ref().is_some_and(|e| e == "dll" || e == "so" || e == "dylib") {
            return Resolved::Native;
        }
        let candidates = search::candidates(written, dir, search_path);
        if let Some(found) = candidates.iter().find(|c| c.is_file()) {
            return Resolved::File(found.clone());
        }
        match std_modules::lookup(name) {
            Some(library) => Resolved::Std(library),
            None => Resolved::NotFound(candidates),
        }
    }

    /// Reads and parses `target` (canonical `key`) once; its index in `files`.
    fn load_file(
        &mut self,
        target: &Path,
        key: PathBuf,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> std::io::Result<usize> {
        if let Some(&index) = self.by_path.get(&key) {
            return Ok(index);
        }
        let source = read_source(target)?;
        let file = self.map.add(target.display().to_string(), source.text.clone());
        diagnostics.extend(source.warning(file));
        Ok(self.add_parsed(target.to_path_buf(), key, file, diagnostics))
    }

    /// A shipped library module, parsed once (named as imported, keyed under a directory
    /// that is never a real path).
    fn load_std(
        &mut self,
        name: &'static str,
        source: &'static str,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> usize {
        let key = PathBuf::from(SHIPPED).join(name);
        if let Some(&index) = self.by_path.get(&key) {
            return index;
        }
        let file = self.map.add(name, source);
        let index = self.add_parsed(key.clone(), key, file, diagnostics);
        self.files[index].shipped = true;
        index
    }

    fn add_parsed(
        &mut self,
        path: PathBuf,
        key: PathBuf,
        file: crate::FileId,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> usize {
        let parsed = syntax::parse(self.map.source(file), file);
        diagnostics.extend(parsed.diagnostics.iter().cloned());
        let index = self.files.len();
        self.files.push(Loaded {
            path,
            file,
            has_errors: parsed.has_errors(),
            program: parsed.program,
            shipped: false,
        });
        self.by_path.insert(key, index);
        index
    }
}

/// Reads a `.q` file: UTF-8, or Windows-1252 when it is not (see [`syntax::encoding`]; the
/// caller reports [`Decoded::warning`] once it has registered the file).
pub fn read_source(path: &Path) -> std::io::Result<Decoded> {
    std::fs::read(path).map(syntax::encoding::decode)
}

type Failed = (Diagnostic, Option<Unavailable>);

/// The directory name that keys shipped library modules (never a real path).
const SHIPPED: &str = "<quasar standard modules>";

/// A library module that is not shipped yet: a warning here; calls to its functions are
/// errors that name it (the type checker, from the [`Unavailable`] it gets).
fn unavailable_module(m: &'static NotShipped, span: Span) -> Failed {
    let d = Diagnostic::warning(
        span,
        format!(
            "the library module `{}` is not shipped yet: its functions are unknown here",
            m.name
        ),
    )
    .with_label("not available in this version")
    .with_note("a call to one of its functions is an error; it comes with the standard library");
    let u = Unavailable { written: m.name.to_string(), span, functions: Some(m.functions) };
    (d, Some(u))
}

/// A native library: a warning here; calls that would need it are errors naming it.
fn native_library(written: &str, span: Span) -> Failed {
    let d = Diagnostic::warning(
        span,
        format!(
            "`{}` is a native library, which cannot be loaded here",
            search::file_name(written)
        ),
    )
    .with_label("native code (a .NET or C++ library of the original)")
    .with_note("a call to a function it defines is an error");
    let u = Unavailable { written: search::file_name(written).to_string(), span, functions: None };
    (d, Some(u))
}

/// A file that is in none of the places searched.
fn not_found(written: &str, looked: &[PathBuf], span: Span) -> Failed {
    let places: Vec<String> = looked.iter().map(|p| format!("`{}`", p.display())).collect();
    let d = Diagnostic::error(span, format!("cannot find the imported file `{written}`"))
        .with_label(format!("looked for {}", places.join(", ")))
        .with_note(format!(
            "imports are looked for next to the importing file (by path, then by file name) and in \
             the directories of `{}`",
            search::SEARCH_PATH_VAR
        ));
    (d, None)
}

/// A file that exists but cannot be read.
fn missing_file(written: &str, dir: &Path, span: Span, e: &std::io::Error) -> Failed {
    let d = Diagnostic::error(span, format!("cannot read the imported file `{written}`: {e}"))
        .with_label(format!("imported from `{}`", dir.display()));
    (d, None)
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

#[cfg(test)]
mod tests;
