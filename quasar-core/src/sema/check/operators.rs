//! Unary and binary operators: operand conversion, result types, and constant folding of
//! literal operands.

use super::scope::FnLowerer;
use crate::diagnostics::Diagnostic;
use crate::ir::{self, Const};
use crate::sema::ops::{binary_type, unary_type};
use crate::sema::types::Type;
use crate::span::Span;
use crate::syntax::ast::{BinaryOp, Expr, UnaryOp};

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
        ir::Expr::new(ir::ExprKind::Unary { op, operand: Box::new(v) }, ty, span)
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
        if l.ty == Type::Void || r.ty == Type::Void {
            // An operand whose type is not known yet (a later pass will know it).
            return ir::Expr::new(
                ir::ExprKind::Binary { op, lhs: Box::new(l), rhs: Box::new(r) },
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
        ir::Expr::new(ir::ExprKind::Binary { op, lhs: Box::new(l), rhs: Box::new(r) }, ty, span)
    }
}
