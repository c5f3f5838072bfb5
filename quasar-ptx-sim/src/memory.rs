//! Memory: the global buffers of a launch (every access checked against them and for
//! alignment; loads, stores and atomics are host atomics, so blocks on different host threads
//! never race in the Rust sense and atomics are indivisible) and a block's shared memory.

use crate::error::{FaultKind, Space};
use crate::inst::{AtomOp, Ty};
use std::sync::atomic::{AtomicU16, AtomicU32, AtomicU64, AtomicU8, Ordering::Relaxed};

/// A buffer a kernel may access: its device address, its length in bytes and a name for
/// messages. The interpreter reads and writes it at the address itself (the simulated
/// device's addresses are host addresses).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Region {
    /// The first byte.
    pub addr: u64,
    /// Bytes.
    pub len: usize,
    /// What it is (e.g. "argument 2").
    pub name: String,
}

/// The device heap of a launch whose entry calls `malloc` (CUDA's default heap is 8 MiB): one
/// region, handed out by a bump pointer; `free` gives nothing back (the heap is dropped with
/// the launch), and an access past an allocation but inside the heap is not caught.
pub(crate) struct Heap {
    words: Vec<AtomicU64>,
    next: AtomicU64,
}

impl Heap {
    pub fn new(bytes: usize) -> Heap {
        Heap {
            words: (0..bytes.div_ceil(8)).map(|_| AtomicU64::new(0)).collect(),
            next: AtomicU64::new(0),
        }
    }

    /// The region the heap's allocations lie in.
    pub fn region(&self) -> Region {
        Region {
            addr: self.words.as_ptr() as u64,
            len: self.words.len() * 8,
            name: "the device heap (`malloc`)".into(),
        }
    }

    /// The address of `bytes` new bytes (16-byte aligned offsets), or 0 when they do not fit.
    pub fn alloc(&self, bytes: u64) -> u64 {
        let size = bytes.max(1).next_multiple_of(16);
        let cap = (self.words.len() * 8) as u64;
        let at = self.next.fetch_add(size, Relaxed);
        match at.checked_add(size) {
            Some(end) if end <= cap => self.words.as_ptr() as u64 + at,
            _ => 0,
        }
    }
}

/// The global memory a launch may touch.
pub(crate) struct Global {
    regions: Vec<Region>,
}

fn misaligned(space: Space, address: u64, bytes: u32) -> Option<FaultKind> {
    (!address.is_multiple_of(u64::from(bytes))).then_some(FaultKind::Misaligned {
        space,
        address,
        bytes,
    })
}

impl Global {
    pub fn new(mut regions: Vec<Region>) -> Global {
        regions.retain(|r| r.len > 0);
        regions.sort_by_key(|r| r.addr);
        Global { regions }
    }

    /// Checks that `[addr, addr + bytes)` lies in one region and is aligned.
    pub fn check(&self, addr: u64, bytes: u32) -> Result<(), FaultKind> {
        let i = self.regions.partition_point(|r| r.addr <= addr);
        if i > 0 {
            let r = &self.regions[i - 1];
            if addr.checked_add(u64::from(bytes)).is_some_and(|end| end <= r.addr + r.len as u64) {
                return misaligned(Space::Global, addr, bytes).map_or(Ok(()), Err);
            }
        }
        Err(FaultKind::OutOfBounds {
            space: Space::Global,
            address: addr,
            bytes,
            nearest: self.nearest(addr),
        })
    }

    /// The region closest to `addr`, described.
    fn nearest(&self, addr: u64) -> String {
        let dist = |r: &Region| {
            if addr < r.addr {
                r.addr - addr
            } else {
                addr.saturating_sub(r.addr + r.len as u64 - 1)
            }
        };
        match self.regions.iter().min_by_key(|r| dist(r)) {
            None => "the launch has no buffers".into(),
            Some(r) => {
                let rel = addr as i128 - r.addr as i128;
                format!("{} is [{:#x}, +{}), this is at offset {rel}", r.name, r.addr, r.len)
            }
        }
    }

    /// Loads `ty` at a checked address.
    ///
    /// # Safety
    /// `addr` was checked by [`check`](Self::check) and the regions are live memory.
    pub unsafe fn load(&self, addr: u64, bytes: u32) -> u64 {
        let p = addr as usize;
        match bytes {
            1 => u64::from((*(p as *const AtomicU8)).load(Relaxed)),
            2 => u64::from((*(p as *const AtomicU16)).load(Relaxed)),
            4 => u64::from((*(p as *const AtomicU32)).load(Relaxed)),
            _ => (*(p as *const AtomicU64)).load(Relaxed),
        }
    }

    /// Stores the low `bytes` bytes of `v` at a checked address.
    ///
    /// # Safety
    /// As for [`load`](Self::load).
    pub unsafe fn store(&self, addr: u64, bytes: u32, v: u64) {
        let p = addr as usize;
        match bytes {
            1 => (*(p as *const AtomicU8)).store(v as u8, Relaxed),
            2 => (*(p as *const AtomicU16)).store(v as u16, Relaxed),
            4 => (*(p as *const AtomicU32)).store(v as u32, Relaxed),
            _ => (*(p as *const AtomicU64)).store(v, Relaxed),
        }
    }

    /// An atomic read-modify-write at a checked address; returns the old value.
    ///
    /// # Safety
    /// As for [`load`](Self::load).
    pub unsafe fn atomic(&self, addr: u64, op: AtomOp, ty: Ty, b: u64, c: u64) -> u64 {
        let p = addr as usize;
        if ty.bits() == 32 {
            let a = &*(p as *const AtomicU32);
            let f = |old: u32| Some(atom_apply(op, ty, u64::from(old), b, c, true) as u32);
            u64::from(a.fetch_update(Relaxed, Relaxed, f).unwrap_or_else(|v| v))
        } else {
            let a = &*(p as *const AtomicU64);
            let f = |old: u64| Some(atom_apply(op, ty, old, b, c, true));
            a.fetch_update(Relaxed, Relaxed, f).unwrap_or_else(|v| v)
        }
    }
}

/// The new value of an atomic operation on `old`. `global`: `atom.global.add.f32` flushes
/// subnormal inputs and results to sign-preserving zero (the PTX ISA's note on `atom`).
pub(crate) fn atom_apply(op: AtomOp, ty: Ty, old: u64, b: u64, c: u64, global: bool) -> u64 {
    let m = ty.mask();
    let (so, sb) = (ty.extend(old) as i64, ty.extend(b) as i64);
    let (uo, ub) = (old & m, b & m);
    let r = match op {
        AtomOp::Add => match ty {
            Ty::F(32) => {
                let ftz = |x: f32| if global && x.is_subnormal() { 0.0f32.copysign(x) } else { x };
                let s = ftz(ftz(f32::from_bits(uo as u32)) + ftz(f32::from_bits(ub as u32)));
                crate::fp::canon32(s)
            }
            Ty::F(64) => crate::fp::canon64(f64::from_bits(uo) + f64::from_bits(ub)),
            _ => uo.wrapping_add(ub),
        },
        AtomOp::Min if ty.is_signed() => so.min(sb) as u64,
        AtomOp::Max if ty.is_signed() => so.max(sb) as u64,
        AtomOp::Min => uo.min(ub),
        AtomOp::Max => uo.max(ub),
        AtomOp::And => uo & ub,
        AtomOp::Or => uo | ub,
        AtomOp::Xor => uo ^ ub,
        AtomOp::Exch => ub,
        AtomOp::Cas => {
            if uo == ub {
                c & m
            } else {
                uo
            }
        }
        AtomOp::Inc => {
            if uo >= ub {
                0
            } else {
                uo + 1
            }
        }
        AtomOp::Dec => {
            if uo == 0 || uo > ub {
                ub
            } else {
                uo - 1
            }
        }
    };
    r & m
}

/// A block's shared memory (static arrays, then the dynamic array).
pub(crate) struct Shared {
    bytes: Vec<u8>,
}

impl Shared {
    pub fn new(len: usize) -> Shared {
        // Not zeroed on a GPU: fill with a pattern so that reads before writes show.
        Shared { bytes: vec![0xA5; len] }
    }

    pub fn reset(&mut self, len: usize) {
        self.bytes.clear();
        self.bytes.resize(len, 0xA5);
    }

    pub fn check(&self, addr: u64, bytes: u32) -> Result<(), FaultKind> {
        if addr.checked_add(u64::from(bytes)).is_none_or(|e| e > self.bytes.len() as u64) {
            return Err(FaultKind::OutOfBounds {
                space: Space::Shared,
                address: addr,
                bytes,
                nearest: format!("the block has {} bytes of shared memory", self.bytes.len()),
            });
        }
        misaligned(Space::Shared, addr, bytes).map_or(Ok(()), Err)
    }

    /// Loads at a checked address.
    pub fn load(&self, addr: u64, bytes: u32) -> u64 {
        let a = addr as usize;
        let mut b = [0u8; 8];
        b[..bytes as usize].copy_from_slice(&self.bytes[a..a + bytes as usize]);
        u64::from_le_bytes(b)
    }

    /// Stores at a checked address.
    pub fn store(&mut self, addr: u64, bytes: u32, v: u64) {
        let a = addr as usize;
        self.bytes[a..a + bytes as usize].copy_from_slice(&v.to_le_bytes()[..bytes as usize]);
    }
}
