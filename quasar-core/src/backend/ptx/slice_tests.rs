//! Emitted instruction sequences of slices and small vectors inside kernels (`slice.rs`,
//! `zeros(n)` in `builtins.rs`). (`tests/ptxas.rs` assembles `tests/ptx_kernels/slices.q`.)

use super::tests::{instruction_lines, ptx};

/// The instruction lines of the only kernel of `src`, which must compile without
/// diagnostics.
fn lines(src: &str) -> Vec<String> {
    instruction_lines(src)
}

/// The opcode of an instruction line (without a guard predicate).
fn opcode(l: &str) -> &str {
    let l = if l.starts_with('@') { l.split_once(' ').map_or("", |x| x.1) } else { l };
    l.split_whitespace().next().unwrap_or("")
}

fn count(lines: &[String], op: &str) -> usize {
    lines.iter().filter(|l| opcode(l) == op).count()
}

#[test]
fn slice_read_loads_each_element_with_its_own_bounds_test() {
    let ls = lines(
        "function [] = __kernel__ k(x : cube, y : mat, pos : ivec2)
             c = x[pos[0], pos[1], 1..3]
             y[pos] = c[0] + c[2]
         endfunction",
    );
    assert_eq!(count(&ls, "ld.global.f32"), 3, "{ls:#?}");
    // Element k uses the subscript 1 + k in the last dimension.
    for k in 1..=3 {
        assert!(ls.iter().any(|l| l.starts_with("mov.s32") && l.ends_with(&format!(", {k}"))));
    }
    // 'safe: every load is predicated on its own bounds test (3 subscripts each).
    let guarded = ls.iter().filter(|l| l.starts_with('@') && l.contains("ld.global")).count();
    assert_eq!(guarded, 3);
    // (and 2 for the store to `y`).
    assert_eq!(count(&ls, "setp.lt.u32"), 9 + 2);
}

#[test]
fn number_assigned_to_a_slice_is_stored_to_every_element() {
    let ls = lines(
        "function [] = __kernel__ k(y : cube'unchecked, pos : ivec2)
             y[pos[0], pos[1], 3..2..7] = 7
         endfunction",
    );
    let stores: Vec<&String> = ls.iter().filter(|l| opcode(l) == "st.global.f32").collect();
    assert_eq!(stores.len(), 3, "{ls:#?}");
    let value = |l: &str| l.rsplit(", ").next().unwrap_or("").to_string();
    assert!(stores.iter().all(|s| value(s) == value(stores[0])), "one value: {stores:?}");
    for k in [3, 5, 7] {
        assert!(ls.iter().any(|l| l.starts_with("mov.s32") && l.ends_with(&format!(", {k}"))));
    }
}

#[test]
fn vector_assigned_to_a_slice_with_a_variable_start() {
    let ls = lines(
        "function [] = __kernel__ k(y : mat, s : int, pos : int)
             y[pos, s..s + 1] = [1.5, 2.5]
         endfunction",
    );
    assert_eq!(count(&ls, "st.global.f32"), 2, "{ls:#?}");
    // The start is evaluated once; the elements are at start + 0 and start + 1.
    assert_eq!(count(&ls, "ld.param.s32"), 1);
    assert!(ls.iter().any(|l| l.starts_with("add.s32") && l.ends_with(", 1")), "{ls:#?}");
}

#[test]
fn compound_assignment_to_a_slice_is_atomic_per_element() {
    let ls = lines(
        "function [] = __kernel__ k(y : mat, pos : int)
             y[pos, 0..3] += 1.0
         endfunction",
    );
    assert_eq!(count(&ls, "atom.global.add.f32"), 4, "{ls:#?}");
}

#[test]
fn slices_of_register_vectors_pick_registers() {
    let ls = lines(
        "function [] = __kernel__ k(y : vec, pos : int)
             w = [1.0, 2.0, 3.0, 4.0]
             w[0..1] = w[2..3]
             y[pos] = sum(w[1..2])
         endfunction",
    );
    // Constant subscripts: no selection, no memory.
    assert_eq!(count(&ls, "selp.f32"), 0, "{ls:#?}");
    assert_eq!(count(&ls, "ld.global.f32"), 0);
    assert_eq!(count(&ls, "add.f32"), 1);
}

#[test]
fn zeros_and_ones_in_a_kernel_are_register_vectors() {
    let ls = lines(
        "function [] = __kernel__ k(y : vec, pos : int)
             w = zeros(3)
             w[1] = 2.0
             o = ones(2)
             y[pos] = sum(w) + sum(o) + numel(w)
         endfunction",
    );
    assert!(ls.iter().any(|l| l.starts_with("mov.f32") && l.ends_with("0f3F800000")));
    assert_eq!(count(&ls, "ld.global.f32"), 0, "{ls:#?}");
    // sum(w): 2 additions, sum(o): 1, and the two `+`.
    assert_eq!(count(&ls, "add.f32"), 5, "{ls:#?}");
}

#[test]
fn unsupported_slices_are_warnings() {
    let out = ptx("function [] = __kernel__ k(x : mat, y : vec, pos : int)
             y[pos] = sum(x[0..1, 0..1])
         endfunction");
    assert_eq!(out.diagnostics.len(), 1);
    assert!(out.kernels.is_empty());
}

#[test]
fn constant_ranges_are_register_vectors_and_lists_of_indices() {
    let ls = lines(
        "function [] = __kernel__ k(x : mat[uint8], y : mat, pos : ivec2)
             r = pos[1] + (0..2..6)
             v = x[pos[0], r]
             y[pos[0], pos[1] + (0..3)] = v
         endfunction",
    );
    // Four loads and four stores, each at its own listed column, no local memory.
    assert_eq!(count(&ls, "ld.global.u8"), 4, "{ls:#?}");
    assert_eq!(count(&ls, "st.global.f32"), 4, "{ls:#?}");
    assert!(!ls.iter().any(|l| l.contains(".local")), "{ls:#?}");
    // The range's elements are constants: 0, 2, 4, 6 and 0, 1, 2, 3.
    for k in [2, 4, 6] {
        assert!(ls.iter().any(|l| l.starts_with("mov.s32") && l.ends_with(&format!(", {k}"))));
    }
}
