//! A warp: 32 lanes in lockstep with a program counter each. The lanes that run together are
//! those at the smallest program counter among the runnable ones (min-PC scheduling): after a
//! divergent branch one side runs until it reaches the other side's counter, where the lanes
//! reconverge (for the structured code the back end emits, at the end of the `if` or loop).
//!
//! Warp-synchronous instructions (`shfl.sync`, `vote.sync`, `match.sync`, `bar.warp.sync`)
//! wait until every non-exited lane of their membermask has reached the same instruction;
//! lanes that arrive early are parked. `bar.sync` parks lanes until the block releases them
//! (`block.rs`).

use crate::error::FaultKind;
use crate::inst::{Inst, SReg, ShflMode, VoteMode};
use crate::launch::Ctx;
use crate::memory::Shared;

/// The state a running instruction needs besides the warp.
pub(crate) struct Exec<'a> {
    pub cx: &'a Ctx<'a>,
    pub shared: &'a mut Shared,
    pub block: [u32; 3],
    /// The instruction running (for flags).
    pub pc: u32,
}

impl Exec<'_> {
    /// Special register `s` of lane `l` of the warp whose lane 0 is thread `lin0` of the block.
    pub fn special(&self, s: SReg, lin0: u32, l: usize) -> u32 {
        let b = self.cx.block;
        let lin = lin0 + l as u32;
        let tid = [lin % b[0], lin / b[0] % b[1], lin / (b[0] * b[1])];
        match s {
            SReg::Tid(a) => tid[a as usize],
            SReg::Ntid(a) => b[a as usize],
            SReg::Ctaid(a) => self.block[a as usize],
            SReg::Nctaid(a) => self.cx.grid[a as usize],
            SReg::Laneid => l as u32,
        }
    }
    pub fn flag_div(&self, pc: u32) {
        self.cx.flags.note(crate::launch::Flag::DivByZero, pc);
    }
    pub fn flag_sincos(&self, pc: u32) {
        self.cx.flags.note(crate::launch::Flag::SinCosRange, pc);
    }
}

/// A warp's registers and lane states.
pub(crate) struct Warp {
    pub regs: Vec<u64>,
    pub preds: Vec<u32>,
    pub pc: [u32; 32],
    /// Lanes that exist (the block's last warp may be partial).
    pub valid: u32,
    pub exited: u32,
    /// Lanes waiting at a `bar.sync` (their counter is the barrier's).
    pub at_bar: u32,
    /// Lanes waiting at a warp-synchronous instruction (their counter is that instruction's).
    pub parked: u32,
    /// The linear thread index in the block of lane 0.
    pub lin0: u32,
}

/// Why a warp stopped running, or a fault with the lane it concerns.
pub(crate) type Fault = (FaultKind, u32, u32);

impl Warp {
    /// A warp with the entry's constants in their registers.
    pub fn new(nregs: usize, consts: &[u64], npreds: usize) -> Warp {
        let mut regs = vec![0u64; (nregs + consts.len()) * 32];
        for (k, &c) in consts.iter().enumerate() {
            regs[(nregs + k) * 32..(nregs + k + 1) * 32].fill(c);
        }
        Warp {
            regs,
            preds: vec![0; npreds],
            pc: [0; 32],
            valid: 0,
            exited: 0,
            at_bar: 0,
            parked: 0,
            lin0: 0,
        }
    }

    /// Prepares the warp to run lanes `valid` from the start.
    pub fn reset(&mut self, lin0: u32, valid: u32) {
        self.lin0 = lin0;
        self.valid = valid;
        self.exited = 0;
        self.at_bar = 0;
        self.parked = 0;
        self.pc = [0; 32];
    }

    pub fn runnable(&self) -> u32 {
        self.valid & !self.exited & !self.at_bar & !self.parked
    }

    pub fn live(&self) -> u32 {
        self.valid & !self.exited
    }

    /// The lanes of `set` at the smallest counter, and that counter.
    fn min_group(&self, set: u32) -> (u32, u32) {
        let mut pc = u32::MAX;
        let mut g = 0;
        let mut m = set;
        while m != 0 {
            let l = m.trailing_zeros();
            m &= m - 1;
            let p = self.pc[l as usize];
            if p < pc {
                pc = p;
                g = 1 << l;
            } else if p == pc {
                g |= 1 << l;
            }
        }
        (pc, g)
    }

    /// Lanes of `set` whose counter is `pc`.
    fn at(&self, set: u32, pc: u32) -> u32 {
        let mut g = 0;
        let mut m = set;
        while m != 0 {
            let l = m.trailing_zeros();
            m &= m - 1;
            if self.pc[l as usize] == pc {
                g |= 1 << l;
            }
        }
        g
    }

    fn set_pc(&mut self, lanes: u32, pc: u32) {
        let mut m = lanes;
        while m != 0 {
            self.pc[m.trailing_zeros() as usize] = pc;
            m &= m - 1;
        }
    }

    /// Runs until no lane can run (all exited, or waiting at a barrier or for other lanes).
    pub fn run(&mut self, x: &mut Exec<'_>) -> Result<(), Fault> {
        loop {
            let run = self.runnable();
            if run == 0 {
                if self.parked != 0 && self.release_parked(x)? {
                    continue;
                }
                return Ok(());
            }
            let (pc, group) = self.min_group(run);
            self.straight(pc, group, x)?;
        }
    }

    /// Parked lanes whose membermask is now complete (the lanes they waited for exited):
    /// runs them. Whether any did.
    fn release_parked(&mut self, x: &mut Exec<'_>) -> Result<bool, Fault> {
        let code = &x.cx.entry.code;
        let mut m = self.parked;
        while m != 0 {
            let pc = self.pc[m.trailing_zeros() as usize];
            let here = self.at(self.parked, pc);
            m &= !here;
            let need = self.sync_mask(&code[pc as usize].inst, pc, here)? & self.live();
            if need & !here == 0 {
                self.parked &= !here;
                self.straight(pc, here, x)?;
                return Ok(true);
            }
        }
        Ok(false)
    }
}

impl Warp {
    /// Runs `group` (lanes at `pc`) straight on until control must be re-chosen.
    fn straight(&mut self, mut pc: u32, mut group: u32, x: &mut Exec<'_>) -> Result<(), Fault> {
        let code = &x.cx.entry.code;
        let mut others = self.runnable() & !group;
        loop {
            let g = &code[pc as usize];
            let mask = match g.guard {
                Some((p, neg)) => group & (self.preds[p as usize] ^ if neg { u32::MAX } else { 0 }),
                None => group,
            };
            x.pc = pc;
            match &g.inst {
                Inst::Bra { target, uni } => {
                    let stay = group & !mask;
                    if mask != 0 && stay != 0 {
                        if *uni {
                            return Err((
                                FaultKind::DivergentUniformBranch,
                                mask.trailing_zeros(),
                                pc,
                            ));
                        }
                        self.set_pc(mask, *target);
                        self.set_pc(stay, pc + 1);
                        return Ok(());
                    }
                    pc = if mask != 0 { *target } else { pc + 1 };
                    if others != 0 {
                        self.set_pc(group, pc);
                        return Ok(());
                    }
                    continue;
                }
                Inst::Ret => {
                    self.exited |= mask;
                    group &= !mask;
                }
                Inst::BarSync { .. } => {
                    self.at_bar |= mask;
                    self.set_pc(mask, pc);
                    group &= !mask;
                }
                Inst::Shfl { .. }
                | Inst::Vote { .. }
                | Inst::Match { .. }
                | Inst::BarWarpSync { .. } => {
                    if mask != 0 {
                        let here = mask | self.at(self.parked, pc);
                        let need = self.sync_mask(&g.inst, pc, here)? & self.live();
                        if need & !here != 0 {
                            // Wait for the others.
                            self.parked |= mask;
                            self.set_pc(mask, pc);
                            group &= !mask;
                        } else {
                            self.parked &= !here;
                            self.warp_op(&g.inst, here, pc)?;
                            group |= here;
                            others &= !here;
                        }
                    }
                }
                ins => {
                    if mask != 0 {
                        self.exec(ins, mask, x).map_err(|(f, l)| (f, l, pc))?;
                    }
                }
            }
            pc += 1;
            if group == 0 {
                return Ok(());
            }
            if others != 0 {
                let join = self.at(others, pc);
                group |= join;
                others &= !join;
            }
        }
    }

    /// The membermask of a warp-synchronous instruction as the lanes `here` give it.
    fn sync_mask(&self, ins: &Inst, pc: u32, here: u32) -> Result<u32, Fault> {
        let r = match ins {
            Inst::Shfl { mask, .. }
            | Inst::Vote { mask, .. }
            | Inst::Match { mask, .. }
            | Inst::BarWarpSync { mask } => *mask,
            _ => unreachable!(),
        };
        let first = here.trailing_zeros();
        let v = self.regs[r as usize * 32 + first as usize] as u32;
        let mut m = here;
        while m != 0 {
            let l = m.trailing_zeros();
            m &= m - 1;
            let w = self.regs[r as usize * 32 + l as usize] as u32;
            if w != v {
                let msg =
                    format!("lanes {first} and {l} give different membermasks {v:#x} and {w:#x}");
                return Err((FaultKind::WarpSync(msg), l, pc));
            }
            if w >> l & 1 == 0 {
                let msg = format!("lane {l} is not in its own membermask {w:#x}");
                return Err((FaultKind::WarpSync(msg), l, pc));
            }
        }
        Ok(v)
    }

    /// Runs a warp-synchronous instruction for the lanes `here` (all the live lanes of its
    /// membermask have arrived).
    fn warp_op(&mut self, ins: &Inst, here: u32, pc: u32) -> Result<(), Fault> {
        match *ins {
            Inst::BarWarpSync { .. } => {}
            Inst::Vote { mode, d, a, neg, .. } => {
                let p = (self.preds[a as usize] ^ if neg { u32::MAX } else { 0 }) & here;
                match mode {
                    VoteMode::Ballot => {
                        for l in lanes(here) {
                            self.regs[d as usize * 32 + l] = u64::from(p);
                        }
                    }
                    _ => {
                        let v = match mode {
                            VoteMode::All => p == here,
                            VoteMode::Any => p != 0,
                            _ => p == here || p == 0,
                        };
                        let w = &mut self.preds[d as usize];
                        *w = (*w & !here) | if v { here } else { 0 };
                    }
                }
            }
            Inst::Match { all, ty, d, p, a, .. } => {
                let m = ty.mask();
                let val = |w: &Warp, l: usize| w.regs[a as usize * 32 + l] & m;
                let same_all =
                    lanes(here).all(|l| val(self, l) == val(self, here.trailing_zeros() as usize));
                let mut out = [0u64; 32];
                for l in lanes(here) {
                    out[l] = if all {
                        if same_all {
                            u64::from(here)
                        } else {
                            0
                        }
                    } else {
                        let v = val(self, l);
                        u64::from(
                            lanes(here)
                                .filter(|&k| val(self, k) == v)
                                .fold(0u32, |b, k| b | 1 << k),
                        )
                    };
                }
                for l in lanes(here) {
                    self.regs[d as usize * 32 + l] = out[l];
                }
                if let Some(p) = p {
                    let w = &mut self.preds[p as usize];
                    *w = (*w & !here) | if same_all { here } else { 0 };
                }
            }
            Inst::Shfl { mode, d, p, a, b, c, .. } => {
                let mut out = [(0u64, false); 32];
                for l in lanes(here) {
                    let bval = self.regs[b as usize * 32 + l] as u32 & 31;
                    let cw = self.regs[c as usize * 32 + l] as u32;
                    let (cval, seg) = (cw & 31, (cw >> 8) & 31);
                    let lane = l as u32;
                    let max_lane = (lane & seg) | (cval & !seg);
                    let min_lane = lane & seg;
                    let (j, ok) = match mode {
                        ShflMode::Up => {
                            let j = lane as i32 - bval as i32;
                            (j, j >= max_lane as i32)
                        }
                        ShflMode::Down => {
                            let j = (lane + bval) as i32;
                            (j, j <= max_lane as i32)
                        }
                        ShflMode::Bfly => {
                            let j = (lane ^ bval) as i32;
                            (j, j <= max_lane as i32)
                        }
                        ShflMode::Idx => {
                            let j = (min_lane | (bval & !seg)) as i32;
                            (j, j <= max_lane as i32)
                        }
                    };
                    let src = if ok { j as u32 } else { lane };
                    if here >> src & 1 == 0 {
                        let msg = format!(
                            "shfl.sync: lane {l} reads lane {src}, which does not take part"
                        );
                        return Err((FaultKind::WarpSync(msg), l as u32, pc));
                    }
                    out[l] = (self.regs[a as usize * 32 + src as usize] & 0xFFFF_FFFF, ok);
                }
                let mut pbits = 0u32;
                for l in lanes(here) {
                    self.regs[d as usize * 32 + l] = out[l].0;
                    pbits |= u32::from(out[l].1) << l;
                }
                if let Some(p) = p {
                    let w = &mut self.preds[p as usize];
                    *w = (*w & !here) | pbits;
                }
            }
            _ => unreachable!(),
        }
        Ok(())
    }
}

/// The lane numbers in `mask`.
pub(crate) fn lanes(mask: u32) -> impl Iterator<Item = usize> + Clone {
    (0..32).filter(move |l| mask >> l & 1 != 0)
}
