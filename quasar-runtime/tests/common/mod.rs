//! Kernels and helpers shared by the integration tests: element-wise CPU kernels over a 1-D
//! launch of `numel` positions, written the way generated code is (once per block, a plain
//! loop over the block's range).
#![allow(dead_code)]

use quasar_runtime::device::sim::{SimBackend, SimConfig};
use quasar_runtime::{BlockCtx, Kernel, KernelArgs, MemoryConfig, Result, Runtime};
use std::sync::Arc;

/// y[i] += a
fn add_scalar_cpu(ctx: &BlockCtx, args: &KernelArgs) -> Result<()> {
    let y = args.view::<i32>(0)?;
    let a: i32 = args.scalar(1)?;
    // SAFETY: the launch covers numel(y) positions; blocks are disjoint.
    for v in unsafe { y.slice_mut(ctx.range(0)) } {
        *v = v.wrapping_add(a);
    }
    Ok(())
}
pub static ADD_SCALAR: Kernel = Kernel::new("add_scalar", add_scalar_cpu);

/// y[i] = x[i]
fn copy_cpu(ctx: &BlockCtx, args: &KernelArgs) -> Result<()> {
    let x = args.view::<i32>(0)?;
    let y = args.view::<i32>(1)?;
    let r = ctx.range(0);
    for i in r {
        // SAFETY: in range; x and y may be the same array (then this is a no-op per element).
        unsafe { y.set_unchecked(i, x.get_unchecked(i)) }
    }
    Ok(())
}
pub static COPY: Kernel = Kernel::new("copy", copy_cpu);

/// y[i] += k * x[i]
fn axpy_cpu(ctx: &BlockCtx, args: &KernelArgs) -> Result<()> {
    let x = args.view::<i32>(0)?;
    let y = args.view::<i32>(1)?;
    let k: i32 = args.scalar(2)?;
    for i in ctx.range(0) {
        // SAFETY: in range; element-wise, so aliasing x and y is fine.
        unsafe {
            y.set_unchecked(i, y.get_unchecked(i).wrapping_add(k.wrapping_mul(x.get_unchecked(i))))
        }
    }
    Ok(())
}
pub static AXPY: Kernel = Kernel::new("axpy", axpy_cpu);

/// y[i] = v, after sleeping `ms` milliseconds once per launch (block 0), to keep it in flight.
fn slow_fill_cpu(ctx: &BlockCtx, args: &KernelArgs) -> Result<()> {
    let y = args.view::<i32>(0)?;
    let v: i32 = args.scalar(1)?;
    let ms: u32 = args.scalar(2)?;
    if ctx.blkidx(0) == 0 {
        std::thread::sleep(std::time::Duration::from_millis(ms as u64));
    }
    // SAFETY: as above.
    unsafe { y.slice_mut(ctx.range(0)) }.fill(v);
    Ok(())
}
pub static SLOW_FILL: Kernel = Kernel::new("slow_fill", slow_fill_cpu);

/// A runtime around a simulated GPU whose whole memory is usable (no reservation); also
/// returns the simulator to inspect it.
pub fn sim_runtime(cfg: SimConfig) -> (Runtime, Arc<SimBackend>) {
    let sim = Arc::new(SimBackend::new(cfg));
    let rt = Runtime::with_gpu(sim.clone());
    rt.set_memory_config(MemoryConfig { reserved_bytes: 0, ..MemoryConfig::default() });
    (rt, sim)
}

/// A simulated GPU with random delays and three streams.
pub fn jittery(seed: u64) -> SimConfig {
    SimConfig { streams: 3, jitter_seed: Some(seed), max_jitter_us: 100, ..SimConfig::default() }
}
