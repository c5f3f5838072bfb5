//! Statements, blocks and control structures.

use super::{PResult, Parser, Reported};
use crate::diagnostics::Diagnostic;
use crate::syntax::ast::{
    Arg, AssignOp, AttrSep, Attribute, AttributeArg, AttributeItem, CallStyle, Expr, ExprKind,
    Ident, MatchArm, Stmt, StmtKind,
};
use crate::syntax::token::{Keyword, Punct, Token, TokenKind};

/// Where a block stops: the keywords that end it (besides the legacy `end`).
#[derive(Clone, Copy)]
pub(super) struct BlockEnd<'a> {
    pub keywords: &'a [Keyword],
    /// Also stop at `|` at the start of a line (the next `match` arm).
    pub pipe: bool,
}

impl Parser {
    pub(super) fn parse_top_level(&mut self) -> Vec<Stmt> {
        let mut body = Vec::new();
        loop {
            self.skip_separators();
            match self.kind().clone() {
                TokenKind::Eof => break,
                TokenKind::Keyword(k) if is_block_continuation(k) => {
                    let d = Diagnostic::error(
                        self.span(),
                        format!("`{}` without a matching block opener", k.as_str()),
                    )
                    .with_label("nothing to close here")
                    .with_note("check that every block is opened once and closed once");
                    self.diagnostics.push(d);
                    self.bump();
                    self.recover_to_stmt_end();
                }
                _ => body.extend(self.parse_stmt_recovering()),
            }
        }
        body
    }

    /// Parses statements until one of `end`'s keywords (or legacy `end`), leaving it unconsumed.
    pub(super) fn parse_block(&mut self, end: BlockEnd) -> Vec<Stmt> {
        let mut body = Vec::new();
        loop {
            self.skip_separators();
            match self.kind() {
                TokenKind::Eof => break,
                TokenKind::Keyword(k) if end.keywords.contains(k) || *k == Keyword::End => break,
                // Any other closer belongs to an enclosing block: stop and let it be reported
                // there ("expected `endfor`"), rather than eating it here.
                TokenKind::Keyword(k) if is_block_continuation(*k) => break,
                TokenKind::Punct(Punct::Pipe) if end.pipe => break,
                _ => body.extend(self.parse_stmt_recovering()),
            }
        }
        body
    }

    /// One statement; on error reports it, skips the rest of the line and yields nothing.
    pub(super) fn parse_stmt_recovering(&mut self) -> Option<Stmt> {
        let start = self.pos;
        match self.nested(|p| p.parse_stmt()) {
            Ok(s) => Some(s),
            Err(Reported) => {
                self.recover_stmt_from(start);
                None
            }
        }
    }

    pub(super) fn parse_stmt(&mut self) -> PResult<Stmt> {
        let start = self.span();
        let kind = match self.kind().clone() {
            TokenKind::Keyword(k) => match k {
                Keyword::If => return self.parse_if(),
                Keyword::For => return self.parse_for(),
                Keyword::While => return self.parse_while(),
                Keyword::Repeat => return self.parse_repeat(),
                Keyword::Match => return self.parse_match(),
                Keyword::Try => return self.parse_try(),
                Keyword::Function | Keyword::Macro => return self.parse_function(),
                Keyword::Reduction => return self.parse_reduction(),
                Keyword::Break | Keyword::Continue | Keyword::Return => {
                    self.bump();
                    match k {
                        Keyword::Break => StmtKind::Break,
                        Keyword::Continue => StmtKind::Continue,
                        _ => StmtKind::Return,
                    }
                }
                _ => {
                    let d = Diagnostic::error(
                        self.span(),
                        format!("`{}` cannot start a statement", k.as_str()),
                    )
                    .with_label("unexpected keyword");
                    return Err(self.error(d));
                }
            },
            TokenKind::Ident(w) if w == "type" && self.peek_is_ident(1) => {
                return self.parse_typedef()
            }
            TokenKind::Ident(w)
                if w == "import" && matches!(self.peek_kind(1), TokenKind::Str(_)) =>
            {
                self.bump();
                let TokenKind::Str(path) = self.bump().kind else { unreachable!() };
                StmtKind::Import { path }
            }
            TokenKind::Ident(w)
                if w == "symbolic" && self.peek_is_ident(1) && self.peek_tok(1).space_before =>
            {
                self.bump();
                let mut names = vec![self.parse_param(false)?];
                while self.eat_punct(Punct::Comma).is_some() {
                    names.push(self.parse_param(false)?);
                }
                StmtKind::Symbolic(names)
            }
            TokenKind::Pragma(text) => {
                self.bump();
                StmtKind::Pragma(text)
            }
            TokenKind::Punct(Punct::LBraceBang) => StmtKind::Attribute(self.parse_attribute()?),
            TokenKind::Punct(Punct::Bang) if self.peek_is_ident(1) && self.peek_is_ident(2) => {
                StmtKind::Attribute(self.parse_attribute()?)
            }
            _ if self.at_command_syntax() => StmtKind::Expr(self.parse_command()?),
            _ => StmtKind::Expr(self.parse_expr()?),
        };
        let span = start.to(self.prev_span());
        // As in MATLAB, `,` also ends a statement (`a = 1, b = 2`); real code leaves one at
        // the end of a line.
        if self.eat_punct(Punct::Comma).is_none() {
            self.expect_stmt_end()?;
        }
        Ok(Stmt { kind, span })
    }

    /// Finishes a block statement: its span, and (when its end keyword was found) the end of
    /// its line.
    fn finish_block(
        &mut self,
        start: crate::span::Span,
        closed: bool,
        kind: StmtKind,
    ) -> PResult<Stmt> {
        let span = start.to(self.prev_span());
        if closed {
            self.expect_stmt_end()?;
        }
        Ok(Stmt { kind, span })
    }

    /// Parses a block header expression; on error reports it, skips to the end of the line
    /// and returns a stand-in so that the body and end keyword are still parsed.
    fn header_expr(&mut self) -> Expr {
        let start = self.span();
        let header_line = self.prev_span().line;
        match self.parse_expr().and_then(|e| self.reject_assignment(e, header_line)) {
            Ok(e) => e,
            Err(Reported) => {
                self.recover_to_stmt_end();
                self.error_expr(start)
            }
        }
    }

    /// A block header (a condition, a loop range) that is an assignment is a mistake: `=`
    /// written for `==`, or a header whose line ended early and ran into the next line.
    fn reject_assignment(&mut self, e: Expr, header_line: u32) -> PResult<Expr> {
        if let ExprKind::Assign { op: AssignOp::Assign, .. } = e.kind {
            let d = if e.span.line > header_line {
                // `for i =` at the end of a line ran on into the loop body.
                let at = self
                    .tokens
                    .iter()
                    .rev()
                    .find(|t| t.span.line == header_line)
                    .map_or(e.span, |t| t.span);
                Diagnostic::error(at, "the block header is incomplete")
                    .with_label("expected an expression after this")
            } else {
                Diagnostic::error(e.span, "an assignment cannot be used as a condition or range")
                    .with_label("this is an assignment")
                    .with_note("to compare two values, write `==`")
            };
            return Err(self.error(d));
        }
        Ok(e)
    }

    /// After a block header: the line must end here.
    fn header_end(&mut self, what: &str) {
        if self.at_newline() || self.eat_punct(Punct::Semi).is_some() {
            return;
        }
        let found = self.kind().to_string();
        let d = Diagnostic::error(
            self.span(),
            format!("expected a new line after the `{what}` header, found {found}"),
        )
        .with_label("unexpected here");
        self.diagnostics.push(d);
        self.recover_to_stmt_end();
    }

    fn parse_if(&mut self) -> PResult<Stmt> {
        let start = self.open_block(Keyword::EndIf);
        let mut branches = Vec::new();
        let mut else_body = None;
        let cond = self.header_expr();
        if self.at_punct(Punct::Semi) {
            let d =
                Diagnostic::error(self.span(), "an `if` block must be spread over several lines")
                    .with_label("`;` after the condition")
                    .with_note("write the condition, the body and `endif` on separate lines");
            self.diagnostics.push(d);
        }
        self.header_end("if");
        let end =
            BlockEnd { keywords: &[Keyword::ElseIf, Keyword::Else, Keyword::EndIf], pipe: false };
        branches.push((cond, self.parse_block(end)));
        loop {
            if self.eat_kw(Keyword::ElseIf).is_some() {
                let cond = self.header_expr();
                self.header_end("elseif");
                branches.push((cond, self.parse_block(end)));
            } else if self.eat_kw(Keyword::Else).is_some() {
                self.header_end("else");
                let end = BlockEnd { keywords: &[Keyword::EndIf], pipe: false };
                else_body = Some(self.parse_block(end));
                break;
            } else {
                break;
            }
        }
        let closed = self.expect_block_end(Keyword::EndIf, "if", start);
        self.finish_block(start, closed, StmtKind::If { branches, else_body })
    }

    fn parse_for(&mut self) -> PResult<Stmt> {
        let start = self.open_block(Keyword::EndFor);
        let header = (|| -> PResult<(Ident, Expr)> {
            let var = self.expect_ident("a loop variable")?;
            self.expect_punct(Punct::Eq, "after the loop variable")?;
            let iter = self.parse_expr()?;
            Ok((var, self.reject_assignment(iter, start.line)?))
        })();
        let (var, iter) = header.unwrap_or_else(|Reported| {
            self.recover_to_stmt_end();
            (Ident { name: "<error>".into(), span: start }, self.error_expr(start))
        });
        self.header_end("for");
        let body = self.parse_block(BlockEnd { keywords: &[Keyword::EndFor], pipe: false });
        let closed = self.expect_block_end(Keyword::EndFor, "for", start);
        self.finish_block(start, closed, StmtKind::For { var, iter, body })
    }

    fn parse_while(&mut self) -> PResult<Stmt> {
        let start = self.open_block(Keyword::EndWhile);
        let cond = self.header_expr();
        self.header_end("while");
        let body = self.parse_block(BlockEnd { keywords: &[Keyword::EndWhile], pipe: false });
        let closed = self.expect_block_end(Keyword::EndWhile, "while", start);
        self.finish_block(start, closed, StmtKind::While { cond, body })
    }

    fn parse_repeat(&mut self) -> PResult<Stmt> {
        let start = self.bump().span;
        self.header_end("repeat");
        let body = self.parse_block(BlockEnd { keywords: &[Keyword::Until], pipe: false });
        if self.eat_kw(Keyword::Until).is_none() {
            let d = Diagnostic::error(self.span(), "expected `until` to close the `repeat`")
                .with_label("expected `until condition`")
                .with_secondary(start, "this `repeat` is not closed");
            return Err(self.error(d));
        }
        let until = self.parse_expr()?;
        self.finish_block(start, true, StmtKind::Repeat { body, until })
    }

    fn parse_match(&mut self) -> PResult<Stmt> {
        let start = self.open_block(Keyword::EndMatch);
        let scrutinee = self.header_expr();
        if self.at_word("with") {
            self.bump();
        } else if !self.at_newline() {
            return Err(self.expected("`with` after the matched expression"));
        } else {
            let d = Diagnostic::error(self.span(), "expected `with` after the matched expression")
                .with_label("`match x with` is required");
            self.diagnostics.push(d);
        }
        self.header_end("match");
        let mut arms = Vec::new();
        loop {
            self.skip_separators();
            let Some(arm_start) = self.eat_punct(Punct::Pipe) else { break };
            match self.parse_match_arm(arm_start) {
                Ok(arm) => arms.push(arm),
                Err(Reported) => {
                    self.recover_to_stmt_end();
                    // Skip the arm's body so its lines do not produce further errors.
                    self.parse_block(BlockEnd { keywords: &[Keyword::EndMatch], pipe: true });
                }
            }
        }
        if !self.at_kw(Keyword::EndMatch) && !self.at_kw(Keyword::End) && !self.at_eof() {
            return Err(self.expected("`| pattern ->` or `endmatch`"));
        }
        let closed = self.expect_block_end(Keyword::EndMatch, "match", start);
        self.finish_block(start, closed, StmtKind::Match { scrutinee, arms })
    }

    fn parse_match_arm(&mut self, arm_start: crate::span::Span) -> PResult<MatchArm> {
        let saved = std::mem::replace(&mut self.no_lambda, true);
        let pattern = self.parse_ternary();
        self.no_lambda = saved;
        let patterns = match pattern? {
            Expr { kind: ExprKind::Tuple(items), .. } => items,
            other => vec![other],
        };
        self.expect_punct(Punct::Arrow, "after the match pattern")?;
        let mut body = Vec::new();
        // The arm's first statement may follow `->` on the same line (an empty arm may not).
        let ends_arm = match self.kind() {
            TokenKind::Keyword(k) => is_block_continuation(*k),
            TokenKind::Punct(Punct::Pipe) => true,
            _ => self.at_newline(),
        };
        if !ends_arm {
            body.extend(self.parse_stmt_recovering());
        }
        body.extend(self.parse_block(BlockEnd { keywords: &[Keyword::EndMatch], pipe: true }));
        Ok(MatchArm { patterns, body, span: arm_start.to(self.prev_span()) })
    }

    fn parse_try(&mut self) -> PResult<Stmt> {
        let start = self.open_block(Keyword::EndTry);
        self.header_end("try");
        let body = self
            .parse_block(BlockEnd { keywords: &[Keyword::Catch, Keyword::EndTry], pipe: false });
        let (mut catch_var, mut catch_type) = (None, None);
        let mut catch_body = Vec::new();
        if self.eat_kw(Keyword::Catch).is_some() {
            if self.peek_is_ident(0) {
                catch_var = Some(self.expect_ident("an exception variable")?);
                if self.eat_punct(Punct::Colon).is_some() {
                    catch_type = Some(self.parse_type()?);
                }
            }
            self.header_end("catch");
            catch_body = self.parse_block(BlockEnd { keywords: &[Keyword::EndTry], pipe: false });
        }
        let closed = self.expect_block_end(Keyword::EndTry, "try", start);
        self.finish_block(start, closed, StmtKind::Try { body, catch_var, catch_type, catch_body })
    }

    /// Command syntax: an identifier at the start of a statement followed, after a space on
    /// the same line, by something that begins an argument (`print "x", y`, `error "msg"`).
    fn at_command_syntax(&self) -> bool {
        let TokenKind::Ident(name) = self.kind() else { return false };
        if name == "_" {
            return false;
        }
        let next = self.peek_tok(1);
        if !next.space_before || next.span.line != self.span().line {
            return false;
        }
        match &next.kind {
            TokenKind::Number(_) | TokenKind::Str(_) => true,
            TokenKind::Ident(w) => w != "with" && w != "where",
            TokenKind::Punct(Punct::LBracket | Punct::LBrace) => true,
            _ => false,
        }
    }

    fn parse_command(&mut self) -> PResult<Expr> {
        let TokenKind::Ident(name) = self.kind().clone() else { unreachable!() };
        let callee_span = self.bump().span;
        let callee = Expr::new(ExprKind::Ident(name), callee_span);
        let mut args = vec![Arg { name: None, value: self.parse_expr()? }];
        while self.eat_punct(Punct::Comma).is_some() {
            args.push(Arg { name: None, value: self.parse_expr()? });
        }
        let span = callee_span.to(self.prev_span());
        Ok(Expr::new(
            ExprKind::Call { callee: Box::new(callee), args, style: CallStyle::Command },
            span,
        ))
    }

    /// `{!name key=value; key=value !other …}` or the unbraced `!name key=value`.
    fn parse_attribute(&mut self) -> PResult<Attribute> {
        let start = self.span();
        let braced = self.eat_punct(Punct::LBraceBang).is_some();
        if !braced {
            self.bump(); // `!`
        }
        let mut items = Vec::new();
        loop {
            let item_start = self.span();
            let mut name = Vec::new();
            // Name words run until a `key=` pair or a separator: `parallel for`, `kernel_tiling`.
            loop {
                if self.peek_is_punct(1, Punct::Eq) {
                    break;
                }
                let word = match self.kind().clone() {
                    TokenKind::Ident(w) => w,
                    TokenKind::Keyword(k) => k.as_str().to_string(),
                    _ => break,
                };
                let span = self.bump().span;
                name.push(Ident { name: word, span });
            }
            if name.is_empty() {
                return Err(self.expected("an attribute name"));
            }
            let mut args = Vec::new();
            let mut sep = AttrSep::First;
            loop {
                if matches!(self.kind(), TokenKind::Ident(_) | TokenKind::Keyword(_)) {
                    // Keys may be keywords: `{!parallel for; reduction={val,"+="}}`.
                    let key = match self.bump() {
                        Token { kind: TokenKind::Ident(name), span, .. } => Ident { name, span },
                        Token { kind: TokenKind::Keyword(k), span, .. } => {
                            Ident { name: k.as_str().into(), span }
                        }
                        _ => unreachable!("checked above"),
                    };
                    self.expect_punct(Punct::Eq, "after the attribute key")?;
                    let value = self.parse_ternary()?;
                    args.push(AttributeArg { key, value, sep });
                }
                if self.eat_punct(Punct::Semi).is_some() {
                    sep = AttrSep::Semi;
                } else if self.eat_punct(Punct::Comma).is_some() {
                    sep = AttrSep::Comma;
                } else {
                    break;
                }
            }
            items.push(AttributeItem { name, args, span: item_start.to(self.prev_span()) });
            if self.at_punct(Punct::Bang) {
                self.bump();
                continue;
            }
            break;
        }
        if braced {
            self.expect_punct(Punct::RBrace, "to close the code attribute")?;
        }
        Ok(Attribute { braced, items, span: start.to(self.prev_span()) })
    }
}

/// Keywords that continue or close a block and so cannot start a statement.
fn is_block_continuation(k: Keyword) -> bool {
    k.is_block_end()
        || matches!(k, Keyword::ElseIf | Keyword::Else | Keyword::Catch | Keyword::Until)
}
