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
//! * pins (GPU launches being prepared) and host borrows (views and CPU kernels, `RefCell`-like:
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
use crate::profiler::{ArrayRef, TransferNote, TransferReason};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock, TryLockError};

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
    /// GPU launches being prepared (from `prepare_gpu` to `finish_gpu`): readers, or one
    /// writer. A writer's launch is ordered after the others only once its fence is recorded,
    /// so conflicting accesses wait until then.
    pins: u32,
    pin_exclusive: bool,
    /// Host views: readers, or one writer.
    shared: u32,
    exclusive: bool,
    /// CPU kernels running on the host copy: readers, or one writer.
    kernel_shared: u32,
    kernel_exclusive: bool,
    /// The device the copy was last evicted from.
    evicted_from: Option<u64>,
    /// Every element is zero and nothing has written the buffer since it was made: a device
    /// copy is then cleared on the device instead of uploaded.
    zero: bool,
    /// Threads waiting on `Buffer::released`: a release signals only when there are some (a
    /// signal is a system call, a fifth of a small CPU launch's fixed cost).
    waiters: u32,
}

/// What stands in the way of a host access.
enum Conflict {
    None,
    /// A host view: an error (it may live for as long as its owner likes).
    View(&'static str),
    /// A CPU kernel, or a GPU launch being prepared, in another thread: wait until it is
    /// done (both are short).
    Kernel,
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

    fn conflict(&self, writes: bool) -> Conflict {
        if self.exclusive {
            return Conflict::View("the array is mutably borrowed (a mutable host view)");
        }
        if writes && self.shared > 0 {
            return Conflict::View("the array is borrowed for reading (a host view)");
        }
        if self.kernel_exclusive || (writes && self.kernel_shared > 0) {
            return Conflict::Kernel;
        }
        if self.pin_exclusive || (writes && self.pins > 0) {
            return Conflict::Kernel;
        }
        Conflict::None
    }

    fn pinned(&self) -> bool {
        self.pins > 0 || self.pin_exclusive
    }

    fn host_borrowed(&self) -> bool {
        self.shared > 0 || self.exclusive || self.kernel_shared > 0 || self.kernel_exclusive
    }
}

/// The shared, type-erased storage behind an [`Array`](crate::Array).
pub(crate) struct Buffer {
    pub id: u64,
    pub bytes: usize,
    pub elem: ElemInfo,
    /// What the array is, for the profile: its first use as a kernel argument.
    label: OnceLock<String>,
    last_use: AtomicU64,
    state: Mutex<BufState>,
    /// Signalled when a CPU kernel releases the host copy or a GPU launch its pin.
    released: Condvar,
}

impl Buffer {
    pub fn new(host: HostMem, elem: ElemInfo) -> Arc<Buffer> {
        Self::with_zero(host, elem, false)
    }

    /// A buffer of zeros (`host` must be all zero bytes): its first device copy is cleared
    /// on the device, not uploaded.
    pub fn new_zeroed(host: HostMem, elem: ElemInfo) -> Arc<Buffer> {
        Self::with_zero(host, elem, true)
    }

    fn with_zero(host: HostMem, elem: ElemInfo, zero: bool) -> Arc<Buffer> {
        Arc::new(Buffer {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            bytes: host.bytes(),
            elem,
            label: OnceLock::new(),
            last_use: AtomicU64::new(CLOCK.fetch_add(1, Ordering::Relaxed)),
            state: Mutex::new(BufState {
                host,
                host_valid: true,
                dev: None,
                last_writer: None,
                readers: Vec::new(),
                pins: 0,
                pin_exclusive: false,
                shared: 0,
                exclusive: false,
                kernel_shared: 0,
                kernel_exclusive: false,
                evicted_from: None,
                zero,
                waiters: 0,
            }),
            released: Condvar::new(),
        })
    }

    fn lock(&self) -> MutexGuard<'_, BufState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The state, once no borrow conflicts with an access (`writes` or not): a host view in
    /// the way is [`Error::Borrowed`]; a CPU kernel or a GPU launch being prepared in another
    /// thread is waited for (every holder takes its buffers in buffer order, so waits form no
    /// cycle).
    fn lock_for(&self, writes: bool, what: &str) -> Result<MutexGuard<'_, BufState>> {
        self.lock_until(writes, what, |_| false)
    }

    /// As [`lock_for`](Self::lock_for), also waiting while `busy` says so.
    fn lock_until(
        &self,
        writes: bool,
        what: &str,
        busy: impl Fn(&BufState) -> bool,
    ) -> Result<MutexGuard<'_, BufState>> {
        let mut st = self.lock();
        loop {
            match st.conflict(writes) {
                Conflict::None if !busy(&st) => return Ok(st),
                Conflict::View(holder) => return Err(Error::borrowed(what, holder)),
                Conflict::None | Conflict::Kernel => st = self.wait_released(st),
            }
        }
    }

    /// Waits for the next release (counted in `waiters`, so that releases signal).
    fn wait_released<'a>(&'a self, mut st: MutexGuard<'a, BufState>) -> MutexGuard<'a, BufState> {
        st.waiters += 1;
        let mut st = self.released.wait(st).unwrap_or_else(|e| e.into_inner());
        st.waiters -= 1;
        st
    }

    /// Wakes the threads waiting for a release, if any (`st` is still locked, so a thread
    /// about to wait has either counted itself or will see the released state).
    fn notify_released(&self, st: &BufState) {
        if st.waiters > 0 {
            self.released.notify_all();
        }
    }

    /// Names the array after its first use as a kernel argument (for the profile).
    pub fn label_once(&self, label: impl FnOnce() -> String) {
        if self.label.get().is_none() {
            let _ = self.label.set(label());
        }
    }

    /// The array's label (empty when it was never a kernel argument).
    pub fn label(&self) -> &str {
        self.label.get().map_or("", String::as_str)
    }

    /// Records a transfer of the whole buffer in `dev`'s profile.
    fn note<'a>(&'a self, row: &'a str, reason: TransferReason) -> TransferNote<'a> {
        TransferNote {
            row,
            array: ArrayRef {
                id: self.id,
                label: self.label(),
                elem: self.elem.name,
                bytes: self.bytes,
            },
            reason,
        }
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
    fn host_ready(
        &self,
        st: &mut BufState,
        writes: bool,
        row: &str,
        reason: TransferReason,
    ) -> Result<()> {
        let access = if writes { Access::ReadWrite } else { Access::Read };
        self.host_ready_for(st, access, row, reason)
    }

    /// As [`host_ready`](Self::host_ready) for `access`: a write-only access (`'nocopy`) does
    /// not download stale data, it only waits until nothing uses the host block.
    fn host_ready_for(
        &self,
        st: &mut BufState,
        access: Access,
        row: &str,
        reason: TransferReason,
    ) -> Result<()> {
        let writes = access.writes();
        if !st.host_valid && !access.reads() {
            st.wait(true)?;
            st.host_valid = true;
        }
        if !st.host_valid {
            if st.host_borrowed() {
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
            let f = unsafe {
                dev.download(st.host.ptr(), ptr, self.bytes, &deps, &self.note(row, reason))?
            };
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
        let mut st = self.lock_for(false, "read the array on the host")?;
        self.host_ready(&mut st, false, HOST_READ, TransferReason::HostRead)?;
        Ok(f(st.host.ptr()))
    }

    /// Runs `f` on the valid host copy, for writing (the device copy becomes stale).
    pub fn host_write<R>(&self, f: impl FnOnce(*mut u8) -> R) -> Result<R> {
        let mut st = self.lock_for(true, "write the array on the host")?;
        self.host_ready(&mut st, true, HOST_READ, TransferReason::HostRead)?;
        st.zero = false;
        Ok(f(st.host.ptr()))
    }

    /// Borrows the valid host copy (shared for reading, exclusive for writing) until
    /// [`release_host`](Self::release_host): for a host view, or (`kernel`) for a CPU kernel
    /// launched with `row` as its name. With [`Access::Write`] (`'nocopy`) stale data is not
    /// downloaded first. A CPU kernel of another thread using the array is waited for.
    pub fn borrow_host(&self, access: Access, row: &str, kernel: bool) -> Result<*mut u8> {
        let what = if access.writes() { "borrow the array mutably" } else { "borrow the array" };
        let mut st = self.lock_for(access.writes(), what)?;
        // A CPU kernel reads on the host too: its downloads count on its row.
        self.host_ready_for(&mut st, access, row, TransferReason::HostRead)?;
        if access.writes() {
            st.zero = false;
        }
        match (kernel, access.writes()) {
            (false, true) => st.exclusive = true,
            (false, false) => st.shared += 1,
            (true, true) => st.kernel_exclusive = true,
            (true, false) => st.kernel_shared += 1,
        }
        Ok(st.host.ptr())
    }

    /// Ends a [`borrow_host`](Self::borrow_host).
    pub fn release_host(&self, access: Access, kernel: bool) {
        let mut st = self.lock();
        match (kernel, access.writes()) {
            (false, true) => st.exclusive = false,
            (false, false) => st.shared = st.shared.saturating_sub(1),
            (true, true) => st.kernel_exclusive = false,
            (true, false) => st.kernel_shared = st.kernel_shared.saturating_sub(1),
        }
        if kernel {
            self.notify_released(&st);
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
        Some(BlockState { ptr: d.ptr, class: d.class, busy: st.pinned() || st.in_flight() })
    }

    /// Bytes a launch on `dev` would copy for this buffer with `access`: the upload of a
    /// stale copy it reads, and the download first when the data is only on another GPU.
    pub fn upload_cost(&self, dev: Option<&GpuDevice>, access: Access) -> usize {
        let st = self.lock();
        let (on_dev, elsewhere) = match (&st.dev, dev) {
            (Some(d), Some(dev)) => (d.valid && d.dev.id() == dev.id(), d.dev.id() != dev.id()),
            _ => (false, false),
        };
        let up = if access.reads() && !on_dev && !st.zero { self.bytes } else { 0 };
        let down = if elsewhere && !st.host_valid { self.bytes } else { 0 };
        up + down
    }

    /// Whether the buffer has a valid copy on `dev`.
    pub fn valid_on(&self, dev: &GpuDevice) -> bool {
        self.lock().dev.as_ref().is_some_and(|d| d.valid && d.dev.id() == dev.id())
    }

    /// The buffer's bytes if it has a copy (valid or not) on `dev`, else 0.
    pub fn resident_on(&self, dev: &GpuDevice) -> usize {
        if self.lock().dev.as_ref().is_some_and(|d| d.dev.id() == dev.id()) {
            self.bytes
        } else {
            0
        }
    }

    /// `{!alloc mode=gpu}`: gives the buffer a zeroed copy on `dev`, the one kernels use (the
    /// host copy, zero as well, becomes stale).
    pub fn zero_on(self: &Arc<Self>, dev: &Arc<GpuDevice>) -> Result<()> {
        let (ptr, deps) = self.prepare_gpu(dev, Access::Write, "(alloc)")?;
        let f = dev.zero(ptr, self.bytes, &deps, "{!alloc mode=gpu}");
        self.finish_gpu(f.as_ref().ok(), Access::Write);
        f.map(|_| ())
    }

    /// `{!transfer target=cpu}`: makes the host copy valid now.
    pub fn fetch_to_host(&self) -> Result<()> {
        let mut st = self.lock_for(false, "transfer the array to the host")?;
        self.host_ready(&mut st, false, REQUESTED, TransferReason::Requested)
    }

    /// `{!transfer target=gpu}`: makes the copy on `dev` valid now (for `access`).
    pub fn fetch_to_device(self: &Arc<Self>, dev: &Arc<GpuDevice>, access: Access) -> Result<()> {
        self.prepare_gpu(dev, access, REQUESTED)?;
        self.finish_gpu(None, access);
        Ok(())
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
        row: &str,
    ) -> Result<(DevPtr, Vec<Fence>)> {
        // Moving the copy off another device waits until no launch there is being prepared
        // with it (launches that read it may share it otherwise).
        let elsewhere = |st: &BufState| st.dev.as_ref().is_some_and(|d| d.dev.id() != dev.id());
        let what = "use the array in a GPU kernel";
        let mut st = self.lock_until(access.writes(), what, |st| st.pinned() && elsewhere(st))?;
        let mut reason = TransferReason::StaleCopy;
        // A copy on another device: bring the data home first and give that copy back.
        if st.dev.as_ref().is_some_and(|d| d.dev.id() != dev.id()) {
            self.host_ready(&mut st, true, row, TransferReason::Migration)?;
            st.wait(true)?;
            if let Some(old) = st.dev.take() {
                old.dev.release(old.ptr, old.class);
            }
            reason = TransferReason::Migration;
        } else if st.dev.is_none() {
            reason = if st.evicted_from == Some(dev.id()) {
                TransferReason::Reload
            } else {
                TransferReason::FirstUse
            };
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
                let f = if st.zero {
                    // Nothing to copy: all zeros, cleared where it is needed.
                    dev.zero(ptr, self.bytes, &deps, "zeros")?
                } else {
                    // SAFETY: the host block is not written before this fence completes: host
                    // writes wait for all readers and writers.
                    let reason = if row == REQUESTED { TransferReason::Requested } else { reason };
                    let note = self.note(row, reason);
                    unsafe { dev.upload(ptr, st.host.ptr(), self.bytes, &deps, &note)? }
                };
                st.record(&f, true);
            }
            if let Some(d) = st.dev.as_mut() {
                d.valid = true;
            }
        }
        if access.writes() {
            st.pin_exclusive = true;
            st.zero = false;
        } else {
            st.pins += 1;
        }
        self.touch();
        Ok((ptr, st.deps(access.writes())))
    }

    /// Ends a [`prepare_gpu`](Self::prepare_gpu): records the launch's fence (if it was
    /// launched) and unpins.
    pub fn finish_gpu(&self, fence: Option<&Fence>, access: Access) {
        let mut st = self.lock();
        if access.writes() {
            st.pin_exclusive = false;
        } else {
            st.pins = st.pins.saturating_sub(1);
        }
        if let Some(f) = fence {
            st.record(f, access.writes());
            if access.writes() {
                st.host_valid = false;
            }
        }
        self.notify_released(&st);
    }

    /// Moves the buffer's copy on `dev` to the host if it is idle (not pinned, nothing in
    /// flight, lock free). Returns the freed block.
    pub fn try_evict(&self, dev: &GpuDevice) -> Option<(DevPtr, usize)> {
        let mut st = match self.state.try_lock() {
            Ok(g) => g,
            Err(TryLockError::Poisoned(e)) => e.into_inner(),
            Err(TryLockError::WouldBlock) => return None,
        };
        if st.pinned() || st.dev.as_ref().is_none_or(|d| d.dev.id() != dev.id()) {
            return None;
        }
        st.prune();
        if st.in_flight() || st.last_writer.is_some() || !st.readers.is_empty() {
            return None;
        }
        if !st.host_valid {
            if st.host_borrowed() {
                return None;
            }
            let ptr = st.dev.as_ref()?.ptr;
            let note = self.note(EVICTION, TransferReason::Eviction);
            // SAFETY: nothing is in flight and the host block is not borrowed; we wait below.
            let f = unsafe { dev.download(st.host.ptr(), ptr, self.bytes, &[], &note) }.ok()?;
            f.wait().ok()?;
            st.host_valid = true;
        }
        st.evicted_from = Some(dev.id());
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

const HOST_READ: &str = crate::profiler::HOST_READ;
const EVICTION: &str = crate::profiler::EVICTION;
const REQUESTED: &str = crate::profiler::REQUESTED;

fn internal(what: &str) -> Error {
    Error::Unsupported(format!("internal error in the residency manager: {what}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_host_access_waiting_for_a_cpu_kernel_wakes_when_it_releases() {
        let buf = Buffer::new(HostMem::zeroed(64, 64).unwrap(), ElemInfo::of::<f32>());
        // A CPU kernel writes the buffer; a view of it in another thread waits for it.
        buf.borrow_host(Access::Write, "k", true).unwrap();
        std::thread::scope(|s| {
            let reader = s.spawn(|| {
                buf.borrow_host(Access::Read, "view", false)?;
                buf.release_host(Access::Read, false);
                Ok::<_, Error>(())
            });
            while buf.lock().waiters == 0 {
                std::thread::yield_now();
            }
            buf.release_host(Access::Write, true);
            reader.join().expect("the reader thread").unwrap();
        });
        let st = buf.lock();
        assert_eq!((st.waiters, st.shared, st.kernel_exclusive), (0, 0, false));
    }
}
