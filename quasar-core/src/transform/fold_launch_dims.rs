//! Launches over more than three dimensions (`parallel_do([a, b, c, d], …, k)` with
//! `pos : ivec4`, as real code's `im2col` writes it): CUDA grids have three dimensions, so
//! the dimensions from the third on are folded into one. The launch becomes
//! `parallel_do([a, b, c * d], …)` with the folded extents after `c` passed as extra
//! arguments, and the kernel gets a three-dimensional position from which its first statement
//! rebuilds the original one (`pos = [p[0], p[1], p[2] / d, p[2] % d]`). The last dimension
//! stays the fastest-varying one, so memory accesses keep their order on both back ends.
//!
//! A kernel is folded only when every use is such a launch (no block dimensions, its
//! dimensions a vector literal, a variable or `size(…)`) and `pos` is its only geometry
//! parameter;
//! otherwise the back ends' error for kernels over more than three dimensions stands.

use crate::ir::visit::{walk_expr, walk_expr_mut, Visit, VisitMut};
use crate::ir::{
    AssignOp, BinaryOp, Const, Expr, ExprKind, FunctionId, Index, Local, LocalId, LocalRole,
    Module, Place, PlaceKind, Special, Stmt, StmtKind,
};
use crate::sema::types::Type;
use crate::span::Span;
use crate::syntax::ast::FunctionKind;
use std::collections::{BTreeMap, BTreeSet};

/// The most launch dimensions the back ends take.
const GRID_DIMS: usize = 3;

/// Folds the launch dimensions of kernels over more than three dimensions.
pub fn run(module: &mut Module, _cx: &super::PassContext) {
    let mut candidates: BTreeMap<FunctionId, usize> = BTreeMap::new();
    for (i, f) in module.functions.iter().enumerate() {
        if f.kind != FunctionKind::Kernel || f.generic {
            continue;
        }
        let geometry: Vec<&Local> =
            f.locals.iter().filter(|l| l.special().is_some_and(Special::is_geometry)).collect();
        if let [pos] = geometry.as_slice() {
            let rank = crate::analysis::kernel::geometry_rank(&pos.ty);
            if pos.special() == Some(Special::Pos) && rank.is_some_and(|r| r > GRID_DIMS && r <= 16)
            {
                candidates.insert(FunctionId(i as u32), rank.unwrap_or(0));
            }
        }
    }
    if candidates.is_empty() {
        return;
    }
    // Every use must be a launch this pass can rewrite.
    let mut uses = Uses { candidates: &candidates, refused: BTreeSet::new() };
    for f in &module.functions {
        f.body.iter().for_each(|s| uses.visit_stmt(s));
    }
    let refused = uses.refused;
    candidates.retain(|k, _| !refused.contains(k));
    // The extents each folded kernel takes, by kernel: (number of its argument parameters
    // before them, rank).
    let mut folded: BTreeMap<FunctionId, (usize, usize)> = BTreeMap::new();
    for (&k, &rank) in &candidates {
        let before = fold_kernel(module, k, rank);
        folded.insert(k, (before, rank));
    }
    let mut launches = Launches { folded: &folded };
    for f in &mut module.functions {
        launches.visit_block_mut(&mut f.body);
    }
}

/// Finds the kernels among `candidates` used other than in a launch this pass rewrites.
struct Uses<'a> {
    candidates: &'a BTreeMap<FunctionId, usize>,
    refused: BTreeSet<FunctionId>,
}

impl<'a> Visit<'a> for Uses<'_> {
    fn visit_expr(&mut self, e: &'a Expr) {
        match &e.kind {
            ExprKind::FunctionRef(id) if self.candidates.contains_key(id) => {
                self.refused.insert(*id);
            }
            ExprKind::ParallelDo { dims, block_dims, kernel, .. }
                if self.candidates.contains_key(kernel) =>
            {
                // Dimensions read once per component: a literal, a variable or `size(…)`.
                let simple = matches!(
                    &dims.kind,
                    ExprKind::Matrix(_)
                        | ExprKind::Local(_)
                        | ExprKind::Call {
                            callee: crate::ir::Callee::Builtin(crate::ir::Builtin::Size),
                            ..
                        }
                );
                if block_dims.is_some() || !simple {
                    self.refused.insert(*kernel);
                }
            }
            _ => {}
        }
        walk_expr(self, e);
    }
}

fn int(v: i64, span: Span) -> Expr {
    Expr::new(ExprKind::Const(Const::Int(v)), Type::INT, span)
}

fn local(l: LocalId, ty: &Type, span: Span) -> Expr {
    Expr::new(ExprKind::Local(l), ty.clone(), span)
}

fn binary(op: BinaryOp, a: Expr, b: Expr) -> Expr {
    let span = a.span;
    Expr::new(ExprKind::Binary { op, lhs: Box::new(a), rhs: Box::new(b) }, Type::INT, span)
}

/// Component `k` of the vector `v`.
fn component(v: &Expr, k: usize) -> Expr {
    let span = v.span;
    let indices = vec![Index::At(int(k as i64, span))];
    Expr::new(ExprKind::Index { base: Box::new(v.clone()), indices }, Type::INT, span)
}

/// Rewrites kernel `k` (position of `rank` components) to a three-dimensional position and
/// extra `int` parameters for the extents of dimensions 3.. of the launch; the number of its
/// argument parameters before those.
fn fold_kernel(module: &mut Module, k: FunctionId, rank: usize) -> usize {
    let f = &mut module.functions[k.0 as usize];
    let span = f.span;
    let before = f.params.iter().filter(|p| f.locals[p.0 as usize].special().is_none()).count();
    let Some(old) = f.params.iter().copied().find(|p| f.locals[p.0 as usize].special().is_some())
    else {
        return before;
    };
    let old_ty = f.locals[old.0 as usize].ty.clone();
    let name = f.locals[old.0 as usize].name.clone();
    // The original position becomes a variable; a new `pos : ivec3` takes its place.
    f.locals[old.0 as usize].role = LocalRole::Var;
    let grid_ty = Type::vec_n(Type::INT, GRID_DIMS as u64);
    let pos = LocalId(f.locals.len() as u32);
    f.locals.push(Local {
        name: name.clone(),
        ty: grid_ty.clone(),
        role: LocalRole::Special(Special::Pos),
        span,
    });
    for p in f.params.iter_mut() {
        if *p == old {
            *p = pos;
        }
    }
    let mut extents = Vec::new();
    for d in GRID_DIMS..rank {
        let e = LocalId(f.locals.len() as u32);
        f.locals.push(Local {
            name: format!("{name}_extent{d}"),
            ty: Type::INT,
            role: LocalRole::Param,
            span,
        });
        f.params.push(e);
        extents.push(local(e, &Type::INT, span));
    }
    // pos = [p[0], p[1], q / (e3 … e(r-1)), (q / (e4 … )) % e3, …, q % e(r-1)]
    let p = local(pos, &grid_ty, span);
    let q = component(&p, GRID_DIMS - 1);
    let mut items: Vec<Expr> = (0..GRID_DIMS - 1).map(|d| component(&p, d)).collect();
    for d in GRID_DIMS - 1..rank {
        // The extents after dimension d: q / their product, modulo d's own extent.
        let after = &extents[d + 1 - GRID_DIMS..];
        let mut x = q.clone();
        if let Some(prod) = after.iter().cloned().reduce(|a, b| binary(BinaryOp::Mul, a, b)) {
            x = binary(BinaryOp::Div, x, prod);
        }
        if d >= GRID_DIMS {
            x = call_mod(x, extents[d - GRID_DIMS].clone());
        }
        items.push(x);
    }
    let value = Expr::new(ExprKind::Matrix(items), old_ty.clone(), span);
    let place = Place::new(PlaceKind::Local(old), old_ty, span);
    let set = Stmt { kind: StmtKind::Assign { place, op: AssignOp::Assign, value }, span };
    f.body.insert(0, set);
    before
}

/// `mod(x, n)` of non-negative integers (the integer division's remainder).
fn call_mod(x: Expr, n: Expr) -> Expr {
    let span = x.span;
    let kind = ExprKind::Call {
        callee: crate::ir::Callee::Builtin(crate::ir::Builtin::Mod),
        args: vec![x, n],
    };
    Expr::new(kind, Type::INT, span)
}

/// Rewrites the launches of the folded kernels.
struct Launches<'a> {
    folded: &'a BTreeMap<FunctionId, (usize, usize)>,
}

impl VisitMut for Launches<'_> {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        walk_expr_mut(self, e);
        let ExprKind::ParallelDo { dims, kernel, args, .. } = &mut e.kind else { return };
        let Some(&(before, rank)) = self.folded.get(kernel) else { return };
        let span = dims.span;
        let each: Vec<Expr> = match &dims.kind {
            ExprKind::Matrix(items) if items.len() == rank => items.clone(),
            _ => (0..rank).map(|d| component(dims, d)).collect(),
        };
        let folded = each[GRID_DIMS - 1..]
            .iter()
            .cloned()
            .reduce(|a, b| binary(BinaryOp::Mul, a, b))
            .unwrap_or_else(|| int(1, span));
        let mut grid: Vec<Expr> = each[..GRID_DIMS - 1].to_vec();
        grid.push(folded);
        let grid_ty = Type::vec_n(Type::INT, GRID_DIMS as u64);
        **dims = Expr::new(ExprKind::Matrix(grid), grid_ty, span);
        crate::ir::number::clear_expr_ids(dims);
        let at = before.min(args.len());
        let mut extra: Vec<Expr> = each[GRID_DIMS..].to_vec();
        extra.iter_mut().for_each(crate::ir::number::clear_expr_ids);
        args.splice(at..at, extra);
    }
}

#[cfg(test)]
mod tests {
    use crate::driver::{compile, Options};

    fn after(src: &str) -> String {
        crate::transform::ir_after("fold-launch-dims", src)
    }

    #[test]
    fn a_four_dimensional_launch_is_folded_into_three() {
        let ir = after(
            "function [] = __kernel__ k(y : cube{4}, pos : ivec4)
                 y[pos] = pos[0] + 10 * pos[1] + 100 * pos[2] + 1000 * pos[3]
             endfunction
             function y = f(a : int, b : int, c : int, d : int)
                 y = zeros(a, b, c, d)
                 parallel_do([a, b, c, d], y, k)
             endfunction",
        );
        assert!(ir.contains("parallel_do([a{int}, b{int}, (c{int} * d{int}){int}]{ivec3}"), "{ir}");
        assert!(ir.contains("k_1, y{cube{4}[scalar'single]}, d{int})"), "{ir}");
        assert!(
            ir.contains("(y : cube{4}[scalar'single], pos : ivec3, pos_extent3 : int)"),
            "{ir}"
        );
        assert!(ir.contains("mod(pos{ivec3}[2{int}]{int}, pos_extent3{int})"), "{ir}");
    }

    #[test]
    fn dimensions_from_a_function_call_keep_four_dimensions_and_the_error() {
        // The call would be evaluated once per component: not folded.
        let src = "function n : ivec4 = dims4(a : int)
                 n = [a, a, a, a]
             endfunction
             function [] = __kernel__ k(y : cube{4}, pos : ivec4)
                 y[pos] = 1.0
             endfunction
             function y = f(a : int)
                 y = zeros(a, a, a, a)
                 parallel_do(dims4(a), y, k)
             endfunction";
        let opts = Options {
            back_ends: vec![crate::driver::BackEnd::Rust],
            ..Options::new("t.q", src, "t.q")
        };
        let (art, _) = compile(&opts);
        let errors: Vec<&str> =
            art.diagnostics.iter().filter(|d| d.is_error()).map(|d| d.message.as_str()).collect();
        assert!(errors.iter().any(|m| m.contains("more than three dimensions")), "{errors:?}");
    }
}
