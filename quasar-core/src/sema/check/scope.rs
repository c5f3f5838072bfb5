//! The lowering of one function instance: its locals, how names resolve (locals, captured
//! variables of enclosing scopes, functions, types, built-ins), and the fixpoint over the
//! body that settles every variable's type.

use super::Checker;
use crate::diagnostics::Diagnostic;
use crate::ir::{self, LocalId, LocalRole, Special};
use crate::sema::builtins;
use crate::sema::decls::{FnDeclId, ScopeId};
use crate::sema::resolve_type::TypeEnv;
use crate::sema::types::{is_subtype, join, Dim, Rank, Type};
use crate::span::Span;
use crate::syntax::ast::{self, AssignOp, Expr, ExprKind, FunctionKind, Stmt, StmtKind};
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

/// How many times a body is re-lowered before still-changing variables become `??`.
const MAX_PASSES: u32 = 8;

/// The variables of an enclosing scope, as seen by the functions defined in it.
#[derive(Debug)]
pub struct OuterEnv<'a> {
    pub scope: ScopeId,
    pub vars: HashMap<String, Type>,
    /// Variables that hold one known lambda, so calls through them can be instantiated.
    pub lambdas: HashMap<String, (&'a ast::Lambda, Span)>,
    pub parent: Option<Rc<OuterEnv<'a>>>,
}

impl<'a> OuterEnv<'a> {
    fn find(&self, name: &str) -> Option<(&Type, ScopeId)> {
        match self.vars.get(name) {
            Some(t) => Some((t, self.scope)),
            None => self.parent.as_ref()?.find(name),
        }
    }

    fn find_lambda(&self, name: &str) -> Option<(&'a ast::Lambda, Span, ScopeId)> {
        if self.vars.contains_key(name) {
            return self.lambdas.get(name).map(|(l, s)| (*l, *s, self.scope));
        }
        self.parent.as_ref()?.find_lambda(name)
    }
}

/// What a name refers to.
#[derive(Clone, Debug)]
pub enum NameRef {
    Local(LocalId),
    Functions(Vec<FnDeclId>),
    TypeDef(usize),
    Builtin(&'static builtins::Signature),
    Constant(Type, ir::Const),
}

pub(crate) struct FnLowerer<'c, 'a> {
    pub cx: &'c mut Checker<'a>,
    pub scope: ScopeId,
    pub kind: FunctionKind,
    pub name: String,
    pub outer: Option<Rc<OuterEnv<'a>>>,
    pub locals: Vec<ir::Local>,
    /// Types fixed by an annotation; assignments must fit them.
    pub declared: Vec<Option<Type>>,
    pub names: HashMap<String, LocalId>,
    pub captures: Vec<LocalId>,
    /// Diagnostics of the current pass (only the last pass's are kept).
    pub diags: Vec<Diagnostic>,
    pub changed: bool,
    pub type_params: HashMap<String, Type>,
    pub sizes: HashMap<String, u64>,
    /// Locals that hold one known lambda expression.
    /// (The lambda, its position, and the scope it was defined in: its free names resolve there.)
    pub lambdas: HashMap<LocalId, (&'a ast::Lambda, Span, ScopeId)>,
    /// Locals assigned more than once (so not a known lambda).
    pub reassigned: HashSet<LocalId>,
    pub loop_depth: u32,
    /// Reads of variables that had no type yet, in the current pass.
    pub void_reads: Vec<(LocalId, Span)>,
    /// Optional parameters not passed in this instance, set from their defaults first.
    pub prologue: Vec<(LocalId, &'a ast::Expr)>,
    /// Depth of `{!parallel for}` loops being lowered: their bodies become kernels, so
    /// kernel-only functions (`syncthreads`, `shared`) are allowed there.
    pub parallel_depth: u32,
}

impl<'c, 'a> FnLowerer<'c, 'a> {
    pub fn new(
        cx: &'c mut Checker<'a>,
        scope: ScopeId,
        kind: FunctionKind,
        outer: Option<Rc<OuterEnv<'a>>>,
    ) -> FnLowerer<'c, 'a> {
        FnLowerer {
            cx,
            scope,
            kind,
            name: String::new(),
            outer,
            locals: Vec::new(),
            declared: Vec::new(),
            names: HashMap::new(),
            captures: Vec::new(),
            diags: Vec::new(),
            changed: false,
            type_params: HashMap::new(),
            sizes: HashMap::new(),
            lambdas: HashMap::new(),
            reassigned: HashSet::new(),
            loop_depth: 0,
            void_reads: Vec::new(),
            prologue: Vec::new(),
            parallel_depth: 0,
        }
    }

    /// Inside a `__kernel__` or `__device__` function.
    pub fn in_device_code(&self) -> bool {
        matches!(self.kind, FunctionKind::Kernel | FunctionKind::Device)
    }

    /// Inside code that runs as a kernel: device code, or a `{!parallel for}` loop body.
    pub fn in_kernel_context(&self) -> bool {
        self.in_device_code() || self.parallel_depth > 0
    }

    pub fn report(&mut self, d: Diagnostic) {
        self.diags.push(d);
    }

    pub fn add_local(&mut self, name: &str, ty: Type, role: LocalRole, span: Span) -> LocalId {
        let id = LocalId(self.locals.len() as u32);
        self.locals.push(ir::Local { name: name.to_string(), ty, role, span });
        self.declared.push(None);
        self.names.insert(name.to_string(), id);
        id
    }

    pub fn local_type(&self, id: LocalId) -> &Type {
        &self.locals[id.0 as usize].ty
    }

    /// Resolves a written type in this function's generic context.
    pub fn resolve_type(&mut self, t: &ast::TypeExpr) -> Type {
        let env = TypeEnv { decls: &self.cx.decls, params: &self.type_params, sizes: &self.sizes };
        let mut diags = Vec::new();
        let ty = env.resolve(t, &mut diags);
        self.diags.extend(diags);
        ty
    }

    /// Records that `ty` flows into local `id`, widening its type (or checking it against
    /// the declared type). Returns the type the value is stored as.
    pub fn assign_local(&mut self, id: LocalId, ty: &Type, span: Span) -> Type {
        if let Some(decl) = self.declared[id.0 as usize].clone() {
            if *ty != Type::Void && !self.fits(ty, &decl) {
                let name = self.locals[id.0 as usize].name.clone();
                let d = Diagnostic::error(
                    span,
                    format!(
                        "type mismatch: `{name}` is declared as {decl}, but this value is {ty}"
                    ),
                )
                .with_label(format!("this is {ty}"));
                self.report(d);
            }
            if self.locals[id.0 as usize].ty != decl {
                self.locals[id.0 as usize].ty = decl.clone();
                self.changed = true;
            }
            return decl;
        }
        let old = self.locals[id.0 as usize].ty.clone();
        let new = if old == Type::Void { ty.clone() } else { join(&old, ty) };
        if new != old {
            self.locals[id.0 as usize].ty = new.clone();
            self.changed = true;
        }
        new
    }

    /// Whether a value of type `from` may be passed or stored where `to` is expected:
    /// subtyping, implicit number conversions, and classes deriving from the expected class
    /// (a class value is accepted for a pointer to its class, manual §7.6).
    pub fn fits(&mut self, from: &Type, to: &Type) -> bool {
        if is_subtype(from, to) || super::expr::converts_implicitly(from, to) {
            return true;
        }
        let class_of = |t: &Type| match t {
            Type::Class(c) => Some(c.id),
            Type::Pointer(p) => match p.as_ref() {
                Type::Class(c) => Some(c.id),
                _ => None,
            },
            _ => None,
        };
        match (class_of(from), class_of(to)) {
            (Some(a), Some(b)) => self.derives_from(a, b),
            _ => false,
        }
    }

    fn derives_from(
        &mut self,
        a: crate::sema::types::ClassId,
        b: crate::sema::types::ClassId,
    ) -> bool {
        let mut current = Some(a);
        let mut steps = 0;
        while let Some(c) = current {
            if c == b {
                return true;
            }
            steps += 1;
            if steps > 64 {
                return false;
            }
            current = self.class_def(c).parent;
        }
        false
    }

    /// The name most like `name` (misspelt) among the variables, functions, types and
    /// built-ins this function sees, for a "did you mean" note.
    pub fn similar_name(&self, name: &str) -> Option<String> {
        let mut candidates: Vec<&str> = self.names.keys().map(String::as_str).collect();
        let mut outer = self.outer.as_deref();
        while let Some(env) = outer {
            candidates.extend(env.vars.keys().map(String::as_str));
            outer = env.parent.as_deref();
        }
        candidates.extend(self.cx.decls.fn_names.keys().map(|(_, n)| n.as_str()));
        candidates.extend(self.cx.decls.type_names.keys().map(String::as_str));
        candidates.extend(builtins::table().iter().map(|s| s.name));
        candidates.sort_unstable();
        crate::suggest::similar(name, candidates).map(str::to_string)
    }

    /// Resolves `name` as seen from this function.
    pub fn resolve_name(&mut self, name: &str, span: Span) -> Option<NameRef> {
        if let Some(&id) = self.names.get(name) {
            return Some(NameRef::Local(id));
        }
        if let Some((ty, _)) = self.outer.as_ref().and_then(|o| o.find(name)) {
            // A variable of an enclosing scope: captured by value, read-only.
            let ty = ty.clone();
            let id = self.add_local(name, ty, LocalRole::Capture, span);
            self.captures.push(id);
            if let Some((lambda, lspan, scope)) =
                self.outer.as_ref().and_then(|o| o.find_lambda(name))
            {
                self.lambdas.insert(id, (lambda, lspan, scope));
            }
            return Some(NameRef::Local(id));
        }
        if let Some(ids) = self.cx.decls.lookup_function(self.scope, name) {
            return Some(NameRef::Functions(ids.to_vec()));
        }
        if let Some(&index) = self.cx.decls.type_names.get(name) {
            return Some(NameRef::TypeDef(index));
        }
        if let Some((ty, c)) = builtins::constant(name) {
            return Some(NameRef::Constant(ty, c));
        }
        builtins::lookup(name).map(NameRef::Builtin)
    }

    /// The environment that functions defined in this scope see.
    pub fn env_for_children(&self) -> Rc<OuterEnv<'a>> {
        let vars = self
            .locals
            .iter()
            .filter(|l| l.ty != Type::Void || l.role != LocalRole::Var)
            .map(|l| (l.name.clone(), l.ty.clone()))
            .collect();
        let lambdas = self
            .lambdas
            .iter()
            .filter(|(id, _)| !self.reassigned.contains(id))
            .map(|(id, (l, sp, _))| (self.locals[id.0 as usize].name.clone(), (*l, *sp)))
            .collect();
        Rc::new(OuterEnv { scope: self.scope, vars, lambdas, parent: self.outer.clone() })
    }

    /// The environment in which a function defined in `scope` is instantiated.
    pub fn env_for_scope(&self, scope: ScopeId) -> Option<Rc<OuterEnv<'a>>> {
        if scope == self.scope {
            return Some(self.env_for_children());
        }
        let mut env = self.outer.clone();
        while let Some(e) = env {
            if e.scope == scope {
                return Some(e);
            }
            env = e.parent.clone();
        }
        None
    }

    // ---- whole bodies -----------------------------------------------------------------

    /// Binds generic parameters from the argument types (`mat[T]` given `mat[int]` binds
    /// `T = int`; `mat(M, N)` given `mat(3, 4)` binds `M = 3`, `N = 4`).
    fn bind_generics(&mut self, def: &ast::FunctionDef, args: &[Type], type_args: &[Type]) {
        for (i, tp) in def.type_params.iter().enumerate() {
            let name = tp.name.name.clone();
            let bound = type_args.get(i).cloned().unwrap_or(Type::Param(name.clone()));
            self.type_params.insert(name, bound);
        }
        for (p, arg) in def.params.iter().zip(args) {
            let Some(t) = &p.ty else { continue };
            let declared = self.resolve_type_quiet(t);
            unify(&declared, arg, &mut self.type_params, &mut self.sizes);
        }
    }

    /// With size parameters bound by the first arguments that mention them, every other
    /// argument must have the same sizes: `f[P](a : cube(:, :, P), b : cube(:, :, P))`
    /// called with 3 and 4 channels is an error (manual §2.2.4).
    fn check_generic_sizes(&mut self, def: &ast::FunctionDef, args: &[Type]) {
        for (p, arg) in def.params.iter().zip(args) {
            let Some(t) = &p.ty else { continue };
            let (Type::Array(d), Type::Array(a)) = (self.resolve_type_quiet(t), arg) else {
                continue;
            };
            let (Some(ds), Some(as_)) = (&d.shape, &a.shape) else { continue };
            for (i, (x, y)) in ds.iter().zip(as_).enumerate() {
                if let (Dim::Known(want), Dim::Known(got)) = (x, y) {
                    if want != got {
                        let d = Diagnostic::error(
                            p.span,
                            format!(
                            "`{}` has size {got} in dimension {i}, but its type requires {want}",
                            p.name.name
                        ),
                        )
                        .with_note(format!("the argument is {arg}"));
                        self.diags.push(d);
                    }
                }
            }
        }
    }

    fn resolve_type_quiet(&mut self, t: &ast::TypeExpr) -> Type {
        let env = TypeEnv { decls: &self.cx.decls, params: &self.type_params, sizes: &self.sizes };
        env.resolve(t, &mut Vec::new())
    }

    pub fn lower_function(
        &mut self,
        def: &'a ast::FunctionDef,
        args: &[Type],
        type_args: &[Type],
    ) -> ir::Function {
        self.name = def.name.name.clone();
        self.bind_generics(def, args, type_args);
        self.check_generic_sizes(def, args);
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
            let actual = args.get(i).cloned().unwrap_or(Type::Unknown);
            let ty = match &declared {
                Some(d) => refine(d, &actual),
                None => actual,
            };
            let ty = if p.variadic { Type::vec(ty) } else { ty };
            let role = match Special::from_name(&p.name.name) {
                Some(s) if self.kind == FunctionKind::Kernel => LocalRole::Special(s),
                _ => LocalRole::Param,
            };
            let ty = match role {
                LocalRole::Special(s) => s.thread_group().map_or(ty, Type::ThreadBlock),
                _ => ty,
            };
            if self.kind == FunctionKind::Kernel {
                self.check_kernel_param(p, &ty);
            }
            let id = self.add_local(&p.name.name, ty, role, p.span);
            params.push(id);
        }
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
        let (mut f, _) = self.lower_body(&def.body, def.span, &params, &outputs);
        f.top_level = self.cx.decls.function_parent_is_script(def);
        f.kind = def.kind;
        for &o in &outputs {
            if self.locals[o.0 as usize].ty != Type::Void || self.kind == FunctionKind::Kernel {
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
                    let value = self.closure(id, ndef.name.span);
                    let stored = self.assign_local(o, &value.ty, ndef.name.span);
                    let place = ir::Place::new(ir::PlaceKind::Local(o), stored, ndef.name.span);
                    f.body.push(ir::Stmt {
                        kind: ir::StmtKind::Assign { place, op: AssignOp::Assign, value },
                        span: ndef.name.span,
                    });
                    continue;
                }
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
            let actual = args.get(i).cloned().unwrap_or(Type::Unknown);
            let ty = match &declared {
                Some(d) => refine(d, &actual),
                None => actual,
            };
            let role = match Special::from_name(&p.name.name) {
                Some(s) if self.kind == FunctionKind::Kernel => LocalRole::Special(s),
                _ => LocalRole::Param,
            };
            let ty = match role {
                LocalRole::Special(s) => s.thread_group().map_or(ty, Type::ThreadBlock),
                _ => ty,
            };
            params.push(self.add_local(&p.name.name, ty, role, p.span));
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
        if p.default.is_some() {
            let d = Diagnostic::error(
                p.span,
                format!("kernel parameter `{}` cannot have a default value", p.name.name),
            )
            .with_note("kernel functions cannot have optional parameters");
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
        let mut block = Vec::new();
        for pass in 0..=MAX_PASSES {
            self.changed = false;
            self.diags.clear();
            self.void_reads.clear();
            block = self.lower_prologue();
            block.extend(match result {
                Some((Some(r), e)) => self.lower_result_expr(e, r),
                Some((None, e)) => self.lower_effect_expr(e),
                None => self.lower_block(body),
            });
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
        let f = ir::Function {
            name: self.name.clone(),
            instance_name: String::new(),
            kind: self.kind,
            params: params.to_vec(),
            outputs: outputs.to_vec(),
            captures: self.captures.clone(),
            locals: Vec::new(),
            generic: params.iter().any(|p| !self.locals[p.0 as usize].ty.is_concrete()),
            body: block,
            top_level: false,
            span,
            partition: None,
        };
        (f, env)
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
                kind: ir::StmtKind::Assign { place, op: AssignOp::Assign, value },
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
        let value = self.lower_expr(e);
        if value.ty == Type::Void
            && !matches!(value.kind, ir::ExprKind::Call { .. } | ir::ExprKind::Binary { .. })
        {
            // A body without a value (`print(x)`): the lambda has no result.
            return vec![ir::Stmt { kind: ir::StmtKind::Expr(value), span }];
        }
        let stored = self.assign_local(result, &value.ty, span);
        let place = ir::Place::new(ir::PlaceKind::Local(result), stored, span);
        vec![ir::Stmt { kind: ir::StmtKind::Assign { place, op: AssignOp::Assign, value }, span }]
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
fn collect_assigned<'a>(
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
            StmtKind::Try { body, catch_var, catch_body } => {
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

/// Combines a parameter's declared type with the argument's: the argument's precision
/// (sizes, element types for `??`/generic parts) with the declaration's modifiers.
pub fn refine(declared: &Type, actual: &Type) -> Type {
    match (declared, actual) {
        // A type class stands for whichever member is passed.
        (Type::Union(_), a) => a.clone(),
        (d, Type::Unknown) | (d, Type::Void) => d.clone(),
        (Type::Unknown | Type::Param(_), a) => a.clone(),
        (Type::Array(d), Type::Array(a)) => {
            let mut out = (**d).clone();
            if matches!(d.elem, Type::Unknown | Type::Param(_)) {
                out.elem = a.elem.clone();
            }
            if d.rank == Rank::Any {
                out.rank = a.rank;
            }
            // A `cube(m, n, 1)` passed as a `mat` keeps the declared rank and shape.
            if a.shape.is_some() && a.rank == out.rank {
                let merged = match (&d.shape, &a.shape) {
                    (Some(ds), Some(as_)) if ds.len() == as_.len() => ds
                        .iter()
                        .zip(as_)
                        .map(
                            |(x, y)| if matches!(x, Dim::Known(_)) { x.clone() } else { y.clone() },
                        )
                        .collect(),
                    (_, s) => s.clone().unwrap_or_default(),
                };
                out.shape = Some(merged);
            }
            Type::Array(Box::new(out))
        }
        // A fully declared function type says more than the value's (often `??`) one.
        (Type::Function(_), Type::Function(_)) if declared.is_concrete() => declared.clone(),
        (Type::Function(_), a @ Type::Function(_)) => a.clone(),
        // The parameter's name (`coalesced_threads`, …) picks the group.
        (Type::ThreadBlock(_), a @ Type::ThreadBlock(_)) => a.clone(),
        (d, _) => d.clone(),
    }
}

/// Matches a declared type containing generic parameters against an actual type, binding
/// type parameters (`T`) and size parameters (`N`).
pub fn unify(
    declared: &Type,
    actual: &Type,
    params: &mut HashMap<String, Type>,
    sizes: &mut HashMap<String, u64>,
) {
    match (declared, actual) {
        (Type::Param(name), a) if *a != Type::Unknown => {
            if matches!(params.get(name), None | Some(Type::Param(_))) {
                params.insert(name.clone(), a.clone());
            }
        }
        (Type::Array(d), Type::Array(a)) => {
            unify(&d.elem, &a.elem, params, sizes);
            if let (Some(ds), Some(as_)) = (&d.shape, &a.shape) {
                for (x, y) in ds.iter().zip(as_) {
                    if let (Dim::Param(n), Dim::Known(v)) = (x, y) {
                        sizes.entry(n.clone()).or_insert(*v);
                    }
                }
            }
        }
        (Type::Class(d), Type::Class(a)) if d.id == a.id => {
            for (x, y) in d.args.iter().zip(&a.args) {
                unify(x, y, params, sizes);
            }
        }
        (Type::Pointer(d), Type::Pointer(a)) => unify(d, a, params, sizes),
        _ => {}
    }
}

impl crate::sema::decls::Decls<'_> {
    /// Whether `def` is defined at the top level of the file.
    pub fn function_parent_is_script(&self, def: &ast::FunctionDef) -> bool {
        self.functions.iter().any(|f| std::ptr::eq(f.def, def) && f.parent == ScopeId::Script)
    }
}
