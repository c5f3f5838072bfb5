//! [`GpuDevice`]: a [`GpuBackend`] plus what the runtime keeps per device: the memory pool,
//! the registry of buffers with a copy here (for LRU eviction), the graveyard of buffers
//! dropped while their operations were in flight, the bounded command queue, and the
//! profiler. Every device operation goes through here: it waits for room in the queue, and
//! the profiler records it on the timeline.

use super::{DevPtr, DeviceLaunch, Fence, GpuBackend};
use crate::error::{Error, Result};
use crate::fft::{FftDirection, FftJob};
use crate::hostmem::HostMem;
use crate::memory::{MemoryConfig, MemoryModel, MemoryReport};
use crate::pool::{size_class, Pool};
use crate::profiler::trace::Category;
use crate::profiler::{Profiler, TransferNote};
use crate::residency::Buffer;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};

#[path = "error_word.rs"]
mod error_word;
pub(crate) use error_word::ErrorSlot;

static NEXT_DEVICE: AtomicU64 = AtomicU64::new(1);

/// Memory pool statistics of a device.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PoolStats {
    /// Bytes in blocks held by arrays.
    pub used: usize,
    /// Free bytes in the chunks, kept for reuse.
    pub cached: usize,
    /// The limit on `used + cached` (`usize::MAX` when unlimited).
    pub limit: usize,
    /// Chunks held from the back end.
    pub chunks: usize,
    /// Allocations served from the cache.
    pub hits: u64,
    /// Allocations that went to the back end.
    pub misses: u64,
    /// Buffers moved to the host to make room.
    pub evictions: u64,
    /// Bytes of those buffers.
    pub evicted_bytes: u64,
}

/// What the pool's limit is made of.
struct Limits {
    model: MemoryModel,
    reserved: usize,
    user_limit: Option<usize>,
}

struct Grave {
    fences: Vec<Fence>,
    block: Option<(DevPtr, usize)>,
    _host: HostMem,
}

/// A GPU as the runtime uses it.
pub struct GpuDevice {
    id: u64,
    name: String,
    backend: Arc<dyn GpuBackend>,
    pool: Mutex<Pool>,
    limits: Mutex<Limits>,
    registry: Mutex<Vec<Weak<Buffer>>>,
    graveyard: Mutex<Vec<Grave>>,
    profiler: Arc<Profiler>,
    evictions: AtomicU64,
    evicted_bytes: AtomicU64,
    /// Operations submitted and perhaps not complete, oldest first.
    queue: Mutex<VecDeque<Fence>>,
    max_queue: AtomicUsize,
    queue_peak: AtomicUsize,
    failed: AtomicBool,
    /// Free per-launch error words (`error_word.rs`).
    error_words: Mutex<Vec<ErrorSlot>>,
}

/// The default bound of a device's command queue (the manual's `max-command-queue-size`).
pub const DEFAULT_MAX_QUEUE: usize = 64;

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl GpuDevice {
    /// Wraps a back end; statistics go to `profiler`. Its memory starts with the medium
    /// footprint and no reservation ([`set_memory_config`](Self::set_memory_config)).
    pub fn new(backend: Arc<dyn GpuBackend>, profiler: Arc<Profiler>) -> Arc<GpuDevice> {
        let name = backend.name();
        GpuDevice::named(backend, profiler, name)
    }

    /// As [`new`](Self::new), with the name the runtime gives it (`… #1` among several).
    pub(crate) fn named(
        backend: Arc<dyn GpuBackend>,
        profiler: Arc<Profiler>,
        name: String,
    ) -> Arc<GpuDevice> {
        let dev = Arc::new(GpuDevice {
            id: NEXT_DEVICE.fetch_add(1, Ordering::Relaxed),
            name,
            backend,
            pool: Mutex::new(Pool::new()),
            limits: Mutex::new(Limits {
                model: MemoryModel::default(),
                reserved: 0,
                user_limit: None,
            }),
            registry: Mutex::new(Vec::new()),
            graveyard: Mutex::new(Vec::new()),
            profiler,
            evictions: AtomicU64::new(0),
            evicted_bytes: AtomicU64::new(0),
            queue: Mutex::new(VecDeque::new()),
            max_queue: AtomicUsize::new(DEFAULT_MAX_QUEUE),
            queue_peak: AtomicUsize::new(0),
            failed: AtomicBool::new(false),
            error_words: Mutex::new(Vec::new()),
        });
        dev.configure(|_| {});
        dev
    }

    /// A process-unique id.
    pub fn id(&self) -> u64 {
        self.id
    }
    /// The device's name.
    pub fn name(&self) -> &str {
        &self.name
    }
    /// The back end.
    pub fn backend(&self) -> &dyn GpuBackend {
        &*self.backend
    }

    /// Bounds the command queue: an operation waits while `n` earlier ones are incomplete
    /// (the manual's `max-command-queue-size`, 64 by default).
    pub fn set_max_queue(&self, n: usize) {
        self.max_queue.store(n.max(1), Ordering::Relaxed);
    }

    /// The most operations that were in the queue at once, and the bound.
    pub fn queue_peak(&self) -> (usize, usize) {
        (self.queue_peak.load(Ordering::Relaxed), self.max_queue.load(Ordering::Relaxed))
    }

    /// Operations submitted that have not completed.
    pub fn queue_len(&self) -> usize {
        let mut q = lock(&self.queue);
        q.retain(|f| !f.is_complete());
        q.len()
    }

    /// Whether the device failed (then launches use the others, or the CPU).
    pub fn has_failed(&self) -> bool {
        self.failed.load(Ordering::Relaxed)
    }
    pub(crate) fn mark_failed(&self) {
        self.failed.store(true, Ordering::Relaxed);
    }

    /// Runs `submit` once the queue has room, and queues its fence.
    fn submit(&self, submit: impl FnOnce() -> Result<Fence>) -> Result<Fence> {
        let max = self.max_queue.load(Ordering::Relaxed);
        let mut q = lock(&self.queue);
        loop {
            q.retain(|f| !f.is_complete());
            if q.len() < max {
                break;
            }
            let oldest = q.front().cloned();
            drop(q);
            if let Some(f) = oldest {
                // Its error goes to whoever waits for it; here it only means room.
                let _ = f.wait();
            }
            q = lock(&self.queue);
        }
        // The queue stays locked while submitting, so that the bound is exact.
        let f = submit()?;
        q.push_back(f.clone());
        self.queue_peak.fetch_max(q.len(), Ordering::Relaxed);
        Ok(f)
    }

    /// Copies `bytes` from the host to `dst` after `after` (see [`GpuBackend::upload`]),
    /// recorded in the profile for `note`.
    ///
    /// # Safety
    /// As [`GpuBackend::upload`].
    pub(crate) unsafe fn upload(
        &self,
        dst: DevPtr,
        src: *const u8,
        bytes: usize,
        after: &[Fence],
        note: &TransferNote<'_>,
    ) -> Result<Fence> {
        let f = self.submit(|| self.backend.upload(dst, src, bytes, after))?;
        self.profiler.transfer(note, &self.name, true, &f);
        Ok(f)
    }

    /// Copies `bytes` from `src` to the host after `after` (see [`GpuBackend::download`]),
    /// recorded in the profile for `note`.
    ///
    /// # Safety
    /// As [`GpuBackend::download`].
    pub(crate) unsafe fn download(
        &self,
        dst: *mut u8,
        src: DevPtr,
        bytes: usize,
        after: &[Fence],
        note: &TransferNote<'_>,
    ) -> Result<Fence> {
        let f = self.submit(|| self.backend.download(dst, src, bytes, after))?;
        self.profiler.transfer(note, &self.name, false, &f);
        Ok(f)
    }

    /// Zeroes `bytes` at `dst` after `after`; `what` names it on the timeline.
    pub(crate) fn zero(
        &self,
        dst: DevPtr,
        bytes: usize,
        after: &[Fence],
        what: &str,
    ) -> Result<Fence> {
        let f = self.submit(|| self.backend.zero(dst, bytes, after))?;
        let args = vec![("bytes".to_string(), bytes.to_string())];
        self.profiler.device_op(None, (what.into(), Category::Memset, args), &self.name, &f);
        Ok(f)
    }

    /// Runs a kernel after `after` (see [`GpuBackend::launch`]), recorded in the profile.
    ///
    /// # Safety
    /// As [`GpuBackend::launch`].
    pub(crate) unsafe fn launch(&self, l: &DeviceLaunch<'_>, after: &[Fence]) -> Result<Fence> {
        let f = self.submit(|| self.backend.launch(l, after))?;
        let (grid, block) = l.cfg.cuda_grid_block();
        let args = vec![
            ("dims".to_string(), format!("{:?}", l.cfg.dims())),
            ("grid".to_string(), format!("{grid:?}")),
            ("block".to_string(), format!("{block:?}")),
        ];
        let name = l.kernel.name;
        self.profiler.device_op(Some(name), (name.into(), Category::Kernel, args), &self.name, &f);
        Ok(f)
    }

    /// Runs an FFT after `after` (see [`GpuBackend::fft`]), recorded in the profile.
    ///
    /// # Safety
    /// As [`GpuBackend::fft`].
    pub(crate) unsafe fn fft(&self, job: &FftJob, after: &[Fence]) -> Result<Fence> {
        let f = self.submit(|| self.backend.fft(job, after))?;
        let kind = match job.direction {
            FftDirection::Forward => "fft",
            FftDirection::Inverse => "ifft",
        };
        let args = vec![
            ("lengths".to_string(), format!("{:?}", job.layout.n)),
            ("batch".to_string(), job.layout.batch.to_string()),
        ];
        self.profiler.device_op(Some(kind), (kind.into(), Category::Kernel, args), &self.name, &f);
        Ok(f)
    }

    /// Limits the memory the pool may hold (all chunks); `None` for no limit beyond the
    /// device's usable memory. Over the limit, idle arrays are moved to the host (LRU).
    pub fn set_memory_limit(&self, bytes: Option<usize>) {
        self.configure(|c| c.user_limit = bytes);
    }

    /// Sets the footprint model and the reserved memory (the policy is the runtime's).
    pub fn set_memory_config(&self, cfg: &MemoryConfig) {
        self.configure(|c| {
            c.model = cfg.model;
            c.reserved = cfg.reserved_bytes;
        });
    }

    fn configure(&self, f: impl FnOnce(&mut Limits)) {
        let freed = {
            let mut l = lock(&self.limits);
            f(&mut l);
            let usable = self.backend.total_memory().saturating_sub(l.reserved);
            let mut p = lock(&self.pool);
            p.model = l.model;
            p.usable = usable;
            p.limit = l.model.cap(usable).min(l.user_limit.unwrap_or(usize::MAX));
            p.trim_to_limit()
        };
        self.free_chunks(freed);
    }

    /// Pool statistics.
    pub fn pool_stats(&self) -> PoolStats {
        let p = lock(&self.pool);
        PoolStats {
            used: p.used,
            cached: p.cached(),
            limit: p.limit,
            chunks: p.chunk_count(),
            hits: p.hits,
            misses: p.misses,
            evictions: self.evictions.load(Ordering::Relaxed),
            evicted_bytes: self.evicted_bytes.load(Ordering::Relaxed),
        }
    }

    /// Gives every empty chunk back to the back end.
    pub fn trim(&self) {
        let chunks = lock(&self.pool).drain();
        self.free_chunks(chunks);
    }

    /// Waits for all work on the device and frees what the graveyard holds.
    pub fn synchronize(&self) -> Result<()> {
        let r = self.backend.synchronize();
        self.reap();
        r
    }

    fn free_chunks(&self, chunks: Vec<DevPtr>) {
        for p in chunks {
            // SAFETY: a chunk is only given back when none of its blocks is in use.
            unsafe { self.backend.free(p) };
        }
    }

    /// A block of at least `bytes`: from a chunk, from a new chunk, or after moving idle
    /// buffers to the host (cheapest and least recently used first; when every candidate is
    /// busy, after waiting for the device once). Returns the block and its size class; when
    /// nothing helps, [`Error::OutOfMemory`] with the memory report.
    pub(crate) fn alloc(&self, bytes: usize) -> Result<(DevPtr, usize)> {
        self.reap();
        let class = size_class(bytes);
        let mut last_err = None;
        let mut synced = false;
        let hopeless = class > lock(&self.pool).limit;
        for _round in 0..4096 {
            if hopeless {
                break;
            }
            {
                let mut pool = lock(&self.pool);
                if let Some(p) = pool.take(class) {
                    return Ok((p, class));
                }
                let (chunk, freed) = pool.plan_chunk(class);
                self.free_chunks(freed);
                if let Some(size) = chunk {
                    match self.backend.alloc(size) {
                        Ok(base) => return Ok((pool.add_chunk(base, size, class), class)),
                        Err(e) => {
                            // Perhaps the device is full of empty chunks, or too full for a
                            // whole chunk: try the block alone.
                            let empty = pool.drain();
                            self.free_chunks(empty);
                            if let Ok(base) = self.backend.alloc(class) {
                                return Ok((pool.add_chunk(base, class, class), class));
                            }
                            last_err = Some(e);
                        }
                    }
                }
            }
            self.reap();
            if self.evict(class) > 0 {
                continue;
            }
            if synced {
                break;
            }
            // Everything left is busy: wait for the device to finish, then try again.
            synced = true;
            let _ = self.backend.synchronize();
            self.reap();
        }
        Err(match last_err {
            Some(e @ Error::Cuda { .. }) if !is_oom(&e) => e,
            _ => Error::OutOfMemory {
                device: self.name.clone(),
                bytes,
                array: None,
                detail: if hopeless {
                    "larger than the memory the runtime may use on this device".into()
                } else {
                    "the arrays in use leave no room for it".into()
                },
                report: Some(Box::new(self.report(class))),
            },
        })
    }

    /// The state of the device's memory, for an out-of-memory error about `request` bytes.
    pub fn report(&self, request: usize) -> MemoryReport {
        let pinned: Vec<(DevPtr, usize)> = {
            let r = lock(&self.registry);
            r.iter()
                .filter_map(|w| w.upgrade())
                .filter_map(|b| b.block_on(self))
                .filter(|s| s.busy)
                .map(|s| (s.ptr, s.class))
                .collect()
        };
        let p = lock(&self.pool);
        let (free_blocks, largest_free) = p.free_list();
        let reserved = lock(&self.limits).reserved;
        MemoryReport {
            request,
            pinned: pinned.iter().map(|(_, b)| b).sum(),
            free_blocks,
            largest_free,
            process_total: p.total(),
            in_use: p.used,
            device_total: self.backend.total_memory(),
            reserved,
            limit: p.limit,
            chunks: p.chunk_reports(&pinned),
        }
    }

    /// Returns a block to its chunk (and the chunk to the back end when the model says so).
    pub(crate) fn release(&self, p: DevPtr, class: usize) {
        self.backend.block_freed(p, class);
        let chunks = lock(&self.pool).give_back(p, class);
        self.free_chunks(chunks);
    }

    /// Keeps the memory of a dropped buffer until its operations complete.
    pub(crate) fn bury(&self, fences: Vec<Fence>, block: Option<(DevPtr, usize)>, host: HostMem) {
        lock(&self.graveyard).push(Grave { fences, block, _host: host });
    }

    /// Frees the graveyard's memory whose operations have completed.
    pub(crate) fn reap(&self) {
        let done: Vec<Grave> = {
            let mut g = lock(&self.graveyard);
            if g.is_empty() {
                return;
            }
            let (done, keep) = std::mem::take(&mut *g)
                .into_iter()
                .partition(|gr: &Grave| gr.fences.iter().all(|f| f.is_complete()));
            *g = keep;
            done
        };
        for gr in done {
            if let Some((p, c)) = gr.block {
                self.release(p, c);
            }
        }
    }

    /// Remembers a buffer that has a copy here, for eviction.
    pub(crate) fn register(&self, b: Weak<Buffer>) {
        let mut r = lock(&self.registry);
        if r.len() >= 64 && r.len().is_power_of_two() {
            r.retain(|w| w.strong_count() > 0);
        }
        r.push(b);
    }

    /// Moves least-recently-used idle buffers to the host until `needed` bytes are freed.
    /// Returns the bytes freed (0 when nothing could be evicted).
    fn evict(&self, needed: usize) -> usize {
        let mut candidates: Vec<Arc<Buffer>> = {
            let mut r = lock(&self.registry);
            r.retain(|w| w.strong_count() > 0);
            r.iter().filter_map(|w| w.upgrade()).collect()
        };
        // Buffers whose host copy is valid cost no copy: they go first, each group in LRU order.
        let mut keyed: Vec<((bool, u64), Arc<Buffer>)> =
            candidates.drain(..).map(|b| ((!b.host_is_valid(), b.last_use()), b)).collect();
        keyed.sort_by_key(|(k, _)| *k);
        candidates.extend(keyed.into_iter().map(|(_, b)| b));
        let mut freed = 0;
        for b in &candidates {
            if freed >= needed {
                break;
            }
            if let Some((p, class)) = b.try_evict(self) {
                self.release(p, class);
                freed += class;
                self.evictions.fetch_add(1, Ordering::Relaxed);
                self.evicted_bytes.fetch_add(b.bytes as u64, Ordering::Relaxed);
            }
        }
        drop(candidates);
        freed
    }
}

fn is_oom(e: &Error) -> bool {
    e.to_string().to_ascii_lowercase().contains("out of memory")
}

impl Drop for GpuDevice {
    fn drop(&mut self) {
        let _ = self.backend.synchronize();
        let graves = std::mem::take(&mut *lock(&self.graveyard));
        for g in graves {
            if let Some((p, c)) = g.block {
                self.release(p, c);
            }
        }
        for (p, c) in self.drain_error_words() {
            self.release(p, c);
        }
        let chunks = lock(&self.pool).drain();
        self.free_chunks(chunks);
    }
}
