//! Types used as values: type checks `e : T`, and expressions read as type names (`vec3`,
//! `cube[int]`) where a type is expected, such as a constructor or a generic argument.

use super::convert::converts_implicitly;
use super::scope::FnLowerer;
use crate::diagnostics::Diagnostic;
use crate::ir;
use crate::sema::types::{is_subtype, Type};
use crate::span::Span;
use crate::syntax::ast::{self, Expr, ExprKind};

/// Reads an expression such as `vec[int]` or `cube{4}[int16]` as a written type.
pub fn expr_to_type_expr(e: &Expr) -> Option<ast::TypeExpr> {
    let named = |name: &ast::Ident| ast::TypeKind::Named {
        name: name.clone(),
        dims: None,
        args: Vec::new(),
        sizes: None,
    };
    let kind_modifiers: (ast::TypeKind, Vec<ast::Modifier>) = match &e.kind {
        ExprKind::Ident(n) => (named(&ast::Ident { name: n.clone(), span: e.span }), Vec::new()),
        ExprKind::Unknown => (ast::TypeKind::Unknown, Vec::new()),
        ExprKind::Modified { base, modifier } => {
            let mut t = expr_to_type_expr(base)?;
            t.modifiers.push(ast::Modifier { name: modifier.clone(), args: None });
            return Some(t);
        }
        ExprKind::Dims { base, dims } => {
            let mut t = expr_to_type_expr(base)?;
            if let ast::TypeKind::Named { dims: d, .. } = &mut t.kind {
                *d = Some((**dims).clone());
            }
            return Some(t);
        }
        ExprKind::Index { base, indices } => {
            let mut t = expr_to_type_expr(base)?;
            let args: Option<Vec<ast::TypeExpr>> =
                indices.iter().map(|a| expr_to_type_expr(&a.value)).collect();
            if let ast::TypeKind::Named { args: a, .. } = &mut t.kind {
                *a = args?;
            }
            return Some(t);
        }
        ExprKind::Cell(items) => {
            let items: Option<Vec<ast::TypeExpr>> = items.iter().map(expr_to_type_expr).collect();
            (ast::TypeKind::Cell(items?), Vec::new())
        }
        _ => return None,
    };
    Some(ast::TypeExpr { kind: kind_modifiers.0, modifiers: kind_modifiers.1, span: e.span })
}

impl<'c, 'a> FnLowerer<'c, 'a> {
    /// `e : T`: a run-time checked type assertion that also narrows the static type.
    pub(super) fn lower_type_check(
        &mut self,
        e: &'a Expr,
        t: &'a ast::TypeExpr,
        span: Span,
    ) -> ir::Expr {
        let v = self.lower_expr(e);
        let ty = self.resolve_type(t);
        if ty.is_concrete()
            && v.ty.is_concrete()
            && !is_subtype(&v.ty, &ty)
            && !converts_implicitly(&v.ty, &ty)
        {
            let d = Diagnostic::error(span, format!("type check failed: {} is not {ty}", v.ty))
                .with_label(format!("this is {}", v.ty));
            self.report(d);
        }
        let narrowed = if v.ty == Type::Unknown { ty } else { v.ty.clone() };
        ir::Expr { ty: narrowed, ..v }
    }

    /// The type written as an expression: `vec[int]`, `cube{4}`, `scalar'half`, `point`.
    pub fn expr_as_type(&mut self, e: &Expr) -> Option<Type> {
        let t = expr_to_type_expr(e)?;
        let env_ok = match &t.kind {
            ast::TypeKind::Named { name, .. } => self.expr_as_type_name(&name.name).is_some(),
            _ => true,
        };
        env_ok.then(|| self.resolve_type_owned(&t))
    }

    /// The type named `name`, when `name` is a type (and not a variable).
    pub fn expr_as_type_name(&mut self, name: &str) -> Option<Type> {
        if self.names.contains_key(name) {
            return None;
        }
        let t = ast::TypeExpr {
            kind: ast::TypeKind::Named {
                name: ast::Ident { name: name.to_string(), span: Span::default() },
                dims: None,
                args: Vec::new(),
                sizes: None,
            },
            modifiers: Vec::new(),
            span: Span::default(),
        };
        let env = crate::sema::resolve_type::TypeEnv {
            decls: &self.cx.decls,
            params: &self.type_params,
            sizes: &self.sizes,
        };
        let mut diags = Vec::new();
        let ty = env.resolve(&t, &mut diags);
        diags.is_empty().then_some(ty)
    }

    fn resolve_type_owned(&mut self, t: &ast::TypeExpr) -> Type {
        let env = crate::sema::resolve_type::TypeEnv {
            decls: &self.cx.decls,
            params: &self.type_params,
            sizes: &self.sizes,
        };
        let mut diags = Vec::new();
        let ty = env.resolve(t, &mut diags);
        self.diags.extend(diags);
        ty
    }
}
