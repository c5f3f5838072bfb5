//! The profiler: per kernel and device, the number of launches, the time spent, and the bytes
//! moved to and from the device; per array, the bytes moved each way and why; and a timeline
//! of every kernel and transfer per device and stream ([`trace`], exported for Perfetto).
//! [`Runtime::profile`](crate::Runtime::profile) (and `quasar::profile()`) returns a
//! [`Profile`], which prints as two tables ([`print_profile`](crate::print_profile) prints the
//! process-wide one, for `quasar run --profile`).
//!
//! Times: CPU launches are timed on the host around the whole launch; GPU operations by the
//! device (CUDA events), collected when the profile is taken. Transfers made while preparing a
//! launch are counted on that kernel's row; those made for host reads on the row
//! `(host read)`, evictions on `(eviction)` and `{!transfer}` requests on `(transfer)`.

pub mod table;
pub mod trace;

use crate::device::Fence;
use std::collections::BTreeMap;
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};
use trace::{Category, Lane, Trace, TraceEvent, MAX_EVENTS};

/// The row name for transfers made because the host read an array.
pub const HOST_READ: &str = "(host read)";
/// The row name for transfers made to evict buffers from a device.
pub const EVICTION: &str = "(eviction)";
/// The row name for transfers the program asked for (`{!transfer}`).
pub const REQUESTED: &str = "(transfer)";

/// Why bytes moved between the host and a device.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TransferReason {
    /// The array's first copy to this device.
    FirstUse,
    /// The device copy was stale: the host changed the array since it was uploaded.
    StaleCopy,
    /// The array comes back to a device it was evicted from.
    Reload,
    /// The array was on another GPU (it moves through the host).
    Migration,
    /// The host read the array and its host copy was stale.
    HostRead,
    /// The array was moved off the device to make room.
    Eviction,
    /// A kernel's output arguments, read back after the launch.
    Output,
    /// The program asked for it (`{!transfer}`).
    Requested,
}

impl fmt::Display for TransferReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TransferReason::FirstUse => "first use",
            TransferReason::StaleCopy => "stale copy",
            TransferReason::Reload => "reload after eviction",
            TransferReason::Migration => "moved between GPUs",
            TransferReason::HostRead => "host read",
            TransferReason::Eviction => "eviction",
            TransferReason::Output => "kernel output",
            TransferReason::Requested => "{!transfer}",
        })
    }
}

/// One row of a [`Profile`]: a kernel (or a pseudo-row) on a device.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ProfileRow {
    /// Kernel name (or [`HOST_READ`] / [`EVICTION`] / [`REQUESTED`]).
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

/// The transfers of one array (or of a kernel's output values) to and from one device.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ArrayRow {
    /// The array's identifier (unique in the process; 0 for kernel outputs).
    pub id: u64,
    /// What the array is: its first use by a kernel (``"`x` of blur"``) or `#id`.
    pub label: String,
    /// The element type.
    pub elem: String,
    /// Its size in bytes.
    pub bytes: usize,
    /// The device.
    pub device: String,
    /// Bytes copied host → device.
    pub bytes_to_device: u64,
    /// Bytes copied device → host.
    pub bytes_to_host: u64,
    /// Per reason and direction (`true`: to the device): how many copies, how many bytes.
    pub reasons: Vec<(TransferReason, bool, u64, u64)>,
}

impl ArrayRow {
    /// The bytes moved for `reason` (both directions).
    pub fn bytes_for(&self, reason: TransferReason) -> u64 {
        self.reasons.iter().filter(|r| r.0 == reason).map(|r| r.3).sum()
    }
}

/// A snapshot of the profiler.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Profile {
    /// The kernel rows, sorted by kernel then device.
    pub rows: Vec<ProfileRow>,
    /// The arrays that moved, sorted by id then device.
    pub arrays: Vec<ArrayRow>,
}

impl Profile {
    /// The row of `kernel` on a device whose name contains `device`.
    pub fn row(&self, kernel: &str, device: &str) -> Option<&ProfileRow> {
        self.rows.iter().find(|r| r.kernel == kernel && r.device.contains(device))
    }
    /// The rows of `kernel` on every device.
    pub fn rows_of<'a>(&'a self, kernel: &'a str) -> impl Iterator<Item = &'a ProfileRow> + 'a {
        self.rows.iter().filter(move |r| r.kernel == kernel)
    }
    /// The transfers of the array with identifier `id` (see [`crate::Array::id`]).
    pub fn array(&self, id: u64) -> impl Iterator<Item = &ArrayRow> + '_ {
        self.arrays.iter().filter(move |a| a.id == id)
    }
    /// Total bytes moved to devices.
    pub fn total_bytes_to_device(&self) -> u64 {
        self.rows.iter().map(|r| r.bytes_to_device).sum()
    }
    /// Total bytes moved to the host.
    pub fn total_bytes_to_host(&self) -> u64 {
        self.rows.iter().map(|r| r.bytes_to_host).sum()
    }
    /// The devices that ran at least one kernel.
    pub fn devices_used(&self) -> Vec<String> {
        let mut d: Vec<String> =
            self.rows.iter().filter(|r| r.launches > 0).map(|r| r.device.clone()).collect();
        d.sort();
        d.dedup();
        d
    }
}

/// An array as a transfer names it.
pub(crate) struct ArrayRef<'a> {
    pub id: u64,
    pub label: &'a str,
    pub elem: &'static str,
    pub bytes: usize,
}

/// A transfer being recorded.
pub(crate) struct TransferNote<'a> {
    /// The kernel row (or pseudo-row) it counts on.
    pub row: &'a str,
    pub array: ArrayRef<'a>,
    pub reason: TransferReason,
}

type Key = (String, String);

/// A device operation whose time is not known yet.
struct Pending {
    /// The kernel row that gets its time (launches only).
    row: Option<Key>,
    event: TraceEvent,
    submitted: Instant,
    fence: Fence,
}

#[derive(Default)]
struct State {
    rows: BTreeMap<Key, ProfileRow>,
    arrays: BTreeMap<(u64, String), ArrayRow>,
    pending: Vec<Pending>,
    events: Vec<TraceEvent>,
    dropped: u64,
}

/// Collects the statistics of one [`Runtime`](crate::Runtime).
pub struct Profiler {
    enabled: AtomicBool,
    epoch: Instant,
    state: Mutex<State>,
}

impl Default for Profiler {
    fn default() -> Self {
        Profiler {
            enabled: AtomicBool::new(true),
            epoch: Instant::now(),
            state: Mutex::new(State::default()),
        }
    }
}

impl Profiler {
    /// Turns collection on or off (on by default; the cost is one lock per operation).
    pub fn set_enabled(&self, on: bool) {
        self.enabled.store(on, Ordering::Relaxed)
    }

    fn state(&self) -> Option<std::sync::MutexGuard<'_, State>> {
        if !self.enabled.load(Ordering::Relaxed) {
            return None;
        }
        Some(self.state.lock().unwrap_or_else(|e| e.into_inner()))
    }

    fn since(&self, t: Instant) -> Duration {
        t.saturating_duration_since(self.epoch)
    }

    /// Records a finished CPU launch that ran from `start` to `end` on this thread.
    pub(crate) fn launch(&self, kernel: &str, device: &str, start: Instant, end: Instant) {
        // The event's strings are made outside the lock, so only when profiling.
        if !self.enabled.load(Ordering::Relaxed) {
            return;
        }
        let event = TraceEvent {
            name: kernel.into(),
            category: Category::Kernel,
            device: device.into(),
            lane: trace::thread_lane(),
            start: self.since(start),
            duration: end - start,
            args: Vec::new(),
        };
        let Some(mut st) = self.state() else { return };
        let r = row(&mut st, kernel, device);
        r.launches += 1;
        r.time += end - start;
        push_event(&mut st, event);
    }

    /// Records an asynchronous device operation: a launch of `kernel` (its time is read from
    /// `fence` later) or, with `kernel == None`, an operation shown on the timeline only.
    pub(crate) fn device_op(
        &self,
        kernel: Option<&str>,
        event: (String, Category, Vec<(String, String)>),
        device: &str,
        fence: &Fence,
    ) {
        let submitted = Instant::now();
        let (name, category, args) = event;
        let event = TraceEvent {
            name,
            category,
            device: device.into(),
            lane: Lane::Stream(0),
            start: Duration::ZERO,
            duration: Duration::ZERO,
            args,
        };
        {
            let Some(mut st) = self.state() else { return };
            let key = kernel.map(|k| {
                row(&mut st, k, device).launches += 1;
                (k.to_string(), device.to_string())
            });
            st.pending.push(Pending { row: key, event, submitted, fence: fence.clone() });
        }
        self.collect(false);
    }

    /// Records `bytes` moved between the host and `device` (`to_device` or back) for `note`,
    /// done by the operation of `fence`.
    pub(crate) fn transfer(
        &self,
        note: &TransferNote<'_>,
        device: &str,
        to_device: bool,
        fence: &Fence,
    ) {
        let bytes = note.array.bytes as u64;
        {
            let Some(mut st) = self.state() else { return };
            let r = row(&mut st, note.row, device);
            if to_device {
                r.bytes_to_device += bytes;
            } else {
                r.bytes_to_host += bytes;
            }
            let a =
                st.arrays.entry((note.array.id, device.to_string())).or_insert_with(|| ArrayRow {
                    id: note.array.id,
                    label: note.array.label.to_string(),
                    elem: note.array.elem.to_string(),
                    bytes: note.array.bytes,
                    device: device.to_string(),
                    ..ArrayRow::default()
                });
            if to_device {
                a.bytes_to_device += bytes;
            } else {
                a.bytes_to_host += bytes;
            }
            match a.reasons.iter_mut().find(|r| r.0 == note.reason && r.1 == to_device) {
                Some(r) => {
                    r.2 += 1;
                    r.3 += bytes;
                }
                None => a.reasons.push((note.reason, to_device, 1, bytes)),
            }
        }
        let (verb, category) =
            if to_device { ("upload", Category::Upload) } else { ("download", Category::Download) };
        let args = vec![
            ("bytes".to_string(), bytes.to_string()),
            ("reason".to_string(), note.reason.to_string()),
            ("array".to_string(), format!("#{} {}", note.array.id, note.array.label)),
        ];
        let name = format!("{verb} {}", note.array.label);
        self.device_op(None, (name, category, args), device, fence);
    }

    /// Moves completed operations into their rows and the timeline (waiting for all if `wait`).
    fn collect(&self, wait: bool) {
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let pending = std::mem::take(&mut st.pending);
        for mut p in pending {
            if wait {
                let _ = p.fence.wait();
            }
            if !p.fence.is_complete() {
                st.pending.push(p);
                continue;
            }
            let elapsed = p.fence.elapsed();
            if let (Some(t), Some(row)) = (elapsed, p.row.as_ref().and_then(|k| st.rows.get_mut(k)))
            {
                row.time += t;
            }
            let (start, dur) = match p.fence.span() {
                Some((a, b)) => (a, b.saturating_duration_since(a)),
                None => (p.submitted, elapsed.unwrap_or_default()),
            };
            p.event.start = self.since(start);
            p.event.duration = dur;
            p.event.lane = Lane::Stream(p.fence.stream());
            push_event(&mut st, p.event);
        }
    }

    /// A snapshot. Waits for in-flight GPU operations so that their times are included.
    pub fn snapshot(&self) -> Profile {
        self.collect(true);
        let st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        Profile {
            rows: st.rows.values().cloned().collect(),
            arrays: st.arrays.values().cloned().collect(),
        }
    }

    /// The timeline so far (waits for in-flight GPU operations).
    pub fn trace(&self) -> Trace {
        self.collect(true);
        let st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        Trace { events: st.events.clone(), dropped: st.dropped }
    }

    /// Clears all statistics and the timeline.
    pub fn reset(&self) {
        self.collect(true);
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        st.rows.clear();
        st.arrays.clear();
        st.events.clear();
        st.dropped = 0;
    }
}

fn row<'a>(st: &'a mut State, kernel: &str, device: &str) -> &'a mut ProfileRow {
    st.rows.entry((kernel.to_string(), device.to_string())).or_insert_with(|| ProfileRow {
        kernel: kernel.into(),
        device: device.into(),
        ..ProfileRow::default()
    })
}

fn push_event(st: &mut State, e: TraceEvent) {
    if st.events.len() < MAX_EVENTS {
        st.events.push(e);
    } else {
        st.dropped += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_accumulate_and_print_as_tables() {
        let p = Profiler::default();
        let t0 = Instant::now();
        p.launch("blur", "CPU", t0, t0 + Duration::from_micros(300));
        p.launch("blur", "CPU", t0, t0 + Duration::from_micros(100));
        let s = p.snapshot();
        let r = s.row("blur", "CPU").unwrap();
        assert_eq!((r.launches, r.time), (2, Duration::from_micros(400)));
        assert_eq!(s.devices_used(), vec!["CPU".to_string()]);
        let table = s.to_string();
        assert!(table.starts_with("kernel"), "{table}");
        assert_eq!(p.trace().events.len(), 2);
        p.reset();
        assert!(p.snapshot().rows.is_empty());
        assert!(p.trace().events.is_empty());
        p.set_enabled(false);
        p.launch("x", "CPU", t0, t0);
        assert!(p.snapshot().rows.is_empty());
    }
}
