//! Residency: one logical buffer that may be valid on the host, on a GPU, or both.
//!
//! State per buffer (all under one mutex):
//!
//! * the host copy (always allocated; zero pages cost nothing until touched) and whether it is
//!   valid;
//! * at most one device copy (a pool block on one [`GpuDevice`]) and whether it is valid;
//!   invariant: at least one copy is valid;
//! * the hazards: the fence of the last operation that wrote either copy, and the fences of
//!   the operations that read it since. An operation that reads waits for the last writer; one
//!   that writes also waits for the readers. Uploads and downloads count as writers (of the
//!   copy they fill). So GPU work overlaps freely and a host read waits only for the
//!   operations that produce what it reads;
//! * pins (launches being prepared) and host borrows (views and CPU kernels, `RefCell`-like:
//!   violations are errors, not panics).
//!
//! Transitions: launching a kernel makes each argument valid where it runs (uploading only a
//! stale copy, never for `'nocopy`), a write invalidates the other copy, a host read downloads
//! lazily, and eviction moves an idle device copy to the host. A buffer with a pin or an
//! incomplete fence is never evicted or freed; dropping one whose operations are still in
//! flight hands its memory to the device's graveyard, which frees it when they complete.

use crate::device::{wait_all, DevPtr, Fence, GpuDevice};
use crate::element::ElemInfo;
use crate::error::{Error, Result};
use crate::hostmem::HostMem;
use crate::launch::Access;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, TryLockError};

static NEXT_ID: AtomicU64 = AtomicU64::new(1);
static CLOCK: AtomicU64 = AtomicU64::new(1);

/// A buffer's copy on a device.
pub(crate) struct DevCopy {
    pub dev: Arc<GpuDevice>,
    pub ptr: DevPtr,
    pub class: usize,
    pub valid: bool,
}

pub(crate) struct BufState {
    pub host: HostMem,
    pub host_valid: bool,
    pub dev: Option<DevCopy>,
    last_writer: Option<Fence>,
    readers: Vec<Fence>,
    pins: u32,
    shared: u32,
    exclusive: bool,
}

/// A buffer's device block, for the out-of-memory report.
pub(crate) struct BlockState {
    pub ptr: DevPtr,
    pub class: usize,
    pub busy: bool,
}

/// Where an array's data is valid, for tests and diagnostics.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Residency {
    /// The host copy is valid.
    pub host_valid: bool,
    /// The device holding a copy, if any.
    pub device: Option<String>,
    /// That copy is valid.
    pub device_valid: bool,
    /// Operations on the buffer are still running.
    pub in_flight: bool,
}

impl BufState {
    /// Drops fences that have completed successfully (failed ones are kept so that the next
    /// wait reports the error).
    fn prune(&mut self) {
        if self.last_writer.as_ref().is_some_and(|f| f.is_complete() && f.wait().is_ok()) {
            self.last_writer = None;
        }
        self.readers.retain(|f| !(f.is_complete() && f.wait().is_ok()));
    }

    fn in_flight(&self) -> bool {
        self.last_writer.as_ref().is_some_and(|f| !f.is_complete())
            || self.readers.iter().any(|f| !f.is_complete())
    }

    /// Fences an operation must wait for.
    fn deps(&mut self, writes: bool) -> Vec<Fence> {
        self.prune();
        let mut d: Vec<Fence> = self.last_writer.iter().cloned().collect();
        if writes {
            d.extend(self.readers.iter().cloned());
        }
        d
    }

    fn record(&mut self, f: &Fence, writes: bool) {
        if writes {
            self.last_writer = Some(f.clone());
            self.readers.clear();
        } else {
            self.readers.push(f.clone());
        }
    }

    /// Waits on the host for the hazards of a host access; clears what it waited for.
    fn wait(&mut self, writes: bool) -> Result<()> {
        let mut fences: Vec<Fence> = self.last_writer.take().into_iter().collect();
        if writes {
            fences.append(&mut self.readers);
        }
        wait_all(&fences)
    }

    fn check_borrow(&self, writes: bool, what: &str) -> Result<()> {
        if self.exclusive {
            return Err(Error::borrowed(
                what,
                "the array is mutably borrowed (a mutable host view or a CPU kernel writing it)",
            ));
        }
        if writes && self.shared > 0 {
            return Err(Error::borrowed(
                what,
                "the array is borrowed for reading (a host view or a CPU kernel reading it)",
            ));
        }
        Ok(())
    }
}

/// The shared, type-erased storage behind an [`Array`](crate::Array).
pub(crate) struct Buffer {
    pub id: u64,
    pub bytes: usize,
    pub elem: ElemInfo,
    last_use: AtomicU64,
    state: Mutex<BufState>,
}

impl Buffer {
    pub fn new(host: HostMem, elem: ElemInfo) -> Arc<Buffer> {
        Arc::new(Buffer {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            bytes: host.bytes(),
            elem,
            last_use: AtomicU64::new(CLOCK.fetch_add(1, Ordering::Relaxed)),
            state: Mutex::new(BufState {
                host,
                host_valid: true,
                dev: None,
                last_writer: None,
                readers: Vec::new(),
                pins: 0,
                shared: 0,
                exclusive: false,
            }),
        })
    }

    fn lock(&self) -> MutexGuard<'_, BufState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn touch(&self) {
        self.last_use.store(CLOCK.fetch_add(1, Ordering::Relaxed), Ordering::Relaxed);
    }

    pub fn last_use(&self) -> u64 {
        self.last_use.load(Ordering::Relaxed)
    }

    /// Where the data is valid.
    pub fn residency(&self) -> Residency {
        let st = self.lock();
        Residency {
            host_valid: st.host_valid,
            device: st.dev.as_ref().map(|d| d.dev.name().to_string()),
            device_valid: st.dev.as_ref().is_some_and(|d| d.valid),
            in_flight: st.in_flight(),
        }
    }

    /// Makes the host copy valid (downloading if needed) and waits for the hazards of a host
    /// access. `label` names the profiler row for the transfer.
    fn host_ready(&self, st: &mut BufState, writes: bool, label: &str) -> Result<()> {
        self.host_ready_for(st, if writes { Access::ReadWrite } else { Access::Read }, label)
    }

    /// As [`host_ready`](Self::host_ready) for `access`: a write-only access (`'nocopy`) does
    /// not download stale data, it only waits until nothing uses the host block.
    fn host_ready_for(&self, st: &mut BufState, access: Access, label: &str) -> Result<()> {
        let writes = access.writes();
        if !st.host_valid && !access.reads() {
            st.wait(true)?;
            st.host_valid = true;
        }
        if !st.host_valid {
            if st.shared > 0 || st.exclusive {
                return Err(Error::borrowed("download into the host copy", "it is borrowed"));
            }
            let d = st.dev.as_ref().ok_or_else(|| internal("no valid copy of a buffer"))?;
            if !d.valid {
                return Err(internal("no valid copy of a buffer"));
            }
            let (dev, ptr) = (d.dev.clone(), d.ptr);
            let deps = st.deps(true);
            // SAFETY: the host block lives in the state and is not accessed until the fence
            // completes (every host access waits for the last writer first).
            let f = unsafe { dev.backend().download(st.host.ptr(), ptr, self.bytes, &deps)? };
            dev.profiler().transfer(label, dev.name(), 0, self.bytes as u64);
            st.record(&f, true);
            st.host_valid = true;
        }
        st.wait(writes)?;
        if writes {
            if let Some(d) = st.dev.as_mut() {
                d.valid = false;
            }
        }
        self.touch();
        Ok(())
    }

    /// Runs `f` on the valid host copy, for reading.
    pub fn host_read<R>(&self, f: impl FnOnce(*const u8) -> R) -> Result<R> {
        let mut st = self.lock();
        st.check_borrow(false, "read the array on the host")?;
        self.host_ready(&mut st, false, crate::profiler::HOST_READ)?;
        Ok(f(st.host.ptr()))
    }

    /// Runs `f` on the valid host copy, for writing (the device copy becomes stale).
    pub fn host_write<R>(&self, f: impl FnOnce(*mut u8) -> R) -> Result<R> {
        let mut st = self.lock();
        st.check_borrow(true, "write the array on the host")?;
        self.host_ready(&mut st, true, crate::profiler::HOST_READ)?;
        Ok(f(st.host.ptr()))
    }

    /// Borrows the valid host copy (shared for reading, exclusive for writing) until
    /// [`release_host`](Self::release_host). Used by host views and CPU launches. With
    /// [`Access::Write`] (`'nocopy`) stale data is not downloaded first.
    pub fn borrow_host(&self, access: Access, label: &str) -> Result<*mut u8> {
        let mut st = self.lock();
        let what = if access.writes() { "borrow the array mutably" } else { "borrow the array" };
        st.check_borrow(access.writes(), what)?;
        self.host_ready_for(&mut st, access, label)?;
        if access.writes() {
            st.exclusive = true;
        } else {
            st.shared += 1;
        }
        Ok(st.host.ptr())
    }

    /// Ends a [`borrow_host`](Self::borrow_host).
    pub fn release_host(&self, access: Access) {
        let mut st = self.lock();
        if access.writes() {
            st.exclusive = false;
        } else {
            st.shared = st.shared.saturating_sub(1);
        }
    }

    /// Waits for every operation on the buffer.
    pub fn sync(&self) -> Result<()> {
        let mut st = self.lock();
        st.wait(true)
    }

    /// Whether the host copy is valid (false when the lock is taken: then it is in use).
    pub fn host_is_valid(&self) -> bool {
        self.state.try_lock().is_ok_and(|st| st.host_valid)
    }

    /// This buffer's block on `dev`, if it has one there, and whether it is busy (pinned by
    /// a launch, used by an operation in flight, or locked right now).
    pub fn block_on(&self, dev: &GpuDevice) -> Option<BlockState> {
        let st = match self.state.try_lock() {
            Ok(g) => g,
            Err(TryLockError::Poisoned(e)) => e.into_inner(),
            Err(TryLockError::WouldBlock) => {
                return None;
            }
        };
        let d = st.dev.as_ref().filter(|d| d.dev.id() == dev.id())?;
        Some(BlockState { ptr: d.ptr, class: d.class, busy: st.pins > 0 || st.in_flight() })
    }

    /// Bytes a launch on `dev` would upload for this buffer with `access`.
    pub fn upload_cost(&self, dev: Option<&GpuDevice>, access: Access) -> usize {
        let st = self.lock();
        let on_dev = match (&st.dev, dev) {
            (Some(d), Some(dev)) => d.valid && d.dev.id() == dev.id(),
            _ => false,
        };
        if access.reads() && !on_dev {
            self.bytes
        } else {
            0
        }
    }

    /// Bytes a CPU launch would download for this buffer.
    pub fn download_cost(&self) -> usize {
        if self.lock().host_valid {
            0
        } else {
            self.bytes
        }
    }

    /// Makes the buffer usable by a launch on `dev` with `access`: allocates the device copy
    /// (possibly evicting others), uploads it if stale and read, and pins it. Returns its
    /// address and the fences the launch must wait for. Pair with
    /// [`finish_gpu`](Self::finish_gpu).
    pub fn prepare_gpu(
        self: &Arc<Self>,
        dev: &Arc<GpuDevice>,
        access: Access,
        label: &str,
    ) -> Result<(DevPtr, Vec<Fence>)> {
        let mut st = self.lock();
        st.check_borrow(access.writes(), "use the array in a GPU kernel")?;
        // A copy on another device: bring the data home first and give that copy back.
        if st.dev.as_ref().is_some_and(|d| d.dev.id() != dev.id()) {
            self.host_ready(&mut st, true, label)?;
            st.wait(true)?;
            if let Some(old) = st.dev.take() {
                old.dev.release(old.ptr, old.class);
            }
        }
        if st.dev.is_none() {
            let (ptr, class) = dev.alloc(self.bytes)?;
            st.dev = Some(DevCopy { dev: dev.clone(), ptr, class, valid: false });
            dev.register(Arc::downgrade(self));
        }
        let (ptr, valid) = st.dev.as_ref().map(|d| (d.ptr, d.valid)).expect("just ensured");
        if !valid {
            if access.reads() {
                if !st.host_valid {
                    return Err(internal("no valid copy of a buffer"));
                }
                let deps = st.deps(true);
                // SAFETY: the host block is not written before this fence completes: host
                // writes wait for all readers and writers.
                let f = unsafe { dev.backend().upload(ptr, st.host.ptr(), self.bytes, &deps)? };
                dev.profiler().transfer(label, dev.name(), self.bytes as u64, 0);
                st.record(&f, true);
            }
            if let Some(d) = st.dev.as_mut() {
                d.valid = true;
            }
        }
        st.pins += 1;
        self.touch();
        Ok((ptr, st.deps(access.writes())))
    }

    /// Ends a [`prepare_gpu`](Self::prepare_gpu): records the launch's fence (if it was
    /// launched) and unpins.
    pub fn finish_gpu(&self, fence: Option<&Fence>, access: Access) {
        let mut st = self.lock();
        st.pins = st.pins.saturating_sub(1);
        if let Some(f) = fence {
            st.record(f, access.writes());
            if access.writes() {
                st.host_valid = false;
            }
        }
    }

    /// Moves the buffer's copy on `dev` to the host if it is idle (not pinned, nothing in
    /// flight, lock free). Returns the freed block.
    pub fn try_evict(&self, dev: &GpuDevice) -> Option<(DevPtr, usize)> {
        let mut st = match self.state.try_lock() {
            Ok(g) => g,
            Err(TryLockError::Poisoned(e)) => e.into_inner(),
            Err(TryLockError::WouldBlock) => return None,
        };
        if st.pins > 0 || st.dev.as_ref().is_none_or(|d| d.dev.id() != dev.id()) {
            return None;
        }
        st.prune();
        if st.in_flight() || st.last_writer.is_some() || !st.readers.is_empty() {
            return None;
        }
        if !st.host_valid {
            if st.shared > 0 || st.exclusive {
                return None;
            }
            let ptr = st.dev.as_ref()?.ptr;
            // SAFETY: nothing is in flight and the host block is not borrowed; we wait below.
            let f = unsafe { dev.backend().download(st.host.ptr(), ptr, self.bytes, &[]) }.ok()?;
            f.wait().ok()?;
            dev.profiler().transfer(crate::profiler::EVICTION, dev.name(), 0, self.bytes as u64);
            st.host_valid = true;
        }
        let d = st.dev.take()?;
        Some((d.ptr, d.class))
    }
}

impl Drop for Buffer {
    fn drop(&mut self) {
        let st = self.state.get_mut().unwrap_or_else(|e| e.into_inner());
        let mut pending: Vec<Fence> = st.last_writer.take().into_iter().collect();
        pending.append(&mut st.readers);
        pending.retain(|f| !f.is_complete());
        match st.dev.take() {
            Some(d) if pending.is_empty() => d.dev.release(d.ptr, d.class),
            Some(d) => {
                let host = std::mem::replace(&mut st.host, HostMem::empty());
                d.dev.bury(pending, Some((d.ptr, d.class)), host);
            }
            None => {
                // Nothing on a device can still use the host block, but be safe.
                let _ = wait_all(&pending);
            }
        }
    }
}

fn internal(what: &str) -> Error {
    Error::Unsupported(format!("internal error in the residency manager: {what}"))
}
