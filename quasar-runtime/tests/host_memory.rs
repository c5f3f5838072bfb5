//! Host memory is fallible: a request the allocator cannot serve, or one past the host memory
//! budget, is `Error::OutOfMemory` instead of an abort of the whole process. The budget is
//! process-wide, so this file holds one test that runs its cases in order.

use quasar_runtime::{
    host_memory_in_use, host_memory_limit, set_host_memory_limit, Access, Array, BlockCtx, Error,
    Kernel, KernelArgs, Result, Runtime,
};

fn oom_bytes(e: &Error) -> Option<(String, usize)> {
    match e {
        Error::OutOfMemory { device, bytes, .. } => Some((device.clone(), *bytes)),
        _ => None,
    }
}

fn nothing(_: &BlockCtx, _: &KernelArgs) -> Result<()> {
    Ok(())
}
fn a_gigabyte(_: &[usize]) -> usize {
    1 << 30
}
/// A kernel whose blocks need 1 GiB of shared memory each.
static GREEDY: Kernel = Kernel::new("greedy", nothing).with_shared(a_gigabyte);

#[test]
fn allocations_past_memory_or_the_budget_are_errors_not_aborts() {
    // No budget: 2^62 bytes cannot be allocated on any machine. Before, this aborted the
    // process in `handle_alloc_error`.
    assert_eq!(host_memory_limit(), None);
    let e = Array::<f32>::zeros(&[1 << 30, 1 << 30]).expect_err("cannot be allocated");
    assert_eq!(oom_bytes(&e), Some(("host".into(), 1 << 62)), "{e}");

    // A budget of 1 MiB.
    set_host_memory_limit(Some(1 << 20));
    assert_eq!(host_memory_limit(), Some(1 << 20));
    let base = host_memory_in_use();
    let small = Array::<f32>::zeros(&[1000]).unwrap();
    assert_eq!(host_memory_in_use(), base + 4000);
    let e = Array::<f32>::zeros(&[512, 512]).unwrap_err();
    assert_eq!(oom_bytes(&e), Some(("host".into(), 1 << 20)), "{e}");
    assert!(e.to_string().contains("host memory budget is 1048576 bytes"), "{e}");
    assert_eq!(e.for_array("img").to_string().split(':').next(), Some("out of memory on host"));

    // Adopting a vector, copying, converting: all within the budget.
    let e = Array::from_vec(&[300_000], vec![0u8; 300_000])
        .and_then(|a| Array::from_vec(&[300_000], vec![1u8; 300_000]).map(|b| (a, b)))
        .and_then(|(a, b)| {
            let c = Array::from_vec(&[300_000], vec![2u8; 300_000])?;
            let d = a.copy()?;
            Ok((a, b, c, d))
        })
        .expect_err("four times 300 kB do not fit in 1 MiB");
    assert!(oom_bytes(&e).is_some(), "{e}");
    let nine = Array::<u8>::from_elem(&[900_000], 9).unwrap();
    assert!(oom_bytes(&nine.copy().unwrap_err()).is_some());
    assert!(oom_bytes(&nine.to_vec().unwrap_err()).is_some());
    assert!(oom_bytes(&Array::<u8>::from_fn(&[200_000], |i| i as u8).unwrap_err()).is_some());
    drop(nine);
    assert_eq!(Array::<u8>::from_fn(&[200_000], |i| i as u8).unwrap().get(&[7]).unwrap(), 7);

    // A kernel's scratch memory counts too: the launch fails, the process goes on.
    let rt = Runtime::cpu_only();
    let e = rt.launch(&GREEDY).dims(&[64]).arg(&small, Access::Read).run().unwrap_err();
    assert_eq!(oom_bytes(&e), Some(("host".into(), 1 << 30)), "{e}");

    // Freed memory returns to the budget.
    drop(small);
    assert_eq!(host_memory_in_use(), base);
    set_host_memory_limit(None);
    assert!(Array::<f32>::zeros(&[512, 512]).is_ok());
}
