//! Type inference and lowering to the typed IR.
//!
//! Every function is checked once per distinct tuple of argument types (reification, manual
//! §17.1.3): a call instantiates its callee with the argument types it has at that point.
//! Within one instance, inference is flow-based: the body is lowered repeatedly until the
//! type of every variable stops changing, and each variable ends with the join of all values
//! assigned to it (a variable that holds incompatible types becomes `??`, the manual's
//! polymorphic variable). Functions that nothing calls are still checked, with their
//! declared parameter types (untyped parameters as `??`), so their errors are reported.

mod assign;
mod assumptions;
mod attributes;
mod call;
mod call_value;
mod classes;
mod closure_class;
mod common_fn_type;
mod convert;
mod coop;
mod device_fn_cells;
mod dynamic_lambdas;
mod expr;
mod flat_params;
mod fn_args;
mod fn_cells;
mod geometry;
mod index;
mod kept_classes;
mod launch;
mod lower;
mod matrix;
mod meta;
mod operators;
mod overload;
mod params;
mod predicates;
mod propositions;
mod recursion;
mod reductions;
mod reductions_assign;
mod reductions_lambda;
mod reductions_match;
mod reductions_overlap;
mod reductions_safety;
mod reductions_show;
mod reductions_sum;
mod scope;
mod shared_calc;
mod shared_designators;
mod shared_fetch;
mod size_params;
mod specialize;
mod stmt;
mod texture;
mod type_value;
mod unavailable;

pub(crate) use meta::target_holds;
pub use unavailable::Unavailable;

use super::decls::{Decls, FnDeclId, ScopeId};
use super::resolve_type::TypeEnv;
use super::types::Type;
use crate::diagnostics::Diagnostic;
use crate::ir::{self, FunctionId};
use crate::span::Span;
use crate::syntax::ast::{self, FunctionKind};
use scope::{FnLowerer, OuterEnv};
use std::collections::{HashMap, HashSet};
use std::rc::Rc;
use type_value::GenericArg;

/// The outcome of checking a program: the typed IR (complete only without errors) and all
/// diagnostics.
#[derive(Debug)]
pub struct Checked {
    /// The typed IR (with unknown types where errors were found).
    pub module: ir::Module,
    /// Every type error and warning.
    pub diagnostics: Vec<Diagnostic>,
}

impl Checked {
    /// Whether any diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(|d| d.is_error())
    }
}

/// Type-checks a parsed program on its own (its `import`s are reported as not loaded).
pub fn check_program(program: &ast::Program) -> Checked {
    check_program_with_imports(program, &[])
}

/// Type-checks `program` with the files it imports (already parsed by the caller, in any
/// order, each once): their functions and types are visible as if defined at the top.
pub fn check_program_with_imports(
    program: &ast::Program,
    imports: &[(&str, &ast::Program)],
) -> Checked {
    check_program_in(program, imports, &[])
}

/// [`check_program_with_imports`], where `unavailable` lists the imports that provide nothing
/// here (a library module not shipped, a native library): a use of a name they would have
/// defined is an error naming them.
pub fn check_program_in(
    program: &ast::Program,
    imports: &[(&str, &ast::Program)],
    unavailable: &[Unavailable],
) -> Checked {
    check_program_main(program, imports, unavailable, None)
}

/// [`check_program_in`]; with `main_args`, `main` is instantiated as a command line calls it
/// (manual §13.1): with arguments of these types (`scalar` or `string`; a parameter's declared
/// type wins), the parameters not given computing their defaults. It becomes the module's
/// `main` also when it has parameters.
pub fn check_program_main(
    program: &ast::Program,
    imports: &[(&str, &ast::Program)],
    unavailable: &[Unavailable],
    main_args: Option<&[Type]>,
) -> Checked {
    // Shared memory designators become `shared(…)` and loops over the block first.
    let mut desugar_diags = Vec::new();
    let designated = shared_designators::rewrite(program, &mut desugar_diags);
    let imported: Vec<_> =
        imports.iter().map(|(_, p)| shared_designators::rewrite(p, &mut desugar_diags)).collect();
    // `$specialize(f, …)` names a specialized copy of `f` (manual §6.5).
    let imported_refs: Vec<&ast::Program> = imported.iter().map(|p| p.as_ref()).collect();
    let program = specialize::rewrite(&designated, &imported_refs, &mut desugar_diags);
    let program = program.as_ref();
    let bodies: Vec<&[ast::Stmt]> = imported.iter().map(|p| p.body.as_slice()).collect();
    let decls = Decls::collect_with_imports(&program.body, &bodies);
    let mut cx = Checker::new(decls);
    cx.diags.append(&mut desugar_diags);
    let reductions = cx.decls.reductions.clone();
    cx.rules = reductions::prepare(&reductions, &mut cx.diags);
    cx.reduction_safety = reductions_safety::safety_level(&program.body, &mut cx.diags);
    cx.show_reductions = reductions_show::switches(&program.body, &mut cx.diags);
    let top_level = reductions_safety::top_level_names(&program.body);
    reductions_safety::check_definitions(
        &cx.rules,
        &cx.decls,
        &top_level,
        cx.reduction_safety,
        &mut cx.diags,
    );
    cx.unavailable = unavailable.to_vec();
    let loaded: Vec<&str> = imports.iter().map(|(path, _)| *path).collect();
    cx.check_imports(&loaded);
    let script_env = cx.check_script(program);
    let main = main_args.and_then(|args| cx.instantiate_main(args, &script_env, program.span));
    cx.check_uncalled_functions(&script_env);
    if main.is_some() {
        cx.module.main = main;
    }
    let roots = cx.live_roots();
    crate::ir::prune::prune(&mut cx.module, &roots);
    crate::ir::number::number_module(&mut cx.module);
    // The IR contract holds for every program checked in tests and debug builds.
    #[cfg(debug_assertions)]
    let verified = crate::ir::verify::check_after(
        &cx.module,
        crate::ir::verify::Expect {
            numbered: true,
            concrete_calls: false,
            resolved_precision: false,
        },
        "type checking",
    );
    let mut diagnostics = std::mem::take(&mut cx.diags);
    diagnostics.sort_by_key(|d| (d.span.file, d.span.start));
    // The same message at the same place once, however many instances of a function or
    // passes over it reported it.
    let mut seen = HashSet::new();
    diagnostics.retain(|d| seen.insert((d.span.file, d.span.range(), d.message.clone())));
    #[cfg(debug_assertions)]
    if !diagnostics.iter().any(|d| d.is_error()) {
        diagnostics.extend(verified);
    }
    Checked { module: cx.module, diagnostics }
}

/// What a call instantiates: a named definition or a lambda expression (by its position).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum DefKey {
    Function(FnDeclId),
    Lambda(u32, u32),
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct InstanceKey {
    def: DefKey,
    args: Vec<Type>,
    /// The explicit generic arguments (`f[int]`, `hist_kernel[256]`); for a lambda called
    /// through its closure class, the types of the captured values (`closure_class.rs`).
    generics: Vec<GenericArg>,
    /// A lambda's declared result type, which types an inner lambda body.
    result: Option<Type>,
}

pub(crate) struct Checker<'a> {
    decls: Decls<'a>,
    diags: Vec<Diagnostic>,
    module: ir::Module,
    instances: HashMap<InstanceKey, FunctionId>,
    /// Instances being lowered right now (a call back into one is recursion).
    in_progress: HashSet<InstanceKey>,
    /// Recursive instances being lowered: their placeholders (`recursion.rs`).
    pending: HashMap<InstanceKey, recursion::Pending>,
    called: HashSet<FnDeclId>,
    /// Instances made to check functions that nothing calls (with their definition): kept
    /// when pruning, unless a call made a real instance of the same definition later.
    roots: Vec<(FnDeclId, FunctionId)>,
    depth: u32,
    /// Imports that provide nothing here (`unavailable.rs`).
    unavailable: Vec<Unavailable>,
    /// The program's reductions (`reductions.rs`).
    rules: Vec<reductions::Rule<'a>>,
    /// The closure classes of untyped lambdas (`closure_class.rs`), by `ClassId` from
    /// `ClassId::CLOSURE_BASE`.
    closure_classes: Vec<closure_class::ClosureClass<'a>>,
    /// Calls in nested functions through captured variables whose function values have no
    /// one type (`common_fn_type.rs`).
    captured_calls: common_fn_type::CapturedCalls,
    /// The calls each instance makes through its parameters (`fn_args.rs`), and those of the
    /// body lowered last, until its instance has an id.
    param_calls: HashMap<FunctionId, Vec<common_fn_type::ParamCall>>,
    finished_param_calls: Vec<common_fn_type::ParamCall>,
    /// How unsafe reductions are reported (`reductions_safety.rs`).
    reduction_safety: reductions_safety::SafetyLevel,
    /// Where `#pragma show_reductions` switches the notes on and off (`reductions_show.rs`).
    show_reductions: reductions_show::Switches,
}

/// The argument type a function is checked with when nothing calls it: its declared type,
/// except that a type class (`x : [mat|cmat]`) stands for whichever member a call passes.
pub(crate) fn generic_arg(declared: Type) -> Type {
    match declared {
        Type::Union(_) => Type::Unknown,
        t => t,
    }
}

/// The argument type an instance is specialised on: small arrays of known size (at most
/// 64 elements, kept in registers, manual §2.4.1) keep their size; larger ones only their
/// rank, so that images of every size share one instance.
fn instance_arg(t: &Type) -> Type {
    match t {
        Type::Array(a) => {
            let small = a.shape.as_ref().and_then(|s| {
                s.iter().try_fold(1u64, |n, d| match d {
                    super::types::Dim::Known(k) => n.checked_mul(*k),
                    _ => None,
                })
            });
            match small {
                Some(n) if n <= 64 => t.clone(),
                _ if a.shape.is_none() => t.clone(),
                // Keep the known small dimensions (`cube(:, :, 3)`), forget the large ones.
                _ => {
                    let mut a = (**a).clone();
                    if let Some(shape) = &mut a.shape {
                        for d in shape.iter_mut() {
                            if matches!(d, super::types::Dim::Known(k) if *k > 64) {
                                *d = super::types::Dim::Unknown;
                            }
                        }
                        if shape.iter().all(|d| *d == super::types::Dim::Unknown) {
                            a.shape = None;
                        }
                    }
                    Type::Array(Box::new(a))
                }
            }
        }
        t => t.clone(),
    }
}

/// How deep instantiations may nest before the checker gives up (runaway recursion through
/// ever-changing argument types).
const MAX_INSTANTIATION_DEPTH: u32 = 256;

impl<'a> Checker<'a> {
    fn new(decls: Decls<'a>) -> Checker<'a> {
        Checker {
            decls,
            diags: Vec::new(),
            module: ir::Module::default(),
            instances: HashMap::new(),
            in_progress: HashSet::new(),
            pending: HashMap::new(),
            called: HashSet::new(),
            roots: Vec::new(),
            depth: 0,
            unavailable: Vec::new(),
            rules: Vec::new(),
            closure_classes: Vec::new(),
            captured_calls: Default::default(),
            param_calls: HashMap::new(),
            finished_param_calls: Vec::new(),
            reduction_safety: reductions_safety::SafetyLevel::default(),
            show_reductions: Vec::new(),
        }
    }

    fn check_imports(&mut self, loaded: &[&str]) {
        for (path, span) in self.decls.imports.clone() {
            if loaded.contains(&path.as_str()) {
                continue;
            }
            self.diags.push(
                Diagnostic::warning(span, format!("`{path}` was not loaded: its definitions are unknown here"))
                    .with_note("imports are resolved by the driver (`quasar check` loads files relative to the importing file)"),
            );
        }
    }

    /// Lowers the top-level statements into the script instance; returns the script's
    /// variables for the functions that capture them.
    fn check_script(&mut self, program: &'a ast::Program) -> Rc<OuterEnv<'a>> {
        let mut lowerer = FnLowerer::new(self, ScopeId::Script, FunctionKind::Host, None);
        lowerer.name = "<script>".into();
        let (mut function, env) = lowerer.lower_body(&program.body, program.span, &[], &[]);
        function.locals = std::mem::take(&mut lowerer.locals);
        let id = self.push_function(function);
        self.module.script = Some(id);
        env
    }

    /// Checks every function that no call instantiated, with its declared parameter types.
    fn check_uncalled_functions(&mut self, script_env: &Rc<OuterEnv<'a>>) {
        // Functions whose parameters all have types first: the calls they make instantiate
        // the others for real types, instead of a check with `??` parameters (whose
        // warnings, `??` converted to a number, would not apply to any real call).
        let untyped = |cx: &Self, id: FnDeclId| {
            cx.decls.function(id).def.params.iter().any(|p| p.ty.is_none())
        };
        let mut order: Vec<FnDeclId> =
            (0..self.decls.functions.len()).map(|i| FnDeclId(i as u32)).collect();
        order.sort_by_key(|&id| untyped(self, id));
        for id in order {
            if self.called.contains(&id) {
                continue;
            }
            let def = self.decls.function(id).def;
            let args: Vec<Type> =
                def.params.iter().map(|p| generic_arg(self.declared_param_type(def, p))).collect();
            let env =
                (self.decls.function(id).parent == ScopeId::Script).then(|| script_env.clone());
            if let Some(f) = self.instantiate(id, args, Vec::new(), def.name.span, env) {
                self.roots.push((id, f));
            }
        }
        // `main` without parameters runs after the script (manual §13.1).
        if let Some(ids) = self.decls.lookup_function(ScopeId::Script, "main").map(<[_]>::to_vec) {
            if let Some(&m) = ids.iter().find(|&&i| self.decls.function(i).def.params.is_empty()) {
                let key = InstanceKey {
                    def: DefKey::Function(m),
                    args: Vec::new(),
                    generics: Vec::new(),
                    result: None,
                };
                self.module.main = self.instances.get(&key).copied();
            }
        }
    }

    /// Instantiates `main` for a command line with arguments of the types `given` (the
    /// variadic parameter, if any, takes the rest as a vector, of scalars when none is given).
    fn instantiate_main(
        &mut self,
        given: &[Type],
        script_env: &Rc<OuterEnv<'a>>,
        span: Span,
    ) -> Option<FunctionId> {
        let ids = self.decls.lookup_function(ScopeId::Script, "main").map(<[_]>::to_vec);
        let Some(ids) = ids.filter(|ids| !ids.is_empty()) else {
            if !given.is_empty() {
                self.diags.push(Diagnostic::error(
                    Span { end: span.start, ..span },
                    format!(
                        "the command line gives {} argument(s), but this program has no `main` function to take them",
                        given.len()
                    ),
                ).with_note("define `function [] = main(a : scalar, b : string)` (manual §13.1)"));
            }
            return None;
        };
        let accepts = |d: &ast::FunctionDef| {
            let required = d.params.iter().filter(|p| p.default.is_none() && !p.variadic).count();
            let variadic = d.params.last().is_some_and(|p| p.variadic);
            given.len() >= required && (variadic || given.len() <= d.params.len())
        };
        let Some(&decl) = ids.iter().find(|&&i| accepts(self.decls.function(i).def)) else {
            let def = self.decls.function(ids[0]).def;
            let names: Vec<&str> = def.params.iter().map(|p| p.name.name.as_str()).collect();
            self.diags.push(
                Diagnostic::error(
                    def.name.span,
                    format!(
                        "`main({})` cannot be called with the {} argument(s) of the command line",
                        names.join(", "),
                        given.len()
                    ),
                )
                .with_note("the command line passes its arguments to `main` in order; parameters with a default value may be left out (manual §13.1)"),
            );
            return None;
        };
        let def = self.decls.function(decl).def;
        let mut args = Vec::new();
        for (i, p) in def.params.iter().enumerate() {
            let declared = generic_arg(self.declared_param_type(def, p));
            let declared = declared.is_concrete().then_some(declared);
            if p.variadic {
                let first = given.get(i).cloned().unwrap_or(Type::SCALAR);
                let elem = match declared {
                    Some(Type::Array(a)) => a.elem.clone(),
                    _ => first,
                };
                args.push(elem);
                break;
            }
            // The first parameter not given and the rest: defaults, an empty rest.
            let Some(t) = given.get(i) else { break };
            args.push(declared.unwrap_or_else(|| t.clone()));
        }
        self.instantiate(decl, args, Vec::new(), def.name.span, Some(script_env.clone()))
    }

    /// The instances to keep: the script, `main`, and each check of an uncalled function
    /// unless the program also has a real (called) instance of that definition.
    fn live_roots(&mut self) -> Vec<FunctionId> {
        let callees = crate::ir::prune::callee_lists(&self.module);
        let mut base: Vec<FunctionId> =
            self.module.script.into_iter().chain(self.module.main).collect();
        let decl_of: HashMap<FunctionId, FnDeclId> = self
            .instances
            .iter()
            .filter_map(|(k, id)| match k.def {
                DefKey::Function(d) => Some((*id, d)),
                DefKey::Lambda(..) => None,
            })
            .collect();
        for (i, &(decl, root)) in self.roots.iter().enumerate() {
            let others: Vec<FunctionId> = base
                .iter()
                .copied()
                .chain(self.roots.iter().enumerate().filter(|(j, _)| *j != i).map(|(_, r)| r.1))
                .collect();
            let live = crate::ir::prune::reachable(&callees, &others);
            let replaced = live.iter().any(|f| *f != root && decl_of.get(f) == Some(&decl));
            if !replaced {
                base.push(root);
            }
        }
        base
    }

    /// A parameter's declared type with generic parameters left as `Type::Param`.
    pub(super) fn declared_param_type(&mut self, def: &ast::FunctionDef, p: &ast::Param) -> Type {
        let Some(t) = &p.ty else { return Type::Unknown };
        let params: HashMap<String, Type> = def
            .type_params
            .iter()
            .map(|tp| (tp.name.name.clone(), Type::Param(tp.name.name.clone())))
            .collect();
        let sizes = HashMap::new();
        let env = TypeEnv { decls: &self.decls, params: &params, sizes: &sizes };
        let mut scratch = Vec::new();
        env.resolve(t, &mut scratch)
    }

    fn push_function(&mut self, f: ir::Function) -> FunctionId {
        let id = FunctionId(self.module.functions.len() as u32);
        self.module.functions.push(recursion::placeholder(&[], f.span));
        self.place_function(id, f);
        id
    }

    /// Puts instance `f` at `id` (a new slot, or a recursive instance's placeholder).
    fn place_function(&mut self, id: FunctionId, mut f: ir::Function) {
        if f.name == "<lambda>" {
            f.name = format!("<lambda@{}:{}>", f.span.line, f.span.col);
        }
        let base: String = f
            .name
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' })
            .collect();
        f.instance_name = format!("{}_{}", base.trim_matches('_'), id.0);
        self.module.functions[id.0 as usize] = f;
    }

    /// The instance of function `decl` for these argument types, lowering it on first use.
    /// `None` when it cannot be instantiated (recursion in progress, too deep).
    fn instantiate(
        &mut self,
        decl: FnDeclId,
        args: Vec<Type>,
        type_args: Vec<GenericArg>,
        call_span: Span,
        env: Option<Rc<OuterEnv<'a>>>,
    ) -> Option<FunctionId> {
        self.called.insert(decl);
        let args: Vec<Type> = args.iter().map(instance_arg).collect();
        let key = InstanceKey {
            def: DefKey::Function(decl),
            args: args.clone(),
            generics: type_args.clone(),
            result: None,
        };
        let mut key = self.key_for_captures(key, env.as_deref());
        // A nested function reads the enclosing instance's size parameters: one instance
        // per binding of them.
        if let Some(e) = env.as_deref() {
            let mut sizes: Vec<(&String, &u64)> = e.sizes.iter().collect();
            sizes.sort();
            key.generics.extend(sizes.into_iter().map(|(_, n)| GenericArg::Size(*n)));
        }
        if let Some(&id) = self.instances.get(&key) {
            return Some(id);
        }
        let def = self.decls.function(decl).def;
        if self.in_progress.contains(&key) {
            return Some(self.recursive_call(&key, def.outputs.len(), call_span));
        }
        if self.depth >= MAX_INSTANTIATION_DEPTH {
            self.diags.push(Diagnostic::error(call_span, "functions instantiate each other too deeply")
                .with_note("each call with new argument types creates a new instance; give the parameters types"));
            return None;
        }
        Some(self.lower_instance(key, &mut |cx| {
            let mut lowerer = FnLowerer::new(cx, ScopeId::Function(decl), def.kind, env.clone());
            lowerer.lower_function(def, &args, &type_args, call_span)
        }))
    }

    /// `key`, or, when the instance made for `key` captured variables that have other types
    /// in `env` (the same lambda or nested function evaluated where a captured variable is an
    /// `int` once and a `vec` later: `offset_by(2)` and `offset_by(x)`), `key` with those
    /// types added to its generic arguments: an instance of its own.
    fn key_for_captures(&self, key: InstanceKey, env: Option<&OuterEnv<'a>>) -> InstanceKey {
        let (Some(env), Some(&id)) = (env, self.instances.get(&key)) else { return key };
        let f = self.module.function(id);
        let mut same = true;
        let mut captured = Vec::new();
        // Every captured name, also those the body no longer reads: a captured lambda value
        // without fields is called directly (`f(g(x))` calls `inc`), so its type decides the
        // body though the value is not passed.
        for local in f.locals.iter().filter(|l| l.role == ir::LocalRole::Capture) {
            let now = env.find(&local.name).map_or(Type::Unknown, |(t, _)| t.clone());
            same &= now == local.ty;
            captured.push(GenericArg::Type(now));
        }
        if same {
            return key;
        }
        let mut key = key;
        key.generics.extend(captured);
        key
    }

    /// The instance of a lambda expression for these argument types.
    fn instantiate_lambda(
        &mut self,
        lambda: &'a ast::Lambda,
        span: Span,
        scope: ScopeId,
        args: Vec<Type>,
        result: Option<Type>,
        env: Rc<OuterEnv<'a>>,
    ) -> Option<FunctionId> {
        self.instantiate_lambda_capturing(lambda, span, scope, args, result, env, Vec::new())
    }

    /// [`Self::instantiate_lambda`] where `captured` are the types of the values a closure
    /// class holds (one instance per captured types too: `add(1)` and `add(1.5)` differ).
    #[allow(clippy::too_many_arguments)]
    fn instantiate_lambda_capturing(
        &mut self,
        lambda: &'a ast::Lambda,
        span: Span,
        scope: ScopeId,
        args: Vec<Type>,
        result: Option<Type>,
        env: Rc<OuterEnv<'a>>,
        captured: Vec<Type>,
    ) -> Option<FunctionId> {
        let key = InstanceKey {
            def: DefKey::Lambda(span.file.0, span.start),
            args: args.clone(),
            generics: captured.into_iter().map(GenericArg::Type).collect(),
            result: result.clone(),
        };
        let key = self.key_for_captures(key, Some(&*env));
        if let Some(&id) = self.instances.get(&key) {
            return Some(id);
        }
        if self.in_progress.contains(&key) {
            // A lambda has one result (a kernel lambda none, and it is never called).
            let outputs = usize::from(lambda.kind != crate::syntax::ast::FunctionKind::Kernel);
            return Some(self.recursive_call(&key, outputs, span));
        }
        if self.depth >= MAX_INSTANTIATION_DEPTH {
            return None;
        }
        Some(self.lower_instance(key, &mut |cx| {
            let mut lowerer = FnLowerer::new(cx, scope, lambda.kind, Some(env.clone()));
            lowerer.expected_result = result.clone();
            lowerer.lower_lambda(lambda, span, &args)
        }))
    }
}

#[cfg(test)]
mod real_code_tests;
#[cfg(test)]
mod tests;
