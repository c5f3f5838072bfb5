//! Runtime control (manual §16.7, §17.2.5): `schedule(dims, args…, {impl_gpu, impl_cpu})`
//! and the calls the type checker makes of the code attributes `{!sched}`, `{!alloc}` and
//! `{!transfer}` (`sema/check/attributes.rs`), as calls of `quasar_runtime::control`.

use super::expr::V;
use super::func::FnGen;
use super::ty::{Num, Repr};
use super::{unsupported, GResult};
use crate::ir::{Builtin as B, Const, Expr, ExprKind};
use crate::sema::builtins::runtime::{sched_mode, target};
use crate::span::Span;
use proc_macro2::TokenStream;
use quote::quote;

/// For a function whose body uses `{!sched}`: a guard that restores the caller's scheduling
/// attributes when the function returns, so that a Quasar function cannot change how the
/// Rust code calling it schedules.
pub(super) fn sched_scope(rt: &TokenStream, body: &[crate::ir::Stmt]) -> TokenStream {
    let mut uses = false;
    crate::ir::walk::walk_block(body, &mut |_| {}, &mut |e| {
        uses |= matches!(
            e.kind,
            ExprKind::Call { callee: crate::ir::Callee::Builtin(B::SchedAttr), .. }
        );
    });
    if uses {
        quote!(let __sched_scope = #rt::run::SchedScope::enter();)
    } else {
        quote!()
    }
}

/// A constant code argument (the type checker made it).
fn code(e: &Expr) -> i64 {
    match e.constant() {
        Some(Const::Int(v)) => *v,
        _ => -1,
    }
}

impl FnGen<'_, '_> {
    /// A call of a runtime-control built-in.
    pub(super) fn runtime_control(&mut self, b: B, args: &[Expr], span: Span) -> GResult<V> {
        let rt = self.g.rt.clone();
        let run = quote!(#rt::run);
        let bad = || {
            unsupported(
                span,
                format_args!("`{}` with these arguments", b.name()),
                "pass the arguments the manual lists for this built-in (constants where it asks \
                 for a mode)",
            )
        };
        let int = Repr::Num(Num::I32);
        let (t, r) = match (b, args) {
            (B::SchedAttr, [mode, index]) => {
                let mode = match code(mode) {
                    sched_mode::KEEP => quote!(::std::option::Option::None),
                    sched_mode::CPU => quote!(::std::option::Option::Some(#run::SchedMode::Cpu)),
                    sched_mode::GPU => quote!(::std::option::Option::Some(#run::SchedMode::Gpu)),
                    _ => quote!(::std::option::Option::Some(#run::SchedMode::Auto)),
                };
                let index = self.expr_as(index, &int)?;
                (quote!(#run::sched_attribute(#mode, #index)), Repr::Unit)
            }
            (B::AllocAttr, [mode]) => {
                let to = match code(mode) {
                    target::CPU => quote!(::std::option::Option::Some(#run::Target::Cpu)),
                    target::GPU => {
                        quote!(::std::option::Option::Some(#run::Target::Gpu(::std::option::Option::None)))
                    }
                    _ => quote!(::std::option::Option::None),
                };
                (quote!(#run::alloc_attribute(#to)), Repr::Unit)
            }
            (B::TransferAttr, [var, to, index]) => {
                let v = self.expr(var)?;
                if !matches!(v.r, Repr::Array(..)) {
                    return Err(bad());
                }
                let (x, to_gpu) = (v.t, code(to) == target::GPU);
                let index = self.expr_as(index, &int)?;
                (quote!(#run::transfer_attribute(&#x, #to_gpu, #index)?), Repr::Unit)
            }
            (B::Schedule, [dims, rest @ .., impls]) => {
                let d = self.expr(dims)?;
                let dt = d.t;
                let work = match d.r {
                    Repr::Num(n) if n.is_int() => quote!((#dt as i64).max(0) as usize),
                    Repr::Array(n, _) if n.is_int() => quote!(#dt
                        .to_vec()?
                        .iter()
                        .map(|&__d| (__d as i64).max(0) as usize)
                        .product::<usize>()),
                    Repr::Fixed(n, _) if n.is_int() => {
                        quote!(#dt.iter().map(|&__d| (__d as i64).max(0) as usize).product::<usize>())
                    }
                    _ => return Err(bad()),
                };
                // The arrays the implementations use decide where the data is; other
                // arguments do not affect the choice.
                let mut arrays = Vec::new();
                for a in rest {
                    let v = self.expr(a)?;
                    if matches!(v.r, Repr::Array(..)) {
                        let x = v.t;
                        arrays.push(quote!(let __a = #x; let __s = __s.array(&__a);));
                    }
                }
                // The type checker turned the cell of implementations into their number.
                let n = match impls.constant() {
                    Some(Const::Int(n)) => (*n).max(1) as usize,
                    _ => 1,
                };
                let t = quote!({
                    let __s = #run::schedule(#work);
                    #(#arrays)*
                    __s.choose(#n)
                });
                (t, int)
            }
            _ => return Err(bad()),
        };
        Ok(V { t, r })
    }
}
