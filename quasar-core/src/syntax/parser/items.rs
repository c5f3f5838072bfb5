//! Definitions: functions and macros, parameters, `type` definitions, reductions.

use super::stmt::BlockEnd;
use super::{PResult, Parser};
use crate::diagnostics::Diagnostic;
use crate::syntax::ast::{
    ClassKind, EnumVariant, FunctionDef, FunctionKind, Param, Reduction, Stmt, StmtKind, TypeDef,
    TypeDefBody,
};
use crate::syntax::token::{Keyword, Punct, TokenKind};

impl Parser {
    /// `name [: type] [= default]`, or `...name [: type]` when `allow_variadic`.
    pub(super) fn parse_param(&mut self, allow_variadic: bool) -> PResult<Param> {
        let start = self.span();
        let variadic = allow_variadic && self.eat_punct(Punct::Ellipsis).is_some();
        let name = self.expect_ident("a parameter name")?;
        let ty =
            if self.eat_punct(Punct::Colon).is_some() { Some(self.parse_type()?) } else { None };
        let default =
            if self.eat_punct(Punct::Eq).is_some() { Some(self.parse_ternary()?) } else { None };
        Ok(Param { name, ty, default, variadic, span: start.to(self.prev_span()) })
    }

    /// Parameters up to `close`, the opener already consumed.
    fn parse_params(&mut self, close: Punct) -> PResult<Vec<Param>> {
        let mut params = Vec::new();
        if self.eat_punct(close).is_some() {
            return Ok(params);
        }
        loop {
            params.push(self.parse_param(true)?);
            if self.eat_punct(Punct::Comma).is_some() {
                continue;
            }
            if self.eat_punct(close).is_some() {
                return Ok(params);
            }
            return Err(
                self.expected(&format!("`,` or `{}` in the parameter list", close.as_str()))
            );
        }
    }

    fn eat_function_kind(&mut self) -> FunctionKind {
        if let TokenKind::Ident(w) = self.kind() {
            if let Some(k) = FunctionKind::from_word(w) {
                self.bump();
                return k;
            }
        }
        FunctionKind::Host
    }

    /// `function [outs] = kind name[T](params) qualifiers` … `endfunction`.
    pub(super) fn parse_function(&mut self) -> PResult<Stmt> {
        let is_macro = self.at_kw(Keyword::Macro);
        let (keyword, end_kw) = if is_macro {
            ("macro", Keyword::EndMacro)
        } else {
            ("function", Keyword::EndFunction)
        };
        let start = self.open_block(end_kw);
        let header = self.parse_function_header(is_macro);
        let mut def = match header {
            Ok(def) => def,
            Err(_) => {
                // Keep the body and its end keyword paired up even when the header is broken.
                self.recover_to_stmt_end();
                self.parse_block(BlockEnd { keywords: &[end_kw], pipe: false });
                self.expect_block_end(end_kw, keyword, start);
                return Err(super::Reported);
            }
        };
        if !self.at_newline() && !self.at_punct(Punct::Semi) {
            let found = self.kind().to_string();
            let d = Diagnostic::error(
                self.span(),
                format!("expected a new line after the {keyword} header, found {found}"),
            )
            .with_label("unexpected here");
            self.diagnostics.push(d);
            self.recover_to_stmt_end();
        }
        def.body = self.parse_block(BlockEnd { keywords: &[end_kw], pipe: false });
        let closed = self.expect_block_end(end_kw, keyword, start);
        def.span = start.to(self.prev_span());
        let span = def.span;
        if closed {
            self.expect_stmt_end()?;
        }
        Ok(Stmt { kind: StmtKind::Function(Box::new(def)), span })
    }

    fn parse_function_header(&mut self, is_macro: bool) -> PResult<FunctionDef> {
        let mut outputs = Vec::new();
        let mut bracketed_outputs = false;
        if self.eat_punct(Punct::LBracket).is_some() {
            outputs = self.parse_params(Punct::RBracket)?;
            bracketed_outputs = true;
            self.expect_punct(Punct::Eq, "after the output list")?;
        } else if self.peek_is_ident(0)
            && matches!(self.peek_kind(1), TokenKind::Punct(Punct::Eq | Punct::Colon))
        {
            let start = self.span();
            let name = self.expect_ident("an output name")?;
            let ty = if self.eat_punct(Punct::Colon).is_some() {
                Some(self.parse_type()?)
            } else {
                None
            };
            outputs.push(Param {
                name,
                ty,
                default: None,
                variadic: false,
                span: start.to(self.prev_span()),
            });
            self.expect_punct(Punct::Eq, "after the output")?;
        }
        let kind = self.eat_function_kind();
        let name = self.expect_ident("a function name")?;
        let mut type_params = Vec::new();
        if self.at_punct(Punct::LBracket) && !self.tok().space_before {
            self.bump();
            type_params = self.parse_params(Punct::RBracket)?;
        }
        let params = if self.eat_punct(Punct::LParen).is_some() {
            self.parse_params(Punct::RParen)?
        } else {
            Vec::new()
        };
        let mut qualifiers = Vec::new();
        while let TokenKind::Ident(_) = self.kind() {
            qualifiers.push(self.expect_ident("a qualifier")?);
        }
        let span = name.span;
        Ok(FunctionDef {
            is_macro,
            kind,
            name,
            type_params,
            params,
            outputs,
            bracketed_outputs,
            qualifiers,
            body: Vec::new(),
            span,
        })
    }

    /// `type name[params] : …`: an alias, a class, an enum, or a class deriving from a parent.
    pub(super) fn parse_typedef(&mut self) -> PResult<Stmt> {
        let start = self.bump().span;
        let name = self.expect_ident("a type name")?;
        let mut params = Vec::new();
        if self.at_punct(Punct::LBracket) && !self.tok().space_before {
            self.bump();
            params = self.parse_params(Punct::RBracket)?;
        }
        self.expect_punct(Punct::Colon, "after the type name")?;
        let class_kind = if self.at_word("class") {
            self.bump();
            Some(ClassKind::Immutable)
        } else if (self.at_word("mutable") || self.at_word("dynamic"))
            && matches!(self.peek_kind(1), TokenKind::Ident(w) if w == "class")
        {
            let kind =
                if self.at_word("mutable") { ClassKind::Mutable } else { ClassKind::Dynamic };
            self.bump();
            self.bump();
            Some(kind)
        } else {
            None
        };
        let body = if let Some(kind) = class_kind {
            TypeDefBody::Class {
                kind,
                parent: None,
                fields: self.parse_type_body(start, Self::parse_field)?,
            }
        } else if self.at_word("enum") {
            self.bump();
            TypeDefBody::Enum(self.parse_type_body(start, Self::parse_enum_variant)?)
        } else {
            let ty = self.parse_type()?;
            if self.at_newline() && self.body_until_endtype_follows() {
                let fields = self.parse_type_body(start, Self::parse_field)?;
                TypeDefBody::Class { kind: ClassKind::Immutable, parent: Some(ty), fields }
            } else {
                TypeDefBody::Alias(ty)
            }
        };
        let span = start.to(self.prev_span());
        let def = TypeDef { name, params, body, span };
        self.expect_stmt_end()?;
        Ok(Stmt { kind: StmtKind::TypeDef(Box::new(def)), span })
    }

    /// After `type duck : bird`: is this the header of a derived class (its fields follow,
    /// closed by `endtype`) rather than an alias? Looks ahead without consuming.
    fn body_until_endtype_follows(&self) -> bool {
        let mut i = 0;
        loop {
            match self.peek_kind(i) {
                TokenKind::Keyword(Keyword::EndType) => return true,
                TokenKind::Keyword(Keyword::End) => return self.style_is_legacy_or_unknown(),
                TokenKind::Eof | TokenKind::Keyword(_) => return false,
                TokenKind::Ident(w)
                    if w == "type"
                        && i > 0
                        && matches!(self.peek_kind(i - 1), TokenKind::Newline) =>
                {
                    return false
                }
                TokenKind::Punct(Punct::Eq | Punct::LParen) => return false,
                _ => i += 1,
            }
        }
    }

    fn style_is_legacy_or_unknown(&self) -> bool {
        !matches!(self.style, Some((crate::syntax::ast::BlockStyle::Modern, _)))
    }

    /// Lines of a class or enum body up to `endtype`, each parsed by `item`.
    fn parse_type_body<T>(
        &mut self,
        start: crate::span::Span,
        item: fn(&mut Parser) -> PResult<T>,
    ) -> PResult<Vec<T>> {
        if !self.at_newline() {
            return Err(self.expected("a new line after the type header"));
        }
        self.open_blocks.push(Keyword::EndType);
        let mut items = Vec::new();
        loop {
            self.skip_separators();
            if self.at_kw(Keyword::EndType) || self.at_kw(Keyword::End) || self.at_eof() {
                break;
            }
            if let TokenKind::Keyword(_) = self.kind() {
                break;
            }
            match item(self).and_then(|x| self.expect_stmt_end().map(|_| x)) {
                Ok(x) => items.push(x),
                Err(_) => self.recover_to_stmt_end(),
            }
        }
        // An unclosed body is reported; the enclosing block may own the keyword found instead.
        self.expect_block_end(Keyword::EndType, "type", start);
        Ok(items)
    }

    fn parse_field(&mut self) -> PResult<Param> {
        self.parse_param(false)
    }

    fn parse_enum_variant(&mut self) -> PResult<EnumVariant> {
        let name = self.expect_ident("an enumeration value")?;
        let value =
            if self.eat_punct(Punct::Eq).is_some() { Some(self.parse_ternary()?) } else { None };
        let span = name.span.to(self.prev_span());
        Ok(EnumVariant { name, value, span })
    }

    /// `reduction (x : T, …) -> pattern = replacement [where condition]`
    pub(super) fn parse_reduction(&mut self) -> PResult<Stmt> {
        let start = self.bump().span;
        let parenthesized = self.at_punct(Punct::LParen);
        let params = if parenthesized {
            self.bump();
            self.parse_params(Punct::RParen)?
        } else {
            vec![self.parse_param(false)?]
        };
        self.expect_punct(Punct::Arrow, "after the reduction parameters")?;
        let saved = std::mem::replace(&mut self.no_lambda, true);
        let pattern = self.parse_ternary();
        self.no_lambda = saved;
        let pattern = pattern?;
        self.expect_punct(Punct::Eq, "between the reduction pattern and its replacement")?;
        // The replacement may itself be an assignment: `(y := x) = y = compute(x)`.
        let replacement = self.parse_expr()?;
        let condition = if self.at_word("where") {
            self.bump();
            Some(self.parse_ternary()?)
        } else {
            None
        };
        let span = start.to(self.prev_span());
        let red = Reduction { params, parenthesized, pattern, replacement, condition, span };
        self.expect_stmt_end()?;
        Ok(Stmt { kind: StmtKind::Reduction(Box::new(red)), span })
    }
}
