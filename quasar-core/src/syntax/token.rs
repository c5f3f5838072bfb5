//! Tokens produced by the lexer.

use crate::span::Span;
use std::fmt;

/// Reserved words. Words that are keywords only in one position (`type`, `with`, `where`,
/// `class`, `mutable`, `dynamic`, `enum`, `symbolic`, `import`, `__kernel__`…) are lexed
/// as identifiers and recognised by the parser where they apply.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Keyword {
    Function,
    EndFunction,
    Macro,
    EndMacro,
    If,
    ElseIf,
    Else,
    EndIf,
    For,
    EndFor,
    While,
    EndWhile,
    Repeat,
    Until,
    Match,
    EndMatch,
    Try,
    Catch,
    EndTry,
    EndType,
    End,
    Break,
    Continue,
    Return,
    Reduction,
}

impl Keyword {
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
    Plus,
    Minus,
    Star,
    Slash,
    Caret,
    DotStar,
    DotSlash,
    DotCaret,
    Lt,
    Le,
    Gt,
    Ge,
    EqEq,
    NotEq,
    Bang,
    AndAnd,
    OrOr,
    Eq,
    PlusEq,
    MinusEq,
    StarEq,
    SlashEq,
    CaretEq,
    DotStarEq,
    DotSlashEq,
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
    Question,
    /// `??` the unknown type
    QuestionQuestion,
    Colon,
    /// `:=` named argument
    ColonEq,
    DotDot,
    Ellipsis,
    Dot,
    Comma,
    Semi,
    LParen,
    RParen,
    LBracket,
    RBracket,
    LBrace,
    RBrace,
    /// `{!` opens a code attribute
    LBraceBang,
    Arrow,
    Pipe,
    /// `|>` pipeline
    PipeGt,
}

impl Punct {
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

#[derive(Clone, Debug, PartialEq)]
pub enum TokenKind {
    Ident(String),
    Keyword(Keyword),
    /// A numeric literal exactly as written (`12`, `1.5e-3`, `1Fh`, `2j`).
    Number(String),
    /// A string literal's text between the quotes, escapes not yet decoded.
    Str(String),
    /// A type modifier `'name` written directly after a type or expression.
    Modifier(String),
    /// A `#…` line (e.g. `#pragma loop_parallelizer off`), text after the `#`.
    Pragma(String),
    Punct(Punct),
    /// End of a statement line (never produced inside brackets or after `_`).
    Newline,
    Eof,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Token {
    pub kind: TokenKind,
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
