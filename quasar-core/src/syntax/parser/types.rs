//! Type expressions: `scalar`, `vec3`, `cube{4}[int16]`, `mat[T](M, N)'const`, `??`, `^T`,
//! `[int|cube]`, `{string, scalar}`, `[__device__ (scalar, ...vec) -> (scalar, scalar)]`.

use super::{PResult, Parser};
use crate::span::Span;
use crate::syntax::ast::{
    FunctionKind, FunctionType, FunctionTypeParam, Ident, Modifier, SizeSpec, TypeExpr, TypeKind,
};
use crate::syntax::token::{Punct, TokenKind};

impl Parser {
    pub(super) fn parse_type(&mut self) -> PResult<TypeExpr> {
        self.nested(|p| {
            let start = p.span();
            let kind = p.parse_type_kind()?;
            let mut modifiers = Vec::new();
            while let TokenKind::Modifier(m) = p.kind().clone() {
                let span = p.bump().span;
                let mut args = None;
                if p.at_punct(Punct::LParen) && !p.tok().space_before {
                    p.bump();
                    let mut list = Vec::new();
                    if p.eat_punct(Punct::RParen).is_none() {
                        loop {
                            list.push(p.parse_ternary()?);
                            if p.eat_punct(Punct::Comma).is_some() {
                                continue;
                            }
                            p.expect_punct(Punct::RParen, "to close the modifier's arguments")?;
                            break;
                        }
                    }
                    args = Some(list);
                }
                modifiers.push(Modifier { name: Ident { name: m, span }, args });
            }
            let span =
                if p.prev_span().start >= start.start { start.to(p.prev_span()) } else { start };
            Ok(TypeExpr { kind, modifiers, span })
        })
    }

    fn parse_type_kind(&mut self) -> PResult<TypeKind> {
        match self.kind().clone() {
            // Modifiers alone: the type itself is inferred (`x : 'const = 4`).
            TokenKind::Modifier(_) => Ok(TypeKind::Inferred),
            TokenKind::Punct(Punct::QuestionQuestion) => {
                self.bump();
                Ok(TypeKind::Unknown)
            }
            TokenKind::Punct(Punct::Caret) => {
                self.bump();
                Ok(TypeKind::Pointer(Box::new(self.parse_type()?)))
            }
            TokenKind::Punct(Punct::LBrace) => {
                self.bump();
                let items = self.parse_type_list(Punct::RBrace)?;
                Ok(TypeKind::Cell(items))
            }
            TokenKind::Punct(Punct::LBracket) => {
                self.bump();
                self.parse_bracket_type()
            }
            TokenKind::Punct(Punct::LParen) if self.peek_is_punct(1, Punct::RParen) => {
                self.bump();
                self.bump();
                Ok(TypeKind::Unit)
            }
            TokenKind::Ident(_) => self.parse_named_type(),
            _ => Err(self.expected("a type")),
        }
    }

    fn parse_named_type(&mut self) -> PResult<TypeKind> {
        let name = self.expect_ident("a type name")?;
        let mut dims = None;
        if self.at_punct(Punct::LBrace) && !self.tok().space_before {
            self.bump();
            dims = Some(self.parse_dim_spec()?);
        }
        let mut args = Vec::new();
        if self.at_punct(Punct::LBracket) && !self.tok().space_before {
            self.bump();
            args = self.parse_type_list(Punct::RBracket)?;
        }
        let mut sizes = None;
        if self.at_punct(Punct::LParen) && !self.tok().space_before {
            self.bump();
            sizes = Some(self.parse_size_list()?);
        }
        Ok(TypeKind::Named { name, dims, args, sizes })
    }

    /// `M, :, 3)` after the `(` of a size constraint.
    fn parse_size_list(&mut self) -> PResult<Vec<SizeSpec>> {
        let mut list = Vec::new();
        if self.eat_punct(Punct::RParen).is_some() {
            return Ok(list);
        }
        loop {
            if self.at_punct(Punct::Colon) {
                self.bump();
                list.push(SizeSpec::Any);
            } else {
                list.push(SizeSpec::Expr(self.parse_ternary()?));
            }
            if self.eat_punct(Punct::Comma).is_some() {
                continue;
            }
            self.expect_punct(Punct::RParen, "to close the size list")?;
            return Ok(list);
        }
    }

    /// Comma-separated types up to `close` (at least one).
    fn parse_type_list(&mut self, close: Punct) -> PResult<Vec<TypeExpr>> {
        let mut items = vec![self.parse_type()?];
        while self.eat_punct(Punct::Comma).is_some() {
            items.push(self.parse_type()?);
        }
        self.expect_punct(close, &format!("to close the type list `{}`", close.as_str()))?;
        Ok(items)
    }

    /// After `[`: a type class `[a|b]` or a function type `[kind (params) -> results]`.
    fn parse_bracket_type(&mut self) -> PResult<TypeKind> {
        let mut kind = FunctionKind::Host;
        if let TokenKind::Ident(w) = self.kind() {
            if let Some(k) = FunctionKind::from_word(w) {
                kind = k;
                self.bump();
            }
        }
        let (params, parenthesized) = if self.at_punct(Punct::LParen) {
            self.bump();
            let mut params = Vec::new();
            if self.eat_punct(Punct::RParen).is_none() {
                loop {
                    params.push(self.parse_fn_type_param()?);
                    if self.eat_punct(Punct::Comma).is_some() {
                        continue;
                    }
                    self.expect_punct(Punct::RParen, "to close the parameter types")?;
                    break;
                }
            }
            (params, true)
        } else {
            let first = self.parse_fn_type_param()?;
            if kind == FunctionKind::Host && !first.variadic && self.at_punct(Punct::Pipe) {
                let mut members = vec![first.ty];
                while self.eat_punct(Punct::Pipe).is_some() {
                    members.push(self.parse_type()?);
                }
                self.expect_punct(Punct::RBracket, "to close the type class `[a|b]`")?;
                return Ok(TypeKind::Union(members));
            }
            (vec![first], false)
        };
        self.expect_punct(Punct::Arrow, "in the function type (`[args -> results]`)")?;
        let f = self.parse_fn_type_results(kind, params, parenthesized)?;
        self.expect_punct(Punct::RBracket, "to close the function type")?;
        Ok(TypeKind::Function(f))
    }

    fn parse_fn_type_param(&mut self) -> PResult<FunctionTypeParam> {
        let variadic = self.eat_punct(Punct::Ellipsis).is_some();
        Ok(FunctionTypeParam { ty: self.parse_type()?, variadic })
    }

    /// The part after `->`: `(a, b)`, `()`, `t`, or a curried `t -> u -> …`.
    fn parse_fn_type_results(
        &mut self,
        kind: FunctionKind,
        params: Vec<FunctionTypeParam>,
        parenthesized: bool,
    ) -> PResult<FunctionType> {
        if self.at_punct(Punct::LParen) {
            self.bump();
            let results = if self.eat_punct(Punct::RParen).is_some() {
                Vec::new()
            } else {
                self.parse_type_list(Punct::RParen)?
            };
            return Ok(FunctionType {
                kind,
                params,
                parenthesized,
                results,
                results_parenthesized: true,
            });
        }
        let result = self.parse_type()?;
        let result = if self.eat_punct(Punct::Arrow).is_some() {
            // `a -> b -> c` is `a -> [b -> c]`: each `->` nests one level deeper.
            let start: Span = result.span;
            let param = vec![FunctionTypeParam { ty: result, variadic: false }];
            let inner =
                self.nested(|p| p.parse_fn_type_results(FunctionKind::Host, param, false))?;
            TypeExpr {
                kind: TypeKind::Function(inner),
                modifiers: Vec::new(),
                span: start.to(self.prev_span()),
            }
        } else {
            result
        };
        Ok(FunctionType {
            kind,
            params,
            parenthesized,
            results: vec![result],
            results_parenthesized: false,
        })
    }
}
