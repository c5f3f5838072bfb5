//! The pipeline example writes its timeline as Chrome trace JSON (what Perfetto opens): the
//! test runs the example's own code on two simulated GPUs and the CPU and checks the file.

#[allow(dead_code)]
#[path = "../pipeline.rs"]
mod example;

use serde_json::Value;

#[test]
fn the_pipeline_example_writes_a_valid_chrome_trace() {
    // Before the process-wide runtime exists: two simulated GPUs next to the CPU, and
    // kernels sent to a GPU (the cost model would keep this small image on the CPU).
    std::env::set_var("QUASAR_SIM_GPU", "1");
    std::env::set_var("QUASAR_SIM_GPUS", "2");
    std::env::set_var("QUASAR_DEVICE", "gpu");
    let dir = std::env::temp_dir().join(format!("quasar-pipeline-trace-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (out, trace) = (dir.join("out.png"), dir.join("trace.json"));
    let input = concat!(env!("CARGO_MANIFEST_DIR"), "/data/input.png");
    example::run(input, out.to_str().unwrap(), Some(trace.to_str().unwrap())).unwrap();

    let v: Value = serde_json::from_str(&std::fs::read_to_string(&trace).unwrap())
        .expect("the trace is valid JSON");
    let events = v["traceEvents"].as_array().expect("a traceEvents array");
    let processes: Vec<&str> = events
        .iter()
        .filter(|e| e["ph"] == "M" && e["name"] == "process_name")
        .map(|e| e["args"]["name"].as_str().unwrap())
        .collect();
    let complete: Vec<&Value> = events.iter().filter(|e| e["ph"] == "X").collect();
    for e in &complete {
        assert!(e["name"].is_string() && e["cat"].is_string(), "{e}");
        assert!(e["ts"].as_f64().is_some_and(|t| t >= 0.0), "{e}");
        assert!(e["dur"].as_f64().is_some_and(|t| t >= 0.0), "{e}");
        let pid = e["pid"].as_u64().expect("pid") as usize;
        assert!((1..=processes.len()).contains(&pid), "{e}");
        assert!(e["tid"].is_u64(), "{e}");
    }
    // Every kernel of the pipeline is on the timeline, on some device.
    let kernels: Vec<&str> = complete
        .iter()
        .filter(|e| e["cat"] == "kernel")
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    for k in ["blur_horizontal", "blur_vertical", "sharpen_kernel"] {
        assert!(kernels.iter().any(|n| n.contains(k)), "{k} not in {kernels:?}");
    }
    assert!(kernels.len() >= 4, "{kernels:?}");
    // Kernels ran on the simulated GPUs, on their streams, after the inputs read from the host
    // were uploaded or cleared (a kernel that only writes its arrays, `'nocopy`, needs
    // neither, so a GPU may run kernels without either).
    let mut gpus_used = 0;
    let mut copies = 0;
    for (pid, name) in processes.iter().enumerate() {
        assert!(name.starts_with("simulated GPU"), "{processes:?}");
        let on =
            |cat: &str| complete.iter().filter(|e| e["pid"] == pid + 1 && e["cat"] == cat).count();
        if on("kernel") > 0 {
            gpus_used += 1;
        }
        // Arrays of zeros are cleared on the device (a memset) instead of uploaded.
        copies += on("upload") + on("memset");
    }
    assert!(gpus_used >= 1, "{processes:?}");
    assert!(copies > 0, "kernels but no uploads or clears: {processes:?}");
    let streams = events.iter().filter(|e| e["ph"] == "M" && e["name"] == "thread_name");
    assert!(streams.clone().count() >= 1);
    assert!(streams
        .into_iter()
        .all(|e| e["args"]["name"].as_str().unwrap().starts_with("stream ")));
    std::fs::remove_dir_all(&dir).unwrap();
}
