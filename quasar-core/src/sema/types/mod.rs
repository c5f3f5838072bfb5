//! The Quasar type language (manual §2.2 and chapter 3): primitive types, arrays with rank
//! and size constraints, cells, classes, pointers, enums, function types, type classes.

mod display;
mod subtype;

pub use subtype::{is_subtype, join, promote};

use crate::syntax::ast::FunctionKind;

/// Integer types; `Int` is the default `int` (32 bits, as in ARCHITECTURE §4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum IntKind {
    /// `int`: 32-bit signed, the default integer type.
    Int,
    /// `int8`
    I8,
    /// `int16`
    I16,
    /// `int32` (the same width as `int`, a distinct name).
    I32,
    /// `int64`
    I64,
    /// `uint8`, the pixel type of 8-bit images.
    U8,
    /// `uint16`
    U16,
    /// `uint32`
    U32,
    /// `uint64`
    U64,
}

impl IntKind {
    /// The kind a type name such as `uint8` denotes.
    pub fn from_name(name: &str) -> Option<IntKind> {
        Some(match name {
            "int" => IntKind::Int,
            "int8" => IntKind::I8,
            "int16" => IntKind::I16,
            "int32" => IntKind::I32,
            "int64" => IntKind::I64,
            "uint8" => IntKind::U8,
            "uint16" => IntKind::U16,
            "uint32" => IntKind::U32,
            "uint64" => IntKind::U64,
            _ => return None,
        })
    }

    /// The Quasar name of the type (`int`, `uint16`, …).
    pub fn name(self) -> &'static str {
        match self {
            IntKind::Int => "int",
            IntKind::I8 => "int8",
            IntKind::I16 => "int16",
            IntKind::I32 => "int32",
            IntKind::I64 => "int64",
            IntKind::U8 => "uint8",
            IntKind::U16 => "uint16",
            IntKind::U32 => "uint32",
            IntKind::U64 => "uint64",
        }
    }

    /// The width in bits.
    pub fn bits(self) -> u32 {
        match self {
            IntKind::I8 | IntKind::U8 => 8,
            IntKind::I16 | IntKind::U16 => 16,
            IntKind::Int | IntKind::I32 | IntKind::U32 => 32,
            IntKind::I64 | IntKind::U64 => 64,
        }
    }

    /// Whether negative values are representable.
    pub fn is_signed(self) -> bool {
        !matches!(self, IntKind::U8 | IntKind::U16 | IntKind::U32 | IntKind::U64)
    }
}

/// How a conversion into a narrower integer type behaves (`int'sat`, manual §2.2.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Overflow {
    /// `'checked`, the default: the manual asks for an error on overflow (and notes that it
    /// is not implemented); values are not clipped.
    #[default]
    Checked,
    /// `'sat`: a value that does not fit becomes the nearest representable one.
    Saturate,
    /// `'unchecked`: the low bits are kept (wrap-around), never an error.
    Unchecked,
}

/// Floating-point precision: `scalar` follows the global setting (f32, or f64 in double mode).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Precision {
    /// `scalar` without a suffix: single precision, or double in double mode.
    #[default]
    Default,
    /// `'half`: IEEE binary16.
    Half,
    /// `'single`: always 32 bits.
    Single,
    /// `'double`: always 64 bits.
    Double,
}

/// The width of a float, as both back ends map it. [`Precision::resolved`] is the one place
/// where `scalar`'s precision is decided from the double mode (the driver applies it to the
/// whole IR before any back end runs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FloatWidth {
    /// 16-bit IEEE binary16 (`f16`).
    F16,
    /// 32-bit `f32`.
    F32,
    /// 64-bit `f64`.
    F64,
}

impl Precision {
    /// The concrete precision in a program compiled with or without double mode: `scalar`
    /// (the default) is `'double` in double mode and `'single` otherwise (manual §2.2.1).
    pub fn resolved(self, double: bool) -> Precision {
        match self {
            Precision::Default if double => Precision::Double,
            Precision::Default => Precision::Single,
            p => p,
        }
    }

    /// How wide a float of this precision is; `None` for [`Precision::Default`], which the
    /// driver resolves before code generation (the IR's invariants), so that no back end
    /// decides it.
    pub fn width(self) -> Option<FloatWidth> {
        match self {
            Precision::Half => Some(FloatWidth::F16),
            Precision::Single => Some(FloatWidth::F32),
            Precision::Double => Some(FloatWidth::F64),
            Precision::Default => None,
        }
    }

    pub(super) fn suffix(self) -> &'static str {
        match self {
            Precision::Default => "",
            Precision::Half => "'half",
            Precision::Single => "'single",
            Precision::Double => "'double",
        }
    }
}

/// Boundary handling of array accesses (manual §2.4.1). `None` in [`ArrayMods::access`]
/// means the default: `'safe` inside kernel/device functions, `'checked` in host code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Access {
    /// `'safe`: an access outside the array reads 0 and writes nothing (the kernel default).
    Safe,
    /// `'checked`: an access outside the array is a run-time error (the host default).
    Checked,
    /// `'unchecked`: no test at all; the access must be in range.
    Unchecked,
    /// `'circular`: indices wrap around the extent (periodic boundary).
    Circular,
    /// `'mirror`: indices reflect at the edges (the edge sample repeats).
    Mirror,
    /// `'clamped`: indices are clamped to the nearest edge element.
    Clamped,
}

impl Access {
    /// The mode a modifier name such as `checked` denotes.
    pub fn from_name(name: &str) -> Option<Access> {
        Some(match name {
            "safe" => Access::Safe,
            "checked" => Access::Checked,
            "unchecked" => Access::Unchecked,
            "circular" => Access::Circular,
            "mirror" => Access::Mirror,
            "clamped" => Access::Clamped,
            _ => return None,
        })
    }

    /// The modifier's name without the quote (`safe`, `clamped`, …).
    pub fn name(self) -> &'static str {
        match self {
            Access::Safe => "safe",
            Access::Checked => "checked",
            Access::Unchecked => "unchecked",
            Access::Circular => "circular",
            Access::Mirror => "mirror",
            Access::Clamped => "clamped",
        }
    }
}

/// The number of dimensions of an array type: `vec` 1, `mat` 2, `cube` 3, `cube{n}`, `cube{:}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rank {
    /// Exactly this many dimensions (`vec` 1, `mat` 2, `cube` 3, `cube{n}` n).
    Fixed(u8),
    /// Any number of dimensions (`cube{:}`).
    Any,
}

/// The length of one dimension in a size constraint (`cube(:, :, 3)`, `mat(M, N)`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Dim {
    /// A constant extent (`vec3`, `mat(3, 3)`).
    Known(u64),
    /// Not known when compiling (`:`).
    Unknown,
    /// A generic size parameter (`[M, N]` of a function).
    Param(String),
}

/// Modifiers on an array type besides the access mode.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct ArrayMods {
    /// The boundary handling, `None` for the default of where the access is.
    pub access: Option<Access>,
    /// `'const`: never written (never copied back from a device)
    pub is_const: bool,
    /// `'nocopy`: never read before being written (never uploaded)
    pub nocopy: bool,
    /// Hardware hints kept for the backends: `hwtex_nearest`, `hwtex_linear`, `hwconst`,
    /// `hwtex_const`, `shared`, `col`, `row`…
    pub hints: Vec<String>,
}

/// How a read of a hardware-texture array at a real position samples it (manual §9.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextureFilter {
    /// `'hwtex_nearest`: the element nearest to the position.
    Nearest,
    /// `'hwtex_linear`: linear interpolation between the elements around the position.
    Linear,
}

impl ArrayMods {
    /// The filter a texture hint asks for (none without one: `'hwtex_const` only names a
    /// cache).
    pub fn texture(&self) -> Option<TextureFilter> {
        self.hints.iter().find_map(|h| match h.as_str() {
            "hwtex_linear" => Some(TextureFilter::Linear),
            "hwtex_nearest" => Some(TextureFilter::Nearest),
            _ => None,
        })
    }
}

/// An array type: element type, rank, optional size constraints and modifiers.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ArrayType {
    /// The type of the elements (a number type, or another type for cell-like arrays).
    pub elem: Type,
    /// The number of dimensions.
    pub rank: Rank,
    /// One entry per dimension when any size is constrained; `None` when nothing is known.
    pub shape: Option<Vec<Dim>>,
    /// Access mode, `'const`, `'nocopy` and hardware hints.
    pub mods: ArrayMods,
}

/// A reference to a class, with its type arguments (`stack[int]`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ClassRef {
    /// Which class.
    pub id: ClassId,
    /// The class's name as written, for messages.
    pub name: String,
    /// The type arguments of a generic class, in order.
    pub args: Vec<Type>,
}

/// The index of a class among the program's class declarations (or, from
/// [`ClassId::CLOSURE_BASE`], of a closure class the type checker made for an untyped lambda).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ClassId(pub u32);

impl ClassId {
    /// The first id of the closure classes: the values of untyped lambdas, whose fields are
    /// the captured values (`sema/check/closure_class.rs`).
    pub const CLOSURE_BASE: u32 = 1 << 30;

    /// Whether this is the closure class of an untyped lambda.
    pub fn is_closure(self) -> bool {
        self.0 >= Self::CLOSURE_BASE
    }
}

/// The index of an enum among the program's enum declarations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EnumId(pub u32);

/// `[kind (params) -> (results)]`
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FnType {
    /// Host, `__kernel__` or `__device__`: where a function of this type may be called.
    pub kind: FunctionKind,
    /// The parameter types in order.
    pub params: Vec<Type>,
    /// The last parameter collects any number of arguments (`...T`).
    pub variadic: bool,
    /// The result types in order (several results form a tuple).
    pub results: Vec<Type>,
}

/// Which threads a cooperative-groups `thread_block` value (manual §9.8) stands for. The
/// kernel parameter's name decides it (`coalesced_threads`, `this_thread_block`, …), and the
/// type carries it so that the backends know the group of any `thread_block` expression,
/// also after `g = coalesced_threads`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ThreadGroup {
    /// A declared `thread_block` not (yet) tied to a kernel parameter.
    Any,
    /// `coalesced_threads`: the active threads of the warp.
    Coalesced,
    /// `this_thread_block`: the threads of the block.
    Block,
    /// `this_grid`: every thread of the launch.
    Grid,
    /// `this_multi_grid`: every thread of a multi-GPU launch.
    MultiGrid,
    /// `g.partition(n)`: tiles of `n` consecutive threads (0 when `n` is not a constant).
    Tile(u32),
}

/// The type of a Quasar value, as the checker infers it and the back ends map it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    /// `??`: determined at run time.
    Unknown,
    /// An integer of this width and conversion behaviour.
    Int(IntKind, Overflow),
    /// A real floating-point number (`scalar`, `scalar'double`, …).
    Scalar(Precision),
    /// A complex number (`cscalar`), both parts of this precision.
    Complex(Precision),
    /// A character string.
    String,
    /// An array (`vec`, `mat`, `cube`, `ivec3`, `cube'clamped`, …).
    Array(Box<ArrayType>),
    /// A typed cell whose elements have these types, `{string, scalar}` (nest for 2-D).
    CellTuple(Vec<Type>),
    /// An instance of a class (`type point : class`).
    Class(ClassRef),
    /// A pointer to a value of the type (`^point`, for linked structures).
    Pointer(Box<Type>),
    /// The type of `nullptr`: converts to any pointer.
    Null,
    /// A value of an enum: its id and name.
    Enum(EnumId, String),
    /// A function value of this function type.
    Function(Box<FnType>),
    /// A type class `[int|cube]`: any of these.
    Union(Vec<Type>),
    /// A type used as a value: `vec[int]` in `vec[int](200)`, `scalar` in `cast(x, scalar)`.
    TypeValue(Box<Type>),
    /// The several results of a call, before they are destructured.
    Tuple(Vec<Type>),
    /// A generic type parameter, inside a generic definition.
    Param(String),
    /// No value: the result of a call to a function without outputs.
    Void,
    /// The cooperative-groups class `thread_block` (manual §9.8).
    ThreadBlock(ThreadGroup),
}

impl Type {
    /// `int`: 32-bit signed, overflow checked.
    pub const INT: Type = Type::Int(IntKind::Int, Overflow::Checked);
    /// `scalar` at the default precision.
    pub const SCALAR: Type = Type::Scalar(Precision::Default);
    /// `cscalar` at the default precision.
    pub const CSCALAR: Type = Type::Complex(Precision::Default);

    /// An array of `elem` with `rank` dimensions and no size information.
    pub fn array(elem: Type, rank: u8) -> Type {
        Type::Array(Box::new(ArrayType {
            elem,
            rank: Rank::Fixed(rank),
            shape: None,
            mods: ArrayMods::default(),
        }))
    }

    /// An array of `elem` with a fully or partly known shape.
    pub fn array_with_shape(elem: Type, shape: Vec<Dim>) -> Type {
        let rank = Rank::Fixed(shape.len().min(16) as u8);
        Type::Array(Box::new(ArrayType {
            elem,
            rank,
            shape: Some(shape),
            mods: ArrayMods::default(),
        }))
    }

    /// A vector (one dimension) of `elem` of any length.
    pub fn vec(elem: Type) -> Type {
        Type::array(elem, 1)
    }

    /// A vector of known length, e.g. `ivec3` or `vec4`.
    pub fn vec_n(elem: Type, n: u64) -> Type {
        Type::array_with_shape(elem, vec![Dim::Known(n)])
    }

    /// Whether the type is an integer of any width.
    pub fn is_int(&self) -> bool {
        matches!(self, Type::Int(..))
    }

    /// Whether the type is a real float of any precision.
    pub fn is_scalar(&self) -> bool {
        matches!(self, Type::Scalar(_))
    }

    /// `int`, `scalar` or `cscalar` of any width.
    pub fn is_number(&self) -> bool {
        matches!(self, Type::Int(..) | Type::Scalar(_) | Type::Complex(_))
    }

    /// The array type, if the type is an array.
    pub fn as_array(&self) -> Option<&ArrayType> {
        match self {
            Type::Array(a) => Some(a),
            _ => None,
        }
    }

    /// The element type of an array, the type itself otherwise.
    pub fn elem(&self) -> &Type {
        match self {
            Type::Array(a) => &a.elem,
            t => t,
        }
    }

    /// Whether the type is fully known at compile time (no `??`, no unbound parameter).
    pub fn is_concrete(&self) -> bool {
        match self {
            Type::Unknown | Type::Param(_) | Type::Union(_) => false,
            Type::Array(a) => a.elem.is_concrete(),
            Type::CellTuple(ts) | Type::Tuple(ts) => ts.iter().all(Type::is_concrete),
            Type::Class(c) => c.args.iter().all(Type::is_concrete),
            Type::Pointer(t) | Type::TypeValue(t) => t.is_concrete(),
            Type::Function(f) => {
                f.params.iter().all(Type::is_concrete) && f.results.iter().all(Type::is_concrete)
            }
            _ => true,
        }
    }

    /// Whether the type names a generic parameter or a type class (as opposed to `??`, which
    /// is only known at run time).
    pub fn is_generic(&self) -> bool {
        match self {
            Type::Param(_) | Type::Union(_) => true,
            Type::Array(a) => a.elem.is_generic(),
            Type::CellTuple(ts) | Type::Tuple(ts) => ts.iter().any(Type::is_generic),
            Type::Class(c) => c.args.iter().any(Type::is_generic),
            Type::Pointer(t) | Type::TypeValue(t) => t.is_generic(),
            Type::Function(f) => f.params.iter().chain(&f.results).any(Type::is_generic),
            _ => false,
        }
    }

    /// The type with each generic parameter `Param(n)` that `bind` knows replaced.
    pub fn substitute(&self, bind: &dyn Fn(&str) -> Option<Type>) -> Type {
        let all = |ts: &[Type]| ts.iter().map(|t| t.substitute(bind)).collect::<Vec<_>>();
        match self {
            Type::Param(n) => bind(n).unwrap_or_else(|| self.clone()),
            Type::Array(a) => {
                let mut a = (**a).clone();
                a.elem = a.elem.substitute(bind);
                Type::Array(Box::new(a))
            }
            Type::CellTuple(ts) => Type::CellTuple(all(ts)),
            Type::Tuple(ts) => Type::Tuple(all(ts)),
            Type::Union(ts) => Type::Union(all(ts)),
            Type::Class(c) => Type::Class(ClassRef { args: all(&c.args), ..c.clone() }),
            Type::Pointer(t) => Type::Pointer(Box::new(t.substitute(bind))),
            Type::TypeValue(t) => Type::TypeValue(Box::new(t.substitute(bind))),
            Type::Function(f) => Type::Function(Box::new(FnType {
                params: all(&f.params),
                results: all(&f.results),
                ..(**f).clone()
            })),
            t => t.clone(),
        }
    }

    /// The type with every float precision `p` replaced by `f(p)` (element, field, parameter
    /// and result types included).
    pub fn map_precision(&self, f: &dyn Fn(Precision) -> Precision) -> Type {
        let all = |ts: &[Type]| ts.iter().map(|t| t.map_precision(f)).collect::<Vec<_>>();
        match self {
            Type::Scalar(p) => Type::Scalar(f(*p)),
            Type::Complex(p) => Type::Complex(f(*p)),
            Type::Array(a) => {
                let mut a = (**a).clone();
                a.elem = a.elem.map_precision(f);
                Type::Array(Box::new(a))
            }
            Type::CellTuple(ts) => Type::CellTuple(all(ts)),
            Type::Tuple(ts) => Type::Tuple(all(ts)),
            Type::Union(ts) => Type::Union(all(ts)),
            Type::Class(c) => Type::Class(ClassRef { args: all(&c.args), ..c.clone() }),
            Type::Pointer(t) => Type::Pointer(Box::new(t.map_precision(f))),
            Type::TypeValue(t) => Type::TypeValue(Box::new(t.map_precision(f))),
            Type::Function(ft) => Type::Function(Box::new(FnType {
                params: all(&ft.params),
                results: all(&ft.results),
                ..(**ft).clone()
            })),
            t => t.clone(),
        }
    }

    /// The type as the source of a program whose `scalar` has the precision `scalar` spells
    /// it, for messages: that precision is the default one (`vec`, not `vec[scalar'single]`).
    pub fn spelled_with_scalar(&self, scalar: Precision) -> Type {
        self.map_precision(&|p| if p == scalar { Precision::Default } else { p })
    }

    /// Whether some float in the type (elements and parameters included) has the default
    /// precision, i.e. the double mode was not applied to it.
    pub fn has_default_precision(&self) -> bool {
        match self {
            Type::Scalar(p) | Type::Complex(p) => *p == Precision::Default,
            Type::Array(a) => a.elem.has_default_precision(),
            Type::CellTuple(ts) | Type::Tuple(ts) | Type::Union(ts) => {
                ts.iter().any(Type::has_default_precision)
            }
            Type::Class(c) => c.args.iter().any(Type::has_default_precision),
            Type::Pointer(t) | Type::TypeValue(t) => t.has_default_precision(),
            Type::Function(ft) => {
                ft.params.iter().chain(&ft.results).any(Type::has_default_precision)
            }
            _ => false,
        }
    }

    /// The array type with its shape forgotten (used when joining differently sized values).
    pub fn without_shape(&self) -> Type {
        match self {
            Type::Array(a) => {
                let mut a = (**a).clone();
                a.shape = None;
                Type::Array(Box::new(a))
            }
            t => t.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mat(shape: Vec<Dim>) -> Type {
        Type::array_with_shape(Type::SCALAR, shape)
    }

    #[test]
    fn display_uses_the_manual_spellings() {
        assert_eq!(Type::vec(Type::SCALAR).to_string(), "vec");
        assert_eq!(Type::vec_n(Type::INT, 3).to_string(), "ivec3");
        assert_eq!(Type::array(Type::CSCALAR, 2).to_string(), "cmat");
        assert_eq!(
            mat(vec![Dim::Unknown, Dim::Unknown, Dim::Known(3)]).to_string(),
            "cube(:, :, 3)"
        );
        assert_eq!(
            Type::array(Type::Int(IntKind::I16, Overflow::Checked), 4).to_string(),
            "cube{4}[int16]"
        );
        assert_eq!(Type::Int(IntKind::U8, Overflow::Saturate).to_string(), "uint8'sat");
        assert_eq!(Type::Scalar(Precision::Half).to_string(), "scalar'half");
    }

    #[test]
    fn dimensional_subtyping_chain() {
        let vec = Type::vec(Type::SCALAR);
        let m = Type::array(Type::SCALAR, 2);
        let c = Type::array(Type::SCALAR, 3);
        let any = Type::Array(Box::new(ArrayType {
            elem: Type::SCALAR,
            rank: Rank::Any,
            shape: None,
            mods: ArrayMods::default(),
        }));
        assert!(is_subtype(&vec, &m) && is_subtype(&m, &c) && is_subtype(&c, &any));
        assert!(!is_subtype(&c, &m));
        assert!(!is_subtype(&Type::SCALAR, &vec), "scalar is not a vec");
        assert!(!is_subtype(&Type::vec(Type::INT), &vec), "ivec is not a vec");
    }

    #[test]
    fn size_constraints_are_checked() {
        let rgb = mat(vec![Dim::Unknown, Dim::Unknown, Dim::Known(3)]);
        assert!(is_subtype(&mat(vec![Dim::Known(4), Dim::Known(5), Dim::Known(3)]), &rgb));
        assert!(!is_subtype(&mat(vec![Dim::Known(4), Dim::Known(5), Dim::Known(4)]), &rgb));
        assert!(
            is_subtype(&Type::array(Type::SCALAR, 3), &rgb),
            "unknown sizes are checked at run time"
        );
        assert!(is_subtype(&Type::vec_n(Type::SCALAR, 3), &Type::vec(Type::SCALAR)));
    }

    #[test]
    fn unions_unknown_and_pointers() {
        let u = Type::Union(vec![Type::INT, Type::array(Type::SCALAR, 3)]);
        assert!(is_subtype(&Type::INT, &u) && is_subtype(&Type::array(Type::SCALAR, 2), &u));
        assert!(!is_subtype(&Type::String, &u));
        assert!(is_subtype(&Type::String, &Type::Unknown));
        let p = Type::Pointer(Box::new(Type::INT));
        assert!(is_subtype(&Type::Null, &p));
    }

    #[test]
    fn joins_widen_numbers_and_forget_sizes() {
        assert_eq!(join(&Type::INT, &Type::SCALAR), Type::SCALAR);
        assert_eq!(join(&Type::SCALAR, &Type::CSCALAR), Type::CSCALAR);
        assert_eq!(
            join(&Type::vec_n(Type::SCALAR, 3), &Type::vec_n(Type::SCALAR, 4)),
            Type::vec(Type::SCALAR)
        );
        assert_eq!(join(&Type::String, &Type::INT), Type::Unknown);
        assert_eq!(join(&Type::SCALAR, &Type::array(Type::SCALAR, 3)), Type::Unknown);
    }
}
