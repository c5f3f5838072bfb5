//! `quasar run FILE.q [ARGS]`: compiles the program on the `quasar!` path and runs it.
//!
//! Each program gets a hidden cargo project in the cache directory (`run/<name>-<key>`) whose
//! `main.rs` is `quasar::quasar!(file = "/abs/FILE.q")` and a `main` that runs `script()` and
//! then the Quasar `main` with the command-line arguments (manual §13.1). All programs share
//! one target directory (`target/`), so the Quasar crates are built once, in release mode.
//! A stamp records the hash of every source file read (the program and its imports) and of
//! what the build depends on; when nothing changed, the built binary runs without invoking
//! the compiler or cargo at all.
//!
//! The `quasar` dependency is the workspace this binary was built from (a path dependency)
//! when its sources are still there, so a checkout's `quasar run` runs that checkout's
//! compiler; otherwise (an installed `quasar-cli`) the published `quasar` of the same
//! version.

use crate::{count, message};
use quasar_core::driver::{self, BackEnd};
use quasar_core::load::Loader;
use quasar_core::sema::types::{FloatWidth, IntKind, Type};
use quasar_core::syntax::ast;
use quasar_core::Diagnostic;
use std::fmt::Write as _;
use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use termcolor::{Color, StandardStream};

/// What `quasar run` was asked to do.
pub struct Request {
    pub file: PathBuf,
    pub args: Vec<String>,
    pub cpu: bool,
    pub gpu: bool,
    pub double: bool,
    pub profile: bool,
    pub trace: Option<PathBuf>,
}

/// The workspace of this binary's sources (quasar-cli's parent directory).
const WORKSPACE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

pub fn run(out: &mut StandardStream, req: Request) -> ExitCode {
    match prepare(out, &req) {
        Ok(Some(binary)) => execute(out, &binary, &req),
        Ok(None) => ExitCode::FAILURE,
        Err(e) => {
            message(out, Color::Red, "error", &e);
            ExitCode::FAILURE
        }
    }
}

/// The built binary of the program, building it when a source changed; `None` when the
/// program has errors (printed).
fn prepare(out: &mut StandardStream, req: &Request) -> Result<Option<PathBuf>, String> {
    let path = fs::canonicalize(&req.file)
        .map_err(|e| format!("cannot read `{}`: {e}", req.file.display()))?;
    let source = quasar_core::load::read_source(&path)
        .map_err(|e| format!("cannot read `{}`: {e}", req.file.display()))?;
    let kinds = arg_kinds(&req.args, &declared_main_params(&source.text));
    let key = fnv(&format!("{}\n{}\n{}", path.display(), kinds.join(","), req.double));
    let name = package_name(&path, key);
    let cache = cache_dir()?;
    let project = cache.join("run").join(&name);
    let target = cache.join("target");
    let binary = target.join("release").join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    let identity = identity();
    if binary.is_file() && stamp_is_current(&project, &identity) {
        return Ok(Some(binary));
    }

    // Compile as `quasar check` does, so that errors are reported before cargo runs.
    let mut loader = Loader::default();
    let main_args = driver::parse_main_args(&kinds.join(","))?;
    let shown = req.file.display().to_string();
    let mut opts = driver::Options::new(&shown, source.text.clone(), &path);
    opts.double = req.double;
    opts.back_ends = vec![BackEnd::Ptx, BackEnd::Rust];
    opts.main_args = Some(main_args);
    let art = driver::compile_with(&mut loader, &opts);
    let mut diagnostics: Vec<Diagnostic> =
        art.file.and_then(|f| source.warning(f)).into_iter().collect();
    diagnostics.extend(art.diagnostics.iter().cloned());
    loader.map.emit(out, &diagnostics);
    let errors = diagnostics.iter().filter(|d| d.is_error()).count();
    let (Some(module), Some(rust), 0) = (&art.module, &art.rust, errors) else {
        let n = count(errors.max(1), "error");
        message(out, Color::Red, "error", &format!("`{shown}` has {n}; it was not run"));
        return Ok(None);
    };
    let defines_main = art.program.as_ref().is_some_and(|p| main_def(p).is_some());
    if defines_main && module.main.is_none() {
        return Err(format!(
            "`main` of `{shown}` could not be compiled for these arguments: please report it"
        ));
    }
    let variadic = art
        .program
        .as_ref()
        .and_then(main_def)
        .is_some_and(|f| f.params.last().is_some_and(|p| p.variadic));
    let call = main_call(module, variadic)?;
    let features = features(&rust.to_string());

    fs::create_dir_all(&project)
        .map_err(|e| format!("cannot create `{}`: {e}", project.display()))?;
    let first = !target.join("release").is_dir();
    write_if_changed(&project.join("Cargo.toml"), &manifest(&name, &path, &features))?;
    write_if_changed(&project.join("main.rs"), &main_rs(&path, req.double, &kinds, &call))?;
    if dependency_path().is_some() {
        // The workspace's lock file: the program builds with the versions the workspace was
        // tested with, and resolves without the registry's index.
        let lock = Path::new(WORKSPACE).join("Cargo.lock");
        if lock.is_file() {
            let _ = fs::copy(&lock, project.join("Cargo.lock"));
        }
    }
    let what = if first {
        "the first `quasar run` also builds the Quasar crates (release mode, a few minutes)"
    } else {
        "later runs of the unchanged file start at once"
    };
    message(out, Color::Green, "building", &format!("`{shown}` with cargo ({what})"));
    let _ = out.flush();
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let status = Command::new(cargo)
        .args(["build", "--release", "--manifest-path"])
        .arg(project.join("Cargo.toml"))
        .arg("--target-dir")
        .arg(&target)
        .current_dir(&project)
        .status()
        .map_err(|e| format!("cannot run cargo (is Rust installed? https://rustup.rs): {e}"))?;
    if !status.success() || !binary.is_file() {
        return Err(format!(
            "building `{shown}` failed (the cargo project is {}); `quasar check` accepted \
             the program, so this is a bug of Quasar for Rust: please report it",
            project.display()
        ));
    }
    let mut files = vec![path.clone()];
    files.extend(art.imported.iter().cloned());
    write_stamp(&project, &identity, &files)?;
    Ok(Some(binary))
}

/// Runs the built program with the arguments; its exit status is `quasar run`'s.
fn execute(out: &mut StandardStream, binary: &Path, req: &Request) -> ExitCode {
    let mut cmd = Command::new(binary);
    cmd.args(&req.args);
    if req.cpu {
        cmd.env("QUASAR_DEVICE", "cpu");
    } else if req.gpu {
        cmd.env("QUASAR_DEVICE", "gpu");
    }
    if req.profile {
        cmd.env("QUASAR_RUN_PROFILE", "1");
    }
    if let Some(trace) = &req.trace {
        cmd.env("QUASAR_RUN_TRACE", trace);
    }
    match cmd.status() {
        Ok(status) => match status.code() {
            Some(0) => ExitCode::SUCCESS,
            Some(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
            None => ExitCode::FAILURE,
        },
        Err(e) => {
            let text = format!("cannot start `{}`: {e}", binary.display());
            message(out, Color::Red, "error", &text);
            ExitCode::FAILURE
        }
    }
}

/// The type each command-line argument is passed as: `scalar` when it reads as a number,
/// `string` otherwise. For a parameter with a declared type (`declared[i]`) the checker takes
/// that type, so the argument is always `scalar` there: the build does not depend on its text.
fn arg_kinds(args: &[String], declared: &[bool]) -> Vec<&'static str> {
    args.iter()
        .enumerate()
        .map(|(i, a)| {
            let number = a.trim().parse::<f64>().is_ok();
            if number || declared.get(i) == Some(&true) {
                "scalar"
            } else {
                "string"
            }
        })
        .collect()
}

/// For each parameter of the file's `main` (the first), whether it declares its type; a
/// variadic one counts for all the arguments it takes. Empty when the file does not parse.
fn declared_main_params(text: &str) -> Vec<bool> {
    let parsed = quasar_core::syntax::parse(text, quasar_core::FileId(0));
    let Some(main) = main_def(&parsed.program) else { return Vec::new() };
    let mut out: Vec<bool> = main.params.iter().map(|p| p.ty.is_some()).collect();
    if main.params.last().is_some_and(|p| p.variadic && p.ty.is_some()) {
        out.extend(std::iter::repeat_n(true, 256));
    }
    out
}

/// The Rust that reads the arguments into `main`'s parameters and calls it; empty when
/// `script()` calls `main` itself (no parameters) or there is none.
fn main_call(module: &quasar_core::ir::Module, variadic: bool) -> Result<String, String> {
    let Some(id) = module.main else { return Ok(String::new()) };
    let f = module.function(id);
    if f.params.is_empty() {
        return Ok(String::new());
    }
    let mut code = String::new();
    let mut names = Vec::new();
    for (i, p) in f.params.iter().enumerate() {
        let l = f.local(*p);
        let var = format!("a{i}");
        let what = format!("argument {} (`{}`) of `main`", i + 1, l.name);
        let expr = match &l.ty {
            Type::String => {
                names.push(format!("&{var}"));
                format!("args[{i}].clone()")
            }
            Type::Array(a) if variadic && i + 1 == f.params.len() => {
                // The variadic parameter: the remaining arguments as a row vector.
                let elem = rust_number(&a.elem).ok_or_else(|| unsupported(&l.name, &l.ty))?;
                names.push(format!("&{var}"));
                format!("numbers::<{elem}>(&args[{i}..], {})?", i + 1)
            }
            t => {
                let rust = rust_number(t).ok_or_else(|| unsupported(&l.name, t))?;
                names.push(var.clone());
                format!("number::<{rust}>(&args[{i}], {what:?})?")
            }
        };
        let _ = writeln!(code, "    let {var} = {expr};");
    }
    let _ = writeln!(code, "    prog::script().map_err(|e| e.to_string())?;");
    let _ = writeln!(code, "    prog::main({}).map_err(|e| e.to_string())?;", names.join(", "));
    Ok(code)
}

/// The program's (first) `main` function.
fn main_def(program: &ast::Program) -> Option<&ast::FunctionDef> {
    program.body.iter().find_map(|s| match &s.kind {
        ast::StmtKind::Function(f) if f.name.name == "main" => Some(&**f),
        _ => None,
    })
}

fn unsupported(name: &str, ty: &Type) -> String {
    format!(
        "`main`'s parameter `{name}` is a `{ty}`: a command line passes scalars and strings \
         (manual §13.1); declare it `{name} : scalar` or `{name} : string` and convert it"
    )
}

/// The Rust type of a numeric `main` parameter (the compiled module's `scalar` is already
/// `'single` or `'double` as the double mode says).
fn rust_number(t: &Type) -> Option<&'static str> {
    Some(match t {
        Type::Scalar(p) => match p.width()? {
            FloatWidth::F32 => "f32",
            FloatWidth::F64 => "f64",
            FloatWidth::F16 => return None,
        },
        Type::Int(kind, _) => match kind {
            IntKind::Int | IntKind::I32 => "i32",
            IntKind::I8 => "i8",
            IntKind::I16 => "i16",
            IntKind::I64 => "i64",
            IntKind::U8 => "u8",
            IntKind::U16 => "u16",
            IntKind::U32 => "u32",
            IntKind::U64 => "u64",
        },
        _ => return None,
    })
}

/// The generated `main.rs`.
fn main_rs(path: &Path, double: bool, kinds: &[&str], call: &str) -> String {
    let mut options = String::new();
    if double {
        options.push_str(", double = true");
    }
    // Also without arguments: `main` then computes the defaults of its parameters.
    let _ = write!(options, ", main_args = {:?}", kinds.join(", "));
    let body = if call.is_empty() {
        "    let _ = args;\n    prog::script().map_err(|e| e.to_string())\n".to_string()
    } else {
        format!("{call}    Ok(())\n")
    };
    format!(
        r#"//! Generated by `quasar run` for {path:?}; rewritten when the program changes.

// The program's functions need not all be called from here.
#[allow(dead_code, unused)]
mod prog {{
    ::quasar::quasar!(file = {path:?}{options});
}}

fn main() -> ::std::process::ExitCode {{
    let args: Vec<String> = ::std::env::args().skip(1).collect();
    let result = run(&args);
    if ::std::env::var_os("QUASAR_RUN_PROFILE").is_some() {{
        ::quasar::print_profile();
    }}
    if let Some(trace) = ::std::env::var_os("QUASAR_RUN_TRACE") {{
        if let Err(e) = ::quasar::write_trace(&trace) {{
            eprintln!("error: cannot write the trace: {{e}}");
        }}
    }}
    match result {{
        Ok(()) => ::std::process::ExitCode::SUCCESS,
        Err(e) => {{
            eprintln!("error: {{e}}");
            ::std::process::ExitCode::FAILURE
        }}
    }}
}}

#[allow(dead_code)]
fn number<T: ::std::str::FromStr>(text: &str, what: &str) -> Result<T, String> {{
    let t = text.trim();
    t.parse::<T>()
        .or_else(|_| t.parse::<f64>().ok().and_then(|v| v.to_string().parse::<T>().ok()).ok_or(()))
        .map_err(|_| format!("{{what}} is a number, but the command line gives `{{text}}`"))
}}

#[allow(dead_code)]
fn numbers<T>(args: &[String], first: usize) -> Result<::quasar::Array<T>, String>
where
    T: ::std::str::FromStr + ::quasar::__rt::run::Element,
{{
    let v = args
        .iter()
        .enumerate()
        .map(|(k, s)| number::<T>(s, &format!("argument {{}} of `main`", first + k)))
        .collect::<Result<Vec<T>, String>>()?;
    ::quasar::Array::from_vec(&[1, v.len()], v).map_err(|e| e.to_string())
}}

fn run(args: &[String]) -> Result<(), String> {{
{body}}}
"#,
        path = path.display().to_string(),
    )
}

/// The generated `Cargo.toml`.
fn manifest(name: &str, path: &Path, features: &[&str]) -> String {
    let features: Vec<String> = features.iter().map(|f| format!("{f:?}")).collect();
    let dependency = match dependency_path() {
        Some(ws) => format!("path = {}", toml_string(&ws.display().to_string())),
        None => format!("version = \"={}\"", env!("CARGO_PKG_VERSION")),
    };
    format!(
        r#"# Generated by `quasar run` for {program}.
[package]
name = "{name}"
version = "0.0.0"
edition = "2021"
publish = false

[[bin]]
name = "{name}"
path = "main.rs"

[dependencies]
quasar = {{ {dependency}, features = [{features}] }}

# Full speed; many code-generation units keep the rebuild of an edited program short.
[profile.release]
opt-level = 3
debug = false
codegen-units = 16

# Its own workspace, also when the cache directory lies inside another one.
[workspace]
"#,
        program = toml_string(&path.display().to_string()),
        features = features.join(", "),
    )
}

/// The cargo features of `quasar` the generated code needs, besides the defaults (PNG and
/// JPEG): the NVIDIA back end always, and the optional built-ins the program calls.
fn features(rust: &str) -> Vec<&'static str> {
    let mut out = vec!["cuda"];
    let linalg = ["inv", "det", "linsolve", "chol", "svd", "symeig"];
    if linalg.iter().any(|f| rust.contains(&format!("linalg :: {f}"))) {
        out.push("linalg");
    }
    if rust.contains("figure :: plot ::") {
        out.push("plot");
    }
    // Images come in any format (HDR, EXR, TIFF…) at run time.
    if rust.contains("image :: imread") || rust.contains("image :: imwrite") {
        out.extend(["image-formats", "exr"]);
    }
    out
}

/// The workspace to depend on by path: the one this binary was built from, when it is there.
fn dependency_path() -> Option<PathBuf> {
    let ws = fs::canonicalize(WORKSPACE).ok()?;
    let manifest = fs::read_to_string(ws.join("Cargo.toml")).ok()?;
    (manifest.contains("name = \"quasar\"") && ws.join("src/lib.rs").is_file()).then_some(ws)
}

/// What a built program depends on besides its sources: this compiler (its version and
/// binary), the `quasar` dependency, and `QUASAR_PATH` (where imports are found).
fn identity() -> String {
    let exe = std::env::current_exe().ok();
    let modified = exe
        .as_ref()
        .and_then(|e| fs::metadata(e).ok())
        .and_then(|m| m.modified().ok())
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos());
    format!(
        "{} {:?} {modified} {:?} {:?}",
        env!("CARGO_PKG_VERSION"),
        exe,
        dependency_path(),
        std::env::var_os("QUASAR_PATH")
    )
}

/// The stamp: `identity`, then one line per source file with the hash of its contents.
fn write_stamp(project: &Path, identity: &str, files: &[PathBuf]) -> Result<(), String> {
    let mut text = format!("{identity}\n");
    for f in files {
        let bytes = fs::read(f).map_err(|e| format!("cannot read `{}`: {e}", f.display()))?;
        let _ = writeln!(text, "{:016x} {}", fnv_bytes(&bytes), f.display());
    }
    write_if_changed(&project.join("stamp"), &text)
}

/// Whether the stamp matches `identity` and every file it lists still has its hash.
fn stamp_is_current(project: &Path, identity: &str) -> bool {
    let Ok(text) = fs::read_to_string(project.join("stamp")) else { return false };
    let mut lines = text.lines();
    if lines.next() != Some(identity) {
        return false;
    }
    lines.all(|line| {
        let Some((hash, file)) = line.split_once(' ') else { return false };
        fs::read(file).is_ok_and(|b| format!("{:016x}", fnv_bytes(&b)) == hash)
    })
}

fn write_if_changed(path: &Path, text: &str) -> Result<(), String> {
    if fs::read_to_string(path).is_ok_and(|t| t == text) {
        return Ok(());
    }
    fs::write(path, text).map_err(|e| format!("cannot write `{}`: {e}", path.display()))
}

/// `QUASAR_CACHE_DIR`, else `$XDG_CACHE_HOME/quasar`, else the platform's cache directory.
fn cache_dir() -> Result<PathBuf, String> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    if let Some(dir) = var("QUASAR_CACHE_DIR") {
        return Ok(dir);
    }
    let base = var("XDG_CACHE_HOME")
        .or_else(|| var("LOCALAPPDATA"))
        .or_else(|| var("HOME").map(|h| h.join(".cache")))
        .ok_or("no cache directory: set QUASAR_CACHE_DIR")?;
    Ok(base.join("quasar"))
}

/// A cargo package name for the program: its file stem and the key, `q-blur-1f2e…`.
fn package_name(path: &Path, key: u64) -> String {
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let stem: String = stem
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '_' })
        .take(40)
        .collect();
    format!("q-{stem}-{key:016x}")
}

fn toml_string(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

/// FNV-1a: a hash that stays the same across Rust versions (the cache outlives the binary).
fn fnv_bytes(bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3))
}

fn fnv(text: &str) -> u64 {
    fnv_bytes(text.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_are_scalars_when_they_read_as_numbers() {
        let args: Vec<String> = ["1", "-2.5e3", "abc", "", "0x10"].map(String::from).to_vec();
        assert_eq!(arg_kinds(&args, &[]), ["scalar", "scalar", "string", "string", "string"]);
        // A declared parameter takes its declared type whatever the text.
        assert_eq!(arg_kinds(&args[2..4], &[true, false]), ["scalar", "string"]);
        let src = "function [] = main(a : string, b, ...c : vec)\nendfunction\n";
        assert_eq!(declared_main_params(src)[..4], [true, false, true, true]);
    }

    #[test]
    fn features_follow_the_generated_code() {
        assert_eq!(features("let x = 1;"), ["cuda"]);
        let rust = ":: quasar :: __rt :: qstd :: linalg :: inv (& x) ? ; :: quasar :: __rt :: qstd :: image :: imread (& p) ?";
        assert_eq!(features(rust), ["cuda", "linalg", "image-formats", "exr"]);
        // fft lives in the same module but needs no feature.
        assert_eq!(features("qstd :: linalg :: fft2 (& x)"), ["cuda"]);
    }

    #[test]
    fn package_names_are_valid_cargo_names() {
        let name = package_name(Path::new("/a/My Prog.v2.q"), 0xab);
        assert_eq!(name, "q-my_prog_v2-00000000000000ab");
    }

    #[test]
    fn the_stamp_is_current_until_a_file_changes() {
        let dir = tempfile::tempdir().unwrap();
        let q = dir.path().join("a.q");
        fs::write(&q, "print 1").unwrap();
        write_stamp(dir.path(), "id", std::slice::from_ref(&q)).unwrap();
        assert!(stamp_is_current(dir.path(), "id"));
        assert!(!stamp_is_current(dir.path(), "other compiler"));
        fs::write(&q, "print 2").unwrap();
        assert!(!stamp_is_current(dir.path(), "id"));
    }
}
