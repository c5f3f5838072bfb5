//! Class fields written in kernels (`class_fields.rs`): a field of a class variable is a
//! `mov` into its registers, a field of an array element a store (or an atomic) at the
//! element's address plus the field's offset in the host's `repr(C)` layout.

use super::tests::ptx;

const COUNTERS: &str = "
type counter : mutable class
  n : int
  total : scalar
  v : vec3
endtype
type counter_vec : vec[counter]
function [] = __kernel__ bump(cs : vec[counter], y : vec, pos : int)
  c = cs[pos]
  c.n = c.n + 2
  c.v[1] = 4.0
  y[pos] = c.n + c.v[1]
  cs[pos].total = 1.5
  cs[pos].n += 1
  cs[pos].v = [1.0, 2.0, 3.0]
endfunction
cs = counter_vec(4)
y = zeros(4)
parallel_do(4, cs, y, bump)
";

/// The text of the entry whose name starts with `name`.
fn entry<'a>(text: &'a str, name: &str) -> &'a str {
    let start = text.find(&format!(".entry {name}")).expect("the entry");
    &text[start..]
}

#[test]
fn fields_of_elements_are_written_at_their_offsets() {
    let out = ptx(COUNTERS);
    assert!(out.diagnostics.is_empty(), "{:?}", out.diagnostics);
    let b = entry(&out.text, "bump");
    // `total` at offset 4 (after `n : int`), `v` at 8: 12 bytes of floats.
    assert!(b.contains("st.global.f32 [") && b.contains("+4], "), "{b}");
    for off in ["+8]", "+12]", "+16]"] {
        assert!(b.contains(off), "`v` stored at {off}: {b}");
    }
    // `cs[pos].n += 1` is atomic, at the element's address (offset 0).
    assert!(b.contains("atom.global.add.s32"), "{b}");
}

#[test]
fn a_field_of_a_class_variable_is_a_register_move() {
    let out = ptx(COUNTERS);
    let b = entry(&out.text, "bump");
    // No local memory: the class value lives in registers, `c.v[1] = 4.0` moves 4.0 into
    // the register of that component.
    assert!(!b.contains(".local"), "{b}");
    assert!(b.contains("0f40800000"), "{b}");
}

const COMPONENTS: &str = "
type counter : mutable class
  n : int
  v : vec3
endtype
function [] = __kernel__ poke(cs : vec[counter], k : int, pos : int)
  cs[pos].v[k] = 2.5
  cs[0].v[1] += 1.0
endfunction
cs = vec[counter](4)
parallel_do(4, cs, 2, poke)
";

#[test]
fn a_component_of_a_vector_field_of_an_element_is_written_in_memory() {
    let out = ptx(COMPONENTS);
    assert!(out.diagnostics.is_empty(), "{:?}", out.diagnostics);
    let b = entry(&out.text, "poke");
    // `k` is tested against the vector's length (one unsigned comparison), the component is
    // 4 bytes apart, `v` at offset 4 (after `n : int`); the store is predicated.
    assert!(b.contains(", 3;") && b.contains("setp.lt.u32"), "{b}");
    assert!(b.contains(", 4;\n") && b.contains("mul.wide.s32"), "{b}");
    assert!(b.contains("st.global.f32") && b.contains("0f40200000"), "{b}");
    // `cs[0].v[1] += 1.0`: atomic, as fields of elements are.
    assert!(b.contains("atom.global.add.f32"), "{b}");
}

#[test]
fn a_vector_field_indexed_as_a_row_is_written_at_its_column() {
    // As on the CPU: a vector indexed as a matrix is a row (`small.rs`), so `[0, k]` is
    // component `k`, and `[1, k]` is outside.
    let out = ptx(&COMPONENTS.replace("cs[pos].v[k] = 2.5", "cs[pos].v[0, k] = 2.5"));
    assert!(out.diagnostics.is_empty(), "{:?}", out.diagnostics);
    let b = entry(&out.text, "poke");
    assert!(b.contains("mad.lo.s32") && b.contains("setp.lt.u32"), "{b}");
    assert!(b.contains("st.global.f32") && b.contains("0f40200000"), "{b}");
}
