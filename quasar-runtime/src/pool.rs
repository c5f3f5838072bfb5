//! The device-memory allocator's bookkeeping: chunks taken from the driver, carved into blocks
//! by best fit, with freed blocks merged with their free neighbours. Arrays thus cost no driver
//! allocation (and, for CUDA, no implicit device synchronisation in `cuMemFree`) each. How big
//! chunks are, how much may be held and whether empty chunks are kept follow the
//! [`MemoryModel`]. [`GpuDevice`](crate::device::GpuDevice) combines this with the back end
//! and with eviction.

use crate::device::DevPtr;
use crate::memory::{ChunkReport, MemoryModel};
use std::collections::BTreeMap;

/// The smallest block handed out (and the alignment of every block).
pub const MIN_BLOCK: usize = 256;

/// The size class of a request: rounded up to a multiple of 1/16 of the next power of two (at most
/// 12.5 % waste), and at least 256 bytes. Blocks of one class fit each other's holes exactly.
pub fn size_class(bytes: usize) -> usize {
    let b = bytes.max(MIN_BLOCK);
    let p = b.checked_next_power_of_two().unwrap_or(1 << (usize::BITS - 1));
    let step = (p / 16).max(MIN_BLOCK);
    b.div_ceil(step).saturating_mul(step)
}

/// One driver allocation.
#[derive(Debug)]
struct Chunk {
    base: u64,
    size: usize,
    /// Free extents: offset → length, never adjacent (merged on free).
    free: BTreeMap<usize, usize>,
    free_bytes: usize,
}

impl Chunk {
    fn new(base: DevPtr, size: usize) -> Chunk {
        Chunk { base: base.0, size, free: BTreeMap::from([(0, size)]), free_bytes: size }
    }

    fn is_empty(&self) -> bool {
        self.free_bytes == self.size
    }

    fn contains(&self, p: u64) -> bool {
        p >= self.base && p < self.base + self.size as u64
    }

    fn largest_free(&self) -> usize {
        self.free.values().copied().max().unwrap_or(0)
    }

    /// The smallest free extent holding `len` bytes: (offset, its length).
    fn best_fit(&self, len: usize) -> Option<(usize, usize)> {
        self.free.iter().filter(|(_, &l)| l >= len).min_by_key(|(_, &l)| l).map(|(&o, &l)| (o, l))
    }

    fn carve(&mut self, off: usize, ext: usize, len: usize) -> DevPtr {
        self.free.remove(&off);
        if ext > len {
            self.free.insert(off + len, ext - len);
        }
        self.free_bytes -= len;
        DevPtr(self.base + off as u64)
    }

    /// Returns `[off, off + len)` to the free extents, merging with its neighbours.
    fn put_back(&mut self, mut off: usize, mut len: usize) {
        if let Some((&prev, &plen)) = self.free.range(..off).next_back() {
            if prev + plen == off {
                self.free.remove(&prev);
                off = prev;
                len += plen;
            }
        }
        if let Some(&nlen) = self.free.get(&(off + len)) {
            self.free.remove(&(off + len));
            len += nlen;
        }
        self.free.insert(off, len);
    }
}

/// The chunks of one device and the byte counts the limit applies to.
#[derive(Debug)]
pub(crate) struct Pool {
    chunks: Vec<Chunk>,
    pub model: MemoryModel,
    /// Most bytes (all chunks) the pool may hold.
    pub limit: usize,
    /// Bytes the runtime may use on the device (after the reservation), for chunk sizes.
    pub usable: usize,
    /// Bytes in blocks handed out (live buffers).
    pub used: usize,
    /// Requests served from an existing chunk.
    pub hits: u64,
    /// Requests that needed a new chunk.
    pub misses: u64,
}

impl Pool {
    pub fn new() -> Pool {
        Pool {
            chunks: Vec::new(),
            model: MemoryModel::default(),
            limit: usize::MAX,
            usable: usize::MAX,
            used: 0,
            hits: 0,
            misses: 0,
        }
    }

    /// Bytes held from the driver.
    pub fn total(&self) -> usize {
        self.chunks.iter().map(|c| c.size).sum()
    }

    /// Free bytes inside chunks (kept for reuse).
    pub fn cached(&self) -> usize {
        self.total() - self.used
    }

    /// The number of chunks.
    pub fn chunk_count(&self) -> usize {
        self.chunks.len()
    }

    /// A block of `class` bytes from an existing chunk (best fit over all chunks), if the
    /// live blocks stay under the limit (chunks may exceed a limit lowered after they were
    /// made; then only their live bytes count until they empty).
    pub fn take(&mut self, class: usize) -> Option<DevPtr> {
        if self.used.saturating_add(class) > self.limit {
            return None;
        }
        let (k, off, ext) = self
            .chunks
            .iter()
            .enumerate()
            .filter_map(|(k, c)| c.best_fit(class).map(|(o, l)| (k, o, l)))
            .min_by_key(|&(_, _, l)| l)?;
        self.used += class;
        self.hits += 1;
        Some(self.chunks[k].carve(off, ext, class))
    }

    /// The size of a new chunk for a block of `class`, if one fits under the limit (after
    /// giving back empty chunks, which are returned for the caller to free).
    pub fn plan_chunk(&mut self, class: usize) -> (Option<usize>, Vec<DevPtr>) {
        let mut freed = Vec::new();
        let fits = |p: &Pool| p.total().saturating_add(class) <= p.limit;
        while !fits(self) {
            match self.chunks.iter().position(Chunk::is_empty) {
                Some(k) => freed.push(DevPtr(self.chunks.swap_remove(k).base)),
                None => return (None, freed),
            }
        }
        let room = self.limit - self.total();
        (Some(self.model.chunk_bytes(class, self.usable).min(room)), freed)
    }

    /// Adds a chunk of `size` bytes at `base` and takes a block of `class` from it.
    pub fn add_chunk(&mut self, base: DevPtr, size: usize, class: usize) -> DevPtr {
        let mut c = Chunk::new(base, size);
        let p = c.carve(0, size, class);
        self.chunks.push(c);
        self.used += class;
        self.misses += 1;
        p
    }

    /// Takes back a block; returns the chunks to give back to the driver.
    pub fn give_back(&mut self, p: DevPtr, class: usize) -> Vec<DevPtr> {
        let Some(k) = self.chunks.iter().position(|c| c.contains(p.0)) else {
            return Vec::new();
        };
        self.used -= class.min(self.used);
        let c = &mut self.chunks[k];
        c.put_back((p.0 - c.base) as usize, class);
        c.free_bytes += class;
        if c.is_empty() && (!self.model.keeps_empty_chunks() || self.total() > self.limit) {
            return vec![DevPtr(self.chunks.swap_remove(k).base)];
        }
        Vec::new()
    }

    /// Removes the empty chunks (to give back to the driver).
    pub fn drain(&mut self) -> Vec<DevPtr> {
        let (empty, keep) = std::mem::take(&mut self.chunks).into_iter().partition(Chunk::is_empty);
        self.chunks = keep;
        empty.into_iter().map(|c: Chunk| DevPtr(c.base)).collect()
    }

    /// Empty chunks to give back until the pool is under its limit.
    pub fn trim_to_limit(&mut self) -> Vec<DevPtr> {
        let mut freed = Vec::new();
        while self.total() > self.limit {
            match self.chunks.iter().position(Chunk::is_empty) {
                Some(k) => freed.push(DevPtr(self.chunks.swap_remove(k).base)),
                None => break,
            }
        }
        freed
    }

    /// The free extents: how many, and the largest.
    pub fn free_list(&self) -> (usize, usize) {
        let n = self.chunks.iter().map(|c| c.free.len()).sum();
        (n, self.chunks.iter().map(Chunk::largest_free).max().unwrap_or(0))
    }

    /// Per chunk (in address order): size, free bytes, largest free block, and the pinned
    /// bytes among `pinned` blocks `(address, bytes)`.
    pub fn chunk_reports(&self, pinned: &[(DevPtr, usize)]) -> Vec<ChunkReport> {
        let mut chunks: Vec<&Chunk> = self.chunks.iter().collect();
        chunks.sort_by_key(|c| c.base);
        chunks
            .into_iter()
            .map(|c| ChunkReport {
                size: c.size,
                pinned: pinned.iter().filter(|(p, _)| c.contains(p.0)).map(|(_, b)| b).sum(),
                free: c.free_bytes,
                largest_free: c.largest_free(),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn size_classes_round_up_with_bounded_waste() {
        assert_eq!(size_class(0), 256);
        assert_eq!(size_class(1), 256);
        assert_eq!(size_class(257), 512);
        assert_eq!(size_class(4096), 4096);
        assert_eq!(size_class(4097), 4608);
        for b in [1000usize, 12345, 1 << 20, (1 << 20) + 1, 3_000_000] {
            let c = size_class(b);
            assert!(c >= b && (c - b) as f64 <= 0.125 * c as f64 + 256.0, "{b} -> {c}");
            assert_eq!(c % MIN_BLOCK, 0);
        }
        assert!(size_class(usize::MAX) >= usize::MAX / 2);
    }

    fn pool(model: MemoryModel, limit: usize) -> Pool {
        Pool { model, limit, usable: 1 << 30, ..Pool::new() }
    }

    #[test]
    fn blocks_are_carved_from_chunks_by_best_fit_and_merged_when_freed() {
        let mut p = pool(MemoryModel::MediumFootprint, 4096);
        assert!(p.take(512).is_none());
        let (size, freed) = p.plan_chunk(512);
        assert_eq!((size, freed.len()), (Some(4096), 0));
        let a = p.add_chunk(DevPtr(1 << 20), 4096, 512);
        let b = p.take(1024).unwrap();
        let c = p.take(512).unwrap();
        assert_eq!((a.0, b.0, c.0), (1 << 20, (1 << 20) + 512, (1 << 20) + 1536));
        assert_eq!((p.used, p.cached(), p.hits, p.misses), (2048, 2048, 2, 1));
        // Free a and c: two holes of 512 and the tail of 2048; a 512 request takes a hole.
        assert!(p.give_back(a, 512).is_empty());
        assert!(p.give_back(c, 512).is_empty());
        assert_eq!(p.free_list(), (2, 2560));
        assert_eq!(p.take(512), Some(a));
        // Free everything: one extent again; the medium model keeps the empty chunk.
        assert!(p.give_back(a, 512).is_empty());
        assert!(p.give_back(b, 1024).is_empty());
        assert_eq!((p.free_list(), p.used, p.chunk_count()), ((1, 4096), 0, 1));
        assert_eq!(p.drain(), vec![DevPtr(1 << 20)]);
        assert_eq!(p.total(), 0);
    }

    #[test]
    fn the_limit_is_kept_by_giving_back_empty_chunks() {
        let mut p = pool(MemoryModel::SmallFootprint, 2048);
        let (size, _) = p.plan_chunk(1024);
        assert_eq!(size, Some(1024));
        let a = p.add_chunk(DevPtr(0x1000), 1024, 1024);
        let b = p.add_chunk(DevPtr(0x2000), 1024, 1024);
        assert_eq!(p.plan_chunk(1024), (None, vec![]));
        // The small model gives a chunk back as soon as it is empty.
        assert_eq!(p.give_back(a, 1024), vec![DevPtr(0x1000)]);
        let mut m = pool(MemoryModel::LargeFootprint, 2048);
        m.add_chunk(DevPtr(0x1000), 1024, 1024);
        m.add_chunk(DevPtr(0x2000), 1024, 1024);
        assert!(m.give_back(DevPtr(0x1000), 1024).is_empty());
        // A new chunk of another size needs room: the empty chunk is given back.
        let (size, freed) = m.plan_chunk(768);
        assert_eq!((size, freed), (Some(1024), vec![DevPtr(0x1000)]));
        m.limit = 1024;
        assert!(m.trim_to_limit().is_empty(), "the live chunk stays");
        // A lowered limit also bounds the blocks taken from existing chunks.
        let mut c = pool(MemoryModel::MediumFootprint, 1 << 20);
        c.add_chunk(DevPtr(0x10000), 4096, 1024);
        c.limit = 1024;
        assert_eq!(c.take(1024), None);
        c.limit = 2048;
        assert!(c.take(1024).is_some());
        let _ = b;
    }

    #[test]
    fn reports_count_fragmentation_and_pinned_bytes() {
        let mut p = pool(MemoryModel::MediumFootprint, 4096);
        let a = p.add_chunk(DevPtr(0x10000), 4096, 1024);
        let b = p.take(1024).unwrap();
        let _c = p.take(1024).unwrap();
        p.give_back(a, 1024);
        let r = p.chunk_reports(&[(b, 1024)]);
        assert_eq!(r.len(), 1);
        assert_eq!(
            (r[0].size, r[0].pinned, r[0].free, r[0].largest_free),
            (4096, 1024, 2048, 1024)
        );
        assert!((r[0].fragmentation() - 0.5).abs() < 1e-12);
    }
}
