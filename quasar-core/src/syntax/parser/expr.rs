//! Expressions, by precedence climbing (lowest first):
//! lambda `->` < assignment (right-assoc, with an optional `: T` annotation on its target)
//! < `? :` < `|>` < `||` < `&&` < comparisons < ranges `a..b`/`a..s..b` < `+ -` < `* / .* ./`
//! < prefix `- + ! ...` < `^ .^` < postfix (call, index, field, `'modifier`, `{dims}`).

use super::{PResult, Parser};
use crate::diagnostics::Diagnostic;
use crate::span::Span;
use crate::syntax::ast::{
    Arg, AssignOp, BinaryOp, CallStyle, DimSpec, Expr, ExprKind, FunctionKind, Ident, Lambda,
    Param, UnaryOp,
};
use crate::syntax::token::{Punct, TokenKind};

fn assign_op(p: Punct) -> Option<AssignOp> {
    use AssignOp as A;
    Some(match p {
        Punct::Eq => A::Assign,
        Punct::ColonEq => A::Define,
        Punct::PlusEq => A::Add,
        Punct::MinusEq => A::Sub,
        Punct::StarEq => A::Mul,
        Punct::SlashEq => A::Div,
        Punct::CaretEq => A::Pow,
        Punct::DotStarEq => A::ElemMul,
        Punct::DotSlashEq => A::ElemDiv,
        Punct::DotCaretEq => A::ElemPow,
        Punct::MaxEq => A::Max,
        Punct::MinEq => A::Min,
        Punct::XorEq => A::Xor,
        Punct::OrEq => A::Or,
        Punct::AndEq => A::And,
        _ => return None,
    })
}

impl Parser {
    fn current_punct(&self) -> Option<Punct> {
        match self.kind() {
            TokenKind::Punct(p) => Some(*p),
            _ => None,
        }
    }

    /// A full expression: assignment level, with an optional type annotation.
    pub(super) fn parse_expr(&mut self) -> PResult<Expr> {
        self.nested(|p| p.parse_assign())
    }

    fn parse_assign(&mut self) -> PResult<Expr> {
        let mut lhs = self.parse_ternary()?;
        if self.at_punct(Punct::Colon) {
            self.bump();
            let ty = self.parse_type()?;
            let span = lhs.span.to(ty.span);
            lhs = Expr::new(ExprKind::Annotated { expr: Box::new(lhs), ty: Box::new(ty) }, span);
        }
        if let Some(op) = self.current_punct().and_then(assign_op) {
            self.bump();
            let rhs = self.parse_expr()?;
            let span = lhs.span.to(rhs.span);
            return Ok(Expr::new(
                ExprKind::Assign { op, lhs: Box::new(lhs), rhs: Box::new(rhs) },
                span,
            ));
        }
        Ok(lhs)
    }

    pub(super) fn parse_ternary(&mut self) -> PResult<Expr> {
        let cond = self.parse_binary(0)?;
        if self.eat_punct(Punct::Question).is_none() {
            return Ok(cond);
        }
        let then = self.nested(|p| p.parse_ternary())?;
        self.expect_punct(Punct::Colon, "between the branches of `? :`")?;
        let otherwise = self.nested(|p| p.parse_ternary())?;
        let span = cond.span.to(otherwise.span);
        Ok(Expr::new(
            ExprKind::Ternary {
                cond: Box::new(cond),
                then: Box::new(then),
                otherwise: Box::new(otherwise),
            },
            span,
        ))
    }

    /// Binary operators from `|>` (level 0) down to addition (level 5); level 4 is the
    /// range operator, handled separately because of its optional middle operand.
    fn parse_binary(&mut self, level: u8) -> PResult<Expr> {
        if level == 4 {
            return self.parse_range();
        }
        if level > 5 {
            return self.parse_multiplicative();
        }
        let mut lhs = self.parse_binary(level + 1)?;
        let mut chain = 0u32;
        loop {
            self.check_chain(chain)?;
            chain += 1;
            let op = match (level, self.current_punct()) {
                (0, Some(Punct::PipeGt)) => BinaryOp::Pipe,
                (1, Some(Punct::OrOr)) => BinaryOp::Or,
                (2, Some(Punct::AndAnd)) => BinaryOp::And,
                (3, Some(Punct::EqEq)) => BinaryOp::Eq,
                (3, Some(Punct::NotEq)) => BinaryOp::Ne,
                (3, Some(Punct::Lt)) => BinaryOp::Lt,
                (3, Some(Punct::Le)) => BinaryOp::Le,
                (3, Some(Punct::Gt)) => BinaryOp::Gt,
                (3, Some(Punct::Ge)) => BinaryOp::Ge,
                (5, Some(Punct::Plus)) => BinaryOp::Add,
                (5, Some(Punct::Minus)) => BinaryOp::Sub,
                _ => break,
            };
            self.bump();
            let rhs = self.parse_binary(level + 1)?;
            let span = lhs.span.to(rhs.span);
            lhs = Expr::new(ExprKind::Binary { op, lhs: Box::new(lhs), rhs: Box::new(rhs) }, span);
        }
        Ok(lhs)
    }

    fn parse_range(&mut self) -> PResult<Expr> {
        let start = self.parse_binary(5)?;
        if self.eat_punct(Punct::DotDot).is_none() {
            return Ok(start);
        }
        let second = self.parse_binary(5)?;
        let (step, end) = if self.eat_punct(Punct::DotDot).is_some() {
            (Some(Box::new(second)), self.parse_binary(5)?)
        } else {
            (None, second)
        };
        let span = start.span.to(end.span);
        Ok(Expr::new(ExprKind::Range { start: Box::new(start), step, end: Box::new(end) }, span))
    }

    fn parse_multiplicative(&mut self) -> PResult<Expr> {
        let mut lhs = self.parse_unary()?;
        let mut chain = 0u32;
        loop {
            self.check_chain(chain)?;
            chain += 1;
            let op = match self.current_punct() {
                Some(Punct::Star) => BinaryOp::Mul,
                Some(Punct::Slash) => BinaryOp::Div,
                Some(Punct::DotStar) => BinaryOp::ElemMul,
                Some(Punct::DotSlash) => BinaryOp::ElemDiv,
                _ => break,
            };
            self.bump();
            let rhs = self.parse_unary()?;
            let span = lhs.span.to(rhs.span);
            lhs = Expr::new(ExprKind::Binary { op, lhs: Box::new(lhs), rhs: Box::new(rhs) }, span);
        }
        Ok(lhs)
    }

    fn parse_unary(&mut self) -> PResult<Expr> {
        self.nested(|p| {
            let start = p.span();
            let op = match p.current_punct() {
                Some(Punct::Minus) => UnaryOp::Neg,
                Some(Punct::Plus) => UnaryOp::Plus,
                Some(Punct::Bang) => UnaryOp::Not,
                Some(Punct::Ellipsis) => {
                    p.bump();
                    let inner = p.parse_unary()?;
                    let span = start.to(inner.span);
                    return Ok(Expr::new(ExprKind::Spread(Box::new(inner)), span));
                }
                _ => return p.parse_power(),
            };
            p.bump();
            let operand = p.parse_unary()?;
            let span = start.to(operand.span);
            Ok(Expr::new(ExprKind::Unary { op, operand: Box::new(operand) }, span))
        })
    }

    /// `^` and `.^`, left-associative; the right operand may carry a sign (`2^-1`).
    fn parse_power(&mut self) -> PResult<Expr> {
        let mut lhs = self.parse_postfix()?;
        let mut chain = 0u32;
        loop {
            self.check_chain(chain)?;
            chain += 1;
            let op = match self.current_punct() {
                Some(Punct::Caret) => BinaryOp::Pow,
                Some(Punct::DotCaret) => BinaryOp::ElemPow,
                _ => break,
            };
            self.bump();
            let rhs = self.parse_power_operand()?;
            let span = lhs.span.to(rhs.span);
            lhs = Expr::new(ExprKind::Binary { op, lhs: Box::new(lhs), rhs: Box::new(rhs) }, span);
        }
        Ok(lhs)
    }

    fn parse_power_operand(&mut self) -> PResult<Expr> {
        self.nested(|p| {
            let start = p.span();
            let op = match p.current_punct() {
                Some(Punct::Minus) => UnaryOp::Neg,
                Some(Punct::Plus) => UnaryOp::Plus,
                Some(Punct::Bang) => UnaryOp::Not,
                _ => return p.parse_postfix(),
            };
            p.bump();
            let operand = p.parse_power_operand()?;
            let span = start.to(operand.span);
            Ok(Expr::new(ExprKind::Unary { op, operand: Box::new(operand) }, span))
        })
    }

    fn parse_postfix(&mut self) -> PResult<Expr> {
        let mut e = self.parse_primary()?;
        let mut chain = 0u32;
        loop {
            self.check_chain(chain)?;
            chain += 1;
            let tok = self.tok().clone();
            match &tok.kind {
                TokenKind::Punct(Punct::LParen) => {
                    self.bump();
                    let args = self.parse_args(Punct::RParen)?;
                    let span = e.span.to(self.prev_span());
                    e = Expr::new(
                        ExprKind::Call { callee: Box::new(e), args, style: CallStyle::Paren },
                        span,
                    );
                }
                TokenKind::Punct(Punct::LBracket) => {
                    self.bump();
                    let indices = self.parse_args(Punct::RBracket)?;
                    let span = e.span.to(self.prev_span());
                    e = Expr::new(ExprKind::Index { base: Box::new(e), indices }, span);
                }
                TokenKind::Punct(Punct::Dot) if self.peek_is_ident(1) => {
                    self.bump();
                    let name = self.expect_ident("a field name")?;
                    let span = e.span.to(name.span);
                    e = Expr::new(ExprKind::Field { base: Box::new(e), name }, span);
                }
                TokenKind::Modifier(m) if !tok.space_before => {
                    self.bump();
                    let modifier = Ident { name: m.clone(), span: tok.span };
                    let span = e.span.to(tok.span);
                    e = Expr::new(ExprKind::Modified { base: Box::new(e), modifier }, span);
                }
                // `cube{4}`: braces written directly after a type name give its dimension.
                TokenKind::Punct(Punct::LBrace) if !tok.space_before => {
                    self.bump();
                    let dims = self.parse_dim_spec()?;
                    let span = e.span.to(self.prev_span());
                    e = Expr::new(ExprKind::Dims { base: Box::new(e), dims: Box::new(dims) }, span);
                }
                _ => break,
            }
        }
        Ok(e)
    }

    /// The inside of `{n}` / `{:}` after the `{`, consuming the `}`.
    pub(super) fn parse_dim_spec(&mut self) -> PResult<DimSpec> {
        let spec = if self.at_punct(Punct::Colon) && self.peek_is_punct(1, Punct::RBrace) {
            self.bump();
            DimSpec::Any
        } else {
            DimSpec::Fixed(self.parse_ternary()?)
        };
        self.expect_punct(Punct::RBrace, "to close the dimension `{…}`")?;
        Ok(spec)
    }

    /// Call or index arguments up to `close`: `a`, `name := a`, `:`, `...v`, `x : T`.
    fn parse_args(&mut self, close: Punct) -> PResult<Vec<Arg>> {
        let mut args = Vec::new();
        if self.eat_punct(close).is_some() {
            return Ok(args);
        }
        loop {
            let name = if self.peek_is_ident(0) && self.peek_is_punct(1, Punct::ColonEq) {
                let n = self.expect_ident("an argument name")?;
                self.bump();
                Some(n)
            } else {
                None
            };
            let value = self.parse_element()?;
            args.push(Arg { name, value });
            if self.eat_punct(Punct::Comma).is_some() {
                continue;
            }
            let what = if close == Punct::RParen {
                "`,` or `)` in the argument list"
            } else {
                "`,` or `]` in the index"
            };
            if self.eat_punct(close).is_none() {
                return Err(self.expected(what));
            }
            return Ok(args);
        }
    }

    /// One element of an argument list or matrix/cell literal; a lone `:` is allowed.
    fn parse_element(&mut self) -> PResult<Expr> {
        if self.at_punct(Punct::Colon)
            && matches!(
                self.peek_kind(1),
                TokenKind::Punct(Punct::Comma | Punct::RParen | Punct::RBracket)
            )
        {
            let span = self.bump().span;
            return Ok(Expr::new(ExprKind::Colon, span));
        }
        self.parse_expr()
    }

    fn parse_primary(&mut self) -> PResult<Expr> {
        let tok = self.tok().clone();
        let span = tok.span;
        match tok.kind {
            TokenKind::Number(text) => {
                self.bump();
                Ok(Expr::new(ExprKind::Number(text), span))
            }
            TokenKind::Str(text) => {
                self.bump();
                Ok(Expr::new(ExprKind::Str(text), span))
            }
            TokenKind::Ident(name) => {
                if let Some(kind) = FunctionKind::from_word(&name) {
                    if self.peek_is_punct(1, Punct::LParen) {
                        self.bump();
                        return self.parse_kinded_lambda(kind, span);
                    }
                }
                self.bump();
                if self.at_punct(Punct::Arrow) && !self.no_lambda {
                    let param = Param {
                        name: Ident { name, span },
                        ty: None,
                        default: None,
                        variadic: false,
                        span,
                    };
                    return self.parse_lambda_body(FunctionKind::Host, vec![param], false, span);
                }
                let kind = if name == "_" { ExprKind::Placeholder } else { ExprKind::Ident(name) };
                Ok(Expr::new(kind, span))
            }
            TokenKind::Punct(Punct::LParen) => self.parse_paren(),
            TokenKind::Punct(Punct::LBracket) => {
                self.bump();
                let items = self.parse_list(Punct::RBracket, "matrix")?;
                Ok(Expr::new(ExprKind::Matrix(items), span.to(self.prev_span())))
            }
            TokenKind::Punct(Punct::LBrace) => {
                self.bump();
                let items = self.parse_list(Punct::RBrace, "cell array")?;
                Ok(Expr::new(ExprKind::Cell(items), span.to(self.prev_span())))
            }
            TokenKind::Punct(Punct::QuestionQuestion) => {
                self.bump();
                Ok(Expr::new(ExprKind::Unknown, span))
            }
            TokenKind::Punct(Punct::Colon) => {
                self.bump();
                Ok(Expr::new(ExprKind::Colon, span))
            }
            TokenKind::Keyword(k) => {
                let d = Diagnostic::error(
                    span,
                    format!("expected an expression, found keyword `{}`", k.as_str()),
                )
                .with_label("a keyword cannot be used as a value");
                Err(self.error(d))
            }
            TokenKind::Punct(Punct::Ellipsis) => {
                Err(self.expected("an expression (a lone `...` is not valid)"))
            }
            _ => Err(self.expected("an expression")),
        }
    }

    /// Comma-separated elements up to `close` (newlines are already dropped by the lexer).
    fn parse_list(&mut self, close: Punct, what: &str) -> PResult<Vec<Expr>> {
        let mut items = Vec::new();
        if self.eat_punct(close).is_some() {
            return Ok(items);
        }
        loop {
            items.push(self.parse_element()?);
            if self.eat_punct(Punct::Comma).is_some() {
                continue;
            }
            if self.eat_punct(close).is_some() {
                return Ok(items);
            }
            if self.at_punct(Punct::Semi) {
                let d = Diagnostic::error(
                    self.span(),
                    format!("`;` is not a separator in a {what} literal"),
                )
                .with_label("use `,` here")
                .with_note("Quasar writes matrices as nested rows: `[[1, 2], [3, 4]]`");
                return Err(self.error(d));
            }
            return Err(
                self.expected(&format!("`,` or `{}` in the {what} literal", close.as_str()))
            );
        }
    }

    /// `( … )`: a grouping `(a)`, a sequence `(a; b; c)`, a tuple `(a, b)` or `()`,
    /// then possibly the parameters of a lambda when `->` follows.
    fn parse_paren(&mut self) -> PResult<Expr> {
        let start = self.bump().span;
        let saved = std::mem::replace(&mut self.no_lambda, false);
        let result = self.parse_paren_contents(start);
        self.no_lambda = saved;
        let e = result?;
        if self.at_punct(Punct::Arrow) && !self.no_lambda {
            let params = self.lambda_params(e)?;
            return self.parse_lambda_body(FunctionKind::Host, params, true, start);
        }
        Ok(e)
    }

    fn parse_paren_contents(&mut self, start: Span) -> PResult<Expr> {
        if self.eat_punct(Punct::RParen).is_some() {
            return Ok(Expr::new(ExprKind::Tuple(Vec::new()), start.to(self.prev_span())));
        }
        let first = self.parse_element()?;
        let kind = if self.at_punct(Punct::Comma) {
            let mut items = vec![first];
            while self.eat_punct(Punct::Comma).is_some() {
                items.push(self.parse_element()?);
            }
            ExprKind::Tuple(items)
        } else {
            let mut items = vec![first];
            while self.eat_punct(Punct::Semi).is_some() {
                if self.at_punct(Punct::RParen) {
                    break;
                }
                items.push(self.parse_expr()?);
            }
            ExprKind::Paren(items)
        };
        self.expect_punct(Punct::RParen, "to close the parenthesis")?;
        Ok(Expr::new(kind, start.to(self.prev_span())))
    }

    /// `__device__ (x : scalar) -> …`
    fn parse_kinded_lambda(&mut self, kind: FunctionKind, start: Span) -> PResult<Expr> {
        let open = self.bump().span;
        let saved = std::mem::replace(&mut self.no_lambda, false);
        let group = self.parse_paren_contents(open);
        self.no_lambda = saved;
        let group = group?;
        if !self.at_punct(Punct::Arrow) {
            return Err(self.expected(&format!(
                "`->` after the parameters of a `{}` lambda",
                kind.word().unwrap_or("")
            )));
        }
        let params = self.lambda_params(group)?;
        self.parse_lambda_body(kind, params, true, start)
    }

    fn parse_lambda_body(
        &mut self,
        kind: FunctionKind,
        params: Vec<Param>,
        parenthesized: bool,
        start: Span,
    ) -> PResult<Expr> {
        self.expect_punct(Punct::Arrow, "in the lambda expression")?;
        let body = self.parse_expr()?;
        let span = start.to(body.span);
        // Real code ends a lambda argument with `;` as if it were a statement:
        // `f(() -> (a = b);)`. The original accepts it before the `)`, `,` or `]` that follows.
        if self.at_punct(Punct::Semi)
            && matches!(
                self.peek_kind(1),
                TokenKind::Punct(Punct::RParen | Punct::Comma | Punct::RBracket)
            )
        {
            self.bump();
        }
        Ok(Expr::new(
            ExprKind::Lambda(Lambda { kind, params, parenthesized, body: Box::new(body) }),
            span,
        ))
    }

    /// Reinterprets a parenthesised group as lambda parameters.
    fn lambda_params(&mut self, group: Expr) -> PResult<Vec<Param>> {
        let items = match group.kind {
            ExprKind::Tuple(items) => items,
            ExprKind::Paren(items) if items.len() == 1 => items,
            _ => {
                let d = Diagnostic::error(group.span, "invalid lambda parameter list")
                    .with_label("expected `(name, name : type, …)`");
                return Err(self.error(d));
            }
        };
        items.into_iter().map(|e| self.expr_to_param(e)).collect()
    }

    fn expr_to_param(&mut self, e: Expr) -> PResult<Param> {
        let span = e.span;
        let (target, default) = match e.kind {
            ExprKind::Assign { op: AssignOp::Assign, lhs, rhs } => (*lhs, Some(*rhs)),
            kind => (Expr::new(kind, span), None),
        };
        let (target, ty) = match target.kind {
            ExprKind::Annotated { expr, ty } => (*expr, Some(*ty)),
            kind => (Expr::new(kind, span), None),
        };
        let (target, variadic) = match target.kind {
            ExprKind::Spread(inner) => (*inner, true),
            kind => (Expr::new(kind, span), false),
        };
        match target.kind {
            ExprKind::Ident(name) => {
                Ok(Param { name: Ident { name, span: target.span }, ty, default, variadic, span })
            }
            _ => {
                let d = Diagnostic::error(span, "invalid lambda parameter")
                    .with_label("expected a name, optionally with `: type` or `= default`");
                Err(self.error(d))
            }
        }
    }
}
