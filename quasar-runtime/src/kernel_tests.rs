//! Tests of the kernel descriptor and typed argument access.

use super::*;

fn k(_: &BlockCtx, _: &KernelArgs) -> Result<()> {
    Ok(())
}

#[test]
fn kernel_builders() {
    let kern = Kernel::new("k", k).with_ptx(".version 7.8").with_thread_scratch(8);
    assert!(kern.block_sensitive);
    assert_eq!(kern.ptx, Some(".version 7.8"));
    assert_eq!((Kernel::new("k", k).shared_bytes)(&[16, 16]), 0);
}

#[test]
fn typed_argument_access_checks_types() {
    let mut data = [1.0f32, 2.0, 3.0];
    let args = vec![
        RawArg::View {
            ptr: data.as_mut_ptr() as *mut u8,
            shape: Shape::new(&[3]).unwrap(),
            elem: ElemInfo::of::<f32>(),
        },
        RawArg::Scalar { bytes: 7i32.to_ne_bytes().to_vec(), elem: ElemInfo::of::<i32>() },
    ];
    let a = KernelArgs { kernel: "t", args: &args };
    let v = a.view::<f32>(0).unwrap();
    // SAFETY: in range, single-threaded.
    unsafe {
        assert_eq!(v.get_unchecked(2), 3.0);
        assert_eq!(v.get_safe(3), 0.0);
        assert_eq!(v.get_safe(-1), 0.0);
        v.set_safe(5, 9.0);
        v.set_safe(0, 9.0);
        assert!(v.get_checked(3).is_err());
        assert_eq!(v.slice(1..3), &[2.0, 3.0]);
    }
    assert_eq!(data[0], 9.0);
    assert_eq!(a.scalar::<i32>(1).unwrap(), 7);
    let e = a.view::<f64>(0).unwrap_err().to_string();
    assert!(e.contains("kernel `t`, argument 0: is an array of f32"), "{e}");
    assert!(a.scalar::<f32>(1).is_err());
    assert!(a.scalar::<i32>(0).is_err());
    assert!(a.view::<f32>(2).unwrap_err().to_string().contains("missing"));
}

static ENTRY: crate::ptx::PtxEntry = crate::ptx::PtxEntry {
    module: ".version 7.8 // module",
    entry: "k_1",
    launch_rank: 1,
    args: &[],
    outputs: 0,
    sites: &[],
    checked: false,
};

#[test]
fn compiled_ptx_names_its_entry_and_skipped_kernels_say_why() {
    let kern = Kernel::new("k", k).with_ptx_entry(&ENTRY);
    assert_eq!(kern.ptx, Some(ENTRY.module));
    assert_eq!(kern.entry_name(), "k_1");
    assert_eq!(Kernel::new("k", k).with_ptx("x").entry_name(), "k");
    let kern = Kernel::new("k", k).with_ptx_entry(&ENTRY).without_ptx("atan2 is not supported");
    assert!(kern.ptx.is_none() && kern.ptx_entry.is_none());
    assert_eq!(kern.no_ptx_reason, Some("atan2 is not supported"));
}
