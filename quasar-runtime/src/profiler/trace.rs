//! The profiler's timeline: every kernel and transfer with its device, stream (or host
//! thread), start and duration, exported in the Chrome trace event format, which
//! <https://ui.perfetto.dev> and `chrome://tracing` open.
//!
//! In the export each device is a process (the CPU, then the GPUs) and each stream of a GPU,
//! or host thread running CPU kernels, a thread. Times are microseconds since the runtime
//! started.

use std::fmt::Write as _;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// What a timeline event is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Category {
    /// A kernel launch.
    Kernel,
    /// A copy from the host to a device.
    Upload,
    /// A copy from a device to the host.
    Download,
    /// Device memory set to zero (output slots).
    Memset,
}

impl Category {
    /// The name in the exported trace (`cat`).
    pub fn name(self) -> &'static str {
        match self {
            Category::Kernel => "kernel",
            Category::Upload => "upload",
            Category::Download => "download",
            Category::Memset => "memset",
        }
    }
}

/// Where on its device an event ran.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Lane {
    /// A stream (queue) of a GPU.
    Stream(usize),
    /// A host thread (CPU kernels run on the launching thread and rayon's workers; the lane
    /// is the launching thread).
    Thread(usize),
}

/// One event of the timeline.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceEvent {
    /// The kernel's name, or what was copied (`upload x of blur`).
    pub name: String,
    /// What it is.
    pub category: Category,
    /// The device, e.g. `CPU` or `simulated GPU 1`.
    pub device: String,
    /// The stream or host thread.
    pub lane: Lane,
    /// When it started, since the runtime started.
    pub start: Duration,
    /// How long it ran.
    pub duration: Duration,
    /// Details: bytes, the reason of a transfer, the array.
    pub args: Vec<(String, String)>,
}

/// A snapshot of the timeline.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Trace {
    /// The events, in the order they were recorded (complete ones only).
    pub events: Vec<TraceEvent>,
    /// Events left out because the timeline was full.
    pub dropped: u64,
}

/// The most events kept (a few MB; a long-running program keeps its first ones); later ones
/// are counted in [`Trace::dropped`]. [`Profiler::reset`](super::Profiler::reset) starts over.
pub const MAX_EVENTS: usize = 1 << 16;

/// This host thread's lane number (small integers in order of first use).
pub(crate) fn thread_lane() -> Lane {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    thread_local! {
        static LANE: usize = NEXT.fetch_add(1, Ordering::Relaxed);
    }
    Lane::Thread(LANE.with(|l| *l))
}

/// `s` as a JSON string literal.
fn json_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn micros(d: Duration) -> String {
    format!("{:.3}", d.as_secs_f64() * 1e6)
}

impl Trace {
    /// The devices in the order they appear: the CPU first, then the others by first event.
    pub fn devices(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for e in &self.events {
            if !out.contains(&e.device) {
                out.push(e.device.clone());
            }
        }
        out.sort_by_key(|d| d != crate::device::cpu::CPU_NAME);
        out
    }

    /// The timeline in the Chrome trace event format (JSON), for Perfetto or
    /// `chrome://tracing`.
    pub fn to_chrome_json(&self) -> String {
        let devices = self.devices();
        let pid = |d: &str| devices.iter().position(|x| x == d).unwrap_or(0) + 1;
        let mut lines: Vec<String> = Vec::new();
        for (k, d) in devices.iter().enumerate() {
            lines.push(format!(
                r#"{{"name":"process_name","ph":"M","pid":{},"tid":0,"args":{{"name":{}}}}}"#,
                k + 1,
                json_str(d)
            ));
            lines.push(format!(
                r#"{{"name":"process_sort_index","ph":"M","pid":{},"tid":0,"args":{{"sort_index":{k}}}}}"#,
                k + 1
            ));
        }
        let mut lanes: Vec<(usize, Lane)> =
            self.events.iter().map(|e| (pid(&e.device), e.lane)).collect();
        lanes.sort();
        lanes.dedup();
        for (p, lane) in lanes {
            let (tid, name) = match lane {
                Lane::Stream(s) => (s, format!("stream {s}")),
                Lane::Thread(t) => (t, format!("host thread {t}")),
            };
            lines.push(format!(
                r#"{{"name":"thread_name","ph":"M","pid":{p},"tid":{tid},"args":{{"name":{}}}}}"#,
                json_str(&name)
            ));
        }
        for e in &self.events {
            let tid = match e.lane {
                Lane::Stream(s) | Lane::Thread(s) => s,
            };
            let args: Vec<String> =
                e.args.iter().map(|(k, v)| format!("{}:{}", json_str(k), json_str(v))).collect();
            lines.push(format!(
                r#"{{"name":{},"cat":"{}","ph":"X","ts":{},"dur":{},"pid":{},"tid":{tid},"args":{{{}}}}}"#,
                json_str(&e.name),
                e.category.name(),
                micros(e.start),
                micros(e.duration),
                pid(&e.device),
                args.join(",")
            ));
        }
        format!(
            "{{\"displayTimeUnit\":\"ms\",\"otherData\":{{\"dropped_events\":{}}},\"traceEvents\":[\n{}\n]}}\n",
            self.dropped,
            lines.join(",\n")
        )
    }

    /// Writes [`to_chrome_json`](Self::to_chrome_json) to `path`.
    pub fn write_chrome_json(&self, path: impl AsRef<std::path::Path>) -> crate::Result<()> {
        let path = path.as_ref();
        std::fs::write(path, self.to_chrome_json()).map_err(|e| crate::Error::io(path, e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(name: &str, device: &str, lane: Lane, start_us: u64, dur_us: u64) -> TraceEvent {
        TraceEvent {
            name: name.into(),
            category: Category::Kernel,
            device: device.into(),
            lane,
            start: Duration::from_micros(start_us),
            duration: Duration::from_micros(dur_us),
            args: vec![("bytes".into(), "12".into())],
        }
    }

    #[test]
    fn strings_are_escaped() {
        assert_eq!(json_str(r#"a"b\c"#), r#""a\"b\\c""#);
        assert_eq!(json_str("x\ny\u{1}"), r#""x\ny\u0001""#);
        assert_eq!(json_str("é"), "\"é\"");
    }

    #[test]
    fn devices_become_processes_and_lanes_threads() {
        let t = Trace {
            events: vec![
                ev("blur", "sim GPU", Lane::Stream(1), 10, 5),
                ev("gamma \"x\"", "CPU", Lane::Thread(0), 0, 7),
            ],
            dropped: 0,
        };
        assert_eq!(t.devices(), vec!["CPU".to_string(), "sim GPU".to_string()]);
        let j = t.to_chrome_json();
        assert!(
            j.contains(r#""name":"process_name","ph":"M","pid":1,"tid":0,"args":{"name":"CPU"}"#),
            "{j}"
        );
        assert!(j.contains(r#""pid":2,"tid":1,"args":{"name":"stream 1"}"#), "{j}");
        assert!(j.contains(r#"{"name":"blur","cat":"kernel","ph":"X","ts":10.000,"dur":5.000,"pid":2,"tid":1,"args":{"bytes":"12"}}"#), "{j}");
        assert!(j.contains(r#""name":"gamma \"x\"""#), "{j}");
        assert!(j.starts_with("{\"displayTimeUnit\":\"ms\""));
        assert!(j.trim_end().ends_with("]}"));
    }
}
