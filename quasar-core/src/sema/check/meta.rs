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
        if let Some(e) = self.compile_time_meta(name, args, span) {
            return e;
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

/// The target platforms of manual table 17.2 (`$target`).
const TARGETS: &[&str] = &[
    "cpu",
    "gpu",
    "nvidia_cuda",
    "nvidia_opengl",
    "nvidia",
    "amd_opengl",
    "amd",
    "generic_opengl",
    "opengl",
];

/// Whether `$target(target)` holds in code compiled for the GPU (`gpu`, the PTX back end) or
/// for the CPU (the Rust back end: host code and CPU kernels).
pub(crate) fn target_holds(target: &str, gpu: bool) -> bool {
    if gpu {
        matches!(target, "gpu" | "nvidia_cuda" | "nvidia")
    } else {
        target == "cpu"
    }
}

impl<'c, 'a> FnLowerer<'c, 'a> {
    /// The meta functions answered while checking: `$str` (the expression's text),
    /// `$eval` (its value) and `$target` (kept for the back ends, which answer it per
    /// target). `None` for the others.
    fn compile_time_meta(
        &mut self,
        name: &str,
        args: &'a [ast::Arg],
        span: Span,
    ) -> Option<ir::Expr> {
        let [arg] = args else { return None };
        match name {
            "$check" => Some(self.meta_check(&arg.value, span)),
            "$str" => {
                if let Some(text) = self.assump_text(&arg.value, span) {
                    return Some(text);
                }
                let text = crate::syntax::printer::print_expr(&arg.value);
                Some(ir::Expr::new(ir::ExprKind::Const(ir::Const::Str(text)), Type::String, span))
            }
            // A value the compiler knows is folded already; another one (`$eval(log(pi/2))`)
            // is computed where it stands, which gives the same value.
            "$eval" => Some(self.lower_expr(&arg.value)),
            "$target" => {
                let ast::ExprKind::Str(t) = &arg.value.kind else {
                    let d = Diagnostic::error(
                        arg.value.span,
                        "`$target` needs a target name in quotes",
                    )
                    .with_note(format!("the targets are {}", TARGETS.join(", ")));
                    self.report(d);
                    return Some(unknown(span));
                };
                if !TARGETS.contains(&t.as_str()) {
                    let d = Diagnostic::error(arg.value.span, format!("unknown target `{t}`"))
                        .with_note(format!(
                            "the targets are {} (manual table 17.2)",
                            TARGETS.join(", ")
                        ));
                    self.report(d);
                    return Some(unknown(span));
                }
                let name = ir::Expr::new(
                    ir::ExprKind::Const(ir::Const::Str(t.clone())),
                    Type::String,
                    arg.value.span,
                );
                Some(ir::Expr::new(
                    ir::ExprKind::Call { callee: meta_callee("$target"), args: vec![name] },
                    Type::INT,
                    span,
                ))
            }
            _ => None,
        }
    }
}

/// The callee of a call of the meta function `name` (one of those matched above).
fn meta_callee(name: &str) -> Callee {
    ir::Builtin::meta(name).map_or_else(|| Callee::Unresolved(name.to_string()), Callee::Builtin)
}
