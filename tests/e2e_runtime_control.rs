//! End to end: controlling the runtime from Quasar code (manual §16.7, §11.4, §17.2.5) on two
//! GPUs that interpret each kernel's PTX (`QUASAR_SIM_GPU=ptx QUASAR_SIM_GPUS=2`):
//! `{!sched mode=…; gpu_index=…}`, `{!sched}`, `{!transfer …}`, `{!alloc mode=gpu}` and
//! `schedule(…)`. The profile shows on which device each launch ran; the results are
//! compared with plain Rust. The process-wide runtime is set up once, so this file holds one
//! test.

mod q {
    quasar::quasar! { r#"
function [] = __kernel__ add_one(x : vec, pos : int)
    x[pos] += 1
endfunction

function [] = __kernel__ add_two(x : vec, pos : int)
    x[pos] += 2
endfunction

function [] = placed(x : vec, y : vec)
    {!sched mode=gpu; gpu_index=1}
    parallel_do(numel(x), x, add_one)
    {!sched gpu_index=0}
    parallel_do(numel(y), y, add_one)
    {!sched mode=cpu}
    parallel_do(numel(x), x, add_two)
    {!sched}
endfunction

% The manual's multi-GPU loop (section 11.1): each iteration on the other GPU.
function [] = alternate(x : vec, n : int)
    for k = 0..n - 1
        {!sched mode=gpu; gpu_index=mod(k, 2)}
        parallel_do(numel(x), x, add_one)
    endfor
endfunction

function y = transferred(x : vec)
    {!transfer vars=x; target=gpu; gpu_index=1}
    {!alloc mode=gpu}
    y = zeros(numel(x))
    {!sched mode=gpu}
    parallel_do(numel(y), y, add_two)
    {!transfer vars=y; target=cpu}
endfunction

% Section 17.2.5: one implementation per device, the scheduler chooses.
function y = scheduled(x : vec, on_cpu : int)
    if on_cpu == 1
        {!sched mode=cpu}
    else
        {!sched mode=gpu}
    endif
    match schedule(numel(x), x, {add_one, add_two}) with
    | 0 ->
        parallel_do(numel(x), x, add_one)
    | 1 ->
        parallel_do(numel(x), x, add_two)
    endmatch
    y = x
endfunction
"# }
}

use quasar::{Array, Runtime};

const N: usize = 1000;

/// Launches of kernels named `kernel…` per device since the last reset: (device, launches).
fn launches(kernel: &str) -> Vec<(String, u64)> {
    let rt = Runtime::global();
    let p = rt.profile();
    let mut v: Vec<(String, u64)> = p
        .rows
        .iter()
        .filter(|r| r.kernel.starts_with(kernel) && r.launches > 0)
        .map(|r| {
            let d = if r.device == "CPU" {
                "CPU".to_string()
            } else {
                r.device[r.device.len() - 2..].to_string()
            };
            (d, r.launches)
        })
        .collect();
    v.sort();
    v
}

fn values(n: usize, f: impl Fn(usize) -> f32) -> Array<f32> {
    Array::from_fn(&[n], f).unwrap()
}

#[test]
fn code_attributes_and_schedule_place_each_launch() {
    // Before the process-wide runtime exists: two GPUs that run the kernels' PTX.
    std::env::set_var("QUASAR_SIM_GPU", "ptx");
    std::env::set_var("QUASAR_SIM_GPUS", "2");
    let rt = Runtime::global();
    assert_eq!(rt.gpu_count(), 2, "{}", rt.no_gpu_reason());
    let reset = || rt.profiler().reset();

    // {!sched mode=gpu; gpu_index=1}, {!sched gpu_index=0}, {!sched mode=cpu}.
    let (x, y) = (values(N, |i| i as f32), values(N, |i| 2.0 * i as f32));
    reset();
    q::placed(&x, &y).unwrap();
    assert_eq!(x.to_vec().unwrap(), (0..N).map(|i| i as f32 + 3.0).collect::<Vec<_>>());
    assert_eq!(y.to_vec().unwrap(), (0..N).map(|i| 2.0 * i as f32 + 1.0).collect::<Vec<_>>());
    assert_eq!(launches("add_one"), vec![("#0".into(), 1), ("#1".into(), 1)]);
    assert_eq!(launches("add_two"), vec![("CPU".into(), 1)]);

    // {!sched gpu_index=mod(k, 2)} in a loop: both GPUs, results as on one device.
    let z = values(N, |i| (i % 7) as f32);
    reset();
    q::alternate(&z, 6).unwrap();
    assert_eq!(z.to_vec().unwrap(), (0..N).map(|i| (i % 7) as f32 + 6.0).collect::<Vec<_>>());
    assert_eq!(launches("add_one"), vec![("#0".into(), 3), ("#1".into(), 3)]);
    // The function's {!sched} does not leak to its caller: a tiny launch is back on the CPU.
    reset();
    q::scheduled(&values(N, |_| 0.0), 1).unwrap();
    assert_eq!(launches("add_two"), vec![("CPU".into(), 1)]);

    // {!transfer vars=x; target=gpu; gpu_index=1}, {!alloc mode=gpu}, {!transfer target=cpu}.
    let w = values(N, |i| i as f32);
    reset();
    let out = q::transferred(&w).unwrap();
    assert_eq!(out.to_vec().unwrap(), vec![2.0; N]);
    let p = rt.profile();
    let requested = |id: u64, to_device: bool| -> u64 {
        p.array(id)
            .flat_map(|r| r.reasons.iter())
            .filter(|r| r.0 == quasar::TransferReason::Requested && r.1 == to_device)
            .map(|r| r.3)
            .sum()
    };
    assert_eq!(requested(w.id(), true), (N * 4) as u64, "{p}");
    assert!(p.array(w.id()).any(|r| r.device.ends_with("#1")), "{p}");
    assert_eq!(requested(out.id(), true), 0, "zeros were made on the GPU, not uploaded: {p}");
    assert_eq!(requested(out.id(), false), (N * 4) as u64, "{p}");
    assert_eq!(launches("add_two").iter().map(|(d, _)| d.as_str()).collect::<Vec<_>>(), ["#0"]);

    // schedule(…): the GPU implementation under {!sched mode=gpu}, the CPU one under cpu.
    reset();
    let g = q::scheduled(&values(N, |i| i as f32), 0).unwrap();
    assert_eq!(g.to_vec().unwrap(), (0..N).map(|i| i as f32 + 1.0).collect::<Vec<_>>());
    let c = q::scheduled(&values(N, |i| i as f32), 1).unwrap();
    assert_eq!(c.to_vec().unwrap(), (0..N).map(|i| i as f32 + 2.0).collect::<Vec<_>>());
    let on_gpu = launches("add_one");
    assert_eq!(on_gpu.len(), 1, "{on_gpu:?}");
    assert!(on_gpu[0].0.starts_with('#'), "{on_gpu:?}");
    assert_eq!(launches("add_two"), vec![("CPU".into(), 1)]);
}
