//! Boundary-check elimination for CPU kernels: finds the array accesses whose every index is
//! `pos[e] + c` with `c` in a known interval (constants, loop-invariant values such as
//! integer parameters and `numel(v)`, loops with such bounds: [`super::bound`]), so that
//! the innermost loop can be split into a border (full access-mode handling) and an interior
//! where those accesses are plain loads and stores (which LLVM vectorises).
//!
//! For the interior the kernel checks, once per row, that `pos[e] + lo >= 0` and
//! `pos[e] + hi < dim` for the outer dimensions, and narrows the innermost range so that the
//! same holds for the last dimension.

use super::bound::{Bound, Term};
use crate::ir::{
    Block, Builtin, Callee, Const, Expr, ExprKind, Function, Index, LocalId, LocalRole, NodeId,
    PlaceKind, StmtKind,
};
use crate::syntax::ast::{BinaryOp, UnaryOp};
use std::collections::{HashMap, HashSet};

/// One index component `pos[dim] + [lo, hi]` of an eligible access to the view `base`.
#[derive(Clone, Debug)]
pub(crate) struct Comp {
    pub base: LocalId,
    /// The array dimension this component addresses.
    pub array_dim: usize,
    /// The launch dimension (`pos[launch_dim]`).
    pub launch_dim: usize,
    pub lo: Bound,
    pub hi: Bound,
}

/// The accesses that need no boundary handling in the interior.
#[derive(Clone, Debug, Default)]
pub(crate) struct Facts {
    accesses: HashSet<NodeId>,
    pub comps: Vec<Comp>,
}

impl Facts {
    /// Whether the access `node` (an index expression or place) is in bounds in the interior.
    pub fn in_bounds(&self, node: NodeId) -> bool {
        self.accesses.contains(&node)
    }

    /// Whether any access constrains the innermost launch dimension (otherwise there is no
    /// point in a split).
    pub fn useful(&self, last: usize) -> bool {
        self.comps.iter().any(|c| c.launch_dim == last)
    }
}

struct Analysis {
    pos: Option<LocalId>,
    /// Locals assigned exactly once, from `pos[d]` (or `pos` itself when it is an `int`).
    pos_alias: HashMap<LocalId, usize>,
    /// Loop variables with loop-invariant bounds.
    ranges: HashMap<LocalId, (Bound, Bound)>,
    /// Integer parameters and captures the kernel never assigns.
    invariant: HashSet<LocalId>,
    /// Views (array parameters and captures) whose accesses may be eligible.
    views: HashSet<LocalId>,
    /// The number of array dimensions of each view, when known.
    ranks: HashMap<LocalId, usize>,
    facts: Facts,
}

/// Analyses a kernel body. `views` are the locals held as `KernelView`s with their rank.
pub(crate) fn analyse(
    f: &Function,
    pos: Option<LocalId>,
    views: &HashMap<LocalId, usize>,
) -> Facts {
    let mut counts: HashMap<LocalId, usize> = HashMap::new();
    count_assignments(&f.body, &mut counts);
    let mut a = Analysis {
        pos,
        pos_alias: HashMap::new(),
        ranges: HashMap::new(),
        invariant: f
            .locals
            .iter()
            .enumerate()
            .filter(|(i, l)| {
                matches!(l.role, LocalRole::Param | LocalRole::Capture)
                    && l.ty.is_int()
                    && !counts.contains_key(&LocalId(*i as u32))
            })
            .map(|(i, _)| LocalId(i as u32))
            .collect(),
        views: views.keys().copied().collect(),
        ranks: views.clone(),
        facts: Facts::default(),
    };
    // Aliases of position components, assigned once at the top level.
    for s in &f.body {
        match &s.kind {
            StmtKind::Assign { place, value, .. } => {
                if let PlaceKind::Local(l) = place.kind {
                    if counts.get(&l) == Some(&1) {
                        if let Some(d) = a.pos_component(value) {
                            a.pos_alias.insert(l, d);
                        }
                    }
                }
            }
            StmtKind::Destructure { places, value } => {
                if matches!(&value.kind, ExprKind::Local(p) if Some(*p) == pos) {
                    for (d, p) in places.iter().enumerate() {
                        if let Some(PlaceKind::Local(l)) = p.as_ref().map(|p| &p.kind) {
                            if counts.get(l) == Some(&1) {
                                a.pos_alias.insert(*l, d);
                            }
                        }
                    }
                }
            }
            _ => {}
        }
    }
    // Loop variables must not be assigned in their body either.
    a.block(&f.body, &counts);
    a.facts
}

fn count_assignments(b: &Block, counts: &mut HashMap<LocalId, usize>) {
    for s in b {
        match &s.kind {
            StmtKind::Assign { place, .. } => {
                if let PlaceKind::Local(l) = place.kind {
                    *counts.entry(l).or_default() += 1;
                }
            }
            StmtKind::Destructure { places, .. } => {
                for p in places.iter().flatten() {
                    if let PlaceKind::Local(l) = p.kind {
                        *counts.entry(l).or_default() += 1;
                    }
                }
            }
            StmtKind::If { then_body, else_body, .. } => {
                count_assignments(then_body, counts);
                count_assignments(else_body, counts);
            }
            StmtKind::ForRange { var, body, .. } | StmtKind::ForEach { var, body, .. } => {
                *counts.entry(*var).or_default() += 1;
                count_assignments(body, counts);
            }
            StmtKind::While { body, .. } | StmtKind::Repeat { body, .. } => {
                // Anything assigned in a loop counts as assigned many times.
                count_assignments(body, counts);
                count_assignments(body, counts);
            }
            StmtKind::Match { arms, default, .. } => {
                for a in arms {
                    count_assignments(&a.body, counts);
                }
                if let Some(d) = default {
                    count_assignments(d, counts);
                }
            }
            StmtKind::Try { body, handler, .. } => {
                count_assignments(body, counts);
                count_assignments(handler, counts);
            }
            _ => {}
        }
    }
}

impl Analysis {
    /// `pos[d]`, or `pos` itself for a one-dimensional launch.
    fn pos_component(&self, e: &Expr) -> Option<usize> {
        match &e.kind {
            ExprKind::Local(l) if Some(*l) == self.pos && e.ty.is_int() => Some(0),
            ExprKind::Local(l) => self.pos_alias.get(l).copied(),
            ExprKind::Index { base, indices } => {
                let ExprKind::Local(l) = base.kind else { return None };
                if Some(l) != self.pos || indices.len() != 1 {
                    return None;
                }
                match &indices[0] {
                    Index::At(i) => match i.constant() {
                        Some(Const::Int(d)) if *d >= 0 => Some(*d as usize),
                        _ => None,
                    },
                    _ => None,
                }
            }
            ExprKind::Convert(inner) => self.pos_component(inner),
            _ => None,
        }
    }

    /// A bounded integer expression without `pos`.
    fn interval(&self, e: &Expr) -> Option<(Bound, Bound)> {
        let same = |b: Bound| Some((b.clone(), b));
        match &e.kind {
            ExprKind::Const(Const::Int(c)) => same(Bound::constant(*c)),
            ExprKind::Local(l) if self.invariant.contains(l) => same(Bound::term(Term::Local(*l))),
            ExprKind::Local(l) => self.ranges.get(l).cloned(),
            ExprKind::Convert(inner) if e.ty.is_int() => self.interval(inner),
            ExprKind::Call { callee: Callee::Builtin(b), args } => {
                let view = match args.first().map(|a| &a.kind) {
                    Some(ExprKind::Local(v)) if self.views.contains(v) => *v,
                    _ => return None,
                };
                match (b, args.len()) {
                    (Builtin::Numel, 1) => same(Bound::term(Term::Numel(view))),
                    (Builtin::Size, 2) => match args[1].constant() {
                        Some(Const::Int(d)) if *d >= 0 && (*d as usize) < 16 => {
                            same(Bound::term(Term::Size(view, *d as usize)))
                        }
                        _ => None,
                    },
                    _ => None,
                }
            }
            ExprKind::Unary { op: UnaryOp::Neg, operand } => {
                let (a, b) = self.interval(operand)?;
                Some((b.neg()?, a.neg()?))
            }
            ExprKind::Binary { op, lhs, rhs } if e.ty.is_int() => {
                let (a, b) = self.interval(lhs)?;
                let (c, d) = self.interval(rhs)?;
                match op {
                    BinaryOp::Add => Some((a.add_scaled(&c, 1)?, b.add_scaled(&d, 1)?)),
                    BinaryOp::Sub => Some((a.add_scaled(&d, -1)?, b.add_scaled(&c, -1)?)),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// `pos[d] + [lo, hi]`
    fn affine(&self, e: &Expr) -> Option<(usize, Bound, Bound)> {
        if let Some(d) = self.pos_component(e) {
            return Some((d, Bound::constant(0), Bound::constant(0)));
        }
        match &e.kind {
            ExprKind::Convert(inner) if e.ty.is_int() => self.affine(inner),
            ExprKind::Binary { op: op @ (BinaryOp::Add | BinaryOp::Sub), lhs, rhs }
                if e.ty.is_int() =>
            {
                if let Some((d, lo, hi)) = self.affine(lhs) {
                    let (a, b) = self.interval(rhs)?;
                    return if *op == BinaryOp::Add {
                        Some((d, lo.add_scaled(&a, 1)?, hi.add_scaled(&b, 1)?))
                    } else {
                        Some((d, lo.add_scaled(&b, -1)?, hi.add_scaled(&a, -1)?))
                    };
                }
                if *op == BinaryOp::Add {
                    let (d, lo, hi) = self.affine(rhs)?;
                    let (a, b) = self.interval(lhs)?;
                    return Some((d, lo.add_scaled(&a, 1)?, hi.add_scaled(&b, 1)?));
                }
                None
            }
            _ => None,
        }
    }

    /// The components of an index list, when every one is affine in `pos`.
    fn components(&self, indices: &[Index]) -> Option<Vec<(usize, Bound, Bound)>> {
        let mut out = Vec::new();
        for ix in indices {
            let Index::At(e) = ix else { return None };
            if e.ty.is_int() {
                out.push(self.affine(e)?);
                continue;
            }
            // `pos` or `pos + [a, b, c]` as a whole position vector.
            match &e.kind {
                ExprKind::Local(l) if Some(*l) == self.pos => {
                    let n = vec_len(&e.ty)?;
                    out.extend((0..n).map(|d| (d, Bound::constant(0), Bound::constant(0))));
                }
                ExprKind::Binary { op: op @ (BinaryOp::Add | BinaryOp::Sub), lhs, rhs } => {
                    let ExprKind::Local(l) = lhs.kind else { return None };
                    if Some(l) != self.pos {
                        return None;
                    }
                    let ExprKind::Matrix(items) = &rhs.kind else { return None };
                    for (d, it) in items.iter().enumerate() {
                        let (a, b) = self.interval(it)?;
                        out.push(if *op == BinaryOp::Add {
                            (d, a, b)
                        } else {
                            (d, b.neg()?, a.neg()?)
                        });
                    }
                }
                _ => return None,
            }
        }
        Some(out)
    }

    fn access(&mut self, base: &Expr, indices: &[Index], node: NodeId) {
        let ExprKind::Local(b) = base.kind else { return };
        if !self.views.contains(&b) {
            return;
        }
        let Some(comps) = self.components(indices) else {
            if self.within_extents(b, indices) {
                self.facts.accesses.insert(node);
            }
            return;
        };
        if self.ranks.get(&b) != Some(&comps.len()) {
            return;
        }
        self.facts.accesses.insert(node);
        for (array_dim, (launch_dim, lo, hi)) in comps.into_iter().enumerate() {
            self.facts.comps.push(Comp { base: b, array_dim, launch_dim, lo, hi });
        }
    }

    /// Every index of the access lies in `[0, extent - 1]` for any launch, e.g. `w[i]` for
    /// `i = 0..numel(w) - 1`: no check is needed anywhere.
    fn within_extents(&self, v: LocalId, indices: &[Index]) -> bool {
        let rank = self.ranks.get(&v).copied();
        if rank != Some(indices.len()) {
            return false;
        }
        indices.iter().enumerate().all(|(d, ix)| {
            let Index::At(e) = ix else { return false };
            let Some((lo, hi)) = self.interval(e) else { return false };
            let nonneg = lo.terms.is_empty() && lo.c >= 0;
            let below = |t: Term| {
                // hi - (t - 1) must be a constant <= 0.
                Bound::term(t)
                    .add_scaled(&Bound::constant(-1), 1)
                    .and_then(|m| hi.add_scaled(&m, -1))
                    .is_some_and(|r| r.terms.is_empty() && r.c <= 0)
            };
            nonneg && (below(Term::Size(v, d)) || (rank == Some(1) && below(Term::Numel(v))))
        })
    }

    fn block(&mut self, b: &Block, counts: &HashMap<LocalId, usize>) {
        for s in b {
            match &s.kind {
                StmtKind::Assign { place, value, .. } => {
                    if let PlaceKind::Index { base, indices } = &place.kind {
                        self.access(base, indices, place.id);
                    }
                    self.expr(value);
                }
                StmtKind::Expr(e) | StmtKind::Destructure { value: e, .. } => self.expr(e),
                StmtKind::If { cond, then_body, else_body } => {
                    self.expr(cond);
                    self.block(then_body, counts);
                    self.block(else_body, counts);
                }
                StmtKind::ForRange { var, start, step, end, body } => {
                    // `a..b` covers [a, b] and `a..-1..b` covers [b, a]; an empty loop makes
                    // no access, so the interval needs no `a <= b`.
                    let bounded = (|| match step.constant() {
                        Some(Const::Int(1)) => {
                            Some((self.interval(start)?.0, self.interval(end)?.1))
                        }
                        Some(Const::Int(-1)) => {
                            Some((self.interval(end)?.0, self.interval(start)?.1))
                        }
                        _ => None,
                    })();
                    if let (Some((lo, hi)), Some(1)) = (bounded, counts.get(var)) {
                        self.ranges.insert(*var, (lo, hi));
                    }
                    self.block(body, counts);
                    self.ranges.remove(var);
                }
                StmtKind::ForEach { body, .. }
                | StmtKind::While { body, .. }
                | StmtKind::Repeat { body, .. } => self.block(body, counts),
                StmtKind::Match { arms, default, .. } => {
                    for a in arms {
                        self.block(&a.body, counts);
                    }
                    if let Some(d) = default {
                        self.block(d, counts);
                    }
                }
                _ => {}
            }
        }
    }

    fn expr(&mut self, e: &Expr) {
        let mut found = Vec::new();
        crate::ir::walk::walk_expr(e, &mut |x| {
            if let ExprKind::Index { base, indices } = &x.kind {
                found.push((base.as_ref().clone(), indices.clone(), x.id));
            }
        });
        for (b, ix, span) in found {
            self.access(&b, &ix, span);
        }
    }
}

fn vec_len(t: &crate::sema::types::Type) -> Option<usize> {
    let a = t.as_array()?;
    super::ty::known_shape(a).map(|s| s.iter().product())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sema::check::check_program;
    use crate::sema::types::Rank;
    use crate::{syntax, FileId};

    /// The facts of the first kernel of `src`, with every fixed-rank array a view.
    fn facts(src: &str) -> (Facts, Function) {
        let parsed = syntax::parse(src, FileId(0));
        assert!(!parsed.has_errors(), "{:?}", parsed.diagnostics);
        let checked = check_program(&parsed.program);
        assert!(checked.diagnostics.iter().all(|d| !d.is_error()), "{:?}", checked.diagnostics);
        let f = checked
            .module
            .functions
            .iter()
            .find(|f| f.kind == crate::syntax::ast::FunctionKind::Kernel)
            .expect("a kernel")
            .clone();
        let mut views = HashMap::new();
        let mut pos = None;
        for (i, l) in f.locals.iter().enumerate() {
            match (&l.ty, l.role) {
                (_, LocalRole::Special(crate::ir::Special::Pos)) => pos = Some(LocalId(i as u32)),
                (crate::sema::types::Type::Array(a), LocalRole::Param) => {
                    if let Rank::Fixed(r) = a.rank {
                        views.insert(LocalId(i as u32), r as usize);
                    }
                }
                _ => {}
            }
        }
        (analyse(&f, pos, &views), f)
    }

    fn local(f: &Function, name: &str) -> LocalId {
        LocalId(f.locals.iter().position(|l| l.name == name).expect("local") as u32)
    }

    #[test]
    fn constant_offsets_give_constant_bounds() {
        let (facts, _) = facts(
            "function [] = __kernel__ k(x : mat, y : mat, pos : ivec2)
                 y[pos] = x[pos[0] - 1, pos[1] + 2]
             endfunction",
        );
        let c: Vec<_> = facts.comps.iter().map(|c| (c.launch_dim, c.lo.c, c.hi.c)).collect();
        assert!(c.contains(&(0, -1, -1)) && c.contains(&(1, 2, 2)), "{c:?}");
        assert!(facts.useful(1));
    }

    #[test]
    fn a_radius_parameter_gives_symbolic_bounds() {
        let (facts, f) = facts(
            "function [] = __kernel__ k(x : vec, y : vec, w : vec, r : int, pos : int)
                 acc = 0.0
                 for i = 0..numel(w) - 1
                     acc += x[pos + i - r] * w[i]
                 endfor
                 y[pos] = acc
             endfunction",
        );
        let (x, r, w) = (local(&f, "x"), local(&f, "r"), local(&f, "w"));
        let c = facts.comps.iter().find(|c| c.base == x).expect("x is eligible");
        assert_eq!(c.lo, Bound { c: 0, terms: vec![(-1, Term::Local(r))] });
        assert_eq!(c.hi, Bound { c: -1, terms: vec![(-1, Term::Local(r)), (1, Term::Numel(w))] });
        // `w[i]` is always inside `w`: it needs no check in the interior either.
        assert_eq!(facts.accesses.len(), 3, "x[..], w[i] and y[pos]");
    }

    #[test]
    fn assigned_parameters_and_unbounded_loops_are_not_used() {
        let (facts, f) = facts(
            "function [] = __kernel__ k(x : vec, y : vec, r : int, pos : int)
                 r = r + 1
                 y[pos] = x[pos + r]
             endfunction",
        );
        let x = local(&f, "x");
        assert!(facts.comps.iter().all(|c| c.base != x), "r changes: x[pos + r] has no bound");
    }
}
