//! The IR verifier: checks the invariants written at the top of [`super`] (as Cranelift's
//! `verify_function`). The driver runs it after type checking and after every pass
//! ([`crate::driver`]); a violation is a bug of the compiler, reported as an error diagnostic
//! naming the pass, never a panic and never wrong code.

use super::visit::{walk_expr, walk_place, walk_stmt, Visit};
use super::{
    Callee, Expr, ExprKind, Function, FunctionId, LocalId, LocalRole, Module, NodeId, Place,
    PlaceKind, Stmt, StmtKind,
};
use crate::sema::types::{ClassId, Type};
use crate::span::Span;
use crate::syntax::ast::FunctionKind;
use std::collections::HashSet;

/// One broken invariant.
#[derive(Clone, Debug, PartialEq)]
pub struct Violation {
    /// The instance it is in (`instance_name`), empty for module-level ones.
    pub function: String,
    /// Where the broken node is.
    pub span: Span,
    /// Which invariant is broken.
    pub message: String,
}

/// What the module is expected to satisfy beyond the invariants that always hold.
#[derive(Clone, Copy, Debug, Default)]
pub struct Expect {
    /// Every node has an id ([`super::number`] ran).
    pub numbered: bool,
    /// Error-only generic instances are left only where concrete code uses them as values
    /// (the driver's prune ran): no concrete instance calls or launches one.
    pub concrete_calls: bool,
    /// No type has the default precision ([`super::precision`] ran: `scalar` is `'single`
    /// or `'double`).
    pub resolved_precision: bool,
}

/// Checks `module`; `Ok` or every violation found.
pub fn verify(module: &Module, expect: Expect) -> Result<(), Vec<Violation>> {
    let mut out = Vec::new();
    let nfun = module.functions.len();
    for (slot, what) in [(module.script, "the script"), (module.main, "`main`")] {
        if slot.is_some_and(|id| id.0 as usize >= nfun) {
            out.push(Violation {
                function: String::new(),
                span: Span::default(),
                message: format!("{what} names a function that does not exist"),
            });
        }
    }
    if expect.resolved_precision {
        for c in &module.classes {
            for (name, t) in &c.fields {
                if t.has_default_precision() {
                    out.push(Violation {
                        function: String::new(),
                        span: c.span,
                        message: unresolved(&format!("the field `{name}` of `{}`", c.name), t),
                    });
                }
            }
        }
    }
    for f in &module.functions {
        function(module, f, expect, &mut out);
    }
    if out.is_empty() {
        Ok(())
    } else {
        Err(out)
    }
}

/// The verifier's findings after `stage` as error diagnostics (none when the IR is valid).
pub fn check_after(module: &Module, expect: Expect, stage: &str) -> Vec<crate::Diagnostic> {
    let Err(violations) = verify(module, expect) else { return Vec::new() };
    violations
        .into_iter()
        .map(|v| {
            crate::Diagnostic::error(
                v.span,
                format!(
                    "internal compiler error: after {stage}, the IR breaks an invariant: {}",
                    v.message
                ),
            )
            .with_note(format!(
                "in the instance `{}`; this is a bug of the Quasar compiler",
                v.function
            ))
        })
        .collect()
}

/// Invariant 9: what has the type `t` still has `scalar`'s default precision.
fn unresolved(what: &str, t: &Type) -> String {
    format!("{what} has the type {t} with the default precision (double mode not applied)")
}

fn violation(f: &Function, span: Span, message: impl Into<String>) -> Violation {
    Violation { function: f.instance_name.clone(), span, message: message.into() }
}

fn function(module: &Module, f: &Function, expect: Expect, out: &mut Vec<Violation>) {
    let nloc = f.locals.len();
    type RoleCheck = fn(LocalRole) -> bool;
    let lists: [(&[LocalId], &str, RoleCheck); 3] = [
        (&f.params, "parameter", |r| matches!(r, LocalRole::Param | LocalRole::Special(_))),
        (&f.outputs, "output", |r| r == LocalRole::Output),
        (&f.captures, "capture", |r| r == LocalRole::Capture),
    ];
    for (ids, what, role_ok) in lists {
        for id in ids {
            match f.locals.get(id.0 as usize) {
                None => out.push(violation(f, f.span, format!("a {what} is not a local"))),
                Some(l) if !role_ok(l.role) => out.push(violation(
                    f,
                    l.span,
                    format!("the {what} `{}` has the role {:?}", l.name, l.role),
                )),
                Some(_) => {}
            }
        }
    }
    for (i, l) in f.locals.iter().enumerate() {
        if expect.resolved_precision && l.ty.has_default_precision() {
            out.push(violation(f, l.span, unresolved(&format!("the local `{}`", l.name), &l.ty)));
        }
        if let LocalRole::Special(s) = l.role {
            let is_param = f.params.contains(&LocalId(i as u32));
            if f.kind != FunctionKind::Kernel || !is_param {
                out.push(violation(
                    f,
                    l.span,
                    format!("`{s}` is special outside a kernel's parameters"),
                ));
            }
        }
    }
    let mut v =
        Checker { module, f, nloc, expect, ids: HashSet::new(), loops: 0, parallel_loops: 0, out };
    v.visit_block(&f.body);
}

struct Checker<'m, 'o> {
    module: &'m Module,
    f: &'m Function,
    nloc: usize,
    expect: Expect,
    ids: HashSet<NodeId>,
    loops: u32,
    /// `{!parallel for}` loops around the statement: their bodies become kernels, so
    /// `syncthreads` may appear there in host code.
    parallel_loops: u32,
    out: &'o mut Vec<Violation>,
}

impl<'m> Checker<'m, '_> {
    fn report(&mut self, span: Span, message: impl Into<String>) {
        self.out.push(violation(self.f, span, message));
    }

    fn local(&mut self, id: LocalId, span: Span) {
        if id.0 as usize >= self.nloc {
            self.report(span, format!("local {} does not exist", id.0));
        }
    }

    fn node(&mut self, id: NodeId, span: Span) {
        if !self.expect.numbered {
            return;
        }
        if id == NodeId::NONE {
            self.report(span, "a node has no id");
        } else if !self.ids.insert(id) {
            self.report(span, format!("node id {} is used twice", id.0));
        }
    }

    fn callee(&mut self, id: FunctionId, span: Span) -> Option<&'m Function> {
        let module: &'m Module = self.module;
        match module.functions.get(id.0 as usize) {
            Some(g) => Some(g),
            None => {
                self.report(span, format!("function {} does not exist", id.0));
                None
            }
        }
    }

    /// Invariant 9 for the type of a node.
    fn precision(&mut self, ty: &Type, span: Span) {
        if self.expect.resolved_precision && ty.has_default_precision() {
            self.report(span, unresolved("an expression or place", ty));
        }
    }

    /// A concrete instance calls concrete instances only.
    fn concrete(&mut self, g_generic: bool, name: &str, span: Span) {
        if self.expect.concrete_calls && g_generic && !self.f.generic {
            self.report(span, format!("a call of the error-only generic instance of `{name}`"));
        }
    }

    /// Invariant 8 for a class value.
    fn construct(&mut self, class: ClassId, fields: &[(String, Expr)], span: Span) {
        let Some(def) = self.module.classes.iter().find(|c| c.id == class) else {
            return self.report(span, format!("class {} does not exist", class.0));
        };
        let mut seen = HashSet::new();
        for (name, _) in fields {
            if !seen.insert(name.as_str()) {
                self.report(span, format!("the field `{name}` of `{}` is given twice", def.name));
            } else if !def.dynamic && !def.fields.iter().any(|(f, _)| f == name) {
                self.report(span, format!("`{}` has no field `{name}`", def.name));
            }
        }
        if !def.dynamic && !fields.is_empty() && fields.len() != def.fields.len() {
            self.report(span, format!("a `{}` value gives some of its fields", def.name));
        }
    }

    /// Invariant 8 for a field access on a class value or pointer.
    fn field(&mut self, base: &Type, field: &str, span: Span) {
        let class = match base {
            Type::Class(c) => c,
            Type::Pointer(p) => match p.as_ref() {
                Type::Class(c) => c,
                _ => return,
            },
            _ => return,
        };
        let Some(def) = self.module.classes.iter().find(|c| c.id == class.id) else {
            return self.report(span, format!("class {} does not exist", class.id.0));
        };
        if !def.dynamic && !def.fields.iter().any(|(f, _)| f == field) {
            self.report(span, format!("`{}` has no field `{field}`", def.name));
        }
    }

    /// A call of `g` passes its parameters and then its captures.
    fn arity(&mut self, g_params: usize, g_captures: usize, args: usize, name: &str, span: Span) {
        if g_params + g_captures != args {
            self.report(
                span,
                format!(
                    "`{name}` takes {g_params} arguments and {g_captures} captures, {args} are passed"
                ),
            );
        }
    }
}

impl<'a> Visit<'a> for Checker<'_, '_> {
    fn visit_stmt(&mut self, s: &'a Stmt) {
        match &s.kind {
            StmtKind::ForRange { var, .. } | StmtKind::ForEach { var, .. } => {
                self.local(*var, s.span)
            }
            StmtKind::Try { catch_var: Some(v), .. } => self.local(*v, s.span),
            StmtKind::Break | StmtKind::Continue if self.loops == 0 => {
                self.report(s.span, "`break`/`continue` outside a loop")
            }
            StmtKind::SyncThreads
                if self.f.kind == FunctionKind::Host && self.parallel_loops == 0 =>
            {
                self.report(s.span, "`syncthreads` in host code")
            }
            _ => {}
        }
        let is_loop = matches!(
            s.kind,
            StmtKind::ForRange { .. }
                | StmtKind::ForEach { .. }
                | StmtKind::While { .. }
                | StmtKind::Repeat { .. }
        );
        let parallel =
            matches!(s.kind, StmtKind::ForRange { hint: crate::ir::LoopHint::Parallel { .. }, .. });
        self.loops += u32::from(is_loop);
        self.parallel_loops += u32::from(parallel);
        walk_stmt(self, s);
        self.loops -= u32::from(is_loop);
        self.parallel_loops -= u32::from(parallel);
    }

    fn visit_place(&mut self, p: &'a Place) {
        self.node(p.id, p.span);
        self.precision(&p.ty, p.span);
        if let PlaceKind::Local(l) = p.kind {
            self.local(l, p.span);
        }
        if let PlaceKind::Field { base, field } = &p.kind {
            self.field(&base.ty, field, p.span);
        }
        walk_place(self, p);
    }

    fn visit_expr(&mut self, e: &'a Expr) {
        self.node(e.id, e.span);
        self.precision(&e.ty, e.span);
        match &e.kind {
            ExprKind::Local(l) => self.local(*l, e.span),
            ExprKind::Call { callee: Callee::Function(id), args } => {
                if let Some(g) = self.callee(*id, e.span) {
                    let (np, nc, name) = (g.params.len(), g.captures.len(), g.name.clone());
                    let generic = g.generic;
                    self.concrete(generic, &name, e.span);
                    if g.kind == FunctionKind::Kernel {
                        self.report(e.span, format!("the kernel `{name}` is called directly"));
                    }
                    // A variadic last parameter (a vector) collects any number of arguments.
                    let variadic = g.params.last().is_some_and(|p| {
                        g.locals.get(p.0 as usize).is_some_and(|l| l.ty.as_array().is_some())
                    });
                    // `f(...v)` passes the elements of `v` as separate arguments.
                    let spread = args.iter().any(|a| matches!(a.kind, ExprKind::Spread(_)));
                    let collects = variadic && args.len() + 1 >= np + nc;
                    if !(spread || collects) {
                        self.arity(np, nc, args.len(), &name, e.span);
                    }
                }
            }
            ExprKind::Call { callee: Callee::Builtin(b), args }
                if b.kind() == super::BuiltinKind::GroupMethod && args.is_empty() =>
            {
                self.report(e.span, format!("`{b}` without its `thread_block`"));
            }
            ExprKind::ParallelDo { kernel, args, .. } => {
                if let Some(k) = self.callee(*kernel, e.span) {
                    let explicit = k.params.iter().filter(|p| {
                        k.locals.get(p.0 as usize).is_some_and(|l| l.special().is_none())
                    });
                    let (np, nc, name) = (explicit.count(), k.captures.len(), k.name.clone());
                    let generic = k.generic;
                    self.concrete(generic, &name, e.span);
                    if k.kind != FunctionKind::Kernel {
                        self.report(
                            e.span,
                            format!("`parallel_do` launches `{name}`, not a kernel"),
                        );
                    }
                    self.arity(np, nc, args.len(), &name, e.span);
                }
            }
            ExprKind::Closure { function, captures } => {
                if let Some(g) = self.callee(*function, e.span) {
                    let (nc, name) = (g.captures.len(), g.name.clone());
                    self.arity(0, nc, captures.len(), &name, e.span);
                }
            }
            ExprKind::FunctionRef(id) => {
                self.callee(*id, e.span);
            }
            ExprKind::Construct { class, fields } => self.construct(*class, fields, e.span),
            ExprKind::Field { base, field } => self.field(&base.ty, field, e.span),
            _ => {}
        }
        walk_expr(self, e);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sema::check::check_program;
    use crate::{syntax, FileId};

    fn checked(src: &str) -> Module {
        let parsed = syntax::parse(src, FileId(0));
        assert!(!parsed.has_errors(), "{:?}", parsed.diagnostics);
        let c = check_program(&parsed.program);
        assert!(!c.has_errors(), "{:?}", c.diagnostics);
        let mut m = c.module;
        super::super::precision::resolve(&mut m, false);
        m
    }

    const SRC: &str = "function [] = __kernel__ k(x : vec, y : vec, pos : int)
    for i = 0..2
        y[pos] += x[pos] * i
    endfor
endfunction
function y = f(x : vec)
    y = zeros(size(x))
    parallel_do(numel(x), x, y, k)
endfunction
";

    const ALL: Expect = Expect { numbered: true, concrete_calls: true, resolved_precision: true };

    #[test]
    fn a_checked_module_is_valid() {
        assert_eq!(verify(&checked(SRC), ALL), Ok(()));
    }

    #[test]
    fn broken_modules_are_caught() {
        let m = checked(SRC);
        let kernel = m.functions.iter().position(|f| f.name == "k").expect("k");
        let messages = |m: &Module| -> Vec<String> {
            verify(m, ALL).expect_err("broken").into_iter().map(|v| v.message).collect()
        };

        // A reference to a local that does not exist.
        let mut bad = m.clone();
        bad.functions[kernel].locals.truncate(1);
        assert!(
            messages(&bad).iter().any(|s| s.contains("does not exist")),
            "{:?}",
            messages(&bad)
        );

        // Two nodes with one id (a copied subtree that was not renumbered).
        let mut bad = m.clone();
        let StmtKind::ForRange { body, .. } = &mut bad.functions[kernel].body[0].kind else {
            panic!("the loop")
        };
        let copy = body[0].clone();
        body.push(copy);
        assert!(messages(&bad).iter().any(|s| s.contains("used twice")), "{:?}", messages(&bad));

        // A launch with an argument too few.
        let mut bad = m.clone();
        let host = bad.functions.iter().position(|f| f.name == "f").expect("f");
        struct DropArg;
        impl super::super::visit::VisitMut for DropArg {
            fn visit_expr_mut(&mut self, e: &mut Expr) {
                if let ExprKind::ParallelDo { args, .. } = &mut e.kind {
                    args.pop();
                }
                super::super::visit::walk_expr_mut(self, e);
            }
        }
        super::super::visit::VisitMut::visit_block_mut(&mut DropArg, &mut bad.functions[host].body);
        assert!(messages(&bad).iter().any(|s| s.contains("are passed")), "{:?}", messages(&bad));

        // `break` outside a loop, a special parameter in a host function.
        let mut bad = m.clone();
        bad.functions[host].body.push(Stmt { kind: StmtKind::Break, span: Span::default() });
        bad.functions[host].locals[0].role = LocalRole::Special(super::super::Special::Pos);
        let found = messages(&bad);
        assert!(found.iter().any(|s| s.contains("outside a loop")), "{found:?}");
        assert!(found.iter().any(|s| s.contains("special outside")), "{found:?}");
    }

    #[test]
    fn a_default_precision_left_for_the_back_ends_is_caught() {
        let m = checked(SRC);
        let kernel = m.functions.iter().position(|f| f.name == "k").expect("k");
        let messages = |m: &Module| -> Vec<String> {
            verify(m, ALL).expect_err("broken").into_iter().map(|v| v.message).collect()
        };
        let unresolved = |found: &[String], what: &str| {
            found.iter().any(|s| s.starts_with(what) && s.contains("default precision"))
        };

        // A local whose type is `vec` of `scalar` as the checker wrote it.
        let mut bad = m.clone();
        bad.functions[kernel].locals[0].ty = Type::vec(Type::SCALAR);
        let found = messages(&bad);
        assert!(unresolved(&found, "the local `x`"), "{found:?}");

        // An expression of type `scalar` deep in the kernel's body.
        let mut bad = m.clone();
        struct Unresolve;
        impl super::super::visit::VisitMut for Unresolve {
            fn visit_expr_mut(&mut self, e: &mut Expr) {
                if matches!(e.kind, ExprKind::Binary { .. }) {
                    e.ty = Type::SCALAR;
                }
                super::super::visit::walk_expr_mut(self, e);
            }
        }
        super::super::visit::VisitMut::visit_block_mut(
            &mut Unresolve,
            &mut bad.functions[kernel].body,
        );
        let found = messages(&bad);
        assert!(unresolved(&found, "an expression or place"), "{found:?}");

        // The checker's own output, before the driver resolves it, breaks it everywhere.
        let parsed = syntax::parse(SRC, FileId(0));
        let raw = check_program(&parsed.program).module;
        assert!(messages(&raw).iter().all(|s| s.contains("default precision")));
        let before = Expect { resolved_precision: false, ..ALL };
        assert_eq!(verify(&raw, before), Ok(()));
    }

    #[test]
    fn class_values_give_fields_of_their_class() {
        let src = "type point : class\n  x : scalar\n  y : scalar\nendtype
function r = f(a : scalar)
    p = point(x := a, y := 2.0)
    r = p.x
endfunction
";
        let m = checked(src);
        assert_eq!(verify(&m, ALL), Ok(()));
        let f = m.functions.iter().position(|f| f.name == "f").expect("f");
        struct Rename;
        impl super::super::visit::VisitMut for Rename {
            fn visit_expr_mut(&mut self, e: &mut Expr) {
                match &mut e.kind {
                    ExprKind::Construct { fields, .. } => fields[1].0 = "x".into(),
                    ExprKind::Field { field, .. } => *field = "z".into(),
                    _ => {}
                }
                super::super::visit::walk_expr_mut(self, e);
            }
        }
        let mut bad = m.clone();
        super::super::visit::VisitMut::visit_block_mut(&mut Rename, &mut bad.functions[f].body);
        let found: Vec<String> =
            verify(&bad, ALL).expect_err("broken").into_iter().map(|v| v.message).collect();
        assert!(found.iter().any(|s| s.contains("given twice")), "{found:?}");
        assert!(found.iter().any(|s| s.contains("no field `z`")), "{found:?}");
    }
}
