//! How Quasar types are represented in generated Rust (ARCHITECTURE §4).
//!
//! Host code keeps every array as a shared `Array<T>` (arrays are references in Quasar, so
//! `v = zeros(16)` written by a kernel must be seen by the host, whatever its size). Inside
//! kernel and device functions, arrays of a known size of at most [`MAX_FIXED`] elements are
//! `[T; N]` values in registers, and arrays passed in are `KernelView`s.

use crate::sema::types::{ArrayType, Dim, FloatWidth, IntKind, Rank, Type};
use proc_macro2::{Ident, TokenStream};
use quote::quote;

/// The largest array kept in registers inside kernels.
pub const MAX_FIXED: usize = 64;

/// A number type of generated code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Num {
    /// `int8` as `i8`.
    I8,
    /// `int16` as `i16`.
    I16,
    /// `int`/`int32` (and enums) as `i32`.
    I32,
    /// `int64` as `i64`.
    I64,
    /// `uint8` as `u8`.
    U8,
    /// `uint16` as `u16`.
    U16,
    /// `uint32` as `u32`.
    U32,
    /// `uint64` as `u64`.
    U64,
    /// `scalar'half` as `half::f16`.
    F16,
    /// `scalar` (single precision) as `f32`.
    F32,
    /// `scalar'double` (or `scalar` in double mode) as `f64`.
    F64,
    /// `cscalar` as `Complex<f32>`.
    C32,
    /// `cscalar'double` (or `cscalar` in double mode) as `Complex<f64>`.
    C64,
    /// A class whose fields are all plain old data (`classes.rs`, the module's `k`-th class
    /// instance), as an array element: arrays of classes are stored in place (manual §2.2.6).
    Class(usize),
}

/// `i` as a suffixed literal of integer type `n` (`0i32`, `-1i64`), when `n` holds it.
fn int_literal(n: Num, i: i64) -> Option<TokenStream> {
    use proc_macro2::Literal as L;
    let l = match n {
        Num::I8 => L::i8_suffixed(i8::try_from(i).ok()?),
        Num::I16 => L::i16_suffixed(i16::try_from(i).ok()?),
        Num::I32 => L::i32_suffixed(i32::try_from(i).ok()?),
        Num::I64 => L::i64_suffixed(i),
        Num::U8 => L::u8_suffixed(u8::try_from(i).ok()?),
        Num::U16 => L::u16_suffixed(u16::try_from(i).ok()?),
        Num::U32 => L::u32_suffixed(u32::try_from(i).ok()?),
        Num::U64 => L::u64_suffixed(u64::try_from(i).ok()?),
        _ => return None,
    };
    Some(quote!(#l))
}

impl Num {
    /// The Rust number type of a Quasar number type, `None` for anything else.
    pub fn of(t: &Type) -> Option<Num> {
        Some(match t {
            Type::Int(k, _) => match k {
                IntKind::Int | IntKind::I32 => Num::I32,
                IntKind::I8 => Num::I8,
                IntKind::I16 => Num::I16,
                IntKind::I64 => Num::I64,
                IntKind::U8 => Num::U8,
                IntKind::U16 => Num::U16,
                IntKind::U32 => Num::U32,
                IntKind::U64 => Num::U64,
            },
            Type::Enum(..) => Num::I32,
            Type::Scalar(p) => match p.width()? {
                FloatWidth::F16 => Num::F16,
                FloatWidth::F32 => Num::F32,
                FloatWidth::F64 => Num::F64,
            },
            // No half-precision complex type on the CPU: it computes in `Complex<f32>`.
            Type::Complex(p) => match p.width()? {
                FloatWidth::F64 => Num::C64,
                FloatWidth::F16 | FloatWidth::F32 => Num::C32,
            },
            _ => return None,
        })
    }

    /// The common type of two number types (Quasar's promotion, as the PTX back end's
    /// `NumTy::promote`): complex over real over integer, the wider float; two different
    /// integer types meet in `int`.
    pub fn promote(a: Num, b: Num) -> Num {
        let width = |n: Num| match n {
            Num::F64 | Num::C64 => 3,
            Num::F32 | Num::C32 => 2,
            Num::F16 => 1,
            _ => 0,
        };
        let w = width(a).max(width(b));
        match (a, b) {
            _ if a == b => a,
            _ if a.is_complex() || b.is_complex() => {
                if w == 3 {
                    Num::C64
                } else {
                    Num::C32
                }
            }
            _ if w == 0 => Num::I32,
            _ if width(a) == w => a,
            _ => b,
        }
    }

    /// Whether the type is a signed or unsigned integer.
    pub fn is_int(self) -> bool {
        matches!(
            self,
            Num::I8 | Num::I16 | Num::I32 | Num::I64 | Num::U8 | Num::U16 | Num::U32 | Num::U64
        )
    }

    /// Whether the type is a real float.
    pub fn is_float(self) -> bool {
        matches!(self, Num::F16 | Num::F32 | Num::F64)
    }

    /// Whether the type is a complex number.
    pub fn is_complex(self) -> bool {
        matches!(self, Num::C32 | Num::C64)
    }

    /// The real type of a complex number (itself otherwise).
    pub fn part(self) -> Num {
        match self {
            Num::C32 => Num::F32,
            Num::C64 => Num::F64,
            n => n,
        }
    }

    /// The Rust type, with `rt` the path of the runtime re-exports.
    pub fn tokens(self, rt: &TokenStream) -> TokenStream {
        match self {
            Num::I8 => quote!(i8),
            Num::I16 => quote!(i16),
            Num::I32 => quote!(i32),
            Num::I64 => quote!(i64),
            Num::U8 => quote!(u8),
            Num::U16 => quote!(u16),
            Num::U32 => quote!(u32),
            Num::U64 => quote!(u64),
            Num::F16 => quote!(#rt::run::f16),
            Num::F32 => quote!(f32),
            Num::F64 => quote!(f64),
            Num::C32 => quote!(#rt::run::Complex<f32>),
            Num::C64 => quote!(#rt::run::Complex<f64>),
            Num::Class(k) => {
                let s = super::classes::struct_ident(k);
                quote!(#s)
            }
        }
    }

    /// A literal of this type from an integer or float constant.
    pub fn literal(self, v: f64, rt: &TokenStream) -> TokenStream {
        let ty = self.tokens(rt);
        match self {
            Num::F32 => f32_literal(v),
            Num::F64 => finite_or(v, quote!(f64), |v| {
                let l = proc_macro2::Literal::f64_suffixed(v);
                quote!(#l)
            }),
            Num::F16 => {
                let inner = f32_literal(v);
                quote!(<#ty>::from_f32(#inner))
            }
            // Only the zero of a class exists (its default: every field zero).
            Num::Class(_) => quote!(<#ty as ::core::default::Default>::default()),
            Num::C32 | Num::C64 => {
                let part = self.part().literal(v, rt);
                let zero = self.part().literal(0.0, rt);
                quote!(<#ty>::new(#part, #zero))
            }
            _ => {
                let i = v as i64;
                match int_literal(self, i) {
                    Some(l) if i < 0 => quote!((#l)),
                    Some(l) => l,
                    // Not representable: the value wraps, as Quasar's conversion does.
                    None => {
                        let l = proc_macro2::Literal::i64_unsuffixed(i.abs());
                        if i < 0 {
                            quote!((-(#l as i64) as #ty))
                        } else {
                            quote!((#l as #ty))
                        }
                    }
                }
            }
        }
    }

    /// A zero of this type as a Rust expression.
    pub fn zero(self, rt: &TokenStream) -> TokenStream {
        self.literal(0.0, rt)
    }

    /// The Quasar name, for messages.
    pub fn quasar_name(self) -> &'static str {
        match self {
            Num::I8 => "int8",
            Num::I16 => "int16",
            Num::I32 => "int",
            Num::I64 => "int64",
            Num::U8 => "uint8",
            Num::U16 => "uint16",
            Num::U32 => "uint32",
            Num::U64 => "uint64",
            Num::F16 => "scalar'half",
            Num::F32 => "scalar",
            Num::F64 => "scalar'double",
            Num::C32 | Num::C64 => "cscalar",
            Num::Class(_) => "class",
        }
    }
}

/// `v` as an `f32` literal (`f32::INFINITY` where it overflows, as the conversion does).
fn f32_literal(v: f64) -> TokenStream {
    finite_or((v as f32) as f64, quote!(f32), |v| {
        let l = proc_macro2::Literal::f32_suffixed(v as f32);
        quote!(#l)
    })
}

/// The literal `lit(v)`, or `ty::NAN`/`INFINITY`/`NEG_INFINITY` (literals must be finite).
fn finite_or(v: f64, ty: TokenStream, lit: impl FnOnce(f64) -> TokenStream) -> TokenStream {
    if v.is_nan() {
        quote!(#ty::NAN)
    } else if v == f64::INFINITY {
        quote!(#ty::INFINITY)
    } else if v == f64::NEG_INFINITY {
        quote!(#ty::NEG_INFINITY)
    } else {
        lit(v)
    }
}

/// How a value of some Quasar type is held by generated code.
#[derive(Clone, Debug, PartialEq)]
pub enum Repr {
    /// A number held by value.
    Num(Num),
    /// A Quasar `string` as a Rust `String`.
    Str,
    /// No value (a call without results).
    Unit,
    /// A shared `Array<T>` (host code).
    Array(Num, Option<u8>),
    /// `[T; N]` with this row-major shape (kernel and device code).
    Fixed(Num, Vec<usize>),
    /// A `KernelView<T>` with this rank (arrays inside kernel and device code).
    View(Num, Option<u8>),
    /// A function value: index into the module's function-value enums.
    FnVal(usize),
    /// Several results.
    Tuple(Vec<Repr>),
    /// An immutable class value: the module's `k`-th class struct (`classes.rs`).
    Class(usize),
    /// A `mutable class` object, shared: `Arc<dyn trait of class k>`.
    Obj(usize),
    /// A pointer `^T` to class `k`: `Option<Arc<dyn …>>`.
    Ptr(usize),
    /// `nullptr` before it is converted to a pointer type.
    Null,
    /// A value of type `??`, a cell array or a dynamic object: `quasar_std::value::Value`.
    Value,
}

impl Repr {
    /// The element type of a number or array representation.
    pub fn num(&self) -> Option<Num> {
        match self {
            Repr::Num(n) | Repr::Array(n, _) | Repr::Fixed(n, _) | Repr::View(n, _) => Some(*n),
            _ => None,
        }
    }

    /// Whether the value is a single number.
    pub fn is_num(&self) -> bool {
        matches!(self, Repr::Num(_))
    }

    /// The number of elements of a `[T; N]` representation.
    pub fn fixed_len(&self) -> Option<usize> {
        match self {
            Repr::Fixed(_, s) => Some(s.iter().product()),
            _ => None,
        }
    }
}

/// The known shape of an array type, when every dimension is a known constant.
pub fn known_shape(a: &ArrayType) -> Option<Vec<usize>> {
    let shape = a.shape.as_ref()?;
    shape
        .iter()
        .map(|d| match d {
            Dim::Known(n) => Some(*n as usize),
            _ => None,
        })
        .collect()
}

/// The rank of an array type, `None` when any rank is allowed.
pub fn rank_of(a: &ArrayType) -> Option<u8> {
    match a.rank {
        Rank::Fixed(r) => Some(r),
        Rank::Any => None,
    }
}

/// Whether an array type is small and fixed enough to live in registers inside kernels.
pub fn fixed_shape(a: &ArrayType) -> Option<Vec<usize>> {
    let s = known_shape(a)?;
    let n: usize = s.iter().product();
    (1..=MAX_FIXED).contains(&n).then_some(s)
}

/// The Rust type of a representation; `lifetime` is the one kernel views carry (`'_` inside
/// a function body, a named one in signatures, `'static` in function-value enums).
pub fn rust_type(r: &Repr, rt: &TokenStream, lifetime: &TokenStream) -> TokenStream {
    match r {
        Repr::Num(n) => n.tokens(rt),
        Repr::Str => quote!(::std::string::String),
        Repr::Unit => quote!(()),
        Repr::Array(n, _) => {
            let t = n.tokens(rt);
            quote!(#rt::run::Array<#t>)
        }
        Repr::Fixed(n, s) => {
            let t = n.tokens(rt);
            let len: usize = s.iter().product();
            quote!([#t; #len])
        }
        Repr::View(n, _) => {
            let t = n.tokens(rt);
            quote!(#rt::run::KernelView<#lifetime, #t>)
        }
        Repr::FnVal(i) => {
            let e = enum_ident(*i);
            quote!(#e)
        }
        Repr::Tuple(rs) => {
            let ts: Vec<_> = rs.iter().map(|r| rust_type(r, rt, lifetime)).collect();
            quote!((#(#ts),*))
        }
        Repr::Class(k) => {
            let s = super::classes::struct_ident(*k);
            quote!(#s)
        }
        Repr::Obj(k) => {
            let t = super::classes::trait_ident(*k);
            quote!(::std::sync::Arc<dyn #t>)
        }
        Repr::Ptr(k) => {
            let t = super::classes::trait_ident(*k);
            quote!(::core::option::Option<::std::sync::Arc<dyn #t>>)
        }
        Repr::Null => quote!(()),
        Repr::Value => quote!(#rt::qstd::value::Value),
    }
}

/// The enum of function values of the module's `k`-th function type.
pub fn enum_ident(k: usize) -> Ident {
    quote::format_ident!("__QFn{}", k)
}
