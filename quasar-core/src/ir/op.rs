//! Operators as the IR has them. The syntax has more forms than the back ends compile: the
//! pipeline `|>` and the definition `:=` exist only in the source (type checking reports the
//! first and turns the second into a plain assignment), so these enums leave them out and
//! both back ends match them exhaustively.

/// A prefix operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    /// `-x`
    Neg,
    /// `+x`
    Plus,
    /// `!x`
    Not,
}

/// An infix operator on two values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`: the matrix product (element-wise when one side is a number)
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
}

/// How an assignment combines the stored value with the old one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AssignOp {
    /// Plain assignment (also what `:=` becomes).
    Assign,
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

impl UnaryOp {
    /// The operator as Quasar writes it.
    pub fn symbol(self) -> &'static str {
        match self {
            UnaryOp::Neg => "-",
            UnaryOp::Plus => "+",
            UnaryOp::Not => "!",
        }
    }
}

impl BinaryOp {
    /// The operator as Quasar writes it.
    pub fn symbol(self) -> &'static str {
        match self {
            BinaryOp::Add => "+",
            BinaryOp::Sub => "-",
            BinaryOp::Mul => "*",
            BinaryOp::Div => "/",
            BinaryOp::Pow => "^",
            BinaryOp::ElemMul => ".*",
            BinaryOp::ElemDiv => "./",
            BinaryOp::ElemPow => ".^",
            BinaryOp::Lt => "<",
            BinaryOp::Le => "<=",
            BinaryOp::Gt => ">",
            BinaryOp::Ge => ">=",
            BinaryOp::Eq => "==",
            BinaryOp::Ne => "!=",
            BinaryOp::And => "&&",
            BinaryOp::Or => "||",
        }
    }

    /// A comparison (`<`, `==`, …): the result is a truth value whatever the operands.
    pub fn is_comparison(self) -> bool {
        matches!(
            self,
            BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge | BinaryOp::Eq | BinaryOp::Ne
        )
    }
}

impl AssignOp {
    /// The operator as Quasar writes it.
    pub fn symbol(self) -> &'static str {
        match self {
            AssignOp::Assign => "=",
            AssignOp::Add => "+=",
            AssignOp::Sub => "-=",
            AssignOp::Mul => "*=",
            AssignOp::Div => "/=",
            AssignOp::Pow => "^=",
            AssignOp::ElemMul => ".*=",
            AssignOp::ElemDiv => "./=",
            AssignOp::ElemPow => ".^=",
            AssignOp::Max => "^^=",
            AssignOp::Min => "__=",
            AssignOp::Xor => "~=",
            AssignOp::Or => "|=",
            AssignOp::And => "&=",
        }
    }

    /// The binary operator a compound assignment applies (`a += b` is `a = a + b`); `None`
    /// for plain assignment and the atomic-only forms (`^^=`, `__=`, `~=`, `|=`, `&=`).
    pub fn binary(self) -> Option<BinaryOp> {
        Some(match self {
            AssignOp::Add => BinaryOp::Add,
            AssignOp::Sub => BinaryOp::Sub,
            AssignOp::Mul => BinaryOp::Mul,
            AssignOp::Div => BinaryOp::Div,
            AssignOp::Pow => BinaryOp::Pow,
            AssignOp::ElemMul => BinaryOp::ElemMul,
            AssignOp::ElemDiv => BinaryOp::ElemDiv,
            AssignOp::ElemPow => BinaryOp::ElemPow,
            AssignOp::Assign
            | AssignOp::Max
            | AssignOp::Min
            | AssignOp::Xor
            | AssignOp::Or
            | AssignOp::And => return None,
        })
    }
}
