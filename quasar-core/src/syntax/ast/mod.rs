//! The abstract syntax tree. Every node carries a [`Span`]; `==` compares structure only
//! (spans always compare equal), which is what the round-trip property needs.

mod expr;
mod types;

pub use expr::{Arg, AssignOp, BinaryOp, CallStyle, Expr, ExprKind, Lambda, NumberValue, UnaryOp};
pub use types::{DimSpec, FunctionType, FunctionTypeParam, Modifier, SizeSpec, TypeExpr, TypeKind};

use crate::span::Span;

/// A name as written, with its position.
#[derive(Clone, Debug, PartialEq)]
pub struct Ident {
    /// The name's text.
    pub name: String,
    /// Where it is.
    pub span: Span,
}

/// Which block-ending style a file uses (`endfor`… or the legacy `end`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum BlockStyle {
    /// `endif`, `endfor`, `endfunction`, …
    #[default]
    Modern,
    /// The legacy `end` for every block.
    Legacy,
}

/// One parsed `.q` file.
#[derive(Clone, Debug, PartialEq)]
pub struct Program {
    /// The top-level statements in order (functions and types among them).
    pub body: Vec<Stmt>,
    /// The block-ending style used, so that printing reproduces it.
    pub style: BlockStyle,
    /// The whole file.
    pub span: Span,
}

/// One statement with its position.
#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    /// What the statement is.
    pub kind: StmtKind,
    /// The statement, from its first token to its end.
    pub span: Span,
}

/// The kinds of statement.
#[derive(Clone, Debug, PartialEq)]
pub enum StmtKind {
    /// An expression evaluated for its effect: assignments, calls, declarations `x : T`.
    Expr(Expr),
    /// `if … elseif … else … endif`
    If {
        /// `if c` followed by each `elseif c`, with their bodies.
        branches: Vec<(Expr, Vec<Stmt>)>,
        /// The `else` body, if there is one.
        else_body: Option<Vec<Stmt>>,
    },
    /// `for var = iter … endfor`
    For {
        /// The loop variable.
        var: Ident,
        /// What it runs over: a range (`0..n-1`) or an array whose elements it takes.
        iter: Expr,
        /// The loop body.
        body: Vec<Stmt>,
    },
    /// `while cond … endwhile`
    While {
        /// Tested before each iteration.
        cond: Expr,
        /// The loop body.
        body: Vec<Stmt>,
    },
    /// `repeat … until cond`
    Repeat {
        /// The loop body, run at least once.
        body: Vec<Stmt>,
        /// Tested after each iteration; the loop ends when it holds.
        until: Expr,
    },
    /// `match scrutinee with | pattern -> … endmatch`
    Match {
        /// The value matched.
        scrutinee: Expr,
        /// The arms in order; the first whose pattern matches runs.
        arms: Vec<MatchArm>,
    },
    /// `try … catch e … endtry`
    Try {
        /// The statements whose errors are caught.
        body: Vec<Stmt>,
        /// The name the error is bound to in the handler, if given.
        catch_var: Option<Ident>,
        /// The exception type written after the name (`catch ex : qexception`), if any.
        catch_type: Option<TypeExpr>,
        /// The handler.
        catch_body: Vec<Stmt>,
    },
    /// `break`: leaves the innermost loop.
    Break,
    /// `continue`: starts the next iteration of the innermost loop.
    Continue,
    /// `return` (functions return by assigning their outputs).
    Return,
    /// A function or macro definition.
    Function(Box<FunctionDef>),
    /// A `type name : …` definition (alias, class or enum).
    TypeDef(Box<TypeDef>),
    /// A reduction (a rewrite rule for expressions).
    Reduction(Box<Reduction>),
    /// `symbolic a, b : scalar`
    Symbolic(Vec<Param>),
    /// `import "file.q"`
    Import {
        /// The path as written between the quotes.
        path: String,
    },
    /// `{!name key=value; …}` or, inside macros, `!name key=value`.
    Attribute(Attribute),
    /// A `#pragma …` line, kept verbatim.
    Pragma(String),
}

/// One arm of a `match`.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchArm {
    /// One pattern, or several grouped in parentheses: `| (3, 4) ->`.
    pub patterns: Vec<Expr>,
    /// The statements run when a pattern matches.
    pub body: Vec<Stmt>,
    /// From the `|` to the end of the body.
    pub span: Span,
}

/// Where a function runs and who may call it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FunctionKind {
    /// Host code, no keyword written (the default).
    Host,
    /// `__host__` written explicitly.
    ExplicitHost,
    /// `__device__`: called from kernels and other device functions.
    Device,
    /// `__kernel__`: launched over many threads with `parallel_do`.
    Kernel,
}

impl FunctionKind {
    /// The kind a word such as `__kernel__` denotes.
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
    /// Written with `macro … endmacro` (expanded when compiling).
    pub is_macro: bool,
    /// Host, device or kernel.
    pub kind: FunctionKind,
    /// The function's name.
    pub name: Ident,
    /// Generic type parameters (`f[T]`), empty when not generic.
    pub type_params: Vec<Param>,
    /// The input parameters in order.
    pub params: Vec<Param>,
    /// The outputs in order (`function [a, b] = f(…)`).
    pub outputs: Vec<Param>,
    /// `function [] = f()` (true) versus `function f()` (false), both with no outputs;
    /// `function y = f()` (false) versus `function [y] = f()` (true).
    pub bracketed_outputs: bool,
    /// Words after the parameter list, e.g. `concealed`.
    pub qualifiers: Vec<Ident>,
    /// The function body.
    pub body: Vec<Stmt>,
    /// From `function` to `endfunction`.
    pub span: Span,
}

/// A parameter (of a function, lambda, reduction or type), an output, or a symbolic name.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    /// The parameter's name.
    pub name: Ident,
    /// Its declared type, if written (`x : vec`).
    pub ty: Option<TypeExpr>,
    /// Its default value, if given (`n : int = 3`).
    pub default: Option<Expr>,
    /// `...args`
    pub variadic: bool,
    /// The whole parameter.
    pub span: Span,
}

/// `type name : … endtype`: a type alias, class or enum.
#[derive(Clone, Debug, PartialEq)]
pub struct TypeDef {
    /// The new type's name.
    pub name: Ident,
    /// Generic parameters (`type stack[T] : …`).
    pub params: Vec<Param>,
    /// What the type is.
    pub body: TypeDefBody,
    /// The whole definition.
    pub span: Span,
}

/// The flavour of a class.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClassKind {
    /// `class` (immutable, a value)
    Immutable,
    /// `mutable class` (a shared reference)
    Mutable,
    /// `dynamic class` (fields may be added at run time)
    Dynamic,
}

/// The body of a `type` definition.
#[derive(Clone, Debug, PartialEq)]
pub enum TypeDefBody {
    /// `type name : T`
    Alias(TypeExpr),
    /// `type name : [mutable|dynamic] class … endtype` or `type name : parent … endtype`
    Class {
        /// Immutable, mutable or dynamic.
        kind: ClassKind,
        /// For `type duck : bird`, the parent type; `None` for a fresh class.
        parent: Option<TypeExpr>,
        /// The fields in declaration order.
        fields: Vec<Param>,
    },
    /// `type name : enum … endtype`
    Enum(Vec<EnumVariant>),
}

/// One value of an enum.
#[derive(Clone, Debug, PartialEq)]
pub struct EnumVariant {
    /// The value's name.
    pub name: Ident,
    /// An explicit numeric value (`red = 3`), if written.
    pub value: Option<Expr>,
    /// The whole entry.
    pub span: Span,
}

/// `reduction (params) -> pattern = replacement where condition`
#[derive(Clone, Debug, PartialEq)]
pub struct Reduction {
    /// The names the pattern binds, with their types.
    pub params: Vec<Param>,
    /// Whether the parameters were written in parentheses.
    pub parenthesized: bool,
    /// The expression shape the rule matches.
    pub pattern: Expr,
    /// What a match is rewritten to.
    pub replacement: Expr,
    /// The rule applies only when this holds (`where …`).
    pub condition: Option<Expr>,
    /// The whole reduction.
    pub span: Span,
}

/// A code attribute block: `{!parallel for; blkdim=M}`; one block may hold several
/// attributes, each starting with `!` after the first.
#[derive(Clone, Debug, PartialEq)]
pub struct Attribute {
    /// Written in braces `{!…}` (false for the `!name …` form inside macros).
    pub braced: bool,
    /// The attributes in order.
    pub items: Vec<AttributeItem>,
    /// The whole block.
    pub span: Span,
}

/// One attribute of a code attribute block, `!name key=value, …`.
#[derive(Clone, Debug, PartialEq)]
pub struct AttributeItem {
    /// The attribute's name words: `["parallel", "for"]`, `["kernel_tiling"]`.
    pub name: Vec<Ident>,
    /// The arguments in order.
    pub args: Vec<AttributeArg>,
    /// The attribute with its arguments.
    pub span: Span,
}

/// One `key=value` argument of an attribute.
#[derive(Clone, Debug, PartialEq)]
pub struct AttributeArg {
    /// The argument's name.
    pub key: Ident,
    /// Its value.
    pub value: Expr,
    /// The separator written before this argument (`;` or `,`), for faithful printing.
    pub sep: AttrSep,
}

/// The separator written before an attribute argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AttrSep {
    /// The first argument (nothing before it).
    First,
    /// `;`
    Semi,
    /// `,`
    Comma,
}
