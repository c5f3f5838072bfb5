//! Launching an entry: the parameter bytes checked against the `.param` declarations and laid
//! out, the launch's limits checked, blocks run in parallel on rayon's threads.

use crate::block::BlockRunner;
use crate::error::Error;
use crate::fp::Approx;
use crate::memory::{Global, Heap, Region};
use crate::parse::{Entry, Module};
use rayon::prelude::*;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};

/// Options of the interpreter.
#[derive(Clone, Debug)]
pub struct Options {
    /// How `.approx` functions are computed.
    pub approx: Approx,
    /// The most shared memory a block may have (static and dynamic), in bytes.
    pub max_shared_bytes: usize,
    /// The bytes of the device heap of a launch whose entry calls `malloc`.
    pub heap_bytes: usize,
}

impl Default for Options {
    fn default() -> Options {
        // sm_80 (the back end's `.target`): 163 KiB per block with the opt-in attribute.
        // The device heap: CUDA's default `cudaLimitMallocHeapSize`, 8 MiB.
        Options { approx: Approx::Exact, max_shared_bytes: 163 * 1024, heap_bytes: 8 << 20 }
    }
}

/// One launch of an entry, as `cuLaunchKernel` takes it.
#[derive(Clone, Debug)]
pub struct Launch<'a> {
    /// The `.entry`.
    pub entry: &'a str,
    /// Blocks per grid, `[x, y, z]`.
    pub grid: [u32; 3],
    /// Threads per block, `[x, y, z]`.
    pub block: [u32; 3],
    /// Bytes of dynamic shared memory.
    pub dynamic_shared: usize,
    /// The parameters' bytes, one vector per `.param` in order.
    pub params: &'a [Vec<u8>],
    /// The global memory the kernel may access (besides the module's variables).
    pub buffers: &'a [Region],
}

/// What a launch noticed without failing.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// One line per kind of event, naming the first instruction where it happened.
    pub warnings: Vec<String>,
}

/// Events that do not stop a kernel.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Flag {
    /// Integer division or remainder by zero (the result is machine-specific).
    DivByZero,
    /// `sin.approx`/`cos.approx` outside the range where the ISA bounds their error.
    SinCosRange,
}

#[derive(Default)]
pub(crate) struct Flags {
    counts: [AtomicU64; 2],
    first: [AtomicU32; 2],
}

impl Flags {
    pub fn note(&self, f: Flag, pc: u32) {
        let k = f as usize;
        self.counts[k].fetch_add(1, Relaxed);
        let _ = self.first[k].compare_exchange(0, pc + 1, Relaxed, Relaxed);
    }

    fn report(&self, e: &Entry) -> Report {
        let what = [
            "integer division by zero",
            "sin.approx/cos.approx of |x| > 100π (error not bounded by the ISA)",
        ];
        let mut warnings = Vec::new();
        for (k, w) in what.iter().enumerate() {
            let n = self.counts[k].load(Relaxed);
            if n > 0 {
                let pc = self.first[k].load(Relaxed) as usize - 1;
                warnings.push(format!(
                    "kernel `{}`: {w} in {n} warp instruction(s), first at PTX line {} `{}`",
                    e.name, e.lines[pc], e.texts[pc]
                ));
            }
        }
        Report { warnings }
    }
}

/// Everything a running block reads.
pub(crate) struct Ctx<'a> {
    pub entry: &'a Entry,
    pub params: &'a [u8],
    pub global: &'a Global,
    /// Addresses of the module's `.global` variables.
    pub globals: &'a [u64],
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub shared_bytes: usize,
    pub opts: &'a Options,
    pub flags: &'a Flags,
    /// The device heap, when the entry calls `malloc`.
    pub heap: Option<&'a Heap>,
}

/// Storage of a module's `.global` variables: what a module load allocates (zeroed), read and
/// written by the host between launches (`cuModuleGetGlobal`).
#[derive(Debug)]
pub struct Globals {
    words: Box<[AtomicU64]>,
    vars: Vec<(String, usize, usize)>,
}

impl Globals {
    /// Zeroed storage for `m`'s variables.
    pub fn new(m: &Module) -> Globals {
        let mut off = 0;
        let mut vars = Vec::new();
        for g in &m.globals {
            off = usize::next_multiple_of(off, g.align.max(8));
            vars.push((g.name.clone(), off, g.size));
            off += g.size;
        }
        let words = (0..off.div_ceil(8).max(1)).map(|_| AtomicU64::new(0)).collect();
        Globals { words, vars }
    }

    fn base(&self) -> u64 {
        self.words.as_ptr() as u64
    }

    fn var(&self, name: &str) -> Option<(usize, usize)> {
        self.vars.iter().find(|v| v.0 == name).map(|v| (v.1, v.2))
    }

    /// The bytes of variable `name`.
    pub fn read(&self, name: &str) -> Option<Vec<u8>> {
        let (off, size) = self.var(name)?;
        let all: Vec<u8> = self.words.iter().flat_map(|w| w.load(Relaxed).to_le_bytes()).collect();
        Some(all[off..off + size].to_vec())
    }

    /// Overwrites variable `name` with `bytes` (its size); whether it exists and fits.
    pub fn write(&self, name: &str, bytes: &[u8]) -> bool {
        let Some((off, size)) = self.var(name).filter(|v| v.1 == bytes.len()) else { return false };
        for (k, b) in bytes.iter().enumerate() {
            let (w, s) = ((off + k) / 8, (off + k) % 8);
            let m = !(0xFFu64 << (8 * s));
            let _ = self.words[w]
                .fetch_update(Relaxed, Relaxed, |v| Some(v & m | u64::from(*b) << (8 * s)));
        }
        let _ = size;
        true
    }
}

fn launch_err(entry: &str, message: String) -> Error {
    Error::Launch { entry: entry.into(), message }
}

impl Module {
    /// Parses `text`; anything outside the supported subset is an error naming its line.
    pub fn parse(text: &str) -> Result<Module, crate::ParseError> {
        crate::parse::parse_module(text)
    }

    /// The entry called `name`.
    pub fn entry(&self, name: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.name == name)
    }

    /// Runs a launch to completion.
    ///
    /// # Safety
    /// Every buffer of `l` is live memory at its address for the whole call, which no one
    /// else accesses except through atomic operations (other launches' threads).
    pub unsafe fn launch(
        &self,
        globals: &Globals,
        l: &Launch<'_>,
        opts: &Options,
    ) -> Result<Report, Error> {
        let bad = |m: String| launch_err(l.entry, m);
        let e = self.entry(l.entry).ok_or_else(|| bad("no such entry in the module".into()))?;
        if l.params.len() != e.params.len() {
            return Err(bad(format!(
                "{} parameters given, the entry declares {}",
                l.params.len(),
                e.params.len()
            )));
        }
        let mut params = vec![0u8; e.param_bytes];
        for (p, bytes) in e.params.iter().zip(l.params) {
            if bytes.len() != p.size {
                return Err(bad(format!(
                    "parameter `{}` is declared `.param {}` ({} bytes) but {} bytes are given",
                    p.name,
                    p.decl,
                    p.size,
                    bytes.len()
                )));
            }
            params[p.offset..p.offset + p.size].copy_from_slice(bytes);
        }
        let threads = l.block.iter().map(|&b| u64::from(b)).product::<u64>();
        if threads == 0 || threads > 1024 || l.block[2] > 64 {
            return Err(bad(format!(
                "block {:?} is not a valid block (1 to 1024 threads, z ≤ 64)",
                l.block
            )));
        }
        if l.grid.contains(&0)
            || l.grid[0] > i32::MAX as u32
            || l.grid[1] > 65535
            || l.grid[2] > 65535
        {
            return Err(bad(format!("grid {:?} is not a valid grid", l.grid)));
        }
        let shared_bytes = e.dynamic_offset + l.dynamic_shared;
        if e.static_shared.max(shared_bytes) > opts.max_shared_bytes {
            return Err(bad(format!(
                "{} bytes of shared memory ({} static, {} dynamic), at most {} allowed",
                shared_bytes, e.static_shared, l.dynamic_shared, opts.max_shared_bytes
            )));
        }
        let mut regions = l.buffers.to_vec();
        let mut addrs = Vec::new();
        for (name, off, size) in &globals.vars {
            addrs.push(globals.base() + *off as u64);
            regions.push(Region {
                addr: globals.base() + *off as u64,
                len: *size,
                name: format!("`{name}`"),
            });
        }
        let heap = e.calls_malloc.then(|| Heap::new(opts.heap_bytes));
        if let Some(h) = &heap {
            regions.push(h.region());
        }
        let global = Global::new(regions);
        let flags = Flags::default();
        let cx = Ctx {
            entry: e,
            params: &params,
            global: &global,
            globals: &addrs,
            grid: l.grid,
            block: l.block,
            shared_bytes,
            opts,
            flags: &flags,
            heap: heap.as_ref(),
        };
        let [gx, gy, gz] = l.grid;
        let n = u64::from(gx) * u64::from(gy) * u64::from(gz);
        let block_of = |b: u64| {
            [
                (b % u64::from(gx)) as u32,
                (b / u64::from(gx) % u64::from(gy)) as u32,
                (b / (u64::from(gx) * u64::from(gy))) as u32,
            ]
        };
        (0..n)
            .into_par_iter()
            .try_for_each_init(|| BlockRunner::new(&cx), |r, b| r.run(&cx, block_of(b)))
            .map_err(Error::Fault)?;
        Ok(flags.report(e))
    }
}
