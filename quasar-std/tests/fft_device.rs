//! The GPU path of the FFTs without a GPU: a runtime around the simulated device with its FFT
//! stand-in (the DFT by definition, reading the job's cuFFT-style layout), compared with
//! `quasar_std::fft` on the CPU (rustfft), and the CPU fallback when the device has no FFT
//! library, in CPU mode, and for small host arrays. The same transforms on a real GPU through
//! cuFFT: tests/gpu_fft.rs at the workspace root.

use quasar_runtime::device::sim::{SimBackend, SimConfig};
use quasar_runtime::fft::{FftDirection, GPU_FFT_MIN};
use quasar_runtime::{Array, Complex, Element, MemoryConfig, Runtime, SchedMode, Target};
use quasar_std::fft;
use std::sync::Arc;

fn sim(fft: bool) -> Runtime {
    let rt = Runtime::with_gpu(Arc::new(SimBackend::new(SimConfig { fft, ..Default::default() })));
    rt.set_memory_config(MemoryConfig { reserved_bytes: 0, ..MemoryConfig::default() });
    rt
}

fn values(n: usize) -> Vec<f64> {
    (0..n).map(|i| ((i * 7919 + 13) % 101) as f64 / 17.0 - 2.5).collect()
}

/// The axes of `fftN` for `shape`, as `quasar_std::fft` documents them.
fn axes(shape: &[usize], which: usize) -> Vec<usize> {
    match which {
        1 => vec![shape.iter().position(|&n| n != 1).unwrap_or(0)],
        2 => vec![0, 1],
        _ => vec![0, 1, 2],
    }
}

type Cpu<T, R> = fn(&Array<T>) -> quasar_runtime::Result<Array<R>>;

/// The CPU transform `which` (1..3) of `x`, forward or inverse.
fn cpu<T: fft::FftInput>(which: usize, inverse: bool) -> Cpu<T, Complex<T::Real>> {
    match (which, inverse) {
        (1, false) => fft::fft1,
        (2, false) => fft::fft2,
        (3, false) => fft::fft3,
        (1, true) => fft::ifft1,
        (2, true) => fft::ifft2,
        _ => fft::ifft3,
    }
}

fn close(what: &str, got: &[Complex<f64>], want: &[Complex<f64>], tol: f64) {
    assert_eq!(got.len(), want.len(), "{what}");
    let scale = want.iter().map(|c| c.norm()).fold(1.0, f64::max);
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        assert!((g - w).norm() <= tol * scale, "{what}: element {k}: {g} vs {w}");
    }
}

fn widen<R: Copy + Into<f64>>(v: &[Complex<R>]) -> Vec<Complex<f64>> {
    v.iter().map(|c| Complex::new(c.re.into(), c.im.into())).collect()
}

/// Every transform of `x` on the device (`x` moved there first) against the CPU.
fn check_all<T: fft::FftInput>(rt: &Runtime, x: &Array<T>, tol: f64)
where
    T::Real: Into<f64>,
{
    rt.transfer(x, Target::Gpu(None)).unwrap();
    for which in 1..=3 {
        for inverse in [false, true] {
            let dir = if inverse { FftDirection::Inverse } else { FftDirection::Forward };
            let what = format!("fft{which} inverse={inverse} of {:?}", x.shape());
            let ax = axes(x.shape(), which);
            let g: Array<Complex<T::Real>> = match rt.fft_on_gpu(x, &ax, dir).unwrap() {
                Some(g) => g,
                None => {
                    // Only a transform along axes of length 1 (the identity) stays on the CPU.
                    let identity = ax.iter().all(|&a| x.shape().get(a).is_none_or(|&n| n <= 1));
                    assert!(identity, "{what} ran on the CPU");
                    continue;
                }
            };
            let r = g.residency();
            assert!(r.device_valid && !r.host_valid, "{what}: result not left on the GPU: {r:?}");
            assert_eq!(g.shape(), x.shape());
            let want = cpu::<T>(which, inverse)(x).unwrap().to_vec().unwrap();
            close(&what, &widen(&g.to_vec().unwrap()), &widen(&want), tol);
            if inverse {
                let re: Array<T::Real> =
                    rt.fft_on_gpu(x, &axes(x.shape(), which), dir).unwrap().unwrap();
                let got: Vec<Complex<f64>> =
                    re.to_vec().unwrap().iter().map(|&v| Complex::new(v.into(), 0.0)).collect();
                let want: Vec<Complex<f64>> =
                    widen(&want).iter().map(|c| Complex::new(c.re, 0.0)).collect();
                close(&format!("irealfft{which} of {:?}", x.shape()), &got, &want, tol);
            }
        }
    }
}

const SHAPES: &[&[usize]] = &[&[12], &[1, 15], &[9, 10], &[7, 6, 5], &[6, 4, 3, 2], &[1, 1, 9]];

#[test]
fn the_device_path_matches_rustfft_in_layout_and_normalisation() {
    let rt = sim(true);
    for shape in SHAPES {
        let n: usize = shape.iter().product();
        let v = values(n);
        let real = Array::from_vec(shape, v.clone()).unwrap();
        check_all(&rt, &real, 1e-12);
        let single = Array::from_vec(shape, v.iter().map(|&r| r as f32).collect()).unwrap();
        check_all(&rt, &single, 2e-6);
        let c: Vec<Complex<f64>> =
            v.iter().zip(v.iter().rev()).map(|(&a, &b)| Complex::new(a, b)).collect();
        check_all(&rt, &Array::from_vec(shape, c.clone()).unwrap(), 1e-12);
        let cs: Vec<Complex<f32>> =
            c.iter().map(|z| Complex::new(z.re as f32, z.im as f32)).collect();
        check_all(&rt, &Array::from_vec(shape, cs).unwrap(), 2e-6);
    }
}

fn runs_on_gpu<T: Element>(rt: &Runtime, x: &Array<T>) -> bool {
    rt.fft_on_gpu::<T, Complex<f64>>(x, &[0, 1], FftDirection::Forward).unwrap().is_some()
}

#[test]
fn where_the_transform_runs() {
    let small = Array::from_vec(&[8, 8], values(64)).unwrap();
    // Without an FFT library on the device: always the CPU, even for data on the device.
    let plain = sim(false);
    plain.transfer(&small, Target::Gpu(None)).unwrap();
    assert!(!runs_on_gpu(&plain, &small));
    plain.set_mode(SchedMode::Gpu);
    assert!(!runs_on_gpu(&plain, &small));

    let rt = sim(true);
    // Small and on the host: the CPU; on the device: there.
    let host = Array::from_vec(&[8, 8], values(64)).unwrap();
    assert!(!runs_on_gpu(&rt, &host));
    rt.transfer(&host, Target::Gpu(None)).unwrap();
    assert!(runs_on_gpu(&rt, &host));
    // Large enough to pay off: the GPU (checked through the rule, not run: the stand-in is slow).
    assert!(quasar_runtime::fft::use_gpu(SchedMode::Auto, true, false, GPU_FFT_MIN));
    // CPU mode keeps it on the CPU; GPU mode sends even small host data to the GPU.
    rt.set_mode(SchedMode::Cpu);
    assert!(!runs_on_gpu(&rt, &host));
    rt.set_mode(SchedMode::Gpu);
    assert!(runs_on_gpu(&rt, &Array::from_vec(&[8, 8], values(64)).unwrap()));
    // Nothing to transform, or no runtime GPU at all: the CPU.
    assert!(!runs_on_gpu(&rt, &Array::from_vec(&[1, 1], vec![2.0]).unwrap()));
    assert!(!runs_on_gpu(&Runtime::cpu_only(), &host));
}

#[test]
fn mismatched_element_types_are_errors() {
    let rt = sim(true);
    let x = Array::from_vec(&[4], vec![1.0f32; 4]).unwrap();
    let e = rt.fft_on_gpu::<f32, Complex<f64>>(&x, &[0], FftDirection::Forward).unwrap_err();
    assert!(e.to_string().contains("precisions differ"), "{e}");
    let e = rt.fft_on_gpu::<i32, Complex<f64>>(
        &Array::from_vec(&[4], vec![1; 4]).unwrap(),
        &[0],
        FftDirection::Forward,
    );
    assert!(e.unwrap_err().to_string().contains("real or complex f32/f64"));
}
