//! The launch API and the CPU executor: the special parameters `pos/blkpos/blkidx/blkdim/
//! blkcnt/warpsize`, dimensions that are not a multiple of the block size, automatic and
//! explicit block sizes, kernel output arguments, shared memory and barrier regions, atomics,
//! and errors. Each kernel also runs on the simulated GPU and must give the same result.

mod common;

use common::{jittery, sim_runtime};
use quasar_runtime::{
    atomic, Access, Array, BlockCtx, Complex, DeviceKind, Error, Kernel, KernelArgs, Reduce,
    Result, Runtime, SchedMode,
};

fn runtimes() -> Vec<(Runtime, SchedMode)> {
    let (sim, _) = sim_runtime(jittery(11));
    vec![(Runtime::cpu_only(), SchedMode::Cpu), (sim, SchedMode::Gpu)]
}

/// For a 2-D launch: out[pos] = encoding of (blkidx, blkpos, blkdim, blkcnt, warpsize).
fn special_cpu(ctx: &BlockCtx, args: &KernelArgs) -> Result<()> {
    let out = args.view::<[i32; 9]>(0)?;
    let w = out.dim(1);
    for i in ctx.range(0) {
        for j in ctx.range(1) {
            let v = [
                ctx.blkidx(0) as i32,
                ctx.blkidx(1) as i32,
                (i - ctx.blkidx(0) * ctx.blkdim(0)) as i32, // blkpos = mod(pos, blkdim)
                (j - ctx.blkidx(1) * ctx.blkdim(1)) as i32,
                ctx.blkdim(0) as i32,
                ctx.blkdim(1) as i32,
                ctx.blkcnt(0) as i32,
                ctx.blkcnt(1) as i32,
                ctx.warpsize() as i32,
            ];
            // SAFETY: (i, j) is inside the launch, which has the array's shape.
            unsafe { out.set_unchecked(i * w + j, v) }
        }
    }
    Ok(())
}
static SPECIAL: Kernel = Kernel::new("special", special_cpu).block_sensitive();

#[test]
fn special_parameters_follow_the_manual_with_partial_blocks() {
    let (m, n) = (10usize, 13usize);
    for (rt, mode) in runtimes() {
        let out = Array::<[i32; 9]>::zeros(&[m, n]).unwrap();
        let r = rt
            .launch(&SPECIAL)
            .dims(&[m, n])
            .block(&[4, 8])
            .arg(&out, Access::Write)
            .on(mode)
            .run()
            .unwrap();
        let v = out.to_vec().unwrap();
        for i in 0..m {
            for j in 0..n {
                let expect = [
                    (i / 4) as i32,
                    (j / 8) as i32,
                    (i % 4) as i32,
                    (j % 8) as i32,
                    4,
                    8,
                    m.div_ceil(4) as i32,
                    n.div_ceil(8) as i32,
                    32,
                ];
                assert_eq!(v[i * n + j], expect, "{:?} at ({i}, {j})", r.device());
            }
        }
    }
}

/// count[pos] += 1 (atomically), for any launch rank, with the array shaped like the launch.
fn count_cpu(ctx: &BlockCtx, args: &KernelArgs) -> Result<()> {
    let c = args.view::<i32>(0)?;
    let nd = ctx.ndim();
    let d = ctx.dims();
    let (r0, r1, r2) = (
        ctx.range(0),
        if nd > 1 { ctx.range(1) } else { 0..1 },
        if nd > 2 { ctx.range(2) } else { 0..1 },
    );
    let (d1, d2) = (if nd > 1 { d[1] } else { 1 }, if nd > 2 { d[2] } else { 1 });
    for i in r0 {
        for j in r1.clone() {
            for k in r2.clone() {
                // SAFETY: inside the array; every access is atomic.
                unsafe { atomic::add(c.as_ptr().add((i * d1 + j) * d2 + k), 1) };
            }
        }
    }
    Ok(())
}
static COUNT: Kernel = Kernel::new("count", count_cpu);

#[test]
fn every_position_runs_exactly_once_for_any_shape() {
    let shapes: &[&[usize]] = &[
        &[1],
        &[1000],
        &[100_003],
        &[3, 5],
        &[257, 1000],
        &[1, 70_000],
        &[2, 3, 4],
        &[17, 33, 65],
        &[0, 5],
        &[5, 0, 2],
    ];
    for (rt, mode) in runtimes() {
        for s in shapes {
            let c = Array::<i32>::zeros(s).unwrap();
            rt.launch(&COUNT).dims(s).arg(&c, Access::ReadWrite).on(mode).run().unwrap();
            assert!(c.to_vec().unwrap().iter().all(|&x| x == 1), "{s:?} on {mode:?}");
            // And with an explicit odd block size.
            let c = Array::<i32>::zeros(s).unwrap();
            let blk: Vec<usize> = s.iter().map(|_| 3).collect();
            rt.launch(&COUNT)
                .dims(s)
                .block(&blk)
                .arg(&c, Access::ReadWrite)
                .on(mode)
                .run()
                .unwrap();
            assert!(c.to_vec().unwrap().iter().all(|&x| x == 1), "{s:?} blk 3 on {mode:?}");
        }
    }
}

/// Outputs: [sum : scalar'double, mx : int, any : int, csum : cscalar, v : vec3] over x.
fn stats_cpu(ctx: &BlockCtx, args: &KernelArgs) -> Result<()> {
    let x = args.view::<f64>(0)?;
    let (sum, mx, any, csum, v) = (
        ctx.output::<f64>(0)?,
        ctx.output::<i32>(1)?,
        ctx.output::<i32>(2)?,
        ctx.output::<Complex<f32>>(3)?,
        ctx.output::<[f32; 3]>(4)?,
    );
    for i in ctx.range(0) {
        // SAFETY: i < numel(x).
        let xi = unsafe { x.get_unchecked(i) };
        sum.set(sum.get() + xi);
        mx.set(mx.get().max(xi as i32));
        if xi > 990.0 {
            any.set(1);
        }
        csum.set(csum.get() + Complex::new(1.0, -1.0));
        let mut w = v.get();
        w[0] += 1.0;
        w[2] += 2.0;
        v.set(w);
    }
    Ok(())
}
static STATS: Kernel = Kernel::new("stats", stats_cpu);

#[test]
fn kernel_output_arguments_start_at_zero_and_are_reduced() {
    let n = 1000usize;
    for (rt, mode) in runtimes() {
        let x = Array::<f64>::from_fn(&[n], |i| i as f64).unwrap();
        let r = rt
            .launch(&STATS)
            .dims(&[n])
            .arg(&x, Access::Read)
            .output::<f64>(Reduce::Sum)
            .output::<i32>(Reduce::Max)
            .output::<i32>(Reduce::Assign)
            .output::<Complex<f32>>(Reduce::Sum)
            .output::<[f32; 3]>(Reduce::Sum)
            .on(mode)
            .run()
            .unwrap();
        assert_eq!(r.output::<f64>(0).unwrap(), (n * (n - 1) / 2) as f64);
        assert_eq!(r.output::<i32>(1).unwrap(), 999);
        assert_eq!(r.output::<i32>(2).unwrap(), 1);
        assert_eq!(r.output::<Complex<f32>>(3).unwrap(), Complex::new(1000.0, -1000.0));
        assert_eq!(r.output::<[f32; 3]>(4).unwrap(), [1000.0, 0.0, 2000.0]);
        assert!(r.output::<f32>(0).is_err());
        assert!(r.output::<f64>(9).is_err());
        // No element above 990: the flag stays 0 (outputs start at zero).
        let small = Array::<f64>::zeros(&[10]).unwrap();
        let r = rt
            .launch(&STATS)
            .dims(&[10])
            .arg(&small, Access::Read)
            .output::<f64>(Reduce::Sum)
            .output::<i32>(Reduce::Max)
            .output::<i32>(Reduce::Assign)
            .output::<Complex<f32>>(Reduce::Sum)
            .output::<[f32; 3]>(Reduce::Sum)
            .on(mode)
            .run()
            .unwrap();
        assert_eq!(r.output::<i32>(2).unwrap(), 0);
    }
}

#[test]
fn unsupported_reductions_are_errors() {
    let rt = Runtime::cpu_only();
    let x = Array::<f64>::zeros(&[4]).unwrap();
    let e = rt
        .launch(&STATS)
        .dims(&[4])
        .arg(&x, Access::Read)
        .output::<Complex<f64>>(Reduce::Min)
        .run()
        .unwrap_err();
    assert!(matches!(e, Error::Unsupported(_)), "{e}");
}

/// Block-wise reversal through shared memory with a barrier, written the way the compiler
/// lowers `syncthreads`: region 1 loops over the block's threads storing into shared memory
/// (and a per-thread value into thread scratch), region 2 loops again reading them.
fn reverse_cpu(ctx: &BlockCtx, args: &KernelArgs) -> Result<()> {
    let x = args.view::<f32>(0)?;
    let y = args.view::<f32>(1)?;
    let n = ctx.dims()[0];
    let bd = ctx.blkdim(0);
    assert!(ctx.shared_len() >= bd * 4 && ctx.thread_scratch_len() >= bd * 4);
    let shared = ctx.shared() as *mut f32;
    let keep = ctx.thread_scratch() as *mut f32;
    // Region 1 (every thread of the block, also past the edge).
    for (t, pos) in ctx.full_range(0).enumerate() {
        // SAFETY: t < blkdim; pos checked against the launch as on a GPU.
        unsafe {
            let v = if pos < n { x.get_unchecked(pos) } else { 0.0 };
            *shared.add(t) = v;
            *keep.add(t) = 2.0 * v;
        }
    }
    // syncthreads
    for (t, pos) in ctx.full_range(0).enumerate() {
        if pos < n {
            // SAFETY: as above.
            unsafe { y.set_unchecked(pos, *shared.add(bd - 1 - t) + *keep.add(t)) }
        }
    }
    Ok(())
}
fn reverse_shared(blkdim: &[usize]) -> usize {
    blkdim[0] * 4
}
static REVERSE: Kernel =
    Kernel::new("reverse", reverse_cpu).with_shared(reverse_shared).with_thread_scratch(4);

#[test]
fn shared_memory_and_barrier_regions_agree_across_devices() {
    let n = 1000usize;
    let bd = 64usize;
    let xs: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let mut expect = vec![0.0f32; n];
    for b in 0..n.div_ceil(bd) {
        for t in 0..bd {
            let pos = b * bd + t;
            if pos < n {
                let src = b * bd + (bd - 1 - t);
                expect[pos] = if src < n { xs[src] } else { 0.0 } + 2.0 * xs[pos];
            }
        }
    }
    for (rt, mode) in runtimes() {
        let x = Array::from_vec(&[n], xs.clone()).unwrap();
        let y = Array::<f32>::zeros(&[n]).unwrap();
        rt.launch(&REVERSE)
            .dims(&[n])
            .block(&[bd])
            .arg(&x, Access::Read)
            .arg(&y, Access::Write)
            .on(mode)
            .run()
            .unwrap();
        assert_eq!(y.to_vec().unwrap(), expect, "{mode:?}");
    }
}

#[test]
fn block_sensitive_kernels_get_gpu_block_sizes_on_the_cpu() {
    // Without an explicit block size both devices use the same (GPU) decomposition, so a
    // block-dependent result agrees.
    let n = 5000usize;
    let xs: Vec<f32> = (0..n).map(|i| (i % 97) as f32).collect();
    let mut results = Vec::new();
    for (rt, mode) in runtimes() {
        let x = Array::from_vec(&[n], xs.clone()).unwrap();
        let y = Array::<f32>::zeros(&[n]).unwrap();
        rt.launch(&REVERSE)
            .dims(&[n])
            .arg(&x, Access::Read)
            .arg(&y, Access::Write)
            .on(mode)
            .run()
            .unwrap();
        results.push(y.to_vec().unwrap());
    }
    assert_eq!(results[0], results[1]);
}

/// hist[x[pos] % bins] += 1 with atomics.
fn hist_cpu(ctx: &BlockCtx, args: &KernelArgs) -> Result<()> {
    let x = args.view::<u32>(0)?;
    let h = args.view::<u32>(1)?;
    let bins = h.numel();
    for i in ctx.range(0) {
        // SAFETY: in range; the bins are only accessed atomically.
        unsafe { atomic::add(h.as_ptr().add(x.get_unchecked(i) as usize % bins), 1u32) };
    }
    Ok(())
}
static HIST: Kernel = Kernel::new("hist", hist_cpu);

#[test]
fn atomics_in_kernels_lose_no_updates() {
    let n = 200_000usize;
    for (rt, mode) in runtimes() {
        let x = Array::<u32>::from_fn(&[n], |i| (i as u32).wrapping_mul(2_654_435_761)).unwrap();
        let h = Array::<u32>::zeros(&[16]).unwrap();
        rt.launch(&HIST)
            .dims(&[n])
            .arg(&x, Access::Read)
            .arg(&h, Access::ReadWrite)
            .on(mode)
            .run()
            .unwrap();
        let mut expect = vec![0u32; 16];
        for v in x.to_vec().unwrap() {
            expect[v as usize % 16] += 1;
        }
        assert_eq!(h.to_vec().unwrap(), expect);
    }
}

fn failing_cpu(ctx: &BlockCtx, args: &KernelArgs) -> Result<()> {
    let x = args.view::<f32>(0)?;
    if ctx.blkidx(0) == 1 {
        // A 'checked access out of range.
        // SAFETY: no concurrent writes.
        unsafe { x.get_checked(-1)? };
    }
    Ok(())
}
static FAILING: Kernel = Kernel::new("failing", failing_cpu);

fn panicking_cpu(_: &BlockCtx, _: &KernelArgs) -> Result<()> {
    panic!("bug in a generated kernel")
}
static PANICKING: Kernel = Kernel::new("panicking", panicking_cpu);

#[test]
fn launch_errors_are_values_not_panics() {
    let rt = Runtime::cpu_only();
    let x = Array::<f32>::zeros(&[100_000]).unwrap();
    // Wrong element type.
    let i = Array::<i32>::zeros(&[10]).unwrap();
    let e = rt.launch(&FAILING).dims(&[10]).arg(&i, Access::Read).run().unwrap_err();
    assert!(
        matches!(&e, Error::KernelArgument { kernel, index: 0, .. } if kernel == "failing"),
        "{e}"
    );
    // Missing argument.
    let e = rt.launch(&FAILING).dims(&[10]).run().unwrap_err();
    assert!(e.to_string().contains("missing"), "{e}");
    // The kernel's own error.
    let e = rt
        .launch(&FAILING)
        .dims(&[100_000])
        .block(&[1000])
        .arg(&x, Access::Read)
        .run()
        .unwrap_err();
    assert!(matches!(e, Error::IndexOutOfRange { .. }), "{e}");
    // A panic inside a kernel.
    let e = rt.launch(&PANICKING).dims(&[10]).run().unwrap_err();
    assert_eq!(
        e.to_string(),
        "kernel `panicking` failed on CPU: panicked: bug in a generated kernel"
    );
    // Bad launch shapes.
    let e = rt.launch(&FAILING).dims(&[2, 2, 2, 2]).arg(&x, Access::Read).run().unwrap_err();
    assert!(matches!(e, Error::InvalidLaunch { .. }), "{e}");
    let e = rt.launch(&FAILING).dims(&[]).run().unwrap_err();
    assert!(matches!(e, Error::InvalidLaunch { .. }), "{e}");
    // The arrays are usable afterwards (borrows were released).
    x.set(&[0], 1.0).unwrap();
}

#[test]
fn a_kernel_that_panics_on_the_simulated_gpu_is_an_error_where_its_result_is_read() {
    let (rt, sim) = sim_runtime(jittery(12));
    let x = Array::<f32>::zeros(&[1000]).unwrap();
    // GPU launches are asynchronous: the panic is caught on the device's stream and reported
    // by whatever waits for the kernel, here the host read of what it writes.
    let r = rt.launch(&PANICKING).dims(&[1000]).arg(&x, Access::Write).on(SchedMode::Gpu).run();
    let e = match r {
        Ok(_) => x.to_vec().unwrap_err(),
        Err(e) => e,
    };
    assert!(e.to_string().contains("panicked: bug in a generated kernel"), "{e}");
    assert!(sim.violations().is_empty(), "{:?}", sim.violations());
}

#[test]
fn kernels_cannot_write_arrays_that_the_host_is_viewing() {
    for (rt, mode) in runtimes() {
        let y = Array::<i32>::zeros(&[100]).unwrap();
        let view = y.host_view().unwrap();
        let e = rt
            .launch(&common::ADD_SCALAR)
            .dims(&[100])
            .arg(&y, Access::ReadWrite)
            .scalar(1)
            .on(mode)
            .run()
            .unwrap_err();
        assert!(matches!(e, Error::Borrowed { .. }), "{e}");
        // Reading is fine.
        let z = Array::<i32>::zeros(&[100]).unwrap();
        rt.launch(&common::COPY)
            .dims(&[100])
            .arg(&y, Access::Read)
            .arg(&z, Access::Write)
            .on(mode)
            .run()
            .unwrap();
        drop(view);
        rt.launch(&common::ADD_SCALAR)
            .dims(&[100])
            .arg(&y, Access::ReadWrite)
            .scalar(1)
            .on(mode)
            .run()
            .unwrap();
        assert_eq!(y.get(&[99]).unwrap(), 1);
    }
}

#[test]
fn the_result_says_where_the_kernel_ran() {
    let (rt, _) = sim_runtime(jittery(1));
    let y = Array::<i32>::zeros(&[10]).unwrap();
    let on = |m| {
        rt.launch(&common::ADD_SCALAR)
            .dims(&[10])
            .arg(&y, Access::ReadWrite)
            .scalar(1)
            .on(m)
            .run()
            .unwrap()
            .device()
    };
    assert_eq!(on(SchedMode::Cpu), DeviceKind::Cpu);
    assert_eq!(on(SchedMode::Gpu), DeviceKind::Gpu);
    // Tiny work in automatic mode stays on the CPU.
    assert_eq!(on(SchedMode::Auto), DeviceKind::Cpu);
    assert_eq!(y.get(&[0]).unwrap(), 3);
}
