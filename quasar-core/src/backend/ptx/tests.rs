//! Emitted instruction sequences of small kernels. (`tests/ptxas.rs` assembles them all.)

use super::{
    emit_module, emit_module_with, PtxKernel, PtxOptions, PtxOutput, PtxParamRole, PtxSiteKind,
};
/// The module of `src` after the driver's passes (verified), as the back ends get it.
pub(super) fn module_of(src: &str) -> crate::ir::Module {
    module_in(src, false)
}

/// The checked IR of `src` compiled with or without double mode (`scalar` is `f64`).
fn module_in(src: &str, double: bool) -> crate::ir::Module {
    let opts = crate::driver::Options { double, ..crate::driver::Options::new("t.q", src, "t.q") };
    let (art, _) = crate::driver::compile(&opts);
    let errors: Vec<_> = art.diagnostics.iter().filter(|d| d.is_error()).collect();
    assert!(errors.is_empty(), "{errors:?}");
    art.module.expect("a module")
}

/// The PTX of `src` with each kernel's body as written: these tests look at how the emitter
/// handles every construct, so the interior copies of partitioned kernels (tested below and
/// in `partition.rs`) are left out.
pub(super) fn compile(src: &str, opts: &PtxOptions) -> PtxOutput {
    compile_in(src, false, opts)
}

/// [`compile`] with or without double mode.
fn compile_in(src: &str, double: bool, opts: &PtxOptions) -> PtxOutput {
    let mut m = module_in(src, double);
    m.functions.iter_mut().for_each(|f| f.partition = None);
    emit_module_with(&m, opts)
}

pub(super) fn ptx(src: &str) -> PtxOutput {
    compile(src, &PtxOptions::default())
}

/// The instruction lines of `src`'s kernels (no directives or comments), which must compile
/// without diagnostics.
pub(super) fn instruction_lines(src: &str) -> Vec<String> {
    let out = ptx(src);
    assert!(out.diagnostics.is_empty(), "{:?}", out.diagnostics);
    out.text
        .lines()
        .filter_map(|l| l.trim().strip_suffix(';'))
        .filter(|l| !l.starts_with('.') && !l.starts_with("//"))
        .map(str::to_string)
        .collect()
}

/// The text of the entry whose name starts with `name`.
fn body<'a>(out: &'a PtxOutput, name: &str) -> &'a str {
    let start = out
        .text
        .find(&format!(".entry {name}"))
        .unwrap_or_else(|| panic!("no entry {name} in\n{}", out.text));
    let rest = &out.text[start..];
    &rest[..rest.find("\n}\n").unwrap_or(rest.len())]
}

fn kernel<'a>(out: &'a PtxOutput, name: &str) -> &'a PtxKernel {
    out.kernels.iter().find(|k| k.entry.starts_with(name)).expect("kernel")
}

/// The instructions (opcode with its type suffixes) in order, without operands.
fn opcodes(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| l.trim().strip_suffix(';'))
        .filter(|l| !l.starts_with(".reg") && !l.starts_with(".shared"))
        .map(|l| {
            // Drop a guard predicate (`@%p1 ld.global.f32 …`).
            let l = if l.starts_with('@') { l.split_once(' ').map_or("", |x| x.1) } else { l };
            l.split_whitespace().next().unwrap_or("").to_string()
        })
        .collect()
}

const COPY: &str = "
function [] = __kernel__ copy(x : vec'MODE, y : vec'unchecked, pos : int)
    y[pos] = x[pos + 1]
endfunction
parallel_do(4, ones(4), zeros(4), copy)
";

fn copy_with(mode: &str) -> String {
    let out = ptx(&COPY.replace("MODE", mode));
    assert!(out.diagnostics.is_empty(), "{:?}", out.diagnostics);
    body(&out, "copy").to_string()
}

#[test]
fn unchecked_access_has_no_bounds_test() {
    let b = copy_with("unchecked");
    let ops = opcodes(&b);
    // The only comparison is the launch-edge test of `pos`.
    assert_eq!(ops.iter().filter(|o| o.starts_with("setp")).count(), 1, "{b}");
    assert!(b.contains("\tld.global.f32"), "an unpredicated load: {b}");
    assert!(b.contains("\tst.global.f32"), "an unpredicated store: {b}");
}

#[test]
fn safe_access_reads_zero_outside() {
    let b = copy_with("safe");
    let seq = ["setp.lt.u32", "mul.wide.s32", "add.s64", "mov.f32", "ld.global.f32"];
    let ops = opcodes(&b);
    let at = ops.iter().position(|o| o == "setp.lt.u32").expect("bounds test");
    assert_eq!(&ops[at..at + seq.len()], &seq, "{b}");
    assert!(b.contains("0f00000000;\n\t@%p"), "zero, then a predicated load: {b}");
}

#[test]
fn clamped_access_uses_min_max() {
    let b = copy_with("clamped");
    let ops = opcodes(&b);
    let at = ops.iter().position(|o| o == "max.s32").expect("max");
    assert_eq!(ops[at + 1], "min.s32", "{b}");
    assert!(!ops.contains(&"setp.lt.u32".to_string()), "no bounds test: {b}");
}

#[test]
fn circular_and_mirror_wrap_the_index() {
    let b = copy_with("circular");
    assert!(b.contains("rem.s32"), "{b}");
    let b = copy_with("mirror");
    assert!(b.contains("rem.s32") && b.contains("shl.b32"), "{b}");
}

#[test]
fn checked_access_reports_to_the_error_word() {
    let src = COPY.replace("MODE", "checked");
    let out = ptx(&src);
    let b = body(&out, "copy");
    // The launch's own error word: the hidden last parameter, loaded where the access fails.
    let k = &out.kernels[0];
    let last = k.params.last().expect("parameters");
    assert_eq!((last.role.clone(), last.ty.as_str()), (PtxParamRole::ErrorWord, ".u64"));
    assert!(b.contains(&format!(", [{}];", last.name)), "loaded: {b}");
    assert!(!out.text.contains(".global .align 4 .u32"), "no module-wide word: {}", out.text);
    assert!(b.contains("atom.global.cas.b32") && b.contains("], 0, 1;"), "{b}");
    assert!(b.contains("+4], 0;"), "site 0: {b}");
    assert_eq!(out.check_sites.len(), 1);
    assert_eq!(out.check_sites[0].array, "x");
    // The whole index (one subscript here) and the extent go with the site.
    assert!(b.contains("+16], 1;"), "subscript count: {b}");
    assert!(b.contains("+20], 1;"), "rank: {b}");
    assert!(b.contains("+24], %r"), "subscript: {b}");
    assert!(b.contains("+56], %r"), "extent: {b}");
}

#[test]
fn kernels_that_cannot_fail_take_no_error_word() {
    let out = ptx(&COPY.replace("MODE", "safe"));
    assert!(out.check_sites.is_empty());
    let roles: Vec<_> = out.kernels[0].params.iter().map(|p| p.role.clone()).collect();
    assert!(!roles.contains(&PtxParamRole::ErrorWord), "{roles:?}");
}

#[test]
fn debug_builds_check_unchecked_accesses() {
    let opts = PtxOptions { check_unchecked: true, ..PtxOptions::default() };
    let out = compile(&COPY.replace("MODE", "unchecked"), &opts);
    assert_eq!(out.check_sites.len(), 2, "x and y");
}

#[test]
fn error_and_assert_report_their_site_and_end_the_thread() {
    let out = ptx("
function [] = __kernel__ k(y : vec, s : int, pos : int)
    assert(s >= 0)
    assert(s < 9, \"too far\")
    if pos + s >= numel(y)
        error(\"past \", \"the end\")
    endif
    y[pos] = s
endfunction
parallel_do(4, zeros(4), 1, k)
");
    assert!(out.diagnostics.is_empty(), "{:?}", out.diagnostics);
    let kinds: Vec<_> = out.check_sites.iter().map(|s| (s.kind.clone(), s.span.line)).collect();
    let cond = |k: &PtxSiteKind| match k {
        PtxSiteKind::Assert { cond, .. } => *cond,
        _ => crate::span::Span::default(),
    };
    assert_eq!(
        kinds,
        [
            (PtxSiteKind::Assert { message: None, cond: cond(&kinds[0].0) }, 3),
            (PtxSiteKind::Assert { message: Some("too far".into()), cond: cond(&kinds[1].0) }, 4),
            (PtxSiteKind::Error("past the end".into()), 6),
        ]
    );
    let b = body(&out, "k");
    for site in 0..3 {
        assert!(b.contains(&format!("+4], {site};")), "{b}");
    }
    assert_eq!(b.matches("\texit;").count(), 3, "{b}");
}

#[test]
fn error_messages_with_values_keep_the_kernel_on_the_cpu() {
    let out = ptx("
function [] = __kernel__ k(y : vec, s : int, pos : int)
    if s < 0
        error(\"negative shift \", s)
    endif
    y[pos] = s
endfunction
parallel_do(4, zeros(4), 1, k)
");
    assert!(out.kernels.is_empty());
    assert_eq!(out.diagnostics.len(), 1);
    assert!(
        out.diagnostics[0].message.contains(
            "a value that is not a string literal in the message of `error` is not supported"
        ),
        "{:?}",
        out.diagnostics
    );
}

#[test]
fn compound_assignment_on_elements_is_atomic() {
    let out = ptx("
function [] = __kernel__ hist(x : vec[int], h : vec[int], s : vec, pos : int)
    h[x[pos]] += 1
    s[pos] += 2.0
    s[0] ^^= 1.0
    h[0] |= 4
endfunction
parallel_do(4, [1, 2, 3, 4], int(zeros(4)), zeros(4), hist)
");
    let b = body(&out, "hist");
    assert!(b.contains("atom.global.add.s32"), "{b}");
    assert!(b.contains("atom.global.add.f32"), "{b}");
    assert!(b.contains("atom.global.cas.b32"), "float max is a CAS loop: {b}");
    assert!(b.contains("atom.global.or.b32"), "{b}");
}

#[test]
fn special_parameters_map_the_last_dimension_to_x() {
    let out = ptx("
function [] = __kernel__ k(y : cube, pos : ivec3, blkpos : ivec3)
    y[pos] = blkpos[2]
endfunction
parallel_do([2, 3, 4], zeros(2, 3, 4), k)
");
    let b = body(&out, "k");
    let mads: Vec<&str> = b.lines().filter(|l| l.contains("%ctaid.")).collect();
    assert!(mads[0].contains("%ctaid.z") && mads[2].contains("%ctaid.x"), "{b}");
    // Threads past the launch edge leave: one test per dimension.
    assert_eq!(b.matches("setp.ge.u32").count(), 3, "{b}");
    assert!(b.contains("mov.u32 %r") && b.contains("%tid.x"), "{b}");
    assert_eq!(kernel(&out, "k").launch_rank, 3);
    assert!(kernel(&out, "k").block_sensitive);
}

#[test]
fn parameter_abi() {
    let out = ptx("
function [s : scalar] = __kernel__ k(a : mat, f : scalar, n : int, c : ivec2, pos : ivec2)
    s += a[pos] * f + n + c[0]
endfunction
s = parallel_do([3, 3], ones(3, 3), 2.0, 4, [1, 2], k)
");
    let k = kernel(&out, "k");
    let roles: Vec<PtxParamRole> = k.params.iter().map(|p| p.role.clone()).collect();
    use PtxParamRole::*;
    assert_eq!(
        roles,
        vec![
            LaunchDim { dim: 0 },
            LaunchDim { dim: 1 },
            ArrayData { arg: 0 },
            ArrayExtent { arg: 0, dim: 0 },
            ArrayExtent { arg: 0, dim: 1 },
            Value { arg: 1, by_bytes: false },
            Value { arg: 2, by_bytes: false },
            ArrayData { arg: 3 },
            ArrayExtent { arg: 3, dim: 0 },
            Output { output: 0 },
        ]
    );
    let types: Vec<&str> = k.params.iter().map(|p| p.ty.as_str()).collect();
    assert_eq!(
        types,
        [".u32", ".u32", ".u64", ".u32", ".u32", ".f32", ".s32", ".u64", ".u32", ".u64"]
    );
    assert_eq!(k.params[2].declaration(), ".param .u64 k_0_a0");
    let b = body(&out, "k");
    assert!(b.contains(".param .u64 k_0_a3,\n\t.param .u32 k_0_a3_d0,"), "{b}");
    assert!(b.contains("atom.global.add.f32"), "the output is combined atomically: {b}");
}

#[test]
fn int_division_gives_scalar_and_comparisons_give_int() {
    let out = ptx("
function [] = __kernel__ k(y : vec, z : vec[int], a : int, b : int, pos : int)
    y[pos] = a / b
    z[pos] = a < b
endfunction
parallel_do(4, zeros(4), int(zeros(4)), 1, 2, k)
");
    let ops = opcodes(body(&out, "k"));
    let at = ops.iter().position(|o| o == "div.rn.f32").expect("float division");
    assert_eq!(&ops[at - 2..at], ["cvt.rn.f32.s32", "cvt.rn.f32.s32"]);
    let at = ops.iter().position(|o| o == "setp.lt.s32").expect("comparison");
    assert_eq!(ops[at + 1], "selp.s32");
}

#[test]
fn float_conditions_are_unordered_so_nan_is_true() {
    // The CPU back end tests `x != 0.0`, which is true for NaN: an ordered `setp.ne` would be
    // false for NaN on the GPU only.
    let out = ptx("
function [s : scalar] = __kernel__ k(x : vec, y : vec, pos : int)
    if x[pos]
        y[pos] = 1.0
    endif
    s = x[pos]
endfunction
parallel_do(4, ones(4), zeros(4), k)
");
    let b = body(&out, "k");
    assert_eq!(b.matches("setp.neu.f32").count(), 2, "`if x` and the output's `=`: {b}");
    assert!(!b.contains("setp.ne.f32"), "{b}");
    let ints = ptx("
function [] = __kernel__ k(x : vec[int], y : vec, pos : int)
    if x[pos]
        y[pos] = 1.0
    endif
endfunction
parallel_do(4, int(ones(4)), zeros(4), k)
");
    assert!(body(&ints, "k").contains("setp.ne.s32"), "integers keep `ne`");
}

#[test]
fn syncthreads_is_a_barrier_without_early_exit() {
    let out = ptx("
function [] = __kernel__ k(x : vec, y : vec, pos : int, blkpos : int)
    t = shared_zeros(64)
    t[blkpos] = x[pos]
    syncthreads
    y[pos] = t[63 - blkpos]
endfunction
parallel_do(64, ones(64), zeros(64), k)
");
    let b = body(&out, "k");
    assert!(b.contains("bar.sync 0"), "{b}");
    assert!(!b.contains("bra $L__1;"), "no early exit: {b}");
    assert!(b.contains("mov.u64 %rd") && b.contains(", quasar_shared;"), "dynamic: {b}");
    assert!(out.text.contains(".extern .shared .align 64 .b8 quasar_shared[];"), "{}", out.text);
    assert!(b.contains("st.shared.f32") && b.contains("ld.shared.f32"), "{b}");
}

#[test]
fn shared_arrays_follow_the_cpu_layout_in_dynamic_shared_memory() {
    let out = ptx("
function [] = __kernel__ k(x : mat, pos : ivec2, blkpos : ivec2, blkdim : ivec2)
    a = shared(blkdim)
    b = shared(blkdim[0] + 1, 3)
    a[blkpos] = x[pos]
    b[blkpos[0], 0] = 1.0
    syncthreads
    x[pos] = a[blkdim - blkpos - 1] + b[blkpos[0], 0]
    if pos[0] == 0
        c = shared(8)
        c[0] = 1.0
    endif
endfunction
parallel_do([16, 16], ones(16, 16), k)
");
    assert!(out.diagnostics.is_empty(), "{:?}", out.diagnostics);
    let b = body(&out, "k");
    // Two arrays at offsets rounded up to 64, the sizes from blkdim at run time.
    assert_eq!(b.matches("and.b64").count(), 2, "{b}");
    assert_eq!(b.matches(", quasar_shared;").count(), 2, "{b}");
    // The one in a branch has a constant size: a static array.
    assert!(b.contains(".shared .align 16 .b8 k_0_sh0[32]"), "{b}");
    assert!(kernel(&out, "k").block_sensitive);
}

#[test]
fn device_functions_are_inlined() {
    let out = ptx("
function y = __device__ twice(x : scalar)
    y = 2.0 * x
endfunction
function [] = __kernel__ k(y : vec, pos : int)
    y[pos] = twice(twice(y[pos]))
endfunction
parallel_do(4, zeros(4), k)
");
    let b = body(&out, "k");
    assert_eq!(b.matches("mul.f32").count(), 2, "{b}");
    assert!(!b.contains("call"), "{b}");
}

#[test]
fn unsupported_kernels_are_skipped_with_a_warning() {
    let out = ptx("
function [] = __kernel__ k(y : vec, pos : int)
    print pos
endfunction
parallel_do(4, zeros(4), k)
");
    assert!(out.kernels.is_empty());
    assert!(!out.text.contains(".entry"));
    assert_eq!(out.diagnostics.len(), 1);
    let d = &out.diagnostics[0];
    assert!(!d.is_error());
    assert_eq!(
        d.message,
        "kernel `k` is not compiled for NVIDIA GPUs: `print` is not supported by the PTX back \
         end yet"
    );
    assert_eq!(d.span.line, 3);
}

#[test]
fn entry_names_are_valid_identifiers() {
    let out = ptx("
function y = f(x : vec)
    y = zeros(size(x))
    parallel_do(size(x), __kernel__ (pos : int) -> y[pos] = x[pos] + 1.0)
endfunction
print f(ones(3))
");
    let k = &out.kernels[0];
    assert!(k.entry.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'), "{}", k.entry);
    assert!(k.entry.starts_with("lambda"), "{}", k.entry);
    // The captured arrays are launch arguments after the (absent) explicit ones.
    assert!(matches!(k.params[1].role, PtxParamRole::ArrayData { arg: 0 }));
}

#[test]
fn double_mode_uses_f64() {
    let out = compile_in(&COPY.replace("MODE", "safe"), true, &PtxOptions::default());
    let b = body(&out, "copy");
    assert!(b.contains("ld.global.f64") && b.contains("mul.wide.s32 %rd") && b.contains(", 8;"));
}

#[test]
fn header_and_empty_module() {
    let out = emit_module(&crate::ir::Module::default());
    assert!(out.text.contains(".version 7.8\n.target sm_80\n.address_size 64\n"));
    assert!(out.kernels.is_empty() && out.diagnostics.is_empty());
}

#[test]
fn small_constant_powers_are_multiplications() {
    let out = ptx("
function [] = __kernel__ k(y : vec, pos : int)
    v = y[pos]
    y[pos] = v ^ 2 + v ^ -1.0 - v
endfunction
parallel_do(4, zeros(4), k)
");
    let b = body(&out, "k");
    assert!(!b.contains("lg2.approx"), "no general power routine: {b}");
    assert_eq!(b.matches("mul.f32").count(), 3, "1·v·v and 1·v: {b}");
    assert!(b.contains("div.rn.f32"), "{b}");
}

#[test]
fn general_power_and_negation() {
    let out = ptx("
function [] = __kernel__ k(y : vec, g : scalar, pos : int)
    y[pos] = -(y[pos] ^ g)
endfunction
parallel_do(4, zeros(4), 0.5, k)
");
    let b = body(&out, "k");
    let ops = opcodes(b);
    let at = ops.iter().position(|o| o == "lg2.approx.f32").expect("log");
    assert_eq!(&ops[at - 1..at + 3], ["abs.f32", "lg2.approx.f32", "mul.f32", "ex2.approx.f32"]);
    assert!(ops.contains(&"neg.f32".to_string()), "{b}");
}

const MATH: &str = "
function [] = __kernel__ k(x : vec, pos : int)
    x[pos] = FN
endfunction
parallel_do(4, zeros(4), k)
";

fn math_body(expr: &str, double: bool) -> String {
    let out = compile_in(&MATH.replace("FN", expr), double, &PtxOptions::default());
    assert!(out.diagnostics.is_empty(), "{:?}", out.diagnostics);
    body(&out, "k").to_string()
}

#[test]
fn f64_math_is_our_own_routines() {
    for f in ["exp", "exp2", "log", "log2", "log10", "sin", "cos", "tan", "atan", "asin", "acos"] {
        let b = math_body(&format!("{f}(x[pos])"), true);
        assert!(b.contains("fma.rn.f64"), "{f}: a polynomial in fma.rn.f64: {b}");
        assert!(!b.contains(".approx"), "{f}: no approximate instructions: {b}");
    }
    let b = math_body("pow(x[pos], 2.5) + atan2(x[pos], 2.0) + x[pos] ^ 1.5", true);
    assert!(b.contains("cvt.rni.f64.f64"), "reductions round to integers: {b}");
    // sqrt is IEEE in both precisions.
    assert!(math_body("sqrt(x[pos])", true).contains("sqrt.rn.f64"));
}

#[test]
fn f32_inverse_trigonometry_goes_through_f64() {
    let b = math_body("atan(x[pos]) + tanh(x[pos])", false);
    let ops = opcodes(&b);
    assert!(ops.iter().any(|o| o == "cvt.f64.f32"), "{b}");
    assert!(ops.iter().any(|o| o == "cvt.rn.f32.f64"), "{b}");
    // exp/sin stay on the hardware approximations in single precision.
    assert!(math_body("exp(x[pos]) + sin(x[pos])", false).contains("ex2.approx.f32"));
}

const COMPLEX: &str = "
function [] = __kernel__ cdiv(x : cvec, w : cscalar, pos : int)
    x[pos] = x[pos] / w
endfunction
parallel_do(4, complex(zeros(4)), 1i, cdiv)
";

#[test]
fn complex_elements_are_two_words_and_division_is_num_complex() {
    let out = ptx(COMPLEX);
    assert!(out.diagnostics.is_empty(), "{:?}", out.diagnostics);
    let k = kernel(&out, "cdiv");
    let w = k.params.iter().find(|p| p.role == PtxParamRole::Value { arg: 1, by_bytes: true });
    let w = w.expect("the complex parameter by value");
    assert_eq!(
        (w.declaration().replace(&w.name, "w"), w.bytes),
        (".param .align 4 .b8 w[8]".into(), 8)
    );
    let b = body(&out, "cdiv");
    assert!(b.contains("mul.wide.s32") && b.contains(", 8;"), "8-byte elements: {b}");
    assert!(b.contains("+4]"), "the imaginary part 4 bytes on: {b}");
    // num-complex: (xu + yv)/(u² + v²), (yu − xv)/(u² + v²): two divisions by the norm.
    let ops = opcodes(b);
    assert_eq!(ops.iter().filter(|o| *o == "div.rn.f32").count(), 2, "{b}");
    let d = compile_in(COMPLEX, true, &PtxOptions::default());
    let b = body(&d, "cdiv");
    assert!(b.contains("+8]") && b.contains("div.rn.f64"), "complex<f64> in double mode: {b}");
}

#[test]
fn complex_builtins() {
    let src = "
function [] = __kernel__ parts(x : cvec'const, y : vec, pos : int)
    z = conj(x[pos]) * 2i
    y[pos] = abs(z) + real(z) - imag(z) + angle(z)
endfunction
parallel_do(4, complex(zeros(4)), zeros(4), parts)
";
    let out = ptx(src);
    assert!(out.diagnostics.is_empty(), "{:?}", out.diagnostics);
    let b = body(&out, "parts");
    assert!(b.contains("sqrt.rn.f32"), "abs is a hypot: {b}");
    assert!(b.contains("testp.infinite.f32"), "abs of an infinite part is ∞: {b}");
    // An unsupported built-in on complex numbers is a warning, not a panic.
    let out = ptx(&src.replace("angle(z)", "real(exp(z))"));
    assert_eq!(out.diagnostics.len(), 1);
    assert!(out.diagnostics[0].message.contains("on complex numbers"), "{:?}", out.diagnostics);
}

#[test]
fn half_is_16_bits_in_memory_and_rounded_after_each_operation() {
    let src = "
function [] = __kernel__ haxpy(x : vec[scalar'half], a : scalar'half, pos : int)
    x[pos] = a * x[pos] + 0.1
endfunction
parallel_do(4, zeros(4), 2.0, haxpy)
";
    let out = ptx(src);
    assert!(out.diagnostics.is_empty(), "{:?}", out.diagnostics);
    let k = kernel(&out, "haxpy");
    assert!(k.params.iter().any(|p| p.ty == ".b16" && p.bytes == 2), "{:?}", k.params);
    let b = body(&out, "haxpy");
    let ops = opcodes(b);
    let seq = ["ld.global.b16", "cvt.f32.f16", "mul.f32", "cvt.rn.f16.f32", "cvt.f32.f16"];
    let at = ops.iter().position(|o| o == "ld.global.b16").expect("a 16-bit load");
    assert_eq!(&ops[at..at + seq.len()], &seq, "{b}");
    // half + scalar is a scalar: the sum is single precision, rounded once by the store.
    let seq = ["add.f32", "cvt.rn.f16.f32", "cvt.f32.f16"];
    let at = ops.iter().position(|o| o == "add.f32").expect("the addition");
    assert_eq!(&ops[at..at + seq.len()], &seq, "{b}");
    assert!(b.contains("st.global.b16"), "{b}");
}

#[test]
fn rounding_to_half() {
    use super::regs::round_f16;
    assert_eq!(round_f16(0.1), 1638.0 / 16384.0);
    assert_eq!(round_f16(65504.0), 65504.0);
    assert_eq!(round_f16(65520.0), f32::INFINITY);
    assert_eq!(round_f16(-1.0 / 3.0), -1365.0 / 4096.0);
    assert_eq!(round_f16(1e-8), 0.0);
    assert_eq!(round_f16(2.0f64.powi(-24)), 2.0f32.powi(-24));
    assert_eq!(round_f16(1.0 + 2.0f64.powi(-11)), 1.0, "ties to even");
}

/// The lines of entry `name` between its interior and border markers.
fn interior_of<'t>(text: &'t str, name: &str) -> Vec<&'t str> {
    let start = text.find(&format!(".entry {name}")).unwrap_or_else(|| panic!("{name}"));
    let entry = &text[start..text[start..].find("\n}\n").map_or(text.len(), |e| start + e)];
    entry
        .lines()
        .skip_while(|l| !l.contains("// interior"))
        .take_while(|l| !l.contains("// border"))
        .collect()
}

#[test]
fn the_pipeline_interior_taps_have_no_boundary_handling() {
    let src = include_str!("../../../../examples/pipeline.q");
    let out = emit_module(&module_of(src));
    for kernel in ["blur_horizontal", "blur_vertical", "sharpen_kernel"] {
        let interior = interior_of(&out.text, kernel);
        assert!(interior.len() > 5, "{kernel} has an interior copy:\n{}", out.text);
        assert!(interior.iter().any(|l| l.contains("ld.global.f32")), "{kernel}: {interior:#?}");
        for l in &interior {
            // No mirroring or wrapping (`rem`), clamping (`min`/`max` on indices) or
            // predicated (range-tested) loads of the image.
            assert!(
                !l.contains("rem.") && !l.contains("min.s32") && !l.contains("max.s32"),
                "{kernel}: {l}"
            );
            assert!(!(l.contains('@') && l.contains("ld.global")), "{kernel}: {l}");
        }
    }
}

#[test]
fn source_lines_are_loc_directives_when_the_files_are_named() {
    let src = "function [] = __kernel__ k(x : vec, pos : int)\n    x[pos] = 2 * x[pos]\n    x[pos] += 1\nendfunction\n";
    let opts =
        PtxOptions { files: vec!["t.q".into(), "lib/\"odd\".q".into()], ..PtxOptions::default() };
    let text = compile(src, &opts).text;
    assert!(text.contains(".file 1 \"t.q\"\n.file 2 \"lib/_odd_.q\"\n"), "{text}");
    // One `.loc` per Quasar line of the body (file 1, line, column of the statement).
    assert!(text.contains("\t.loc 1 2 5\n") && text.contains("\t.loc 1 3 5\n"), "{text}");
    assert!(!text.contains("// line"), "{text}");
    // Without file names: comments.
    let plain = ptx(src).text;
    assert!(!plain.contains(".loc") && !plain.contains(".file"), "{plain}");
    assert!(plain.contains("\t// line 2\n"), "{plain}");
}
