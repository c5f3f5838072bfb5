//! The runtime code attributes (manual §16.7, §11.4) as calls of the runtime-control
//! built-ins (`sema/builtins/runtime.rs`), so that the back ends see ordinary calls:
//!
//! * `{!sched mode=cpu|gpu|auto; gpu_index=N}` and `{!sched}`: the scheduling of the launches
//!   that follow;
//! * `{!alloc mode=auto|cpu|gpu}`: where the next allocation goes;
//! * `{!transfer vars=a; target=cpu|gpu; gpu_index=N}`: moves an array now.
//!
//! Other attributes guide passes and produce no code here.

use super::scope::FnLowerer;
use crate::diagnostics::Diagnostic;
use crate::ir::{self, Builtin, Callee, Const};
use crate::sema::builtins::runtime::{sched_mode, target};
use crate::sema::types::Type;
use crate::span::Span;
use crate::syntax::ast::{self, AttributeItem, ExprKind};

impl<'c, 'a> FnLowerer<'c, 'a> {
    /// The statements of the runtime attributes in `a` (none for other attributes).
    pub(super) fn lower_runtime_attributes(&mut self, a: &'a ast::Attribute) -> Vec<ir::Stmt> {
        let mut out = Vec::new();
        for item in &a.items {
            let words: Vec<&str> = item.name.iter().map(|w| w.name.as_str()).collect();
            let call = match words.as_slice() {
                ["sched"] => self.sched(item),
                ["alloc"] => self.alloc(item),
                ["transfer"] => self.transfer(item),
                _ => None,
            };
            if let Some((b, args)) = call {
                if self.in_device_code() {
                    let d = Diagnostic::error(
                        item.span,
                        format!("`{}` cannot be used in a kernel or device function", b.name()),
                    )
                    .with_note("it controls the runtime from host code, between launches");
                    self.report(d);
                    continue;
                }
                let call = ir::ExprKind::Call { callee: Callee::Builtin(b), args };
                let e = ir::Expr::new(call, Type::Void, item.span);
                out.push(ir::Stmt { kind: ir::StmtKind::Expr(e), span: item.span });
            }
        }
        out
    }

    /// `{!sched mode=…; gpu_index=…}`: (mode code, GPU index or -1).
    fn sched(&mut self, item: &'a AttributeItem) -> Option<(Builtin, Vec<ir::Expr>)> {
        let mut mode = if item.args.is_empty() { sched_mode::AUTO } else { sched_mode::KEEP };
        let mut index = int(-1, item.span);
        for arg in &item.args {
            match arg.key.name.as_str() {
                "mode" => {
                    mode = match self.word(item, &arg.value, &["cpu", "gpu", "auto"])? {
                        "cpu" => sched_mode::CPU,
                        "gpu" => sched_mode::GPU,
                        _ => sched_mode::AUTO,
                    }
                }
                "gpu_index" => index = self.int_value(item, &arg.value)?,
                key => self.unknown_key(item, key, arg.value.span),
            }
        }
        Some((Builtin::SchedAttr, vec![int(mode, item.span), index]))
    }

    /// `{!alloc mode=…}`: (target code); `type=…` (pinned, unified, texture memory) is not
    /// supported and ignored with a warning.
    fn alloc(&mut self, item: &'a AttributeItem) -> Option<(Builtin, Vec<ir::Expr>)> {
        let mut mode = target::AUTO;
        for arg in &item.args {
            match arg.key.name.as_str() {
                "mode" => mode = self.target(item, &arg.value, true)?,
                "type" => {
                    let d = Diagnostic::warning(
                        arg.value.span,
                        "`{!alloc type=…}` is not supported: the allocation is ordinary memory",
                    )
                    .with_note("instead: leave `type` out, as in `{!alloc mode=gpu}`");
                    self.report(d);
                }
                key => self.unknown_key(item, key, arg.value.span),
            }
        }
        Some((Builtin::AllocAttr, vec![int(mode, item.span)]))
    }

    /// `{!transfer vars=a; target=…; gpu_index=…}`: (array, target code, GPU index or -1).
    fn transfer(&mut self, item: &'a AttributeItem) -> Option<(Builtin, Vec<ir::Expr>)> {
        let (mut var, mut to, mut index) = (None, None, int(-1, item.span));
        for arg in &item.args {
            match arg.key.name.as_str() {
                "vars" => {
                    let v = self.lower_expr(&arg.value);
                    if !matches!(v.ty, Type::Array(_) | Type::Unknown) {
                        let msg = "`{!transfer vars=…}` names an array variable";
                        self.report(Diagnostic::error(arg.value.span, msg));
                        return None;
                    }
                    var = Some(v);
                }
                "target" => to = Some(self.target(item, &arg.value, false)?),
                "gpu_index" => index = self.int_value(item, &arg.value)?,
                key => self.unknown_key(item, key, arg.value.span),
            }
        }
        let Some(var) = var else {
            self.report(Diagnostic::error(item.span, "`{!transfer}` needs `vars=…`"));
            return None;
        };
        let to = to.unwrap_or(target::GPU);
        Some((Builtin::TransferAttr, vec![var, int(to, item.span), index]))
    }

    /// `cpu`, `gpu` (and `auto` when allowed) as a target code.
    fn target(&mut self, item: &AttributeItem, e: &ast::Expr, auto: bool) -> Option<i64> {
        let words: &[&str] = if auto { &["auto", "cpu", "gpu"] } else { &["cpu", "gpu"] };
        Some(match self.word(item, e, words)? {
            "cpu" => target::CPU,
            "gpu" => target::GPU,
            _ => target::AUTO,
        })
    }

    /// The value of `key=word`, one of `allowed`.
    fn word(
        &mut self,
        item: &AttributeItem,
        e: &ast::Expr,
        allowed: &[&'static str],
    ) -> Option<&'static str> {
        let name = match &e.kind {
            ExprKind::Ident(w) | ExprKind::Str(w) => w.to_ascii_lowercase(),
            _ => String::new(),
        };
        if let Some(w) = allowed.iter().find(|w| **w == name) {
            return Some(w);
        }
        let attr = item.name.first().map_or("", |w| w.name.as_str());
        let msg = if name == "fpga" {
            format!("`{{!{attr}}}`: there is no FPGA device in Quasar for Rust")
        } else {
            format!("`{{!{attr}}}` expects one of {}", allowed.join(", "))
        };
        self.report(Diagnostic::error(e.span, msg));
        None
    }

    /// An `int` expression (`gpu_index=mod(k, 2)`).
    fn int_value(&mut self, item: &AttributeItem, e: &'a ast::Expr) -> Option<ir::Expr> {
        let v = self.lower_expr(e);
        if matches!(v.ty, Type::Int(..) | Type::Unknown) {
            return Some(v);
        }
        let attr = item.name.first().map_or("", |w| w.name.as_str());
        let msg = format!("`{{!{attr} gpu_index=…}}` is an int, not `{}`", v.ty);
        self.report(Diagnostic::error(e.span, msg));
        None
    }

    fn unknown_key(&mut self, item: &AttributeItem, key: &str, span: Span) {
        let attr = item.name.first().map_or("", |w| w.name.as_str());
        let d = Diagnostic::warning(span, format!("`{{!{attr}}}` has no setting `{key}`; ignored"));
        self.report(d);
    }
}

/// `schedule(dims, args…, {impl_gpu, impl_cpu})`: the implementations only count (the
/// program launches the one chosen itself), so the cell of functions becomes their number and
/// the functions are not function values.
pub(super) fn schedule_candidates(args: &mut [ir::Expr]) {
    if let Some(last) = args.last_mut() {
        if let ir::ExprKind::Cell(items) | ir::ExprKind::Matrix(items) = &last.kind {
            *last = int(items.len() as i64, last.span);
        }
    }
}

fn int(v: i64, span: Span) -> ir::Expr {
    ir::Expr::new(ir::ExprKind::Const(Const::Int(v)), Type::INT, span)
}

#[cfg(test)]
mod tests {
    use super::super::tests::messages;
    use crate::ir::{dump, Builtin};

    fn calls(src: &str) -> Vec<Builtin> {
        let parsed = crate::syntax::parse(src, crate::span::FileId(0));
        let c = super::super::check_program(&parsed.program);
        assert!(messages(src, false).is_empty(), "{:?}", messages(src, false));
        let mut out = Vec::new();
        for f in &c.module.functions {
            crate::ir::walk::walk_block(&f.body, &mut |_| {}, &mut |e| {
                if let crate::ir::ExprKind::Call { callee: crate::ir::Callee::Builtin(b), .. } =
                    e.kind
                {
                    out.push(b);
                }
            });
        }
        let _ = dump::signatures(&c.module);
        out
    }

    #[test]
    fn runtime_attributes_become_calls() {
        let src = "x = zeros(4)\n{!sched mode=gpu; gpu_index=1}\n{!sched}\n{!alloc mode=gpu}\n\
                   {!transfer vars=x; target=cpu}\n{!parallel for}\nfor i = 0..3\n    x[i] = i\nendfor\n\
                   k = schedule(numel(x), x, {sin, cos})\n";
        let b = calls(src);
        for want in
            [Builtin::SchedAttr, Builtin::AllocAttr, Builtin::TransferAttr, Builtin::Schedule]
        {
            assert!(b.contains(&want), "{want:?} not in {b:?}");
        }
        assert_eq!(b.iter().filter(|x| **x == Builtin::SchedAttr).count(), 2);
    }

    #[test]
    fn wrong_settings_are_reported() {
        let e = messages("{!sched mode=fpga}\n", false);
        assert_eq!(e, ["1:14: `{!sched}`: there is no FPGA device in Quasar for Rust"]);
        let e = messages("{!sched mode=fast}\n", false);
        assert_eq!(e, ["1:14: `{!sched}` expects one of cpu, gpu, auto"]);
        let e = messages("{!transfer target=gpu}\n", false);
        assert_eq!(e, ["1:3: `{!transfer}` needs `vars=…`"]);
        let e = messages("s = 1.5\n{!transfer vars=s; target=gpu}\n", false);
        assert_eq!(e, ["2:17: `{!transfer vars=…}` names an array variable"]);
        let e = messages("{!sched gpu_index=1.5}\n", false);
        assert_eq!(e, ["1:19: `{!sched gpu_index=…}` is an int, not `scalar`"]);
        let w = messages("{!alloc mode=gpu; type=pinnedhostmem}\n{!sched speed=3}\n", true);
        assert_eq!(w.len(), 2, "{w:?}");
        assert!(w[0].contains("`{!alloc type=…}` is not supported"), "{w:?}");
        assert!(w[1].contains("`{!sched}` has no setting `speed`; ignored"), "{w:?}");
        let src = "function [] = __kernel__ k(x : vec, pos : int)\n    {!sched mode=cpu}\n    x[pos] = 1\nendfunction\n";
        let e = messages(src, false);
        assert_eq!(e, ["2:7: `{!sched}` cannot be used in a kernel or device function"]);
    }
}
