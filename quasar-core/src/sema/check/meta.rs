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
        // `$typerecon(g)` after `specialize.rs`: the type of the specialized copy `g`.
        if let ("$typerecon", [g]) = (name, args) {
            let v = self.lower_expr(&g.value);
            let ty = Type::TypeValue(Box::new(v.ty));
            return ir::Expr::new(ir::ExprKind::TypeValue, ty, span);
        }
        // `$inline(f)`: inlining is the optimiser's business (manual §17.1.5); the value is `f`.
        if let ("$inline", [f]) = (name, args) {
            return self.lower_expr(&f.value);
        }
        if name == "$getsafe" {
            return self.meta_getsafe(args, span);
        }
        if matches!(name, "$cpu_gridDim" | "$cpu_blockDim") {
            let d = Diagnostic::error(
                name_span,
                format!("`{name}` is not supported: it belongs to the code the compiler generates for the CPU (manual §17.2.3)"),
            )
            .with_note("inside a kernel, `blkdim` gives the block's dimensions; launch over the positions with `parallel_do` or a `{!parallel for}` loop");
            self.report(d);
            return unknown(span);
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
                    .with_note("the meta functions are $eval $str $subs $check $assump $simplify $args $nops $op $ubound $specialize $inline $ftype $typerecon $target $getsafe");
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

impl<'c, 'a> FnLowerer<'c, 'a> {
    /// `$getsafe(x, i, …)`: `x[i, …]` read with the `'safe` access mode (zero outside the
    /// array, manual §2.4.1 and §17.2.1). That is the default mode in kernel and device code,
    /// so there it is the plain read unless `x` declares another mode.
    fn meta_getsafe(&mut self, args: &'a [ast::Arg], span: Span) -> ir::Expr {
        let Some((array, indices)) = args.split_first().filter(|(_, i)| !i.is_empty()) else {
            let d = Diagnostic::error(span, "`$getsafe` needs an array and its subscripts");
            self.report(d);
            return unknown(span);
        };
        let whole = &array.value;
        let e = self.lower_index_expr(whole, whole, indices);
        let ir::ExprKind::Index { base, .. } = &e.kind else { return e };
        let mode = base.ty.as_array().map(|a| a.mods.access);
        let safe = match mode {
            Some(Some(crate::sema::types::Access::Safe)) => true,
            Some(None) => self.in_kernel_context(),
            _ => false,
        };
        if !safe {
            let where_ = if self.in_kernel_context() { "" } else { " in host code" };
            let d = Diagnostic::error(
                span,
                format!("`$getsafe` reads `'safe`, but this array is accessed with another mode{where_}"),
            )
            .with_note("declare the array `'safe` (`x : vec'safe`), or use `$getsafe` in kernel and device functions, where `'safe` is the default");
            self.report(d);
        }
        ir::Expr { span, ..e }
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

#[cfg(test)]
mod tests {
    use super::super::tests::errors;

    #[test]
    fn getsafe_needs_the_safe_mode_and_cpu_dims_are_internal() {
        let ok = "function [] = __kernel__ k(x : vec, y : vec, pos : int)\n  y[pos] = $getsafe(x, pos + 1)\nendfunction\n";
        assert!(errors(ok).is_empty(), "{:?}", errors(ok));
        let unchecked = ok.replace("x : vec,", "x : vec'unchecked,");
        assert_eq!(
            errors(&unchecked),
            ["2:12: `$getsafe` reads `'safe`, but this array is accessed with another mode"]
        );
        let host = "x = zeros(3)\ny = $getsafe(x, 4)\n";
        assert_eq!(
            errors(host),
            ["2:5: `$getsafe` reads `'safe`, but this array is accessed with another mode in host code"]
        );
        assert!(errors("x : vec'safe = zeros(3)\ny = $getsafe(x, 4)\n").is_empty());
        let e = errors("n = $cpu_blockDim()\n");
        assert_eq!(e.len(), 1);
        assert!(e[0].starts_with("1:5: `$cpu_blockDim` is not supported"), "{e:?}");
    }
}
