//! Boundary-check elimination: the interior/border partition of each kernel
//! ([`crate::ir::partition`]). An access whose every index is `pos[e] + c`, with `c` in a
//! loop-invariant interval (constants, integer parameters and captures never assigned,
//! `numel(v)`/`size(v, d)` of an argument, loop variables with such bounds), is inside its
//! array wherever `pos[e] + lo >= 0` and `pos[e] + hi < size(v, d)`; the interior is where
//! all those hold. An index without `pos` in such an interval `[lo, hi]` (`k` in
//! `a[pos[0], k]` for `k = 0..size(a, 1) - 1`) is inside its dimension when `0 <= lo` and
//! `hi < size(v, d)`: proved for any launch (`w[i]` for `i = 0..numel(w) - 1`), or else a
//! guard on the launch (`b[k, pos[1]]`: `size(a, 1) - 1 < size(b, 0)`) that the interior
//! needs too. Guards come only from accesses that every position reaching their loop makes
//! (not under an `if`, `while`…): when one fails such an access fails at its bound, so the
//! checked border code, which then runs the whole launch, only reports that error.
//!
//! Kernels with barriers, shared memory, block geometry or thread groups get no partition: a
//! split body would let the threads of one block take different paths to a barrier.

use crate::analysis::ModuleInfo;
use crate::ir::partition::{Bound, ExtentGuard, Partition, RegionBound, Term};
use crate::ir::visit::{walk_expr, Visit};
use crate::ir::{BinaryOp, UnaryOp};
use crate::ir::{
    Block, Builtin, Callee, Const, Expr, ExprKind, Function, FunctionId, Index, LocalId, LocalRole,
    Module, NodeId, PlaceKind, Special, StmtKind,
};
use crate::sema::types::{Rank, Type};
use crate::syntax::ast::FunctionKind;
use std::collections::{HashMap, HashSet};

/// Gives each kernel whose accesses allow it an interior/border partition.
pub fn run(module: &mut Module, _cx: &super::PassContext) {
    let info = ModuleInfo::of(module);
    for (i, f) in module.functions.iter_mut().enumerate() {
        let Some(k) = info.kernel(FunctionId(i as u32)) else { continue };
        if f.kind != FunctionKind::Kernel
            || k.sync
            || k.uses_shared
            || k.block_geometry
            || k.body_barrier
        {
            continue;
        }
        let mut counts: HashMap<LocalId, usize> = HashMap::new();
        count_assignments(&f.body, &mut counts);
        let views: HashMap<LocalId, usize> = k
            .arg_slots
            .iter()
            .filter(|l| !counts.contains_key(l))
            .filter_map(|l| match &f.local(*l).ty {
                Type::Array(a) => match a.rank {
                    Rank::Fixed(r) => Some((*l, r as usize)),
                    _ => None,
                },
                _ => None,
            })
            .collect();
        let pos = f
            .locals
            .iter()
            .position(|l| l.special() == Some(Special::Pos))
            .map(|i| LocalId(i as u32));
        let (mut p, mixed) = analyse_mixed(f, pos, &views);
        if p.unchecked.is_empty() {
            continue;
        }
        // Flat rows renumber the positions along the trailing dimensions: an access that
        // also has an index without `pos` would not follow them.
        p.flat = !mixed && pos.is_some_and(|pos| super::collapse::flat_applies(f, pos, &p));
        p.merge_rows =
            !mixed && pos.is_some_and(|pos| super::collapse::rows_merge(f, pos, &p, &views));
        f.partition = Some(p);
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
    /// How many `if`/`while`/`match`… bodies enclose the statement analysed: its accesses may
    /// be skipped by some positions, so they give no guards.
    conditional: usize,
    /// Whether some unchecked access has indices both with and without `pos`.
    mixed: bool,
    facts: Partition,
}

/// An index of an access: `pos[launch_dim] + [lo, hi]`, or a value in `[lo, hi]` without `pos`.
enum Component {
    Pos(usize, Bound, Bound),
    Free(Bound, Bound),
}

/// The accesses of `f` in bounds in the interior; `views` are its array arguments, with their
/// rank, that it never reassigns.
#[cfg(test)]
fn analyse(f: &Function, pos: Option<LocalId>, views: &HashMap<LocalId, usize>) -> Partition {
    analyse_mixed(f, pos, views).0
}

/// [`analyse`], and whether some unchecked access mixes indices with and without `pos`.
fn analyse_mixed(
    f: &Function,
    pos: Option<LocalId>,
    views: &HashMap<LocalId, usize>,
) -> (Partition, bool) {
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
        conditional: 0,
        mixed: false,
        facts: Partition::default(),
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
    (a.facts, a.mixed)
}

/// How many times each local is assigned; anything assigned in a `while`/`repeat` loop
/// counts as assigned many times.
fn count_assignments(b: &Block, counts: &mut HashMap<LocalId, usize>) {
    struct Count<'c> {
        counts: &'c mut HashMap<LocalId, usize>,
        weight: usize,
    }
    impl<'a> Visit<'a> for Count<'_> {
        fn visit_stmt(&mut self, s: &'a crate::ir::Stmt) {
            let mut add = |l: LocalId, w: usize| *self.counts.entry(l).or_default() += w;
            match &s.kind {
                StmtKind::Assign { place, .. } => {
                    if let PlaceKind::Local(l) = place.kind {
                        add(l, self.weight);
                    }
                }
                StmtKind::Destructure { places, .. } => {
                    for p in places.iter().flatten() {
                        if let PlaceKind::Local(l) = p.kind {
                            add(l, self.weight);
                        }
                    }
                }
                StmtKind::ForRange { var, .. } | StmtKind::ForEach { var, .. } => {
                    add(*var, self.weight)
                }
                StmtKind::While { .. } | StmtKind::Repeat { .. } => {
                    let w = self.weight;
                    self.weight = 2 * w;
                    crate::ir::visit::walk_stmt(self, s);
                    self.weight = w;
                    return;
                }
                _ => {}
            }
            crate::ir::visit::walk_stmt(self, s);
        }
        fn visit_expr(&mut self, e: &'a Expr) {
            // `cnt = (p.n += 1)` assigns inside an expression.
            if let ExprKind::Assign { place, .. } = &e.kind {
                if let PlaceKind::Local(l) = place.kind {
                    *self.counts.entry(l).or_default() += self.weight;
                }
            }
            walk_expr(self, e);
        }
    }
    Count { counts, weight: 1 }.visit_block(b);
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
            // `k * e` or `e * k` with a constant `k` (a filter's `2 * n + 1` taps).
            ExprKind::Binary { op: BinaryOp::Mul, lhs, rhs } if e.ty.is_int() => {
                let (k, x) = match (lhs.constant(), rhs.constant()) {
                    (Some(Const::Int(k)), _) => (*k, rhs),
                    (_, Some(Const::Int(k))) => (*k, lhs),
                    _ => return None,
                };
                let (a, b) = self.interval(x)?;
                let zero = Bound::constant(0);
                let (a, b) = (zero.add_scaled(&a, k)?, zero.add_scaled(&b, k)?);
                Some(if k < 0 { (b, a) } else { (a, b) })
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

    /// The components of an index list, when every one is affine in `pos` or bounded without
    /// it.
    fn components(&self, indices: &[Index]) -> Option<Vec<Component>> {
        let mut out = Vec::new();
        for ix in indices {
            let Index::At(e) = ix else { return None };
            if e.ty.is_int() {
                out.push(match self.affine(e) {
                    Some((d, lo, hi)) => Component::Pos(d, lo, hi),
                    None => {
                        let (lo, hi) = self.interval(e)?;
                        Component::Free(lo, hi)
                    }
                });
                continue;
            }
            // `pos` or `pos + [a, b, c]` as a whole position vector.
            match &e.kind {
                ExprKind::Local(l) if Some(*l) == self.pos => {
                    let n = vec_len(&e.ty)?;
                    let zero = || Bound::constant(0);
                    out.extend((0..n).map(|d| Component::Pos(d, zero(), zero())));
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
                            Component::Pos(d, a, b)
                        } else {
                            Component::Pos(d, b.neg()?, a.neg()?)
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
        let Some(comps) = self.components(indices) else { return };
        if self.ranks.get(&b) != Some(&comps.len()) {
            return;
        }
        // The indices without `pos` not proved inside their dimension need guards, which only
        // an access every position reaching its loop makes may give.
        let mut guards = Vec::new();
        for (array_dim, c) in comps.iter().enumerate() {
            if let Component::Free(lo, hi) = c {
                if !self.within_extent(b, array_dim, lo, hi) {
                    guards.push(ExtentGuard { base: b, array_dim, lo: lo.clone(), hi: hi.clone() });
                }
            }
        }
        if !guards.is_empty() && self.conditional > 0 {
            return;
        }
        self.facts.unchecked.insert(node);
        for g in guards {
            if !self.facts.guards.contains(&g) {
                self.facts.guards.push(g);
            }
        }
        let free = comps.iter().any(|c| matches!(c, Component::Free(..)));
        let mut with_pos = false;
        for (array_dim, c) in comps.into_iter().enumerate() {
            if let Component::Pos(launch_dim, lo, hi) = c {
                with_pos = true;
                self.facts.region.push(RegionBound { base: b, array_dim, launch_dim, lo, hi });
            }
        }
        self.mixed |= free && with_pos;
    }

    /// Whether every value in `[lo, hi]` lies in `[0, extent - 1]` of dimension `d` of `v` for
    /// any launch, e.g. `i` in `w[i]` for `i = 0..numel(w) - 1`.
    fn within_extent(&self, v: LocalId, d: usize, lo: &Bound, hi: &Bound) -> bool {
        let nonneg = lo.terms.is_empty() && lo.c >= 0;
        let below = |t: Term| {
            // hi - (t - 1) must be a constant <= 0.
            Bound::term(t)
                .add_scaled(&Bound::constant(-1), 1)
                .and_then(|m| hi.add_scaled(&m, -1))
                .is_some_and(|r| r.terms.is_empty() && r.c <= 0)
        };
        let vector = self.ranks.get(&v) == Some(&1);
        nonneg && (below(Term::Size(v, d)) || (vector && below(Term::Numel(v))))
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
                    self.conditional += 1;
                    self.block(then_body, counts);
                    self.block(else_body, counts);
                    self.conditional -= 1;
                }
                StmtKind::ForRange { var, start, step, end, body, .. } => {
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
                | StmtKind::Repeat { body, .. } => {
                    self.conditional += 1;
                    self.block(body, counts);
                    self.conditional -= 1;
                }
                StmtKind::Match { arms, default, .. } => {
                    self.conditional += 1;
                    for a in arms {
                        self.block(&a.body, counts);
                    }
                    if let Some(d) = default {
                        self.block(d, counts);
                    }
                    self.conditional -= 1;
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

/// The number of elements of a small vector of known length (`ivec3` → 3).
fn vec_len(t: &Type) -> Option<usize> {
    let shape = t.as_array()?.shape.as_ref()?;
    shape.iter().try_fold(1usize, |n, d| match d {
        crate::sema::types::Dim::Known(k) => n.checked_mul(*k as usize),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sema::check::check_program;
    use crate::sema::types::Rank;
    use crate::{syntax, FileId};

    /// The partition of the first kernel of `src`, with every fixed-rank array a view.
    fn facts(src: &str) -> (Partition, Function) {
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
                (_, LocalRole::Special(Special::Pos)) => pos = Some(LocalId(i as u32)),
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
        let c: Vec<_> = facts.region.iter().map(|c| (c.launch_dim, c.lo.c, c.hi.c)).collect();
        assert!(c.contains(&(0, -1, -1)) && c.contains(&(1, 2, 2)), "{c:?}");
        assert!(facts.constrains(1));
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
        let c = facts.region.iter().find(|c| c.base == x).expect("x is eligible");
        assert_eq!(c.lo, Bound { c: 0, terms: vec![(-1, Term::Local(r))] });
        assert_eq!(c.hi, Bound { c: -1, terms: vec![(-1, Term::Local(r)), (1, Term::Numel(w))] });
        // `w[i]` is always inside `w`: it needs no check in the interior either.
        assert_eq!(facts.unchecked.len(), 3, "x[..], w[i] and y[pos]");
    }

    #[test]
    fn constant_multiples_of_a_parameter_bound_loops() {
        // Taps `i = 0..2 * n` around the position: offsets in [-n, n].
        let (facts, f) = facts(
            "function [] = __kernel__ k(x : mat, y : mat, n : int, pos : ivec2)
                 acc = 0.0
                 for i = 0..2 * n
                     acc += x[pos[0], pos[1] + i - n]
                 endfor
                 for j = -2 * n..0
                     acc += x[pos[0] + j, pos[1]]
                 endfor
                 y[pos] = acc
             endfunction",
        );
        let (x, n) = (local(&f, "x"), local(&f, "n"));
        let c = facts
            .region
            .iter()
            .find(|c| c.base == x && c.launch_dim == 1 && !c.lo.terms.is_empty());
        let c = c.expect("x[.., pos[1] + i - n] is eligible");
        assert_eq!(c.lo, Bound { c: 0, terms: vec![(-1, Term::Local(n))] });
        assert_eq!(c.hi, Bound { c: 0, terms: vec![(1, Term::Local(n))] });
        // A negative factor: `j = -2 * n..0` gives offsets in [-2n, 0].
        let c = facts
            .region
            .iter()
            .find(|c| c.base == x && c.launch_dim == 0 && !c.lo.terms.is_empty());
        let c = c.expect("x[pos[0] + j, ..] is eligible");
        assert_eq!(c.lo, Bound { c: 0, terms: vec![(-2, Term::Local(n))] });
        assert_eq!(c.hi, Bound::constant(0));
    }

    /// A matrix product's inner loop, with the read of `b` under an `if` when `conditional`.
    fn product(conditional: bool) -> String {
        let read = "s += a[pos[0], k] * b[k, pos[1]]";
        let body = if conditional { format!("if s >= 0\n{read}\nendif") } else { read.into() };
        format!(
            "function [] = __kernel__ k(a : mat, b : mat, c : mat, pos : ivec2)
                 s = 0.0
                 for k = 0..size(a, 1) - 1
                     {body}
                 endfor
                 c[pos] = s
             endfunction"
        )
    }

    #[test]
    fn a_loop_index_with_a_run_time_bound_is_proved_or_guarded() {
        let (facts, f) = facts(&product(false));
        let (a, b) = (local(&f, "a"), local(&f, "b"));
        // `a[pos[0], k]`: `k <= size(a, 1) - 1` for any launch; `b[k, pos[1]]`: only when
        // `size(a, 1) - 1 < size(b, 0)`, the guard.
        assert_eq!(facts.unchecked.len(), 3, "a[..], b[..] and c[pos]");
        let hi = Bound { c: -1, terms: vec![(1, Term::Size(a, 1))] };
        let want = ExtentGuard { base: b, array_dim: 0, lo: Bound::constant(0), hi };
        assert_eq!(facts.guards, vec![want]);
        // The positions bound the other indices as before.
        let dims: Vec<_> =
            facts.region.iter().map(|c| (c.base, c.array_dim, c.launch_dim)).collect();
        assert!(dims.contains(&(a, 0, 0)) && dims.contains(&(b, 1, 1)), "{dims:?}");
    }

    #[test]
    fn accesses_under_an_if_give_no_guards() {
        let (facts, f) = facts(&product(true));
        // `b[k, pos[1]]` stays checked (a failing guard would send every position to the
        // border code though the `if` may skip the read); `a[pos[0], k]` needs no guard.
        assert!(facts.guards.is_empty(), "{:?}", facts.guards);
        assert_eq!(facts.unchecked.len(), 2, "a[..] and c[pos]");
        let b = local(&f, "b");
        assert!(facts.region.iter().all(|c| c.base != b));
    }

    #[test]
    fn indices_with_and_without_the_position_keep_rows_unflattened() {
        let src = "function [] = __kernel__ k(x : cube, y : cube, pos : ivec3)
                       s = 0.0
                       for j = 0..size(x, 1) - 1
                           s += x[pos[0], j, pos[2]]
                       endfor
                       y[pos] = s
                   endfunction";
        let parsed = syntax::parse(src, FileId(0));
        let checked = check_program(&parsed.program);
        let f = checked.module.functions.iter().find(|f| f.kind == FunctionKind::Kernel);
        let f = f.expect("a kernel");
        let (facts, _) = facts(src);
        let pos = LocalId(f.locals.iter().position(|l| l.name == "pos").expect("pos") as u32);
        // Flat rows would renumber `pos[1]`, which `x[pos[0], j, pos[2]]` does not follow.
        assert!(crate::transform::collapse::flat_applies(f, pos, &facts));
        let views: HashMap<_, _> = ["x", "y"].iter().map(|n| (local(f, n), 3)).collect();
        assert!(analyse_mixed(f, Some(pos), &views).1, "the read mixes indices");
    }

    /// Whether the interior rows of kernel `k` in `src` (arrays `x`, `y` of rank `r`, `w` a
    /// vector) may run merged.
    fn merges(body: &str, r: usize) -> bool {
        let (ty, ivec) = if r == 2 { ("mat", "ivec2") } else { ("cube", "ivec3") };
        let src = format!(
            "function [] = __kernel__ k(x : {ty}'mirror, y : {ty}, w : vec, pos : {ivec})
                 {body}
             endfunction"
        );
        let (_, f) = facts(&src);
        let pos = local(&f, "pos");
        let views: HashMap<_, _> =
            [("x", r), ("y", r), ("w", 1)].iter().map(|&(n, r)| (local(&f, n), r)).collect();
        let (p, mixed) = analyse_mixed(&f, Some(pos), &views);
        !mixed && crate::transform::collapse::rows_merge(&f, pos, &p, &views)
    }

    #[test]
    fn rows_merge_when_every_access_is_at_the_position_offset_only_along_dimension_0() {
        assert!(merges("y[pos] = 2 * x[pos]", 2));
        assert!(merges("y[pos] = x[pos] + x[pos[0] - 1, pos[1]] + x[pos[0] + 2, pos[1]]", 2));
        assert!(merges("y[pos] = x[pos[0] + 1, pos[1], pos[2]]", 3));
        // Offsets along a row: its ends are border code.
        assert!(!merges("y[pos] = x[pos[0], pos[1] + 1]", 2));
        assert!(!merges("y[pos] = x[pos[0], pos[1], pos[2] - 1]", 3));
        // The position's value used, or an array of another rank read at part of it.
        assert!(!merges("y[pos] = x[pos] * pos[1]", 2));
        assert!(!merges("y[pos] = x[pos] * w[pos[0]]", 2));
        // An index without the position (a product's inner loop).
        assert!(!merges(
            "s = 0.0\nfor k = 0..size(x, 1) - 1\ns += x[pos[0], k]\nendfor\ny[pos] = s",
            2
        ));
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
        assert!(facts.region.iter().all(|c| c.base != x), "r changes: x[pos + r] has no bound");
    }
}
