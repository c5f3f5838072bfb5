//! Recursive-descent parser: tokens to [`ast::Program`].
//!
//! Errors are collected, not thrown: a statement that fails to parse is reported once and
//! skipped up to the end of its line, so one mistake yields one diagnostic. Block headers
//! recover in place so that the block's body and its end keyword still match up.

mod expr;
mod items;
mod stmt;
mod types;

use super::ast::{self, BlockStyle, Expr, ExprKind, Ident};
use super::token::{Keyword, Punct, Token, TokenKind};
use crate::diagnostics::Diagnostic;
use crate::span::{FileId, Span};

/// Marks a parse failure that has already been reported.
#[derive(Debug)]
pub(crate) struct Reported;

pub(crate) type PResult<T> = Result<T, Reported>;

/// Deepest nesting of expressions/types/blocks accepted; deeper input gets an error instead
/// of overflowing the stack.
const MAX_DEPTH: u32 = 500;

/// Parses a token stream (which must end with `Eof`, as [`super::lexer::lex`] guarantees).
pub fn parse_tokens(
    tokens: &[Token],
    file: FileId,
    source_len: usize,
) -> (ast::Program, Vec<Diagnostic>) {
    let eof = Token {
        kind: TokenKind::Eof,
        span: Span::new(file, source_len as u32, source_len as u32, 1, 1),
        space_before: true,
    };
    let mut tokens = tokens.to_vec();
    if !matches!(tokens.last(), Some(Token { kind: TokenKind::Eof, .. })) {
        tokens.push(eof);
    }
    let mut p = Parser {
        tokens,
        pos: 0,
        diagnostics: Vec::new(),
        style: None,
        depth: 0,
        no_lambda: false,
        open_blocks: Vec::new(),
    };
    let body = p.parse_top_level();
    let style = p.style.map(|(s, _)| s).unwrap_or_default();
    let span = Span::new(file, 0, source_len as u32, 1, 1);
    (ast::Program { body, style, span }, p.diagnostics)
}

pub(crate) struct Parser {
    tokens: Vec<Token>,
    pos: usize,
    diagnostics: Vec<Diagnostic>,
    /// The block-ending style seen first, with where it was seen.
    style: Option<(BlockStyle, Span)>,
    depth: u32,
    /// Set while parsing `match` patterns and reduction parameters, where `->` is not a lambda.
    no_lambda: bool,
    /// The end keyword each enclosing open block expects, innermost last.
    open_blocks: Vec<Keyword>,
}

impl Parser {
    // ---- cursor -------------------------------------------------------------------------

    fn tok(&self) -> &Token {
        self.peek_tok(0)
    }

    fn peek_tok(&self, ahead: usize) -> &Token {
        let i = (self.pos + ahead).min(self.tokens.len() - 1);
        &self.tokens[i]
    }

    fn kind(&self) -> &TokenKind {
        &self.tok().kind
    }

    fn peek_kind(&self, ahead: usize) -> &TokenKind {
        &self.peek_tok(ahead).kind
    }

    fn span(&self) -> Span {
        self.tok().span
    }

    /// The span of the token just consumed.
    fn prev_span(&self) -> Span {
        self.tokens[self.pos.saturating_sub(1)].span
    }

    fn bump(&mut self) -> Token {
        let t = self.tok().clone();
        if self.pos < self.tokens.len() - 1 {
            self.pos += 1;
        }
        t
    }

    fn at_eof(&self) -> bool {
        matches!(self.kind(), TokenKind::Eof)
    }

    fn at_punct(&self, p: Punct) -> bool {
        matches!(self.kind(), TokenKind::Punct(q) if *q == p)
    }

    fn peek_is_punct(&self, ahead: usize, p: Punct) -> bool {
        matches!(self.peek_kind(ahead), TokenKind::Punct(q) if *q == p)
    }

    fn eat_punct(&mut self, p: Punct) -> Option<Span> {
        if self.at_punct(p) {
            Some(self.bump().span)
        } else {
            None
        }
    }

    fn at_kw(&self, k: Keyword) -> bool {
        matches!(self.kind(), TokenKind::Keyword(q) if *q == k)
    }

    fn eat_kw(&mut self, k: Keyword) -> Option<Span> {
        if self.at_kw(k) {
            Some(self.bump().span)
        } else {
            None
        }
    }

    /// The current token is the identifier `word` (a contextual keyword such as `with`).
    fn at_word(&self, word: &str) -> bool {
        matches!(self.kind(), TokenKind::Ident(s) if s == word)
    }

    fn peek_is_ident(&self, ahead: usize) -> bool {
        matches!(self.peek_kind(ahead), TokenKind::Ident(_))
    }

    fn at_newline(&self) -> bool {
        matches!(self.kind(), TokenKind::Newline | TokenKind::Eof)
    }

    // ---- errors -------------------------------------------------------------------------

    fn error(&mut self, d: Diagnostic) -> Reported {
        self.diagnostics.push(d);
        Reported
    }

    /// Reports "expected X, found Y" at the current token.
    fn expected(&mut self, what: &str) -> Reported {
        let found = self.kind().to_string();
        let d = Diagnostic::error(self.span(), format!("expected {what}, found {found}"))
            .with_label(format!("expected {what}"));
        self.error(d)
    }

    fn expect_punct(&mut self, p: Punct, context: &str) -> PResult<Span> {
        match self.eat_punct(p) {
            Some(s) => Ok(s),
            None => Err(self.expected(&format!("`{}` {context}", p.as_str()))),
        }
    }

    fn expect_ident(&mut self, what: &str) -> PResult<Ident> {
        match self.kind().clone() {
            TokenKind::Ident(name) => {
                let span = self.bump().span;
                Ok(Ident { name, span })
            }
            TokenKind::Keyword(k) => {
                let d = Diagnostic::error(
                    self.span(),
                    format!("`{}` is a keyword and cannot be used as {what}", k.as_str()),
                )
                .with_label("reserved word");
                Err(self.error(d))
            }
            _ => Err(self.expected(what)),
        }
    }

    /// Skips the rest of the current statement (to the end of the line or a `;`).
    fn recover_to_stmt_end(&mut self) {
        while !self.at_newline() && !self.at_punct(Punct::Semi) {
            self.bump();
        }
    }

    /// Skips the rest of the statement that began at token `start`: to the end of its line,
    /// or to a `;` outside brackets (a `;` inside `[…]` or `(…)` does not end it).
    fn recover_stmt_from(&mut self, start: usize) {
        let mut depth = 0i32;
        for t in &self.tokens[start..self.pos] {
            match t.kind {
                TokenKind::Punct(
                    Punct::LParen | Punct::LBracket | Punct::LBrace | Punct::LBraceBang,
                ) => depth += 1,
                TokenKind::Punct(Punct::RParen | Punct::RBracket | Punct::RBrace) => depth -= 1,
                _ => {}
            }
        }
        while !self.at_newline() {
            match self.kind() {
                TokenKind::Punct(Punct::Semi) if depth <= 0 => break,
                // A block end at the start of a line belongs to an enclosing block.
                TokenKind::Keyword(k)
                    if k.is_block_end()
                        && matches!(self.tokens[self.pos - 1].kind, TokenKind::Newline) =>
                {
                    break
                }
                TokenKind::Punct(
                    Punct::LParen | Punct::LBracket | Punct::LBrace | Punct::LBraceBang,
                ) => depth += 1,
                TokenKind::Punct(Punct::RParen | Punct::RBracket | Punct::RBrace) => depth -= 1,
                _ => {}
            }
            self.bump();
        }
    }

    /// Runs `f` one nesting level deeper, refusing input nested beyond [`MAX_DEPTH`].
    fn nested<T>(&mut self, f: impl FnOnce(&mut Parser) -> PResult<T>) -> PResult<T> {
        if self.depth >= MAX_DEPTH {
            let d = Diagnostic::error(self.span(), "nesting is too deep")
                .with_note(format!("at most {MAX_DEPTH} nested levels are supported"));
            return Err(self.error(d));
        }
        self.depth += 1;
        let r = crate::stack::guard(|| f(self));
        self.depth -= 1;
        r
    }

    /// Fails when a chain of `extra` operators (`a + b + …`, `f(1)(2)…`, `a.b.c…`) on top
    /// of the current nesting would build a tree deeper than [`MAX_DEPTH`]: every later
    /// pass walks the tree recursively.
    fn check_chain(&mut self, extra: u32) -> PResult<()> {
        if self.depth + extra >= MAX_DEPTH {
            let d = Diagnostic::error(self.span(), "this expression is too long")
                .with_note(format!("at most {MAX_DEPTH} operators can be chained; split it with intermediate variables"));
            return Err(self.error(d));
        }
        Ok(())
    }

    /// A stand-in expression for a part that failed to parse (the error is already reported).
    fn error_expr(&self, span: Span) -> Expr {
        Expr::new(ExprKind::Ident("<error>".into()), span)
    }

    // ---- block endings ------------------------------------------------------------------

    /// Records which block-ending style a block end uses, reporting a file that mixes them.
    /// `endif` belongs to both styles (the older one also closes `if` with `endif`, manual §2
    /// "Syntax notice"), so it decides nothing; only `end` next to `endfor`, `endfunction`, …
    /// is mixing.
    fn note_style(&mut self, keyword: Keyword, span: Span) {
        let style = match keyword {
            Keyword::End => BlockStyle::Legacy,
            Keyword::EndIf => return,
            _ => BlockStyle::Modern,
        };
        match self.style {
            None => self.style = Some((style, span)),
            Some((first, first_span)) if first != style => {
                let (this, other) = match style {
                    BlockStyle::Legacy => ("`end`", "`endfor`, `endfunction`, …"),
                    BlockStyle::Modern => ("`endfor`, `endfunction`, …", "`end`"),
                };
                let d = Diagnostic::error(span, "block endings of both styles in one file")
                    .with_label(format!("this uses {this}"))
                    .with_secondary(first_span, format!("but this earlier block end uses {other}"))
                    .with_note(
                        "a file ends its blocks either with `endfunction`, `endfor`, `endwhile`, \
                         … or in the older style with `end` (and `endif` for `if`), not both",
                    );
                self.diagnostics.push(d);
            }
            Some(_) => {}
        }
    }

    /// Consumes a block's opening keyword, noting the end keyword the block expects.
    fn open_block(&mut self, end: Keyword) -> Span {
        self.open_blocks.push(end);
        self.bump().span
    }

    /// Consumes the end of the innermost open block and returns whether it was closed.
    /// A wrong end keyword that no enclosing block expects is taken as a misspelt end of
    /// this one; one that an enclosing block expects is left to close that block. Either
    /// way one error is reported, not one per enclosing block.
    fn expect_block_end(&mut self, modern: Keyword, opener: &str, open_span: Span) -> bool {
        self.open_blocks.pop();
        if let Some(s) = self.eat_kw(modern) {
            self.note_style(modern, s);
            return true;
        }
        if let Some(s) = self.eat_kw(Keyword::End) {
            self.note_style(Keyword::End, s);
            return true;
        }
        let found = self.kind().to_string();
        let d = Diagnostic::error(
            self.span(),
            format!("expected `{}` to close the `{opener}`, found {found}", modern.as_str()),
        )
        .with_label(format!("expected `{}`", modern.as_str()))
        .with_secondary(open_span, format!("this `{opener}` is not closed"));
        self.diagnostics.push(d);
        match self.kind() {
            TokenKind::Keyword(k) if k.is_block_end() && !self.open_blocks.contains(k) => {
                self.bump();
                true
            }
            _ => false,
        }
    }

    /// Requires the end of a statement: a newline, `;`, or the end of the file.
    fn expect_stmt_end(&mut self) -> PResult<()> {
        if self.at_newline() || self.eat_punct(Punct::Semi).is_some() {
            return Ok(());
        }
        let found = self.kind().to_string();
        let d = Diagnostic::error(
            self.span(),
            format!("expected the end of the statement, found {found}"),
        )
        .with_label("unexpected here")
        .with_note("put one statement per line, or separate statements with `;`");
        Err(self.error(d))
    }

    fn skip_separators(&mut self) {
        while matches!(self.kind(), TokenKind::Newline) || self.at_punct(Punct::Semi) {
            self.bump();
        }
    }
}

#[cfg(test)]
mod tests;
