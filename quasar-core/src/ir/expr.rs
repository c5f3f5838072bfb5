//! Places (what can be assigned to) and expressions of the IR.

use super::{AssignOp, BinaryOp, Builtin, FunctionId, LocalId, NodeId, UnaryOp};
use crate::sema::types::{ClassId, EnumId, Type};
use crate::span::Span;

/// Something that can be assigned to.
#[derive(Clone, Debug)]
pub struct Place {
    /// A variable, an element or slice, or a field.
    pub kind: PlaceKind,
    /// The type of the target (what is stored).
    pub ty: Type,
    /// The target in the source.
    pub span: Span,
    /// The node's id (see [`NodeId`]).
    pub id: NodeId,
}

impl Place {
    /// A place not numbered yet.
    pub fn new(kind: PlaceKind, ty: Type, span: Span) -> Place {
        Place { kind, ty, span, id: NodeId::NONE }
    }
}

/// What is assigned to.
#[derive(Clone, Debug)]
pub enum PlaceKind {
    /// A variable.
    Local(LocalId),
    /// An element or slice of an array (`x[i, j] = v`, `x[:, 0] = v`).
    Index {
        /// The array.
        base: Box<Expr>,
        /// The subscripts in order.
        indices: Vec<Index>,
    },
    /// A field of a class value (`p.x = v`).
    Field {
        /// The class value.
        base: Box<Expr>,
        /// The field's name.
        field: String,
    },
}

/// One subscript of an indexing expression.
#[derive(Clone, Debug)]
pub enum Index {
    /// A single position (an `int`, or an `ivecN` addressing N dimensions at once).
    At(Expr),
    /// `:` the whole dimension.
    All,
    /// `a..b` / `a..s..b` (inclusive).
    Range {
        /// The first index.
        start: Box<Expr>,
        /// The step, 1 when not written.
        step: Option<Box<Expr>>,
        /// The last index (included).
        end: Box<Expr>,
    },
    /// `...v`: the elements of `v` address consecutive dimensions.
    Spread(Expr),
    /// A vector of indices in one dimension among several (`im[m, n + (0..3)]`): the
    /// elements at each of those indices. (A vector as the *only* subscript is a position,
    /// [`Index::At`], as in `x[pos]`.)
    List(Expr),
}

/// A typed expression.
#[derive(Clone, Debug)]
pub struct Expr {
    /// What the expression is.
    pub kind: ExprKind,
    /// Its type, as inferred.
    pub ty: Type,
    /// The expression in the source.
    pub span: Span,
    /// The node's id (see [`NodeId`]).
    pub id: NodeId,
}

/// A folded constant.
#[derive(Clone, Debug, PartialEq)]
pub enum Const {
    /// An integer.
    Int(i64),
    /// A real number.
    Scalar(f64),
    /// A complex number (real part, imaginary part).
    Complex(f64, f64),
    /// A string.
    Str(String),
    /// `nullptr`
    Null,
}

/// What a call invokes.
#[derive(Clone, Debug)]
pub enum Callee {
    /// A function instance of this module.
    Function(FunctionId),
    /// A built-in (`sin`, `zeros`, `size`, a `thread_block` method, …).
    Builtin(Builtin),
    /// A function value (a lambda, a function handle, a captured device function).
    Value(Box<Expr>),
    /// A call whose target type inference has not settled, named as written: a recursive
    /// call whose result type is still being inferred, or a call after a reported error.
    /// Back ends report it as unsupported.
    Unresolved(String),
}

/// The kinds of expression.
#[derive(Clone, Debug)]
pub enum ExprKind {
    /// A constant (literal or folded).
    Const(Const),
    /// A variable.
    Local(LocalId),
    /// A named function used as a value (a function handle).
    FunctionRef(FunctionId),
    /// A built-in function used as a value (`sin` passed to a higher-order function).
    BuiltinRef(Builtin),
    /// A prefix operation.
    Unary {
        /// Which operator.
        op: UnaryOp,
        /// The operand.
        operand: Box<Expr>,
    },
    /// An infix operation.
    Binary {
        /// Which operator.
        op: BinaryOp,
        /// The left operand.
        lhs: Box<Expr>,
        /// The right operand.
        rhs: Box<Expr>,
    },
    /// An implicit conversion to `ty`, made explicit.
    Convert(Box<Expr>),
    /// A call of a function, built-in or function value.
    Call {
        /// What is called.
        callee: Callee,
        /// The arguments in order.
        args: Vec<Expr>,
    },
    /// `parallel_do(dims, args…, kernel)` (or `[dims, blkdims]`): runs `kernel` on every
    /// position of `dims`; the value is the kernel's reduced outputs, if any.
    ParallelDo {
        /// The launch dimensions (a number or a vector of up to three).
        dims: Box<Expr>,
        /// The block dimensions, when given (`[dims, blkdims]`).
        block_dims: Option<Box<Expr>>,
        /// The kernel instance.
        kernel: FunctionId,
        /// The launch arguments in order (the kernel's parameters, then its captures).
        args: Vec<Expr>,
    },
    /// An element or slice of an array (`x[i, j]`, `x[:, 0]`).
    Index {
        /// The array (or vector).
        base: Box<Expr>,
        /// The subscripts in order.
        indices: Vec<Index>,
    },
    /// A field of a class value (`p.x`).
    Field {
        /// The class value.
        base: Box<Expr>,
        /// The field's name.
        field: String,
    },
    /// A matrix literal `[a, b; c, d]` (vectors among the items are concatenated).
    Matrix(Vec<Expr>),
    /// A cell array literal `{a, b}`.
    Cell(Vec<Expr>),
    /// A range `a..b` or `a..step..b` as a vector value.
    Range {
        /// The first value.
        start: Box<Expr>,
        /// The step, 1 when not written.
        step: Option<Box<Expr>>,
        /// The last value (included).
        end: Box<Expr>,
    },
    /// `cond ? then : otherwise`
    Ternary {
        /// The condition.
        cond: Box<Expr>,
        /// The value when it holds.
        then: Box<Expr>,
        /// The value otherwise.
        otherwise: Box<Expr>,
    },
    /// A lambda or nested function as a value, with the values it captures.
    Closure {
        /// The lambda's or nested function's instance.
        function: FunctionId,
        /// The captured values, in the order of [`Function::captures`](super::Function::captures).
        captures: Vec<Expr>,
    },
    /// `point(x := 1, y := 2)`: a class value with every field given.
    Construct {
        /// The class constructed.
        class: ClassId,
        /// Each field's name and value.
        fields: Vec<(String, Expr)>,
    },
    /// An assignment used as a value (`cnt = (p.n += 1)`), the assigned value.
    Assign {
        /// The target.
        place: Box<Place>,
        /// Plain or compound.
        op: AssignOp,
        /// The value stored.
        value: Box<Expr>,
    },
    /// A type used as a value (`vec[int]`, `scalar` in `cast(x, scalar)`).
    TypeValue,
    /// The enumeration value `Enum.Name`.
    EnumValue {
        /// The enum.
        id: EnumId,
        /// The value's number.
        value: i64,
    },
    /// `(a; b; c)`: evaluates each in turn; the value is the last one's.
    Sequence(Vec<Expr>),
    /// `...v` as an argument: the elements of `v` as separate arguments.
    Spread(Box<Expr>),
    /// Result `index` of a call with several results (the first, where one value is used).
    TupleField {
        /// The call.
        tuple: Box<Expr>,
        /// Which result (0-based).
        index: usize,
    },
}

impl Expr {
    /// An expression not numbered yet.
    pub fn new(kind: ExprKind, ty: Type, span: Span) -> Expr {
        Expr { kind, ty, span, id: NodeId::NONE }
    }

    /// The constant, if the expression is one.
    pub fn constant(&self) -> Option<&Const> {
        match &self.kind {
            ExprKind::Const(c) => Some(c),
            _ => None,
        }
    }
}
