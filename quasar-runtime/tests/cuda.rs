//! The CUDA device with hand-written PTX (tests/ptx/kernels.ptx): saxpy over a launch that is
//! not a multiple of the block size, and a block sum with dynamic shared memory, `bar.sync`
//! and `atom.global.add` into a kernel output argument. Results are compared with the CPU.
//!
//! Without the `cuda` feature, a driver or a GPU these tests print why and pass, unless
//! `QUASAR_REQUIRE_GPU=1`, where a missing GPU is a failure.

use quasar_runtime::{
    Access, Array, BlockCtx, DeviceKind, Error, Kernel, KernelArgs, Reduce, Result, Runtime,
    SchedMode,
};

static PTX: &str = include_str!("ptx/kernels.ptx");

fn saxpy_cpu(ctx: &BlockCtx, args: &KernelArgs) -> Result<()> {
    let x = args.view::<f32>(0)?;
    let y = args.view::<f32>(1)?;
    let a: f32 = args.scalar(2)?;
    let r = ctx.range(0);
    // SAFETY: the launch covers numel(y) == numel(x) positions; blocks are disjoint.
    let (xs, ys) = unsafe { (x.slice(r.clone()), y.slice_mut(r)) };
    for (yi, xi) in ys.iter_mut().zip(xs) {
        *yi = a.mul_add(*xi, *yi);
    }
    Ok(())
}
static SAXPY: Kernel = Kernel::new("saxpy", saxpy_cpu).with_ptx(PTX);

fn block_sum_cpu(ctx: &BlockCtx, args: &KernelArgs) -> Result<()> {
    let x = args.view::<f32>(0)?;
    let s = ctx.output::<f32>(0)?;
    let n = ctx.dims()[0];
    let shared = ctx.shared() as *mut f32;
    for (t, pos) in ctx.full_range(0).enumerate() {
        // SAFETY: t < blkdim; shared holds blkdim floats.
        unsafe { *shared.add(t) = if pos < n { x.get_unchecked(pos) } else { 0.0 } };
    }
    // syncthreads; then thread 0 sums the block.
    let mut sum = 0.0f32;
    for t in 0..ctx.blkdim(0) {
        // SAFETY: as above.
        sum += unsafe { *shared.add(t) };
    }
    s.set(s.get() + sum);
    Ok(())
}
fn four_bytes_per_thread(blkdim: &[usize]) -> usize {
    blkdim[0] * 4
}
static BLOCK_SUM: Kernel =
    Kernel::new("block_sum", block_sum_cpu).with_ptx(PTX).with_shared(four_bytes_per_thread);

fn nothing(_: &BlockCtx, _: &KernelArgs) -> Result<()> {
    Ok(())
}
static MISSING_ENTRY: Kernel = Kernel::new("not_in_the_module", nothing).with_ptx(PTX);

fn require_gpu() -> bool {
    std::env::var("QUASAR_REQUIRE_GPU").is_ok_and(|v| v == "1")
}

/// A runtime on the first CUDA GPU, or `None` (after saying why) when there is none.
fn cuda_runtime() -> Option<Runtime> {
    #[cfg(feature = "cuda")]
    let r = quasar_runtime::device::cuda::CudaBackend::open(0)
        .map(|b| Runtime::with_gpu(std::sync::Arc::new(b)))
        .map_err(|e| e.to_string());
    #[cfg(not(feature = "cuda"))]
    let r: std::result::Result<Runtime, String> =
        Err("quasar-runtime was built without the `cuda` feature".into());
    match r {
        Ok(rt) => Some(rt),
        Err(why) if require_gpu() => panic!("QUASAR_REQUIRE_GPU=1 but there is no GPU: {why}"),
        Err(why) => {
            eprintln!("skipping the CUDA test: {why}");
            None
        }
    }
}

#[test]
fn saxpy_ptx_runs_on_the_gpu_and_agrees_with_the_cpu() {
    let Some(rt) = cuda_runtime() else { return };
    let n = 1_000_003usize; // not a multiple of any block size
    let x = Array::<f32>::from_fn(&[n], |i| (i % 1000) as f32 * 0.5).unwrap();
    let y = Array::<f32>::from_fn(&[n], |i| (i % 7) as f32).unwrap();
    let y_cpu = y.copy().unwrap();
    for _ in 0..2 {
        let r = rt
            .launch(&SAXPY)
            .dims(&[n])
            .arg(&x, Access::Read)
            .arg(&y, Access::ReadWrite)
            .scalar(2.0f32)
            .on(SchedMode::Gpu)
            .run()
            .unwrap();
        assert_eq!(r.device(), DeviceKind::Gpu);
        rt.launch(&SAXPY)
            .dims(&[n])
            .arg(&x, Access::Read)
            .arg(&y_cpu, Access::ReadWrite)
            .scalar(2.0f32)
            .on(SchedMode::Cpu)
            .run()
            .unwrap();
    }
    assert!(!y.residency().host_valid, "the result stays on the GPU until read");
    assert_eq!(y.to_vec().unwrap(), y_cpu.to_vec().unwrap());
    let p = rt.profile();
    println!("{p}");
    let row = p.row("saxpy", "CUDA").unwrap();
    assert_eq!(row.launches, 2);
    assert!(row.time > std::time::Duration::ZERO);
    assert_eq!(row.bytes_to_device, 2 * 4 * n as u64, "x and y uploaded once each");
}

#[test]
fn shared_memory_and_atomics_in_ptx() {
    let Some(rt) = cuda_runtime() else { return };
    let n = 100_001usize;
    let x = Array::<f32>::from_elem(&[n], 1.0).unwrap();
    let mut sums = Vec::new();
    for mode in [SchedMode::Gpu, SchedMode::Cpu] {
        let r = rt
            .launch(&BLOCK_SUM)
            .dims(&[n])
            .block(&[256])
            .arg(&x, Access::Read)
            .output::<f32>(Reduce::Sum)
            .on(mode)
            .run()
            .unwrap();
        sums.push(r.output::<f32>(0).unwrap());
    }
    assert_eq!(sums, vec![n as f32, n as f32]);
}

#[test]
fn cuda_errors_name_the_kernel() {
    let Some(rt) = cuda_runtime() else { return };
    let e = rt.launch(&MISSING_ENTRY).dims(&[10]).on(SchedMode::Gpu).run().unwrap_err();
    assert!(matches!(e, Error::Cuda { .. }), "{e}");
    assert!(e.to_string().contains("not_in_the_module"), "{e}");
    // Too many threads per block is refused before reaching the driver.
    let x = Array::<f32>::zeros(&[4096]).unwrap();
    let e = rt
        .launch(&BLOCK_SUM)
        .dims(&[4096])
        .block(&[4096])
        .arg(&x, Access::Read)
        .output::<f32>(Reduce::Sum)
        .on(SchedMode::Gpu)
        .run()
        .unwrap_err();
    assert!(matches!(e, Error::InvalidLaunch { .. }), "{e}");
}

#[test]
fn a_missing_driver_means_no_gpu_not_a_crash() {
    // Whatever this machine has, detection returns (it never panics), and without a GPU the
    // runtime says why and runs kernels on the CPU.
    let rt = Runtime::detect();
    if rt.gpu().is_none() {
        assert!(!rt.no_gpu_reason().is_empty());
        let y = Array::<f32>::zeros(&[8]).unwrap();
        let x = Array::<f32>::from_elem(&[8], 1.0).unwrap();
        let r = rt
            .launch(&SAXPY)
            .dims(&[8])
            .arg(&x, Access::Read)
            .arg(&y, Access::ReadWrite)
            .scalar(3.0f32)
            .run()
            .unwrap();
        assert_eq!(r.device(), DeviceKind::Cpu);
        assert_eq!(y.to_vec().unwrap(), vec![3.0; 8]);
        let e = rt.launch(&SAXPY).dims(&[8]).on(SchedMode::Gpu).run().unwrap_err();
        assert!(matches!(e, Error::NoGpu { .. }), "{e}");
    }
}

#[test]
fn the_test_ptx_passes_ptxas_when_it_is_available() {
    // ptxas comes from the `nvidia-cuda-nvcc-cu12` wheel or a CUDA toolkit; PTXAS names it.
    let ptxas = std::env::var("PTXAS").unwrap_or_else(|_| "ptxas".into());
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/ptx/kernels.ptx");
    let out =
        std::env::temp_dir().join(format!("quasar-runtime-test-{}.cubin", std::process::id()));
    match std::process::Command::new(&ptxas).args(["-arch=sm_80", path, "-o"]).arg(&out).output() {
        Ok(o) => {
            let _ = std::fs::remove_file(&out);
            assert!(o.status.success(), "ptxas failed: {}", String::from_utf8_lossy(&o.stderr));
        }
        Err(e) => eprintln!("skipping: `{ptxas}` not runnable ({e})"),
    }
}
