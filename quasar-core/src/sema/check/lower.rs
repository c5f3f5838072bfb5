//! Lowering one function instance (or lambda) to the typed IR: its parameters and their
//! types, the names its body assigns, and the fixpoint over the body that settles every
//! variable's type. Name resolution and the instance's locals are in [`super::scope`].

use super::params::variadic_param_type;
use super::scope::{refine, unify, FnLowerer, OuterEnv};
use super::type_value::GenericArg;
use crate::diagnostics::Diagnostic;
use crate::ir::{self, LocalId, LocalRole, Special};
use crate::sema::decls::{FnDeclId, ScopeId};
use crate::sema::resolve_type::TypeEnv;
use crate::sema::types::{join, Dim, Type};
use crate::span::Span;
use crate::syntax::ast::{self, AssignOp, Expr, ExprKind, FunctionKind, Stmt, StmtKind};
use std::collections::HashSet;
use std::rc::Rc;

/// How many times a body is re-lowered before still-changing variables become `??`.
const MAX_PASSES: u32 = 8;

impl<'c, 'a> FnLowerer<'c, 'a> {
    /// Binds generic parameters from the explicit arguments (`f[int]`, `hist_kernel[256]`)
    /// and from the argument types (`mat[T]` given `mat[int]` binds `T = int`; `mat(M, N)`
    /// given `mat(3, 4)` binds `M = 3`, `N = 4`).
    fn bind_generics(&mut self, def: &ast::FunctionDef, args: &[Type], type_args: &[GenericArg]) {
        for (i, tp) in def.type_params.iter().enumerate() {
            let name = tp.name.name.clone();
            match type_args.get(i) {
                Some(GenericArg::Type(t)) => {
                    self.type_params.insert(name, t.clone());
                }
                Some(GenericArg::Size(n)) => {
                    self.sizes.insert(name, *n);
                }
                None => {
                    self.type_params.insert(name.clone(), Type::Param(name));
                }
            }
        }
        for (p, arg) in def.params.iter().zip(args) {
            let Some(t) = &p.ty else { continue };
            let declared = self.resolve_type_quiet(t);
            unify(&declared, arg, &mut self.type_params, &mut self.sizes);
        }
    }

    /// With size parameters bound by the first arguments that mention them (or in brackets,
    /// `count[256]`), every other argument must have the same sizes:
    /// `f[P](a : cube(:, :, P), b : cube(:, :, P))` called with 3 and 4 channels is an error
    /// (manual §2.2.4), reported at the call.
    fn check_generic_sizes(&mut self, def: &ast::FunctionDef, args: &[Type], call: Span) {
        for (p, arg) in def.params.iter().zip(args) {
            let Some(t) = &p.ty else { continue };
            if def.kind == FunctionKind::Kernel && Special::from_name(&p.name.name).is_some() {
                continue; // fitted to the launch (`geometry.rs`)
            }
            let declared = self.resolve_type_quiet(t);
            let (Type::Array(d), Type::Array(a)) = (&declared, arg) else {
                continue;
            };
            let (Some(ds), Some(as_)) = (&d.shape, &a.shape) else { continue };
            for (i, (x, y)) in ds.iter().zip(as_).enumerate() {
                if let (Dim::Known(want), Dim::Known(got)) = (x, y) {
                    if want != got {
                        let d = Diagnostic::error(
                            call,
                            format!(
                            "`{}` has size {got} in dimension {i}, but its type requires {want}",
                            p.name.name
                        ),
                        )
                        .with_secondary(p.span, format!("declared as {declared}"))
                        .with_note(format!("the argument is {arg}"));
                        self.diags.push(d);
                    }
                }
            }
        }
    }

    pub(super) fn resolve_type_quiet(&mut self, t: &ast::TypeExpr) -> Type {
        let env = TypeEnv { decls: &self.cx.decls, params: &self.type_params, sizes: &self.sizes };
        env.resolve(t, &mut Vec::new())
    }

    pub fn lower_function(
        &mut self,
        def: &'a ast::FunctionDef,
        args: &[Type],
        type_args: &[GenericArg],
        call_span: Span,
    ) -> ir::Function {
        self.name = def.name.name.clone();
        self.bind_generics(def, args, type_args);
        self.check_generic_sizes(def, args, call_span);
        let mut params = Vec::new();
        let explicit = args.len();
        for (i, p) in def.params.iter().enumerate() {
            let declared = p.ty.as_ref().map(|t| self.resolve_type(t));
            if i >= explicit && !p.variadic && Special::from_name(&p.name.name).is_none() {
                if let Some(default) = &p.default {
                    // Not passed: this instance computes the default itself (it may use
                    // the parameters before it, manual §2.1 item 15).
                    let id = self.add_local(&p.name.name, Type::Void, LocalRole::Var, p.span);
                    if let Some(d) = declared.filter(|d| d.is_concrete()) {
                        self.declared[id.0 as usize] = Some(d);
                    }
                    self.prologue.push((id, default));
                    continue;
                }
            }
            let actual = match args.get(i) {
                Some(t) => t.clone(),
                // An empty variadic rest (`f(a)` for `f(a, ...rest)`): a vector of scalars.
                None if p.variadic => Type::SCALAR,
                None => Type::Unknown,
            };
            let ty = if p.variadic {
                variadic_param_type(declared.as_ref(), actual)
            } else {
                match &declared {
                    // A cell of `__device__` function values of known elements where a cell
                    // of a device function type is declared: the instance is specialised for
                    // it, so that its kernels take the elements (`device_fn_cells.rs`).
                    Some(d) if keeps_device_fn_cell(d, &actual) => actual,
                    Some(d) => refine(d, &actual),
                    None => actual,
                }
            };
            let role = match Special::from_name(&p.name.name) {
                Some(s) if self.kind == FunctionKind::Kernel => LocalRole::Special(s),
                _ => LocalRole::Param,
            };
            let ty = match role {
                LocalRole::Special(s) => match s.thread_group() {
                    Some(g) => Type::ThreadBlock(g),
                    None => super::geometry::integer_geometry(s, ty),
                },
                _ => ty,
            };
            if self.kind == FunctionKind::Kernel {
                self.check_kernel_param(p, &ty);
            }
            let ids = match role {
                LocalRole::Special(s) => {
                    vec![self.add_special_param(p, s, declared.as_ref(), ty, args.get(i))]
                }
                _ => self.add_param(&p.name.name, ty, p.span),
            };
            for id in ids {
                if declared.as_ref().is_some_and(|d| !d.is_concrete() && !d.is_generic())
                    && !self.locals[id.0 as usize].ty.is_generic()
                {
                    self.dynamic_params.push(id);
                }
                params.push(id);
            }
        }
        self.take_runtime_sizes(def);
        let mut outputs = Vec::new();
        for o in &def.outputs {
            let declared = o.ty.as_ref().map(|t| self.resolve_type(t));
            let ty = declared.clone().filter(|d| *d != Type::Unknown).unwrap_or(Type::Void);
            let id = self.add_local(&o.name.name, ty, LocalRole::Output, o.span);
            if let Some(d) = declared.filter(|d| d.is_concrete()) {
                self.declared[id.0 as usize] = Some(d);
            }
            outputs.push(id);
        }
        self.check_variadic_params(&def.params);
        self.check_default_order(&def.params);
        if def.kind == FunctionKind::Kernel {
            self.check_kernel_outputs(&outputs);
        }
        let (mut f, _) = self.lower_body(&def.body, def.span, &params, &outputs);
        f.top_level = self.cx.decls.function_parent_is_script(def);
        f.kind = def.kind;
        for &o in &outputs {
            // (A declared output has its type from the start: the manual's `function algo :
            // algorithm = mean_filter_hor(N)` assigns it no value but defines `algo`.)
            let declared_only = self.declared[o.0 as usize].is_some() && !assigns(&f.body, o);
            if (self.locals[o.0 as usize].ty != Type::Void && !declared_only)
                || self.kind == FunctionKind::Kernel
            {
                continue;
            }
            // `function algo : algorithm = make()` with a nested `function … algo(…)`: the
            // nested function is the output's value.
            let name = self.locals[o.0 as usize].name.clone();
            let nested = self
                .cx
                .decls
                .fn_names
                .get(&(super::super::decls::scope_key(self.scope), name.clone()))
                .cloned();
            if let Some(&[decl]) = nested.as_deref() {
                let ndef = self.cx.decls.function(decl).def;
                let args: Vec<Type> = ndef
                    .params
                    .iter()
                    .map(|p| super::generic_arg(self.cx.declared_param_type(ndef, p)))
                    .collect();
                let env = self.env_for_children();
                if let Some(id) =
                    self.cx.instantiate(decl, args, Vec::new(), ndef.name.span, Some(env))
                {
                    let value = self
                        .nested_fn_class(decl, id)
                        .unwrap_or_else(|| self.closure(id, ndef.name.span));
                    let stored = self.assign_local(o, &value.ty, ndef.name.span);
                    let place = ir::Place::new(ir::PlaceKind::Local(o), stored, ndef.name.span);
                    f.body.push(ir::Stmt {
                        kind: ir::StmtKind::Assign { place, op: ir::AssignOp::Assign, value },
                        span: ndef.name.span,
                    });
                    continue;
                }
            }
            if declared_only {
                continue;
            }
            let l = &self.locals[o.0 as usize];
            let d = Diagnostic::error(l.span, format!("the output `{}` is never assigned", l.name))
                .with_note("every output of a function must be assigned before it returns");
            self.cx.diags.push(d);
        }
        f.locals = std::mem::take(&mut self.locals);
        f
    }

    pub fn lower_lambda(
        &mut self,
        lambda: &'a ast::Lambda,
        span: Span,
        args: &[Type],
    ) -> ir::Function {
        self.name = "<lambda>".into();
        let mut params = Vec::new();
        for (i, p) in lambda.params.iter().enumerate() {
            let declared = p.ty.as_ref().map(|t| self.resolve_type(t));
            let actual = match args.get(i) {
                Some(t) => t.clone(),
                // An empty variadic rest (`f(a)` for `f(a, ...rest)`): a vector of scalars.
                None if p.variadic => Type::SCALAR,
                None => Type::Unknown,
            };
            let ty = match &declared {
                Some(d) if keeps_device_fn_cell(d, &actual) => actual,
                Some(d) => refine(d, &actual),
                None => actual,
            };
            let role = match Special::from_name(&p.name.name) {
                Some(s) if self.kind == FunctionKind::Kernel => LocalRole::Special(s),
                _ => LocalRole::Param,
            };
            let ty = match role {
                LocalRole::Special(s) => match s.thread_group() {
                    Some(g) => Type::ThreadBlock(g),
                    None => super::geometry::integer_geometry(s, ty),
                },
                _ => ty,
            };
            match role {
                LocalRole::Special(s) => {
                    params.push(self.add_special_param(p, s, declared.as_ref(), ty, args.get(i)))
                }
                _ => params.extend(self.add_param(&p.name.name, ty, p.span)),
            }
        }
        if lambda.kind == FunctionKind::Kernel {
            // A kernel lambda runs for its effect (`y[pos] = …`); it has no result.
            let (mut f, _) =
                self.lower_body_with(&[], span, &params, &[], Some((None, &lambda.body)));
            f.locals = std::mem::take(&mut self.locals);
            return f;
        }
        let result = self.add_local("<result>", Type::Void, LocalRole::Output, lambda.body.span);
        // The body is an expression; its value is the result.
        let (mut f, _) =
            self.lower_body_with(&[], span, &params, &[result], Some((Some(result), &lambda.body)));
        f.locals = std::mem::take(&mut self.locals);
        f
    }

    /// Kernel parameters cannot be optional, and strings and untyped cells cannot be passed
    /// to kernels (manual §2.4.1).
    fn check_kernel_param(&mut self, p: &ast::Param, ty: &Type) {
        if p.variadic {
            let d = Diagnostic::error(
                p.span,
                format!("kernel parameter `{}` cannot be variadic", p.name.name),
            )
            .with_note("variadic kernel functions are not supported (manual §4.8.1); a `__device__` function can be variadic");
            self.diags.push(d);
        }
        if p.default.is_some() {
            let d = Diagnostic::error(
                p.span,
                format!("kernel parameter `{}` cannot have a default value", p.name.name),
            )
            .with_note("kernel functions cannot have optional parameters");
            self.diags.push(d);
        }
        let dynamic_class = match ty {
            Type::Class(c) if self.class_def(c.id).dynamic => Some(c.name.clone()),
            _ => None,
        };
        if let Some(name) = dynamic_class {
            let d = Diagnostic::error(
                p.span,
                format!(
                    "kernel parameter `{}` is of the dynamic class `{name}`, which cannot be passed to a kernel",
                    p.name.name
                ),
            )
            .with_note("dynamic classes exist in host code only (manual §7.4); declare the class `class` or `mutable class` with typed fields");
            self.diags.push(d);
        }
        let bad = match ty {
            Type::String => Some("a string"),
            Type::Array(a) if a.elem == Type::Unknown => {
                Some("a cell array of unknown element type")
            }
            _ => None,
        };
        if let Some(what) = bad {
            let d = Diagnostic::error(
                p.span,
                format!(
                    "kernel parameter `{}` is {what}, which cannot be passed to a kernel",
                    p.name.name
                ),
            )
            .with_note(
                "convert strings to vectors (`fromascii`) and use typed arrays such as `vec[cube]`",
            );
            self.diags.push(d);
        }
    }

    /// Lowers `body` to a fixpoint of its variables' types.
    pub fn lower_body(
        &mut self,
        body: &'a [Stmt],
        span: Span,
        params: &[LocalId],
        outputs: &[LocalId],
    ) -> (ir::Function, Rc<OuterEnv<'a>>) {
        self.lower_body_with(body, span, params, outputs, None)
    }

    fn lower_body_with(
        &mut self,
        body: &'a [Stmt],
        span: Span,
        params: &[LocalId],
        outputs: &[LocalId],
        // An expression body (a lambda's), with the local receiving its value, if any.
        result: Option<(Option<LocalId>, &'a Expr)>,
    ) -> (ir::Function, Rc<OuterEnv<'a>>) {
        self.declare_assigned_names(body);
        if let Some((_, e)) = result {
            let mut names = Vec::new();
            collect_in_expr(e, &mut names);
            self.declare_names(names);
        }
        // Diagnostics about declarations (parameter and variable types) are reported once;
        // those of the body come from its last pass only.
        let declared_diags = std::mem::take(&mut self.diags);
        self.fn_conflicts.params = params.to_vec();
        let mut block = Vec::new();
        for pass in 0..=MAX_PASSES {
            self.changed = false;
            self.diags.clear();
            self.void_reads.clear();
            self.fn_conflicts.new_pass();
            block = self.lower_geometry_fits();
            block.extend(self.lower_runtime_sizes());
            block.extend(self.lower_prologue());
            block.extend(match result {
                Some((Some(r), e)) => self.lower_result_expr(e, r),
                Some((None, e)) => self.lower_effect_expr(e),
                None => self.lower_block(body),
            });
            self.settle_common_fn_types();
            if !self.changed {
                break;
            }
            if pass + 1 == MAX_PASSES {
                // Still changing: give up on precise types for the variables involved.
                for l in &mut self.locals {
                    if l.role == LocalRole::Var && l.ty != Type::Void {
                        l.ty = join(&l.ty, &Type::Unknown);
                    }
                }
            }
        }
        let mut reported = HashSet::new();
        for (id, span) in std::mem::take(&mut self.void_reads) {
            if self.locals[id.0 as usize].ty == Type::Void && reported.insert(id) {
                let name = &self.locals[id.0 as usize].name;
                let d = Diagnostic::error(
                    span,
                    format!("`{name}` is used before it is assigned a value"),
                )
                .with_label("no value reaches this use");
                self.diags.push(d);
            }
        }
        self.check_uncalled_children();
        let diags = std::mem::take(&mut self.diags);
        self.cx.diags.extend(declared_diags);
        self.cx.diags.extend(diags);
        let env = self.env_for_children();
        self.cx.finished_param_calls = self.param_calls_with_nested();
        let f = ir::Function {
            name: self.name.clone(),
            instance_name: String::new(),
            kind: self.kind,
            params: params.to_vec(),
            outputs: outputs.to_vec(),
            captures: self.used_captures(&block),
            locals: Vec::new(),
            // Also a function nested in a generic check of its enclosing function, reading
            // that function's unbound parameters, and that check itself when it calls such
            // a function (`filter[c]`'s kernel reading `c`): neither can be compiled.
            generic: params.iter().any(|p| {
                let t = &self.locals[p.0 as usize].ty;
                t.is_generic() || (!t.is_concrete() && !self.dynamic_params.contains(p))
            }) || self
                .outer
                .as_ref()
                .is_some_and(|o| o.type_params.values().any(|t| matches!(t, Type::Param(_))))
                || self.calls_nested_generic(&block),
            body: block,
            top_level: false,
            span,
            partition: None,
            outputs_from_identity: false,
            runtime_sizes: self.runtime_size_names(),
        };
        (f, env)
    }

    /// The captured variables, less those of no known type that the body no longer reads (a
    /// `symbolic` name, manual §4.9.1, that reductions rewrote away, which exists only while
    /// compiling) and closure values it does not read.
    fn used_captures(&self, block: &[ir::Stmt]) -> Vec<LocalId> {
        use crate::ir::visit::{walk_expr, walk_place, Visit};
        struct Reads(HashSet<LocalId>);
        impl<'b> Visit<'b> for Reads {
            fn visit_expr(&mut self, e: &'b ir::Expr) {
                if let ir::ExprKind::Local(id) = e.kind {
                    self.0.insert(id);
                }
                walk_expr(self, e)
            }
            fn visit_place(&mut self, p: &'b ir::Place) {
                if let ir::PlaceKind::Local(id) = p.kind {
                    self.0.insert(id);
                }
                walk_place(self, p)
            }
        }
        let mut reads = Reads(HashSet::new());
        reads.visit_block(block);
        self.captures
            .iter()
            .copied()
            .filter(|id| {
                let ty = &self.locals[id.0 as usize].ty;
                // A closure value that device code read field by field (`fn.lut`) is not
                // needed whole.
                let closure = matches!(ty, Type::Class(c) if c.id.is_closure())
                    || super::device_fn_cells::device_fn_cell(ty).is_some();
                reads.0.contains(id) || (ty.is_concrete() && !closure)
            })
            .collect()
    }

    /// Checks the functions defined in this scope that nothing called, with this scope's
    /// variables available to them, so that errors inside them are reported too.
    fn check_uncalled_children(&mut self) {
        let children: Vec<FnDeclId> = (0..self.cx.decls.functions.len())
            .map(|i| FnDeclId(i as u32))
            .filter(|&id| {
                self.cx.decls.function(id).parent == self.scope && !self.cx.called.contains(&id)
            })
            .collect();
        if children.is_empty() || self.scope == ScopeId::Script || self.name == "<lambda>" {
            return;
        }
        let env = self.env_for_children();
        for id in children {
            let def = self.cx.decls.function(id).def;
            let args: Vec<Type> = def
                .params
                .iter()
                .map(|p| super::generic_arg(self.cx.declared_param_type(def, p)))
                .collect();
            if let Some(f) =
                self.cx.instantiate(id, args, Vec::new(), def.name.span, Some(env.clone()))
            {
                self.cx.roots.push((id, f));
            }
        }
    }

    fn lower_prologue(&mut self) -> ir::Block {
        let mut out = Vec::new();
        for (id, default) in self.prologue.clone() {
            let value = self.lower_expr(default);
            let stored = self.assign_local(id, &value.ty, default.span);
            let value = self.convert_to(value, &stored, default.span);
            let place = ir::Place::new(ir::PlaceKind::Local(id), stored, default.span);
            out.push(ir::Stmt {
                kind: ir::StmtKind::Assign { place, op: ir::AssignOp::Assign, value },
                span: default.span,
            });
        }
        out
    }

    fn lower_effect_expr(&mut self, e: &'a Expr) -> ir::Block {
        self.lower_expr_stmt(e, e.span).into_iter().collect()
    }

    fn lower_result_expr(&mut self, e: &'a Expr, result: LocalId) -> ir::Block {
        let span = e.span;
        let value = match (&e.kind, self.expected_result.clone()) {
            // `x -> y -> x + y` declared `[scalar -> scalar -> scalar]`: the inner lambda
            // takes the declared types too (manual §4.6.1).
            (ast::ExprKind::Lambda(l), Some(Type::Function(ft))) => {
                let result = super::assign::single_result(&ft);
                self.lower_lambda_as(l, span, &ft.params, result)
            }
            _ => self.lower_expr(e),
        };
        if value.ty == Type::Void
            && !matches!(value.kind, ir::ExprKind::Call { .. } | ir::ExprKind::Binary { .. })
        {
            // A body without a value (`print(x)`): the lambda has no result.
            return vec![ir::Stmt { kind: ir::StmtKind::Expr(value), span }];
        }
        // A lambda given a function type with a wider result (`f : [int -> scalar] = x -> x`,
        // or the common type of `common_fn_type.rs`) converts its value.
        let value = match &self.expected_result {
            Some(r)
                if value.ty.is_number()
                    && r.is_number()
                    && value.ty != *r
                    && crate::sema::types::promote(&value.ty, r) == *r =>
            {
                ir::Expr::new(ir::ExprKind::Convert(Box::new(value)), r.clone(), span)
            }
            _ => value,
        };
        let stored = self.assign_local(result, &value.ty, span);
        let place = ir::Place::new(ir::PlaceKind::Local(result), stored, span);
        vec![ir::Stmt {
            kind: ir::StmtKind::Assign { place, op: ir::AssignOp::Assign, value },
            span,
        }]
    }

    /// Creates a local for every variable the body assigns (Quasar variables belong to the
    /// whole function, as in MATLAB), and types the annotated ones.
    fn declare_assigned_names(&mut self, body: &'a [Stmt]) {
        let mut names = Vec::new();
        collect_assigned(body, &mut names);
        self.declare_names(names);
    }

    fn declare_names(&mut self, names: Vec<(String, Option<&'a ast::TypeExpr>, Span)>) {
        for (name, ty, span) in names {
            if !self.names.contains_key(&name) {
                let captured =
                    self.outer.as_ref().and_then(|o| o.find(&name)).map(|(t, _)| t.clone());
                let id = self.add_local(&name, Type::Void, LocalRole::Var, span);
                if let Some(t) = captured {
                    // Assigning a captured variable makes a local copy (manual §4.2).
                    self.locals[id.0 as usize].ty = t;
                    self.cx.diags.push(
                        Diagnostic::warning(span, format!("assigning `{name}` creates a local copy of the captured variable"))
                            .with_note("captured variables are read-only; the change is only visible inside this function"),
                    );
                }
            }
            if let Some(t) = ty {
                let resolved = self.resolve_type(t);
                let id = self.names[&name];
                if resolved != Type::Unknown && resolved.is_concrete() {
                    self.declared[id.0 as usize] = Some(resolved.clone());
                    self.locals[id.0 as usize].ty = resolved;
                }
            }
        }
    }
}

/// Names assigned anywhere in `body` (not in nested functions or lambdas), with their type
/// annotation if one is written.
pub(super) fn collect_assigned<'a>(
    body: &'a [Stmt],
    out: &mut Vec<(String, Option<&'a ast::TypeExpr>, Span)>,
) {
    for s in body {
        match &s.kind {
            StmtKind::Expr(e) => collect_in_expr(e, out),
            StmtKind::If { branches, else_body } => {
                for (c, b) in branches {
                    collect_in_expr(c, out);
                    collect_assigned(b, out);
                }
                if let Some(b) = else_body {
                    collect_assigned(b, out);
                }
            }
            StmtKind::For { var, body, .. } => {
                out.push((var.name.clone(), None, var.span));
                collect_assigned(body, out);
            }
            StmtKind::While { body, .. } | StmtKind::Repeat { body, .. } => {
                collect_assigned(body, out)
            }
            StmtKind::Match { arms, .. } => {
                for a in arms {
                    collect_assigned(&a.body, out);
                }
            }
            StmtKind::Try { body, catch_var, catch_body, .. } => {
                collect_assigned(body, out);
                if let Some(v) = catch_var {
                    out.push((v.name.clone(), None, v.span));
                }
                collect_assigned(catch_body, out);
            }
            _ => {}
        }
    }
}

fn collect_in_expr<'a>(e: &'a Expr, out: &mut Vec<(String, Option<&'a ast::TypeExpr>, Span)>) {
    match &e.kind {
        ExprKind::Assign { op: AssignOp::Assign | AssignOp::Define, lhs, rhs } => {
            collect_target(lhs, out);
            collect_in_expr(rhs, out);
        }
        ExprKind::Assign { rhs, .. } => collect_in_expr(rhs, out),
        // A declaration without a value: `x : int`.
        ExprKind::Annotated { expr, ty } => {
            if let ExprKind::Ident(n) = &expr.kind {
                out.push((n.clone(), Some(ty), expr.span));
            }
        }
        ExprKind::Paren(items) => items.iter().for_each(|i| collect_in_expr(i, out)),
        _ => {}
    }
}

fn collect_target<'a>(target: &'a Expr, out: &mut Vec<(String, Option<&'a ast::TypeExpr>, Span)>) {
    match &target.kind {
        ExprKind::Ident(n) => out.push((n.clone(), None, target.span)),
        ExprKind::Annotated { expr, ty } => {
            if let ExprKind::Ident(n) = &expr.kind {
                out.push((n.clone(), Some(ty), expr.span));
            }
        }
        ExprKind::Matrix(items) => items.iter().for_each(|i| collect_target(i, out)),
        ExprKind::Assign { lhs, rhs, op: AssignOp::Assign } => {
            collect_target(lhs, out);
            collect_in_expr(rhs, out);
        }
        _ => {}
    }
}

impl FnLowerer<'_, '_> {
    /// Whether `block` calls or launches an instance nested in this one that reads this
    /// instance's unbound generic parameters (so is generic itself).
    fn calls_nested_generic(&self, block: &ir::Block) -> bool {
        if !self.type_params.values().any(|t| matches!(t, Type::Param(_))) {
            return false;
        }
        let module = &self.cx.module;
        let nested_generic = |id: ir::FunctionId| {
            module.functions.get(id.0 as usize).is_some_and(|f| f.generic && !f.top_level)
        };
        let mut found = false;
        crate::ir::walk::walk_block(block, &mut |_| {}, &mut |e| match &e.kind {
            ir::ExprKind::Call { callee: ir::Callee::Function(id), .. }
            | ir::ExprKind::ParallelDo { kernel: id, .. } => found |= nested_generic(*id),
            _ => {}
        });
        found
    }
}

/// Whether `body` assigns local `o` anywhere.
fn assigns(body: &[ir::Stmt], o: LocalId) -> bool {
    use crate::ir::visit::{walk_place, Visit};
    struct Finds(LocalId, bool);
    impl<'b> Visit<'b> for Finds {
        fn visit_place(&mut self, p: &'b ir::Place) {
            self.1 |= matches!(p.kind, ir::PlaceKind::Local(id) if id == self.0);
            walk_place(self, p)
        }
    }
    let mut v = Finds(o, false);
    v.visit_block(body);
    v.1
}

/// Whether a parameter declared `declared` (a cell of a device function type) given a value
/// of type `actual` (a cell of such values of known elements, each of that type) is
/// specialised for it.
fn keeps_device_fn_cell(declared: &Type, actual: &Type) -> bool {
    let (Some(ft), Some(items)) =
        (super::fn_cells::fn_elements(declared), super::device_fn_cells::device_fn_cell(actual))
    else {
        return false;
    };
    ft.kind == FunctionKind::Device
        && items.iter().all(|t| matches!(t, Type::Function(f) if **f == *ft))
}
