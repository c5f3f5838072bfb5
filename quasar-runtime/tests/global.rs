//! The process-wide runtime: `launch`, `profile`, `set_mode`. On a machine without a GPU (or
//! without the `cuda` feature) it runs everything on the CPU and says why there is no GPU.

mod common;

use quasar_runtime::{Access, Array, DeviceKind, Runtime, SchedMode};

#[test]
fn the_global_runtime_launches_and_profiles() {
    let y = Array::<i32>::zeros(&[1000]).unwrap();
    let r = quasar_runtime::launch(&common::ADD_SCALAR)
        .dims(&[1000])
        .arg(&y, Access::ReadWrite)
        .scalar(2)
        .on(SchedMode::Cpu)
        .run()
        .unwrap();
    assert_eq!(r.device(), DeviceKind::Cpu);
    assert_eq!(y.get(&[999]).unwrap(), 2);
    let p = quasar_runtime::profile();
    assert!(p.row("add_scalar", "CPU").is_some_and(|r| r.launches >= 1), "{p}");
    quasar_runtime::synchronize().unwrap();
    if Runtime::global().gpu().is_none() {
        assert!(!Runtime::global().no_gpu_reason().is_empty());
        println!("no GPU: {}", Runtime::global().no_gpu_reason());
    }
}
