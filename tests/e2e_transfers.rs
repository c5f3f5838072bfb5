//! End to end: what launches copy between the host and a GPU (manual §16.6), counted by the
//! profiler per array on the simulated GPU running the kernels' PTX (`QUASAR_SIM_GPU=ptx`
//! unless the environment names another GPU). A read-only array is `'const`: uploaded once,
//! never copied back. An array that every thread writes at its position before any read is
//! `'nocopy` when the launch covers it: never uploaded (its old contents, here 7s, must not
//! show through). The results are checked against plain Rust.

use quasar::{Array, Runtime, SchedMode};
use std::sync::Once;

mod k {
    quasar::quasar!(file = "tests/common/transfers.q");
}

/// The process-wide runtime, with a GPU, every launch on it and the profiler on.
fn gpu() -> &'static Runtime {
    static INIT: Once = Once::new();
    INIT.call_once(|| {
        // Before the runtime exists: the simulated GPU with separate memory.
        if std::env::var_os("QUASAR_SIM_GPU").is_none() {
            std::env::set_var("QUASAR_SIM_GPU", "ptx");
        }
        let rt = Runtime::global();
        assert!(rt.gpu_count() >= 1, "{}", rt.no_gpu_reason());
        rt.set_mode(SchedMode::Gpu);
        rt.profiler().set_enabled(true);
    });
    Runtime::global()
}

/// Bytes copied for `a` (to devices, to the host) since the process started.
fn moved(a: &Array<f32>) -> (u64, u64) {
    let p = gpu().profile();
    p.array(a.id()).fold((0, 0), |(up, down), r| (up + r.bytes_to_device, down + r.bytes_to_host))
}

fn bytes(a: &Array<f32>) -> u64 {
    (a.numel() * 4) as u64
}

fn ramp(shape: &[usize]) -> Array<f32> {
    Array::from_fn(shape, |i| i as f32).unwrap()
}

fn sevens(shape: &[usize]) -> Array<f32> {
    Array::from_fn(shape, |_| 7.0).unwrap()
}

#[test]
fn an_array_written_at_every_position_is_not_uploaded_and_a_read_one_not_copied_back() {
    gpu();
    let (x, y) = (ramp(&[16, 24]), sevens(&[16, 24]));
    k::scale(&x, &y).unwrap();
    let want: Vec<f32> = (0..16 * 24).map(|i| 2.0 * i as f32).collect();
    assert_eq!(y.to_vec().unwrap(), want);
    assert_eq!(moved(&x), (bytes(&x), 0), "x: uploaded once, never copied back");
    assert_eq!(moved(&y), (0, bytes(&y)), "y: never uploaded, read back by to_vec");
}

#[test]
fn a_launch_that_leaves_elements_alone_uploads_the_array() {
    gpu();
    let (x, y) = (ramp(&[16, 24]), sevens(&[16, 24]));
    k::scale_but_last_row(&x, &y).unwrap();
    let want: Vec<f32> =
        (0..16 * 24).map(|i| if i < 15 * 24 { 2.0 * i as f32 } else { 7.0 }).collect();
    assert_eq!(y.to_vec().unwrap(), want);
    assert_eq!(moved(&y), (bytes(&y), bytes(&y)));
}

#[test]
fn an_array_written_at_its_transposed_position_is_not_uploaded_when_the_launch_covers_it() {
    gpu();
    let (x, y) = (ramp(&[16, 24]), sevens(&[24, 16]));
    k::transpose_into(&x, &y).unwrap();
    let want: Vec<f32> = (0..24 * 16).map(|i| ((i % 16) * 24 + i / 16) as f32).collect();
    assert_eq!(y.to_vec().unwrap(), want);
    assert_eq!(moved(&y), (0, bytes(&y)), "y: never uploaded, read back by to_vec");
    // A `y` with a row more than the launch writes: its last row must survive.
    let (x, y) = (ramp(&[16, 24]), sevens(&[25, 16]));
    k::transpose_into(&x, &y).unwrap();
    let want: Vec<f32> = (0..25 * 16)
        .map(|i| if i < 24 * 16 { ((i % 16) * 24 + i / 16) as f32 } else { 7.0 })
        .collect();
    assert_eq!(y.to_vec().unwrap(), want);
    assert_eq!(moved(&y), (bytes(&y), bytes(&y)));
}

#[test]
fn a_declared_nocopy_array_is_not_uploaded() {
    gpu();
    let (x, y) = (ramp(&[100]), sevens(&[100]));
    k::twice(&x, &y).unwrap();
    let want: Vec<f32> = (0..100).map(|i| 2.0 * i as f32).collect();
    assert_eq!(y.to_vec().unwrap(), want);
    assert_eq!(moved(&y), (0, bytes(&y)));
}

#[test]
fn an_array_the_kernel_reads_is_uploaded() {
    gpu();
    let (x, y) = (ramp(&[100]), sevens(&[100]));
    k::add(&x, &y).unwrap();
    let want: Vec<f32> = (0..100).map(|i| 7.0 + i as f32).collect();
    assert_eq!(y.to_vec().unwrap(), want);
    assert_eq!(moved(&y), (bytes(&y), bytes(&y)));
    assert_eq!(moved(&x), (bytes(&x), 0));
}

#[test]
fn the_result_of_an_array_expression_is_not_uploaded() {
    gpu();
    // 1 MiB and more: the second result reuses the first one's freed host block, whose old
    // values a launch that copied both ways would upload.
    let x = Array::from_fn(&[256, 342, 3], |i| (i % 1000) as f32 / 1000.0).unwrap();
    drop(k::gamma(&x).unwrap());
    let y = k::gamma(&x).unwrap();
    assert_eq!(moved(&y).0, 0, "the generated kernel's output is not uploaded");
    assert_eq!(moved(&x), (bytes(&x), 0), "x: uploaded once for both launches");
    let (xs, ys) = (x.to_vec().unwrap(), y.to_vec().unwrap());
    for (i, (a, b)) in xs.iter().zip(&ys).enumerate() {
        let want = a.powf(0.45);
        assert!((b - want).abs() <= 2e-4 * (1.0 + want), "y[{i}] = {b}, want {want}");
    }
}

#[test]
fn a_transpose_runs_as_a_kernel_on_the_gpu_without_copies() {
    let rt = gpu();
    let x = ramp(&[16, 24]);
    let y = k::flip(&x).unwrap();
    assert_eq!(moved(&y), (0, 0), "y: made on the GPU");
    assert_eq!(moved(&x), (bytes(&x), 0), "x: uploaded, not read back by the host");
    let ran: Vec<String> = rt
        .profile()
        .rows
        .iter()
        .filter(|r| r.kernel.starts_with("flip") && r.launches > 0)
        .map(|r| r.device.clone())
        .collect();
    assert!(!ran.is_empty() && ran.iter().all(|d| d != "CPU"), "{ran:?}");
    assert_eq!(y.shape(), &[24, 16]);
    let (xs, ys) = (x.to_vec().unwrap(), y.to_vec().unwrap());
    for i in 0..16 {
        for j in 0..24 {
            assert_eq!(ys[j * 16 + i], xs[i * 24 + j], "y[{j}, {i}]");
        }
    }
    // A vector passed as a matrix is a row: its transpose a column.
    let v = ramp(&[5]);
    let r = k::flip(&v).unwrap();
    assert_eq!(r.shape(), &[5, 1]);
    assert_eq!(r.to_vec().unwrap(), v.to_vec().unwrap());
}

#[test]
fn a_matrix_product_runs_as_a_kernel_on_the_gpu_without_copies() {
    let rt = gpu();
    let (m, l, n) = (12, 20, 9);
    let a = Array::from_fn(&[m, l], |i| ((i * 7) % 13) as f32 / 13.0).unwrap();
    let b = Array::from_fn(&[l, n], |i| ((i * 5) % 11) as f32 / 11.0 - 0.5).unwrap();
    let c = k::product(&a, &b).unwrap();
    assert_eq!(moved(&c), (0, 0), "c: made on the GPU");
    assert_eq!(moved(&a), (bytes(&a), 0));
    assert_eq!(moved(&b), (bytes(&b), 0));
    let ran: Vec<String> = rt
        .profile()
        .rows
        .iter()
        .filter(|r| r.kernel.starts_with("product") && r.launches > 0)
        .map(|r| r.device.clone())
        .collect();
    assert!(!ran.is_empty() && ran.iter().all(|d| d != "CPU"), "{ran:?}");
    assert_eq!(c.shape(), &[m, n]);
    let (av, bv, cv) = (a.to_vec().unwrap(), b.to_vec().unwrap(), c.to_vec().unwrap());
    for i in 0..m {
        for j in 0..n {
            let want: f32 = (0..l).map(|p| av[i * l + p] * bv[p * n + j]).sum();
            assert!((cv[i * n + j] - want).abs() <= 1e-5 * (1.0 + want.abs()), "c[{i}, {j}]");
        }
    }
    // Sizes that do not agree: the library's error.
    assert!(k::product(&a, &a).is_err());
}
