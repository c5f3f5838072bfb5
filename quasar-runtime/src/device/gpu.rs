//! [`GpuDevice`]: a [`GpuBackend`] plus what the runtime keeps per device: the caching memory
//! pool, the registry of buffers with a copy here (for LRU eviction), the graveyard of
//! buffers dropped while their operations were in flight, and the profiler.

use super::{DevPtr, Fence, GpuBackend};
use crate::error::{Error, Result};
use crate::hostmem::HostMem;
use crate::pool::{size_class, Pool};
use crate::profiler::Profiler;
use crate::residency::Buffer;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};

static NEXT_DEVICE: AtomicU64 = AtomicU64::new(1);

/// Memory pool statistics of a device.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PoolStats {
    /// Bytes in blocks held by arrays.
    pub used: usize,
    /// Bytes in free blocks kept for reuse.
    pub cached: usize,
    /// The limit on `used + cached` (`usize::MAX` when unlimited).
    pub limit: usize,
    /// Allocations served from the cache.
    pub hits: u64,
    /// Allocations that went to the back end.
    pub misses: u64,
    /// Buffers moved to the host to make room.
    pub evictions: u64,
    /// Bytes of those buffers.
    pub evicted_bytes: u64,
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
    registry: Mutex<Vec<Weak<Buffer>>>,
    graveyard: Mutex<Vec<Grave>>,
    profiler: Arc<Profiler>,
    evictions: AtomicU64,
    evicted_bytes: AtomicU64,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl GpuDevice {
    /// Wraps a back end; statistics go to `profiler`.
    pub fn new(backend: Arc<dyn GpuBackend>, profiler: Arc<Profiler>) -> Arc<GpuDevice> {
        Arc::new(GpuDevice {
            id: NEXT_DEVICE.fetch_add(1, Ordering::Relaxed),
            name: backend.name(),
            backend,
            pool: Mutex::new(Pool::new()),
            registry: Mutex::new(Vec::new()),
            graveyard: Mutex::new(Vec::new()),
            profiler,
            evictions: AtomicU64::new(0),
            evicted_bytes: AtomicU64::new(0),
        })
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
    pub(crate) fn profiler(&self) -> &Profiler {
        &self.profiler
    }

    /// Limits the memory the pool may hold (live arrays plus cache); `None` for no limit
    /// beyond the device's own. Over the limit, idle arrays are moved to the host (LRU).
    pub fn set_memory_limit(&self, bytes: Option<usize>) {
        let trimmed = {
            let mut p = lock(&self.pool);
            p.limit = bytes.unwrap_or(usize::MAX);
            p.trim_for(0)
        };
        self.free_blocks(trimmed);
    }

    /// Pool statistics.
    pub fn pool_stats(&self) -> PoolStats {
        let p = lock(&self.pool);
        PoolStats {
            used: p.used,
            cached: p.cached,
            limit: p.limit,
            hits: p.hits,
            misses: p.misses,
            evictions: self.evictions.load(Ordering::Relaxed),
            evicted_bytes: self.evicted_bytes.load(Ordering::Relaxed),
        }
    }

    /// Gives every cached block back to the back end.
    pub fn trim(&self) {
        let blocks = lock(&self.pool).drain();
        self.free_blocks(blocks);
    }

    /// Waits for all work on the device and frees what the graveyard holds.
    pub fn synchronize(&self) -> Result<()> {
        let r = self.backend.synchronize();
        self.reap();
        r
    }

    fn free_blocks(&self, blocks: Vec<(DevPtr, usize)>) {
        for (p, _) in blocks {
            // SAFETY: pool blocks are only cached (or evicted) when nothing uses them.
            unsafe { self.backend.free(p) };
        }
    }

    /// A block of at least `bytes`: from the cache, fresh from the back end, or after moving
    /// idle buffers to the host (least recently used first; when every candidate is busy, after
    /// waiting for the device once). Returns the block and its size class.
    pub(crate) fn alloc(&self, bytes: usize) -> Result<(DevPtr, usize)> {
        self.reap();
        let class = size_class(bytes);
        let mut last_err = None;
        let mut synced = false;
        for _round in 0..4096 {
            {
                let mut pool = lock(&self.pool);
                if let Some(p) = pool.take(class) {
                    return Ok((p, class));
                }
                if pool.fits_live(class) {
                    let trimmed = pool.trim_for(class);
                    self.free_blocks(trimmed);
                    match self.backend.alloc(class) {
                        Ok(p) => {
                            pool.note_fresh(class);
                            return Ok((p, class));
                        }
                        Err(e) => {
                            // Perhaps the device is full of cached blocks of other sizes.
                            let all = pool.drain();
                            if !all.is_empty() {
                                self.free_blocks(all);
                                if let Ok(p) = self.backend.alloc(class) {
                                    pool.note_fresh(class);
                                    return Ok((p, class));
                                }
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
        let in_use = lock(&self.pool).used;
        Err(match last_err {
            Some(e @ Error::Cuda { .. }) if !is_oom(&e) => e,
            _ => Error::OutOfDeviceMemory { device: self.name.clone(), requested: bytes, in_use },
        })
    }

    /// Returns a block to the pool (or to the back end when over the limit).
    pub(crate) fn release(&self, p: DevPtr, class: usize) {
        let back = lock(&self.pool).give_back(p, class);
        if let Some(p) = back {
            // SAFETY: the caller guarantees nothing uses the block any more.
            unsafe { self.backend.free(p) };
        }
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
        candidates.sort_by_key(|b| b.last_use());
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
        if freed > 0 {
            // Make the freed blocks available to any size class.
            let trimmed = lock(&self.pool).trim_for(needed);
            self.free_blocks(trimmed);
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
            if let Some((p, _)) = g.block {
                // SAFETY: the device is idle after synchronize.
                unsafe { self.backend.free(p) };
            }
        }
        let blocks = lock(&self.pool).drain();
        self.free_blocks(blocks);
    }
}
