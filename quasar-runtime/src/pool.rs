//! The caching device-memory pool: freed blocks are kept per size class and reused, so arrays
//! do not cost one driver allocation (and, for CUDA, one implicit device synchronisation in
//! `cuMemFree`) each. This is the bookkeeping only; [`GpuDevice`](crate::device::GpuDevice)
//! combines it with the back end and with eviction.

use crate::device::DevPtr;
use std::collections::HashMap;

/// The smallest block handed out.
pub const MIN_BLOCK: usize = 256;

/// The size class of a request: rounded up to a multiple of 1/16 of the next power of two (at most
/// 12.5 % waste), and at least 256 bytes.
pub fn size_class(bytes: usize) -> usize {
    let b = bytes.max(MIN_BLOCK);
    let p = b.next_power_of_two();
    let step = (p / 16).max(MIN_BLOCK);
    b.div_ceil(step) * step
}

/// Free blocks by size class, and the byte counts the limit applies to.
#[derive(Debug, Default)]
pub(crate) struct Pool {
    free: HashMap<usize, Vec<DevPtr>>,
    /// Bytes in blocks handed out (live buffers).
    pub used: usize,
    /// Bytes in cached free blocks.
    pub cached: usize,
    /// Most bytes (used + cached) the pool may hold; `usize::MAX` for no limit.
    pub limit: usize,
    /// Requests served from the cache.
    pub hits: u64,
    /// Requests that needed a fresh allocation.
    pub misses: u64,
}

impl Pool {
    pub fn new() -> Pool {
        Pool { limit: usize::MAX, ..Pool::default() }
    }

    /// A cached block of class `class`, if there is one.
    pub fn take(&mut self, class: usize) -> Option<DevPtr> {
        let p = self.free.get_mut(&class)?.pop()?;
        self.cached -= class;
        self.used += class;
        self.hits += 1;
        Some(p)
    }

    /// Whether a fresh block of `class` fits under the limit counting live blocks only.
    pub fn fits_live(&self, class: usize) -> bool {
        self.used.saturating_add(class) <= self.limit
    }

    /// Cached blocks to give back to the back end so that a fresh block of `class` fits under
    /// the limit (largest classes first).
    pub fn trim_for(&mut self, class: usize) -> Vec<(DevPtr, usize)> {
        let mut out = Vec::new();
        if self.used.saturating_add(self.cached).saturating_add(class) <= self.limit {
            return out;
        }
        let mut classes: Vec<usize> = self.free.keys().copied().collect();
        classes.sort_unstable_by(|a, b| b.cmp(a));
        for c in classes {
            while self.used.saturating_add(self.cached).saturating_add(class) > self.limit {
                match self.free.get_mut(&c).and_then(|v| v.pop()) {
                    Some(p) => {
                        self.cached -= c;
                        out.push((p, c));
                    }
                    None => break,
                }
            }
        }
        out
    }

    /// Every cached block (to give back to the back end).
    pub fn drain(&mut self) -> Vec<(DevPtr, usize)> {
        let mut out = Vec::new();
        for (c, v) in self.free.drain() {
            out.extend(v.into_iter().map(|p| (p, c)));
        }
        self.cached = 0;
        out
    }

    /// Records a fresh block of `class` as handed out.
    pub fn note_fresh(&mut self, class: usize) {
        self.used += class;
        self.misses += 1;
    }

    /// Takes back a block; returns it if it should go back to the back end (over the limit).
    pub fn give_back(&mut self, p: DevPtr, class: usize) -> Option<DevPtr> {
        self.used -= class;
        if self.used.saturating_add(self.cached).saturating_add(class) <= self.limit {
            self.free.entry(class).or_default().push(p);
            self.cached += class;
            None
        } else {
            Some(p)
        }
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
        }
    }

    #[test]
    fn blocks_are_reused_and_the_limit_is_kept() {
        let mut p = Pool::new();
        p.limit = 1024;
        assert!(p.take(512).is_none());
        p.note_fresh(512);
        assert_eq!(p.give_back(DevPtr(1), 512), None);
        assert_eq!((p.used, p.cached), (0, 512));
        assert_eq!(p.take(512), Some(DevPtr(1)));
        assert_eq!((p.used, p.cached, p.hits, p.misses), (512, 0, 1, 1));
        p.note_fresh(512);
        assert!(!p.fits_live(512));
        assert_eq!(p.give_back(DevPtr(2), 512), None);
        // Used 512 + cached 512: a new 512 block needs the cache trimmed.
        let trimmed = p.trim_for(512);
        assert_eq!(trimmed, vec![(DevPtr(2), 512)]);
        assert_eq!(p.cached, 0);
        p.note_fresh(512);
        p.give_back(DevPtr(3), 512);
        assert_eq!(p.give_back(DevPtr(4), 512), None);
        assert_eq!(p.drain().len(), 2);
        assert_eq!(p.cached, 0);
    }
}
