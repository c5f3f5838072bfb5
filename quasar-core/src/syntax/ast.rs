//! The abstract syntax tree. Every node carries a [`Span`]; `==` compares structure only
//! (spans always compare equal), which is what the round-trip property needs.

use crate::span::Span;

#[derive(Clone, Debug, PartialEq)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

/// Which block-ending style a file uses (`endfor`… or the legacy `end`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum BlockStyle {
    #[default]
    Modern,
    Legacy,
}

/// One parsed `.q` file.
#[derive(Clone, Debug, PartialEq)]
pub struct Program {
    pub body: Vec<Stmt>,
    pub style: BlockStyle,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum StmtKind {
    /// An expression evaluated for its effect: assignments, calls, declarations `x : T`.
    Expr(Expr),
    If {
        /// `if c` followed by each `elseif c`, with their bodies.
        branches: Vec<(Expr, Vec<Stmt>)>,
        else_body: Option<Vec<Stmt>>,
    },
    For {
        var: Ident,
        iter: Expr,
        body: Vec<Stmt>,
    },
    While {
        cond: Expr,
        body: Vec<Stmt>,
    },
    Repeat {
        body: Vec<Stmt>,
        until: Expr,
    },
    Match {
        scrutinee: Expr,
        arms: Vec<MatchArm>,
    },
    Try {
        body: Vec<Stmt>,
        catch_var: Option<Ident>,
        catch_body: Vec<Stmt>,
    },
    Break,
    Continue,
    /// `return` (functions return by assigning their outputs).
    Return,
    Function(Box<FunctionDef>),
    TypeDef(Box<TypeDef>),
    Reduction(Box<Reduction>),
    /// `symbolic a, b : scalar`
    Symbolic(Vec<Param>),
    /// `import "file.q"`
    Import {
        path: String,
    },
    /// `{!name key=value; …}` or, inside macros, `!name key=value`.
    Attribute(Attribute),
    /// A `#pragma …` line, kept verbatim.
    Pragma(String),
}

#[derive(Clone, Debug, PartialEq)]
pub struct MatchArm {
    /// One pattern, or several grouped in parentheses: `| (3, 4) ->`.
    pub patterns: Vec<Expr>,
    pub body: Vec<Stmt>,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FunctionKind {
    Host,
    /// `__host__` written explicitly.
    ExplicitHost,
    Device,
    Kernel,
}

impl FunctionKind {
    pub fn from_word(s: &str) -> Option<FunctionKind> {
        match s {
            "__host__" => Some(FunctionKind::ExplicitHost),
            "__device__" => Some(FunctionKind::Device),
            "__kernel__" => Some(FunctionKind::Kernel),
            _ => None,
        }
    }

    /// The keyword as written, `None` for an implicit host function.
    pub fn word(self) -> Option<&'static str> {
        match self {
            FunctionKind::Host => None,
            FunctionKind::ExplicitHost => Some("__host__"),
            FunctionKind::Device => Some("__device__"),
            FunctionKind::Kernel => Some("__kernel__"),
        }
    }
}

/// `function [outs] = kind name[T](params) concealed … endfunction` (or `macro … endmacro`).
#[derive(Clone, Debug, PartialEq)]
pub struct FunctionDef {
    pub is_macro: bool,
    pub kind: FunctionKind,
    pub name: Ident,
    pub type_params: Vec<Param>,
    pub params: Vec<Param>,
    pub outputs: Vec<Param>,
    /// `function [] = f()` (true) versus `function f()` (false), both with no outputs;
    /// `function y = f()` (false) versus `function [y] = f()` (true).
    pub bracketed_outputs: bool,
    /// Words after the parameter list, e.g. `concealed`.
    pub qualifiers: Vec<Ident>,
    pub body: Vec<Stmt>,
    pub span: Span,
}

/// A parameter (of a function, lambda, reduction or type), an output, or a symbolic name.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub name: Ident,
    pub ty: Option<TypeExpr>,
    pub default: Option<Expr>,
    /// `...args`
    pub variadic: bool,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct TypeDef {
    pub name: Ident,
    pub params: Vec<Param>,
    pub body: TypeDefBody,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClassKind {
    /// `class` (immutable, a value)
    Immutable,
    /// `mutable class` (a shared reference)
    Mutable,
    /// `dynamic class` (fields may be added at run time)
    Dynamic,
}

#[derive(Clone, Debug, PartialEq)]
pub enum TypeDefBody {
    /// `type name : T`
    Alias(TypeExpr),
    /// `type name : [mutable|dynamic] class … endtype` or `type name : parent … endtype`
    Class {
        kind: ClassKind,
        /// For `type duck : bird`, the parent type; `None` for a fresh class.
        parent: Option<TypeExpr>,
        fields: Vec<Param>,
    },
    /// `type name : enum … endtype`
    Enum(Vec<EnumVariant>),
}

#[derive(Clone, Debug, PartialEq)]
pub struct EnumVariant {
    pub name: Ident,
    pub value: Option<Expr>,
    pub span: Span,
}

/// `reduction (params) -> pattern = replacement where condition`
#[derive(Clone, Debug, PartialEq)]
pub struct Reduction {
    pub params: Vec<Param>,
    /// Whether the parameters were written in parentheses.
    pub parenthesized: bool,
    pub pattern: Expr,
    pub replacement: Expr,
    pub condition: Option<Expr>,
    pub span: Span,
}

/// A code attribute block: `{!parallel for; blkdim=M}`; one block may hold several
/// attributes, each starting with `!` after the first.
#[derive(Clone, Debug, PartialEq)]
pub struct Attribute {
    pub braced: bool,
    pub items: Vec<AttributeItem>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct AttributeItem {
    /// The attribute's name words: `["parallel", "for"]`, `["kernel_tiling"]`.
    pub name: Vec<Ident>,
    pub args: Vec<AttributeArg>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct AttributeArg {
    pub key: Ident,
    pub value: Expr,
    /// The separator written before this argument (`;` or `,`), for faithful printing.
    pub sep: AttrSep,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AttrSep {
    First,
    Semi,
    Comma,
}

/// A type written in the source.
#[derive(Clone, Debug, PartialEq)]
pub struct TypeExpr {
    pub kind: TypeKind,
    /// `'const'unchecked` and so on, in source order.
    pub modifiers: Vec<Modifier>,
    pub span: Span,
}

/// A type modifier `'name`, with arguments for the few that take them
/// (`'hwtex_nearest(4)`: a four-component texture; `'hwconst(2*c+1)`: its length).
#[derive(Clone, Debug, PartialEq)]
pub struct Modifier {
    pub name: Ident,
    pub args: Option<Vec<Expr>>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum TypeKind {
    /// `scalar`, `vec3`, `cube{4}[int16]`, `mat[T](M,N)`, `cube(:,:,3)`, `point`
    Named {
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

#[derive(Clone, Debug, PartialEq)]
pub enum DimSpec {
    Fixed(Expr),
    Any,
}

#[derive(Clone, Debug, PartialEq)]
pub enum SizeSpec {
    /// `:` any size in this dimension
    Any,
    Expr(Expr),
}

#[derive(Clone, Debug, PartialEq)]
pub struct FunctionType {
    pub kind: FunctionKind,
    pub params: Vec<FunctionTypeParam>,
    /// Whether parameters were written in parentheses: `(scalar) -> scalar` vs `scalar -> scalar`.
    pub parenthesized: bool,
    pub results: Vec<TypeExpr>,
    /// Whether results were written in parentheses: `-> (scalar, scalar)`.
    pub results_parenthesized: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct FunctionTypeParam {
    pub ty: TypeExpr,
    pub variadic: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnaryOp {
    Neg,
    Plus,
    Not,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinaryOp {
    Add,
    Sub,
    /// `*` matrix product
    Mul,
    Div,
    /// `^`
    Pow,
    /// `.*`
    ElemMul,
    /// `./`
    ElemDiv,
    /// `.^`
    ElemPow,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
    And,
    Or,
    /// `|>` the pipeline operator (chapter 15), given meaning by reductions
    Pipe,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AssignOp {
    Assign,
    /// `:=` the definition-assignment (chapter 15), given meaning by reductions
    Define,
    Add,
    Sub,
    Mul,
    Div,
    Pow,
    ElemMul,
    ElemDiv,
    ElemPow,
    /// `^^=` atomic maximum
    Max,
    /// `__=` atomic minimum
    Min,
    /// `~=` atomic xor
    Xor,
    /// `|=` atomic or
    Or,
    /// `&=` atomic and
    And,
}

/// How a call was written, so that printing reproduces it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallStyle {
    /// `f(a, b)`
    Paren,
    /// Command syntax at the start of a statement: `print a, b`, `error "x"`.
    Command,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Arg {
    /// `name := value`
    pub name: Option<Ident>,
    pub value: Expr,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Lambda {
    pub kind: FunctionKind,
    pub params: Vec<Param>,
    /// Whether the parameters were in parentheses: `(x) -> …` vs `x -> …`.
    pub parenthesized: bool,
    pub body: Box<Expr>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// A numeric literal, kept as written; see [`NumberValue`] for its decoded value.
    Number(String),
    /// A string literal's text, escapes not decoded.
    Str(String),
    Ident(String),
    /// `_`: the placeholder in `[a, _] = …` and the wildcard in `match`.
    Placeholder,
    /// `:` as an index (`A[:, 0]`) or size (`cube(:,:,3)`)
    Colon,
    /// `??` used as a type argument in an expression (`vec[??](4)`)
    Unknown,
    /// `...x`
    Spread(Box<Expr>),
    /// `a..b` or `a..step..b`
    Range {
        start: Box<Expr>,
        step: Option<Box<Expr>>,
        end: Box<Expr>,
    },
    Unary {
        op: UnaryOp,
        operand: Box<Expr>,
    },
    Binary {
        op: BinaryOp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    /// `c ? a : b`
    Ternary {
        cond: Box<Expr>,
        then: Box<Expr>,
        otherwise: Box<Expr>,
    },
    /// `lhs op= rhs`; the value of the expression is the assigned value.
    Assign {
        op: AssignOp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    /// `expr : T`: a declaration, an annotated assignment target or a type check.
    Annotated {
        expr: Box<Expr>,
        ty: Box<TypeExpr>,
    },
    Call {
        callee: Box<Expr>,
        args: Vec<Arg>,
        style: CallStyle,
    },
    /// `a[i, j]` (also `vec[int]`, `f[T]` type arguments)
    Index {
        base: Box<Expr>,
        indices: Vec<Arg>,
    },
    /// `a.name`
    Field {
        base: Box<Expr>,
        name: Ident,
    },
    /// `base{n}` / `base{:}` written directly after a type name: `cube{4}`
    Dims {
        base: Box<Expr>,
        dims: Box<DimSpec>,
    },
    /// `base'modifier`: `scalar'half` inside an expression
    Modified {
        base: Box<Expr>,
        modifier: Ident,
    },
    /// `[a, b, c]`
    Matrix(Vec<Expr>),
    /// `{a, b, c}`
    Cell(Vec<Expr>),
    /// `(a; b; c)`: a parenthesised sequence, value of the last (one element: plain parens)
    Paren(Vec<Expr>),
    /// `(a, b)`: only meaningful as grouped match patterns and lambda parameters
    Tuple(Vec<Expr>),
    Lambda(Lambda),
}

/// The decoded value of a numeric literal.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum NumberValue {
    Int(u64),
    Float(f64),
    /// `2j`, `1.5i`: the imaginary part
    Imaginary(f64),
}

impl Expr {
    pub fn new(kind: ExprKind, span: Span) -> Expr {
        Expr { kind, span }
    }
}
