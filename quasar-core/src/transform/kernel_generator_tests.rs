//! The kernel generator through the driver: which statements fuse into one kernel, what the
//! kernel computes, the size guard, and what stays as written.

use crate::driver::{self, Options};

/// The IR after the last pass, one entry per function (its signature line first).
fn compile(src: &str) -> Vec<String> {
    let opts =
        Options { dump_ir_after: vec!["interior".into()], ..Options::new("t.q", src, "t.q") };
    let (art, loader) = driver::compile(&opts);
    assert!(art.diagnostics.is_empty(), "{}", loader.map.render(&art.diagnostics));
    // `scalar` is resolved (to single precision) before the passes; the asserts below spell
    // it as the source does.
    let text = art.ir_dumps.last().expect("the dump").1.replace("[scalar'single]", "");
    let text = text.replace("scalar'single", "scalar");
    let mut out: Vec<String> = Vec::new();
    for line in text.lines() {
        match out.last_mut() {
            Some(f) if line.starts_with(' ') => {
                f.push_str(line);
                f.push('\n');
            }
            _ => out.push(format!("{line}\n")),
        }
    }
    out
}

/// The generated kernels.
fn kernels(m: &[String]) -> Vec<String> {
    m.iter().filter(|f| f.starts_with("__kernel__ parallel_for")).cloned().collect()
}

fn host(m: &[String], name: &str) -> String {
    m.iter().find(|f| f.starts_with(&format!("{name}("))).expect("host function").clone()
}

#[test]
fn an_expression_of_several_operators_becomes_one_kernel() {
    let m = compile(
        "function y : mat = f(a : mat, x : mat, b : mat, c : scalar)
    y = a .* x + sin(b) .^ 2 - c
endfunction
",
    );
    let k = kernels(&m);
    assert_eq!(k.len(), 1, "{k:?}");
    let k = &k[0];
    assert!(k.contains("pos : ivec2"), "{k}");
    // Every operator works on elements; the scalar is a parameter.
    assert!(k.contains("c : scalar"), "{k}");
    assert!(
        k.contains(
            "(a{mat'checked}[pos{ivec2}[0{int}]{int}, pos{ivec2}[1{int}]{int}]!{scalar} * x"
        ),
        "{k}"
    );
    // The interior pass proved every access in bounds.
    assert!(k.contains("interior (merged rows):"), "{k}");
    assert!(k.contains("sin(b{mat'checked}[pos"), "{k}");
    assert!(!k.contains("{mat}"), "no array-valued operation is left: {k}");
    let h = host(&m, "f");
    // The sizes of the three arrays are compared; on a mismatch the library runs.
    assert!(h.contains("(size(a{mat}, 0{int}){int} == size(x{mat}, 0{int}){int})"), "{h}");
    assert!(
        h.contains(
            "fused{mat} = uninit(size(a{mat}, 0{int}){int}, size(a{mat}, 1{int}){int}){mat}"
        ),
        "{h}"
    );
    assert!(h.contains("parallel_do("), "{h}");
    assert!(h.contains("y{mat} = fused{mat}"), "{h}");
    assert!(h.contains("else"), "{h}");
    assert!(h.contains("y{mat} = (((a{mat} .* x{mat}){mat}"), "the statement as written: {h}");
}

#[test]
fn one_array_operand_needs_no_guard() {
    let m = compile(
        "function y : cube = f(x : cube)
    y = 255 * (x / 255) .^ 0.45
endfunction
",
    );
    let k = &kernels(&m)[0];
    assert!(k.contains("pos : ivec3"), "{k}");
    let h = host(&m, "f");
    assert!(!h.contains("if "), "{h}");
    assert!(!h.contains(".^"), "{h}");
}

#[test]
fn sums_and_means_become_one_reduction() {
    let m = compile(
        "function [s : scalar, r : scalar] = f(x : vec, y : vec)
    s = sum(x .* y)
    r = mean(abs(x - 1))
endfunction
",
    );
    let k = kernels(&m);
    assert_eq!(k.len(), 2, "{k:?}");
    assert!(k[0].contains("-> (acc : scalar)"), "{}", k[0]);
    assert!(k[0].contains("acc{scalar} += (x{vec'checked}[pos{int}]!{scalar} * y{vec'checked}[pos{int}]!{scalar})"), "{}", k[0]);
    let h = host(&m, "f");
    assert!(h.contains("acc{scalar} += parallel_do(numel(x{vec}){int}"), "{h}");
    assert!(h.contains("s{scalar} = acc{scalar}"), "{h}");
    assert!(h.contains("r{scalar} = (acc{scalar} / numel(x{vec}){int}){scalar}"), "{h}");
    // The fallback for vectors of different lengths.
    assert!(h.contains("s{scalar} = sum((x{vec} .* y{vec}){vec}){scalar}"), "{h}");
}

#[test]
fn products_maxima_and_minima_become_reductions_from_the_identity() {
    let m = compile(
        "function [p : scalar, hi : scalar, lo : scalar] = f(x : vec, y : vec)
    p = prod(x .* y)
    hi = max(x - y)
    lo = min(abs(x) + 1)
endfunction
",
    );
    let k = kernels(&m);
    assert_eq!(k.len(), 3, "{k:?}");
    for (k, op) in k.iter().zip(["*=", "^^=", "__="]) {
        assert!(k.contains("-> (acc : scalar) | outputs from the identity"), "{k}");
        assert!(k.contains(&format!("acc{{scalar}} {op} ")), "{op}: {k}");
    }
    let h = host(&m, "f");
    assert!(h.contains("acc{scalar} *= parallel_do("), "{h}");
    assert!(h.contains("acc{scalar} ^^= parallel_do("), "{h}");
    assert!(h.contains("acc{scalar} __= parallel_do("), "{h}");
    // `max`/`min` of an empty vector run as written (the library's error).
    assert!(h.contains("if (numel(x{vec}){int} > 0{int}){int}\n"), "{h}");
    assert!(h.contains("acc{scalar} = inf{scalar}"), "{h}");
    assert!(h.contains("lo{scalar} = min((abs(x{vec}){vec} + 1{int}){vec}){scalar}"), "{h}");
}

#[test]
fn operands_that_are_not_variables_are_evaluated_once_before_the_kernel() {
    let m = compile(
        "function y : mat = g(x : mat)
    y = x .* 2
endfunction
function z : scalar = k(v : scalar)
    z = v + 1
endfunction
function y : mat = f(x : mat, v : scalar)
    y = g(x) + x * k(v)
endfunction
",
    );
    let h = host(&m, "f");
    assert_eq!(h.matches("g_1(x{mat})").count(), 1, "{h}");
    assert_eq!(h.matches("k_2(v{scalar})").count(), 1, "{h}");
    let before = h.find("operand{mat} = g_1(").expect("g's result is computed first");
    let value = h.find("value{scalar} = k_2(").expect("then k's");
    assert!(before < value, "{h}");
    let k = kernels(&m);
    // `g`'s own `x .* 2` fused too.
    assert_eq!(k.len(), 2, "{k:?}");
    assert!(k.iter().any(|k| k.contains("value : scalar")), "{k:?}");
}

#[test]
fn what_is_not_element_wise_stays_as_written() {
    // (`a * b` and `transpose(a)` of matrices are kernels too: `library_forms.rs`.)
    let src = "function [z, s, v] = f(a : mat, c : vec3, n : ivec)
    z = a
    s = sum(a)
    v = n + 1
    u = c + c
endfunction
";
    let m = compile(src);
    assert!(kernels(&m).is_empty(), "{:?}", kernels(&m));
    let h = host(&m, "f");
    assert!(!h.contains("parallel_do") && !h.contains("uninit"), "{h}");
}

#[test]
fn statements_in_serial_loops_are_fused_where_they_are() {
    let m = compile(
        "function x : vec = f(x : vec, v : vec, dt : scalar)
    for it = 1..10
        x = x + dt * v
    endfor
endfunction
",
    );
    let h = host(&m, "f");
    assert!(h.contains("for it = "), "{h}");
    assert!(h.contains("parallel_do("), "{h}");
    assert_eq!(kernels(&m).len(), 1);
}

#[test]
fn a_transpose_becomes_a_kernel_over_the_operand_for_the_gpu_under_a_test_of_two_dimensions() {
    let m = compile(
        "function y : mat = f(x : mat)
    y = transpose(x)
endfunction
function y : mat = g(x : mat, z : mat)
    y = transpose(x + z)
endfunction
",
    );
    let k = kernels(&m);
    assert_eq!(k.len(), 2, "{k:?}");
    // Read at its position, written transposed (still `'nocopy`: transfers.rs).
    assert!(
        k[0].contains("fused{mat'checked}[pos{ivec2}[1{int}]{int}, pos{ivec2}[0{int}]{int}]"),
        "{}",
        k[0]
    );
    assert!(
        k[0].contains("x{mat'checked}[pos{ivec2}[0{int}]{int}, pos{ivec2}[1{int}]{int}]"),
        "{}",
        k[0]
    );
    let h = host(&m, "f");
    assert!(h.contains("if ((ndims(x{mat}){int} == 2{int}){int} && "), "{h}");
    // On the CPU an `f32` transpose stays in the library (AVX2 blocks): the kernel runs where
    // the scheduler picks the GPU.
    assert!(
        h.contains("(schedule((size(x{mat}, 0{int}){int} * size(x{mat}, 1{int}){int}){int}, x{mat}, 2{int}){int} == 0{int})"),
        "{h}"
    );
    assert!(
        h.contains(
            "fused{mat} = uninit(size(x{mat}, 1{int}){int}, size(x{mat}, 0{int}){int}){mat}"
        ),
        "{h}"
    );
    assert!(h.contains("y{mat} = transpose(x{mat}){mat}"), "the library for a vector: {h}");
    // Another operand is evaluated once, first.
    let h = host(&m, "g");
    assert!(h.contains("operand{mat} = "), "{h}");
    assert!(h.contains("transpose(operand{mat})"), "{h}");
}

#[test]
fn a_matrix_product_becomes_a_kernel_where_the_scheduler_picks_the_gpu() {
    let m = compile(
        "function c : mat = f(a : mat, b : mat)
    c = a * b
endfunction
",
    );
    let k = kernels(&m);
    assert_eq!(k.len(), 1, "{k:?}");
    // One dot product per element, the inner loop serial in the thread.
    assert!(
        k[0].contains("dot{scalar} += (a{mat'checked}[pos{ivec2}[0{int}]{int}, k{int}]"),
        "{}",
        k[0]
    );
    assert!(
        k[0].contains("fused{mat'checked}[pos{ivec2}[0{int}]{int}, pos{ivec2}[1{int}]{int}]"),
        "{}",
        k[0]
    );
    let h = host(&m, "f");
    assert!(h.contains("(size(a{mat}, 1{int}){int} == size(b{mat}, 0{int}){int})"), "{h}");
    assert!(h.contains("schedule(((size(a{mat}, 0{int}){int} * size(b{mat}, 1{int}){int})"), "{h}");
    // On the CPU, at every size: the library's packed product.
    assert!(!h.contains(">= 256{int}"), "{h}");
    assert!(h.contains("c{mat} = (a{mat} * b{mat}){mat}"), "the library on the CPU: {h}");
}
