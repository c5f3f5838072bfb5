//! The compiler driver: one [`compile`] that runs every stage in order, as Halide's
//! `Lower.cpp` does, for the `quasar!` macro, the `quasar` command line and `quasar run`:
//!
//! ```text
//! parse → load imports → type check → prune → verify → passes (verify after each) → back ends
//! ```
//!
//! The back ends run as a list ([`BackEnd`]): the PTX of every kernel, then the Rust items,
//! which embed that PTX. What `quasar emit --ptx` prints is therefore exactly what the macro
//! embeds (its release variant, [`PtxBuilds::release`]).

use crate::analysis::{self, ModuleInfo};
use crate::backend::ptx::{self, PtxBuilds};
use crate::backend::rust;
use crate::ir::verify::{self, Expect};
use crate::ir::{self, Module};
use crate::load::Loader;
use crate::sema::types::Type;
use crate::transform::{self, PassContext};
use crate::{syntax, Diagnostic, FileId};
use proc_macro2::TokenStream;
use std::path::PathBuf;

/// A code generator the driver runs after the passes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BackEnd {
    /// The PTX of every kernel ([`Artifacts::ptx`]).
    Ptx,
    /// The Rust items ([`Artifacts::rust`]); they embed the PTX when [`BackEnd::Ptx`] runs too.
    Rust,
}

/// What to compile and how.
#[derive(Clone, Debug)]
pub struct Options {
    /// The file's name in diagnostics and run-time error locations.
    pub name: String,
    /// The Quasar source text.
    pub source: String,
    /// The file's path: imports are resolved relative to its directory.
    pub path: PathBuf,
    /// `scalar` is `f64`.
    pub double: bool,
    /// The path of the `quasar` facade crate in generated code (`::quasar`).
    pub krate: TokenStream,
    /// The back ends to run, in this order; none: stop after the passes (`quasar check`).
    pub back_ends: Vec<BackEnd>,
    /// Keep a dump of the IR after these stages ([`stage_names`]), in [`Artifacts::ir_dumps`].
    pub dump_ir_after: Vec<String>,
    /// The types of the command-line arguments `main` is called with (`quasar run`): `main`
    /// is instantiated for them and exported, and `script()` no longer calls it.
    pub main_args: Option<Vec<Type>>,
}

impl Options {
    /// Options for the file `name` with text `source` at `path`, with no back end.
    pub fn new(
        name: impl Into<String>,
        source: impl Into<String>,
        path: impl Into<PathBuf>,
    ) -> Self {
        Options {
            name: name.into(),
            source: source.into(),
            path: path.into(),
            double: false,
            krate: quote::quote!(::quasar),
            back_ends: Vec::new(),
            dump_ir_after: Vec::new(),
            main_args: None,
        }
    }
}

/// The types of [`Options::main_args`] from their names, comma-separated (`"scalar, string"`;
/// an empty text is no argument): `scalar`, `int` or `string`, what a command line passes.
pub fn parse_main_args(text: &str) -> Result<Vec<Type>, String> {
    if text.trim().is_empty() {
        return Ok(Vec::new());
    }
    text.split(',')
        .map(|word| match word.trim() {
            "scalar" => Ok(Type::SCALAR),
            "int" => Ok(Type::INT),
            "string" => Ok(Type::String),
            other => Err(format!(
                "`{other}` is not a command-line argument type (`scalar`, `int` or `string`)"
            )),
        })
        .collect()
}

/// The stage of compilation an error stopped it at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Lexing and parsing.
    Syntax,
    /// Reading imported files.
    Import,
    /// Type checking and lowering to the IR.
    Type,
    /// The verifier found a broken invariant: a compiler bug.
    Verify,
    /// The Rust or PTX back end.
    CodeGeneration,
}

impl Stage {
    /// "syntax", "type", …, as in "3 type errors".
    pub fn word(self) -> &'static str {
        match self {
            Stage::Syntax => "syntax",
            Stage::Import => "import",
            Stage::Type => "type",
            Stage::Verify => "internal",
            Stage::CodeGeneration => "code generation",
        }
    }
}

/// Everything a compilation produced.
#[derive(Default)]
pub struct Artifacts {
    /// The main file's id in the loader's source map.
    pub file: Option<FileId>,
    /// Every diagnostic, in stage order.
    pub diagnostics: Vec<Diagnostic>,
    /// The stage whose errors stopped the compilation.
    pub failed: Option<Stage>,
    /// The parsed program (when it parsed).
    pub program: Option<syntax::ast::Program>,
    /// The module as type checking produced it (also with type errors).
    pub checked: Option<Module>,
    /// The module after every pass: what the back ends read.
    pub module: Option<Module>,
    /// `(stage, text)` for each stage of [`Options::dump_ir_after`] that ran.
    pub ir_dumps: Vec<(String, String)>,
    /// The PTX of the kernels for release and debug builds, when requested.
    pub ptx: Option<PtxBuilds>,
    /// The generated Rust items, when requested.
    pub rust: Option<TokenStream>,
    /// The imported files read (for the macro to track).
    pub imported: Vec<PathBuf>,
}

impl Artifacts {
    /// Whether any diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(|d| d.is_error())
    }
}

/// The stage name of the analyses' dump: what each kernel's launches copy of its arguments.
const ANALYSIS: &str = "analysis";

/// The stages whose IR can be dumped: `check`, `prune`, then every pass, then `analysis`
/// (the facts of `analysis/` that are not in the IR: each kernel's argument transfers).
pub fn stage_names() -> Vec<&'static str> {
    ["check", "prune"]
        .into_iter()
        .chain(transform::pipeline().iter().map(|p| p.name))
        .chain([ANALYSIS])
        .collect()
}

/// Compiles with a fresh loader.
pub fn compile(opts: &Options) -> (Artifacts, Loader) {
    let mut loader = Loader::default();
    let artifacts = compile_with(&mut loader, opts);
    (artifacts, loader)
}

/// Compiles `opts`; imported files are read through `loader` (which keeps them, with the
/// main file, in its source map for rendering diagnostics).
pub fn compile_with(loader: &mut Loader, opts: &Options) -> Artifacts {
    let mut art = Artifacts::default();
    let file = loader.map.add(opts.name.clone(), opts.source.clone());
    art.file = Some(file);
    let parsed = syntax::parse(loader.map.source(file), file);
    art.diagnostics.extend(parsed.diagnostics.iter().cloned());
    if parsed.has_errors() {
        art.failed = Some(Stage::Syntax);
        art.program = Some(parsed.program);
        return art;
    }
    let (checked, load_diagnostics) =
        loader.check_main(&opts.path, &parsed.program, opts.main_args.as_deref());
    art.program = Some(parsed.program);
    art.imported = loader.files.iter().filter(|f| !f.shipped).map(|f| f.path.clone()).collect();
    let load_failed = load_diagnostics.iter().any(|d| d.is_error());
    art.diagnostics.extend(load_diagnostics);
    let Some(checked) = checked else {
        art.failed = Some(Stage::Import);
        return art;
    };
    if load_failed {
        art.failed = Some(Stage::Import);
    }
    let type_failed = checked.has_errors();
    art.diagnostics.extend(checked.diagnostics);
    dump(&mut art, opts, "check", &checked.module);
    art.checked = Some(checked.module.clone());
    if load_failed {
        return art;
    }
    if type_failed {
        art.failed = Some(Stage::Type);
        return art;
    }
    let mut module = checked.module;
    let untyped = rust::untyped_exports(&module);
    // `scalar` is decided here, once, for everything after: passes and back ends.
    ir::precision::resolve(&mut module, opts.double);
    let expect = Expect { numbered: true, concrete_calls: false, resolved_precision: true };
    if !verified(&mut art, &module, expect, "type checking") {
        return art;
    }
    let generic_calls = calls_of_generic_instances(&module);
    if !generic_calls.is_empty() {
        art.diagnostics.extend(generic_calls);
        art.failed = Some(Stage::CodeGeneration);
        return art;
    }
    prune_generic(&mut module);
    dump(&mut art, opts, "prune", &module);
    let expect = Expect { numbered: true, concrete_calls: true, resolved_precision: true };
    if !verified(&mut art, &module, expect, "prune") {
        return art;
    }
    let cx = PassContext::new();
    for pass in transform::pipeline() {
        (pass.run)(&mut module, &cx);
        let reported = std::mem::take(&mut *cx.diagnostics.borrow_mut());
        let failed = reported.iter().any(|d| d.is_error());
        art.diagnostics.extend(reported);
        if failed {
            art.failed = Some(Stage::CodeGeneration);
            return art;
        }
        ir::number::number_module(&mut module);
        dump(&mut art, opts, pass.name, &module);
        if !verified(&mut art, &module, expect, pass.name) {
            return art;
        }
    }
    let info = ModuleInfo::of(&module);
    if opts.dump_ir_after.iter().any(|s| s == ANALYSIS) {
        art.ir_dumps.push((ANALYSIS.to_string(), analysis::transfers::dump(&module, &info)));
    }
    let contradicted = analysis::transfers::check(&module, &info);
    if !contradicted.is_empty() {
        art.diagnostics.extend(contradicted);
        art.failed = Some(Stage::CodeGeneration);
        return art;
    }
    back_ends(&mut art, loader, opts, &module, &info, untyped);
    art.module = Some(module);
    art
}

/// Keeps what the back ends compile: error-only generic instances go (a call always made
/// an instance of its own for the types it passes).
fn prune_generic(module: &mut Module) {
    let roots: Vec<ir::FunctionId> = (0..module.functions.len() as u32)
        .map(ir::FunctionId)
        .filter(|id| !module.function(*id).generic)
        .collect();
    ir::prune::prune(module, &roots);
    // A generic instance that concrete code uses as a value (a lambda or handle whose
    // parameter types are unknown) stays; the back ends report that they cannot compile it.
}

/// Calls that concrete code makes to an instance whose parameter types are not known: an
/// argument's type is decided only at run time (a variable that held two different lambdas,
/// a lambda value capturing such a variable), which code generation cannot compile. Named at
/// the call. (Untyped lambdas themselves are closure classes, `sema/check/closure_class.rs`.)
fn calls_of_generic_instances(module: &Module) -> Vec<Diagnostic> {
    use ir::visit::{walk_expr, Visit};
    struct Calls<'m> {
        module: &'m Module,
        out: Vec<Diagnostic>,
    }
    impl<'a> Visit<'a> for Calls<'_> {
        fn visit_expr(&mut self, e: &'a ir::Expr) {
            if let ir::ExprKind::Call { callee: ir::Callee::Function(id), args } = &e.kind {
                let g = self.module.function(*id);
                if g.generic {
                    let unknown: Vec<String> = args
                        .iter()
                        .filter(|a| a.ty.is_generic() || !a.ty.is_concrete())
                        .map(|a| a.ty.to_string())
                        .collect();
                    let d = Diagnostic::error(
                        e.span,
                        format!("code generation does not support this call of `{}`: the types of its parameters are not known", g.name),
                    )
                    .with_label(format!("passes {}", if unknown.is_empty() { "values of unknown types".to_string() } else { unknown.join(", ") }))
                    .with_note("give the values passed one type each: a variable assigned two different lambdas has no one type; declare it with a function type, as in `f : [scalar -> scalar] = x -> x + 1`");
                    self.out.push(d);
                }
            }
            walk_expr(self, e)
        }
    }
    let mut calls = Calls { module, out: Vec::new() };
    for f in module.functions.iter().filter(|f| !f.generic) {
        calls.visit_block(&f.body);
    }
    calls.out
}

fn dump(art: &mut Artifacts, opts: &Options, stage: &str, module: &Module) {
    if opts.dump_ir_after.iter().any(|s| s == stage) {
        art.ir_dumps.push((stage.to_string(), ir::dump_body::module(module)));
    }
}

/// Runs the verifier; on violations records them as errors and returns false.
fn verified(art: &mut Artifacts, module: &Module, expect: Expect, after: &str) -> bool {
    let found = verify::check_after(module, expect, after);
    if found.is_empty() {
        return true;
    }
    art.diagnostics.extend(found);
    art.failed = Some(Stage::Verify);
    false
}

/// Runs the back ends; `untyped` are the Rust back end's errors about exports found before
/// pruning.
fn back_ends(
    art: &mut Artifacts,
    loader: &Loader,
    opts: &Options,
    module: &Module,
    info: &ModuleInfo,
    mut untyped: Vec<Diagnostic>,
) {
    for back_end in &opts.back_ends {
        match back_end {
            BackEnd::Ptx => {
                let builds = ptx::emit_builds(module, info, &loader.map.names());
                // Kernels left out of the PTX run on the CPU: warnings, not errors.
                art.diagnostics.extend(builds.release.diagnostics.iter().cloned());
                art.ptx = Some(builds);
            }
            BackEnd::Rust => {
                let imported = loader
                    .files
                    .iter()
                    .map(|f| {
                        (
                            f.file,
                            loader.map.name(f.file).to_string(),
                            loader.map.source(f.file).to_string(),
                        )
                    })
                    .collect();
                let ropts = rust::Options {
                    scalar: crate::sema::types::Precision::Default.resolved(opts.double),
                    krate: opts.krate.clone(),
                    file_name: opts.name.clone(),
                    source: opts.source.clone(),
                    imported,
                };
                let out = rust::generate(module, info, &ropts, art.ptx.as_ref());
                untyped.extend(out.diagnostics);
                if untyped.iter().any(|d| d.is_error()) {
                    art.failed = Some(Stage::CodeGeneration);
                }
                art.diagnostics.append(&mut untyped);
                art.rust = Some(out.tokens);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(src: &str, back_ends: Vec<BackEnd>) -> Options {
        Options { back_ends, ..Options::new("t.q", src, "t.q") }
    }

    const KERNEL: &str = "function [] = __kernel__ k(x : vec, pos : int)
    x[pos] = 2 * x[pos]
endfunction
function [] = twice(x : vec)
    parallel_do(numel(x), x, k)
endfunction
";

    #[test]
    fn every_stage_runs_and_the_rust_embeds_the_ptx_it_reports() {
        let (art, _) = compile(&opts(KERNEL, vec![BackEnd::Ptx, BackEnd::Rust]));
        assert!(!art.has_errors(), "{:?}", art.diagnostics);
        let ptx = art.ptx.as_ref().expect("ptx");
        assert!(ptx.release.text.contains(".entry k"));
        let rust = art.rust.as_ref().expect("rust").to_string();
        let embedded: String = ptx.release.text.chars().filter(|c| !c.is_whitespace()).collect();
        let in_rust: String = rust
            .replace("\\n", "")
            .replace("\\t", "")
            .replace("\\\"", "\"")
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect();
        assert!(in_rust.contains(&embedded), "the Rust items embed the reported PTX");
    }

    #[test]
    fn errors_stop_at_their_stage() {
        let (art, _) = compile(&opts("x = (1\n", vec![BackEnd::Rust]));
        assert_eq!(art.failed, Some(Stage::Syntax));
        let (art, _) = compile(&opts("x = undefined_thing + 1\n", vec![BackEnd::Rust]));
        assert_eq!(art.failed, Some(Stage::Type));
        assert!(art.checked.is_some() && art.rust.is_none());
        let (art, _) = compile(&opts("import \"nope.q\"\n", vec![BackEnd::Rust]));
        assert_eq!(art.failed, Some(Stage::Import));
    }

    #[test]
    fn declared_transfers_that_the_body_contradicts_are_errors_at_the_parameter() {
        let src = "function [] = __device__ put(y : vec, i : int)
    y[i] = 1.0
endfunction
function [] = __kernel__ k(x : vec'const, y : vec'nocopy, pos : int)
    put(x, pos)
    s = y[pos]
endfunction
function [] = run(x : vec, y : vec)
    parallel_do(numel(x), x, y, k)
endfunction
";
        let (art, loader) = compile(&opts(src, vec![BackEnd::Rust]));
        assert_eq!(art.failed, Some(Stage::CodeGeneration));
        let text = loader.map.render(&art.diagnostics);
        assert!(text.contains("`k` writes its `'const` parameter `x`"), "{text}");
        assert!(text.contains("never writes its `'nocopy` parameter `y`"), "{text}");
        assert!(text.contains("t.q:4:28") && text.contains("t.q:4:43"), "{text}");
    }

    #[test]
    fn the_analysis_dump_says_what_each_launch_copies() {
        let mut o = opts(KERNEL, Vec::new());
        o.dump_ir_after = vec!["analysis".into()];
        let (art, _) = compile(&o);
        assert_eq!(art.ir_dumps.len(), 1);
        assert_eq!(art.ir_dumps[0].1, "__kernel__ k(x copied both ways)\n");
        assert_eq!(stage_names().last(), Some(&"analysis"));
    }

    #[test]
    fn the_ir_is_dumped_after_the_stages_asked_for() {
        let mut o = opts(KERNEL, Vec::new());
        o.dump_ir_after = vec!["check".into(), "fold-guards".into()];
        let (art, _) = compile(&o);
        let stages: Vec<&str> = art.ir_dumps.iter().map(|(s, _)| s.as_str()).collect();
        assert_eq!(stages, ["check", "fold-guards"]);
        assert!(art.ir_dumps[1].1.contains("parallel_do"), "{}", art.ir_dumps[1].1);
        assert!(stage_names().contains(&"prune"));
    }
}
