//! Printing type expressions: names with their modifiers (`'safe`, `'hwtex_nearest`), generic
//! arguments, and function types.

use super::expr::dim_spec;
use super::{join, print_expr, print_type};
use crate::syntax::ast::*;

pub(super) fn modifiers(t: &TypeExpr, out: &mut String) {
    for m in &t.modifiers {
        out.push('\'');
        out.push_str(&m.name.name);
        if let Some(args) = &m.args {
            out.push('(');
            out.push_str(&join(args, ", ", print_expr));
            out.push(')');
        }
    }
}

pub(super) fn ty(t: &TypeExpr, out: &mut String) {
    crate::stack::guard(|| ty_unguarded(t, out))
}

fn ty_unguarded(t: &TypeExpr, out: &mut String) {
    match &t.kind {
        TypeKind::Named { name, dims, args, sizes } => {
            out.push_str(&name.name);
            if let Some(d) = dims {
                dim_spec(d, out);
            }
            if !args.is_empty() {
                out.push('[');
                out.push_str(&join(args, ", ", print_type));
                out.push(']');
            }
            if let Some(sizes) = sizes {
                out.push('(');
                out.push_str(&join(sizes, ", ", |s| match s {
                    SizeSpec::Any => ":".to_string(),
                    SizeSpec::Expr(e) => print_expr(e),
                }));
                out.push(')');
            }
        }
        TypeKind::Unknown => out.push_str("??"),
        TypeKind::Pointer(inner) => {
            out.push('^');
            ty(inner, out);
        }
        TypeKind::Union(members) => {
            out.push('[');
            out.push_str(&join(members, "|", print_type));
            out.push(']');
        }
        TypeKind::Cell(members) => {
            out.push('{');
            out.push_str(&join(members, ", ", print_type));
            out.push('}');
        }
        TypeKind::Function(f) => {
            out.push('[');
            function_type(f, out);
            out.push(']');
        }
        TypeKind::Unit => out.push_str("()"),
        TypeKind::Inferred => {}
    }
    modifiers(t, out);
}

/// The inside of a function type's brackets: `kind (A, ...B) -> (C, D)`.
fn function_type(f: &FunctionType, out: &mut String) {
    if let Some(word) = f.kind.word() {
        out.push_str(word);
        out.push(' ');
    }
    let params = join(&f.params, ", ", |p| {
        let mut s = String::new();
        if p.variadic {
            s.push_str("...");
        }
        ty(&p.ty, &mut s);
        s
    });
    if f.parenthesized || f.params.is_empty() {
        out.push('(');
        out.push_str(&params);
        out.push(')');
    } else {
        out.push_str(&params);
    }
    out.push_str(" -> ");
    match f.results.as_slice() {
        // A curried result `[a -> b -> c]` is written without its own brackets.
        [TypeExpr { kind: TypeKind::Function(inner), modifiers, .. }]
            if !f.results_parenthesized && modifiers.is_empty() && inner.kind.word().is_none() =>
        {
            function_type(inner, out);
        }
        results => {
            let text = join(results, ", ", print_type);
            if f.results_parenthesized {
                out.push('(');
                out.push_str(&text);
                out.push(')');
            } else {
                out.push_str(&text);
            }
        }
    }
}
