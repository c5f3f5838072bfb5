//! Automatic loop parallelization (manual §8.2, §17.1.1): a nest of `for` loops in host code
//! whose iterations are independent ([`super::loop_deps`]) becomes a generated `__kernel__`
//! and one `parallel_do` over the loops' ranges, which both back ends compile like any
//! kernel (parallel blocks on the CPU, a grid on the GPU).
//!
//! The outermost loop is tried first, with as many perfectly nested loops (up to three, each
//! with step 1 and bounds computable before the loop) as stay independent; a loop that cannot
//! be parallelised runs serially and the loops inside it are tried in turn. In the kernel each
//! loop variable is `pos[k] + start`, so the interior pass sees the accesses as offsets of
//! `pos`. Array parameters the loop used with the host default keep host semantics
//! (`'checked`).
//!
//! `{!parallel for}` (`dim=N`) parallelises despite dependencies, with a warning, and makes a
//! loop that cannot become a kernel an error; `{!serial for}` keeps a loop serial. A loop
//! that writes array elements and stays serial gets a warning with the reason. `while` loops
//! stay serial.

use super::loop_deps::{self, Plan};
use super::loop_uses::{assigned_in, first_use, pure_bound, reads_outside, Use};
use super::PassContext;
use crate::analysis::ModuleInfo;
use crate::diagnostics::Diagnostic;
use crate::ir::visit::{walk_expr_mut, walk_place_mut, walk_stmt_mut, VisitMut};
use crate::ir::{AssignOp, BinaryOp};
use crate::ir::{
    Block, Builtin, Callee, Const, Expr, ExprKind, Function, FunctionId, Index, Local, LocalId,
    LocalRole, LoopHint, Module, Place, PlaceKind, Special, Stmt, StmtKind,
};
use crate::sema::types::{Access, Type};
use crate::span::Span;
use crate::syntax::ast::FunctionKind;
use std::collections::HashMap;

/// The most loops parallelised jointly (launches have at most three dimensions).
const MAX_DIMS: usize = 3;

/// Turns each independent loop nest of host code into a kernel and its `parallel_do`.
pub fn run(module: &mut Module, cx: &PassContext) {
    let info = ModuleInfo::of(module);
    let count = module.functions.len();
    for i in 0..count {
        let f = &module.functions[i];
        if f.generic || matches!(f.kind, FunctionKind::Kernel | FunctionKind::Device) {
            continue;
        }
        let mut body = f.body.clone();
        let mut p = Parallelizer {
            m: module,
            info: &info,
            host: FunctionId(i as u32),
            kernels: Vec::new(),
            diags: Vec::new(),
            pending: None,
        };
        p.block(&mut body, &mut Vec::new());
        let (kernels, diags) = (p.kernels, p.diags);
        module.functions[i].body = body;
        module.functions.extend(kernels);
        cx.report(diags);
    }
}

struct Parallelizer<'m> {
    m: &'m Module,
    info: &'m ModuleInfo,
    host: FunctionId,
    kernels: Vec<Function>,
    diags: Vec<Diagnostic>,
    /// The warning about the loop just considered, until the loops inside it are tried.
    pending: Option<Diagnostic>,
}

/// A path to a block: for each level, a statement's index and which of its blocks.
type Path = Vec<(usize, usize)>;

fn blocks(s: &Stmt) -> Vec<&Block> {
    match &s.kind {
        StmtKind::If { then_body, else_body, .. } => vec![then_body, else_body],
        StmtKind::ForRange { body, .. }
        | StmtKind::ForEach { body, .. }
        | StmtKind::While { body, .. }
        | StmtKind::Repeat { body, .. } => vec![body],
        StmtKind::Match { arms, default, .. } => {
            arms.iter().map(|a| &a.body).chain(default.iter()).collect()
        }
        StmtKind::Try { body, handler, .. } => vec![body, handler],
        _ => Vec::new(),
    }
}

fn blocks_mut(s: &mut Stmt) -> Vec<&mut Block> {
    match &mut s.kind {
        StmtKind::If { then_body, else_body, .. } => vec![then_body, else_body],
        StmtKind::ForRange { body, .. }
        | StmtKind::ForEach { body, .. }
        | StmtKind::While { body, .. }
        | StmtKind::Repeat { body, .. } => vec![body],
        StmtKind::Match { arms, default, .. } => {
            arms.iter_mut().map(|a| &mut a.body).chain(default.iter_mut()).collect()
        }
        StmtKind::Try { body, handler, .. } => vec![body, handler],
        _ => Vec::new(),
    }
}

fn block_at<'b>(root: &'b Block, path: &[(usize, usize)]) -> &'b Block {
    path.iter().fold(root, |b, &(i, k)| blocks(&b[i])[k])
}

fn block_at_mut<'b>(root: &'b mut Block, path: &[(usize, usize)]) -> &'b mut Block {
    let mut b = root;
    for &(i, k) in path {
        b = blocks_mut(&mut b[i]).swap_remove(k);
    }
    b
}

/// One loop of a nest.
struct Loop<'a> {
    var: LocalId,
    start: &'a Expr,
    end: &'a Expr,
    body: &'a Block,
}

impl<'m> Parallelizer<'m> {
    fn f(&self) -> &'m Function {
        self.m.function(self.host)
    }

    fn block(&mut self, root: &mut Block, path: &mut Path) {
        let len = block_at(root, path).len();
        for i in 0..len {
            if let Some(launch) = self.consider(root, path, i) {
                block_at_mut(root, path)[i] = launch;
                continue;
            }
            // The loops inside are tried in turn; the warning about this one is kept only
            // when none of them becomes a kernel (a serial time loop around parallel ones).
            let pending = self.pending.take();
            let kernels = self.kernels.len();
            let n = blocks(&block_at(root, path)[i]).len();
            for k in 0..n {
                path.push((i, k));
                self.block(root, path);
                path.pop();
            }
            if self.kernels.len() == kernels {
                self.diags.extend(pending);
            }
        }
    }

    /// The launch replacing statement `i` of the block at `path`, when it is a loop nest
    /// that becomes a kernel.
    fn consider(&mut self, root: &Block, path: &Path, i: usize) -> Option<Stmt> {
        let s = &block_at(root, path)[i];
        let StmtKind::ForRange { hint, .. } = &s.kind else { return None };
        let hint = *hint;
        if hint == LoopHint::Serial {
            return None;
        }
        let forced = matches!(hint, LoopHint::Parallel { .. });
        let nest = match self.nest(s) {
            Ok(n) => n,
            Err(msg) => {
                self.refuse(forced, s, &msg, s.span);
                return None;
            }
        };
        let (m, info, f) = (self.m, self.info, self.f());
        let live = |l: LocalId| live_after(f, root, path, i, l);
        let analyse = |d: usize| {
            let vars: Vec<LocalId> = nest[..d].iter().map(|l| l.var).collect();
            loop_deps::analyse(m, info, f, &vars, nest[d - 1].body, s.span, &live)
        };
        let dims: Vec<usize> = match hint {
            LoopHint::Parallel { dims: Some(d) } => {
                let d = d as usize;
                if d > nest.len() {
                    let msg = format!("`{{!parallel for; dim={d}}}` needs {d} perfectly nested `for` loops with step 1 and bounds known before the loop; found {}", nest.len());
                    self.refuse(true, s, &msg, s.span);
                    return None;
                }
                vec![d]
            }
            _ => (1..=nest.len()).rev().collect(),
        };
        let mut first_problem = None;
        for d in dims {
            match analyse(d) {
                Ok(plan) if plan.dependency.is_none() => {
                    return Some(self.launch(s, &nest[..d], plan))
                }
                Ok(plan) if forced => {
                    if let Some(p) = &plan.dependency {
                        let (msg, span) = p.message();
                        let at = line_note(s, span);
                        let d = Diagnostic::warning(s.span, format!("`{{!parallel for}}`: the loop is parallelized despite a possible data race: {msg}{at}"))
                            .with_note("the results may be wrong if iterations depend on each other");
                        self.diags.push(d);
                    }
                    return Some(self.launch(s, &nest[..d], plan));
                }
                Ok(plan) => first_problem = plan.dependency,
                Err(p) => first_problem = Some(p),
            }
        }
        if let Some(p) = first_problem {
            let (msg, span) = p.message();
            let msg = msg.to_string();
            self.refuse(forced, s, &msg, span);
        }
        None
    }

    /// A loop that stays serial: an error under `{!parallel for}`, a warning when it writes
    /// array elements (a loop the programmer likely meant to run in parallel).
    fn refuse(&mut self, forced: bool, s: &Stmt, msg: &str, span: Span) {
        let at = line_note(s, span);
        if forced {
            let d = Diagnostic::error(
                s.span,
                format!("`{{!parallel for}}`: the loop cannot be parallelized: {msg}{at}"),
            );
            self.diags.push(d);
        } else if writes_elements(s) {
            let d = Diagnostic::warning(
                s.span,
                format!("loop not parallelized (it runs serially): {msg}{at}"),
            )
            .with_note("`{!serial for}` before the loop keeps it serial without this warning");
            self.pending = Some(d);
        }
    }

    /// The perfectly nested loops starting at `s` (at most three) that can be launched.
    fn nest<'a>(&self, s: &'a Stmt) -> Result<Vec<Loop<'a>>, String> {
        let StmtKind::ForRange { body: outer, var, .. } = &s.kind else {
            return Err("not a range loop".into());
        };
        let mut assigned = assigned_in(outer);
        assigned.insert(*var, ());
        let ok = |l: LocalId| assigned.contains_key(&l);
        let mut out = Vec::new();
        let mut cur = s;
        while let StmtKind::ForRange { var, start, step, end, body, hint } = &cur.kind {
            if !out.is_empty() && *hint == LoopHint::Serial {
                break;
            }
            let simple = step.constant() == Some(&Const::Int(1))
                && self.f().local(*var).ty == Type::INT
                && start.ty == Type::INT
                && end.ty == Type::INT
                && pure_bound(start, &ok)
                && pure_bound(end, &ok);
            if !simple {
                if out.is_empty() {
                    return Err("only `for` loops with step 1 over `int` bounds computed before the loop (constants, variables, `size`, `numel`) are parallelized".into());
                }
                break;
            }
            out.push(Loop { var: *var, start, end, body });
            match body.as_slice() {
                [inner] if out.len() < MAX_DIMS => cur = inner,
                _ => break,
            }
        }
        Ok(out)
    }

    /// The kernel made of `nest` and the `parallel_do` that launches it.
    fn launch(&mut self, s: &Stmt, nest: &[Loop], plan: Plan) -> Stmt {
        let f = self.f();
        let span = s.span;
        let id = FunctionId((self.m.functions.len() + self.kernels.len()) as u32);
        let d = nest.len();
        let pos_ty = if d == 1 { Type::INT } else { Type::vec_n(Type::INT, d as u64) };
        let mut locals: Vec<Local> = Vec::new();
        let mut map: HashMap<LocalId, LocalId> = HashMap::new();
        let mut params = Vec::new();
        let mut args = Vec::new();
        let add = |locals: &mut Vec<Local>, name: &str, ty: Type, role: LocalRole| {
            locals.push(Local { name: name.to_string(), ty, role, span });
            LocalId(locals.len() as u32 - 1)
        };
        for &l in &plan.inputs {
            let local = f.local(l);
            let k = add(&mut locals, &local.name, host_access(&local.ty), LocalRole::Param);
            map.insert(l, k);
            params.push(k);
            args.push(Expr::new(ExprKind::Local(l), local.ty.clone(), span));
        }
        // Each loop variable is `pos[k] + start`; a start that is not a constant is passed.
        let mut starts = Vec::new();
        for lp in nest {
            if let Some(Const::Int(c)) = lp.start.constant() {
                starts.push(int(*c, span));
                continue;
            }
            let name = format!("{}_start", f.local(lp.var).name);
            let p = add(&mut locals, &name, Type::INT, LocalRole::Param);
            params.push(p);
            args.push(lp.start.clone());
            starts.push(Expr::new(ExprKind::Local(p), Type::INT, span));
        }
        for &l in &plan.privates {
            let local = f.local(l);
            map.insert(l, add(&mut locals, &local.name, local.ty.clone(), LocalRole::Var));
        }
        // An accumulated variable is the kernel's output: the launch gives the sum.
        let mut outputs = Vec::new();
        if let Some(l) = plan.reduction {
            let local = f.local(l);
            let k = add(&mut locals, &local.name, local.ty.clone(), LocalRole::Output);
            map.insert(l, k);
            outputs.push(k);
        }
        let pos = add(&mut locals, "pos", pos_ty.clone(), LocalRole::Special(Special::Pos));
        params.push(pos);
        let mut subst = HashMap::new();
        for (k, (lp, start)) in nest.iter().zip(starts).enumerate() {
            let component = if d == 1 {
                Expr::new(ExprKind::Local(pos), Type::INT, span)
            } else {
                let ix = vec![Index::At(int(k as i64, span))];
                let base = Box::new(Expr::new(ExprKind::Local(pos), pos_ty.clone(), span));
                Expr::new(ExprKind::Index { base, indices: ix }, Type::INT, span)
            };
            let value = match start.constant() {
                Some(Const::Int(0)) => component,
                _ => binary(BinaryOp::Add, component, start),
            };
            subst.insert(lp.var, value);
        }
        let mut body = nest[d - 1].body.clone();
        Remap { map: &map, locals: &locals, subst: &subst }.visit_block_mut(&mut body);
        crate::ir::number::clear_ids(&mut body);
        let base: String =
            f.instance_name.chars().filter(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
        self.kernels.push(Function {
            name: format!("parallel_for_line{}", span.line),
            instance_name: format!("{}_loop{}_{}", base.trim_matches('_'), span.line, id.0),
            kind: FunctionKind::Kernel,
            params,
            outputs,
            captures: Vec::new(),
            locals,
            body,
            top_level: false,
            generic: false,
            span,
            partition: None,
        });
        let counts: Vec<Expr> = nest.iter().map(|lp| count(lp.start, lp.end, span)).collect();
        let dims = if d == 1 {
            counts.into_iter().next().unwrap_or_else(|| int(0, span))
        } else {
            Expr::new(ExprKind::Matrix(counts), pos_ty, span)
        };
        let launch =
            ExprKind::ParallelDo { dims: Box::new(dims), block_dims: None, kernel: id, args };
        let ty = plan.reduction.map_or(Type::Tuple(Vec::new()), |l| f.local(l).ty.clone());
        let mut e = Expr::new(launch, ty.clone(), span);
        // The bounds are copies of the loop's expressions: they get fresh ids.
        ClearIds.visit_expr_mut(&mut e);
        let kind = match plan.reduction {
            Some(l) => {
                let place = Place::new(PlaceKind::Local(l), ty, span);
                StmtKind::Assign { place, op: AssignOp::Add, value: e }
            }
            None => StmtKind::Expr(e),
        };
        Stmt { kind, span }
    }
}

/// An array type as a kernel parameter with the host's boundary handling: an access the
/// host checks stays checked (the interior pass removes the checks it can prove).
fn host_access(t: &Type) -> Type {
    match t {
        Type::Array(a) if a.mods.access.is_none() => {
            let mut a = a.clone();
            a.mods.access = Some(Access::Checked);
            Type::Array(a)
        }
        t => t.clone(),
    }
}

/// ` (line N)` when the cause is on another line than the loop.
fn line_note(s: &Stmt, span: Span) -> String {
    if span.line == s.span.line {
        String::new()
    } else {
        format!(" (line {})", span.line)
    }
}

fn int(v: i64, span: Span) -> Expr {
    Expr::new(ExprKind::Const(Const::Int(v)), Type::INT, span)
}

fn binary(op: BinaryOp, lhs: Expr, rhs: Expr) -> Expr {
    let span = lhs.span;
    Expr::new(ExprKind::Binary { op, lhs: Box::new(lhs), rhs: Box::new(rhs) }, Type::INT, span)
}

/// The number of iterations of `start..end`: `end >= start ? end - start + 1 : 0`.
fn count(start: &Expr, end: &Expr, span: Span) -> Expr {
    if let (Some(Const::Int(a)), Some(Const::Int(b))) = (start.constant(), end.constant()) {
        return int((b - a + 1).max(0), span);
    }
    // `0..size(x, d) - 1` runs `size(x, d)` times, which is never negative.
    if let (Some(Const::Int(a)), ExprKind::Binary { op: BinaryOp::Sub, lhs, rhs }) =
        (start.constant(), &end.kind)
    {
        let extent = matches!(
            lhs.kind,
            ExprKind::Call { callee: Callee::Builtin(Builtin::Size | Builtin::Numel), .. }
        );
        if extent && lhs.ty == Type::INT && rhs.constant() == Some(&Const::Int(1 - a)) {
            return (**lhs).clone();
        }
    }
    let n = match start.constant() {
        Some(Const::Int(0)) => binary(BinaryOp::Add, end.clone(), int(1, span)),
        _ => binary(BinaryOp::Add, binary(BinaryOp::Sub, end.clone(), start.clone()), int(1, span)),
    };
    let cond = Box::new(binary(BinaryOp::Ge, end.clone(), start.clone()));
    let kind = ExprKind::Ternary { cond, then: Box::new(n), otherwise: Box::new(int(0, span)) };
    Expr::new(kind, Type::INT, span)
}

/// The loop body in the kernel: its locals renumbered, loop variables replaced.
struct Remap<'a> {
    map: &'a HashMap<LocalId, LocalId>,
    /// The kernel's locals (an array argument's type gains `'checked`).
    locals: &'a [Local],
    subst: &'a HashMap<LocalId, Expr>,
}

impl VisitMut for Remap<'_> {
    fn visit_stmt_mut(&mut self, s: &mut Stmt) {
        if let StmtKind::ForRange { var, .. } = &mut s.kind {
            *var = self.map[var];
        }
        walk_stmt_mut(self, s);
    }
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        if let ExprKind::Local(l) = e.kind {
            match self.subst.get(&l) {
                Some(x) => *e = Expr { span: e.span, ..x.clone() },
                None => {
                    let k = self.map[&l];
                    e.kind = ExprKind::Local(k);
                    e.ty = self.locals[k.0 as usize].ty.clone();
                }
            }
            return;
        }
        walk_expr_mut(self, e);
    }
    fn visit_place_mut(&mut self, p: &mut Place) {
        if let PlaceKind::Local(l) = &mut p.kind {
            *l = self.map[l];
        }
        walk_place_mut(self, p);
    }
}

struct ClearIds;

impl VisitMut for ClearIds {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        e.id = crate::ir::NodeId::NONE;
        walk_expr_mut(self, e);
    }
    fn visit_place_mut(&mut self, p: &mut Place) {
        p.id = crate::ir::NodeId::NONE;
        walk_place_mut(self, p);
    }
}

/// The loop (or what is inside it) assigns array elements.
fn writes_elements(s: &Stmt) -> bool {
    let mut found = false;
    crate::ir::walk::walk_block(
        std::slice::from_ref(s),
        &mut |s| {
            if let StmtKind::Assign { place, .. } = &s.kind {
                found |= matches!(place.kind, PlaceKind::Index { .. });
            }
        },
        &mut |_| {},
    );
    found
}

/// Whether `l` may be read after statement `i` of the block at `path` before it is assigned.
fn live_after(f: &Function, root: &Block, path: &Path, i: usize, l: LocalId) -> bool {
    let nest = &block_at(root, path)[i] as *const Stmt;
    for level in (0..=path.len()).rev() {
        let b = block_at(root, &path[..level]);
        let at = if level == path.len() { i } else { path[level].0 };
        match first_use(&b[at + 1..], l) {
            Use::Read => return true,
            Use::Assigned => return false,
            Use::Untouched => {}
        }
        if level == 0 {
            break;
        }
        // Inside an enclosing loop, the statements before this one run again.
        let outer = &block_at(root, &path[..level - 1])[path[level - 1].0];
        let again = match &outer.kind {
            StmtKind::ForRange { var, .. } | StmtKind::ForEach { var, .. } => {
                *var == l || reads_outside(outer, l, nest)
            }
            StmtKind::While { .. } | StmtKind::Repeat { .. } => reads_outside(outer, l, nest),
            _ => false,
        };
        if again {
            return true;
        }
    }
    f.outputs.contains(&l)
}

#[cfg(test)]
#[path = "parallel_loops_tests.rs"]
mod tests;
