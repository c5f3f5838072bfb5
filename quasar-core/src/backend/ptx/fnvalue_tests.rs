//! Function values passed to kernels (`fnvalue.rs`): the enum layout agrees with Rust's
//! `#[repr(C, u32)]`, and a call branches on the tag to each candidate.
//! (`tests/ptxas.rs` assembles `tests/ptx_kernels/fnvalues.q`.)

use super::fnvalue::enum_layout;
use super::PtxParamRole;
use std::mem::{align_of, offset_of, size_of};

#[allow(dead_code)]
#[repr(C, u32)]
enum Mixed {
    A(f32),
    B(f64, i8),
    C,
    D([i16; 3], u8),
}

#[allow(dead_code)]
#[repr(C, u32)]
enum Small {
    A,
    B(u8),
    C(f32, f32),
}

#[test]
fn layout_agrees_with_rust_repr_c_u32() {
    let (offs, size, align) =
        enum_layout(&[vec![(4, 4)], vec![(8, 8), (1, 1)], vec![], vec![(6, 2), (1, 1)]]);
    assert_eq!((size, align), (size_of::<Mixed>(), align_of::<Mixed>()));
    assert_eq!(offs, vec![vec![8], vec![8, 16], vec![], vec![8, 14]]);
    let (offs, size, align) = enum_layout(&[vec![], vec![(1, 1)], vec![(4, 4), (4, 4)]]);
    assert_eq!((size, align), (size_of::<Small>(), align_of::<Small>()));
    assert_eq!(offs, vec![vec![], vec![4], vec![4, 8]]);
    // The offsets Rust gives (the payload union follows the tag at its alignment).
    #[repr(C)]
    struct MixedB {
        tag: u32,
        f0: f64,
        f1: i8,
    }
    assert_eq!(offset_of!(MixedB, f1), 16);
    assert_eq!(enum_layout(&[vec![], vec![]]).1, size_of::<u32>());
}

const SRC: &str = "
function y : cube = pointwise(x : cube, fn : [__device__ scalar -> scalar])
    y = uninit(size(x))
    parallel_do(size(x), __kernel__ (pos : ivec3) -> y[pos] = fn(x[pos]))
endfunction
function y : cube = both(x : cube, a : scalar, k : int)
    f = __device__ (v : scalar) -> a * v + k
    g = __device__ (v : scalar) -> v * v
    y = pointwise(pointwise(x, f), g)
endfunction
";

#[test]
fn a_call_branches_on_the_tag() {
    let out = super::tests::ptx(SRC);
    assert!(out.diagnostics.is_empty(), "{:?}", out.diagnostics);
    let k = &out.kernels[0];
    // `fn`, a captured launch argument: the enum's bytes, the tag then (scalar a, int k)
    // for `f` and nothing for `g`.
    let p = k
        .params
        .iter()
        .find(|p| p.ty.contains(".b8"))
        .unwrap_or_else(|| panic!("a byte-array parameter: {:?}", k.params));
    assert!(matches!(p.role, PtxParamRole::Value { by_bytes: true, .. }));
    assert_eq!((p.bytes, p.ty.as_str()), (12, ".align 4 .b8"));
    let text = &out.text;
    let loads = |what: &str| text.lines().any(|l| l.contains(what) && l.contains("ld.param"));
    assert!(loads(&format!(", [{}];", p.name)), "the tag: {text}");
    assert!(loads(&format!(", [{}+4];", p.name)), "`a`: {text}");
    assert!(loads(&format!(", [{}+8];", p.name)), "`k`: {text}");
    // One test of the tag: the second candidate is the fallback.
    assert_eq!(text.matches("setp.ne.u32").count(), 1, "{text}");
    assert!(text.contains("mul.f32"), "{text}");
    assert!(text.contains("fma.rn.f32") || text.contains("add.f32"), "{text}");
}
