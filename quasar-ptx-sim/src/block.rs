//! A block: its warps run in turn, each until it waits (at `bar.sync`, for other lanes of a
//! warp-synchronous instruction) or exits; when no warp can run, either every live thread
//! waits at the same `bar.sync` (the barrier completes), or the block is stuck (reported).

use crate::error::{Fault, FaultKind};
use crate::launch::Ctx;
use crate::memory::Shared;
use crate::warp::{lanes, Exec, Warp};

/// The warps and shared memory of a block, reused for the blocks one host thread runs.
pub(crate) struct BlockRunner {
    warps: Vec<Warp>,
    shared: Shared,
}

impl BlockRunner {
    pub fn new(cx: &Ctx<'_>) -> BlockRunner {
        let threads = cx.block.iter().product::<u32>();
        let e = cx.entry;
        let warps =
            (0..threads.div_ceil(32)).map(|_| Warp::new(e.nregs, &e.consts, e.npreds)).collect();
        BlockRunner { warps, shared: Shared::new(cx.shared_bytes) }
    }

    /// The `%tid` of thread `lin` of the block.
    fn tid(cx: &Ctx<'_>, lin: u32) -> [u32; 3] {
        let b = cx.block;
        [lin % b[0], lin / b[0] % b[1], lin / (b[0] * b[1])]
    }

    fn fault(cx: &Ctx<'_>, block: [u32; 3], lin: u32, pc: u32, kind: FaultKind) -> Box<Fault> {
        let e = cx.entry;
        Box::new(Fault {
            kernel: e.name.clone(),
            line: e.lines.get(pc as usize).copied().unwrap_or(0),
            instruction: e.texts.get(pc as usize).cloned().unwrap_or_default(),
            block,
            thread: Self::tid(cx, lin),
            kind,
        })
    }

    /// Runs block `block` to completion.
    pub fn run(&mut self, cx: &Ctx<'_>, block: [u32; 3]) -> Result<(), Box<Fault>> {
        let threads = cx.block.iter().product::<u32>();
        for (k, w) in self.warps.iter_mut().enumerate() {
            let lin0 = 32 * k as u32;
            let n = (threads - lin0).min(32);
            w.reset(lin0, if n == 32 { u32::MAX } else { (1u32 << n) - 1 });
        }
        self.shared.reset(cx.shared_bytes);
        loop {
            for w in self.warps.iter_mut() {
                if w.runnable() == 0 && w.parked == 0 {
                    continue;
                }
                let mut x = Exec { cx, shared: &mut self.shared, block, pc: 0 };
                w.run(&mut x)
                    .map_err(|(kind, lane, pc)| Self::fault(cx, block, w.lin0 + lane, pc, kind))?;
            }
            if self.warps.iter().all(|w| w.live() == 0) {
                return Ok(());
            }
            self.complete_barrier(cx, block)?;
        }
    }

    /// No warp can run: every live thread must wait at the same `bar.sync`, which completes.
    fn complete_barrier(&mut self, cx: &Ctx<'_>, block: [u32; 3]) -> Result<(), Box<Fault>> {
        let e = cx.entry;
        let mut bar_pcs: Vec<(u32, u32)> = Vec::new(); // (pc, first thread)
        let mut parked: Option<(u32, u32)> = None;
        for w in &self.warps {
            for l in lanes(w.at_bar) {
                let pc = w.pc[l];
                if !bar_pcs.iter().any(|b| b.0 == pc) {
                    bar_pcs.push((pc, w.lin0 + l as u32));
                }
            }
            if let Some(l) = lanes(w.parked).next() {
                parked.get_or_insert((w.pc[l], w.lin0 + l as u32));
            }
        }
        if let Some((pc, lin)) = parked {
            let waits: Vec<String> =
                bar_pcs.iter().map(|b| format!("line {}", e.lines[b.0 as usize])).collect();
            let msg = format!(
                "threads wait at this warp-synchronous instruction for lanes of their membermask \
                 that wait at bar.sync ({})",
                if waits.is_empty() { "none".into() } else { waits.join(", ") }
            );
            return Err(Self::fault(cx, block, lin, pc, FaultKind::Deadlock(msg)));
        }
        if bar_pcs.is_empty() {
            let msg = "no thread can run and none waits at a barrier".to_string();
            return Err(Self::fault(cx, block, 0, 0, FaultKind::Deadlock(msg)));
        }
        if bar_pcs.len() > 1 {
            let mut lines: Vec<u32> = bar_pcs.iter().map(|b| e.lines[b.0 as usize]).collect();
            lines.sort_unstable();
            let (pc, lin) = bar_pcs[1];
            return Err(Self::fault(cx, block, lin, pc, FaultKind::BarrierMismatch { lines }));
        }
        for w in self.warps.iter_mut() {
            for l in lanes(w.at_bar) {
                w.pc[l] += 1;
            }
            w.at_bar = 0;
        }
        Ok(())
    }
}
