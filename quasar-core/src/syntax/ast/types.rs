//! Type expressions: a type as written, with its modifiers (`scalar'double`, `vec3`,
//! `[__device__ (A) -> B]`).

use super::expr::Expr;
use super::{FunctionKind, Ident};
use crate::span::Span;

/// A type written in the source.
#[derive(Clone, Debug, PartialEq)]
pub struct TypeExpr {
    /// The type proper.
    pub kind: TypeKind,
    /// `'const'unchecked` and so on, in source order.
    pub modifiers: Vec<Modifier>,
    /// The type as written, modifiers included.
    pub span: Span,
}

/// A type modifier `'name`, with arguments for the few that take them
/// (`'hwtex_nearest(4)`: a four-component texture; `'hwconst(2*c+1)`: its length).
#[derive(Clone, Debug, PartialEq)]
pub struct Modifier {
    /// The modifier's name without the quote.
    pub name: Ident,
    /// Its arguments in parentheses, if any.
    pub args: Option<Vec<Expr>>,
}

/// The kinds of type expression.
#[derive(Clone, Debug, PartialEq)]
pub enum TypeKind {
    /// `scalar`, `vec3`, `cube{4}[int16]`, `mat[T](M,N)`, `cube(:,:,3)`, `point`
    Named {
        /// The type or class name.
        name: Ident,
        /// `{n}` or `{:}`
        dims: Option<DimSpec>,
        /// `[T, …]`
        args: Vec<TypeExpr>,
        /// `(M, N)` / `(:, :, 3)`
        sizes: Option<Vec<SizeSpec>>,
    },
    /// `??`
    Unknown,
    /// `^T`
    Pointer(Box<TypeExpr>),
    /// `[int|cube]`
    Union(Vec<TypeExpr>),
    /// `{T1, T2}`: a typed cell
    Cell(Vec<TypeExpr>),
    /// `[__device__ (A, ...B) -> (C, D)]`
    Function(FunctionType),
    /// `()` (no outputs in a function type)
    Unit,
    /// Modifiers only, type left to inference: `x : 'const = 4`.
    Inferred,
}

/// The rank written in braces after a type name.
#[derive(Clone, Debug, PartialEq)]
pub enum DimSpec {
    /// `{n}`: exactly this many dimensions.
    Fixed(Expr),
    /// `{:}`: any number of dimensions.
    Any,
}

/// The size of one dimension in a type (`mat(M, N)`).
#[derive(Clone, Debug, PartialEq)]
pub enum SizeSpec {
    /// `:` any size in this dimension
    Any,
    /// A size given by an expression (a constant or a generic size parameter).
    Expr(Expr),
}

/// A function type, `[__device__ (A, ...B) -> (C, D)]`.
#[derive(Clone, Debug, PartialEq)]
pub struct FunctionType {
    /// Host, device or kernel.
    pub kind: FunctionKind,
    /// The parameter types in order.
    pub params: Vec<FunctionTypeParam>,
    /// Whether parameters were written in parentheses: `(scalar) -> scalar` vs `scalar -> scalar`.
    pub parenthesized: bool,
    /// The result types in order.
    pub results: Vec<TypeExpr>,
    /// Whether results were written in parentheses: `-> (scalar, scalar)`.
    pub results_parenthesized: bool,
}

/// One parameter of a function type.
#[derive(Clone, Debug, PartialEq)]
pub struct FunctionTypeParam {
    /// Its type.
    pub ty: TypeExpr,
    /// `...T`: collects any number of arguments.
    pub variadic: bool,
}
