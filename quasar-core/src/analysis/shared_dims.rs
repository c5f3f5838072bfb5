//! The dimensions of a kernel's top-level shared arrays in terms the launch can compute
//! (manual §9.1, "shared memory"): `[M, N, P] = blkdim + [2, 0, 0]` then `vals = shared(M, N,
//! P)` sizes the array from `blkdim`. A local assigned once, at the top level before the
//! allocation, is replaced by its definition (a component of a destructured vector by that
//! component), so that the sizes read only `blkdim` and constants when the program's do.

use crate::ir::visit::{walk_expr_mut, VisitMut};
use crate::ir::{Const, Expr, ExprKind, Index, LocalId, PlaceKind, Stmt, StmtKind};
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
}
