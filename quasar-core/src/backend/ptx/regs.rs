//! Virtual registers, the numeric types they hold, and the values the emitter passes around.
//!
//! Integers narrower than 32 bits live in 32-bit registers, kept sign- or zero-extended (PTX
//! arithmetic has no 8-bit forms); loads and stores use the narrow memory type.

use crate::sema::types::{Access, FloatWidth, IntKind, Type};
use std::fmt;

/// A numeric element type as the GPU sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum NumTy {
    I8,
    I16,
    I32,
    I64,
    U8,
    U16,
    U32,
    U64,
    /// `half`: 16 bits in memory, held exactly in an `f32` register; arithmetic in `f32`
    /// rounded back to half precision (`cvt.rn.f16.f32`) after each operation.
    F16,
    F32,
    F64,
}

impl NumTy {
    /// The GPU type of a Quasar number type; `None` for other types (complex: see [`cplx_of`]).
    pub fn of(t: &Type) -> Option<NumTy> {
        Some(match t {
            Type::Int(k, _) => match k {
                IntKind::Int | IntKind::I32 => NumTy::I32,
                IntKind::I8 => NumTy::I8,
                IntKind::I16 => NumTy::I16,
                IntKind::I64 => NumTy::I64,
                IntKind::U8 => NumTy::U8,
                IntKind::U16 => NumTy::U16,
                IntKind::U32 => NumTy::U32,
                IntKind::U64 => NumTy::U64,
            },
            Type::Scalar(p) => match p.width()? {
                FloatWidth::F16 => NumTy::F16,
                FloatWidth::F32 => NumTy::F32,
                FloatWidth::F64 => NumTy::F64,
            },
            _ => return None,
        })
    }

    pub fn is_float(self) -> bool {
        matches!(self, NumTy::F16 | NumTy::F32 | NumTy::F64)
    }

    pub fn is_signed(self) -> bool {
        matches!(self, NumTy::I8 | NumTy::I16 | NumTy::I32 | NumTy::I64)
    }

    pub fn bytes(self) -> u32 {
        match self {
            NumTy::I8 | NumTy::U8 => 1,
            NumTy::I16 | NumTy::U16 | NumTy::F16 => 2,
            NumTy::I32 | NumTy::U32 | NumTy::F32 => 4,
            NumTy::I64 | NumTy::U64 | NumTy::F64 => 8,
        }
    }

    /// Narrower than its 32-bit register.
    pub fn is_narrow(self) -> bool {
        self.bytes() < 4
    }

    pub fn class(self) -> RegClass {
        match self {
            NumTy::I64 | NumTy::U64 => RegClass::B64,
            NumTy::F16 | NumTy::F32 => RegClass::F32,
            NumTy::F64 => RegClass::F64,
            _ => RegClass::B32,
        }
    }

    /// The instruction type of arithmetic on values of this type (in their registers).
    pub fn arith(self) -> &'static str {
        match self {
            NumTy::I8 | NumTy::I16 | NumTy::I32 => "s32",
            NumTy::U8 | NumTy::U16 | NumTy::U32 => "u32",
            NumTy::I64 => "s64",
            NumTy::U64 => "u64",
            NumTy::F16 | NumTy::F32 => "f32",
            NumTy::F64 => "f64",
        }
    }

    /// The memory type of loads and stores.
    pub fn mem(self) -> &'static str {
        match self {
            NumTy::I8 => "s8",
            NumTy::I16 => "s16",
            NumTy::I32 => "s32",
            NumTy::I64 => "s64",
            NumTy::U8 => "u8",
            NumTy::U16 => "u16",
            NumTy::U32 => "u32",
            NumTy::U64 => "u64",
            NumTy::F16 => "b16",
            NumTy::F32 => "f32",
            NumTy::F64 => "f64",
        }
    }

    /// The untyped bit type of the register (`b32`/`b64`), for moves, atomics and shuffles.
    pub fn bits(self) -> &'static str {
        match self.class() {
            RegClass::B64 | RegClass::F64 => "b64",
            _ => "b32",
        }
    }

    /// The result of arithmetic on `a` and `b` (Quasar's promotion on element types).
    pub fn promote(a: NumTy, b: NumTy) -> NumTy {
        match (a, b) {
            _ if a == b => a,
            (NumTy::F64, _) | (_, NumTy::F64) => NumTy::F64,
            (NumTy::F32, _) | (_, NumTy::F32) => NumTy::F32,
            (NumTy::F16, _) | (_, NumTy::F16) => NumTy::F16,
            _ => NumTy::I32,
        }
    }

    /// An immediate operand for `v` in this type (floats as exact hex bit patterns).
    pub fn imm(self, v: f64) -> String {
        match self {
            NumTy::F32 => format!("0f{:08X}", (v as f32).to_bits()),
            NumTy::F16 => format!("0f{:08X}", round_f16(v).to_bits()),
            NumTy::F64 => format!("0d{:016X}", v.to_bits()),
            t if t.is_signed() => format!("{}", v as i64),
            _ => format!("{}", v as u64),
        }
    }

    /// An immediate for an integer constant `v` (exact, wrapped to the type's width).
    pub fn imm_int(self, v: i64) -> String {
        match self {
            NumTy::F16 | NumTy::F32 | NumTy::F64 => self.imm(v as f64),
            NumTy::I8 => format!("{}", v as i8),
            NumTy::I16 => format!("{}", v as i16),
            NumTy::I32 => format!("{}", v as i32),
            NumTy::U8 => format!("{}", v as u8),
            NumTy::U16 => format!("{}", v as u16),
            NumTy::U32 => format!("{}", v as u32),
            NumTy::I64 => format!("{v}"),
            NumTy::U64 => format!("{}", v as u64),
        }
    }
}

/// `Some(part)` for a complex number type: the type of its real and imaginary parts.
pub(super) fn cplx_of(t: &Type) -> Option<NumTy> {
    match t {
        Type::Complex(p) => NumTy::of(&Type::Scalar(*p)),
        _ => None,
    }
}

/// `v` rounded to the nearest `f16` (ties to even), as an `f32` (exact).
pub(super) fn round_f16(v: f64) -> f32 {
    let a = v.abs();
    if !a.is_finite() || a == 0.0 {
        return v as f32;
    }
    // The spacing of f16 values around `a`: 2^(e−10), subnormal spacing 2^-24.
    let e = (((a.to_bits() >> 52) & 0x7FF) as i32 - 1023).max(-14);
    let ulp = 2f64.powi(e - 10);
    let r = (a / ulp).round_ties_even() * ulp;
    let r = if r > 65504.0 { f64::INFINITY } else { r };
    (r as f32).copysign(v as f32)
}

/// The kind of a virtual register (one `.reg` declaration each).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum RegClass {
    Pred,
    /// 16-bit registers, only for the memory form of `half` values.
    B16,
    B32,
    B64,
    F32,
    F64,
}

impl RegClass {
    pub const ALL: [RegClass; 6] =
        [RegClass::Pred, RegClass::B16, RegClass::B32, RegClass::B64, RegClass::F32, RegClass::F64];

    pub fn prefix(self) -> &'static str {
        match self {
            RegClass::Pred => "%p",
            RegClass::B16 => "%h",
            RegClass::B32 => "%r",
            RegClass::B64 => "%rd",
            RegClass::F32 => "%f",
            RegClass::F64 => "%fd",
        }
    }

    pub fn decl_type(self) -> &'static str {
        match self {
            RegClass::Pred => ".pred",
            RegClass::B16 => ".b16",
            RegClass::B32 => ".b32",
            RegClass::B64 => ".b64",
            RegClass::F32 => ".f32",
            RegClass::F64 => ".f64",
        }
    }

    pub fn index(self) -> usize {
        self as usize
    }
}

/// One virtual register.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Reg {
    pub class: RegClass,
    pub id: u32,
}

impl fmt::Display for Reg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.class.prefix(), self.id)
    }
}

/// Where an array's elements live.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Space {
    Global,
    Shared,
}

impl Space {
    pub fn name(self) -> &'static str {
        match self {
            Space::Global => "global",
            Space::Shared => "shared",
        }
    }
}

/// An array in memory: its address, extents and access mode.
#[derive(Clone, Debug)]
pub(super) struct ArrRef {
    /// The address of element 0 (a global address, or a `.shared` window address).
    pub ptr: Reg,
    /// One `u32` extent per dimension of the static rank.
    pub dims: Vec<Reg>,
    /// The element type, or the type of the parts of complex elements.
    pub elem: NumTy,
    /// Complex elements: two `elem` words each, real part first.
    pub complex: bool,
    pub access: Access,
    pub space: Space,
    /// The Quasar name, for bounds-error reports.
    pub name: String,
    /// Elements that are class values (`elem` is then unused): their layout.
    pub class: Option<std::rc::Rc<super::class::ClassLayout>>,
}

impl ArrRef {
    /// The bytes of one element.
    pub fn elem_bytes(&self) -> u32 {
        match &self.class {
            Some(c) => c.size,
            None => self.elem.bytes() * if self.complex { 2 } else { 1 },
        }
    }
}

/// A closure value known at compile time: the function and its captured values.
#[derive(Clone, Debug)]
pub(super) struct Closure {
    pub function: crate::ir::FunctionId,
    pub captures: Vec<Val>,
}

/// The value of an expression.
#[derive(Clone, Debug)]
pub(super) enum Val {
    Num(Reg, NumTy),
    /// A complex number: real and imaginary part, of the given type.
    Cplx(Reg, Reg, NumTy),
    /// A fixed-size vector in registers (`vec3`, `ivec2`, …).
    Vec(Vec<Reg>, NumTy),
    /// An immutable class value: its fields' values, in the class's order (`class.rs`).
    Class(Vec<(String, Val)>),
    Array(ArrRef),
    Closure(Closure),
    /// A function value chosen at run time (a function-valued kernel argument).
    FnValue(super::fnvalue::FnValue),
    /// A kernel output argument: a pointer to the slot that threads combine into.
    Output(Reg, NumTy),
    /// The several results of a call.
    Tuple(Vec<Val>),
    /// No value (a call without results, a type used as a value).
    Void,
}

/// The most elements of a vector kept in registers (ARCHITECTURE §4).
pub(super) const MAX_VEC: u64 = 64;

/// `Some((elem, n))` when `t` is a fixed-size vector, or a small matrix or cube of `n`
/// elements in row-major order (`small.rs`), that lives in registers.
pub(super) fn small_vec(t: &Type) -> Option<(NumTy, usize)> {
    let a = t.as_array()?;
    let n: usize = super::small::small_shape(t)?.iter().product();
    if (1..=MAX_VEC as usize).contains(&n) {
        NumTy::of(&a.elem).map(|e| (e, n))
    } else {
        None
    }
}
