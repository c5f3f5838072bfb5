//! FFTs on a GPU through the back end's FFT library (cuFFT for CUDA), for `quasar-std`'s
//! `fft1/2/3`, `ifft1/2/3` and `irealfft1/2/3`; their CPU path (rustfft) lives there.
//!
//! [`Runtime::fft_on_gpu`] decides ([`use_gpu`]) whether a transform runs on the GPU, and if
//! so leaves its result there, like a kernel's output. The rule:
//! * never in CPU mode (`quasar run --cpu`, `{!sched mode=cpu}`), nor without a GPU whose back
//!   end has an FFT library ([`GpuBackend::has_fft`](crate::device::GpuBackend::has_fft): for
//!   CUDA, libcufft could be loaded), nor for a layout cuFFT cannot take ([`FftLayout::of`]);
//! * always in GPU mode;
//! * otherwise when the argument already has a valid copy on the GPU (no upload is needed, and
//!   its consumer is likely there too), or when it has at least [`GPU_FFT_MIN`] elements (the
//!   upload is then small beside the CPU's `O(n log n)` work).
//!
//! The result has the CPU path's layout and normalisation exactly: the shape of the argument,
//! complex elements of its precision, forward transforms unnormalised, inverses divided by the
//! product of the transformed lengths.

use crate::array::Array;
use crate::device::{DevPtr, GpuDevice};
use crate::element::{ElemInfo, Element};
use crate::error::{Error, Result};
use crate::launch::Access;
use crate::runtime::Runtime;
use crate::scheduler::{sched_attr, SchedMode};
use num_complex::Complex;
use std::any::TypeId;
use std::sync::Arc;

/// In automatic mode, arguments on the host with at least this many elements are transformed
/// on the GPU (2^18: a 512 x 512 image).
pub const GPU_FFT_MIN: usize = 1 << 18;

/// The most elements (and line length) a cuFFT plan of 32-bit sizes takes.
const MAX_CUFFT: usize = i32::MAX as usize;

/// The direction of a transform.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FftDirection {
    /// `X[k] = Σ x[n] e^(-2πi kn/N)`.
    Forward,
    /// `x[n] = (1/N) Σ X[k] e^(2πi kn/N)`.
    Inverse,
}

/// A batch of multi-dimensional transforms over one row-major array, in cuFFT's "advanced
/// layout" terms (with `inembed = onembed = n`): element `(i_0, …, i_{r-1})` of transform `b`
/// is at `b * dist + ((i_0 * n_1 + i_1) * n_2 + …) * stride`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FftLayout {
    /// The transformed lengths, outermost first (1 to 3 of them, each at least 2).
    pub n: Vec<usize>,
    /// The distance between consecutive elements of a line.
    pub stride: usize,
    /// The distance between the first elements of consecutive transforms.
    pub dist: usize,
    /// How many transforms.
    pub batch: usize,
}

impl FftLayout {
    /// The layout of transforming a row-major array of `shape` along `axes` (ascending;
    /// those past the rank are ignored, as on the CPU). `None` when nothing is transformed
    /// (every such axis has length 1, or the array is empty) or when the layout is not one
    /// cuFFT batches: an axis of length > 1 that is not transformed lies before a transformed
    /// one, or a size does not fit 32 bits.
    pub fn of(shape: &[usize], axes: &[usize]) -> Option<FftLayout> {
        if shape.contains(&0) {
            return None;
        }
        let kept: Vec<usize> =
            axes.iter().copied().filter(|&a| shape.get(a).is_some_and(|&n| n > 1)).collect();
        let last = *kept.last()?;
        if kept.len() > 3 || kept.windows(2).any(|w| w[0] >= w[1]) {
            return None;
        }
        // Axes of length 1 add nothing to an offset: only the others must be transformed.
        if (0..last).any(|a| shape[a] > 1 && !kept.contains(&a)) {
            return None;
        }
        let inner: usize = shape[last + 1..].iter().product();
        let n: Vec<usize> = kept.iter().map(|&a| shape[a]).collect();
        let total = inner.checked_mul(n.iter().product())?;
        if total > MAX_CUFFT {
            return None;
        }
        Some(FftLayout { n, stride: inner, dist: 1, batch: inner })
    }

    /// The number of points of one transform (the inverse's divisor).
    pub fn points(&self) -> usize {
        self.n.iter().product()
    }
}

/// Whether a transform runs on the GPU (see the module's rule). `gpu_has_fft`: a usable GPU
/// with an FFT library; `on_gpu`: the argument has a valid copy there.
pub fn use_gpu(mode: SchedMode, gpu_has_fft: bool, on_gpu: bool, numel: usize) -> bool {
    match mode {
        SchedMode::Cpu => false,
        _ if !gpu_has_fft => false,
        SchedMode::Gpu => true,
        SchedMode::Auto => on_gpu || numel >= GPU_FFT_MIN,
    }
}

/// One FFT as a back end runs it: the transform of `src` (complex, or real and widened first)
/// into `work` (complex, `numel` elements; the result), scaled by `1 / layout.points()` when
/// inverse, and, when `real_dst` is set, the real parts of `work` written there.
#[derive(Clone, Debug)]
pub struct FftJob {
    /// The batch of transforms.
    pub layout: FftLayout,
    /// Double precision (`Complex<f64>`; else `Complex<f32>`).
    pub double: bool,
    /// Which way.
    pub direction: FftDirection,
    /// The argument.
    pub src: DevPtr,
    /// The argument is real (one float per element).
    pub src_real: bool,
    /// The complex result, `numel` elements (never the same memory as `src`).
    pub work: DevPtr,
    /// Where the real parts go, for `irealfft`.
    pub real_dst: Option<DevPtr>,
    /// Elements of the array.
    pub numel: usize,
}

/// What an element type is to an FFT: its precision and whether it is complex.
fn kind(e: ElemInfo) -> Option<(bool, bool)> {
    let t = e.type_id;
    [
        (TypeId::of::<f32>(), (false, false)),
        (TypeId::of::<f64>(), (true, false)),
        (TypeId::of::<Complex<f32>>(), (false, true)),
        (TypeId::of::<Complex<f64>>(), (true, true)),
    ]
    .into_iter()
    .find_map(|(id, k)| (id == t).then_some(k))
}

impl Runtime {
    /// The transform of `x` along `axes` on the GPU, when the rule of this module says so;
    /// `Ok(None)` when it should run on the CPU (including when the GPU's FFT failed: that
    /// is logged once). `T` is a real or complex float; `R` is the complex type of its
    /// precision, or the real one for the real parts of the result (`irealfft`).
    pub fn fft_on_gpu<T: Element, R: Element>(
        &self,
        x: &Array<T>,
        axes: &[usize],
        direction: FftDirection,
    ) -> Result<Option<Array<R>>> {
        let (Some((double, complex_in)), Some((out_double, complex_out))) =
            (kind(ElemInfo::of::<T>()), kind(ElemInfo::of::<R>()))
        else {
            return Err(Error::Unsupported(format!(
                "an FFT of {} into {} (real or complex f32/f64 only)",
                T::type_name(),
                R::type_name()
            )));
        };
        if double != out_double {
            return Err(Error::Unsupported(format!(
                "an FFT of {} into {}: the precisions differ",
                T::type_name(),
                R::type_name()
            )));
        }
        let Some(layout) = FftLayout::of(x.shape(), axes) else { return Ok(None) };
        let mode = sched_attr().mode.unwrap_or_else(|| self.mode());
        let Some(dev) = self.gpu().filter(|g| g.backend().has_fft()) else { return Ok(None) };
        let on_gpu = x.buffer().valid_on(dev);
        if !use_gpu(mode, true, on_gpu, x.numel()) {
            return Ok(None);
        }
        let shape = x.shape().to_vec();
        let job = |src, work, real_dst| FftJob {
            layout: layout.clone(),
            double,
            direction,
            src,
            src_real: !complex_in,
            work,
            real_dst,
            numel: x.numel(),
        };
        let r = if complex_out {
            let out = Array::<R>::uninit(&shape)?;
            run(dev, &[(x, Access::Read)], &out, None::<&Array<R>>, |p| job(p[0], p[1], None))
                .map(|()| out)
        } else {
            // A complex array of the result's precision, its real parts taken after.
            let work = if double {
                Scratch::Double(Array::uninit(&shape)?)
            } else {
                Scratch::Single(Array::uninit(&shape)?)
            };
            let out = Array::<R>::uninit(&shape)?;
            let r = match &work {
                Scratch::Single(w) => {
                    run(dev, &[(x, Access::Read)], w, Some(&out), |p| job(p[0], p[1], Some(p[2])))
                }
                Scratch::Double(w) => {
                    run(dev, &[(x, Access::Read)], w, Some(&out), |p| job(p[0], p[1], Some(p[2])))
                }
            };
            r.map(|()| out)
        };
        match r {
            Ok(out) => Ok(Some(out)),
            Err(e) => {
                self.warn_once(&self.fft_logged, || {
                    format!("GPU FFT on {} failed ({e}); running on the CPU", dev.name())
                });
                Ok(None)
            }
        }
    }
}

/// The complex result of an `irealfft` on the GPU before its real parts are taken.
enum Scratch {
    Single(Array<Complex<f32>>),
    Double(Array<Complex<f64>>),
}

/// Pins `input` (read), `work` and `real_dst` (written) on `dev`, runs the job made from
/// their addresses (in that order), and records its fence on each.
fn run<T: Element, W: Element, R: Element>(
    dev: &Arc<GpuDevice>,
    input: &[(&Array<T>, Access)],
    work: &Array<W>,
    real_dst: Option<&Array<R>>,
    make: impl FnOnce(&[DevPtr]) -> FftJob,
) -> Result<()> {
    let mut bufs = vec![(input[0].0.buffer().clone(), input[0].1)];
    bufs.push((work.buffer().clone(), Access::Write));
    if let Some(d) = real_dst {
        bufs.push((d.buffer().clone(), Access::Write));
    }
    // Pins are taken in buffer order, as launches take them (no cycle of waits).
    let mut order: Vec<usize> = (0..bufs.len()).collect();
    order.sort_by_key(|&i| bufs[i].0.id);
    let mut ptrs = vec![DevPtr(0); bufs.len()];
    let mut deps = Vec::new();
    let mut pinned: Vec<usize> = Vec::new();
    let mut result = Ok(None);
    for &i in &order {
        match bufs[i].0.prepare_gpu(dev, bufs[i].1, "fft") {
            Ok((p, d)) => {
                ptrs[i] = p;
                deps.extend(d);
                pinned.push(i);
            }
            Err(e) => {
                result = Err(e);
                break;
            }
        }
    }
    if result.is_ok() {
        let job = make(&ptrs);
        // SAFETY: every pointer is a block of `dev` pinned for this job and sized for its
        // array's elements; the arrays have `numel` elements of the job's types.
        result = unsafe { dev.fft(&job, &deps) }.map(Some);
    }
    let fence = result.as_ref().ok().and_then(|f| f.clone());
    for i in pinned {
        bufs[i].0.finish_gpu(fence.as_ref(), bufs[i].1);
    }
    result.map(|_| ())
}

/// Runs `job` on host memory by the DFT's definition: the simulated device's FFT, and the
/// reference the layout is tested against. O(points) per output element: for small tests.
///
/// # Safety
/// The job's pointers are host addresses of arrays of `job.numel` elements of its types.
pub(crate) unsafe fn run_on_host(job: &FftJob) {
    if job.double {
        run_typed::<f64>(job)
    } else {
        run_typed::<f32>(job)
    }
}

unsafe fn run_typed<F: Float>(job: &FftJob) {
    let n = job.numel;
    let mut data: Vec<Complex<f64>> = if job.src_real {
        let s = std::slice::from_raw_parts(job.src.0 as *const F, n);
        s.iter().map(|v| Complex::new(v.to_f64(), 0.0)).collect()
    } else {
        let s = std::slice::from_raw_parts(job.src.0 as *const Complex<F>, n);
        s.iter().map(|c| Complex::new(c.re.to_f64(), c.im.to_f64())).collect()
    };
    let l = &job.layout;
    let sign = if job.direction == FftDirection::Inverse { 1.0 } else { -1.0 };
    // One dimension of the batch at a time: a multi-dimensional DFT is separable.
    for (d, &len) in l.n.iter().enumerate() {
        let step: usize = l.n[d + 1..].iter().product::<usize>() * l.stride;
        let points = l.points();
        for b in 0..l.batch {
            for flat in 0..points {
                // Visit each line once: at its element with index 0 along `d`.
                if (flat / l.n[d + 1..].iter().product::<usize>()) % len != 0 {
                    continue;
                }
                let base = b * l.dist + flat * l.stride;
                let line: Vec<Complex<f64>> = (0..len).map(|j| data[base + j * step]).collect();
                for k in 0..len {
                    let mut acc = Complex::new(0.0, 0.0);
                    for (j, v) in line.iter().enumerate() {
                        let angle = sign * 2.0 * std::f64::consts::PI * ((j * k) % len) as f64;
                        acc += v * Complex::from_polar(1.0, angle / len as f64);
                    }
                    data[base + k * step] = acc;
                }
            }
        }
    }
    if job.direction == FftDirection::Inverse {
        let s = 1.0 / l.points() as f64;
        data.iter_mut().for_each(|c| *c *= s);
    }
    let work = std::slice::from_raw_parts_mut(job.work.0 as *mut Complex<F>, n);
    for (w, c) in work.iter_mut().zip(&data) {
        *w = Complex::new(F::from_f64(c.re), F::from_f64(c.im));
    }
    if let Some(dst) = job.real_dst {
        let dst = std::slice::from_raw_parts_mut(dst.0 as *mut F, n);
        for (r, c) in dst.iter_mut().zip(&data) {
            *r = F::from_f64(c.re);
        }
    }
}

/// `f32` or `f64`, for [`run_on_host`].
trait Float: Copy {
    fn to_f64(self) -> f64;
    fn from_f64(v: f64) -> Self;
}
impl Float for f32 {
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
    fn from_f64(v: f64) -> Self {
        v as f32
    }
}
impl Float for f64 {
    fn to_f64(self) -> f64 {
        self
    }
    fn from_f64(v: f64) -> Self {
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(n: &[usize], stride: usize, batch: usize) -> Option<FftLayout> {
        Some(FftLayout { n: n.to_vec(), stride, dist: 1, batch })
    }

    #[test]
    fn layouts_of_fft1_fft2_fft3() {
        // fft1 of a vector, of a row (1 x n) and down the columns of a matrix.
        assert_eq!(FftLayout::of(&[12], &[0]), layout(&[12], 1, 1));
        assert_eq!(FftLayout::of(&[1, 12], &[1]), layout(&[12], 1, 1));
        assert_eq!(FftLayout::of(&[3, 4], &[0]), layout(&[3], 4, 4));
        // fft2 of a matrix and of every slice of a cube; fft3 of a cube.
        assert_eq!(FftLayout::of(&[5, 6], &[0, 1]), layout(&[5, 6], 1, 1));
        assert_eq!(FftLayout::of(&[5, 6, 3], &[0, 1]), layout(&[5, 6], 3, 3));
        assert_eq!(FftLayout::of(&[5, 6, 3], &[0, 1, 2]), layout(&[5, 6, 3], 1, 1));
        // Axes of length 1 are left out; axes past the rank are ignored.
        assert_eq!(FftLayout::of(&[4, 1, 6], &[0, 1, 2]), layout(&[4, 6], 1, 1));
        assert_eq!(FftLayout::of(&[1, 7, 2], &[0, 1]), layout(&[7], 2, 2));
        assert_eq!(FftLayout::of(&[8], &[0, 1, 2]), layout(&[8], 1, 1));
        assert_eq!(FftLayout::of(&[5, 6, 3, 2], &[0, 1, 2]), layout(&[5, 6, 3], 2, 2));
        assert_eq!(layout(&[5, 6, 3], 2, 2).map(|l| l.points()), Some(90));
    }

    #[test]
    fn layouts_the_gpu_does_not_take() {
        // Nothing to transform.
        assert_eq!(FftLayout::of(&[1, 1], &[0, 1]), None);
        assert_eq!(FftLayout::of(&[0, 4], &[0, 1]), None);
        assert_eq!(FftLayout::of(&[5], &[1]), None);
        // A longer untransformed axis before a transformed one.
        assert_eq!(FftLayout::of(&[3, 4], &[1]), None);
        // More elements than 32-bit sizes hold.
        assert_eq!(FftLayout::of(&[1 << 16, 1 << 16], &[0]), None);
    }

    #[test]
    fn the_rule_for_running_on_the_gpu() {
        use SchedMode::*;
        assert!(!use_gpu(Cpu, true, true, GPU_FFT_MIN));
        assert!(!use_gpu(Gpu, false, true, GPU_FFT_MIN));
        assert!(!use_gpu(Auto, false, true, GPU_FFT_MIN));
        assert!(use_gpu(Gpu, true, false, 4));
        assert!(use_gpu(Auto, true, true, 4));
        assert!(!use_gpu(Auto, true, false, GPU_FFT_MIN - 1));
        assert!(use_gpu(Auto, true, false, GPU_FFT_MIN));
    }

    #[test]
    fn element_kinds() {
        assert_eq!(kind(ElemInfo::of::<f32>()), Some((false, false)));
        assert_eq!(kind(ElemInfo::of::<Complex<f64>>()), Some((true, true)));
        assert_eq!(kind(ElemInfo::of::<i32>()), None);
    }
}
