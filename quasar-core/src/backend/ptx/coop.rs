//! Cooperative groups and warp shuffles (manual §9.8) in PTX.
//!
//! A `thread_block` value has no registers: its group is in its type
//! ([`ThreadGroup`]), so its locals hold [`Val::Void`] and every property and method is
//! computed where it is used. The groups:
//!
//! * `coalesced_threads`: the warp. `thread_idx` is the lane (`%laneid`) and `size` is the
//!   warp size, 32, so that lane numbers and sizes agree (the manual's `reduce_sum` halves
//!   `size` and shuffles down by lanes). Shuffles, votes and `sync` use the active threads
//!   (`activemask`) as member mask: threads that diverged away are not waited for. Kernels
//!   that use thread groups keep every thread of the launch running (no early exit past the
//!   launch edge, as with `syncthreads`; out-of-range accesses are `'safe` zeros), so a warp is
//!   complete whenever the block has a multiple of 32 threads.
//! * `this_thread_block`: the block. `thread_idx` is the linear (row-major over `blkpos`)
//!   thread index, `size` the number of threads of the block, `sync()` is `bar.sync 0`.
//!   Shuffles and votes across a block do not exist in hardware: use `coalesced_threads` or
//!   `this_thread_block.partition(32)`.
//! * `g.partition(n)` for a constant power of two `n` ≤ 32: tiles of `n` consecutive lanes.
//!   Shuffles use `shfl.sync`'s segment mask (so `shfl(v, 0)` is the tile's first lane),
//!   `thread_idx` is `%laneid & (n-1)`, votes and masks are the tile's bits of the warp's.
//! * `this_grid`: `thread_idx` and `size` over the whole launch; its `sync()` would need a
//!   cooperative launch, which the runtime does not do, so it is not supported (nor is
//!   `this_multi_grid`).
//!
//! 64-bit values are shuffled as two 32-bit halves; floating-point values move through a
//! `.b32`/`.b64` register; vectors and complex numbers element by element.

use super::kernel::Ctx;
use super::regs::{NumTy, Reg, RegClass, Val};
use super::{unsupported, Res};
use crate::ir::Expr;
use crate::sema::types::{ThreadGroup, Type};
use crate::span::Span;

/// The lanes a group's warp-level operations work on.
#[derive(Clone, Copy)]
enum Lanes {
    /// The whole warp.
    Warp,
    /// Tiles of this many lanes (a power of two below 32).
    Tile(u32),
}

fn group_of(e: &Expr) -> ThreadGroup {
    match e.ty {
        Type::ThreadBlock(g) => g,
        _ => ThreadGroup::Any,
    }
}

fn group_name(g: ThreadGroup) -> String {
    match g {
        ThreadGroup::Any => "a `thread_block` not tied to a kernel parameter".into(),
        ThreadGroup::Coalesced => "`coalesced_threads`".into(),
        ThreadGroup::Block => "`this_thread_block`".into(),
        ThreadGroup::Grid => "`this_grid`".into(),
        ThreadGroup::MultiGrid => "`this_multi_grid`".into(),
        ThreadGroup::Tile(n) => format!("`partition({n})`"),
    }
}

impl Ctx<'_> {
    /// The warp-level lanes of `g`, or why it has none.
    fn lanes(&self, g: ThreadGroup, what: &str, span: Span) -> Res<Lanes> {
        match g {
            ThreadGroup::Coalesced | ThreadGroup::Tile(32) => Ok(Lanes::Warp),
            ThreadGroup::Tile(n) if n.is_power_of_two() && n < 32 => Ok(Lanes::Tile(n)),
            ThreadGroup::Tile(_) => unsupported(
                span,
                format!("`{what}` on a partition whose size is not a constant power of two ≤ 32"),
                "partition into a constant power of two up to 32 \
                 (`this_thread_block.partition(16)`)",
            ),
            ThreadGroup::Block => unsupported(
                span,
                format!(
                    "`{what}` on `this_thread_block` (warp-level operations need \
                     `coalesced_threads` or `this_thread_block.partition(32)`)"
                ),
                "call it on `coalesced_threads` or on `this_thread_block.partition(32)`",
            ),
            g => unsupported(
                span,
                format!("`{what}` on {}", group_name(g)),
                "call it on `coalesced_threads` or on a tile \
                 (`this_thread_block.partition(32)`)",
            ),
        }
    }

    fn sreg(&mut self, name: &str) -> Reg {
        let r = self.reg(RegClass::B32);
        self.ins(format!("mov.u32 {r}, {name}"));
        r
    }

    fn active_mask(&mut self) -> Reg {
        let m = self.reg(RegClass::B32);
        self.ins(format!("activemask.b32 {m}"));
        m
    }

    /// `(x >> first lane of the tile) & tile bits`: the tile's part of a warp mask.
    fn tile_bits(&mut self, x: Reg, n: u32) -> Reg {
        let lane = self.sreg("%laneid");
        let first = self.reg(RegClass::B32);
        self.ins(format!("and.b32 {first}, {lane}, {}", 32 - n));
        let r = self.reg(RegClass::B32);
        self.ins(format!("shr.b32 {r}, {x}, {first}"));
        self.ins(format!("and.b32 {r}, {r}, {}", (1u32 << n) - 1));
        r
    }

    /// The linear index of the thread in its block and the block's size.
    fn block_linear(&mut self, tid: &str, ntid: &str) -> (Reg, Reg) {
        let [x, y, z] = ["x", "y", "z"].map(|a| self.sreg(&format!("%{tid}.{a}")));
        let [nx, ny, nz] = ["x", "y", "z"].map(|a| self.sreg(&format!("%{ntid}.{a}")));
        let idx = self.reg(RegClass::B32);
        self.ins(format!("mad.lo.s32 {idx}, {z}, {ny}, {y}"));
        self.ins(format!("mad.lo.s32 {idx}, {idx}, {nx}, {x}"));
        let size = self.reg(RegClass::B32);
        self.ins(format!("mul.lo.s32 {size}, {nx}, {ny}"));
        self.ins(format!("mul.lo.s32 {size}, {size}, {nz}"));
        (idx, size)
    }

    /// `g.thread_idx`, `g.size`, `g.active_mask`.
    pub fn thread_block_field(&mut self, base: &Expr, field: &str, span: Span) -> Res<Val> {
        let g = group_of(base);
        let r = match (field, g) {
            ("active_mask", ThreadGroup::Tile(n)) if n.is_power_of_two() && n < 32 => {
                let m = self.active_mask();
                self.tile_bits(m, n)
            }
            ("active_mask", ThreadGroup::Coalesced | ThreadGroup::Block | ThreadGroup::Tile(_)) => {
                self.active_mask()
            }
            ("thread_idx" | "size", ThreadGroup::Block) => {
                let (idx, size) = self.block_linear("tid", "ntid");
                if field == "size" {
                    size
                } else {
                    idx
                }
            }
            ("thread_idx" | "size", ThreadGroup::Grid) => {
                let (t, bsize) = self.block_linear("tid", "ntid");
                let (b, nblocks) = self.block_linear("ctaid", "nctaid");
                let r = self.reg(RegClass::B32);
                if field == "size" {
                    self.ins(format!("mul.lo.s32 {r}, {nblocks}, {bsize}"));
                } else {
                    self.ins(format!("mad.lo.s32 {r}, {b}, {bsize}, {t}"));
                }
                r
            }
            ("thread_idx", g) => {
                let lane = self.sreg("%laneid");
                match self.lanes(g, "thread_idx", span)? {
                    Lanes::Warp => lane,
                    Lanes::Tile(n) => {
                        let r = self.reg(RegClass::B32);
                        self.ins(format!("and.b32 {r}, {lane}, {}", n - 1));
                        r
                    }
                }
            }
            ("size", g) => match self.lanes(g, "size", span)? {
                Lanes::Warp => self.sreg("WARP_SZ"),
                Lanes::Tile(n) => self.imm_int(NumTy::I32, i64::from(n)),
            },
            (f, g) => {
                return unsupported(
                    span,
                    format!("`{f}` of {}", group_name(g)),
                    "read it from `this_thread_block`, `coalesced_threads` or a tile of them",
                )
            }
        };
        Ok(Val::Num(r, NumTy::I32))
    }

    /// `g.method(args…)`; `args[0]` is `g`.
    pub fn thread_block_method(&mut self, method: &str, args: &[Expr], span: Span) -> Res<Val> {
        let Some((recv, rest)) = args.split_first() else {
            return unsupported(
                span,
                format!("`{method}` without its `thread_block`"),
                format!("call it on a thread group (`g.{method}(…)`)"),
            );
        };
        let g = group_of(recv);
        if method == "sync" {
            return self.group_sync(g, span);
        }
        if method == "partition" {
            // The tile's size is in the result's type; the value has no registers.
            return Ok(Val::Void);
        }
        let lanes = self.lanes(g, method, span)?;
        let mut vals = Vec::new();
        for a in rest {
            vals.push(self.expr(a)?);
        }
        match (method, vals.as_slice()) {
            ("shfl" | "shfl_up" | "shfl_down" | "shfl_xor", [v, b]) => {
                let b = self.num_val(b.clone(), NumTy::I32, span)?;
                let mode = match method {
                    "shfl" => "idx",
                    "shfl_up" => "up",
                    "shfl_down" => "down",
                    _ => "bfly",
                };
                let n = match lanes {
                    Lanes::Warp => 32,
                    Lanes::Tile(n) => n,
                };
                // `c`: the segment mask in bits 8–12, the clamp lane in bits 0–4.
                let c = ((32 - n) << 8) | if mode == "up" { 0 } else { 31 };
                let mask = self.active_mask();
                self.shuffle_val(v.clone(), mode, b, c, mask, span)
            }
            ("all" | "any" | "ballot", [p]) => {
                let p = self.truth(p.clone(), span)?;
                let mask = self.active_mask();
                let r = self.reg(RegClass::B32);
                match (method, lanes) {
                    ("all" | "any", Lanes::Warp) => {
                        let q = self.reg(RegClass::Pred);
                        self.ins(format!("vote.sync.{method}.pred {q}, {p}, {mask}"));
                        self.ins(format!("selp.s32 {r}, 1, 0, {q}"));
                    }
                    _ => {
                        self.ins(format!("vote.sync.ballot.b32 {r}, {p}, {mask}"));
                        if let Lanes::Tile(n) = lanes {
                            let bits = self.tile_bits(r, n);
                            let q = self.reg(RegClass::Pred);
                            match method {
                                "any" => self.ins(format!("setp.ne.u32 {q}, {bits}, 0")),
                                "all" => {
                                    let active = self.tile_bits(mask, n);
                                    self.ins(format!("setp.eq.u32 {q}, {bits}, {active}"));
                                }
                                _ => return Ok(Val::Num(bits, NumTy::I32)),
                            }
                            self.ins(format!("selp.s32 {r}, 1, 0, {q}"));
                        }
                    }
                }
                Ok(Val::Num(r, NumTy::I32))
            }
            ("match_any" | "match_all", [v]) => {
                let (x, bits) = self.match_operand(v.clone(), span)?;
                let mask = self.active_mask();
                let r = self.reg(RegClass::B32);
                match lanes {
                    Lanes::Warp => {
                        let op = if method == "match_any" { "any" } else { "all" };
                        self.ins(format!("match.{op}.sync.{bits} {r}, {x}, {mask}"));
                    }
                    Lanes::Tile(n) => {
                        // The lanes of the tile with the same value; for `match_all`, all of
                        // the tile's active lanes or nothing.
                        self.ins(format!("match.any.sync.{bits} {r}, {x}, {mask}"));
                        let same = self.tile_bits(r, n);
                        if method == "match_any" {
                            return Ok(Val::Num(same, NumTy::I32));
                        }
                        let active = self.tile_bits(mask, n);
                        let q = self.reg(RegClass::Pred);
                        self.ins(format!("setp.eq.u32 {q}, {same}, {active}"));
                        self.ins(format!("selp.b32 {r}, {same}, 0, {q}"));
                    }
                }
                Ok(Val::Num(r, NumTy::I32))
            }
            _ => unsupported(
                span,
                format!("`thread_block.{method}` with these arguments"),
                "check the arguments against the manual's `thread_block` methods \
                 (`sync()`, `partition(n)`, `shfl(x, lane)`, …)",
            ),
        }
    }

    fn group_sync(&mut self, g: ThreadGroup, span: Span) -> Res<Val> {
        match g {
            ThreadGroup::Block => self.ins("bar.sync 0"),
            ThreadGroup::Coalesced | ThreadGroup::Tile(_) => {
                let mask = self.active_mask();
                self.ins(format!("bar.warp.sync {mask}"));
            }
            g => {
                return unsupported(
                    span,
                    format!("`sync()` of {} (it needs a cooperative launch)", group_name(g)),
                    "synchronise `this_thread_block`, `coalesced_threads` or a tile of \
                     them, or end the kernel and launch another one",
                )
            }
        }
        Ok(Val::Void)
    }

    /// A predicate: `v != 0`.
    fn truth(&mut self, v: Val, span: Span) -> Res<Reg> {
        let (r, t) = match v {
            Val::Num(r, t) => (r, t),
            _ => {
                return unsupported(
                    span,
                    "a vote on a value that is not a number",
                    "vote on a number or a condition (`g.any(x > 0)`)",
                )
            }
        };
        Ok(self.nonzero(r, t))
    }

    /// The bits of a number, for `match.*.sync` (`b32` or `b64`).
    fn match_operand(&mut self, v: Val, span: Span) -> Res<(Reg, &'static str)> {
        let Val::Num(r, t) = v else {
            return unsupported(
                span,
                "`match_any`/`match_all` on a value that is not a number",
                "match on a number (an element such as `x[pos]`)",
            );
        };
        let bits = t.bits();
        if !t.is_float() {
            return Ok((r, bits));
        }
        let x = self.reg(if bits == "b64" { RegClass::B64 } else { RegClass::B32 });
        self.ins(format!("mov.{bits} {x}, {r}"));
        Ok((x, bits))
    }

    /// Shuffles every register of `v`.
    fn shuffle_val(
        &mut self,
        v: Val,
        mode: &str,
        b: Reg,
        c: u32,
        mask: Reg,
        span: Span,
    ) -> Res<Val> {
        Ok(match v {
            Val::Num(r, t) => Val::Num(self.shuffle_reg(r, t, mode, b, c, mask), t),
            Val::Cplx(re, im, t) => {
                let re = self.shuffle_reg(re, t, mode, b, c, mask);
                let im = self.shuffle_reg(im, t, mode, b, c, mask);
                Val::Cplx(re, im, t)
            }
            Val::Vec(rs, t) => {
                let out = rs.iter().map(|&r| self.shuffle_reg(r, t, mode, b, c, mask)).collect();
                Val::Vec(out, t)
            }
            _ => {
                return unsupported(
                    span,
                    "a shuffle of a value that is not a number or vector",
                    "shuffle numbers or fixed-size vectors",
                )
            }
        })
    }

    /// `shfl.sync` of one register: 32-bit words directly, 64-bit ones as two halves.
    fn shuffle_reg(&mut self, r: Reg, t: NumTy, mode: &str, b: Reg, c: u32, mask: Reg) -> Reg {
        let word = |cx: &mut Self, x: Reg| {
            let d = cx.reg(RegClass::B32);
            cx.ins(format!("shfl.sync.{mode}.b32 {d}, {x}, {b}, {c}, {mask}"));
            d
        };
        if t.class() == RegClass::B32 {
            return word(self, r);
        }
        let out = self.reg(t.class());
        if t.bits() == "b64" {
            let (lo, hi) = (self.reg(RegClass::B32), self.reg(RegClass::B32));
            self.ins(format!("mov.b64 {{{lo}, {hi}}}, {r}"));
            let (lo, hi) = (word(self, lo), word(self, hi));
            self.ins(format!("mov.b64 {out}, {{{lo}, {hi}}}"));
        } else {
            let x = self.reg(RegClass::B32);
            self.ins(format!("mov.b32 {x}, {r}"));
            let d = word(self, x);
            self.ins(format!("mov.b32 {out}, {d}"));
        }
        out
    }
}
