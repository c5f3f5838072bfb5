//! cuFFT for the CUDA back end ([`GpuBackend::fft`](super::GpuBackend::fft)).
//!
//! libcufft is loaded at run time like the driver; when it is missing (or lacks a function we
//! call, or `QUASAR_CUFFT=0`), the back end has no FFT and `quasar-std` transforms on the CPU.
//! cudarc's loader panics on a missing library, so presence is checked first, once.
//!
//! A job runs on stream 0 (so that the plans' work areas are never used by two transforms at
//! once): real input is widened to complex by a small kernel, `cufftExecC2C`/`Z2Z` transforms
//! (out of place from complex input, in place after widening), an inverse is scaled by `1/N`,
//! and `irealfft`'s real parts are taken, each by a kernel of the PTX module below. Plans are
//! cached per layout and precision (at most [`MAX_PLANS`], with their work areas, which cuFFT
//! allocates outside the runtime's pool).

use super::{cuda, CudaBackend, Fence, Stream};
use crate::error::{Error, Result};
use crate::fft::{FftDirection, FftJob, FftLayout};
use cudarc::cufft::result as cufft;
use cudarc::cufft::sys as fftsys;
use cudarc::driver::{result, sys};
use std::collections::HashMap;
use std::ffi::{c_int, c_void, CString};
use std::sync::{Mutex, OnceLock};

/// cuFFT functions called here; checked before the first call.
const CUFFT_SYMBOLS: &[&str] =
    &["cufftPlanMany", "cufftSetStream", "cufftExecC2C", "cufftExecZ2Z", "cufftDestroy"];

/// Plans kept at most (each with its work area); beyond, the cache starts again.
const MAX_PLANS: usize = 32;

/// Threads per block of the helper kernels.
const BLOCK: usize = 256;

/// Whether libcufft is present with every function we call (and not turned off by
/// `QUASAR_CUFFT=0`); checked once.
pub(super) fn cufft_usable() -> bool {
    static USABLE: OnceLock<bool> = OnceLock::new();
    *USABLE.get_or_init(|| {
        if std::env::var("QUASAR_CUFFT").is_ok_and(|v| v.trim() == "0") {
            return false;
        }
        // SAFETY: only tries to load the library.
        if !unsafe { fftsys::is_culib_present() } {
            return false;
        }
        // SAFETY: the library is present; `get` only looks symbols up.
        let lib = unsafe { fftsys::culib() };
        // SAFETY: looking a symbol up has no side effects.
        CUFFT_SYMBOLS
            .iter()
            .all(|s| unsafe { lib.get::<unsafe extern "C" fn()>(s.as_bytes()) }.is_ok())
    })
}

/// The helper kernels of one precision.
struct Helpers {
    module: sys::CUmodule,
    widen: sys::CUfunction,
    scale: sys::CUfunction,
    real_part: sys::CUfunction,
}

/// The cuFFT state of a back end.
#[derive(Default)]
pub(super) struct CuFft {
    plans: Mutex<HashMap<(FftLayout, bool), fftsys::cufftHandle>>,
    /// Single and double precision, loaded on first use.
    helpers: Mutex<[Option<Helpers>; 2]>,
}

// SAFETY: plan handles and module/function handles are valid on any thread of the context;
// the mutexes serialise their use.
unsafe impl Send for CuFft {}
// SAFETY: as above.
unsafe impl Sync for CuFft {}

/// The helper kernels' PTX for `f32` or `f64` (`bytes` per real).
fn helpers_ptx(t: &str, bytes: u32) -> String {
    let cbytes = 2 * bytes;
    let shift = |b: u32| b.trailing_zeros();
    let (rs, cs) = (shift(bytes), shift(cbytes));
    let zero = if t == "f32" { "0f00000000" } else { "0d0000000000000000" };
    // Every kernel: i = ctaid.x * ntid.x + tid.x; nothing past n.
    let index = "\tmov.u32 %r1, %ctaid.x;\n\tmov.u32 %r2, %ntid.x;\n\tmov.u32 %r3, %tid.x;\n\
                 \tmul.wide.u32 %rd4, %r1, %r2;\n\tcvt.u64.u32 %rd5, %r3;\n\
                 \tadd.s64 %rd4, %rd4, %rd5;\n\tsetp.ge.u64 %p1, %rd4, %rd3;\n\t@%p1 bra DONE;\n";
    let regs = format!(
        "\t.reg .pred %p<2>;\n\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<10>;\n\t.reg .{t} %f<4>;\n"
    );
    format!(
        ".version 6.0\n.target sm_50\n.address_size 64\n\n\
         // work[i] = (src[i], 0)\n\
         .visible .entry quasar_fft_widen_{t}(.param .u64 p0, .param .u64 p1, .param .u64 p2)\n{{\n{regs}\
         \tld.param.u64 %rd1, [p0];\n\tld.param.u64 %rd2, [p1];\n\tld.param.u64 %rd3, [p2];\n{index}\
         \tcvta.to.global.u64 %rd1, %rd1;\n\tcvta.to.global.u64 %rd2, %rd2;\n\
         \tshl.b64 %rd6, %rd4, {rs};\n\tadd.s64 %rd6, %rd2, %rd6;\n\tld.global.{t} %f1, [%rd6];\n\
         \tshl.b64 %rd7, %rd4, {cs};\n\tadd.s64 %rd7, %rd1, %rd7;\n\tmov.{t} %f2, {zero};\n\
         \tst.global.v2.{t} [%rd7], {{%f1, %f2}};\nDONE:\n\tret;\n}}\n\n\
         // x[i] *= s for the n reals of x\n\
         .visible .entry quasar_fft_scale_{t}(.param .u64 p0, .param .u64 p1, .param .{t} p2)\n{{\n{regs}\
         \tld.param.u64 %rd1, [p0];\n\tld.param.u64 %rd3, [p1];\n\tld.param.{t} %f2, [p2];\n{index}\
         \tcvta.to.global.u64 %rd1, %rd1;\n\
         \tshl.b64 %rd6, %rd4, {rs};\n\tadd.s64 %rd6, %rd1, %rd6;\n\tld.global.{t} %f1, [%rd6];\n\
         \tmul.{rnd}{t} %f1, %f1, %f2;\n\tst.global.{t} [%rd6], %f1;\nDONE:\n\tret;\n}}\n\n\
         // dst[i] = re(work[i])\n\
         .visible .entry quasar_fft_real_part_{t}(.param .u64 p0, .param .u64 p1, .param .u64 p2)\n{{\n{regs}\
         \tld.param.u64 %rd1, [p0];\n\tld.param.u64 %rd2, [p1];\n\tld.param.u64 %rd3, [p2];\n{index}\
         \tcvta.to.global.u64 %rd1, %rd1;\n\tcvta.to.global.u64 %rd2, %rd2;\n\
         \tshl.b64 %rd6, %rd4, {cs};\n\tadd.s64 %rd6, %rd2, %rd6;\n\tld.global.{t} %f1, [%rd6];\n\
         \tshl.b64 %rd7, %rd4, {rs};\n\tadd.s64 %rd7, %rd1, %rd7;\n\tst.global.{t} [%rd7], %f1;\n\
         DONE:\n\tret;\n}}\n",
        rnd = "rn.",
    )
}

/// A kernel parameter: its value, 8-byte aligned.
#[derive(Clone, Copy)]
enum Param {
    U64(u64),
    F32(f32),
    F64(f64),
}

impl CudaBackend {
    /// Runs `job` (see [`FftJob`]) on stream 0 after `after`.
    pub(super) fn run_fft(&self, fft: &CuFft, job: &FftJob, after: &[Fence]) -> Result<Fence> {
        let kind = match job.direction {
            FftDirection::Forward => "fft",
            FftDirection::Inverse => "ifft",
        };
        let what = format!("cuFFT {kind} of lengths {:?} x {}", job.layout.n, job.layout.batch);
        self.bind(&what)?;
        let stream = self.streams[0];
        self.wait_for(stream, after, &what)?;
        let start = self.start(stream, &what)?;
        let r = self.enqueue_fft(fft, job, stream, &what);
        let fence = self.fence((0, stream), start, what.clone())?;
        r.map(|()| fence)
    }

    fn enqueue_fft(&self, fft: &CuFft, job: &FftJob, stream: Stream, what: &str) -> Result<()> {
        let n = job.numel as u64;
        let p = if job.double { 1 } else { 0 };
        let mut helpers = fft.helpers.lock().unwrap_or_else(|e| e.into_inner());
        if helpers[p].is_none() {
            helpers[p] = Some(self.load_helpers(job.double)?);
        }
        let h = helpers[p].as_ref().expect("just loaded");
        let src = if job.src_real {
            self.launch_helper(
                h.widen,
                &[Param::U64(job.work.0), Param::U64(job.src.0), Param::U64(n)],
                job.numel,
                stream,
                what,
            )?;
            job.work.0
        } else {
            job.src.0
        };
        {
            let mut plans = fft.plans.lock().unwrap_or_else(|e| e.into_inner());
            let plan = match plans.get(&(job.layout.clone(), job.double)) {
                Some(&plan) => plan,
                None => {
                    if plans.len() >= MAX_PLANS {
                        // Bounded: each plan holds a work area. Every plan runs on this
                        // stream: once it is idle, none is in use.
                        // SAFETY: a stream of ours.
                        unsafe { result::stream::synchronize(stream.0) }
                            .map_err(cuda(what.to_string()))?;
                        for (_, old) in plans.drain() {
                            // SAFETY: our plan, not in use.
                            let _ = unsafe { cufft::destroy(old) };
                        }
                    }
                    let plan = make_plan(&job.layout, job.double).map_err(cufft_err(what))?;
                    plans.insert((job.layout.clone(), job.double), plan);
                    plan
                }
            };
            let direction: c_int = match job.direction {
                FftDirection::Forward => -1, // CUFFT_FORWARD
                FftDirection::Inverse => 1,  // CUFFT_INVERSE
            };
            // SAFETY: a plan of ours, a stream of ours; `src` and `work` are device blocks of
            // `numel` complex elements of the plan's precision (the caller's contract).
            unsafe {
                cufft::set_stream(plan, stream.0 as fftsys::cudaStream_t)
                    .map_err(cufft_err(what))?;
                if job.double {
                    cufft::exec_z2z(
                        plan,
                        src as *mut fftsys::cufftDoubleComplex,
                        job.work.0 as *mut fftsys::cufftDoubleComplex,
                        direction,
                    )
                } else {
                    cufft::exec_c2c(
                        plan,
                        src as *mut fftsys::cufftComplex,
                        job.work.0 as *mut fftsys::cufftComplex,
                        direction,
                    )
                }
                .map_err(cufft_err(what))?;
            }
        }
        if job.direction == FftDirection::Inverse {
            let s = 1.0 / job.layout.points() as f64;
            let scale = if job.double { Param::F64(s) } else { Param::F32(s as f32) };
            let reals = 2 * job.numel;
            self.launch_helper(
                h.scale,
                &[Param::U64(job.work.0), Param::U64(2 * n), scale],
                reals,
                stream,
                what,
            )?;
        }
        if let Some(dst) = job.real_dst {
            let params = [Param::U64(dst.0), Param::U64(job.work.0), Param::U64(n)];
            self.launch_helper(h.real_part, &params, job.numel, stream, what)?;
        }
        Ok(())
    }

    fn load_helpers(&self, double: bool) -> Result<Helpers> {
        let (t, bytes) = if double { ("f64", 8) } else { ("f32", 4) };
        let what = format!("loading the FFT helper kernels ({t})");
        let text = CString::new(helpers_ptx(t, bytes)).map_err(|_| Error::Cuda {
            operation: what.clone(),
            message: "NUL in the PTX text".into(),
        })?;
        // SAFETY: a NUL-terminated PTX image; the driver copies it.
        let module = unsafe { result::module::load_data(text.as_ptr() as *const c_void) }
            .map_err(cuda(what.clone()))?;
        let get = |name: &str| {
            let c = CString::new(format!("quasar_fft_{name}_{t}")).expect("no NUL");
            // SAFETY: a loaded module.
            unsafe { result::module::get_function(module, c) }.map_err(cuda(what.clone()))
        };
        Ok(Helpers {
            module,
            widen: get("widen")?,
            scale: get("scale")?,
            real_part: get("real_part")?,
        })
    }

    /// Launches a helper kernel over `count` threads on `stream`.
    fn launch_helper(
        &self,
        f: sys::CUfunction,
        params: &[Param],
        count: usize,
        stream: Stream,
        what: &str,
    ) -> Result<()> {
        let mut store: Vec<u64> = params
            .iter()
            .map(|p| match *p {
                Param::U64(v) => v,
                Param::F32(v) => u64::from(v.to_bits()),
                Param::F64(v) => v.to_bits(),
            })
            .collect();
        let mut ptrs: Vec<*mut c_void> =
            store.iter_mut().map(|w| w as *mut u64 as *mut c_void).collect();
        let grid = count.div_ceil(BLOCK).max(1);
        // SAFETY: a function of our module whose parameters are these (u64 values, or a
        // float in the low bytes of a little-endian word), a stream of ours.
        unsafe {
            sys::cuLaunchKernel(
                f,
                grid as u32,
                1,
                1,
                BLOCK as u32,
                1,
                1,
                0,
                stream.0,
                ptrs.as_mut_ptr(),
                std::ptr::null_mut(),
            )
            .result()
        }
        .map_err(cuda(what.to_string()))
    }

    /// Destroys the plans and unloads the helper modules (the device is idle).
    pub(super) fn drop_fft(&self, fft: &CuFft) {
        for (_, plan) in fft.plans.lock().unwrap_or_else(|e| e.into_inner()).drain() {
            // SAFETY: our plan, no longer used.
            let _ = unsafe { cufft::destroy(plan) };
        }
        for h in fft.helpers.lock().unwrap_or_else(|e| e.into_inner()).iter_mut() {
            if let Some(h) = h.take() {
                // SAFETY: our module, no longer used.
                let _ = unsafe { result::module::unload(h.module) };
            }
        }
    }
}

/// A cuFFT plan for `layout` (C2C or Z2Z).
fn make_plan(
    layout: &FftLayout,
    double: bool,
) -> std::result::Result<fftsys::cufftHandle, cufft::CufftError> {
    let mut n: Vec<c_int> = layout.n.iter().map(|&v| v as c_int).collect();
    let mut embed = n.clone();
    let mut oembed = n.clone();
    let kind = if double { fftsys::cufftType::CUFFT_Z2Z } else { fftsys::cufftType::CUFFT_C2C };
    // SAFETY: the arrays hold `rank` lengths; the sizes were checked to fit 32 bits
    // (`FftLayout::of`).
    unsafe {
        cufft::plan_many(
            n.len() as c_int,
            n.as_mut_ptr(),
            embed.as_mut_ptr(),
            layout.stride as c_int,
            layout.dist as c_int,
            oembed.as_mut_ptr(),
            layout.stride as c_int,
            layout.dist as c_int,
            kind,
            layout.batch as c_int,
        )
    }
}

fn cufft_err(what: &str) -> impl FnOnce(cufft::CufftError) -> Error + '_ {
    move |e| Error::Cuda { operation: what.to_string(), message: format!("{e:?}") }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn helper_ptx_declares_three_entries_per_precision() {
        for (t, b) in [("f32", 4), ("f64", 8)] {
            let ptx = helpers_ptx(t, b);
            for k in ["widen", "scale", "real_part"] {
                assert!(ptx.contains(&format!(".visible .entry quasar_fft_{k}_{t}(")), "{ptx}");
            }
            assert_eq!(ptx.matches('{').count(), ptx.matches('}').count());
        }
        // Complex elements are twice the real size: shifts 2/3 for f32, 3/4 for f64.
        assert!(helpers_ptx("f32", 4).contains("shl.b64 %rd7, %rd4, 3;"));
        assert!(helpers_ptx("f64", 8).contains("shl.b64 %rd6, %rd4, 4;"));
    }
}
