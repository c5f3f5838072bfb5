//! The profiler people look at: per kernel launches, device and time; per array the bytes
//! moved each way and why; the timeline exported as Chrome trace JSON (Perfetto).

mod common;

use common::{sim_runtime, ADD_SCALAR, COPY};
use quasar_runtime::device::sim::SimConfig;
use quasar_runtime::profiler::{EVICTION, HOST_READ};
use quasar_runtime::{
    size_class, Access, Array, BlockCtx, Kernel, KernelArgs, Reduce, Result, Runtime, SchedMode,
    TransferReason,
};
use serde_json::Value;

const N: usize = 4096;
const BYTES: u64 = N as u64 * 4;

fn add(rt: &Runtime, a: &Array<i32>, v: i32) {
    let r = rt.launch(&ADD_SCALAR).dims(&[N]).arg(a, Access::ReadWrite).scalar(v);
    r.on(SchedMode::Gpu).run().unwrap();
}

fn total_cpu(ctx: &BlockCtx, args: &KernelArgs) -> Result<()> {
    let x = args.view::<i32>(0)?;
    let out = ctx.output::<i64>(0)?;
    for i in ctx.range(0) {
        // SAFETY: in range.
        out.set(out.get() + unsafe { x.get_unchecked(i) } as i64);
    }
    Ok(())
}
static TOTAL: Kernel = Kernel::new("total", total_cpu).with_params(&["x"]);

#[test]
fn transfers_per_array_say_why() {
    let (rt, _) = sim_runtime(SimConfig::default());
    let gpu = rt.gpu().unwrap().clone();
    // Filled on the host (an array of `zeros` would be cleared on the device instead).
    let a = Array::<i32>::from_elem(&[N], 0).unwrap();
    add(&rt, &a, 1); // first use: up
    a.set(&[0], 5).unwrap(); // host read (down), then the device copy is stale
    add(&rt, &a, 1); // stale copy: up
                     // Evict a: fill the pool's limit with other arrays.
    gpu.set_memory_limit(Some(2 * size_class(N * 4)));
    let others: Vec<Array<i32>> = (0..2).map(|_| Array::from_elem(&[N], 0).unwrap()).collect();
    for o in &others {
        add(&rt, o, 7); // the second evicts a (down)
    }
    add(&rt, &a, 1); // reload: up
    let r = rt.launch(&TOTAL).dims(&[N]).arg(&a, Access::Read).output::<i64>(Reduce::Sum);
    let total: i64 = r.on(SchedMode::Gpu).run().unwrap().output(0).unwrap();
    assert_eq!(total, (N as i64) * 3 + 4);
    assert_eq!(a.get(&[1]).unwrap(), 3); // host read: down

    let p = rt.profile();
    let rows: Vec<_> = p.array(a.id()).collect();
    assert_eq!(rows.len(), 1, "{rows:?}");
    let row = rows[0];
    assert_eq!(row.label, "arg 0 of add_scalar");
    assert_eq!((row.elem.as_str(), row.bytes), ("i32", N * 4));
    let n = |reason, to_device| {
        row.reasons.iter().find(|r| r.0 == reason && r.1 == to_device).map(|r| (r.2, r.3))
    };
    assert_eq!(n(TransferReason::FirstUse, true), Some((1, BYTES)));
    assert_eq!(n(TransferReason::HostRead, false), Some((2, 2 * BYTES)));
    assert_eq!(n(TransferReason::StaleCopy, true), Some((1, BYTES)));
    assert_eq!(n(TransferReason::Eviction, false), Some((1, BYTES)));
    assert_eq!(n(TransferReason::Reload, true), Some((1, BYTES)));
    assert_eq!((row.bytes_to_device, row.bytes_to_host), (3 * BYTES, 3 * BYTES));
    // The output value came back once; its row names the kernel.
    let out = p.arrays.iter().find(|r| r.label == "outputs of total").unwrap();
    assert_eq!(out.reasons, vec![(TransferReason::Output, false, 1, 8)]);
    // Kernel rows: launches per device, transfers on the kernel, host read and eviction rows.
    assert_eq!(p.row("add_scalar", "simulated").unwrap().launches, 5);
    assert_eq!(p.row("add_scalar", "simulated").unwrap().bytes_to_device, 5 * BYTES);
    assert_eq!(p.row(HOST_READ, "simulated").unwrap().bytes_to_host, 2 * BYTES);
    // Evictions (of a and of the others) sum up on the eviction row.
    let evicted: u64 = p.arrays.iter().map(|r| r.bytes_for(TransferReason::Eviction)).sum();
    assert!(evicted >= 2 * BYTES, "{evicted}");
    assert_eq!(p.row(EVICTION, "simulated").unwrap().bytes_to_host, evicted);
    let table = p.to_string();
    assert!(table.contains("why (-> to device, <- to host)"), "{table}");
    assert!(
        table.contains("first use -> 1x 16.0 KiB; host read <- 2x 32.0 KiB; stale copy -> 1x 16.0 KiB; eviction <- 1x 16.0 KiB; reload after eviction -> 1x 16.0 KiB"),
        "{table}"
    );
}

fn number(v: &Value, key: &str) -> f64 {
    v[key].as_f64().unwrap_or_else(|| panic!("`{key}` is not a number in {v}"))
}

#[test]
fn the_timeline_is_valid_chrome_trace_json_with_devices_and_streams() {
    let (rt, _) = sim_runtime(SimConfig { streams: 3, ..SimConfig::default() });
    let x = Array::<i32>::from_fn(&[N], |i| i as i32).unwrap();
    let y = Array::<i32>::zeros(&[N]).unwrap();
    rt.launch(&COPY).dims(&[N]).arg(&x, Access::Read).arg(&y, Access::Write).run().unwrap();
    add(&rt, &y, 1);
    assert_eq!(y.get(&[10]).unwrap(), 11);
    let json = rt.trace().to_chrome_json();
    let v: Value = serde_json::from_str(&json).expect("valid JSON");
    let events = v["traceEvents"].as_array().expect("a traceEvents array");
    let named = |ph: &str, name: &str| -> Vec<&Value> {
        events.iter().filter(|e| e["ph"] == ph && e["name"] == name).collect()
    };
    // Two processes: the CPU and the simulated GPU, named.
    let procs: Vec<&str> =
        named("M", "process_name").iter().map(|e| e["args"]["name"].as_str().unwrap()).collect();
    assert_eq!(procs, vec!["CPU", "simulated GPU"]);
    assert!(named("M", "thread_name").iter().any(|e| e["args"]["name"] == "host thread 0"
        || e["args"]["name"].as_str().unwrap().starts_with("host thread")));
    // Every complete event has a time, a duration, a process and a thread.
    let complete: Vec<&Value> = events.iter().filter(|e| e["ph"] == "X").collect();
    for e in &complete {
        assert!(number(e, "ts") >= 0.0 && number(e, "dur") >= 0.0, "{e}");
        assert!(e["pid"].is_u64() && e["tid"].is_u64() && e["cat"].is_string(), "{e}");
    }
    // The CPU copy on process 1; on the GPU: the upload of y, the kernel, the download.
    let copy = named("X", "copy");
    assert_eq!(copy.len(), 1);
    assert_eq!(copy[0]["pid"], 1);
    let on_gpu = |cat: &str| complete.iter().filter(|e| e["pid"] == 2 && e["cat"] == cat).count();
    assert_eq!((on_gpu("upload"), on_gpu("kernel"), on_gpu("download")), (1, 1, 1));
    let up = complete.iter().find(|e| e["cat"] == "upload").unwrap();
    assert_eq!(up["args"]["reason"], "first use");
    assert_eq!(up["args"]["bytes"], BYTES.to_string());
    assert_eq!(up["name"], "upload arg 1 of copy");
    // Written to a file, it reads back the same.
    let path = std::env::temp_dir().join(format!("quasar-trace-{}.json", std::process::id()));
    rt.write_trace(&path).unwrap();
    let back: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(back["traceEvents"].as_array().unwrap().len(), events.len());
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn arrays_of_zeros_are_cleared_on_the_gpu_not_uploaded() {
    let (rt, _) = sim_runtime(SimConfig::default());
    let a = Array::<i32>::zeros(&[N]).unwrap();
    let b = Array::<i32>::zeros(&[N]).unwrap();
    add(&rt, &a, 2); // all zeros: cleared on the device
    assert_eq!(a.to_vec().unwrap(), vec![2; N]);
    b.set(&[3], 7).unwrap(); // written on the host: no longer all zeros
    add(&rt, &b, 1);
    let mut want = vec![1; N];
    want[3] = 8;
    assert_eq!(b.to_vec().unwrap(), want);
    let p = rt.profile();
    let up = |x: &Array<i32>| p.array(x.id()).map(|r| r.bytes_to_device).sum::<u64>();
    assert_eq!(up(&a), 0, "nothing to upload for an array of zeros");
    assert_eq!(up(&b), BYTES, "a written array is uploaded");
    assert_eq!(p.row("add_scalar", "simulated").unwrap().bytes_to_device, BYTES);
    // The cleared copy is on the timeline as a memset.
    let trace = rt.trace().to_chrome_json();
    assert!(trace.contains("\"zeros\""), "{trace}");
}
