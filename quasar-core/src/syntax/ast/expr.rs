//! Expressions: operators, calls, lambdas, literals.

use super::types::{DimSpec, TypeExpr};
use super::{FunctionKind, Ident, Param};
use crate::span::Span;

/// An expression with its position.
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    /// What the expression is.
    pub kind: ExprKind,
    /// From its first to its last token.
    pub span: Span,
}

/// Prefix operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnaryOp {
    /// `-x`
    Neg,
    /// `+x`
    Plus,
    /// `!x`
    Not,
}

/// Infix operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinaryOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*` matrix product
    Mul,
    /// `/`
    Div,
    /// `^`
    Pow,
    /// `.*`
    ElemMul,
    /// `./`
    ElemDiv,
    /// `.^`
    ElemPow,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `&&`
    And,
    /// `||`
    Or,
    /// `|>` the pipeline operator (chapter 15), given meaning by reductions
    Pipe,
}

/// Assignment operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AssignOp {
    /// `=`
    Assign,
    /// `:=` the definition-assignment (chapter 15), given meaning by reductions
    Define,
    /// `+=` (atomic on array elements in kernels)
    Add,
    /// `-=` (atomic on array elements in kernels)
    Sub,
    /// `*=` (atomic on array elements in kernels)
    Mul,
    /// `/=` (atomic on array elements in kernels)
    Div,
    /// `^=`
    Pow,
    /// `.*=`
    ElemMul,
    /// `./=`
    ElemDiv,
    /// `.^=`
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

/// One argument of a call or subscript of an index.
#[derive(Clone, Debug, PartialEq)]
pub struct Arg {
    /// `name := value`
    pub name: Option<Ident>,
    /// The argument's value.
    pub value: Expr,
}

/// `x -> expr` or `__device__ (x, y) -> expr`: an anonymous function.
#[derive(Clone, Debug, PartialEq)]
pub struct Lambda {
    /// Host or `__device__` (a lambda passed to a kernel must be `__device__`).
    pub kind: FunctionKind,
    /// The parameters in order.
    pub params: Vec<Param>,
    /// Whether the parameters were in parentheses: `(x) -> …` vs `x -> …`.
    pub parenthesized: bool,
    /// The body, one expression whose value is the result.
    pub body: Box<Expr>,
}

/// The kinds of expression.
#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// A numeric literal, kept as written; see [`NumberValue`] for its decoded value.
    Number(String),
    /// A string literal's text, escapes not decoded.
    Str(String),
    /// A name: a variable, function, type or constant.
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
        /// The first value.
        start: Box<Expr>,
        /// The step between values (`a..step..b`), 1 if not written.
        step: Option<Box<Expr>>,
        /// The last value (included).
        end: Box<Expr>,
    },
    /// `-x`, `+x`, `!x`
    Unary {
        /// Which operator.
        op: UnaryOp,
        /// The operand.
        operand: Box<Expr>,
    },
    /// `a op b`
    Binary {
        /// Which operator.
        op: BinaryOp,
        /// The left operand.
        lhs: Box<Expr>,
        /// The right operand.
        rhs: Box<Expr>,
    },
    /// `c ? a : b`
    Ternary {
        /// The condition.
        cond: Box<Expr>,
        /// The value when the condition holds.
        then: Box<Expr>,
        /// The value otherwise.
        otherwise: Box<Expr>,
    },
    /// `lhs op= rhs`; the value of the expression is the assigned value.
    Assign {
        /// Which assignment (`=`, `+=`, …).
        op: AssignOp,
        /// The target: a name, an element, a slice, a field or `[a, b]` for several results.
        lhs: Box<Expr>,
        /// The value assigned.
        rhs: Box<Expr>,
    },
    /// `expr : T`: a declaration, an annotated assignment target or a type check.
    Annotated {
        /// The expression or declared name.
        expr: Box<Expr>,
        /// The type it is annotated with.
        ty: Box<TypeExpr>,
    },
    /// `f(a, b)` or command syntax `print a, b`.
    Call {
        /// What is called (usually a name).
        callee: Box<Expr>,
        /// The arguments in order.
        args: Vec<Arg>,
        /// How the call was written.
        style: CallStyle,
    },
    /// `a[i, j]` (also `vec[int]`, `f[T]` type arguments)
    Index {
        /// The array (or generic function or type).
        base: Box<Expr>,
        /// The subscripts (or type arguments).
        indices: Vec<Arg>,
    },
    /// `a.name`
    Field {
        /// The object.
        base: Box<Expr>,
        /// The field or method name.
        name: Ident,
    },
    /// `base{n}` / `base{:}` written directly after a type name: `cube{4}`
    Dims {
        /// The type name.
        base: Box<Expr>,
        /// The rank in braces.
        dims: Box<DimSpec>,
    },
    /// `base'modifier`: `scalar'half` inside an expression
    Modified {
        /// The type the modifier applies to.
        base: Box<Expr>,
        /// The modifier's name without the quote.
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
    /// An anonymous function.
    Lambda(Lambda),
}

/// The decoded value of a numeric literal.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum NumberValue {
    /// An integer literal (`12`, `1Fh`).
    Int(u64),
    /// A real literal (`1.5`, `1e-3`).
    Float(f64),
    /// `2j`, `1.5i`: the imaginary part
    Imaginary(f64),
}

impl Expr {
    /// An expression from its kind and position.
    pub fn new(kind: ExprKind, span: Span) -> Expr {
        Expr { kind, span }
    }
}
