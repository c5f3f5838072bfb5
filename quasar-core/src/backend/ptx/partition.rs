//! Kernels with an interior/border partition (`ir::partition`, made by
//! `transform::interior`): each thread tests once whether its position is in the interior;
//! there it runs a copy of the body whose proven accesses are plain loads and stores (no
//! clamping, mirroring, wrapping or range tests), elsewhere the body as written. Threads of
//! one warp diverge only along the border, and no barrier is involved (partitioned kernels
//! have none).

use super::kernel::Ctx;
use super::regs::{NumTy, Reg, RegClass, Val};
use super::{unsupported, Res};
use crate::ir::partition::{Bound, Partition, Term};
use crate::ir::{self, LocalId};

impl Ctx<'_> {
    /// The body of kernel `f` split by its partition `p`; `exit` ends the kernel.
    pub fn partitioned_body(&mut self, f: &ir::Function, p: &Partition, exit: &str) -> Res<()> {
        let inside = self.region_pred(p, f)?;
        let border = self.label();
        self.ins(format!("@!{inside} bra {border}"));
        self.code.push_str("\t// interior: proven accesses without boundary handling\n");
        self.last_line = None;
        // Both copies start from the locals as they are at entry.
        let locals = self.frame()?.locals.clone();
        self.interior = Some(p.unchecked.clone());
        let interior = self.block(&f.body);
        self.interior = None;
        interior?;
        self.ins(format!("bra.uni {exit}"));
        self.place(&border);
        self.code.push_str("\t// border: the body as written\n");
        self.last_line = None;
        self.frame_mut()?.locals = locals;
        self.block(&f.body)
    }

    /// Whether this thread's position satisfies every bound of the region, and the launch
    /// every guard (in 64 bits, so that no sum overflows).
    fn region_pred(&mut self, p: &Partition, f: &ir::Function) -> Res<Reg> {
        let mut all: Option<Reg> = None;
        for c in &p.region {
            let Some(&at) = self.positions.get(c.launch_dim) else {
                return unsupported(
                    f.span,
                    "a partition along a dimension the launch lacks",
                    "partition only along the dimensions of the launch",
                );
            };
            let pos = self.convert_reg(at, NumTy::I32, NumTy::I64);
            let ext = self.arg_extent(c.base, c.array_dim, f)?;
            let (lo, hi) = (self.bound(&c.lo, f)?, self.bound(&c.hi, f)?);
            let (a, b) = (self.reg(RegClass::B64), self.reg(RegClass::B64));
            self.ins(format!("add.s64 {a}, {pos}, {lo}"));
            self.ins(format!("add.s64 {b}, {pos}, {hi}"));
            let (p1, p2) = (self.reg(RegClass::Pred), self.reg(RegClass::Pred));
            self.ins(format!("setp.ge.s64 {p1}, {a}, 0"));
            self.ins(format!("setp.lt.s64 {p2}, {b}, {ext}"));
            self.ins(format!("and.pred {p1}, {p1}, {p2}"));
            all = Some(match all {
                None => p1,
                Some(q) => {
                    self.ins(format!("and.pred {q}, {q}, {p1}"));
                    q
                }
            });
        }
        // The launch's guards (`Partition::guards`): the same for every thread.
        for g in &p.guards {
            let ext = self.arg_extent(g.base, g.array_dim, f)?;
            let (lo, hi) = (self.bound(&g.lo, f)?, self.bound(&g.hi, f)?);
            let (p1, p2) = (self.reg(RegClass::Pred), self.reg(RegClass::Pred));
            self.ins(format!("setp.ge.s64 {p1}, {lo}, 0"));
            self.ins(format!("setp.lt.s64 {p2}, {hi}, {ext}"));
            self.ins(format!("and.pred {p1}, {p1}, {p2}"));
            all = Some(match all {
                None => p1,
                Some(q) => {
                    self.ins(format!("and.pred {q}, {q}, {p1}"));
                    q
                }
            });
        }
        match all {
            Some(r) => Ok(r),
            None => {
                // No bound: the interior is everything.
                let r = self.reg(RegClass::Pred);
                self.ins(format!("setp.eq.u32 {r}, 0, 0"));
                Ok(r)
            }
        }
    }

    /// `c + Σ k·term` as an `s64` register.
    fn bound(&mut self, b: &Bound, f: &ir::Function) -> Res<Reg> {
        let r = self.imm_int(NumTy::I64, b.c);
        for &(k, t) in &b.terms {
            let v = match t {
                Term::Local(l) => match self.frame()?.locals.get(&l).cloned() {
                    Some(Val::Num(x, nt)) if !nt.is_float() => self.convert_reg(x, nt, NumTy::I64),
                    _ => {
                        return unsupported(
                            f.span,
                            "a partition bound on this value",
                            "bound the partition by integer parameters or array sizes \
                             (`size(x, 0)`)",
                        )
                    }
                },
                Term::Numel(v) => {
                    let a = self.array(v, f)?;
                    let n = self.numel(&a);
                    self.convert_reg(n, NumTy::U32, NumTy::I64)
                }
                Term::Size(v, d) => self.arg_extent(v, d, f)?,
            };
            self.ins(format!("mad.lo.s64 {r}, {v}, {k}, {r}"));
        }
        Ok(r)
    }

    /// Extent `d` of the array argument `v` (1 past its rank) as an `s64` register.
    fn arg_extent(&mut self, v: LocalId, d: usize, f: &ir::Function) -> Res<Reg> {
        let a = self.array(v, f)?;
        match a.dims.get(d) {
            Some(&e) => Ok(self.convert_reg(e, NumTy::U32, NumTy::I64)),
            None => Ok(self.imm_int(NumTy::I64, 1)),
        }
    }

    fn array(&mut self, v: LocalId, f: &ir::Function) -> Res<super::regs::ArrRef> {
        match self.frame()?.locals.get(&v) {
            Some(Val::Array(a)) => Ok(a.clone()),
            _ => unsupported(
                f.span,
                "a partition over a value that is not an array argument",
                "partition over an array parameter of the kernel",
            ),
        }
    }
}
