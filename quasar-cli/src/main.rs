//! The `quasar` command line: `quasar check`, `quasar emit`, `quasar run`.

mod run;

use clap::{ArgGroup, Parser, Subcommand};
use quasar_core::diagnostics::Severity;
use quasar_core::driver::{self, BackEnd};
use quasar_core::ir::dump;
use quasar_core::load::Loader;
use quasar_core::syntax::encoding::Decoded;
use quasar_core::{syntax, Diagnostic, SourceMap};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use termcolor::{Color, ColorChoice, ColorSpec, StandardStream, WriteColor};

/// Command-line tools of Quasar for Rust.
#[derive(Parser)]
#[command(name = "quasar", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Compile Quasar files as `quasar!` does (parse, type check, passes, both back ends),
    /// without writing the output, and print their diagnostics.
    Check {
        /// Check the syntax only (parse, no type checking).
        #[arg(long, conflicts_with_all = ["types", "ir"])]
        syntax: bool,
        /// Also print every function instance with its parameter, result and variable types
        /// (on stdout).
        #[arg(long)]
        types: bool,
        /// Also print the typed IR: every instance's body, each expression with its type
        /// (on stdout).
        #[arg(long)]
        ir: bool,
        /// With `--ir`: the IR after this stage of the compiler (`check`, the default, `prune`,
        /// or a pass).
        #[arg(long, requires = "ir", value_name = "PASS",
              value_parser = clap::builder::PossibleValuesParser::new(driver::stage_names()))]
        after: Option<String>,
        /// The `.q` files to check.
        #[arg(required = true, value_name = "FILE.q")]
        files: Vec<PathBuf>,
    },
    /// Print the Rust code (`--rust`) or the PTX (`--ptx`) generated for a file.
    #[command(group(ArgGroup::new("target").required(true).args(["rust", "ptx"])))]
    Emit {
        /// Print the generated Rust code.
        #[arg(long)]
        rust: bool,
        /// Print the generated PTX.
        #[arg(long)]
        ptx: bool,
        #[arg(value_name = "FILE.q")]
        file: PathBuf,
    },
    /// Compile a Quasar program (with cargo, as `quasar!` does, in release mode) and run it:
    /// its top-level statements, then `main` with the arguments ARGS (manual §13.1). The
    /// build is cached: an unchanged program runs at once.
    Run {
        /// Run every kernel on the CPU.
        #[arg(long, conflicts_with = "gpu")]
        cpu: bool,
        /// Run the kernels on the GPU (an error where there is none).
        #[arg(long)]
        gpu: bool,
        /// Make `scalar` 64-bit.
        #[arg(long)]
        double: bool,
        /// Print the profile (kernels, devices, times, transfers) to stderr at the end.
        #[arg(long)]
        profile: bool,
        /// Write the timeline of kernels and transfers to this file (Chrome trace JSON, for
        /// Perfetto or chrome://tracing).
        #[arg(long, value_name = "FILE.json")]
        trace: Option<PathBuf>,
        #[arg(value_name = "FILE.q")]
        file: PathBuf,
        /// The arguments of the program's `main` function (numbers are scalars, the rest
        /// strings).
        #[arg(value_name = "ARGS", trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let choice =
        if std::io::stderr().is_terminal() { ColorChoice::Auto } else { ColorChoice::Never };
    let mut stderr = StandardStream::stderr(choice);
    match cli.command {
        Command::Check { syntax, types, ir, after, files } => {
            let show = if ir {
                Show::Ir(after.unwrap_or_else(|| "check".into()))
            } else if types {
                Show::Types
            } else {
                Show::Nothing
            };
            let mode = if syntax { Mode::Syntax } else { Mode::Types { show } };
            check(&mut stderr, &files, mode)
        }
        Command::Emit { rust: true, file, .. } => {
            check(&mut stderr, &[file], Mode::Types { show: Show::Rust })
        }
        Command::Emit { file, .. } => check(&mut stderr, &[file], Mode::Types { show: Show::Ptx }),
        Command::Run { cpu, gpu, double, profile, trace, file, args } => {
            let req = run::Request { file, args, cpu, gpu, double, profile, trace };
            run::run(&mut stderr, req)
        }
    }
}

#[derive(Clone)]
enum Mode {
    /// Parse only.
    Syntax,
    /// Parse and type-check, and print what `show` says.
    Types { show: Show },
}

/// What `quasar check` prints besides the diagnostics.
#[derive(Clone, PartialEq)]
enum Show {
    Nothing,
    /// `--types`: each instance with its parameter, result and variable types.
    Types,
    /// `--ir`: each instance's typed body after this stage of the compiler.
    Ir(String),
    /// `emit --rust`: the generated Rust code (formatted with rustfmt when it is installed).
    Rust,
    /// `emit --ptx`: the PTX of every kernel the PTX backend compiles.
    Ptx,
}

/// Error and warning counts of a run.
#[derive(Default)]
struct Totals {
    errors: usize,
    warnings: usize,
    files_with_errors: usize,
}

impl Totals {
    /// Prints `diagnostics` and counts them; returns the number of errors among them.
    fn emit(
        &mut self,
        out: &mut StandardStream,
        map: &SourceMap,
        diagnostics: &[Diagnostic],
    ) -> usize {
        map.emit(out, diagnostics);
        let errors = diagnostics.iter().filter(|d| d.is_error()).count();
        self.errors += errors;
        let notes = diagnostics.iter().filter(|d| d.severity == Severity::Note).count();
        self.warnings += diagnostics.len() - errors - notes;
        errors
    }
}

/// Checks every file (with the files it imports), prints the diagnostics and a summary; exit
/// code 1 when any file has an error (including a file that cannot be read).
fn check(out: &mut StandardStream, files: &[PathBuf], mode: Mode) -> ExitCode {
    let mut loader = Loader::default();
    let mut totals = Totals::default();
    for path in files {
        let source = match quasar_core::load::read_source(path) {
            Ok(source) => source,
            Err(e) => {
                message(
                    out,
                    Color::Red,
                    "error",
                    &format!("cannot read `{}`: {e}", path.display()),
                );
                totals.errors += 1;
                totals.files_with_errors += 1;
                continue;
            }
        };
        let file_errors = match &mode {
            Mode::Syntax => {
                let file = loader.map.add(path.display().to_string(), source.text.clone());
                let parsed = syntax::parse(loader.map.source(file), file);
                let warning: Vec<Diagnostic> = source.warning(file).into_iter().collect();
                totals.emit(out, &loader.map, &warning)
                    + totals.emit(out, &loader.map, &parsed.diagnostics)
            }
            Mode::Types { show } => {
                compile_file(out, &mut loader, &mut totals, path, source, show, files.len() > 1)
            }
        };
        totals.files_with_errors += usize::from(file_errors > 0);
    }
    let _ = writeln!(
        out,
        "checked {}: {}, {}{}",
        count(files.len(), "file"),
        count(totals.errors, "error"),
        count(totals.warnings, "warning"),
        if totals.files_with_errors > 0 {
            format!(" ({} with errors)", count(totals.files_with_errors, "file"))
        } else {
            String::new()
        }
    );
    if totals.errors > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// Compiles the file at `path` through the driver (as `quasar!` does, with the back ends
/// `show` needs), prints its diagnostics and, with `show`, what it asks for on stdout.
/// Returns the number of errors.
fn compile_file(
    out: &mut StandardStream,
    loader: &mut Loader,
    totals: &mut Totals,
    path: &Path,
    source: Decoded,
    show: &Show,
    header: bool,
) -> usize {
    let mut opts = driver::Options::new(path.display().to_string(), source.text.clone(), path);
    match show {
        Show::Rust => opts.back_ends = vec![BackEnd::Rust],
        Show::Ptx => opts.back_ends = vec![BackEnd::Ptx],
        Show::Ir(after) => opts.dump_ir_after = vec![after.clone()],
        // Everything `quasar!` runs, both back ends included, so that what `check` accepts
        // compiles with the macro.
        Show::Nothing | Show::Types => opts.back_ends = vec![BackEnd::Ptx, BackEnd::Rust],
    }
    let art = driver::compile_with(loader, &opts);
    let warning: Vec<Diagnostic> = art.file.and_then(|f| source.warning(f)).into_iter().collect();
    let errors =
        totals.emit(out, &loader.map, &warning) + totals.emit(out, &loader.map, &art.diagnostics);
    let text = match show {
        Show::Nothing => return errors,
        Show::Ptx if errors == 0 => art.ptx.map(|p| p.release.text),
        Show::Rust if errors == 0 => art.rust.map(|t| format_rust(&t.to_string())),
        Show::Ptx | Show::Rust => None,
        Show::Types => art.checked.as_ref().map(dump::instances),
        Show::Ir(_) => art.ir_dumps.into_iter().next().map(|(_, text)| text),
    };
    if let Some(text) = text {
        let mut stdout = std::io::stdout().lock();
        if header && matches!(show, Show::Types | Show::Ir(_)) {
            let _ = writeln!(stdout, "{}:", path.display());
        }
        let _ = write!(stdout, "{text}");
        let _ = stdout.flush();
    }
    errors
}

/// `code` formatted by `rustfmt` when it is installed and accepts it, as generated otherwise.
fn format_rust(code: &str) -> String {
    use std::process::{Command as Process, Stdio};
    let child = Process::new("rustfmt")
        .args(["--edition", "2021", "--emit", "stdout"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn();
    if let Ok(mut child) = child {
        if let Some(mut stdin) = child.stdin.take() {
            let _ = stdin.write_all(code.as_bytes());
        }
        if let Ok(out) = child.wait_with_output() {
            if out.status.success() && !out.stdout.is_empty() {
                return String::from_utf8_lossy(&out.stdout).into_owned();
            }
        }
    }
    format!("{code}\n")
}

/// Prints `level: text` with the level coloured (when colour is on).
fn message(out: &mut StandardStream, color: Color, level: &str, text: &str) {
    // Failing to write to stderr leaves nothing better to do than carry on.
    let _ = out.set_color(ColorSpec::new().set_fg(Some(color)).set_bold(true));
    let _ = write!(out, "{level}");
    let _ = out.reset();
    let _ = writeln!(out, ": {text}");
}

/// `1 file`, `2 files`.
fn count(n: usize, noun: &str) -> String {
    format!("{n} {noun}{}", if n == 1 { "" } else { "s" })
}
