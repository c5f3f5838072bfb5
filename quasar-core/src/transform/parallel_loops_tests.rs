//! The loop parallelizer through the driver: which loops become kernels, the kernel's shape,
//! and the diagnostics of loops that stay serial.

use crate::driver::{self, Options};
use crate::ir::{ExprKind, Module, StmtKind};
use crate::syntax::ast::FunctionKind;
use crate::Diagnostic;

fn compile(src: &str) -> (Option<Module>, Vec<Diagnostic>) {
    let (art, _) = driver::compile(&Options::new("t.q", src, "t.q"));
    (art.module, art.diagnostics)
}

/// The generated kernels' dumps (`parallel_for_line…`).
fn kernels(m: &Module) -> Vec<String> {
    m.functions
        .iter()
        .filter(|f| f.kind == FunctionKind::Kernel && f.name.starts_with("parallel_for"))
        .map(|f| crate::ir::dump_body::function(m, f))
        .collect()
}

fn launches(m: &Module, host: &str) -> usize {
    let f = m.functions.iter().find(|f| f.name == host).expect("host function");
    let mut n = 0;
    crate::ir::walk::walk_block(&f.body, &mut |_| {}, &mut |e| {
        n += matches!(e.kind, ExprKind::ParallelDo { .. }) as usize;
    });
    n
}

fn has_loop(m: &Module, host: &str) -> bool {
    let f = m.functions.iter().find(|f| f.name == host).expect("host function");
    let mut found = false;
    crate::ir::walk::walk_block(
        &f.body,
        &mut |s| found |= matches!(s.kind, StmtKind::ForRange { .. }),
        &mut |_| {},
    );
    found
}

fn warnings(d: &[Diagnostic]) -> Vec<String> {
    d.iter().map(|d| format!("{}: {}", d.span.line, d.message)).collect()
}

const BOX: &str = "function y : mat = box3(x : mat'clamped)
    y = zeros(size(x))
    for m = 0..size(x, 0) - 1
        for n = 0..size(x, 1) - 1
            s = 0.0
            for dm = -1..1
                for dn = -1..1
                    s += x[m + dm, n + dn]
                endfor
            endfor
            y[m, n] = s / 9
        endfor
    endfor
endfunction
";

#[test]
fn a_filter_loop_nest_becomes_one_two_dimensional_kernel() {
    let (m, d) = compile(BOX);
    assert!(d.is_empty(), "{:?}", warnings(&d));
    let m = m.expect("module");
    assert_eq!(launches(&m, "box3"), 1);
    assert!(!has_loop(&m, "box3"), "the nest is gone from the host function");
    let k = kernels(&m);
    assert_eq!(k.len(), 1);
    let k = &k[0];
    assert!(k.contains("pos : ivec2"), "{k}");
    // The loop variables are position components, the accesses offsets of them.
    assert!(k.contains("x{mat[scalar'single]'clamped}[(pos{ivec2}[0{int}]{int} + dm{int})"), "{k}");
    assert!(
        k.contains(
            "y{mat[scalar'single]'checked}[pos{ivec2}[0{int}]{int}, pos{ivec2}[1{int}]{int}]"
        ),
        "{k}"
    );
    // The interior pass proved the write in bounds.
    assert!(k.contains("interior:"), "{k}");
}

#[test]
fn starts_that_are_not_constants_are_passed() {
    let src = "function [] = inner(x : vec, y : vec, a : int)
    for i = a..numel(x) - 2
        y[i] = x[i + 1] - x[i - 1]
    endfor
endfunction
";
    let (m, d) = compile(src);
    assert!(d.is_empty(), "{:?}", warnings(&d));
    let m = m.expect("module");
    let k = &kernels(&m)[0];
    assert!(k.contains("i_start : int, pos : int"), "{k}");
    assert!(k.contains("(pos{int} + i_start{int})"), "{k}");
    let host = m.functions.iter().find(|f| f.name == "inner").expect("inner");
    let dump = crate::ir::dump_body::function(&m, host);
    assert!(
        dump.contains("((numel(x{vec[scalar'single]}){int} - 2{int}){int} >= a{int})"),
        "{dump}"
    );
}

#[test]
fn dependencies_keep_loops_serial_with_a_warning() {
    let src = "function [] = prefix(x : vec, y : vec)
    y[0] = x[0]
    for i = 1..numel(x) - 1
        y[i] = y[i - 1] + x[i]
    endfor
endfunction
";
    let (m, d) = compile(src);
    let w = warnings(&d);
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].starts_with("3: loop not parallelized (it runs serially): dependency on `y`"),
        "{w:?}"
    );
    assert!(has_loop(&m.expect("module"), "prefix"));
}

#[test]
fn the_largest_independent_nest_is_chosen() {
    // Over `m` and `n` every iteration updates y[m]; over `m` alone they are independent.
    let src = "function [] = rows(x : mat, y : vec)
    for m = 0..size(x, 0) - 1
        for n = 0..size(x, 1) - 1
            y[m] += x[m, n]
        endfor
    endfor
endfunction
";
    let (m, d) = compile(src);
    assert!(d.is_empty(), "{:?}", warnings(&d));
    let m = m.expect("module");
    let k = &kernels(&m)[0];
    assert!(k.contains("pos : int"), "{k}");
    assert!(k.contains("for n = "), "the inner loop stays in the kernel: {k}");
}

#[test]
fn an_outer_time_loop_stays_serial_and_the_inner_nest_is_parallel() {
    let src = "function [] = steps(x : vec, y : vec)
    for t = 1..10
        for i = 0..numel(x) - 1
            y[i] = x[i] * t
        endfor
        for i = 0..numel(x) - 1
            x[i] = y[i] + 1
        endfor
    endfor
endfunction
";
    let (m, d) = compile(src);
    let m = m.expect("module");
    assert_eq!(launches(&m, "steps"), 2, "{:?}", warnings(&d));
    assert!(has_loop(&m, "steps"), "the time loop stays");
}

#[test]
fn privates_read_after_the_loop_and_host_calls_keep_it_serial() {
    let src = "function [] = last(x : vec, y : vec)
    for i = 0..numel(x) - 1
        v = x[i] * 2
        y[i] = v
    endfor
    print v
    for i = 0..numel(x) - 1
        y[i] = numel(find(x))
    endfor
    for i = 0..numel(x) - 1
        print x[i]
        y[i] = 1
    endfor
endfunction
";
    let (m, d) = compile(src);
    let w = warnings(&d);
    assert_eq!(launches(&m.expect("module"), "last"), 0, "{w:?}");
    assert_eq!(w.len(), 3, "{w:?}");
    assert!(w[0].contains("`v` is assigned in the loop and read after it"), "{w:?}");
    assert!(
        w[1].contains("dynamic kernel memory") || w[1].contains("not available in kernels"),
        "{w:?}"
    );
    assert!(w[2].contains("`print` can not be parallelized"), "{w:?}");
}

#[test]
fn serial_for_keeps_the_loop_and_parallel_for_forces_it() {
    let src = "function [] = both(x : vec, y : vec)
    {!serial for}
    for i = 1..numel(x) - 1
        y[i] = y[i - 1] + x[i]
    endfor
    {!parallel for}
    for i = 1..numel(x) - 1
        y[i] = y[i - 1] + x[i]
    endfor
endfunction
";
    let (m, d) = compile(src);
    let w = warnings(&d);
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].starts_with(
            "7: `{!parallel for}`: the loop is parallelized despite a possible data race"
        ),
        "{w:?}"
    );
    let m = m.expect("module");
    assert_eq!(launches(&m, "both"), 1);
    assert!(has_loop(&m, "both"));
}

#[test]
fn parallel_for_on_a_loop_that_cannot_be_a_kernel_is_an_error() {
    let src = "function [] = bad(x : vec)
    {!parallel for}
    for i = 0..numel(x) - 1
        print x[i]
    endfor
endfunction
";
    let (_, d) = compile(src);
    let e: Vec<&Diagnostic> = d.iter().filter(|d| d.is_error()).collect();
    assert_eq!(e.len(), 1, "{:?}", warnings(&d));
    assert!(
        e[0].message.contains("`{!parallel for}`: the loop cannot be parallelized: `print`"),
        "{}",
        e[0].message
    );
    let src = "function [] = bad(x : mat)
    {!parallel for; dim=3}
    for i = 0..size(x, 0) - 1
        for j = 0..size(x, 1) - 1
            x[i, j] = 0
        endfor
    endfor
endfunction
";
    let (_, d) = compile(src);
    assert!(
        d.iter().any(|d| d.is_error() && d.message.contains("needs 3 perfectly nested")),
        "{:?}",
        warnings(&d)
    );
}

#[test]
fn an_accumulation_becomes_a_kernel_output() {
    let src = "function s : scalar = dot(x : vec, y : vec)
    s = 0.0
    for i = 0..numel(x) - 1
        s += x[i] * y[i]
    endfor
endfunction
";
    let (m, d) = compile(src);
    assert!(d.is_empty(), "{:?}", warnings(&d));
    let m = m.expect("module");
    let k = &kernels(&m)[0];
    assert!(
        k.contains(
            "(x : vec[scalar'single]'checked, y : vec[scalar'single]'checked, pos : int) \
         -> (s : scalar'single)"
        ),
        "{k}"
    );
    let host = m.functions.iter().find(|f| f.name == "dot").expect("dot");
    let dump = crate::ir::dump_body::function(&m, host);
    assert!(
        dump.contains("s{scalar'single} += parallel_do(numel(x{vec[scalar'single]}){int}"),
        "{dump}"
    );
}

#[test]
fn products_maxima_and_minima_become_outputs_from_the_identity() {
    let src = "function [p : scalar, hi : int, lo : scalar] = f(x : vec, n : vec[int])
    p = 2.0
    for i = 0..numel(x) - 1
        p *= x[i] + 1
    endfor
    hi = -5
    for i = 0..numel(n) - 1
        hi ^^= n[i]
    endfor
    lo = 0.0
    for i = 0..numel(x) - 1
        lo __= x[i]
    endfor
endfunction
";
    let (m, d) = compile(src);
    assert!(d.is_empty(), "{:?}", warnings(&d));
    let m = m.expect("module");
    let k = kernels(&m);
    assert_eq!(k.len(), 3, "{k:?}");
    for (k, op) in k.iter().zip(["*=", "^^=", "__="]) {
        assert!(k.contains("| outputs from the identity"), "{k}");
        assert!(k.contains(op), "{op}: {k}");
    }
    let host = m.functions.iter().find(|f| f.name == "f").expect("f");
    let dump = crate::ir::dump_body::function(&m, host);
    // The host combines the launch's result with the value before the loop.
    assert!(dump.contains("p{scalar'single} *= parallel_do("), "{dump}");
    assert!(dump.contains("hi{int} ^^= parallel_do("), "{dump}");
    assert!(dump.contains("lo{scalar'single} __= parallel_do("), "{dump}");
}

#[test]
fn mixed_accumulations_stay_serial() {
    let src = "function s : scalar = f(x : vec, y : vec)
    s = 0.0
    for i = 0..numel(x) - 1
        s += x[i]
        s *= y[i]
    endfor
endfunction
";
    let (m, _) = compile(src);
    assert!(kernels(&m.expect("module")).is_empty());
}

#[test]
fn loops_that_write_no_array_stay_serial_without_warnings() {
    let src = "s = 0
for i = 0..9
    s = s * 2 + i
endfor
print s
";
    let (m, d) = compile(src);
    assert!(d.is_empty(), "{:?}", warnings(&d));
    assert!(kernels(&m.expect("module")).is_empty());
}

#[test]
fn constant_range_subscripts_in_the_loop_variables_rows_are_independent() {
    // `y[m, n, 0..2]` writes only the elements of iteration `(m, n)` (known-slices turned
    // `:` of the known extent 3 into `0..2`), and `y[0..1, m, 0]` those of column `m`; a write
    // without the loop variable is a dependency.
    let src = "function y = f(x : cube(:, :, 3))
    y = zeros(size(x, 0), size(x, 1), 3)
    for m = 0..size(x, 0) - 1
        for n = 0..size(x, 1) - 1
            y[m, n, :] = 2 * x[m, n, :]
        endfor
    endfor
endfunction
function y = g(x : cube(:, :, 3))
    y = zeros(size(x))
    for m = 0..size(x, 0) - 1
        y[0..1, m, 0] = x[m, 0, 0..1]
        y[0..1, 0, 1] = x[m, 1, 0..1]
    endfor
endfunction
";
    let (m, d) = compile(src);
    let w = warnings(&d);
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].starts_with("11: loop not parallelized") && w[0].contains("(line 13)"), "{w:?}");
    let m = m.expect("module");
    assert_eq!(launches(&m, "f"), 1);
    assert!(has_loop(&m, "g"));
}

#[test]
fn a_block_size_gives_the_launch_blocks_and_guards_the_extra_threads() {
    let src = "function y = f(x : vec)\n  y = zeros(numel(x))\n  {!parallel for; blkdim=8}\n  for n = 0..numel(x)-1\n    s = shared(8)\n    s[mod(n, 8)] = x[n]\n    syncthreads\n    y[n] = s[0]\n  endfor\nendfunction\n";
    let (m, d) = compile(src);
    assert!(d.iter().all(|d| !d.is_error()), "{d:?}");
    let m = m.expect("module");
    let k = kernels(&m);
    assert_eq!(k.len(), 1, "{k:?}");
    // The shared allocation and the barrier stay outside the guards of the extra threads.
    let text = &k[0];
    let at = |s: &str| text.find(s).unwrap_or_else(|| panic!("no {s} in {text}"));
    assert!(at("shared(") < at("if (pos") && at("if (pos") < at("syncthreads"), "{text}");
    assert_eq!(text.matches("if (pos{int} < n_count{int})").count(), 2, "{text}");
    let host = m.functions.iter().find(|f| f.name == "f").unwrap();
    let mut block = None;
    crate::ir::walk::walk_block(&host.body, &mut |_| {}, &mut |e| {
        if let ExprKind::ParallelDo { block_dims: Some(b), .. } = &e.kind {
            block = b.constant().cloned();
        }
    });
    assert!(matches!(block, Some(crate::ir::Const::Int(8))), "{block:?}");
    let bad = src.replace("blkdim=8", "blkdim=x");
    let (_, d) = compile(&bad);
    assert!(d.iter().any(|d| d.message.contains("`blkdim` of `{!parallel for}` must be")), "{d:?}");
}

#[test]
fn a_block_vector_spans_the_innermost_loops_and_guards_each() {
    let src = "function y = f(x : mat)\n  N : int'const = 4\n  y = zeros(size(x))\n  {!parallel for; blkdim=[N, 8]}\n  for m = 0..size(x, 0)-1\n    for n = 0..size(x, 1)-1\n      y[m, n] = x[m, n] * N\n    endfor\n  endfor\nendfunction\n";
    let (m, d) = compile(src);
    assert!(d.iter().all(|d| !d.is_error()), "{d:?}");
    let m = m.expect("module");
    let k = kernels(&m);
    assert_eq!(k.len(), 1, "{k:?}");
    // Both loops' extra threads skip the body; `N` is the block's extent inside.
    let text = &k[0];
    assert!(text.contains("< m_count{int}") && text.contains("< n_count{int}"), "{text}");
    assert!(text.contains("blkdim{ivec2}[0{int}]"), "{text}");
    let host = m.functions.iter().find(|f| f.name == "f").unwrap();
    let mut block = None;
    crate::ir::walk::walk_block(&host.body, &mut |_| {}, &mut |e| {
        if let ExprKind::ParallelDo { block_dims: Some(b), .. } = &e.kind {
            block = Some(matches!(&b.kind, ExprKind::Matrix(xs) if xs.len() == 2));
        }
    });
    assert_eq!(block, Some(true));
    // Three extents for two loops, and a vector of something else, are errors.
    let (_, d) = compile(&src.replace("[N, 8]", "[2, N, 8]"));
    assert!(d.iter().any(|d| d.message.contains("`blkdim` gives the block 3 extents")), "{d:?}");
    let (_, d) = compile(&src.replace("[N, 8]", "[N, 0.5]"));
    assert!(d.iter().any(|d| d.message.contains("`blkdim` of `{!parallel for}` must be")), "{d:?}");
}

#[test]
fn a_parallel_for_over_a_run_time_size_parameter_stays_serial_with_a_warning() {
    // The manual's `colortransform[N]` (§6.7), not called: `N` is taken at run time, so
    // `img[m, n, :]` has no known length; a call that fixes `N` gets a parallel instance.
    let generic = "function img_out = colortransform[N](C : mat(N,N), img : cube(:, :, N))
    img_out = zeros(size(img,0),size(img,1),N)
    {!parallel for}
    for m=0..size(img,0)-1
        for n=0..size(img,1)-1
            img_out[m,n,:] = (C * squeeze(img[m,n,:]))
        endfor
    endfor
endfunction
";
    let (m, d) = compile(generic);
    assert!(d.iter().all(|d| !d.is_error()), "{:?}", warnings(&d));
    assert!(
        d.iter().any(|d| d.message.starts_with(
            "`{!parallel for}`: in the instance for `N` known at run time, the loop runs serially"
        )),
        "{:?}",
        warnings(&d)
    );
    let m = m.expect("a module");
    assert_eq!(launches(&m, "colortransform"), 0);
    let called = format!(
        "{generic}function y = three(C : mat(3, 3), img : cube(:, :, 3))
    y = colortransform(C, img)
endfunction
"
    );
    let (m, d) = compile(&called);
    assert!(d.iter().all(|d| !d.is_error()), "{:?}", warnings(&d));
    assert_eq!(launches(&m.expect("a module"), "colortransform"), 1);
}
