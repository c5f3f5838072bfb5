//! Tokens produced by the lexer.

use crate::span::Span;
use std::fmt;

/// Reserved words. Words that are keywords only in one position (`type`, `with`, `where`,
/// `class`, `mutable`, `dynamic`, `enum`, `symbolic`, `import`, `__kernel__`…) are lexed
/// as identifiers and recognised by the parser where they apply.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Keyword {
    /// `function`: starts a function definition
    Function,
    /// `endfunction`: ends a function definition
    EndFunction,
    /// `macro`: starts a macro definition
    Macro,
    /// `endmacro`: ends a macro definition
    EndMacro,
    /// `if`: starts a conditional
    If,
    /// `elseif`: another condition of an `if`
    ElseIf,
    /// `else`: the branch taken when no condition holds
    Else,
    /// `endif`: ends an `if`
    EndIf,
    /// `for`: starts a counted loop
    For,
    /// `endfor`: ends a `for` loop
    EndFor,
    /// `while`: starts a loop that runs while a condition holds
    While,
    /// `endwhile`: ends a `while` loop
    EndWhile,
    /// `repeat`: starts a loop that runs until a condition holds
    Repeat,
    /// `until`: ends a `repeat` loop with its condition
    Until,
    /// `match`: starts a match on a value
    Match,
    /// `endmatch`: ends a `match`
    EndMatch,
    /// `try`: starts a block whose errors `catch` handles
    Try,
    /// `catch`: starts the handler of a `try`
    Catch,
    /// `endtry`: ends a `try`
    EndTry,
    /// `endtype`: ends a type (class) definition
    EndType,
    /// `end`: ends any block (the legacy form)
    End,
    /// `break`: leaves the innermost loop
    Break,
    /// `continue`: goes to the next iteration of the innermost loop
    Continue,
    /// `return`: returns from the function
    Return,
    /// `reduction`: declares a reduction (a rewrite rule for expressions)
    Reduction,
}

impl Keyword {
    /// The keyword spelt `s`, if it is one (case-sensitive).
    pub fn from_word(s: &str) -> Option<Keyword> {
        use Keyword::*;
        Some(match s {
            "function" => Function,
            "endfunction" => EndFunction,
            "macro" => Macro,
            "endmacro" => EndMacro,
            "if" => If,
            "elseif" => ElseIf,
            "else" => Else,
            "endif" => EndIf,
            "for" => For,
            "endfor" => EndFor,
            "while" => While,
            "endwhile" => EndWhile,
            "repeat" => Repeat,
            "until" => Until,
            "match" => Match,
            "endmatch" => EndMatch,
            "try" => Try,
            "catch" => Catch,
            "endtry" => EndTry,
            "endtype" => EndType,
            "end" => End,
            "break" => Break,
            "continue" => Continue,
            "return" => Return,
            "reduction" => Reduction,
            _ => return None,
        })
    }

    /// The keyword as written in source.
    pub fn as_str(self) -> &'static str {
        use Keyword::*;
        match self {
            Function => "function",
            EndFunction => "endfunction",
            Macro => "macro",
            EndMacro => "endmacro",
            If => "if",
            ElseIf => "elseif",
            Else => "else",
            EndIf => "endif",
            For => "for",
            EndFor => "endfor",
            While => "while",
            EndWhile => "endwhile",
            Repeat => "repeat",
            Until => "until",
            Match => "match",
            EndMatch => "endmatch",
            Try => "try",
            Catch => "catch",
            EndTry => "endtry",
            EndType => "endtype",
            End => "end",
            Break => "break",
            Continue => "continue",
            Return => "return",
            Reduction => "reduction",
        }
    }

    /// Keywords that close a block (`endfor`, legacy `end`, …).
    pub fn is_block_end(self) -> bool {
        use Keyword::*;
        matches!(
            self,
            EndFunction | EndMacro | EndIf | EndFor | EndWhile | EndMatch | EndTry | EndType | End
        )
    }
}

/// Punctuation and operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Punct {
    /// `+`: addition, or unary plus
    Plus,
    /// `-`: subtraction, or negation
    Minus,
    /// `*`: multiplication (the matrix product for matrices)
    Star,
    /// `/`: division
    Slash,
    /// `^`: power (the matrix power for matrices)
    Caret,
    /// `.*`: element-wise multiplication
    DotStar,
    /// `./`: element-wise division
    DotSlash,
    /// `.^`: element-wise power
    DotCaret,
    /// `<`: less than
    Lt,
    /// `<=`: less than or equal
    Le,
    /// `>`: greater than
    Gt,
    /// `>=`: greater than or equal
    Ge,
    /// `==`: equality
    EqEq,
    /// `!=`: inequality
    NotEq,
    /// `!`: logical not
    Bang,
    /// `&&`: logical and (short-circuit)
    AndAnd,
    /// `||`: logical or (short-circuit)
    OrOr,
    /// `=`: assignment, and default values of parameters
    Eq,
    /// `+=`: add to (atomic on array elements in kernels)
    PlusEq,
    /// `-=`: subtract from (atomic on array elements in kernels)
    MinusEq,
    /// `*=`: multiply by (atomic on array elements in kernels)
    StarEq,
    /// `/=`: divide by (atomic on array elements in kernels)
    SlashEq,
    /// `^=`: raise to a power in place
    CaretEq,
    /// `.*=`: element-wise multiply in place
    DotStarEq,
    /// `./=`: element-wise divide in place
    DotSlashEq,
    /// `.^=`: element-wise power in place
    DotCaretEq,
    /// `^^=` atomic maximum
    MaxEq,
    /// `__=` atomic minimum
    MinEq,
    /// `~=` atomic exclusive or
    XorEq,
    /// `|=` atomic or
    OrEq,
    /// `&=` atomic and
    AndEq,
    /// `?`: the conditional expression `c ? a : b`
    Question,
    /// `??` the unknown type
    QuestionQuestion,
    /// `:`: a type annotation (`x : vec`), the else part of `?`, or a whole dimension in an index
    Colon,
    /// `:=` named argument
    ColonEq,
    /// `..`: a range (`0..n-1`, `a..step..b`)
    DotDot,
    /// `...`: a variadic parameter, or spreading a vector into arguments or subscripts
    Ellipsis,
    /// `.`: field access or method call
    Dot,
    /// `,`: separates arguments, subscripts and matrix elements
    Comma,
    /// `;`: separates statements on one line, or the rows of a matrix literal
    Semi,
    /// `(`: opens a call, a parameter list or a parenthesised expression
    LParen,
    /// `)`: closes what `(` opened
    RParen,
    /// `[`: opens a matrix literal, an index or a result list
    LBracket,
    /// `]`: closes what `[` opened
    RBracket,
    /// `{`: opens a cell array, or a dimension written after a type (`cube{4}`)
    LBrace,
    /// `}`: closes what `{` or `{!` opened
    RBrace,
    /// `{!` opens a code attribute
    LBraceBang,
    /// `->`: separates a lambda's parameters from its body, and a function type's arguments from its results
    Arrow,
    /// `|`: starts an arm of a `match`
    Pipe,
    /// `|>` pipeline
    PipeGt,
}

impl Punct {
    /// The punctuation as written in source.
    pub fn as_str(self) -> &'static str {
        use Punct::*;
        match self {
            Plus => "+",
            Minus => "-",
            Star => "*",
            Slash => "/",
            Caret => "^",
            DotStar => ".*",
            DotSlash => "./",
            DotCaret => ".^",
            Lt => "<",
            Le => "<=",
            Gt => ">",
            Ge => ">=",
            EqEq => "==",
            NotEq => "!=",
            Bang => "!",
            AndAnd => "&&",
            OrOr => "||",
            Eq => "=",
            PlusEq => "+=",
            MinusEq => "-=",
            StarEq => "*=",
            SlashEq => "/=",
            CaretEq => "^=",
            DotStarEq => ".*=",
            DotSlashEq => "./=",
            DotCaretEq => ".^=",
            MaxEq => "^^=",
            MinEq => "__=",
            XorEq => "~=",
            OrEq => "|=",
            AndEq => "&=",
            Question => "?",
            QuestionQuestion => "??",
            Colon => ":",
            ColonEq => ":=",
            DotDot => "..",
            Ellipsis => "...",
            Dot => ".",
            Comma => ",",
            Semi => ";",
            LParen => "(",
            RParen => ")",
            LBracket => "[",
            RBracket => "]",
            LBrace => "{",
            RBrace => "}",
            LBraceBang => "{!",
            Arrow => "->",
            Pipe => "|",
            PipeGt => "|>",
        }
    }
}

/// What a token is; [`Token`] adds where it is.
#[derive(Clone, Debug, PartialEq)]
pub enum TokenKind {
    /// A name: a variable, function, type or a word that is a keyword only in some positions.
    Ident(String),
    /// A reserved word.
    Keyword(Keyword),
    /// A numeric literal exactly as written (`12`, `1.5e-3`, `1Fh`, `2j`).
    Number(String),
    /// A string literal's text between the quotes, escapes not yet decoded.
    Str(String),
    /// A type modifier `'name` written directly after a type or expression.
    Modifier(String),
    /// A `#…` line (e.g. `#pragma loop_parallelizer off`), text after the `#`.
    Pragma(String),
    /// An operator or delimiter.
    Punct(Punct),
    /// End of a statement line (never produced inside brackets or after `_`).
    Newline,
    /// The end of the input (the lexer's last token).
    Eof,
}

/// One token of the lexer's output.
#[derive(Clone, Debug, PartialEq)]
pub struct Token {
    /// What the token is.
    pub kind: TokenKind,
    /// Where it is in the source.
    pub span: Span,
    /// Whitespace (or a line start) separates this token from the previous one.
    /// Needed for command syntax (`print a, b`) and for `cube{4}` vs `x {…}`.
    pub space_before: bool,
}

impl fmt::Display for TokenKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TokenKind::Ident(s) => write!(f, "identifier `{s}`"),
            TokenKind::Keyword(k) => write!(f, "keyword `{}`", k.as_str()),
            TokenKind::Number(s) => write!(f, "number `{s}`"),
            TokenKind::Str(_) => write!(f, "string literal"),
            TokenKind::Modifier(m) => write!(f, "type modifier `'{m}`"),
            TokenKind::Pragma(_) => write!(f, "`#` directive"),
            TokenKind::Punct(p) => write!(f, "`{}`", p.as_str()),
            TokenKind::Newline => write!(f, "end of line"),
            TokenKind::Eof => write!(f, "end of file"),
        }
    }
}
