//! Host memory of a buffer: zero-initialised, aligned, or adopted from a `Vec<T>` without
//! copying, and the process-wide host memory budget.
//!
//! Every allocation here is fallible: a request the allocator cannot serve, or one that would
//! take the bytes held by arrays past the budget, is [`Error::OutOfMemory`] (never
//! `handle_alloc_error`, which aborts the host application). The budget is unlimited unless
//! set by [`set_host_memory_limit`] or the environment variable `QUASAR_HOST_MEMORY_LIMIT`
//! (bytes, or with a `K`/`M`/`G`/`T` suffix, binary); it makes memory exhaustion testable and
//! lets an application cap what Quasar code may take.
//!
//! Large freed blocks of a known element type are kept for reuse by [`HostMem::uninit`]
//! (`uninit`, the arrays the kernel generator fills): a fresh block that large comes from new
//! zero pages, whose first-touch page faults and zeroing cost more than the kernel that fills
//! them (3x the time of a fused `a .* x + b .* y + c` on a 4K image), and freeing it unmaps it
//! again. A few blocks are kept at most ([`SPARE_MAX_BLOCKS`], [`SPARE_MAX_BYTES`]); they are
//! not counted against the budget, which covers memory that arrays hold.

use crate::error::{Error, Result};
use std::alloc::{alloc_zeroed, dealloc, Layout};
use std::any::TypeId;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, Once};

/// Alignment of host buffers the runtime allocates itself (a cache line, enough for AVX-512).
pub(crate) const HOST_ALIGN: usize = 64;

/// The device name of host memory in [`Error::OutOfMemory`].
pub const HOST: &str = "host";

/// Bytes held by host blocks (arrays and kernel scratch).
static USED: AtomicUsize = AtomicUsize::new(0);
/// The budget; `usize::MAX` for none.
static LIMIT: AtomicUsize = AtomicUsize::new(usize::MAX);
static ENV: Once = Once::new();

/// Reads `QUASAR_HOST_MEMORY_LIMIT` once (unless a limit was set before).
fn init_from_env() {
    ENV.call_once(|| {
        if let Ok(v) = std::env::var("QUASAR_HOST_MEMORY_LIMIT") {
            match parse_bytes(&v) {
                Some(b) => LIMIT.store(b, Ordering::Relaxed),
                None => log::warn!("quasar: ignoring QUASAR_HOST_MEMORY_LIMIT={v:?} (not a size)"),
            }
        }
    });
}

/// Parses `1234`, `64K`, `512M`, `2G`, `1T` (binary multiples, case-insensitive, an optional
/// trailing `B` or `iB`).
pub fn parse_bytes(s: &str) -> Option<usize> {
    let t = s.trim().to_ascii_uppercase();
    let t = t.strip_suffix("IB").or_else(|| t.strip_suffix('B')).unwrap_or(&t);
    let (num, shift) = match t.chars().last()? {
        'K' => (&t[..t.len() - 1], 10),
        'M' => (&t[..t.len() - 1], 20),
        'G' => (&t[..t.len() - 1], 30),
        'T' => (&t[..t.len() - 1], 40),
        _ => (t, 0),
    };
    let n: usize = num.trim().parse().ok()?;
    n.checked_mul(1usize << shift)
}

/// Sets the host memory budget: the most bytes that arrays (and kernel scratch memory) may
/// hold together; `None` for no limit beyond what the allocator gives. Allocations past it
/// fail with [`Error::OutOfMemory`]. Overrides `QUASAR_HOST_MEMORY_LIMIT`.
pub fn set_host_memory_limit(bytes: Option<usize>) {
    ENV.call_once(|| {});
    LIMIT.store(bytes.unwrap_or(usize::MAX), Ordering::Relaxed);
}

/// The host memory budget, if one is set.
pub fn host_memory_limit() -> Option<usize> {
    init_from_env();
    Some(LIMIT.load(Ordering::Relaxed)).filter(|&l| l != usize::MAX)
}

/// Bytes currently held by arrays and kernel scratch memory on the host.
pub fn host_memory_in_use() -> usize {
    USED.load(Ordering::Relaxed)
}

fn over_budget(bytes: usize, used: usize, limit: usize) -> Error {
    Error::OutOfMemory {
        device: HOST.into(),
        bytes,
        array: None,
        detail: format!(
            "the host memory budget is {limit} bytes (QUASAR_HOST_MEMORY_LIMIT) and {used} are in use"
        ),
        report: None,
    }
}

fn allocator_failed(bytes: usize) -> Error {
    Error::OutOfMemory {
        device: HOST.into(),
        bytes,
        array: None,
        detail: "the allocator could not provide it".into(),
        report: None,
    }
}

/// Takes `bytes` from the budget.
fn charge(bytes: usize) -> Result<()> {
    init_from_env();
    let limit = LIMIT.load(Ordering::Relaxed);
    let mut used = USED.load(Ordering::Relaxed);
    loop {
        let next = used.checked_add(bytes).filter(|&n| n <= limit);
        let Some(next) = next else { return Err(over_budget(bytes, used, limit)) };
        match USED.compare_exchange_weak(used, next, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => return Ok(()),
            Err(u) => used = u,
        }
    }
}

fn uncharge(bytes: usize) {
    USED.fetch_sub(bytes, Ordering::Relaxed);
}

/// An empty `Vec` with room for exactly `len` elements, or [`Error::OutOfMemory`] when the
/// allocator cannot provide it or the array it becomes would not fit the budget. For
/// built-ins that fill a vector and then adopt it as an array ([`crate::Array::from_vec`]
/// charges the budget).
pub fn host_vec<T>(len: usize) -> Result<Vec<T>> {
    let bytes = len.checked_mul(std::mem::size_of::<T>()).filter(|&b| b <= isize::MAX as usize);
    let Some(bytes) = bytes else {
        return Err(Error::InvalidShape {
            shape: vec![len],
            reason: "the number of bytes overflows".into(),
        });
    };
    init_from_env();
    let (used, limit) = (USED.load(Ordering::Relaxed), LIMIT.load(Ordering::Relaxed));
    if used.checked_add(bytes).is_none_or(|n| n > limit) {
        return Err(over_budget(bytes, used, limit));
    }
    let mut v = Vec::new();
    v.try_reserve_exact(len).map_err(|_| allocator_failed(bytes))?;
    Ok(v)
}

/// Blocks smaller than this are not kept: the allocator's free lists serve them well.
const SPARE_MIN: usize = 1 << 20;
/// The most bytes kept in spare blocks (the oldest go first), and the largest block kept.
const SPARE_MAX_BYTES: usize = 512 << 20;
/// The most spare blocks kept.
const SPARE_MAX_BLOCKS: usize = 8;

/// A freed block kept for reuse: its layout and the element type whose values it holds (so
/// that every byte a reuse reads is a valid value of that type, as before).
struct Spare {
    ptr: NonNull<u8>,
    layout: Layout,
    kind: TypeId,
}

// SAFETY: a spare block is owned by the list alone; nothing else points into it.
unsafe impl Send for Spare {}

/// The spare blocks, oldest first.
static SPARES: Mutex<Vec<Spare>> = Mutex::new(Vec::new());

fn spares() -> std::sync::MutexGuard<'static, Vec<Spare>> {
    // A panic while the lock was held leaves the list consistent (pushes and removes only).
    SPARES.lock().unwrap_or_else(|e| e.into_inner())
}

/// Takes a spare block of exactly this layout and element type, if one is kept.
fn take_spare(layout: Layout, kind: TypeId) -> Option<NonNull<u8>> {
    let mut list = spares();
    let i = list.iter().rposition(|s| s.layout == layout && s.kind == kind)?;
    Some(list.remove(i).ptr)
}

/// Keeps a freed block for reuse, freeing the oldest blocks past the limits.
fn keep_spare(spare: Spare) {
    let evicted: Vec<Spare> = {
        let mut list = spares();
        list.push(spare);
        let mut total: usize = list.iter().map(|s| s.layout.size()).sum();
        let mut n = 0;
        while list.len() - n > SPARE_MAX_BLOCKS || total > SPARE_MAX_BYTES {
            total -= list[n].layout.size();
            n += 1;
        }
        list.drain(..n).collect()
    };
    for s in evicted {
        // SAFETY: allocated with exactly this layout, and no longer in the list.
        unsafe { dealloc(s.ptr.as_ptr(), s.layout) };
    }
}

/// Frees the spare blocks: freed arrays of 1 MiB or more (at most 8, 512 MiB in all) that the
/// runtime keeps so that `uninit` arrays of the same element type and size reuse them without
/// page faults. Call it to give that memory back to the allocator.
pub fn release_spare_host_memory() {
    let all = std::mem::take(&mut *spares());
    for s in all {
        // SAFETY: as in `keep_spare`.
        unsafe { dealloc(s.ptr.as_ptr(), s.layout) };
    }
}

/// Bytes held by spare blocks (see [`release_spare_host_memory`]); they are not counted in
/// [`host_memory_in_use`].
pub fn spare_host_memory() -> usize {
    spares().iter().map(|s| s.layout.size()).sum()
}

/// How to give a [`HostMem`] back.
enum Owner {
    /// Allocated here with this layout (`None` for zero bytes: nothing to free).
    Layout(Option<Layout>),
    /// The storage of a `Vec<T>`; the function rebuilds and drops it.
    Vec { cap: usize, len: usize, free: unsafe fn(*mut u8, usize, usize) },
}

/// An owned block of host memory holding the bytes of a buffer's elements, counted against
/// the host memory budget while it lives.
pub(crate) struct HostMem {
    ptr: NonNull<u8>,
    bytes: usize,
    owner: Owner,
    /// The element type whose values the block holds, when it may be kept for reuse.
    kind: Option<TypeId>,
}

// SAFETY: HostMem is a uniquely owned allocation; access is synchronised by its owner.
unsafe impl Send for HostMem {}
// SAFETY: as above.
unsafe impl Sync for HostMem {}

unsafe fn free_vec<T>(ptr: *mut u8, len: usize, cap: usize) {
    drop(Vec::from_raw_parts(ptr as *mut T, len, cap));
}

impl HostMem {
    /// A block of no bytes (nothing to allocate, free or charge), at a dangling address
    /// aligned to `HOST_ALIGN` like every other block (an empty slice of any element type).
    pub fn empty() -> HostMem {
        #[repr(align(64))]
        struct Aligned;
        const _: () = assert!(std::mem::align_of::<Aligned>() == HOST_ALIGN);
        HostMem {
            ptr: NonNull::<Aligned>::dangling().cast(),
            bytes: 0,
            owner: Owner::Layout(None),
            kind: None,
        }
    }

    /// `bytes` zero bytes aligned to `max(align, HOST_ALIGN)`. Large blocks come from the
    /// allocator's zeroed pages, so this is cheap until the memory is touched.
    pub fn zeroed(bytes: usize, align: usize) -> Result<HostMem> {
        let align = align.max(HOST_ALIGN);
        if bytes == 0 {
            // A dangling but well-aligned pointer (`align` is a power of two, non-zero).
            let ptr = NonNull::new(align as *mut u8).ok_or_else(|| allocator_failed(0))?;
            return Ok(HostMem { ptr, bytes, owner: Owner::Layout(None), kind: None });
        }
        let layout = Layout::from_size_align(bytes, align).map_err(|_| allocator_failed(bytes))?;
        charge(bytes)?;
        // SAFETY: the layout has a non-zero size.
        let p = unsafe { alloc_zeroed(layout) };
        match NonNull::new(p) {
            Some(ptr) => Ok(HostMem { ptr, bytes, owner: Owner::Layout(Some(layout)), kind: None }),
            None => {
                uncharge(bytes);
                Err(allocator_failed(bytes))
            }
        }
    }

    /// Adopts the storage of `v` without copying; fails (dropping `v`) when its bytes would
    /// take the arrays past the host memory budget.
    pub fn from_vec<T: Copy + 'static>(v: Vec<T>) -> Result<HostMem> {
        let bytes = v.len() * std::mem::size_of::<T>();
        charge(bytes)?;
        let mut v = std::mem::ManuallyDrop::new(v);
        let (len, cap) = (v.len(), v.capacity());
        // Vec pointers are never null (dangling when empty).
        let ptr = NonNull::new(v.as_mut_ptr() as *mut u8).unwrap_or(NonNull::dangling());
        let owner = Owner::Vec { cap, len, free: free_vec::<T> };
        Ok(HostMem { ptr, bytes, owner, kind: None })
    }

    /// Marks the block as holding values of `T`: when freed, it may be kept for reuse by
    /// [`uninit`](Self::uninit) blocks of `T`.
    pub fn holding<T: 'static>(mut self) -> HostMem {
        self.kind = Some(TypeId::of::<T>());
        self
    }

    /// `bytes` bytes aligned as [`zeroed`](Self::zeroed) for values of `T`, whose contents are
    /// unspecified: a kept block of a freed array of `T` of the same size when there is one
    /// (its old values, all valid `T`s), else a new zeroed block. The flag says whether the
    /// block is known to be zero.
    pub fn uninit<T: 'static>(bytes: usize, align: usize) -> Result<(HostMem, bool)> {
        let kind = TypeId::of::<T>();
        let layout = Layout::from_size_align(bytes, align.max(HOST_ALIGN)).ok();
        let spare =
            layout.filter(|_| bytes >= SPARE_MIN).and_then(|l| Some((take_spare(l, kind)?, l)));
        if let Some((ptr, layout)) = spare {
            if let Err(e) = charge(bytes) {
                // SAFETY: a spare block of exactly this layout, taken from the list.
                unsafe { dealloc(ptr.as_ptr(), layout) };
                return Err(e);
            }
            let owner = Owner::Layout(Some(layout));
            return Ok((HostMem { ptr, bytes, owner, kind: Some(kind) }, false));
        }
        Ok((HostMem::zeroed(bytes, align)?.holding::<T>(), true))
    }

    /// The start of the block.
    #[inline]
    pub fn ptr(&self) -> *mut u8 {
        self.ptr.as_ptr()
    }

    /// Its size in bytes.
    #[inline]
    pub fn bytes(&self) -> usize {
        self.bytes
    }
}

impl Drop for HostMem {
    fn drop(&mut self) {
        match self.owner {
            Owner::Layout(Some(layout)) => match self.kind {
                Some(kind) if (SPARE_MIN..=SPARE_MAX_BYTES).contains(&self.bytes) => {
                    keep_spare(Spare { ptr: self.ptr, layout, kind })
                }
                // SAFETY: allocated with exactly this layout.
                _ => unsafe { dealloc(self.ptr.as_ptr(), layout) },
            },
            Owner::Layout(None) => return,
            // SAFETY: the parts came from a Vec<T> of this T (the function was monomorphised for it).
            Owner::Vec { cap, len, free } => unsafe { free(self.ptr.as_ptr(), len, cap) },
        }
        uncharge(self.bytes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zeroed_is_zero_and_aligned() {
        let m = HostMem::zeroed(1000, 8).unwrap();
        assert_eq!(m.ptr() as usize % HOST_ALIGN, 0);
        // SAFETY: 1000 initialised bytes.
        let s = unsafe { std::slice::from_raw_parts(m.ptr(), m.bytes()) };
        assert!(s.iter().all(|&b| b == 0));
        let e = HostMem::zeroed(0, 128).unwrap();
        assert_eq!(e.ptr() as usize % 128, 0);
        assert_eq!(HostMem::empty().bytes(), 0);
    }

    #[test]
    fn adopts_vec_without_copying() {
        let v = vec![1.5f64, 2.5, 3.5];
        let p = v.as_ptr() as *mut u8;
        let m = HostMem::from_vec(v).unwrap();
        assert_eq!(m.ptr(), p);
        assert_eq!(m.bytes(), 24);
    }

    #[test]
    fn an_allocation_beyond_the_address_space_is_an_error_not_an_abort() {
        // 2^62 bytes: no allocator can serve it, whatever the overcommit policy.
        let e = HostMem::zeroed(1 << 62, 8).err().expect("cannot succeed");
        assert!(
            matches!(e, Error::OutOfMemory { ref device, bytes, .. } if device == HOST && bytes == 1 << 62),
            "{e}"
        );
        let e = host_vec::<u32>(1 << 60).unwrap_err();
        assert!(matches!(e, Error::OutOfMemory { .. }), "{e}");
        assert!(matches!(host_vec::<u64>(usize::MAX / 4), Err(Error::InvalidShape { .. })));
        assert_eq!(host_vec::<u8>(10).unwrap().capacity(), 10);
    }

    /// The spare list is process-wide: its tests take turns.
    static SPARE_TESTS: Mutex<()> = Mutex::new(());

    #[test]
    fn uninit_blocks_reuse_a_freed_block_of_the_same_type_and_size() {
        let _turn = SPARE_TESTS.lock().unwrap_or_else(|e| e.into_inner());
        // A size no other test of this process uses, so that the spare list is ours.
        let bytes = SPARE_MIN + 3 * 64;
        let (a, zero) = HostMem::uninit::<u32>(bytes, 4).unwrap();
        assert!(zero);
        // SAFETY: `bytes` bytes, exclusively ours.
        unsafe { a.ptr().write_bytes(7, bytes) };
        let p = a.ptr();
        drop(a);
        assert!(spare_host_memory() >= bytes);
        // Another type does not get it; the same type does, with its old values.
        let (f, zero) = HostMem::uninit::<f32>(bytes, 4).unwrap();
        assert!(zero && f.ptr() != p);
        let (b, zero) = HostMem::uninit::<u32>(bytes, 4).unwrap();
        assert!(!zero);
        assert_eq!(b.ptr(), p);
        // SAFETY: as above; the old values are still there.
        assert_eq!(unsafe { *b.ptr().add(bytes - 1) }, 7);
        assert!(host_memory_in_use() >= bytes);
        drop((b, f));
        // Small and untyped blocks are freed, not kept.
        let before = spare_host_memory();
        drop(HostMem::zeroed(bytes, 4).unwrap());
        drop(HostMem::uninit::<u32>(1000, 4).unwrap());
        assert!(spare_host_memory() <= before);
        release_spare_host_memory();
    }

    #[test]
    fn spare_blocks_stay_within_their_limits() {
        let _turn = SPARE_TESTS.lock().unwrap_or_else(|e| e.into_inner());
        let blocks: Vec<HostMem> = (0..SPARE_MAX_BLOCKS + 3)
            .map(|k| HostMem::uninit::<u16>(SPARE_MIN + 64 * (k + 100), 2).unwrap().0)
            .collect();
        drop(blocks);
        let list = spares();
        assert!(list.len() <= SPARE_MAX_BLOCKS);
        assert!(list.iter().map(|s| s.layout.size()).sum::<usize>() <= SPARE_MAX_BYTES);
    }

    #[test]
    fn sizes_parse_with_binary_suffixes() {
        assert_eq!(parse_bytes("1234"), Some(1234));
        assert_eq!(parse_bytes("64k"), Some(64 << 10));
        assert_eq!(parse_bytes(" 512 MiB "), Some(512 << 20));
        assert_eq!(parse_bytes("2G"), Some(2 << 30));
        assert_eq!(parse_bytes("1TB"), Some(1 << 40));
        assert_eq!(parse_bytes("lots"), None);
        assert_eq!(parse_bytes(""), None);
    }
}
