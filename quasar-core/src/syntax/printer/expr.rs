//! Printing expressions: operators, calls and arguments, ranges, matrices, lambdas.

use super::types::ty;
use super::{join, print_arg, print_expr, print_param};
use crate::syntax::ast::*;

pub(crate) fn binary_op_str(op: BinaryOp) -> &'static str {
    match op {
        BinaryOp::Add => "+",
        BinaryOp::Sub => "-",
        BinaryOp::Mul => "*",
        BinaryOp::Div => "/",
        BinaryOp::Pow => "^",
        BinaryOp::ElemMul => ".*",
        BinaryOp::ElemDiv => "./",
        BinaryOp::ElemPow => ".^",
        BinaryOp::Lt => "<",
        BinaryOp::Le => "<=",
        BinaryOp::Gt => ">",
        BinaryOp::Ge => ">=",
        BinaryOp::Eq => "==",
        BinaryOp::Ne => "!=",
        BinaryOp::And => "&&",
        BinaryOp::Or => "||",
        BinaryOp::Pipe => "|>",
    }
}

pub(crate) fn assign_op_str(op: AssignOp) -> &'static str {
    match op {
        AssignOp::Assign => "=",
        AssignOp::Define => ":=",
        AssignOp::Add => "+=",
        AssignOp::Sub => "-=",
        AssignOp::Mul => "*=",
        AssignOp::Div => "/=",
        AssignOp::Pow => "^=",
        AssignOp::ElemMul => ".*=",
        AssignOp::ElemDiv => "./=",
        AssignOp::ElemPow => ".^=",
        AssignOp::Max => "^^=",
        AssignOp::Min => "__=",
        AssignOp::Xor => "~=",
        AssignOp::Or => "|=",
        AssignOp::And => "&=",
    }
}

fn unary_op_str(op: UnaryOp) -> &'static str {
    match op {
        UnaryOp::Neg => "-",
        UnaryOp::Plus => "+",
        UnaryOp::Not => "!",
    }
}

fn exprs(items: &[Expr], sep: &str, out: &mut String) {
    for (i, e) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(sep);
        }
        expr(e, out);
    }
}

pub(super) fn args(items: &[Arg], out: &mut String) {
    out.push_str(&join(items, ", ", print_arg));
}

pub(super) fn dim_spec(d: &DimSpec, out: &mut String) {
    out.push('{');
    match d {
        DimSpec::Fixed(e) => expr(e, out),
        DimSpec::Any => out.push(':'),
    }
    out.push('}');
}

/// A range bound: `..` is written without spaces, unless a neighbouring literal ends or
/// starts with a `.` (`1. .. 2`, `0.. .5`), where the dots would run together.
fn range_part(e: &Expr, out: &mut String) {
    let text = print_expr(e);
    if text.starts_with('.') {
        out.push(' ');
    }
    out.push_str(&text);
}

fn range_dots(out: &mut String) {
    if out.ends_with('.') {
        out.push(' ');
    }
    out.push_str("..");
}

pub(super) fn expr(e: &Expr, out: &mut String) {
    crate::stack::guard(|| expr_unguarded(e, out))
}

fn expr_unguarded(e: &Expr, out: &mut String) {
    match &e.kind {
        ExprKind::Number(text) => out.push_str(text),
        ExprKind::Str(text) => {
            out.push('"');
            out.push_str(text);
            out.push('"');
        }
        ExprKind::Ident(name) => out.push_str(name),
        ExprKind::Placeholder => out.push('_'),
        ExprKind::Colon => out.push(':'),
        ExprKind::Unknown => out.push_str("??"),
        ExprKind::Spread(inner) => {
            out.push_str("...");
            expr(inner, out);
        }
        ExprKind::Range { start, step, end } => {
            expr(start, out);
            if let Some(step) = step {
                range_dots(out);
                range_part(step, out);
            }
            range_dots(out);
            range_part(end, out);
        }
        ExprKind::Unary { op, operand } => {
            out.push_str(unary_op_str(*op));
            expr(operand, out);
        }
        ExprKind::Binary { op, lhs, rhs } => {
            expr(lhs, out);
            out.push(' ');
            out.push_str(binary_op_str(*op));
            out.push(' ');
            expr(rhs, out);
        }
        ExprKind::Ternary { cond, then, otherwise } => {
            expr(cond, out);
            out.push_str(" ? ");
            expr(then, out);
            out.push_str(" : ");
            expr(otherwise, out);
        }
        ExprKind::Assign { op, lhs, rhs } => {
            expr(lhs, out);
            out.push(' ');
            out.push_str(assign_op_str(*op));
            out.push(' ');
            expr(rhs, out);
        }
        ExprKind::Annotated { expr: inner, ty: t } => {
            expr(inner, out);
            out.push_str(" : ");
            ty(t, out);
        }
        ExprKind::Call { callee, args: a, style } => {
            expr(callee, out);
            match style {
                CallStyle::Paren => {
                    out.push('(');
                    args(a, out);
                    out.push(')');
                }
                CallStyle::Command => {
                    if !a.is_empty() {
                        out.push(' ');
                        args(a, out);
                    }
                }
            }
        }
        ExprKind::Index { base, indices } => {
            expr(base, out);
            out.push('[');
            args(indices, out);
            out.push(']');
        }
        ExprKind::Field { base, name } => {
            expr(base, out);
            // `0. .x`: after a number ending in `.`, a `.` would read as a range `..`.
            if out.ends_with('.') {
                out.push(' ');
            }
            out.push('.');
            out.push_str(&name.name);
        }
        ExprKind::Dims { base, dims } => {
            expr(base, out);
            dim_spec(dims, out);
        }
        ExprKind::Modified { base, modifier } => {
            expr(base, out);
            out.push('\'');
            out.push_str(&modifier.name);
        }
        ExprKind::Matrix(items) => {
            out.push('[');
            exprs(items, ", ", out);
            out.push(']');
        }
        ExprKind::Cell(items) => {
            out.push('{');
            // `{ !a }`: without the space, `{!` would open a code attribute.
            if matches!(
                items.first(),
                Some(Expr { kind: ExprKind::Unary { op: UnaryOp::Not, .. }, .. })
            ) {
                out.push(' ');
            }
            exprs(items, ", ", out);
            out.push('}');
        }
        ExprKind::Paren(items) => {
            out.push('(');
            exprs(items, "; ", out);
            out.push(')');
        }
        ExprKind::Tuple(items) => {
            out.push('(');
            exprs(items, ", ", out);
            out.push(')');
        }
        ExprKind::Lambda(l) => lambda(l, out),
    }
}

fn lambda(l: &Lambda, out: &mut String) {
    let word = l.kind.word();
    if let Some(word) = word {
        out.push_str(word);
        out.push(' ');
    }
    let bare = match l.params.as_slice() {
        [p] => {
            !l.parenthesized
                && word.is_none()
                && p.ty.is_none()
                && p.default.is_none()
                && !p.variadic
        }
        _ => false,
    };
    if bare {
        out.push_str(&l.params[0].name.name);
    } else {
        out.push('(');
        out.push_str(&join(&l.params, ", ", print_param));
        out.push(')');
    }
    out.push_str(" -> ");
    expr(&l.body, out);
}
