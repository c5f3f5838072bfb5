//! Types used as values: type checks `e : T`, and expressions read as type names (`vec3`,
//! `cube[int]`) where a type is expected, such as a constructor or a generic argument.

use super::convert::converts_implicitly;
use super::scope::FnLowerer;
use crate::diagnostics::Diagnostic;
use crate::ir;
use crate::sema::types::{is_subtype, Type};
use crate::span::Span;
use crate::syntax::ast::{self, Expr, ExprKind};

/// An explicit argument of a generic function, in brackets after its name: a type
/// (`add_item[int]`) or a size (`hist_kernel[256]`, for a parameter used as an array extent).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum GenericArg {
    Type(Type),
    Size(u64),
}

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

    /// The bracketed arguments of `f[…](…)`: types where they read as types, else constant
    /// non-negative integers (sizes); anything else is reported and stands for `??`.
    pub(super) fn lower_generic_args(&mut self, indices: &'a [ast::Arg]) -> Vec<GenericArg> {
        let mut out = Vec::new();
        for a in indices {
            if let Some(t) = self.expr_as_type(&a.value) {
                out.push(GenericArg::Type(t));
                continue;
            }
            let v = self.lower_expr(&a.value);
            match v.constant() {
                Some(ir::Const::Int(n)) if *n >= 0 => out.push(GenericArg::Size(*n as u64)),
                _ if v.ty == Type::Unknown || v.ty == Type::Void => {
                    out.push(GenericArg::Type(Type::Unknown))
                }
                _ => {
                    let d = Diagnostic::error(
                        a.value.span,
                        format!(
                            "a generic argument must be a type or a constant size, found {}",
                            v.ty
                        ),
                    )
                    .with_note("sizes in brackets are known when compiling: `f[256]`, `f[N]`");
                    self.report(d);
                    out.push(GenericArg::Type(Type::Unknown));
                }
            }
        }
        out
    }

    /// Reports more bracketed arguments than `def` has generic parameters.
    pub(super) fn check_generic_count(
        &mut self,
        def: &ast::FunctionDef,
        given: usize,
        span: Span,
    ) -> bool {
        if given <= def.type_params.len() {
            return true;
        }
        let d = Diagnostic::error(
            span,
            format!(
                "`{}` has {} generic parameter(s) but {given} are given in brackets",
                def.name.name,
                def.type_params.len()
            ),
        )
        .with_secondary(def.name.span, "defined here");
        self.report(d);
        false
    }

    /// The arguments of `cast(x, T)`, `type(x, T)`, `typename(T)`, `maxvalue(T)` and
    /// `minvalue(T)` that stand for a type: a type that is also the name of a conversion
    /// built-in (`int`, `uint8`, …) is read as the type there, not as the function.
    pub(super) fn builtin_type_args(
        &mut self,
        b: ir::Builtin,
        args: &[ast::Arg],
        lowered: &mut [ir::Expr],
    ) {
        use ir::Builtin as B;
        let at = match b {
            B::Cast | B::Type => 1,
            B::Typename | B::Maxvalue | B::Minvalue => 0,
            _ => return,
        };
        if args.len() != lowered.len() {
            return; // a spread: positions are not the written ones
        }
        let (Some(arg), Some(v)) = (args.get(at), lowered.get_mut(at)) else { return };
        if !matches!(v.kind, ir::ExprKind::BuiltinRef(_)) {
            return;
        }
        if let Some(t) = self.expr_as_type(&arg.value) {
            *v = ir::Expr::new(ir::ExprKind::TypeValue, Type::TypeValue(Box::new(t)), v.span);
        }
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
