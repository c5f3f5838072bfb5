//! The dimensions of a kernel's top-level shared arrays in terms the launch can compute
//! (manual §9.1, "shared memory"): `[M, N, P] = blkdim + [2, 0, 0]` then `vals = shared(M, N,
//! P)` sizes the array from `blkdim`. A local assigned once, at the top level before the
//! allocation, is replaced by its definition (a component of a destructured vector by that
//! component), so that the sizes read only `blkdim` and constants when the program's do.

use crate::ir::visit::{walk_expr_mut, VisitMut};
use crate::ir::{BinaryOp, Const, Expr, ExprKind, Index, LocalId, PlaceKind, Stmt, StmtKind};
use crate::sema::types::Type;
use std::collections::HashMap;

/// `dims` of the allocation at `body[at]`, with the locals defined once before it replaced
/// by their definitions; `assigned` lists every whole assignment of the body (with repeats).
pub(super) fn resolve(body: &[Stmt], at: usize, assigned: &[LocalId], dims: &[Expr]) -> Vec<Expr> {
    let once = |l: LocalId| assigned.iter().filter(|k| **k == l).count() == 1;
    let mut defs: HashMap<LocalId, Expr> = HashMap::new();
    for s in &body[..at] {
        match &s.kind {
            StmtKind::Assign { place, op: crate::ir::AssignOp::Assign, value } => {
                if let PlaceKind::Local(l) = place.kind {
                    if once(l) {
                        defs.insert(l, value.clone());
                    }
                }
            }
            StmtKind::Destructure { places, value } if value.ty.as_array().is_some() => {
                for (k, p) in places.iter().enumerate() {
                    let Some(PlaceKind::Local(l)) = p.as_ref().map(|p| &p.kind) else { continue };
                    if !once(*l) {
                        continue;
                    }
                    let ix =
                        Expr::new(ExprKind::Const(Const::Int(k as i64)), Type::INT, value.span);
                    let base = Box::new(value.clone());
                    let component = ExprKind::Index { base, indices: vec![Index::At(ix)] };
                    let ty = p.as_ref().map_or(Type::INT, |p| p.ty.clone());
                    defs.insert(*l, Expr::new(component, ty, value.span));
                }
            }
            _ => {}
        }
    }
    dims.iter()
        .map(|d| {
            let mut d = d.clone();
            Subst { defs: &defs, depth: 0 }.visit_expr_mut(&mut d);
            crate::ir::number::clear_expr_ids(&mut d);
            d
        })
        .collect()
}

struct Subst<'d> {
    defs: &'d HashMap<LocalId, Expr>,
    depth: u32,
}

impl VisitMut for Subst<'_> {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        if let ExprKind::Local(l) = e.kind {
            if let (Some(d), true) = (self.defs.get(&l), self.depth < 8) {
                *e = d.clone();
                self.depth += 1;
                self.visit_expr_mut(e);
                self.depth -= 1;
            }
            return;
        }
        walk_expr_mut(self, e);
    }
}

/// An upper bound on the element count of the allocation at `body[at]` with dimensions
/// `dims` (as written), from the assertions at the top level before it (manual §9.2.1: "upper
/// bounds on `M*N*K` are given via an assertion"): a conjunct `M*N*K <= c` (or `< c`) over
/// exactly the dimensions, in any order, or one bound per dimension (`M <= 10 && N <= 16`).
/// A thread that fails the assertion ends before it allocates.
pub(super) fn asserted_bound(body: &[Stmt], at: usize, dims: &[Expr]) -> Option<u64> {
    let mut bounds: Vec<(Vec<String>, i64)> = Vec::new();
    for s in &body[..at] {
        if let StmtKind::Assert { cond, .. } = &s.kind {
            conjunct_bounds(cond, &mut bounds);
        }
    }
    let keys: Vec<Vec<String>> = dims.iter().map(factor_keys).collect::<Option<_>>()?;
    let mut all: Vec<String> = keys.iter().flatten().cloned().collect();
    all.sort();
    let whole = bounds.iter().filter(|(k, _)| *k == all).map(|(_, c)| *c).min();
    let each = keys
        .iter()
        .map(|k| bounds.iter().filter(|(b, _)| b == k).map(|(_, c)| *c).min())
        .try_fold(1i64, |acc, c| acc.checked_mul(c?));
    let best = match (whole, each) {
        (Some(a), Some(b)) => a.min(b),
        (a, b) => a.or(b)?,
    };
    u64::try_from(best).ok()
}

/// The bounds `lhs <= c` among the `&&`-joined conjuncts of `cond`, each `lhs` as its sorted
/// product factors.
fn conjunct_bounds(cond: &Expr, out: &mut Vec<(Vec<String>, i64)>) {
    let ExprKind::Binary { op, lhs, rhs } = &cond.kind else { return };
    let int = |e: &Expr| match e.constant() {
        Some(Const::Int(v)) => Some(*v),
        _ => None,
    };
    let (e, c) = match op {
        BinaryOp::And => {
            conjunct_bounds(lhs, out);
            conjunct_bounds(rhs, out);
            return;
        }
        BinaryOp::Le => (lhs, int(rhs)),
        BinaryOp::Lt => (lhs, int(rhs).map(|c| c - 1)),
        BinaryOp::Ge => (rhs, int(lhs)),
        BinaryOp::Gt => (rhs, int(lhs).map(|c| c - 1)),
        _ => return,
    };
    if let (Some(mut k), Some(c)) = (factor_keys(e), c) {
        k.sort();
        out.push((k, c));
    }
}

/// The factors of a product of variables and integer constants, as comparable keys.
fn factor_keys(e: &Expr) -> Option<Vec<String>> {
    match &e.kind {
        ExprKind::Binary { op: BinaryOp::Mul | BinaryOp::ElemMul, lhs, rhs } => {
            let mut k = factor_keys(lhs)?;
            k.extend(factor_keys(rhs)?);
            Some(k)
        }
        ExprKind::Convert(x) => factor_keys(x),
        ExprKind::Local(l) => Some(vec![format!("l{}", l.0)]),
        ExprKind::Const(Const::Int(v)) => Some(vec![format!("c{v}")]),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use crate::driver::{self, Options};
    use crate::ir::{ExprKind, Special};

    #[test]
    fn sizes_defined_once_from_blkdim_are_read_through() {
        let src = "function [] = __kernel__ k(y : cube, pos : ivec3, blkpos : ivec3, blkdim : ivec3)\n  [M, N, P] = blkdim + [2, 0, 0]\n  Q = N * 2\n  v = shared(M, Q, P)\n  v[blkpos] = 1\n  syncthreads\n  y[pos] = v[blkpos]\nendfunction\nfunction y = f()\n  y = zeros(8, 8, 3)\n  parallel_do([[8, 8, 3], [4, 4, 3]], y, k)\nendfunction\n";
        let (art, _) = driver::compile(&Options::new("t.q", src, "t.q"));
        assert!(!art.has_errors(), "{:?}", art.diagnostics);
        let m = art.module.expect("module");
        let info = crate::analysis::ModuleInfo::of(&m);
        let (id, f) = m.functions.iter().enumerate().find(|(_, f)| f.name == "k").expect("k");
        let k = info.kernel(crate::ir::FunctionId(id as u32)).expect("kernel info");
        assert_eq!(k.shared.len(), 1);
        for d in &k.shared[0].dims {
            crate::ir::walk::walk_expr(d, &mut |x| {
                if let ExprKind::Local(l) = x.kind {
                    assert_eq!(f.local(l).special(), Some(Special::BlkDim), "{d:?}");
                }
            });
        }
    }

    /// The bound of the one shared array of kernel `k` in `src`.
    fn bound_of(src: &str) -> Option<u64> {
        let (art, _) = driver::compile(&Options::new("t.q", src, "t.q"));
        let m = art.module.expect("module");
        let info = crate::analysis::ModuleInfo::of(&m);
        let id = m.functions.iter().position(|f| f.name == "k").expect("k");
        info.kernel(crate::ir::FunctionId(id as u32)).expect("kernel info").shared[0].bound
    }

    #[test]
    fn an_assertion_before_the_allocation_bounds_its_element_count() {
        let kernel = |check: &str| {
            format!("function [] = __kernel__ k(y : vec, M : int, N : int, K : int, pos : int)\n  {check}\n  S = shared(M, N, K)\n  y[pos] = S[0, 0, 0]\nendfunction\n")
        };
        // The product in any order, `<` as one less, or one bound per dimension.
        assert_eq!(bound_of(&kernel("assert(M*N*K <= 512)")), Some(512));
        assert_eq!(bound_of(&kernel("assert(K*M*N < 100)")), Some(99));
        assert_eq!(bound_of(&kernel("assert(M <= 4 && N <= 8 && 2 >= K)")), Some(64));
        assert_eq!(bound_of(&kernel("assert(M*N <= 64)")), None);
        assert_eq!(bound_of(&kernel("assert(M*N*K >= 8)")), None);
    }
}
