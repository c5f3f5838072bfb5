//! The decoded form of instructions: compact, with every operand resolved to a register index
//! (immediates live in constant registers), labels to instruction indices and symbols to
//! offsets, so that execution never looks at text.

use crate::error::Space;

/// A register index (declared registers first, then the entry's constants).
pub(crate) type R = u16;
/// A predicate register index.
pub(crate) type P = u16;

/// The scalar type of an instruction or an operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ty {
    B(u8),
    U(u8),
    S(u8),
    F(u8),
}

impl Ty {
    /// `.b32`, `.s8`, `.f64`, … (without the dot).
    pub fn parse(s: &str) -> Option<Ty> {
        let (k, bits) = s.split_at(1);
        let bits: u8 = bits.parse().ok()?;
        let ty = match k {
            "b" => Ty::B(bits),
            "u" => Ty::U(bits),
            "s" => Ty::S(bits),
            "f" => Ty::F(bits),
            _ => return None,
        };
        let ok = match ty {
            Ty::F(b) => matches!(b, 16 | 32 | 64),
            _ => matches!(bits, 8 | 16 | 32 | 64),
        };
        ok.then_some(ty)
    }

    pub fn bits(self) -> u32 {
        match self {
            Ty::B(b) | Ty::U(b) | Ty::S(b) | Ty::F(b) => u32::from(b),
        }
    }

    pub fn bytes(self) -> u32 {
        self.bits() / 8
    }

    /// The mask of the type's bits in a 64-bit register value.
    pub fn mask(self) -> u64 {
        width_mask(self.bits())
    }

    pub fn is_float(self) -> bool {
        matches!(self, Ty::F(_))
    }

    pub fn is_signed(self) -> bool {
        matches!(self, Ty::S(_))
    }

    /// Sign- or zero-extends the type's bits in `v` to 64 bits.
    pub fn extend(self, v: u64) -> u64 {
        let b = self.bits();
        if self.is_signed() && b < 64 {
            (((v << (64 - b)) as i64) >> (64 - b)) as u64
        } else {
            v & self.mask()
        }
    }
}

/// The mask of the low `bits` bits.
pub(crate) fn width_mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// Comparison operators of `setp`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Cmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    /// Unsigned-integer forms (`lo ls hi hs`) are the same as `lt le gt ge` on `.u` types.
    Equ,
    Neu,
    Ltu,
    Leu,
    Gtu,
    Geu,
    Num,
    Nan,
}

impl Cmp {
    pub fn parse(s: &str) -> Option<Cmp> {
        Some(match s {
            "eq" => Cmp::Eq,
            "ne" => Cmp::Ne,
            "lt" | "lo" => Cmp::Lt,
            "le" | "ls" => Cmp::Le,
            "gt" | "hi" => Cmp::Gt,
            "ge" | "hs" => Cmp::Ge,
            "equ" => Cmp::Equ,
            "neu" => Cmp::Neu,
            "ltu" => Cmp::Ltu,
            "leu" => Cmp::Leu,
            "gtu" => Cmp::Gtu,
            "geu" => Cmp::Geu,
            "num" => Cmp::Num,
            "nan" => Cmp::Nan,
            _ => return None,
        })
    }

    /// Whether the operator is only defined on floating-point types.
    pub fn float_only(self) -> bool {
        !matches!(self, Cmp::Eq | Cmp::Ne | Cmp::Lt | Cmp::Le | Cmp::Gt | Cmp::Ge)
    }
}

/// Boolean operators combining predicates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BoolOp {
    And,
    Or,
    Xor,
}

impl BoolOp {
    pub fn parse(s: &str) -> Option<BoolOp> {
        Some(match s {
            "and" => BoolOp::And,
            "or" => BoolOp::Or,
            "xor" => BoolOp::Xor,
            _ => return None,
        })
    }

    pub fn apply(self, a: u32, b: u32) -> u32 {
        match self {
            BoolOp::And => a & b,
            BoolOp::Or => a | b,
            BoolOp::Xor => a ^ b,
        }
    }
}

/// Two-operand integer operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum IntOp {
    Add,
    Sub,
    MulLo,
    MulHi,
    Min,
    Max,
    Div,
    Rem,
    And,
    Or,
    Xor,
    Shl,
    Shr,
}

/// One-operand integer operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum IntUnOp {
    Neg,
    Abs,
    Not,
}

/// Two-operand floating-point operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FpOp {
    Add,
    Sub,
    Mul,
    Div,
    Min,
    Max,
    /// `copysign d, a, b`: `b` with the sign of `a`.
    Copysign,
}

/// One-operand floating-point operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FpUnOp {
    Neg,
    Abs,
    Sqrt,
    Rcp,
    /// The `.approx` functions (`f32` only).
    Rsqrt,
    Ex2,
    Lg2,
    Sin,
    Cos,
}

/// Rounding of `cvt`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Rnd {
    /// No modifier (exact conversions, integer-to-integer).
    None,
    /// `.rn`, `.rz`, `.rm`, `.rp`: float results.
    Rn,
    Rz,
    Rm,
    Rp,
    /// `.rni`, `.rzi`, `.rmi`, `.rpi`: to an integral value.
    Rni,
    Rzi,
    Rmi,
    Rpi,
}

impl Rnd {
    pub fn parse(s: &str) -> Option<Rnd> {
        Some(match s {
            "rn" => Rnd::Rn,
            "rz" => Rnd::Rz,
            "rm" => Rnd::Rm,
            "rp" => Rnd::Rp,
            "rni" => Rnd::Rni,
            "rzi" => Rnd::Rzi,
            "rmi" => Rnd::Rmi,
            "rpi" => Rnd::Rpi,
            _ => return None,
        })
    }

    pub fn is_integral(self) -> bool {
        matches!(self, Rnd::Rni | Rnd::Rzi | Rnd::Rmi | Rnd::Rpi)
    }
}

/// `testp` properties.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TestOp {
    Finite,
    Infinite,
    Number,
    NotANumber,
    Normal,
    Subnormal,
}

/// Atomic operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AtomOp {
    Add,
    Min,
    Max,
    And,
    Or,
    Xor,
    Exch,
    Cas,
    Inc,
    Dec,
}

/// `shfl.sync` modes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ShflMode {
    Up,
    Down,
    Bfly,
    Idx,
}

/// `vote.sync` modes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum VoteMode {
    All,
    Any,
    Uni,
    Ballot,
}

/// Special registers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SReg {
    Tid(u8),
    Ntid(u8),
    Ctaid(u8),
    Nctaid(u8),
    Laneid,
}

/// A memory operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Addr {
    /// A register plus a byte offset.
    Reg(R, i64),
    /// A fixed address: an offset in the parameter space or in shared memory.
    Abs(u64),
    /// A `.global` variable of the module (its index) plus a byte offset.
    Global(u16, i64),
}

/// One decoded instruction.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Inst {
    /// `d = a` (the type's bits).
    Mov {
        d: R,
        a: R,
        mask: u64,
    },
    MovPred {
        d: P,
        a: P,
        neg: bool,
    },
    /// `mov.b64 {lo, hi}, a` (`half` is 32) or `mov.b32 {lo, hi}, a` (16).
    Split {
        lo: R,
        hi: R,
        a: R,
        half: u8,
    },
    /// `mov.b64 d, {lo, hi}`.
    Join {
        d: R,
        lo: R,
        hi: R,
        half: u8,
    },
    Sreg {
        d: R,
        s: SReg,
    },
    /// The address of a `.global` variable.
    GlobalAddr {
        d: R,
        var: u16,
        off: i64,
    },
    /// `ld`: the loaded value is extended by its type to `dbits` (the register's width).
    Ld {
        space: Space,
        ty: Ty,
        d: R,
        addr: Addr,
        dbits: u8,
    },
    St {
        space: Space,
        ty: Ty,
        a: R,
        addr: Addr,
    },
    Atom {
        space: Space,
        op: AtomOp,
        ty: Ty,
        d: R,
        addr: Addr,
        b: R,
        c: R,
    },
    Int {
        op: IntOp,
        ty: Ty,
        d: R,
        a: R,
        b: R,
    },
    /// `mul.wide`: `ty` is the source type; the result has twice its width.
    MulWide {
        ty: Ty,
        d: R,
        a: R,
        b: R,
    },
    MadLo {
        ty: Ty,
        d: R,
        a: R,
        b: R,
        c: R,
    },
    IntUn {
        op: IntUnOp,
        ty: Ty,
        d: R,
        a: R,
    },
    Fp {
        op: FpOp,
        ty: Ty,
        d: R,
        a: R,
        b: R,
    },
    Fma {
        ty: Ty,
        d: R,
        a: R,
        b: R,
        c: R,
    },
    FpUn {
        op: FpUnOp,
        ty: Ty,
        d: R,
        a: R,
    },
    Setp {
        cmp: Cmp,
        ty: Ty,
        p: P,
        q: Option<P>,
        a: R,
        b: R,
        comb: Option<(BoolOp, P, bool)>,
    },
    Selp {
        d: R,
        a: R,
        b: R,
        p: P,
        neg: bool,
        mask: u64,
    },
    Testp {
        op: TestOp,
        ty: Ty,
        p: P,
        a: R,
    },
    /// `cvt`: the result is extended by `dt` to `dbits` (the register's width).
    Cvt {
        dt: Ty,
        st: Ty,
        rnd: Rnd,
        sat: bool,
        d: R,
        a: R,
        dbits: u8,
    },
    PredOp {
        op: BoolOp,
        d: P,
        a: P,
        na: bool,
        b: P,
        nb: bool,
    },
    Bra {
        target: u32,
        uni: bool,
    },
    Ret,
    BarSync {
        id: u32,
    },
    BarWarpSync {
        mask: R,
    },
    Shfl {
        mode: ShflMode,
        d: R,
        p: Option<P>,
        a: R,
        b: R,
        c: R,
        mask: R,
    },
    /// `vote.sync`: the ballot writes register `d`, the other modes predicate `d`.
    Vote {
        mode: VoteMode,
        d: u16,
        a: P,
        neg: bool,
        mask: R,
    },
    Match {
        all: bool,
        ty: Ty,
        d: R,
        p: Option<P>,
        a: R,
        mask: R,
    },
    Activemask {
        d: R,
    },
    /// `call.uni (r), malloc, (n)`: `d` = the address of `size` new bytes of the launch's
    /// device heap (16-byte aligned), 0 when the heap is full (`memory.rs`, `Heap`).
    Malloc {
        d: R,
        size: R,
    },
    /// `call.uni free, (p)`: the heap's memory is reclaimed when the launch ends.
    Free,
}

/// An instruction with its guard predicate (`@%p` / `@!%p`).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Guarded {
    pub inst: Inst,
    pub guard: Option<(P, bool)>,
}
