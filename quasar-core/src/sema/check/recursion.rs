//! Recursive instances (`function y = fact(x)` calling `fact`, `factorial = x -> x > 0 ?
//! x * factorial(x - 1) : 1`, manual §2.1 item 13): a call back into an instance that is being
//! lowered calls a placeholder whose results have an assumed type. When the instance is done,
//! its inferred result types are compared with the assumption; while they differ the instance
//! is lowered again assuming what was inferred. An assumption that never holds falls back to
//! `??` (the call is then typed dynamically, as before recursion was inferred).

use super::{Checker, InstanceKey};
use crate::ir::visit::{walk_expr_mut, VisitMut};
use crate::ir::{self, Callee, ExprKind, FunctionId, LocalId, LocalRole};
use crate::sema::types::Type;
use crate::span::Span;

/// Lowerings of one recursive instance with a changed assumption, before falling back to `??`.
const MAX_ATTEMPTS: usize = 3;

/// A recursive instance's placeholder and the result types its calls assume.
pub(super) struct Pending {
    id: FunctionId,
    results: Vec<Type>,
}

impl<'a> Checker<'a> {
    /// The callee of a call back into `key` while it is being lowered: its placeholder.
    pub(super) fn recursive_call(
        &mut self,
        key: &InstanceKey,
        outputs: usize,
        span: Span,
    ) -> FunctionId {
        if let Some(p) = self.pending.get(key) {
            return p.id;
        }
        // First guess: the type of the first numeric argument (`fact(5)` gives an `int`).
        let guess = key.args.iter().find(|t| t.is_number()).cloned().unwrap_or(Type::Unknown);
        let results = vec![guess; outputs];
        let id = FunctionId(self.module.functions.len() as u32);
        self.module.functions.push(placeholder(&results, span));
        self.pending.insert(key.clone(), Pending { id, results });
        id
    }

    /// Lowers the instance `key` with `lower` (again while a recursive call's assumed result
    /// types differ from the inferred ones) and records it.
    pub(super) fn lower_instance(
        &mut self,
        key: InstanceKey,
        lower: &mut dyn FnMut(&mut Checker<'a>) -> ir::Function,
    ) -> FunctionId {
        self.in_progress.insert(key.clone());
        self.depth += 1;
        let mut attempts = 0;
        let mut calls;
        let mut function = loop {
            let diags = self.diags.len();
            let first_new = self.module.functions.len();
            let f = crate::stack::guard(|| lower(self));
            calls = std::mem::take(&mut self.finished_param_calls);
            let Some(p) = self.pending.get_mut(&key) else { break f };
            let inferred: Vec<Type> =
                f.outputs.iter().map(|o| f.locals[o.0 as usize].ty.clone()).collect();
            let settled = inferred == p.results || p.results.iter().all(|t| *t == Type::Unknown);
            if settled {
                break f;
            }
            attempts += 1;
            p.results = if attempts < MAX_ATTEMPTS && inferred.iter().all(Type::is_concrete) {
                inferred
            } else {
                vec![Type::Unknown; inferred.len()]
            };
            // Forget what the wrong assumption produced: its diagnostics and instances.
            let results = p.results.clone();
            let id = p.id;
            self.diags.truncate(diags);
            self.instances.retain(|_, v| (v.0 as usize) < first_new || *v == id);
            self.module.functions[id.0 as usize] = placeholder(&results, f.span);
        };
        self.depth -= 1;
        self.in_progress.remove(&key);
        let id = match self.pending.remove(&key) {
            Some(p) => {
                pass_captures(&mut function, p.id);
                self.place_function(p.id, function);
                p.id
            }
            None => self.push_function(function),
        };
        self.instances.insert(key, id);
        self.param_calls.insert(id, calls);
        id
    }
}

/// A stand-in for an instance being lowered: only its results, which calls read.
pub(super) fn placeholder(results: &[Type], span: Span) -> ir::Function {
    let locals: Vec<ir::Local> = results
        .iter()
        .map(|t| ir::Local {
            name: "<result>".into(),
            ty: t.clone(),
            role: LocalRole::Output,
            span,
        })
        .collect();
    ir::Function {
        name: "<recursive>".into(),
        instance_name: String::new(),
        kind: crate::syntax::ast::FunctionKind::Host,
        params: Vec::new(),
        outputs: (0..results.len() as u32).map(LocalId).collect(),
        captures: Vec::new(),
        locals,
        body: Vec::new(),
        top_level: false,
        generic: false,
        span,
        partition: None,
        outputs_from_identity: false,
        runtime_sizes: Vec::new(),
    }
}

/// The recursive calls inside `f` (instance `id`) were made before its captures were known:
/// they pass them now, after the parameters (IR invariant 4).
fn pass_captures(f: &mut ir::Function, id: FunctionId) {
    struct Pass {
        id: FunctionId,
        params: usize,
        captures: Vec<ir::Expr>,
    }
    impl VisitMut for Pass {
        fn visit_expr_mut(&mut self, e: &mut ir::Expr) {
            walk_expr_mut(self, e);
            if let ExprKind::Call { callee: Callee::Function(c), args } = &mut e.kind {
                if *c == self.id && args.len() == self.params {
                    args.extend(self.captures.iter().cloned());
                }
            }
        }
    }
    if f.captures.is_empty() {
        return;
    }
    let captures = f
        .captures
        .iter()
        .map(|c| {
            let l = &f.locals[c.0 as usize];
            ir::Expr::new(ExprKind::Local(*c), l.ty.clone(), l.span)
        })
        .collect();
    let mut pass = Pass { id, params: f.params.len(), captures };
    pass.visit_block_mut(&mut f.body);
}
