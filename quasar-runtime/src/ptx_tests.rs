//! Parameter packing and error-word decoding, without a driver.

use super::*;
use crate::device::DevPtr;
use crate::element::ElemInfo;
use crate::kernel::{BlockCtx, KernelArgs};
use crate::output::{OutputSpec, Reduce};
use crate::shape::Shape;

fn nothing(_: &BlockCtx, _: &KernelArgs) -> Result<()> {
    Ok(())
}

const fn site(kernel: &'static str, kind: SiteKind, array: &'static str, line: u32) -> CheckSite {
    let arg = if array.is_empty() { None } else { Some(0) };
    CheckSite { kernel, kind, array, arg, file: "f.q", line, col: 12 }
}
static SITES: [CheckSite; 4] = [
    site("other", SiteKind::Index, "a", 1),
    site("shift_1", SiteKind::Index, "x", 7),
    site("shift_1", SiteKind::Error("no negative shifts"), "", 8),
    site("shift_1", SiteKind::Assert("s < 4"), "", 9),
];
static ENTRY: PtxEntry = PtxEntry {
    module: ".version 7.8",
    entry: "shift_1",
    launch_rank: 1,
    args: &[PtxArg::Array { rank: 2 }, PtxArg::Value { bytes: 4 }, PtxArg::Array { rank: 1 }],
    outputs: 1,
    sites: &SITES,
    checked: true,
};
static COMPILED: Kernel = Kernel::new("shift", nothing).with_ptx_entry(&ENTRY);
static LEGACY: Kernel = Kernel::new("saxpy", nothing).with_ptx(".version 7.8");

fn array(ptr: u64, dims: &[usize]) -> DeviceArg {
    DeviceArg::Array {
        ptr: DevPtr(ptr),
        shape: Shape::new(dims).unwrap(),
        elem: ElemInfo::of::<f32>(),
    }
}
fn value<T: crate::Element>(v: T) -> DeviceArg {
    let mut bytes = vec![0u8; std::mem::size_of::<T>()];
    // SAFETY: room for one T.
    unsafe { (bytes.as_mut_ptr() as *mut T).write_unaligned(v) };
    DeviceArg::Scalar { bytes, elem: ElemInfo::of::<T>() }
}
fn output(ptr: u64) -> DeviceArg {
    DeviceArg::Output { ptr: DevPtr(ptr), spec: OutputSpec::new::<f32>(Reduce::Sum).unwrap() }
}
fn u32s(v: u32) -> Vec<u8> {
    v.to_ne_bytes().to_vec()
}
fn u64s(v: u64) -> Vec<u8> {
    v.to_ne_bytes().to_vec()
}

#[test]
fn static_extents_pad_and_fold() {
    assert_eq!(static_extents(&[5], 2), vec![1, 5], "a vector is a row");
    assert_eq!(static_extents(&[5], 3), vec![1, 5, 1]);
    assert_eq!(static_extents(&[2, 5], 3), vec![2, 5, 1]);
    assert_eq!(static_extents(&[2, 3, 4], 2), vec![2, 12]);
    assert_eq!(static_extents(&[2, 3, 4], 1), vec![24]);
    assert_eq!(static_extents(&[2, 3], 2), vec![2, 3]);
    assert_eq!(static_extents(&[], 3), vec![1, 1, 1]);
    assert_eq!(static_extents(&[7], 0), vec![7], "rank 0 is passed as rank 1");
}

#[test]
fn compiled_kernels_get_static_rank_extents_and_outputs_last() {
    // A vec passed as a `mat` parameter, a cube passed as a `vec`, an output in the middle.
    let args = [array(0x1000, &[5]), output(0x3000), value(2.5f32), array(0x2000, &[2, 3, 4])];
    let p = pack_params(&COMPILED, &[5], &args, Some(DevPtr(0x4000))).unwrap();
    let want = vec![
        u32s(5),
        u64s(0x1000),
        u32s(1),
        u32s(5),
        2.5f32.to_ne_bytes().to_vec(),
        u64s(0x2000),
        u32s(24),
        u64s(0x3000),
        u64s(0x4000),
    ];
    assert_eq!(p, want, "the error word last");
    let e = pack_params(&COMPILED, &[5], &args, None).unwrap_err().to_string();
    assert!(e.contains("needs an error word"), "{e}");
}

#[test]
fn legacy_kernels_get_runtime_extents_in_argument_order() {
    let args = [array(0x10, &[3, 4]), value(7i32), output(0x20)];
    let p = pack_params(&LEGACY, &[12], &args, None).unwrap();
    assert_eq!(p, vec![u32s(12), u64s(0x10), u32s(3), u32s(4), u32s(7), u64s(0x20)]);
}

#[test]
fn mismatches_with_the_entry_are_invalid_launches() {
    let ok = [array(1, &[5]), value(1f32), array(2, &[5]), output(3)];
    let err = |dims: &[usize], args: &[DeviceArg]| {
        let e = pack_params(&COMPILED, dims, args, Some(DevPtr(4))).unwrap_err();
        assert!(matches!(e, Error::InvalidLaunch { .. }), "{e}");
        e.to_string()
    };
    assert!(err(&[5, 5], &ok).contains("expects 1 launch dimensions"));
    let e = err(&[5], &[array(1, &[5]), value(1f64), array(2, &[5]), output(3)]);
    assert!(e.contains("argument 1 is a value of type f64 (8 bytes)"), "{e}");
    let e = err(&[5], &[array(1, &[5]), array(9, &[1]), array(2, &[5]), output(3)]);
    assert!(e.contains("argument 1 does not match"), "{e}");
    let e = err(&[5], &[array(1, &[5]), value(1f32), output(3)]);
    assert!(e.contains("2 arguments and 1 outputs given"), "{e}");
    let e = err(&[5], &[array(1, &[5]), value(1f32), array(2, &[5])]);
    assert!(e.contains("0 outputs"), "{e}");
    let e = err(&[5], &[array(1, &[5]), value(1f32), array(2, &[5]), value(0i32), output(3)]);
    assert!(e.contains("one too many"), "{e}");
    let e = err(&[1 << 33], &ok);
    assert!(e.contains("does not fit the 32-bit ABI"), "{e}");
}

#[test]
fn the_error_word_becomes_the_cpu_paths_index_error() {
    let args = [array(1, &[8]), value(3i32), array(2, &[8]), output(3)];
    assert!(matches!(decode_error_word(&COMPILED, &[0; 4], &args), ErrorWord::Clear));
    // A word naming another entry's site cannot come from this launch.
    let ErrorWord::Failed(e) = decode_error_word(&COMPILED, &[1, 0, 0, 3], &args) else {
        panic!("a failure");
    };
    assert!(e.to_string().contains("of another kernel (`other`)"), "{e}");
    let ErrorWord::Failed(e) = decode_error_word(&COMPILED, &[1, 1, 0, 10], &args) else {
        panic!("a failure");
    };
    assert_eq!(
        e.to_string(),
        "f.q:7:12: in kernel `shift`: index [10] is out of range for `x` with shape [8]"
    );
    let ErrorWord::Failed(e) = decode_error_word(&COMPILED, &[1, 1, 0, (-2i32) as u32], &args)
    else {
        panic!("a failure");
    };
    assert!(matches!(&e, Error::IndexOutOfRange { index, .. } if index == &[-2]), "{e}");
    let ErrorWord::Failed(e) = decode_error_word(&COMPILED, &[1, 2, 0, 0], &args) else {
        panic!("a failure");
    };
    assert_eq!(e.to_string(), "f.q:8:12: in kernel `shift`: no negative shifts");
    let ErrorWord::Failed(e) = decode_error_word(&COMPILED, &[1, 3, 0, 0], &args) else {
        panic!("a failure");
    };
    assert_eq!(e.to_string(), "f.q:9:12: in kernel `shift`: assertion failed: s < 4");
    let ErrorWord::Failed(e) = decode_error_word(&COMPILED, &[1, 9, 0, 0], &args) else {
        panic!("a failure");
    };
    assert!(matches!(e, Error::KernelFailed { .. }), "{e}");
    // The whole index and the extents: the launch argument's shape wins over the extents
    // the kernel saw (a `vec` passed as a `mat` pads them); without an argument they serve.
    let mut word = [0u32; 22];
    word[..6].copy_from_slice(&[1, 1, 1, 9, 2, 2]);
    word[6..8].copy_from_slice(&[0, 9]);
    word[14..16].copy_from_slice(&[1, 8]);
    let ErrorWord::Failed(e) = decode_error_word(&COMPILED, &word, &args) else {
        panic!("a failure");
    };
    assert_eq!(
        e.to_string(),
        "f.q:7:12: in kernel `shift`: index [0, 9] is out of range for `x` with shape [8]"
    );
    let ErrorWord::Failed(e) = decode_error_word(&COMPILED, &word, &[]) else {
        panic!("a failure");
    };
    assert_eq!(
        e.to_string(),
        "f.q:7:12: in kernel `shift`: index [0, 9] is out of range for `x` with shape [1, 8]"
    );
    word[6..8].copy_from_slice(&[(-1i32) as u32, 3]);
    let ErrorWord::Failed(e) = decode_error_word(&COMPILED, &word, &[]) else {
        panic!("a failure");
    };
    assert!(matches!(&e, Error::IndexOutOfRange { index, .. } if index == &[-1, 3]), "{e}");
    // Hand-written PTX has no sites: nothing to decode.
    assert!(matches!(decode_error_word(&LEGACY, &[1, 1, 0, 0], &args), ErrorWord::Clear));
}
