//! The PTX mode of the simulated GPU (feature `ptx-sim`, `QUASAR_SIM_GPU=ptx`): launches run
//! the kernel's embedded PTX on the interpreter of `quasar-ptx-sim`, exactly as
//! `device/cuda.rs` hands it to the driver: the module is loaded once per text (its
//! `.global` variables zeroed), the parameters are packed by [`pack_params`] and checked
//! against the entry's `.param` declarations, grid and block come from
//! [`LaunchConfig::cuda_grid_block`], and the dynamic shared memory is `Kernel::shared_bytes`.
//! A kernel that can fail writes the launch's error word (the device front end reads it).
//!
//! The kernel may touch only the buffers of its arguments, its error word and the module's
//! variables: any other access fails the launch with the kernel, PTX line, instruction and
//! address.

use crate::device::{DeviceArg, DeviceLaunch};
use crate::error::{Error, Result};
use crate::launch::LaunchConfig;
use crate::ptx::{pack_params, ERROR_WORDS};
use quasar_ptx_sim::{Approx, Globals, Launch, Module, Options, Region};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// A loaded module: the decoded PTX and its `.global` variables.
pub(super) struct Loaded {
    module: Module,
    globals: Globals,
}

/// The interpreter's side of the simulated device.
pub(super) struct PtxDevice {
    modules: Mutex<HashMap<(usize, usize), Arc<Loaded>>>,
    opts: Options,
}

/// A launch ready to run on a stream.
pub(super) type PtxWork = Box<dyn FnOnce() -> std::result::Result<(), Error> + Send>;

impl PtxDevice {
    /// The interpreter with `QUASAR_PTX_APPROX=bounds` honoured (`.approx` functions at the
    /// ISA's error bounds instead of exact).
    pub fn from_env() -> PtxDevice {
        let approx = match std::env::var("QUASAR_PTX_APPROX").as_deref() {
            Ok("bounds") => Approx::Bounds,
            _ => Approx::Exact,
        };
        PtxDevice {
            modules: Mutex::new(HashMap::new()),
            opts: Options { approx, ..Options::default() },
        }
    }

    /// The module of `ptx`, parsed on first use (cached by the text's address, as CUDA's are).
    fn load(&self, ptx: &'static str, kernel: &str) -> Result<Arc<Loaded>> {
        let key = (ptx.as_ptr() as usize, ptx.len());
        let mut m = self.modules.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(l) = m.get(&key) {
            return Ok(l.clone());
        }
        let module = Module::parse(ptx).map_err(|e| Error::KernelFailed {
            kernel: kernel.into(),
            device: "the PTX interpreter".into(),
            message: format!("its PTX module does not load: {e}"),
        })?;
        let globals = Globals::new(&module);
        let l = Arc::new(Loaded { module, globals });
        m.insert(key, l.clone());
        Ok(l)
    }

    /// Prepares the launch `l` (packing and checks happen now, as before `cuLaunchKernel`);
    /// the returned work runs it.
    pub fn launch(&self, l: &DeviceLaunch<'_>, device: &str) -> Result<PtxWork> {
        let k = l.kernel;
        let ptx =
            k.ptx.ok_or_else(|| Error::Unsupported(format!("kernel `{}` has no PTX", k.name)))?;
        let params = pack_params(k, l.cfg.dims(), l.args, l.error_word)?;
        let loaded = self.load(ptx, k.name)?;
        let (grid, block) = grid_block(l.cfg);
        let dynamic_shared = (k.shared_bytes)(&l.cfg.blkdim()[..l.cfg.ndim()]);
        let regions = regions(l);
        let (entry, name, opts) = (k.entry_name(), k.name, self.opts.clone());
        let device = device.to_string();
        Ok(Box::new(move || {
            let launch =
                Launch { entry, grid, block, dynamic_shared, params: &params, buffers: &regions };
            // SAFETY: the regions are the launch's buffers, claimed (kept alive) by the
            // simulated device until this work completes.
            let report = unsafe { loaded.module.launch(&loaded.globals, &launch, &opts) };
            match report {
                Ok(r) => {
                    log_launch(ptx, entry);
                    for w in r.warnings {
                        log::warn!("quasar: {w}");
                    }
                    Ok(())
                }
                Err(e) => {
                    Err(Error::KernelFailed { kernel: name.into(), device, message: e.to_string() })
                }
            }
        }))
    }
}

/// With `QUASAR_PTX_LOG=FILE`, appends the fingerprint and name of each entry that ran to
/// FILE (one line each; tests/ptx_coverage.rs matches them with the entries the project's
/// sources emit). Best effort: a log that cannot be written does not fail the launch.
fn log_launch(ptx: &str, entry: &str) {
    use std::io::Write;
    let Some(path) = std::env::var_os("QUASAR_PTX_LOG").filter(|p| !p.is_empty()) else {
        return;
    };
    let Some(fp) = quasar_ptx_sim::coverage::fingerprint(ptx, entry) else { return };
    // One `write` of a short line to a file opened for appending: lines of concurrent
    // launches and test processes do not interleave.
    let line = format!("{fp:016x}\t{entry}\n");
    if let Ok(mut f) = std::fs::OpenOptions::new().create(true).append(true).open(path) {
        let _ = f.write_all(line.as_bytes());
    }
}

/// CUDA's grid and block of a launch, as `u32`s.
fn grid_block(cfg: &LaunchConfig) -> ([u32; 3], [u32; 3]) {
    let (g, b) = cfg.cuda_grid_block();
    let c = |v: [usize; 3]| v.map(|x| u32::try_from(x).unwrap_or(u32::MAX));
    (c(g), c(b))
}

/// The buffers a launch may touch: its arrays, output slots and error word.
fn regions(l: &DeviceLaunch<'_>) -> Vec<Region> {
    let mut out = Vec::new();
    let (mut k, mut o) = (0, 0);
    for a in l.args {
        match a {
            DeviceArg::Array { ptr, shape, elem } => {
                out.push(Region {
                    addr: ptr.0,
                    len: shape.numel() * elem.size,
                    name: format!("argument {k} ({:?} of {})", shape.dims(), elem.name),
                });
                k += 1;
            }
            DeviceArg::Scalar { .. } => k += 1,
            DeviceArg::Output { ptr, spec } => {
                out.push(Region { addr: ptr.0, len: spec.size(), name: format!("output {o}") });
                o += 1;
            }
        }
    }
    if let Some(w) = l.error_word {
        out.push(Region { addr: w.0, len: 4 * ERROR_WORDS, name: "the error word".into() });
    }
    out
}

/// The `(address, bytes)` ranges the simulated device claims for a launch.
pub(super) fn claimed(l: &DeviceLaunch<'_>) -> Vec<(u64, usize)> {
    regions(l).into_iter().map(|r| (r.addr, r.len)).collect()
}
