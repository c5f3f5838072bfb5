//! The typed IR: what type inference produces and every later layer consumes.
//!
//! Each function *instance* (one per distinct tuple of argument types, manual §17.1.3) has
//! its own locals, each with one type; every expression carries its type; implicit
//! conversions are explicit [`ExprKind::Convert`] nodes; calls name the instance or the
//! [`Builtin`] they resolve to; constants are folded. A readable dump is in [`dump_body`].
//!
//! # Invariants
//!
//! [`verify`] checks these after type checking and after every pass (the driver reports a
//! violation as an internal compiler error naming the stage):
//!
//! 1. Every [`LocalId`] names a local of its function and every [`FunctionId`] a function of
//!    the module; parameters have the role `Param` or `Special`, outputs `Output`, captures
//!    `Capture`.
//! 2. A local is [`LocalRole::Special`] only as a parameter of a kernel ([`Special`] is the one
//!    list of special parameters).
//! 3. Every expression and place has a [`NodeId`] unique in its function ([`number`]); results
//!    about nodes are keyed by it, never by span.
//! 4. A call passes its callee's parameters then its captures; a launch passes the kernel's
//!    non-special parameters then its captures; a kernel is launched, never called; a closure
//!    gives each capture of its function.
//! 5. After the driver's prune, concrete code never calls a generic (error-only) instance.
//! 6. `break`/`continue` are inside loops; `syncthreads` is not in host code.
//! 7. Operators are the IR's own ([`op`]): no pipeline `|>`, and `:=` is a plain assignment.
//! 8. A class value ([`ExprKind::Construct`]) names a class of the module and gives each
//!    field at most once, only fields of the class unless it is dynamic, and every field or
//!    none; a field access on a value of a class type names one of its fields unless the
//!    class is dynamic (fields added at run time).
//!
//! Walk the IR with [`visit`]; a kernel's interior/border partition is in [`partition`].

pub mod builtin;
pub mod dump;
pub mod dump_body;
pub mod number;
pub mod op;
pub mod partition;
pub mod prune;
pub mod slice;
pub mod special;
pub mod verify;
pub mod visit;
pub mod walk;

pub use builtin::{Builtin, BuiltinKind};
pub use op::{AssignOp, BinaryOp, UnaryOp};
pub use special::Special;

use crate::sema::types::{ClassId, EnumId, Type};
use crate::span::Span;
use crate::syntax::ast::FunctionKind;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FunctionId(pub u32);

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LocalId(pub u32);

/// Names one expression or place of a function body, unique within its function: the key of
/// every per-node analysis result (spans are not unique: a copied subtree keeps its span).
/// [`number::number_module`] assigns them after type checking and after each pass;
/// [`NodeId::NONE`] until then.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub u32);

impl NodeId {
    pub const NONE: NodeId = NodeId(0);
}

/// A whole checked program.
#[derive(Clone, Debug, Default)]
pub struct Module {
    pub functions: Vec<Function>,
    pub classes: Vec<ClassDef>,
    pub enums: Vec<EnumDef>,
    /// The instance holding the file's top-level statements.
    pub script: Option<FunctionId>,
    /// The `main` function without parameters, run after the script (manual §13.1).
    pub main: Option<FunctionId>,
}

impl Module {
    pub fn function(&self, id: FunctionId) -> &Function {
        &self.functions[id.0 as usize]
    }
}

#[derive(Clone, Debug)]
pub struct ClassDef {
    pub id: ClassId,
    pub name: String,
    pub mutable: bool,
    pub dynamic: bool,
    pub parent: Option<ClassId>,
    /// The type parameters of a parametric class (`stack[T]`): the fields' types name them
    /// as `Type::Param`.
    pub params: Vec<String>,
    /// All fields, inherited ones first.
    pub fields: Vec<(String, Type)>,
    pub span: Span,
}

impl ClassDef {
    /// The fields of the instance `args` of this class (`stack[int]`: `tab : vec[int]`).
    pub fn fields_of(&self, args: &[Type]) -> Vec<(String, Type)> {
        if self.params.is_empty() || args.is_empty() {
            return self.fields.clone();
        }
        let bind =
            |n: &str| self.params.iter().position(|p| p == n).and_then(|i| args.get(i).cloned());
        self.fields.iter().map(|(f, t)| (f.clone(), t.substitute(&bind))).collect()
    }
}

#[derive(Clone, Debug)]
pub struct EnumDef {
    pub id: EnumId,
    pub name: String,
    pub variants: Vec<(String, i64)>,
    pub span: Span,
}

/// One instance of a source function (or lambda) for one tuple of parameter types.
#[derive(Clone, Debug)]
pub struct Function {
    /// The name in the source (`<script>` for top-level code, `<lambda>` for lambdas).
    pub name: String,
    /// A name unique in the module, e.g. `scale__mat_scalar`.
    pub instance_name: String,
    pub kind: FunctionKind,
    pub params: Vec<LocalId>,
    pub outputs: Vec<LocalId>,
    /// Values captured from the defining scope (closures capture by value, read-only).
    pub captures: Vec<LocalId>,
    pub locals: Vec<Local>,
    pub body: Block,
    /// Defined at the top level of the file (and so exported to Rust).
    pub top_level: bool,
    /// Some parameter type is not fully known (`??`, a type class or an unbound generic
    /// parameter): this instance was checked for errors only, and code is generated for
    /// the instances that calls create instead.
    pub generic: bool,
    pub span: Span,
    /// A kernel's interior/border partition (boundary-check elimination), once
    /// `transform::interior` ran.
    pub partition: Option<partition::Partition>,
}

impl Function {
    pub fn local(&self, id: LocalId) -> &Local {
        &self.locals[id.0 as usize]
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LocalRole {
    Param,
    Output,
    Capture,
    /// A kernel's special parameter, supplied by the launch ([`Special`]).
    Special(Special),
    Var,
}

#[derive(Clone, Debug)]
pub struct Local {
    pub name: String,
    pub ty: Type,
    pub role: LocalRole,
    pub span: Span,
}

impl Local {
    /// The special parameter this local is, if it is one.
    pub fn special(&self) -> Option<Special> {
        match self.role {
            LocalRole::Special(s) => Some(s),
            _ => None,
        }
    }
}

pub type Block = Vec<Stmt>;

#[derive(Clone, Debug)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum StmtKind {
    /// `place op= value`; `op` is [`AssignOp::Assign`] for plain assignment. On array
    /// elements inside kernel and device functions, compound assignments are atomic.
    Assign {
        place: Place,
        op: AssignOp,
        value: Expr,
    },
    /// `[a, _, c] = value` where `value` has a tuple type (or a vector/cell to unpack).
    Destructure {
        places: Vec<Option<Place>>,
        value: Expr,
    },
    Expr(Expr),
    If {
        cond: Expr,
        then_body: Block,
        else_body: Block,
    },
    /// `for var = start..step..end`
    ForRange {
        var: LocalId,
        start: Expr,
        step: Expr,
        end: Expr,
        body: Block,
        /// `{!parallel for}` / `{!serial for}` written before the loop.
        hint: LoopHint,
    },
    /// `for var = values` over the elements of an array, in linear (row-major) order.
    ForEach {
        var: LocalId,
        values: Expr,
        body: Block,
    },
    While {
        cond: Expr,
        body: Block,
    },
    Repeat {
        body: Block,
        until: Expr,
    },
    Break,
    Continue,
    Return,
    Match {
        scrutinee: Expr,
        arms: Vec<MatchArm>,
        default: Option<Block>,
    },
    Try {
        body: Block,
        catch_var: Option<LocalId>,
        handler: Block,
    },
    Print(Vec<Expr>),
    /// `error "…", values`: a run-time error with this message.
    Error(Vec<Expr>),
    Assert {
        cond: Expr,
        message: Vec<Expr>,
    },
    /// `syncthreads` (a barrier among the threads of a block).
    SyncThreads,
}

/// What the code attribute before a `for` loop asks of the loop parallelizer (manual §8.2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LoopHint {
    /// No attribute: parallelised when the analysis proves it safe.
    #[default]
    Auto,
    /// `{!parallel for}` (`dims`: `{!parallel for; dim=N}`): parallelised despite
    /// dependencies (with a warning); a loop it cannot turn into a kernel is an error.
    Parallel { dims: Option<u8> },
    /// `{!serial for}`: run as written.
    Serial,
}

#[derive(Clone, Debug)]
pub struct MatchArm {
    pub values: Vec<Expr>,
    pub body: Block,
}

/// Something that can be assigned to.
#[derive(Clone, Debug)]
pub struct Place {
    pub kind: PlaceKind,
    pub ty: Type,
    pub span: Span,
    pub id: NodeId,
}

impl Place {
    pub fn new(kind: PlaceKind, ty: Type, span: Span) -> Place {
        Place { kind, ty, span, id: NodeId::NONE }
    }
}

#[derive(Clone, Debug)]
pub enum PlaceKind {
    Local(LocalId),
    Index { base: Box<Expr>, indices: Vec<Index> },
    Field { base: Box<Expr>, field: String },
}

/// One subscript of an indexing expression.
#[derive(Clone, Debug)]
pub enum Index {
    /// A single position (an `int`, or an `ivecN` addressing N dimensions at once).
    At(Expr),
    /// `:` the whole dimension.
    All,
    /// `a..b` / `a..s..b` (inclusive).
    Range { start: Box<Expr>, step: Option<Box<Expr>>, end: Box<Expr> },
    /// `...v`: the elements of `v` address consecutive dimensions.
    Spread(Expr),
    /// A vector of indices in one dimension among several (`im[m, n + (0..3)]`): the
    /// elements at each of those indices. (A vector as the *only* subscript is a position,
    /// [`Index::At`], as in `x[pos]`.)
    List(Expr),
}

#[derive(Clone, Debug)]
pub struct Expr {
    pub kind: ExprKind,
    pub ty: Type,
    pub span: Span,
    pub id: NodeId,
}

/// A folded constant.
#[derive(Clone, Debug, PartialEq)]
pub enum Const {
    Int(i64),
    Scalar(f64),
    Complex(f64, f64),
    Str(String),
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

#[derive(Clone, Debug)]
pub enum ExprKind {
    Const(Const),
    Local(LocalId),
    /// A named function used as a value (a function handle).
    FunctionRef(FunctionId),
    /// A built-in function used as a value (`sin` passed to a higher-order function).
    BuiltinRef(Builtin),
    Unary {
        op: UnaryOp,
        operand: Box<Expr>,
    },
    Binary {
        op: BinaryOp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    /// An implicit conversion to `ty`, made explicit.
    Convert(Box<Expr>),
    Call {
        callee: Callee,
        args: Vec<Expr>,
    },
    /// `parallel_do(dims, args…, kernel)` (or `[dims, blkdims]`): runs `kernel` on every
    /// position of `dims`; the value is the kernel's reduced outputs, if any.
    ParallelDo {
        dims: Box<Expr>,
        block_dims: Option<Box<Expr>>,
        kernel: FunctionId,
        args: Vec<Expr>,
    },
    Index {
        base: Box<Expr>,
        indices: Vec<Index>,
    },
    Field {
        base: Box<Expr>,
        field: String,
    },
    Matrix(Vec<Expr>),
    Cell(Vec<Expr>),
    Range {
        start: Box<Expr>,
        step: Option<Box<Expr>>,
        end: Box<Expr>,
    },
    Ternary {
        cond: Box<Expr>,
        then: Box<Expr>,
        otherwise: Box<Expr>,
    },
    /// A lambda or nested function as a value, with the values it captures.
    Closure {
        function: FunctionId,
        captures: Vec<Expr>,
    },
    /// `point(x := 1, y := 2)`: a class value with every field given.
    Construct {
        class: ClassId,
        fields: Vec<(String, Expr)>,
    },
    /// An assignment used as a value (`cnt = (p.n += 1)`), the assigned value.
    Assign {
        place: Box<Place>,
        op: AssignOp,
        value: Box<Expr>,
    },
    /// A type used as a value (`vec[int]`, `scalar` in `cast(x, scalar)`).
    TypeValue,
    /// The enumeration value `Enum.Name`.
    EnumValue {
        id: EnumId,
        value: i64,
    },
    /// `(a; b; c)`: evaluates each in turn; the value is the last one's.
    Sequence(Vec<Expr>),
    /// `...v` as an argument: the elements of `v` as separate arguments.
    Spread(Box<Expr>),
    /// Result `index` of a call with several results (the first, where one value is used).
    TupleField {
        tuple: Box<Expr>,
        index: usize,
    },
}

impl Expr {
    pub fn new(kind: ExprKind, ty: Type, span: Span) -> Expr {
        Expr { kind, ty, span, id: NodeId::NONE }
    }

    pub fn constant(&self) -> Option<&Const> {
        match &self.kind {
            ExprKind::Const(c) => Some(c),
            _ => None,
        }
    }
}
