//! The `quasar` command line: `quasar check`, `quasar emit`, `quasar run`.

use clap::{ArgGroup, Parser, Subcommand};
use quasar_core::{syntax, SourceMap};
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
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
    /// Check Quasar files and print their diagnostics (this version checks the syntax only).
    Check {
        /// Check the syntax only (parse, no type checking).
        #[arg(long)]
        syntax: bool,
        /// The `.q` files to check.
        #[arg(required = true, value_name = "FILE.q")]
        files: Vec<PathBuf>,
    },
    /// Print the Rust code or PTX generated for a file (not implemented yet).
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
    /// Compile and run a Quasar program (not implemented yet).
    Run {
        /// Run on the CPU only.
        #[arg(long, conflicts_with = "gpu")]
        cpu: bool,
        /// Run on the GPU.
        #[arg(long)]
        gpu: bool,
        /// Make `scalar` 64-bit.
        #[arg(long)]
        double: bool,
        #[arg(value_name = "FILE.q")]
        file: PathBuf,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let choice =
        if std::io::stderr().is_terminal() { ColorChoice::Auto } else { ColorChoice::Never };
    let mut stderr = StandardStream::stderr(choice);
    match cli.command {
        Command::Check { syntax, files } => check(&mut stderr, &files, syntax),
        Command::Emit { .. } => not_implemented(&mut stderr, "emit"),
        Command::Run { .. } => not_implemented(&mut stderr, "run"),
    }
}

/// Parses every file, prints the diagnostics and a summary; exit code 1 when any file has an
/// error (including a file that cannot be read).
fn check(out: &mut StandardStream, files: &[PathBuf], syntax_only: bool) -> ExitCode {
    let mut map = SourceMap::new();
    let (mut errors, mut warnings, mut files_with_errors) = (0usize, 0usize, 0usize);
    for path in files {
        let source = match std::fs::read_to_string(path) {
            Ok(source) => source,
            Err(e) => {
                message(
                    out,
                    Color::Red,
                    "error",
                    &format!("cannot read `{}`: {e}", path.display()),
                );
                errors += 1;
                files_with_errors += 1;
                continue;
            }
        };
        let file = map.add(path.display().to_string(), source);
        let parsed = syntax::parse(map.source(file), file);
        map.emit(out, &parsed.diagnostics);
        let file_errors = parsed.diagnostics.iter().filter(|d| d.is_error()).count();
        errors += file_errors;
        warnings += parsed.diagnostics.len() - file_errors;
        files_with_errors += usize::from(file_errors > 0);
    }
    if !syntax_only {
        message(
            out,
            Color::Cyan,
            "note",
            "type checking is not available yet in this version; only the syntax was checked",
        );
    }
    let _ = writeln!(
        out,
        "checked {}: {}, {}{}",
        count(files.len(), "file"),
        count(errors, "error"),
        count(warnings, "warning"),
        if files_with_errors > 0 {
            format!(" ({} with errors)", count(files_with_errors, "file"))
        } else {
            String::new()
        }
    );
    if errors > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

fn not_implemented(out: &mut StandardStream, command: &str) -> ExitCode {
    message(
        out,
        Color::Red,
        "error",
        &format!(
            "`quasar {command}` is not implemented yet: this version has no code generation \
             (it can check syntax: `quasar check --syntax FILE.q`)"
        ),
    );
    ExitCode::from(2)
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
