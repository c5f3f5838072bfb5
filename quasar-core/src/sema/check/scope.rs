//! The lowering of one function instance: its locals, how names resolve (locals, captured
//! variables of enclosing scopes, functions, types, built-ins), and the fixpoint over the
//! body that settles every variable's type.

use super::Checker;
use crate::diagnostics::Diagnostic;
use crate::ir::{self, LocalId, LocalRole};
use crate::sema::builtins;
use crate::sema::decls::{FnDeclId, ScopeId};
use crate::sema::resolve_type::TypeEnv;
use crate::sema::types::{is_subtype, join, Dim, Rank, Type};
use crate::span::Span;
use crate::syntax::ast::{self, FunctionKind};
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

/// The variables of an enclosing scope, as seen by the functions defined in it.
#[derive(Debug)]
pub struct OuterEnv<'a> {
    pub scope: ScopeId,
    pub vars: HashMap<String, Type>,
    /// Variables that hold one known lambda, so calls through them can be instantiated.
    pub lambdas: HashMap<String, (&'a ast::Lambda, Span)>,
    pub parent: Option<Rc<OuterEnv<'a>>>,
    /// The generic size parameters bound in the enclosing functions (`c` of
    /// `filter[c : int]`, read by a kernel nested in it).
    pub sizes: HashMap<String, u64>,
    /// The enclosing functions' type parameters (unbound ones as `Type::Param`).
    pub type_params: HashMap<String, Type>,
}

impl<'a> OuterEnv<'a> {
    pub(super) fn find(&self, name: &str) -> Option<(&Type, ScopeId)> {
        match self.vars.get(name) {
            Some(t) => Some((t, self.scope)),
            None => self.parent.as_ref()?.find(name),
        }
    }

    pub(super) fn find_lambda(&self, name: &str) -> Option<(&'a ast::Lambda, Span, ScopeId)> {
        // A lambda assigned in this scope is known before its variable has a type (a
        // recursive lambda names itself while the variable is being assigned).
        if let Some((l, s)) = self.lambdas.get(name) {
            return Some((*l, *s, self.scope));
        }
        if self.vars.contains_key(name) {
            return None;
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
    /// The type and position of the first function value (an untyped lambda's closure class,
    /// a function value) assigned to each local, kept across passes (`closure_class.rs`).
    pub first_fn_values: HashMap<LocalId, (Type, Span)>,
    /// Variables given function values of no one type, and the calls through them
    /// (`common_fn_type.rs`).
    pub fn_conflicts: super::common_fn_type::FnConflicts,
    pub loop_depth: u32,
    /// Reads of variables that had no type yet, in the current pass.
    pub void_reads: Vec<(LocalId, Span)>,
    /// Optional parameters not passed in this instance, set from their defaults first.
    pub prologue: Vec<(LocalId, &'a ast::Expr)>,
    /// Geometry parameters declared with another length than the launch's (`geometry.rs`).
    pub geometry_fits: Vec<super::geometry::GeometryFit>,
    /// Depth of `{!parallel for}` loops being lowered: their bodies become kernels, so
    /// kernel-only functions (`syncthreads`, `shared`) are allowed there.
    pub parallel_depth: u32,
    /// Parameters declared with a dynamic type (`x : ??`, `t : object`, `c : vec[??]`): an
    /// instance with such a parameter is compiled (with run-time type checks), not generic.
    pub dynamic_params: Vec<LocalId>,
    /// The argument types of the calls through the elements of each local (`c[k](t)`),
    /// kept across passes (`dynamic_lambdas.rs`).
    pub cell_calls: HashMap<LocalId, Vec<Vec<Type>>>,
    /// The declared type of a lambda's result (`add : [scalar -> scalar -> scalar] =
    /// x -> y -> x + y`): an inner lambda body takes its parameter types from it.
    pub expected_result: Option<Type>,
    /// The variables of the reductions whose replacements are being lowered, innermost last
    /// (`reductions.rs`).
    pub reduction_frames: Vec<Vec<(String, ir::Expr)>>,
    /// Operands a reduction lowered before finding that no rule applies, taken by the
    /// lowering of the expression as written.
    pub prelowered: HashMap<*const ast::Expr, ir::Expr>,
    /// How deep replacements are nested now.
    pub reduction_depth: u32,
    /// Where the reductions whose replacements are being lowered were applied, outermost
    /// first (named by errors inside a replacement).
    pub reduction_sites: Vec<Span>,
    /// Nodes of the expression being matched at which no reduction applies: the written
    /// shape of an enclosing rule's pattern (`reductions_overlap.rs`).
    pub shield: HashSet<*const ast::Expr>,
    /// The reductions applied so far, with the expressions they rewrote.
    pub applied_log: Vec<(Span, &'a ast::Reduction)>,
    /// How deep `lower_aside` calls are nested now (results that are thrown away).
    pub aside: u32,
    /// The terms of the sum being matched by a sum rule (`reductions_sum.rs`): not tried as
    /// sums of one term.
    pub sum_terms: HashSet<*const ast::Expr>,
    /// The assertions known at the statement being lowered (`assumptions.rs`).
    pub assumptions: Vec<super::propositions::Prop>,
    /// Variables declared `symbolic` and not assigned since: they have no value.
    pub symbolic: HashSet<LocalId>,
    /// Generic size parameters this instance takes at run time (`size_params.rs`).
    pub runtime_sizes: Vec<super::size_params::RuntimeSize>,
}

impl<'c, 'a> FnLowerer<'c, 'a> {
    pub fn new(
        cx: &'c mut Checker<'a>,
        scope: ScopeId,
        kind: FunctionKind,
        outer: Option<Rc<OuterEnv<'a>>>,
    ) -> FnLowerer<'c, 'a> {
        let sizes = outer.as_ref().map(|o| o.sizes.clone()).unwrap_or_default();
        let type_params = outer.as_ref().map(|o| o.type_params.clone()).unwrap_or_default();
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
            type_params,
            sizes,
            lambdas: HashMap::new(),
            reassigned: HashSet::new(),
            first_fn_values: HashMap::new(),
            fn_conflicts: Default::default(),
            loop_depth: 0,
            void_reads: Vec::new(),
            prologue: Vec::new(),
            geometry_fits: Vec::new(),
            parallel_depth: 0,
            dynamic_params: Vec::new(),
            cell_calls: HashMap::new(),
            expected_result: None,
            reduction_frames: Vec::new(),
            prelowered: HashMap::new(),
            reduction_depth: 0,
            reduction_sites: Vec::new(),
            shield: HashSet::new(),
            applied_log: Vec::new(),
            aside: 0,
            sum_terms: HashSet::new(),
            assumptions: Vec::new(),
            symbolic: HashSet::new(),
            runtime_sizes: Vec::new(),
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
        self.forget(id);
        if let Some(decl) = self.declared[id.0 as usize].clone() {
            if let Type::Function(ft) = &decl {
                if self.kept_as_class(ty, ft) || self.returns_kept_class(ty, ft) {
                    return self.specialise_fn_local(id, ty, &decl, span);
                }
            }
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
        if is_subtype(from, to) || super::convert::converts_implicitly(from, to) {
            return true;
        }
        // An untyped lambda's value where `[?? -> ??]` is expected (a concrete function type
        // takes it converted, `closure_class.rs`).
        if let Type::Function(ft) = to {
            if let Some(fits) = self.closure_fits(from, ft) {
                return fits;
            }
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
        let mut vars: HashMap<String, Type> = self
            .locals
            .iter()
            .filter(|l| l.ty != Type::Void || l.role != LocalRole::Var)
            .map(|l| (l.name.clone(), l.ty.clone()))
            .collect();
        // The fields of closure class values, as device code captures them (`fn.lut`).
        for l in &self.locals {
            for (field, ty) in self.closure_fields(&l.ty) {
                vars.insert(format!("{}.{field}", l.name), ty);
            }
            // The elements of a cell of device function values, as kernels take them.
            for (k, ty) in
                super::device_fn_cells::device_fn_cell(&l.ty).into_iter().flatten().enumerate()
            {
                vars.insert(format!("{}.{k}", l.name), ty.clone());
            }
        }
        let lambdas = self
            .lambdas
            .iter()
            .filter(|(id, _)| !self.reassigned.contains(id))
            .map(|(id, (l, sp, _))| (self.locals[id.0 as usize].name.clone(), (*l, *sp)))
            .collect();
        Rc::new(OuterEnv {
            scope: self.scope,
            vars,
            lambdas,
            parent: self.outer.clone(),
            sizes: self.sizes.clone(),
            type_params: self.type_params.clone(),
        })
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
        // An untyped lambda given for `f : [?? -> ??]`: the parameter holds its closure class.
        (Type::Function(_), a @ Type::Class(c)) if c.id.is_closure() => a.clone(),
        // A class named without the implicit arguments of its fields of function types with
        // unknown parts (`o : my_interface`, `classes.rs`) takes the argument's.
        (Type::Class(d), a @ Type::Class(c)) if d.id == c.id && d.args.len() < c.args.len() => {
            a.clone()
        }
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
