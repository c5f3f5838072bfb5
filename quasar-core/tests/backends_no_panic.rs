//! No-panic property tests through the driver to both back ends: for generated programs
//! (kernels with every access mode, offsets, loops, device functions and function values,
//! special parameters under both spellings, and mutations of the project's own Quasar files),
//! compilation gives code or a diagnostic, never a panic; the verifier never finds a broken
//! IR; and the Rust of a program that compiles always parses (`syn`) and names only the
//! functions, types and locals it defines (no undefined `__QFn0` or `q_warpSize_1`).

use proptest::prelude::*;
use quasar_core::driver::{self, BackEnd, Options, Stage};
use std::collections::HashSet;
use syn::visit::Visit;

/// Compiles `src` to PTX and Rust and checks what comes out.
fn compile(src: &str) -> Result<(), String> {
    let opts = Options {
        back_ends: vec![BackEnd::Ptx, BackEnd::Rust],
        ..Options::new("fuzz.q", src, "fuzz.q")
    };
    let (art, _) = driver::compile(&opts);
    if art.failed == Some(Stage::Verify) {
        return Err(format!("the verifier rejects the IR: {:?}", art.diagnostics));
    }
    let errors = art.has_errors();
    let (Some(tokens), false) = (art.rust, errors) else { return Ok(()) };
    let file: syn::File =
        syn::parse2(tokens).map_err(|e| format!("the generated Rust does not parse: {e}"))?;
    let mut names = Names::default();
    names.visit_file(&file);
    let undefined: Vec<&String> =
        names.used.iter().filter(|n| generated(n) && !names.defined.contains(*n)).collect();
    if !undefined.is_empty() {
        return Err(format!("the generated Rust uses undefined names {undefined:?}"));
    }
    Ok(())
}

/// The identifiers the Rust back end makes up (functions, modules, enums, statics, locals).
fn generated(name: &str) -> bool {
    name.starts_with("q_") || name.starts_with("__q_") || name.starts_with("__Q")
}

/// The identifiers a file defines and the single-segment paths it uses.
#[derive(Default)]
struct Names {
    defined: HashSet<String>,
    used: HashSet<String>,
}

impl<'a> Visit<'a> for Names {
    fn visit_item_fn(&mut self, f: &'a syn::ItemFn) {
        self.defined.insert(f.sig.ident.to_string());
        syn::visit::visit_item_fn(self, f);
    }
    fn visit_item_enum(&mut self, e: &'a syn::ItemEnum) {
        self.defined.insert(e.ident.to_string());
        syn::visit::visit_item_enum(self, e);
    }
    fn visit_item_mod(&mut self, m: &'a syn::ItemMod) {
        // Each kernel is an inner module named like the kernel (`q_blur::run`).
        self.defined.insert(m.ident.to_string());
        syn::visit::visit_item_mod(self, m);
    }
    fn visit_item_static(&mut self, s: &'a syn::ItemStatic) {
        self.defined.insert(s.ident.to_string());
        syn::visit::visit_item_static(self, s);
    }
    fn visit_pat_ident(&mut self, p: &'a syn::PatIdent) {
        self.defined.insert(p.ident.to_string());
        syn::visit::visit_pat_ident(self, p);
    }
    fn visit_path(&mut self, p: &'a syn::Path) {
        if let Some(first) = p.segments.first() {
            self.used.insert(first.ident.to_string());
        }
        syn::visit::visit_path(self, p);
    }
    fn visit_macro(&mut self, _: &'a syn::Macro) {
        // `quote!`-made macro calls (`format!`) hold no generated names.
    }
}

// ---- generated kernels --------------------------------------------------------------------

fn mode() -> impl Strategy<Value = &'static str> {
    prop::sample::select(
        &["", "'safe", "'checked", "'unchecked", "'clamped", "'mirror", "'circular"][..],
    )
}

fn offset() -> impl Strategy<Value = String> {
    prop_oneof![
        (-2i32..=2).prop_map(|c| c.to_string()),
        Just("i".to_string()),
        Just("i - n".to_string()),
        Just("n".to_string()),
        Just("-n".to_string()),
    ]
}

/// One statement of a kernel over a matrix (`pos : ivec2`), with `acc`, `i`, `n` in scope.
fn kernel_stmt() -> impl Strategy<Value = String> {
    prop_oneof![
        (offset(), offset()).prop_map(|(a, b)| format!("acc += x[pos[0] + {a}, pos[1] + {b}]")),
        (offset(), offset()).prop_map(|(a, b)| format!("acc += x[pos + [{a}, {b}]]")),
        offset().prop_map(|a| format!(
            "for i = -n..n\n        acc += x[pos[0], pos[1] + {a}] * w[i + n]\n    endfor"
        )),
        Just("y[pos] = acc".to_string()),
        Just("y[pos] += 1".to_string()),
        Just("if pos[0] < n\n        acc = acc * 2\n    endif".to_string()),
        Just("put(y, pos, acc)".to_string()),
        Just("acc += f(acc)".to_string()),
        Just("acc += lane".to_string()),
        Just("acc += numel(w) + size(x, 1)".to_string()),
        Just("y[pos[0], 0] = x[pos[1], pos[0]]".to_string()),
        Just("z = x\n    acc += z[pos]".to_string()),
        Just("syncthreads".to_string()),
    ]
}

fn kernel_program() -> impl Strategy<Value = String> {
    (
        mode(),
        mode(),
        prop::sample::select(&["warpSize", "warpsize"][..]),
        prop::collection::vec(kernel_stmt(), 1..6),
        any::<bool>(),
    )
        .prop_map(|(mx, my, warp, stmts, value)| {
            let body = stmts.join("\n    ");
            let (fparam, farg) = if value {
                (", f : [__device__ scalar -> scalar]", ", sq")
            } else {
                ("", "")
            };
            let call_f = if value { "" } else { "\nfunction y = __device__ f(x : scalar)\n    y = 2 * x\nendfunction" };
            format!(
                "function [] = __device__ put(y : mat, p : ivec2, v : scalar)
    y[p] = v
endfunction{call_f}
function y = __device__ sq(x : scalar)
    y = x * x
endfunction
function [] = __kernel__ k(x : mat{mx}, y : mat{my}, w : vec, n : int{fparam}, pos : ivec2, {warp} : int)
    acc = 0.0
    lane = {warp}
    {body}
endfunction
function y : mat = run(x : mat, w : vec, n : int)
    y = zeros(size(x))
    parallel_do(size(x), x, y, w, n{farg}, k)
endfunction
"
            )
        })
}

// ---- mutations of the project's own programs ----------------------------------------------

/// The project's Quasar files: the end-to-end tests' kernels and the pipeline example.
fn corpus() -> &'static [String] {
    static CORPUS: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    CORPUS.get_or_init(|| {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        ["tests/common/kernels.q", "tests/common/contract.q", "examples/pipeline.q"]
            .iter()
            .filter_map(|p| std::fs::read_to_string(root.join(p)).ok())
            .collect()
    })
}

/// A corpus file with one word removed or replaced by another word of the file.
fn mutated_corpus() -> impl Strategy<Value = String> {
    (
        any::<prop::sample::Index>(),
        any::<prop::sample::Index>(),
        any::<prop::sample::Index>(),
        any::<bool>(),
    )
        .prop_map(|(f, a, b, replace)| {
            let c = corpus();
            if c.is_empty() {
                return String::new();
            }
            let src = &c[f.index(c.len())];
            let words: Vec<(usize, usize)> = src
                .char_indices()
                .filter(|(_, ch)| ch.is_alphanumeric() || *ch == '_')
                .fold(Vec::new(), |mut v: Vec<(usize, usize)>, (i, ch)| {
                    match v.last_mut() {
                        Some((_, end)) if *end == i => *end = i + ch.len_utf8(),
                        _ => v.push((i, i + ch.len_utf8())),
                    }
                    v
                });
            if words.is_empty() {
                return src.clone();
            }
            let (s, e) = words[a.index(words.len())];
            let with = if replace {
                let (s2, e2) = words[b.index(words.len())];
                &src[s2..e2]
            } else {
                ""
            };
            format!("{}{}{}", &src[..s], with, &src[e..])
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn generated_kernels_compile_to_code_or_a_diagnostic(src in kernel_program()) {
        compile(&src).map_err(|e| TestCaseError::fail(format!("{e}\n--- program ---\n{src}")))?;
    }

    #[test]
    fn mutated_project_programs_compile_to_code_or_a_diagnostic(src in mutated_corpus()) {
        compile(&src).map_err(|e| TestCaseError::fail(format!("{e}\n--- program ---\n{src}")))?;
    }
}

#[test]
fn the_project_programs_compile_and_their_rust_parses() {
    assert!(!corpus().is_empty());
    for src in corpus() {
        compile(src).unwrap_or_else(|e| panic!("{e}"));
    }
}
