//! The cooperative-groups class `thread_block` (manual §9.8): its properties
//! (`g.thread_idx`, `g.size`, `g.active_mask`) and methods (`g.sync()`, `g.shfl_down(v, 1)`,
//! `g.ballot(p)`, `g.partition(32)`, …).
//!
//! In the IR a property is an [`ir::ExprKind::Field`] on a `thread_block` value and a method
//! call is a built-in call named `thread_block.<method>` whose first argument is the receiver:
//! the dot keeps these names apart from the free built-ins (`any`, `all`, `sync`, …) that the
//! backends also dispatch on by name.

use super::expr::unknown;
use super::scope::FnLowerer;
use crate::diagnostics::Diagnostic;
use crate::ir::{self, Callee, Const};
use crate::sema::builtins::{self, ArgInfo, BuiltinCall};
use crate::sema::types::{ThreadGroup, Type};
use crate::span::Span;
use crate::syntax::ast;

impl<'c, 'a> FnLowerer<'c, 'a> {
    /// `g.name(args…)` on a `thread_block` value `b` (already lowered).
    pub fn call_thread_block_method(
        &mut self,
        b: ir::Expr,
        name: &'a ast::Ident,
        args: &'a [ast::Arg],
        span: Span,
    ) -> ir::Expr {
        let Some(sig) = builtins::thread_block_method(&name.name) else {
            self.lower_args(args);
            let d = Diagnostic::error(
                name.span,
                format!("`thread_block` has no method `{}`", name.name),
            )
            .with_note(
                "its methods are sync, partition, shfl, shfl_up, shfl_down, shfl_xor, all, \
                 any, ballot, match_any and match_all (manual §9.8)",
            );
            self.report(d);
            return unknown(span);
        };
        let mut lowered = vec![b];
        lowered.extend(self.lower_args(args));
        if !self.in_device_code() {
            let d = Diagnostic::error(
                span,
                format!(
                    "`{}` can only be used in `__kernel__` and `__device__` functions",
                    sig.usage
                ),
            );
            self.report(d);
        }
        let infos: Vec<ArgInfo> = lowered
            .iter()
            .map(|v| ArgInfo { ty: v.ty.clone(), constant: v.constant().cloned(), name: None })
            .collect();
        let call = BuiltinCall { args: &infos, type_args: &[], in_device_code: true };
        let ty = match (sig.rule)(&call) {
            Ok(t) => t,
            Err(msg) => {
                let d = Diagnostic::error(span, msg).with_note(format!("usage: {}", sig.usage));
                self.report(d);
                Type::Unknown
            }
        };
        // `g.partition(n)`: tiles of `n` threads; the backends need `n` as a constant.
        let ty = match (&ty, lowered.get(1).and_then(ir::Expr::constant)) {
            (Type::ThreadBlock(_), Some(Const::Int(n))) if sig.name == "partition" => {
                let n = u32::try_from(*n).unwrap_or(0);
                Type::ThreadBlock(ThreadGroup::Tile(n))
            }
            (Type::ThreadBlock(_), _) if sig.name == "partition" => {
                Type::ThreadBlock(ThreadGroup::Tile(0))
            }
            _ => ty,
        };
        ir::Expr::new(
            ir::ExprKind::Call { callee: Callee::Builtin(sig.builtin), args: lowered },
            ty,
            span,
        )
    }

    /// The type of property `name` of a `thread_block`.
    pub fn thread_block_field(&mut self, name: &str, span: Span) -> Type {
        match builtins::thread_block_property(name) {
            Some(t) => t,
            None => {
                let d = Diagnostic::error(span, format!("`thread_block` has no property `{name}`"))
                    .with_note("its properties are thread_idx, size and active_mask (manual §9.8)");
                self.report(d);
                Type::Unknown
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::sema::check::tests::{errors, messages};

    fn kernel(body: &str) -> String {
        format!(
            "function [] = __kernel__ k(coalesced_threads : thread_block, x : vec, pos : int)\n\
             {body}\nendfunction"
        )
    }

    #[test]
    fn the_cuda_target_attribute_is_accepted() {
        let src = kernel("{!kernel target=\"nvidia_cuda\"}\nx[pos] = coalesced_threads.size");
        assert_eq!(messages(&src, true), Vec::<String>::new());
    }

    #[test]
    fn wrong_uses_are_reported() {
        assert_eq!(
            errors(&kernel("x[pos] = coalesced_threads.shuffle(1.0, 2)")),
            ["2:28: `thread_block` has no method `shuffle`"]
        );
        assert_eq!(
            errors(&kernel("x[pos] = coalesced_threads.lane")),
            ["2:28: `thread_block` has no property `lane`"]
        );
        assert_eq!(
            errors(&kernel("x[pos] = coalesced_threads.shfl(x, 2)")),
            ["2:10: `shfl` expects a number or a fixed-length vector, found vec"]
        );
        assert_eq!(
            errors(&kernel("x[pos] = coalesced_threads.shfl_down(1.0)")),
            ["2:10: `shfl_down` expects 2 arguments, found 1"]
        );
        assert_eq!(errors(&kernel("syncthreads(galaxy)")), ["2:13: undefined name `galaxy`"]);
    }

    #[test]
    fn the_ptx_test_kernels_type_check() {
        let src = include_str!("../../../tests/ptx_kernels/coop.q");
        assert_eq!(errors(src), Vec::<String>::new());
    }
}
