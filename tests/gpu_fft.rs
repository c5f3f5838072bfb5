//! `fft1/2/3`, `ifft1/2/3` and `irealfft1/2/3` through cuFFT on a real GPU, against rustfft
//! on the CPU (the same functions forced onto the CPU), in single and double precision, for
//! real and complex input of odd and even lengths.
//!
//! Needs a CUDA GPU and libcufft on the library path: build with `--features cuda`
//! (`cargo test --release --features cuda --test gpu_fft`). Without a GPU, or with one but no
//! libcufft, each test prints a skip line and passes, unless `QUASAR_REQUIRE_GPU=1`, which
//! makes a missing CUDA GPU or cuFFT a failure. Each comparison prints (stderr) whether cuFFT
//! ran, so the output shows which path was tested. The simulated GPU (`QUASAR_SIM_GPU`) has no
//! FFT library: quasar-std/tests/fft_device.rs tests the device path on its DFT stand-in.
//!
//! Tolerance: ‖gpu − cpu‖∞ ≤ tol · max(1, ‖cpu‖∞) with tol = 2e-5 (f32) and 1e-11 (f64),
//! about 100 times the rounding error of an FFT of these lengths.

use quasar::{fft, Array, Complex, Runtime, SchedMode};
use quasar_runtime::fft::FftLayout;
use quasar_runtime::Target;
use std::sync::Mutex;
use std::time::Instant;

/// The mode is process-wide: tests that set it run one at a time.
static MODE: Mutex<()> = Mutex::new(());

fn require_gpu() -> bool {
    std::env::var("QUASAR_REQUIRE_GPU").is_ok_and(|v| v == "1")
}

/// Whether the global runtime has a GPU with an FFT library; else prints why (or fails under
/// `QUASAR_REQUIRE_GPU=1`).
fn cufft_or_skip(test: &str) -> bool {
    let rt = Runtime::global();
    let why = match rt.gpu() {
        Some(g) if g.backend().has_fft() => {
            eprintln!("{test}: cuFFT on {} against rustfft on the CPU", g.name());
            return true;
        }
        Some(g) => format!(
            "{} has no FFT library (libcufft not found on the library path, or QUASAR_CUFFT=0)",
            g.name()
        ),
        None => format!("no usable GPU ({})", rt.no_gpu_reason()),
    };
    let simulated = std::env::var("QUASAR_SIM_GPU").is_ok();
    if require_gpu() && !simulated {
        panic!("{test}: QUASAR_REQUIRE_GPU=1 but {why}");
    }
    eprintln!("skipping {test}: {why}; the FFTs ran on the CPU path only");
    false
}

fn with_mode<R>(mode: SchedMode, f: impl FnOnce() -> R) -> R {
    let before = Runtime::global().mode();
    quasar::set_mode(mode);
    let r = f();
    quasar::set_mode(before);
    r
}

fn values(n: usize, seed: usize) -> Vec<f64> {
    (0..n).map(|i| ((i * 7919 + seed * 104_729 + 13) % 1009) as f64 / 97.0 - 5.0).collect()
}

type Transform<T, R> = fn(&Array<T>) -> quasar::Result<Array<R>>;
/// A named transform of `T` into complex values of its precision.
type Named<T> = (&'static str, Transform<T, Complex<<T as fft::FftInput>::Real>>);

/// The six functions with complex results for element type `T`.
fn transforms<T: fft::FftInput>() -> Vec<Named<T>> {
    vec![
        ("fft1", fft::fft1),
        ("fft2", fft::fft2),
        ("fft3", fft::fft3),
        ("ifft1", fft::ifft1),
        ("ifft2", fft::ifft2),
        ("ifft3", fft::ifft3),
    ]
}

/// The three inverses with real results (`irealfftN`).
fn real_transforms<T: fft::FftInput>() -> Vec<(&'static str, Transform<T, T::Real>)> {
    vec![
        ("irealfft1", fft::irealfft1),
        ("irealfft2", fft::irealfft2),
        ("irealfft3", fft::irealfft3),
    ]
}

fn max_error(got: &[Complex<f64>], want: &[Complex<f64>]) -> f64 {
    let scale = want.iter().map(|c| c.norm()).fold(1.0, f64::max);
    got.iter().zip(want).map(|(g, w)| (g - w).norm()).fold(0.0, f64::max) / scale
}

trait Wide: Copy {
    fn wide(self) -> Complex<f64>;
}
impl Wide for f32 {
    fn wide(self) -> Complex<f64> {
        Complex::new(self.into(), 0.0)
    }
}
impl Wide for f64 {
    fn wide(self) -> Complex<f64> {
        Complex::new(self, 0.0)
    }
}
impl Wide for Complex<f32> {
    fn wide(self) -> Complex<f64> {
        Complex::new(self.re.into(), self.im.into())
    }
}
impl Wide for Complex<f64> {
    fn wide(self) -> Complex<f64> {
        self
    }
}

/// `f(x)` on the CPU and (GPU mode) on the GPU: the GPU result must be left on the GPU (the
/// proof that cuFFT ran) and agree within `tol`.
/// Whether `name` (`fft2`, `irealfft1`, …) transforms some axis of `shape` (else it is the
/// identity, which stays on the CPU).
fn transforms_something(name: &str, shape: &[usize]) -> bool {
    let axes = match name.chars().last() {
        Some('1') => vec![shape.iter().position(|&n| n != 1).unwrap_or(0)],
        Some('2') => vec![0, 1],
        _ => vec![0, 1, 2],
    };
    FftLayout::of(shape, &axes).is_some()
}

fn compare<T, R>(what: &str, f: Transform<T, R>, x: &Array<T>, tol: f64, on_gpu: bool)
where
    T: quasar::Element,
    R: quasar::Element + Wide,
{
    let cpu = with_mode(SchedMode::Cpu, || f(x)).unwrap_or_else(|e| panic!("{what} CPU: {e}"));
    let gpu = with_mode(SchedMode::Gpu, || f(x)).unwrap_or_else(|e| panic!("{what} GPU: {e}"));
    let r = gpu.residency();
    let path = if r.device_valid && !r.host_valid { "cuFFT" } else { "CPU (rustfft)" };
    let c: Vec<Complex<f64>> = cpu.to_vec().unwrap().into_iter().map(Wide::wide).collect();
    let g: Vec<Complex<f64>> = gpu.to_vec().unwrap().into_iter().map(Wide::wide).collect();
    assert_eq!(gpu.shape(), cpu.shape(), "{what}");
    let err = max_error(&g, &c);
    eprintln!("  {what}: ran on {path}, max error {err:.2e} (tolerance {tol:.0e})");
    let expected = if on_gpu { "cuFFT" } else { "CPU (rustfft)" };
    assert_eq!(path, expected, "{what}: the GPU-mode result was not computed where expected");
    assert!(err <= tol, "{what}: max error {err:e} over {tol:e}");
}

const SHAPES: &[&[usize]] =
    &[&[16], &[1, 15], &[9, 10], &[32, 17], &[7, 6, 5], &[8, 6, 4, 3], &[1, 1, 27]];

fn all_transforms<T: fft::FftInput>(
    label: &str,
    make: impl Fn(&[usize], usize) -> Array<T>,
    tol: f64,
) where
    Complex<T::Real>: Wide,
    T::Real: Wide,
{
    for (k, shape) in SHAPES.iter().enumerate() {
        let x = make(shape, k);
        for (name, f) in transforms::<T>() {
            let gpu = transforms_something(name, shape);
            compare(&format!("{name} {label} {shape:?}"), f, &x, tol, gpu);
        }
        for (name, f) in real_transforms::<T>() {
            let gpu = transforms_something(name, shape);
            compare(&format!("{name} {label} {shape:?}"), f, &x, tol, gpu);
        }
    }
}

const TOL_F32: f64 = 2e-5;
const TOL_F64: f64 = 1e-11;

#[test]
fn cufft_matches_rustfft_in_single_and_double_precision() {
    let _one = MODE.lock().unwrap_or_else(|e| e.into_inner());
    if !cufft_or_skip("cufft_matches_rustfft_in_single_and_double_precision") {
        return;
    }
    let real64 = |s: &[usize], k| Array::from_vec(s, values(s.iter().product(), k)).unwrap();
    let real32 = |s: &[usize], k| {
        let v = values(s.iter().product(), k);
        Array::from_vec(s, v.iter().map(|&r| r as f32).collect()).unwrap()
    };
    let cplx64 = |s: &[usize], k| {
        let n = s.iter().product();
        let (a, b) = (values(n, k), values(n, k + 50));
        Array::from_vec(s, a.iter().zip(&b).map(|(&r, &i)| Complex::new(r, i)).collect()).unwrap()
    };
    let cplx32 = |s: &[usize], k| {
        let n = s.iter().product();
        let (a, b) = (values(n, k), values(n, k + 50));
        let v = a.iter().zip(&b).map(|(&r, &i)| Complex::new(r as f32, i as f32)).collect();
        Array::from_vec(s, v).unwrap()
    };
    all_transforms("real f64", real64, TOL_F64);
    all_transforms("real f32", real32, TOL_F32);
    all_transforms("complex f64", cplx64, TOL_F64);
    all_transforms("complex f32", cplx32, TOL_F32);
}

#[test]
fn automatic_mode_uses_cufft_for_data_on_the_gpu_and_large_arrays() {
    let _one = MODE.lock().unwrap_or_else(|e| e.into_inner());
    if !cufft_or_skip("automatic_mode_uses_cufft_for_data_on_the_gpu_and_large_arrays") {
        return;
    }
    let rt = Runtime::global();
    let on_gpu = |a: &Array<Complex<f32>>| {
        let r = a.residency();
        r.device_valid && !r.host_valid
    };
    with_mode(SchedMode::Auto, || {
        // Small and on the host: rustfft.
        let small = Array::from_vec(&[64, 64], vec![1.0f32; 4096]).unwrap();
        let y = fft::fft2(&small).unwrap();
        eprintln!("  small host array: {}", if on_gpu(&y) { "cuFFT" } else { "CPU" });
        assert!(!on_gpu(&y));
        // The same array moved to the GPU: cuFFT, and ifft2 of the result stays there too.
        rt.transfer(&small, Target::Gpu(None)).unwrap();
        let y = fft::fft2(&small).unwrap();
        assert!(on_gpu(&y), "fft2 of an array on the GPU ran on the CPU");
        let back = fft::ifft2(&y).unwrap();
        assert!(on_gpu(&back));
        let err = back.to_vec().unwrap().iter().map(|c| (c - 1.0).norm()).fold(0.0f32, f32::max);
        eprintln!("  array on the GPU: cuFFT, ifft2(fft2(x)) - x = {err:.1e}");
        assert!(err < 1e-5);
        // Large (2^20 elements, over GPU_FFT_MIN) on the host: cuFFT, timed against the CPU.
        let (m, n) = (1024, 1024);
        let big =
            Array::from_vec(&[m, n], values(m * n, 3).iter().map(|&v| v as f32).collect()).unwrap();
        let t = Instant::now();
        let g = fft::fft2(&big).unwrap();
        let gv = g.to_vec().unwrap();
        let gpu_time = t.elapsed();
        assert!(g.residency().device_valid, "fft2 of a large host array ran on the CPU");
        // Again, planned: the steady state.
        let t = Instant::now();
        let g2 = fft::fft2(&big).unwrap();
        g2.sync().unwrap();
        let transform_time = t.elapsed();
        let _ = g2.to_vec().unwrap();
        let warm_time = t.elapsed();
        let t = Instant::now();
        let c = with_mode(SchedMode::Cpu, || fft::fft2(&big)).unwrap().to_vec().unwrap();
        let cpu_time = t.elapsed();
        let wide = |v: &[Complex<f32>]| v.iter().map(|z| z.wide()).collect::<Vec<_>>();
        let err = max_error(&wide(&gv), &wide(&c));
        eprintln!(
            "  1024 x 1024 f32 fft2 from the host: cuFFT {gpu_time:?} on first use (upload, \
             planning, transform, download), then {transform_time:?} to the result on the GPU \
             and {warm_time:?} with its download; rustfft {cpu_time:?}; max error {err:.1e}"
        );
        assert!(err <= TOL_F32);
    });
    let rows = quasar::profile().rows;
    let ffts: u64 = rows.iter().filter(|r| r.kernel.contains("fft")).map(|r| r.launches).sum();
    eprintln!("  profile: {ffts} FFTs on the GPU");
    assert!(ffts >= 3);
}
