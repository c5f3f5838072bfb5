//! GPU memory as the manual describes it (§9.10, §16.2, §16.4): the footprint models, the
//! memory reserved for the system, what happens when memory runs out, and the out-of-memory
//! report.
//!
//! The settings come from the manual's configuration names, read from the environment when a
//! runtime is created ([`MemoryConfig::from_env`]), or are set from Rust with
//! [`Runtime::set_memory_config`](crate::Runtime::set_memory_config):
//!
//! | variable | values | default |
//! |---|---|---|
//! | `RUNTIME_GPU_MEMORYMODEL` | `SmallFootprint`, `MediumFootprint`, `LargeFootprint` | medium |
//! | `RUNTIME_GPU_SCHEDULINGMODE` | `MaximizeStability`, `MaximizePerformance` | stability |
//! | `RUNTIME_GPU_RESERVEDMEM` | megabytes left to the system (the display) | 160 |

use std::fmt;

/// How aggressively the runtime takes GPU memory (`RUNTIME_GPU_MEMORYMODEL`).
///
/// Device memory is taken from the driver in chunks that hold many arrays (so an array costs
/// no driver call, and freeing one no device synchronisation); the model sets the chunk size,
/// how much of the device the runtime may use, and whether empty chunks are kept.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum MemoryModel {
    /// Conservative: one driver allocation per array, given back as soon as the array leaves
    /// the device, and at most half of the usable memory.
    SmallFootprint,
    /// The default: chunks of up to 64 MiB (1/16 of the usable memory), all usable memory,
    /// empty chunks kept until memory is needed for something else.
    #[default]
    MediumFootprint,
    /// Aggressive: chunks of up to 1 GiB (1/4 of the usable memory), so that very large
    /// arrays still find room in a chunk; empty chunks are kept.
    LargeFootprint,
}

impl MemoryModel {
    /// Parses the manual's names (`SmallFootprint`, …) or `small|medium|large`.
    pub fn parse(s: &str) -> Option<MemoryModel> {
        match s.trim().to_ascii_lowercase().as_str() {
            "smallfootprint" | "small" => Some(MemoryModel::SmallFootprint),
            "mediumfootprint" | "medium" => Some(MemoryModel::MediumFootprint),
            "largefootprint" | "large" | "hugefootprint" | "huge" => {
                Some(MemoryModel::LargeFootprint)
            }
            _ => None,
        }
    }

    /// The bytes of a new chunk for a block of `class` bytes, with `usable` bytes of device
    /// memory for the runtime.
    pub(crate) fn chunk_bytes(self, class: usize, usable: usize) -> usize {
        let preferred = match self {
            MemoryModel::SmallFootprint => 0,
            MemoryModel::MediumFootprint => (usable / 16).min(64 << 20),
            MemoryModel::LargeFootprint => (usable / 4).min(1 << 30),
        };
        class.max(preferred / 256 * 256)
    }

    /// The share of the usable memory the runtime may hold.
    pub(crate) fn cap(self, usable: usize) -> usize {
        match self {
            MemoryModel::SmallFootprint => usable / 2,
            _ => usable,
        }
    }

    /// Whether chunks with no live array are kept for reuse.
    pub(crate) fn keeps_empty_chunks(self) -> bool {
        self != MemoryModel::SmallFootprint
    }
}

/// What happens when a kernel's arrays do not fit in GPU memory even after idle arrays were
/// moved to the host (`RUNTIME_GPU_SCHEDULINGMODE`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum GpuPolicy {
    /// The launch runs on the CPU instead (slower, but it runs), with one warning per
    /// runtime. Kernels that only run on a GPU still fail.
    #[default]
    MaximizeStability,
    /// The launch fails with [`Error::OutOfMemory`](crate::Error::OutOfMemory) and its
    /// memory report.
    MaximizePerformance,
}

impl GpuPolicy {
    /// Parses the manual's names (`MaximizeStability`, …) or `stability|performance`.
    pub fn parse(s: &str) -> Option<GpuPolicy> {
        match s.trim().to_ascii_lowercase().as_str() {
            "maximizestability" | "stability" => Some(GpuPolicy::MaximizeStability),
            "maximizeperformance" | "performance" => Some(GpuPolicy::MaximizePerformance),
            _ => None,
        }
    }
}

/// The GPU memory settings of a runtime.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MemoryConfig {
    /// The footprint model.
    pub model: MemoryModel,
    /// Device memory the runtime leaves alone, in bytes (for the display and other programs).
    pub reserved_bytes: usize,
    /// What happens when memory runs out.
    pub policy: GpuPolicy,
}

/// The manual's default reservation: 160 MB.
pub const DEFAULT_RESERVED_BYTES: usize = 160 << 20;

impl Default for MemoryConfig {
    fn default() -> Self {
        MemoryConfig {
            model: MemoryModel::default(),
            reserved_bytes: DEFAULT_RESERVED_BYTES,
            policy: GpuPolicy::default(),
        }
    }
}

impl MemoryConfig {
    /// The defaults, overridden by `RUNTIME_GPU_MEMORYMODEL`, `RUNTIME_GPU_SCHEDULINGMODE`
    /// and `RUNTIME_GPU_RESERVEDMEM` (megabytes); a value that does not parse is ignored
    /// with a warning.
    pub fn from_env() -> MemoryConfig {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
        let mut c = MemoryConfig::default();
        let ignored = |name: &str, v: &str| log::warn!("quasar: ignoring {name}={v:?}");
        if let Some(v) = var("RUNTIME_GPU_MEMORYMODEL") {
            match MemoryModel::parse(&v) {
                Some(m) => c.model = m,
                None => ignored("RUNTIME_GPU_MEMORYMODEL", &v),
            }
        }
        if let Some(v) = var("RUNTIME_GPU_SCHEDULINGMODE") {
            match GpuPolicy::parse(&v) {
                Some(p) => c.policy = p,
                None => ignored("RUNTIME_GPU_SCHEDULINGMODE", &v),
            }
        }
        if let Some(v) = var("RUNTIME_GPU_RESERVEDMEM") {
            match v.trim().parse::<usize>().ok().and_then(|mb| mb.checked_mul(1 << 20)) {
                Some(b) => c.reserved_bytes = b,
                None => ignored("RUNTIME_GPU_RESERVEDMEM", &v),
            }
        }
        c
    }
}

/// One chunk of device memory in a [`MemoryReport`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChunkReport {
    /// Its size in bytes.
    pub size: usize,
    /// Bytes of arrays that cannot move now (in use by a launch or an operation in flight).
    pub pinned: usize,
    /// Free bytes.
    pub free: usize,
    /// The largest free block in it.
    pub largest_free: usize,
}

impl ChunkReport {
    /// `1 - largest free block / free bytes`: how scattered the free space is.
    pub fn fragmentation(&self) -> f64 {
        if self.free == 0 {
            0.0
        } else {
            1.0 - self.largest_free as f64 / self.free as f64
        }
    }
}

/// The state of a device's memory when an allocation failed, as in the manual's report (§16.4).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemoryReport {
    /// The request, in bytes (rounded to the allocator's size class).
    pub request: usize,
    /// Bytes of arrays that could not be moved to the host.
    pub pinned: usize,
    /// The number of free blocks over all chunks.
    pub free_blocks: usize,
    /// The largest of them.
    pub largest_free: usize,
    /// Bytes the runtime holds on the device (all chunks).
    pub process_total: usize,
    /// Bytes of live arrays.
    pub in_use: usize,
    /// The device's memory.
    pub device_total: usize,
    /// Bytes reserved for the system.
    pub reserved: usize,
    /// The most the runtime may hold (after the reservation, the footprint model and any
    /// limit set by [`GpuDevice::set_memory_limit`](crate::GpuDevice::set_memory_limit)).
    pub limit: usize,
    /// The chunks.
    pub chunks: Vec<ChunkReport>,
}

/// `1234567` as `1,234,567`.
pub(crate) fn grouped(n: usize) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn pct(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        0.0
    } else {
        100.0 * part as f64 / whole as f64
    }
}

impl fmt::Display for MemoryReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let g = grouped;
        writeln!(f, "Amount of pinned memory: {} bytes", g(self.pinned))?;
        writeln!(f, "Freelist size: {} memory blocks", self.free_blocks)?;
        let verdict = if self.largest_free >= self.request { "sufficient" } else { "insufficient" };
        writeln!(
            f,
            "Largest free block: {} bytes, {verdict} to hold request size of {} bytes",
            g(self.largest_free),
            g(self.request)
        )?;
        writeln!(
            f,
            "Process total: {}, Inuse: {} bytes, Free: {} bytes; limit: {} bytes",
            g(self.process_total),
            g(self.in_use),
            g(self.process_total - self.in_use.min(self.process_total)),
            g(self.limit)
        )?;
        write!(
            f,
            "Device total: {}, reserved: {}, device free: {}",
            g(self.device_total),
            g(self.reserved),
            g(self.device_total.saturating_sub(self.reserved + self.process_total))
        )?;
        for (k, c) in self.chunks.iter().enumerate() {
            write!(
                f,
                "\nChunk {k} size {} bytes: Fragmentation: {:.1}%, pinned: {} bytes ({:.1}%), free: {} bytes ({:.1}%)",
                g(c.size),
                100.0 * c.fragmentation(),
                g(c.pinned),
                pct(c.pinned, c.size),
                g(c.free),
                pct(c.free, c.size)
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_as_in_the_manual() {
        assert_eq!(MemoryModel::parse("SmallFootPrint"), Some(MemoryModel::SmallFootprint));
        assert_eq!(MemoryModel::parse("large"), Some(MemoryModel::LargeFootprint));
        assert_eq!(MemoryModel::parse("tiny"), None);
        assert_eq!(GpuPolicy::parse("MaximizePerformance"), Some(GpuPolicy::MaximizePerformance));
        assert_eq!(GpuPolicy::parse(" stability "), Some(GpuPolicy::MaximizeStability));
        let d = MemoryConfig::default();
        assert_eq!(d.reserved_bytes, 160 << 20);
        assert_eq!(
            (d.model, d.policy),
            (MemoryModel::MediumFootprint, GpuPolicy::MaximizeStability)
        );
    }

    #[test]
    fn models_differ_in_chunks_cap_and_caching() {
        let usable = 1 << 30;
        assert_eq!(MemoryModel::SmallFootprint.chunk_bytes(4096, usable), 4096);
        assert_eq!(MemoryModel::MediumFootprint.chunk_bytes(4096, usable), 64 << 20);
        assert_eq!(MemoryModel::LargeFootprint.chunk_bytes(4096, usable), 256 << 20);
        assert_eq!(MemoryModel::MediumFootprint.chunk_bytes(100 << 20, usable), 100 << 20);
        assert_eq!(MemoryModel::SmallFootprint.cap(usable), usable / 2);
        assert!(!MemoryModel::SmallFootprint.keeps_empty_chunks());
        assert!(MemoryModel::LargeFootprint.keeps_empty_chunks());
    }

    #[test]
    fn the_report_reads_like_the_manual() {
        let r = MemoryReport {
            request: 132_710_400,
            pinned: 398_131_200,
            free_blocks: 6,
            largest_free: 67_665_920,
            process_total: 736_493_568,
            in_use: 580_608_000,
            device_total: 1_010_368_512,
            reserved: 160 << 20,
            limit: 850_000_000,
            chunks: vec![ChunkReport {
                size: 67_108_864,
                pinned: 0,
                free: 17_342_464,
                largest_free: 9_052_160,
            }],
        };
        let text = r.to_string();
        assert!(text.starts_with("Amount of pinned memory: 398,131,200 bytes\n"), "{text}");
        assert!(text.contains("Freelist size: 6 memory blocks"), "{text}");
        assert!(
            text.contains(
                "Largest free block: 67,665,920 bytes, insufficient to hold request size of 132,710,400 bytes"
            ),
            "{text}"
        );
        assert!(
            text.contains(
                "Process total: 736,493,568, Inuse: 580,608,000 bytes, Free: 155,885,568 bytes"
            ),
            "{text}"
        );
        assert!(
            text.contains("Chunk 0 size 67,108,864 bytes: Fragmentation: 47.8%, pinned: 0 bytes (0.0%), free: 17,342,464 bytes (25.8%)"),
            "{text}"
        );
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1000), "1,000");
    }
}
