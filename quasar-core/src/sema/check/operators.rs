//! Unary and binary operators: operand conversion, result types, and constant folding of
//! literal operands.

use super::scope::FnLowerer;
use crate::diagnostics::Diagnostic;
use crate::ir::{self, Const};
use crate::sema::ops::{binary_type, unary_type};
use crate::sema::types::Type;
use crate::span::Span;
use crate::syntax::ast::{AssignOp, BinaryOp, Expr, UnaryOp};

/// Folds an operation on two constants (integer arithmetic that does not overflow, float
/// arithmetic, comparisons).
fn fold(op: BinaryOp, a: &Const, b: &Const) -> Option<Const> {
    use BinaryOp::*;
    let num = |c: &Const| match c {
        Const::Int(i) => Some(*i as f64),
        Const::Scalar(x) => Some(*x),
        _ => None,
    };
    match (a, b) {
        (Const::Int(x), Const::Int(y)) => match op {
            Add => x.checked_add(*y).map(Const::Int),
            Sub => x.checked_sub(*y).map(Const::Int),
            Mul | ElemMul => x.checked_mul(*y).map(Const::Int),
            Div | ElemDiv if *y != 0 => Some(Const::Scalar(*x as f64 / *y as f64)),
            Lt => Some(Const::Int((x < y) as i64)),
            Le => Some(Const::Int((x <= y) as i64)),
            Gt => Some(Const::Int((x > y) as i64)),
            Ge => Some(Const::Int((x >= y) as i64)),
            Eq => Some(Const::Int((x == y) as i64)),
            Ne => Some(Const::Int((x != y) as i64)),
            _ => None,
        },
        _ => {
            let (x, y) = (num(a)?, num(b)?);
            match op {
                Add => Some(Const::Scalar(x + y)),
                Sub => Some(Const::Scalar(x - y)),
                Mul | ElemMul => Some(Const::Scalar(x * y)),
                Div | ElemDiv => Some(Const::Scalar(x / y)),
                Pow | ElemPow => Some(Const::Scalar(x.powf(y))),
                _ => None,
            }
        }
    }
}

/// The IR's operator for a prefix operator of the syntax.
pub(super) fn ir_unary(op: UnaryOp) -> ir::UnaryOp {
    match op {
        UnaryOp::Neg => ir::UnaryOp::Neg,
        UnaryOp::Plus => ir::UnaryOp::Plus,
        UnaryOp::Not => ir::UnaryOp::Not,
    }
}

/// The IR's operator for an infix operator of the syntax; `None` for the pipeline `|>`,
/// which only reductions give a meaning.
pub(super) fn ir_binary(op: BinaryOp) -> Option<ir::BinaryOp> {
    Some(match op {
        BinaryOp::Add => ir::BinaryOp::Add,
        BinaryOp::Sub => ir::BinaryOp::Sub,
        BinaryOp::Mul => ir::BinaryOp::Mul,
        BinaryOp::Div => ir::BinaryOp::Div,
        BinaryOp::Pow => ir::BinaryOp::Pow,
        BinaryOp::ElemMul => ir::BinaryOp::ElemMul,
        BinaryOp::ElemDiv => ir::BinaryOp::ElemDiv,
        BinaryOp::ElemPow => ir::BinaryOp::ElemPow,
        BinaryOp::Lt => ir::BinaryOp::Lt,
        BinaryOp::Le => ir::BinaryOp::Le,
        BinaryOp::Gt => ir::BinaryOp::Gt,
        BinaryOp::Ge => ir::BinaryOp::Ge,
        BinaryOp::Eq => ir::BinaryOp::Eq,
        BinaryOp::Ne => ir::BinaryOp::Ne,
        BinaryOp::And => ir::BinaryOp::And,
        BinaryOp::Or => ir::BinaryOp::Or,
        BinaryOp::Pipe => return None,
    })
}

/// The IR's operator for an assignment operator of the syntax (`:=` assigns).
pub(super) fn ir_assign(op: AssignOp) -> ir::AssignOp {
    match op {
        AssignOp::Assign | AssignOp::Define => ir::AssignOp::Assign,
        AssignOp::Add => ir::AssignOp::Add,
        AssignOp::Sub => ir::AssignOp::Sub,
        AssignOp::Mul => ir::AssignOp::Mul,
        AssignOp::Div => ir::AssignOp::Div,
        AssignOp::Pow => ir::AssignOp::Pow,
        AssignOp::ElemMul => ir::AssignOp::ElemMul,
        AssignOp::ElemDiv => ir::AssignOp::ElemDiv,
        AssignOp::ElemPow => ir::AssignOp::ElemPow,
        AssignOp::Max => ir::AssignOp::Max,
        AssignOp::Min => ir::AssignOp::Min,
        AssignOp::Xor => ir::AssignOp::Xor,
        AssignOp::Or => ir::AssignOp::Or,
        AssignOp::And => ir::AssignOp::And,
    }
}

impl<'c, 'a> FnLowerer<'c, 'a> {
    pub(super) fn lower_unary(&mut self, op: UnaryOp, operand: &'a Expr, span: Span) -> ir::Expr {
        let v = self.lower_expr(operand);
        let ty = match unary_type(op, &v.ty) {
            Ok(t) => t,
            Err(msg) => {
                let d = Diagnostic::error(span, msg);
                self.report(d);
                Type::Unknown
            }
        };
        if let (UnaryOp::Neg, Some(c)) = (op, v.constant()) {
            let folded = match c {
                Const::Int(i) => i.checked_neg().map(Const::Int),
                Const::Scalar(x) => Some(Const::Scalar(-x)),
                Const::Complex(re, im) => Some(Const::Complex(-re, -im)),
                _ => None,
            };
            if let Some(c) = folded {
                return ir::Expr::new(ir::ExprKind::Const(c), ty, span);
            }
        }
        ir::Expr::new(ir::ExprKind::Unary { op: ir_unary(op), operand: Box::new(v) }, ty, span)
    }

    pub(super) fn lower_binary(
        &mut self,
        op: BinaryOp,
        lhs: &'a Expr,
        rhs: &'a Expr,
        span: Span,
    ) -> ir::Expr {
        let l = self.lower_expr(lhs);
        let l = self.single_value(l);
        let r = self.lower_expr(rhs);
        let r = self.single_value(r);
        let Some(ir_op) = ir_binary(op) else {
            return self.invalid(
                span,
                "the pipeline operator `|>` (manual chapter 15) has a meaning only through a reduction \
                 that defines it, as in `reduction (x, f) -> x |> f = f(x)`; or call the \
                 functions directly, as in `g(f(x))`",
            );
        };
        if l.ty == Type::Void || r.ty == Type::Void {
            // An operand whose type is not known yet (a later pass will know it).
            return ir::Expr::new(
                ir::ExprKind::Binary { op: ir_op, lhs: Box::new(l), rhs: Box::new(r) },
                Type::Void,
                span,
            );
        }
        let ty = match binary_type(op, &l.ty, &r.ty) {
            Ok(t) => t,
            Err(msg) => {
                let d = Diagnostic::error(span, msg)
                    .with_secondary(l.span, format!("this is {}", l.ty))
                    .with_secondary(r.span, format!("this is {}", r.ty));
                self.report(d);
                Type::Unknown
            }
        };
        if let (Some(a), Some(b)) = (l.constant(), r.constant()) {
            if let Some(c) = fold(op, a, b) {
                return ir::Expr::new(ir::ExprKind::Const(c), ty, span);
            }
        }
        ir::Expr::new(
            ir::ExprKind::Binary { op: ir_op, lhs: Box::new(l), rhs: Box::new(r) },
            ty,
            span,
        )
    }
}
