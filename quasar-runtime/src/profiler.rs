//! The profiler: per kernel and device, the number of launches, the time spent, and the bytes
//! moved to and from the device. [`Runtime::profile`](crate::Runtime::profile) (and
//! `quasar::profile()`) returns a [`Profile`], which prints as a table.
//!
//! Times: CPU launches are timed on the host around the whole launch; GPU kernels by the
//! device (CUDA events), collected when the profile is taken. Transfers made while preparing a
//! launch are counted on that kernel's row; those made for host reads on the row
//! `(host read)`, and evictions on `(eviction)`.

use crate::device::Fence;
use std::collections::BTreeMap;
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::Duration;

/// The row name for transfers made because the host read an array.
pub const HOST_READ: &str = "(host read)";
/// The row name for transfers made to evict buffers from a device.
pub const EVICTION: &str = "(eviction)";

/// One row of a [`Profile`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ProfileRow {
    /// Kernel name (or [`HOST_READ`] / [`EVICTION`]).
    pub kernel: String,
    /// Device name, e.g. `CPU`.
    pub device: String,
    /// Number of launches.
    pub launches: u64,
    /// Total execution time.
    pub time: Duration,
    /// Bytes copied host → device.
    pub bytes_to_device: u64,
    /// Bytes copied device → host.
    pub bytes_to_host: u64,
}

/// A snapshot of the profiler.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Profile {
    /// The rows, sorted by kernel then device.
    pub rows: Vec<ProfileRow>,
}

impl Profile {
    /// The row of `kernel` on a device whose name contains `device`.
    pub fn row(&self, kernel: &str, device: &str) -> Option<&ProfileRow> {
        self.rows.iter().find(|r| r.kernel == kernel && r.device.contains(device))
    }
    /// Total bytes moved to devices.
    pub fn total_bytes_to_device(&self) -> u64 {
        self.rows.iter().map(|r| r.bytes_to_device).sum()
    }
    /// Total bytes moved to the host.
    pub fn total_bytes_to_host(&self) -> u64 {
        self.rows.iter().map(|r| r.bytes_to_host).sum()
    }
}

fn human_bytes(b: u64) -> String {
    const U: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = b as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < U.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{b} B")
    } else {
        format!("{v:.1} {}", U[u])
    }
}

impl fmt::Display for Profile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let header = ["kernel", "device", "launches", "time", "avg", "to device", "to host"];
        let mut cells: Vec<[String; 7]> = Vec::new();
        for r in &self.rows {
            let avg = if r.launches > 0 { r.time / r.launches as u32 } else { Duration::ZERO };
            cells.push([
                r.kernel.clone(),
                r.device.clone(),
                r.launches.to_string(),
                format!("{:.3?}", r.time),
                format!("{avg:.3?}"),
                human_bytes(r.bytes_to_device),
                human_bytes(r.bytes_to_host),
            ]);
        }
        let mut w = header.map(|h| h.len());
        for c in &cells {
            for k in 0..7 {
                w[k] = w[k].max(c[k].chars().count());
            }
        }
        let line = |f: &mut fmt::Formatter<'_>, c: &[String; 7]| -> fmt::Result {
            writeln!(
                f,
                "{:<w0$}  {:<w1$}  {:>w2$}  {:>w3$}  {:>w4$}  {:>w5$}  {:>w6$}",
                c[0],
                c[1],
                c[2],
                c[3],
                c[4],
                c[5],
                c[6],
                w0 = w[0],
                w1 = w[1],
                w2 = w[2],
                w3 = w[3],
                w4 = w[4],
                w5 = w[5],
                w6 = w[6]
            )
        };
        line(f, &header.map(String::from))?;
        writeln!(f, "{}", "-".repeat(w.iter().sum::<usize>() + 12))?;
        for c in &cells {
            line(f, c)?;
        }
        Ok(())
    }
}

type Key = (String, String);

#[derive(Default)]
struct State {
    rows: BTreeMap<Key, ProfileRow>,
    /// GPU launches whose time is not known yet.
    pending: Vec<(Key, Fence)>,
}

/// Collects the statistics of one [`Runtime`](crate::Runtime).
pub struct Profiler {
    enabled: AtomicBool,
    state: Mutex<State>,
}

impl Default for Profiler {
    fn default() -> Self {
        Profiler { enabled: AtomicBool::new(true), state: Mutex::new(State::default()) }
    }
}

impl Profiler {
    /// Turns collection on or off (on by default; the cost is one lock per launch).
    pub fn set_enabled(&self, on: bool) {
        self.enabled.store(on, Ordering::Relaxed)
    }

    fn with(&self, kernel: &str, device: &str, f: impl FnOnce(&mut ProfileRow, &mut State)) {
        if !self.enabled.load(Ordering::Relaxed) {
            return;
        }
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let key = (kernel.to_string(), device.to_string());
        let mut row = st.rows.remove(&key).unwrap_or_else(|| ProfileRow {
            kernel: key.0.clone(),
            device: key.1.clone(),
            ..ProfileRow::default()
        });
        f(&mut row, &mut st);
        st.rows.insert(key, row);
    }

    /// Records a finished launch that took `time`.
    pub(crate) fn launch(&self, kernel: &str, device: &str, time: Duration) {
        self.with(kernel, device, |r, _| {
            r.launches += 1;
            r.time += time;
        });
    }

    /// Records an asynchronous launch; its time is read from `fence` later.
    pub(crate) fn launch_async(&self, kernel: &str, device: &str, fence: Fence) {
        self.with(kernel, device, |r, st| {
            r.launches += 1;
            st.pending.push(((r.kernel.clone(), r.device.clone()), fence));
        });
        self.collect(false);
    }

    /// Records bytes moved for `kernel` (or a pseudo-row).
    pub(crate) fn transfer(&self, kernel: &str, device: &str, to_device: u64, to_host: u64) {
        self.with(kernel, device, |r, _| {
            r.bytes_to_device += to_device;
            r.bytes_to_host += to_host;
        });
    }

    /// Moves the times of completed launches into their rows (waiting for all if `wait`).
    fn collect(&self, wait: bool) {
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let pending = std::mem::take(&mut st.pending);
        for (key, fence) in pending {
            if wait {
                let _ = fence.wait();
            }
            if fence.is_complete() {
                if let (Some(t), Some(row)) = (fence.elapsed(), st.rows.get_mut(&key)) {
                    row.time += t;
                }
            } else {
                st.pending.push((key, fence));
            }
        }
    }

    /// A snapshot. Waits for in-flight GPU launches so that their times are included.
    pub fn snapshot(&self) -> Profile {
        self.collect(true);
        let st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        Profile { rows: st.rows.values().cloned().collect() }
    }

    /// Clears all statistics.
    pub fn reset(&self) {
        self.collect(true);
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        st.rows.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_accumulate_and_print_as_a_table() {
        let p = Profiler::default();
        p.launch("blur", "CPU", Duration::from_micros(300));
        p.launch("blur", "CPU", Duration::from_micros(100));
        p.transfer("blur", "sim GPU", 4096, 0);
        p.transfer(HOST_READ, "sim GPU", 0, 2 << 20);
        let s = p.snapshot();
        let r = s.row("blur", "CPU").unwrap();
        assert_eq!((r.launches, r.time), (2, Duration::from_micros(400)));
        assert_eq!(s.total_bytes_to_device(), 4096);
        assert_eq!(s.total_bytes_to_host(), 2 << 20);
        let table = s.to_string();
        assert!(table.starts_with("kernel"), "{table}");
        assert!(table.contains("blur") && table.contains("2.0 MiB") && table.contains("4.0 KiB"));
        assert_eq!(table.lines().count(), 2 + 3);
        p.reset();
        assert!(p.snapshot().rows.is_empty());
        p.set_enabled(false);
        p.launch("x", "CPU", Duration::ZERO);
        assert!(p.snapshot().rows.is_empty());
    }
}
