//! The compile-time meta functions of manual §8.6 and chapter 5 (`$check`, `$str`, `$eval`,
//! `$specialize`, `$target`, …). The type checker gives their results types; arguments that
//! are code to be manipulated (`$specialize`'s constraints, `$subs`' substitution) are not
//! evaluated as values. Generating code for them is the backends' concern.

use super::expr::unknown;
use super::scope::FnLowerer;
use crate::diagnostics::Diagnostic;
use crate::ir::{self, Callee};
use crate::sema::types::Type;
use crate::span::Span;
use crate::syntax::ast;

impl<'c, 'a> FnLowerer<'c, 'a> {
    pub fn call_meta(
        &mut self,
        name: &str,
        name_span: Span,
        args: &'a [ast::Arg],
        span: Span,
    ) -> ir::Expr {
        // `$ftype("__host__")` asks about the function being compiled: known here (manual
        // §4.9.4 uses it in `where` clauses of reductions).
        if let ("$ftype", [ast::Arg { value: ast::Expr { kind: ast::ExprKind::Str(k), .. }, .. }]) =
            (name, args)
        {
            let is = match k.as_str() {
                "__host__" => Some(!self.in_device_code()),
                "__device__" => Some(self.kind == ast::FunctionKind::Device),
                "__kernel__" => Some(self.kind == ast::FunctionKind::Kernel),
                _ => None,
            };
            if let Some(is) = is {
                return ir::Expr::new(
                    ir::ExprKind::Const(ir::Const::Int(is.into())),
                    Type::INT,
                    span,
                );
            }
        }
        let value = |l: &mut Self, i: usize| args.get(i).map(|a| l.lower_expr(&a.value));
        let (ty, lowered): (Type, Vec<ir::Expr>) = match name {
            // Conditions over symbolic variables: "Valid", "Satisfiable", "Unsatisfiable".
            "$check" | "$str" => (Type::String, value(self, 0).into_iter().collect()),
            "$eval" | "$simplify" | "$ubound" | "$inline" => {
                let v = value(self, 0);
                (v.as_ref().map(|v| v.ty.clone()).unwrap_or(Type::Unknown), v.into_iter().collect())
            }
            // `$specialize(f, constraints)`: a version of `f`; the constraints name `f`'s
            // parameters, so they are not values here.
            "$specialize" => {
                let v = value(self, 0);
                (v.as_ref().map(|v| v.ty.clone()).unwrap_or(Type::Unknown), v.into_iter().collect())
            }
            "$target" | "$ftype" | "$nops" => (Type::INT, Vec::new()),
            "$assump" | "$subs" | "$op" | "$args" | "$typerecon" => (Type::Unknown, Vec::new()),
            _ => {
                let d = Diagnostic::error(name_span, format!("unknown meta function `{name}`"))
                    .with_note("the meta functions are $eval $str $subs $check $assump $simplify $args $nops $op $ubound $specialize $inline $ftype $typerecon $target");
                self.report(d);
                return unknown(span);
            }
        };
        if args.is_empty() {
            let d = Diagnostic::error(span, format!("`{name}` needs an argument"));
            self.report(d);
        }
        ir::Expr::new(ir::ExprKind::Call { callee: meta_callee(name), args: lowered }, ty, span)
    }
}

/// The callee of a call of the meta function `name` (one of those matched above).
fn meta_callee(name: &str) -> Callee {
    ir::Builtin::meta(name).map_or_else(|| Callee::Unresolved(name.to_string()), Callee::Builtin)
}
