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
//! 9. After type checking the driver decides `scalar`'s precision once ([`precision`]): what
//!    passes and back ends see has no [`Precision::Default`] in any type, only `'single` or
//!    `'double` as the double mode says (and `'half`), so no back end decides it.
//!
//! Walk the IR with [`visit`]; a kernel's interior/border partition is in [`partition`].

pub mod builtin;
pub mod dump;
pub mod dump_body;
mod expr;
pub mod number;
pub mod op;
pub mod partition;
pub mod precision;
pub mod prune;
pub mod slice;
pub mod special;
pub mod verify;
pub mod visit;
pub mod walk;

pub use builtin::{Builtin, BuiltinKind};
pub use expr::{Callee, Const, Expr, ExprKind, Index, Place, PlaceKind};
pub use op::{AssignOp, BinaryOp, UnaryOp};
pub use special::Special;

#[cfg(doc)]
use crate::sema::types::Precision;
use crate::sema::types::{ClassId, EnumId, Type};
use crate::span::Span;
use crate::syntax::ast::FunctionKind;

/// The index of a function instance in [`Module::functions`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FunctionId(pub u32);

/// The index of a local in [`Function::locals`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LocalId(pub u32);

/// Names one expression or place of a function body, unique within its function: the key of
/// every per-node analysis result (spans are not unique: a copied subtree keeps its span).
/// [`number::number_module`] assigns them after type checking and after each pass;
/// [`NodeId::NONE`] until then.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub u32);

impl NodeId {
    /// Not numbered yet.
    pub const NONE: NodeId = NodeId(0);
}

/// A whole checked program.
#[derive(Clone, Debug, Default)]
pub struct Module {
    /// Every function instance, indexed by [`FunctionId`].
    pub functions: Vec<Function>,
    /// The class definitions, indexed by [`ClassId`].
    pub classes: Vec<ClassDef>,
    /// The enum definitions, indexed by [`EnumId`].
    pub enums: Vec<EnumDef>,
    /// The instance holding the file's top-level statements.
    pub script: Option<FunctionId>,
    /// The `main` function without parameters, run after the script (manual §13.1).
    pub main: Option<FunctionId>,
}

impl Module {
    /// The function instance `id`.
    pub fn function(&self, id: FunctionId) -> &Function {
        &self.functions[id.0 as usize]
    }
}

/// A class (`type point : class … endtype`) with its fields.
#[derive(Clone, Debug)]
pub struct ClassDef {
    /// Its index in [`Module::classes`].
    pub id: ClassId,
    /// Its name as declared.
    pub name: String,
    /// `mutable class`: values are shared references.
    pub mutable: bool,
    /// `dynamic class`: fields may be added at run time.
    pub dynamic: bool,
    /// The class it extends (`type duck : bird`), if any.
    pub parent: Option<ClassId>,
    /// The type parameters of a parametric class (`stack[T]`): the fields' types name them
    /// as `Type::Param`.
    pub params: Vec<String>,
    /// All fields, inherited ones first.
    pub fields: Vec<(String, Type)>,
    /// The declaration.
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

/// An enum (`type color : enum … endtype`).
#[derive(Clone, Debug)]
pub struct EnumDef {
    /// Its index in [`Module::enums`].
    pub id: EnumId,
    /// Its name as declared.
    pub name: String,
    /// Each value's name and number, in declaration order.
    pub variants: Vec<(String, i64)>,
    /// The declaration.
    pub span: Span,
}

/// One instance of a source function (or lambda) for one tuple of parameter types.
#[derive(Clone, Debug)]
pub struct Function {
    /// The name in the source (`<script>` for top-level code, `<lambda>` for lambdas).
    pub name: String,
    /// A name unique in the module, e.g. `scale__mat_scalar`.
    pub instance_name: String,
    /// Host, device or kernel.
    pub kind: FunctionKind,
    /// The input parameters in order.
    pub params: Vec<LocalId>,
    /// The outputs in order (the results of a call).
    pub outputs: Vec<LocalId>,
    /// Values captured from the defining scope (closures capture by value, read-only).
    pub captures: Vec<LocalId>,
    /// Every variable of the instance, indexed by [`LocalId`] (parameters, outputs and captures among them).
    pub locals: Vec<Local>,
    /// The statements of the body.
    pub body: Block,
    /// Defined at the top level of the file (and so exported to Rust).
    pub top_level: bool,
    /// Some parameter type is not fully known (`??`, a type class or an unbound generic
    /// parameter): this instance was checked for errors only, and code is generated for
    /// the instances that calls create instead.
    pub generic: bool,
    /// The definition (the lambda for a lambda).
    pub span: Span,
    /// A kernel's interior/border partition (boundary-check elimination), once
    /// `transform::interior` ran.
    pub partition: Option<partition::Partition>,
    /// A kernel whose outputs start at the identity of their reduction (1 for `*=`, the
    /// smallest value for `^^=`, the largest for `__=`) instead of zero: the kernels that the
    /// loop parallelizer makes of `acc *= …`, `acc ^^= …` and `acc __= …` loops.
    pub outputs_from_identity: bool,
    /// The generic size parameters (`N` of `f[N](x : vec(N))`) that this instance takes from
    /// its arguments' sizes at run time, since no call fixes them (`sema/check/size_params.rs`).
    pub runtime_sizes: Vec<String>,
}

impl Function {
    /// The local `id`.
    pub fn local(&self, id: LocalId) -> &Local {
        &self.locals[id.0 as usize]
    }
}

/// What a local is to its function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LocalRole {
    /// An input parameter.
    Param,
    /// An output (a result of the function).
    Output,
    /// A value captured from the enclosing scope.
    Capture,
    /// A kernel's special parameter, supplied by the launch ([`Special`]).
    Special(Special),
    /// A variable of the body (or a loop variable).
    Var,
}

/// A variable of a function instance: a parameter, an output, a capture or a plain variable.
#[derive(Clone, Debug)]
pub struct Local {
    /// Its name in the source.
    pub name: String,
    /// Its type (one type for the whole instance).
    pub ty: Type,
    /// Parameter, output, capture, special parameter or variable.
    pub role: LocalRole,
    /// Where it is declared or first assigned.
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

/// A sequence of statements.
pub type Block = Vec<Stmt>;

/// A statement with its position.
#[derive(Clone, Debug)]
pub struct Stmt {
    /// What the statement is.
    pub kind: StmtKind,
    /// The statement in the source.
    pub span: Span,
}

/// The kinds of statement.
#[derive(Clone, Debug)]
pub enum StmtKind {
    /// `place op= value`; `op` is [`AssignOp::Assign`] for plain assignment. On array
    /// elements inside kernel and device functions, compound assignments are atomic.
    Assign {
        /// The target.
        place: Place,
        /// Plain or compound.
        op: AssignOp,
        /// The value stored.
        value: Expr,
    },
    /// `[a, _, c] = value` where `value` has a tuple type (or a vector/cell to unpack).
    Destructure {
        /// One target per result; `None` for `_`.
        places: Vec<Option<Place>>,
        /// The value unpacked.
        value: Expr,
    },
    /// An expression evaluated for its effect (a call).
    Expr(Expr),
    /// `if cond … else … endif` (`elseif` chains nest in `else_body`).
    If {
        /// The condition.
        cond: Expr,
        /// Run when the condition holds.
        then_body: Block,
        /// Run otherwise (empty when there is no `else`).
        else_body: Block,
    },
    /// `for var = start..step..end`
    ForRange {
        /// The loop variable.
        var: LocalId,
        /// The first value.
        start: Expr,
        /// The step (1 when not written).
        step: Expr,
        /// The last value (included).
        end: Expr,
        /// The loop body.
        body: Block,
        /// `{!parallel for}` / `{!serial for}` written before the loop.
        hint: LoopHint,
    },
    /// `for var = values` over the elements of an array, in linear (row-major) order.
    ForEach {
        /// The loop variable, an element.
        var: LocalId,
        /// The array or vector whose elements it takes.
        values: Expr,
        /// The loop body.
        body: Block,
    },
    /// `while cond … endwhile`
    While {
        /// Tested before each iteration.
        cond: Expr,
        /// The loop body.
        body: Block,
    },
    /// `repeat … until cond`
    Repeat {
        /// The loop body, run at least once.
        body: Block,
        /// Tested after each iteration; the loop ends when it holds.
        until: Expr,
    },
    /// Leaves the innermost loop.
    Break,
    /// Goes to the next iteration of the innermost loop.
    Continue,
    /// Returns from the function (the outputs hold what was assigned).
    Return,
    /// `match scrutinee with | values -> … endmatch`
    Match {
        /// The value matched.
        scrutinee: Expr,
        /// The cases in order; the first with an equal value runs.
        arms: Vec<MatchArm>,
        /// The `_` case, if any.
        default: Option<Block>,
    },
    /// `try … catch e … endtry`
    Try {
        /// The statements whose errors are caught.
        body: Block,
        /// The variable the error message is bound to, if named.
        catch_var: Option<LocalId>,
        /// Run when the body fails.
        handler: Block,
    },
    /// `print a, b`: writes the values to standard output.
    Print(Vec<Expr>),
    /// `error "…", values`: a run-time error with this message.
    Error(Vec<Expr>),
    /// `assert(cond)` / `assert(cond, "message")`: a run-time error when `cond` is false.
    Assert {
        /// The condition that must hold.
        cond: Expr,
        /// The message (string parts), empty to show the condition.
        message: Vec<Expr>,
    },
    /// `syncthreads` (a barrier among the threads of a block).
    SyncThreads,
}

/// What the code attribute before a `for` loop asks of the loop parallelizer (manual §8.2).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum LoopHint {
    /// No attribute: parallelised when the analysis proves it safe.
    #[default]
    Auto,
    /// `{!parallel for}` (`dims`: `{!parallel for; dim=N}`): parallelised despite
    /// dependencies (with a warning); a loop it cannot turn into a kernel is an error.
    Parallel {
        /// How many nested loops to parallelise, when given.
        dims: Option<u8>,
        /// The block size, when given (`{!parallel for; blkdim=M}`, manual §9.2.3.3).
        block: Option<Box<BlockSize>>,
    },
    /// `{!serial for}`: run as written.
    Serial,
}

/// The block size of a `{!parallel for}` loop: a constant, or a variable set before the loop
/// (boxed in [`LoopHint::Parallel`]: loops are many, block sizes rare).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockSize {
    /// A number.
    Const(u32),
    /// An `int` variable.
    Local(LocalId),
    /// `blkdim=[M, N]`: the block's extent in each of the innermost parallelised loops,
    /// outermost first: the first `.1` of the array (2 or 3).
    Dims([BlockSize1; 3], u8),
}

/// One extent of a [`BlockSize::Dims`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockSize1 {
    /// A number.
    Const(u32),
    /// An `int` variable.
    Local(LocalId),
}

impl BlockSize {
    /// The extents, outermost first (one for a number or a variable: the innermost loop's).
    pub fn extents(&self) -> Vec<BlockSize1> {
        match self {
            BlockSize::Const(n) => vec![BlockSize1::Const(*n)],
            BlockSize::Local(l) => vec![BlockSize1::Local(*l)],
            BlockSize::Dims(xs, n) => xs[..usize::from(*n).min(3)].to_vec(),
        }
    }
}

/// One case of a `match`.
#[derive(Clone, Debug)]
pub struct MatchArm {
    /// The values that select it.
    pub values: Vec<Expr>,
    /// The statements run.
    pub body: Block,
}
