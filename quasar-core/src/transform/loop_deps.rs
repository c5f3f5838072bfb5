//! The dependency analysis of the loop parallelizer (manual §8.2, §17.1.1): whether the
//! iterations of a nest of `for` loops may run as the threads of a kernel.
//!
//! They may when, for the body of the innermost parallel loop,
//! * every variable it assigns is private to an iteration: assigned before any read in the
//!   body and not read after the loop (its last value is never observed);
//! * every array it writes is accessed, in reads and writes alike, with each parallel loop
//!   variable as one fixed subscript (`y[m, n, k]` for loops over `m` and `n`), so that two
//!   iterations never touch the same element; arrays it only reads may be read anywhere;
//! * it uses only what a kernel can: numbers, arrays and small vectors of a known type,
//!   `__device__` functions and the built-ins available in kernels, no `break`/`continue` of
//!   the parallel loops, no `print`, no nested `parallel_do`.
//!
//! Arrays are not assumed to alias unless one local is assigned from another in the function;
//! two parameters bound to the same array by the caller are not detected.

use super::loop_uses::{first_use, Use};
use crate::analysis::ModuleInfo;
use crate::ir::AssignOp;
use crate::ir::{
    Block, Builtin, Callee, Expr, ExprKind, Function, Index, LocalId, Module, PlaceKind, Stmt,
    StmtKind,
};
use crate::sema::types::{Dim, Type};
use crate::span::Span;
use crate::syntax::ast::FunctionKind;
use std::collections::BTreeSet;

/// Why a nest cannot run as a kernel.
#[derive(Clone, Debug, PartialEq)]
pub enum Problem {
    /// Something a kernel cannot do: never parallelised, even under `{!parallel for}`.
    Unsupported(String, Span),
    /// Iterations that depend on each other: `{!parallel for}` parallelises anyway.
    Dependency(String, Span),
}

impl Problem {
    /// The explanation and where it applies.
    pub fn message(&self) -> (&str, Span) {
        match self {
            Problem::Unsupported(m, s) | Problem::Dependency(m, s) => (m, *s),
        }
    }
}

/// What a kernel made of the nest needs.
#[derive(Debug, Default)]
pub struct Plan {
    /// Variables private to an iteration (assigned in the body, inner loop variables).
    pub privates: BTreeSet<LocalId>,
    /// Variables of the function the body reads and never assigns: the kernel's arguments.
    pub inputs: BTreeSet<LocalId>,
    /// A variable the loop only accumulates into (`s += e`, `s` read nowhere else in it; or
    /// `*=`, `^^=`, `__=`), with that operator: the kernel's output, reduced over the
    /// iterations.
    pub reduction: Option<(LocalId, AssignOp)>,
    /// The first dependency found, when `{!parallel for}` may ignore it.
    pub dependency: Option<Problem>,
}

/// The operator of `l`'s accumulation when every use of `l` in `body` is `l op= e` with `e`
/// not reading `l`, for one `op` of `+=`, `*=`, `^^=` (maximum) and `__=` (minimum, the
/// last two on real numbers only).
fn accumulation(body: &Block, l: LocalId, real: bool) -> Option<AssignOp> {
    let ok = std::cell::Cell::new(true);
    let bad = |b: bool| ok.set(ok.get() && !b);
    let found = std::cell::Cell::new(None);
    crate::ir::walk::walk_block(
        body,
        &mut |s| match &s.kind {
            StmtKind::Assign { place, op, .. } if matches!(place.kind, PlaceKind::Local(p) if p == l) =>
            {
                let allowed = match op {
                    AssignOp::Add | AssignOp::Mul => true,
                    AssignOp::Max | AssignOp::Min => real,
                    _ => false,
                };
                bad(!allowed || found.get().is_some_and(|f| f != *op));
                found.set(Some(*op));
            }
            StmtKind::Destructure { .. } => bad(true),
            StmtKind::ForRange { var, .. } => bad(*var == l),
            _ => {}
        },
        &mut |e| match &e.kind {
            ExprKind::Local(x) => bad(*x == l),
            ExprKind::Assign { .. } => bad(true),
            _ => {}
        },
    );
    found.get().filter(|_| ok.get())
}

/// Analyses the body of the innermost of the parallel loops `vars` (outermost first) in `f`;
/// `live_after(l)`: `l` may be read after the nest before being assigned.
pub fn analyse(
    m: &Module,
    info: &ModuleInfo,
    f: &Function,
    vars: &[LocalId],
    body: &Block,
    span: Span,
    live_after: &dyn Fn(LocalId) -> bool,
) -> Result<Plan, Problem> {
    let mut s = Scan {
        m,
        info,
        f,
        span,
        depth: 0,
        writes: BTreeSet::new(),
        used: BTreeSet::new(),
        accesses: Vec::new(),
        block_shared: BTreeSet::new(),
    };
    s.block(body)?;
    let mut plan = Plan::default();
    let name = |l: LocalId| f.local(l).name.clone();
    let mut dependency = None;
    for &v in vars {
        if s.writes.contains(&v) {
            let msg = format!("the loop variable `{}` is assigned inside the loop", name(v));
            return Err(Problem::Unsupported(msg, span));
        }
        if live_after(v) && dependency.is_none() {
            let msg = format!("the loop variable `{}` is read after the loop", name(v));
            dependency = Some(Problem::Dependency(msg, span));
        }
    }
    for &l in &s.writes {
        let ty = &f.local(l).ty;
        if s.block_shared.contains(&l) && !live_after(l) {
            plan.privates.insert(l);
            continue;
        }
        if !private_type(ty) {
            let msg = format!("`{}` ({ty}) is assigned inside the loop: parallelization of this operator requires dynamic kernel memory", name(l));
            return Err(Problem::Unsupported(msg, span));
        }
        if first_use(body, l) == Use::Read {
            // `s += e` (or `*=`, `^^=`, `__=`) as its only use: a reduction over the iterations.
            let real = !matches!(ty, Type::Complex(_));
            let op = (ty.is_int() || ty.is_scalar()).then(|| accumulation(body, l, real));
            if let (Some(Some(op)), None) = (op, plan.reduction) {
                plan.reduction = Some((l, op));
                continue;
            }
            let msg = format!(
                "`{}` is carried from one iteration to the next (it is read before it is assigned; only `{} += …` alone, or `*=`, `^^=`, `__=`, makes a reduction)",
                name(l),
                name(l)
            );
            return Err(Problem::Unsupported(msg, span));
        }
        if live_after(l) {
            let msg = format!("`{}` is assigned in the loop and read after it", name(l));
            return Err(Problem::Unsupported(msg, span));
        }
        plan.privates.insert(l);
    }
    for &l in &s.used {
        if s.writes.contains(&l) || vars.contains(&l) {
            continue;
        }
        let ty = &f.local(l).ty;
        if !input_type(ty) {
            return Err(type_problem(ty, &name(l), span));
        }
        plan.inputs.insert(l);
    }
    if dependency.is_none() {
        dependency = s.conflicts(vars, &name);
    }
    plan.dependency = dependency;
    Ok(plan)
}

/// `shared(…)` or `shared_zeros(…)`: an allocation in the block's shared memory.
fn is_shared_alloc(e: &Expr) -> bool {
    matches!(
        &e.kind,
        ExprKind::Call { callee: Callee::Builtin(Builtin::Shared | Builtin::SharedZeros), .. }
    )
}

/// A type a private variable of a kernel can have: a number or a small vector.
fn private_type(t: &Type) -> bool {
    t.is_number() || fixed_vector(t)
}

fn fixed_vector(t: &Type) -> bool {
    t.as_array().is_some_and(|a| {
        a.elem.is_number()
            && a.shape.as_ref().is_some_and(|s| s.iter().all(|d| matches!(d, Dim::Known(_))))
    })
}

/// A type a kernel argument can have: a number or an array of numbers.
fn input_type(t: &Type) -> bool {
    t.is_number() || t.as_array().is_some_and(|a| a.elem.is_number())
}

fn type_problem(t: &Type, name: &str, span: Span) -> Problem {
    let msg = match t {
        Type::String => "operations involving strings can currently not be parallelized".into(),
        Type::Class(_) => "operations involving objects can currently not be parallelized".into(),
        Type::Unknown | Type::Union(_) | Type::Param(_) => format!(
            "parallelization not possible because the variable `{name}` is polymorphic (not a unique type)"
        ),
        t => format!("`{name}` has type {t}, which a kernel cannot take"),
    };
    Problem::Unsupported(msg, span)
}

/// One use of an array: its subscripts when it is indexed (each one an integer, or `None`
/// for a range or list: `y[m, n, 0..2]` writes elements of row `m, n` only).
struct ArrayUse<'a> {
    array: LocalId,
    indices: Option<Vec<Option<&'a Expr>>>,
    write: bool,
    span: Span,
}

struct Scan<'a> {
    m: &'a Module,
    info: &'a ModuleInfo,
    f: &'a Function,
    span: Span,
    /// Loops inside the body around the current statement (`break` leaves one of them).
    depth: usize,
    writes: BTreeSet<LocalId>,
    used: BTreeSet<LocalId>,
    accesses: Vec<ArrayUse<'a>>,
    /// Arrays the body allocates in shared memory (`B = shared(M)`): one per block of
    /// threads, used by the body as in a kernel (their elements are no global accesses).
    block_shared: BTreeSet<LocalId>,
}

fn unsupported<T>(msg: impl Into<String>, span: Span) -> Result<T, Problem> {
    Err(Problem::Unsupported(msg.into(), span))
}

const PLACE_OUTSIDE: &str =
    "statement can not be parallelized; consider placing this outside the loop";

impl<'a> Scan<'a> {
    fn is_array(&self, l: LocalId) -> bool {
        let t = &self.f.local(l).ty;
        t.as_array().is_some() && !fixed_vector(t)
    }

    fn block(&mut self, b: &'a Block) -> Result<(), Problem> {
        b.iter().try_for_each(|s| self.stmt(s))
    }

    fn stmt(&mut self, s: &'a Stmt) -> Result<(), Problem> {
        match &s.kind {
            StmtKind::Assign { place, value, .. } => {
                match &place.kind {
                    PlaceKind::Local(l) if is_shared_alloc(value) => {
                        self.block_shared.insert(*l);
                        self.writes.insert(*l);
                        self.used.insert(*l);
                        let ExprKind::Call { args, .. } = &value.kind else { return Ok(()) };
                        return args.iter().try_for_each(|a| self.expr(a));
                    }
                    PlaceKind::Local(l) => {
                        if self.is_array(*l) {
                            let name = &self.f.local(*l).name;
                            let msg = format!("`{name}` is assigned a whole array inside the loop: parallelization of this operator requires dynamic kernel memory");
                            return unsupported(msg, s.span);
                        }
                        self.writes.insert(*l);
                        self.used.insert(*l);
                    }
                    // A component of a vector field (`a[i].v[k] = x`) writes an object.
                    PlaceKind::Index { base, .. }
                        if matches!(base.kind, ExprKind::Field { .. }) =>
                    {
                        return unsupported(
                            "operations involving objects can currently not be parallelized",
                            s.span,
                        )
                    }
                    PlaceKind::Index { base, indices } => {
                        self.index(base, indices, true, place.span)?;
                    }
                    PlaceKind::Field { .. } => {
                        return unsupported(
                            "operations involving objects can currently not be parallelized",
                            s.span,
                        )
                    }
                }
                self.expr(value)
            }
            StmtKind::Expr(e) => self.expr(e),
            StmtKind::If { cond, then_body, else_body } => {
                self.expr(cond)?;
                self.block(then_body)?;
                self.block(else_body)
            }
            StmtKind::ForRange { var, start, step, end, body, .. } => {
                self.writes.insert(*var);
                self.used.insert(*var);
                self.expr(start)?;
                self.expr(step)?;
                self.expr(end)?;
                self.nested(body)
            }
            StmtKind::While { cond, body } | StmtKind::Repeat { body, until: cond } => {
                self.expr(cond)?;
                self.nested(body)
            }
            StmtKind::Break if self.depth == 0 => {
                unsupported("break detected: the loop cannot be parallelized", s.span)
            }
            StmtKind::Continue if self.depth == 0 => {
                unsupported("continue detected: the loop cannot be parallelized", s.span)
            }
            StmtKind::Break | StmtKind::Continue => Ok(()),
            // A barrier of the block (the loop's body is a kernel's).
            StmtKind::SyncThreads => Ok(()),
            StmtKind::Return => {
                unsupported("`return` inside the loop cannot be parallelized", s.span)
            }
            StmtKind::Print(_) => unsupported(
                "`print` can not be parallelized; consider placing this outside the loop",
                s.span,
            ),
            _ => unsupported(PLACE_OUTSIDE, s.span),
        }
    }

    fn nested(&mut self, body: &'a Block) -> Result<(), Problem> {
        self.depth += 1;
        let r = self.block(body);
        self.depth -= 1;
        r
    }

    fn index(
        &mut self,
        base: &'a Expr,
        indices: &'a [Index],
        write: bool,
        span: Span,
    ) -> Result<(), Problem> {
        let ExprKind::Local(a) = base.kind else {
            self.expr(base)?;
            return indices.iter().try_for_each(|i| self.subscript(i));
        };
        self.used.insert(a);
        if self.block_shared.contains(&a) {
            return indices.iter().try_for_each(|i| self.subscript(i));
        }
        if !self.is_array(a) {
            // An element of a private small vector.
            if write {
                self.writes.insert(a);
            }
            return indices.iter().try_for_each(|i| self.subscript(i));
        }
        let each: Vec<Option<&Expr>> = indices
            .iter()
            .map(|i| match i {
                Index::At(e) if e.ty.is_int() => Some(e),
                _ => None,
            })
            .collect();
        self.accesses.push(ArrayUse { array: a, indices: Some(each), write, span });
        indices.iter().try_for_each(|i| self.subscript(i))
    }

    fn subscript(&mut self, i: &'a Index) -> Result<(), Problem> {
        match i {
            Index::At(e) | Index::List(e) | Index::Spread(e) => self.expr(e),
            Index::All => unsupported(
                "operator `:` can not be parallelized; consider using `a..b` instead",
                self.span,
            ),
            Index::Range { start, step, end } => {
                self.expr(start)?;
                if let Some(s) = step {
                    self.expr(s)?;
                }
                self.expr(end)
            }
        }
    }

    fn expr(&mut self, e: &'a Expr) -> Result<(), Problem> {
        match &e.ty {
            Type::String => {
                return unsupported(
                    "operations involving strings can currently not be parallelized",
                    e.span,
                )
            }
            Type::Class(_) => {
                return unsupported(
                    "operations involving objects can currently not be parallelized",
                    e.span,
                )
            }
            Type::Unknown | Type::Union(_) | Type::Param(_) => {
                return unsupported(
                    "parallelization not possible because a value is polymorphic (not a unique type)",
                    e.span,
                )
            }
            Type::Array(_) if !fixed_vector(&e.ty) && !matches!(e.kind, ExprKind::Local(_)) => {
                return unsupported(
                    "parallelization of this operator requires dynamic kernel memory (its result is an array of unknown size)",
                    e.span,
                )
            }
            _ => {}
        }
        match &e.kind {
            // A type as an argument (`cast(x, T)`) is resolved when compiling.
            ExprKind::Const(_) | ExprKind::EnumValue { .. } | ExprKind::TypeValue => Ok(()),
            ExprKind::Local(l) => {
                self.used.insert(*l);
                if self.is_array(*l) {
                    self.accesses.push(ArrayUse {
                        array: *l,
                        indices: None,
                        write: false,
                        span: e.span,
                    });
                }
                Ok(())
            }
            ExprKind::Unary { operand, .. } | ExprKind::Convert(operand) => self.expr(operand),
            ExprKind::Binary { lhs, rhs, .. } => {
                self.expr(lhs)?;
                self.expr(rhs)
            }
            ExprKind::Ternary { cond, then, otherwise } => {
                self.expr(cond)?;
                self.expr(then)?;
                self.expr(otherwise)
            }
            ExprKind::Matrix(items) | ExprKind::Sequence(items) => {
                items.iter().try_for_each(|i| self.expr(i))
            }
            ExprKind::Index { base, indices } => self.index(base, indices, false, e.span),
            ExprKind::Call { callee: Callee::Builtin(b), args } => self.builtin(*b, args, e.span),
            ExprKind::Call { callee: Callee::Function(id), args } => {
                let callee = self.m.function(*id);
                if callee.kind != FunctionKind::Device {
                    let msg = format!("function call `{}` can not be parallelized! Check if the function is declared with the `__device__` modifier", callee.name);
                    return unsupported(msg, e.span);
                }
                for (i, a) in args.iter().enumerate() {
                    let param = callee.params.iter().chain(&callee.captures).nth(i);
                    if let (ExprKind::Local(l), Some(p)) = (&a.kind, param) {
                        if self.is_array(*l) {
                            self.used.insert(*l);
                            let write = self.info.effects.of(*id, *p).write;
                            self.accesses.push(ArrayUse {
                                array: *l,
                                indices: None,
                                write,
                                span: a.span,
                            });
                            continue;
                        }
                    }
                    self.expr(a)?;
                }
                Ok(())
            }
            ExprKind::ParallelDo { .. } => {
                unsupported("a `parallel_do` inside the loop can not be parallelized", e.span)
            }
            _ => unsupported(PLACE_OUTSIDE, e.span),
        }
    }

    fn builtin(&mut self, b: Builtin, args: &'a [Expr], span: Span) -> Result<(), Problem> {
        let device = crate::sema::builtins::lookup(b.name()).is_some_and(|s| s.device);
        if !device {
            let msg = format!(
                "`{}` is not available in kernels: the loop cannot be parallelized",
                b.name()
            );
            return unsupported(msg, span);
        }
        // The size of an array is not an access of its elements.
        if matches!(b, Builtin::Size | Builtin::Numel | Builtin::Ndims) {
            if let Some(ExprKind::Local(l)) = args.first().map(|a| &a.kind) {
                self.used.insert(*l);
                return args[1..].iter().try_for_each(|a| self.expr(a));
            }
        }
        args.iter().try_for_each(|a| self.expr(a))
    }

    /// The first dependency between iterations among the array accesses.
    fn conflicts(&self, vars: &[LocalId], name: &dyn Fn(LocalId) -> String) -> Option<Problem> {
        let written: BTreeSet<LocalId> =
            self.accesses.iter().filter(|a| a.write).map(|a| a.array).collect();
        let loops = vars.iter().map(|v| format!("`{}`", name(*v))).collect::<Vec<_>>().join(", ");
        for &a in &written {
            let uses: Vec<&ArrayUse> = self.accesses.iter().filter(|u| u.array == a).collect();
            let bad = |span: Span| {
                let msg = format!("dependency on `{}`: other iterations may use the elements it writes (index every access of `{}` with the loop variable(s) {loops})", name(a), name(a));
                Some(Problem::Dependency(msg, span))
            };
            let Some(first) = uses[0].indices.as_ref() else { return bad(uses[0].span) };
            // The subscript of each loop variable in the first access.
            let mut slots = Vec::new();
            for v in vars {
                match first.iter().position(|e| e.is_some_and(|e| is_var(e, *v))) {
                    Some(p) => slots.push(p),
                    None => return bad(uses[0].span),
                }
            }
            for u in &uses {
                let ok = u.indices.as_ref().is_some_and(|ix| {
                    ix.len() == first.len()
                        && vars
                            .iter()
                            .zip(&slots)
                            .all(|(v, p)| ix[*p].is_some_and(|e| is_var(e, *v)))
                });
                if !ok {
                    return bad(u.span);
                }
            }
            for u in &self.accesses {
                if u.array != a && (self.copied(a) || self.copied(u.array)) {
                    let msg = format!("`{}` and `{}` may be the same array (one is assigned from another variable)", name(a), name(u.array));
                    return Some(Problem::Dependency(msg, u.span));
                }
            }
        }
        None
    }

    /// The function assigns `l` from another variable, or another variable from `l`.
    fn copied(&self, l: LocalId) -> bool {
        let mut found = false;
        crate::ir::walk::walk_block(
            &self.f.body,
            &mut |s| {
                if let StmtKind::Assign { place, op: AssignOp::Assign, value } = &s.kind {
                    if let (PlaceKind::Local(p), ExprKind::Local(v)) = (&place.kind, &value.kind) {
                        found |= *p == l || *v == l;
                    }
                }
            },
            &mut |_| {},
        );
        found
    }
}

/// `e` is the loop variable `v` (maybe converted).
fn is_var(e: &Expr, v: LocalId) -> bool {
    match &e.kind {
        ExprKind::Local(l) => *l == v,
        ExprKind::Convert(x) => is_var(x, v),
        _ => false,
    }
}
