//! Matching reductions (manual §4.9) against lowered expressions: a pattern's nested parts
//! against the shape of the IR, its variables by binding values (the same variable twice only
//! to the same value), typed variables and type parameters by the values' types, and the
//! order of the rules that match (§4.9.2).

use super::expr::lower_number;
use super::reductions::{replacement_lambda_parameter, root_of, type_mentions};
use super::scope::FnLowerer;
use crate::ir::{self, Callee, Const};
use crate::sema::types::{is_subtype, Rank, Type};
use crate::syntax::ast::{self, BinaryOp, Expr, ExprKind};

/// Looks through what lowering adds around a value: implicit conversions and the first
/// result of a call used as one value.
pub(super) fn peel(v: &ir::Expr) -> &ir::Expr {
    match &v.kind {
        ir::ExprKind::Convert(inner) => peel(inner),
        ir::ExprKind::TupleField { tuple, index: 0 } => peel(tuple),
        _ => v,
    }
}

/// Whether two lowered expressions compute the same value (the same variable used twice in
/// a pattern, as `x` in `diff(x^a, x)`).
pub(super) fn same_value(a: &ir::Expr, b: &ir::Expr) -> bool {
    use ir::ExprKind as K;
    let all = |x: &[ir::Expr], y: &[ir::Expr]| {
        x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same_value(p, q))
    };
    match (&a.kind, &b.kind) {
        (K::Local(x), K::Local(y)) => x == y,
        (K::Const(x), K::Const(y)) => x == y,
        (K::Unary { op: o1, operand: x }, K::Unary { op: o2, operand: y }) => {
            o1 == o2 && same_value(x, y)
        }
        (K::Binary { op: o1, lhs: l1, rhs: r1 }, K::Binary { op: o2, lhs: l2, rhs: r2 }) => {
            o1 == o2 && same_value(l1, l2) && same_value(r1, r2)
        }
        (K::Convert(x), K::Convert(y)) => a.ty == b.ty && same_value(x, y),
        (K::Field { base: x, field: f }, K::Field { base: y, field: g }) => {
            f == g && same_value(x, y)
        }
        (K::TupleField { tuple: x, index: i }, K::TupleField { tuple: y, index: j }) => {
            i == j && same_value(x, y)
        }
        // The same element read twice (`diff(x[pos]^3, x[pos])` in a kernel).
        (K::Index { base: x, indices: i }, K::Index { base: y, indices: j }) => {
            same_value(x, y)
                && i.len() == j.len()
                && i.iter().zip(j).all(|(p, q)| match (p, q) {
                    (ir::Index::At(p), ir::Index::At(q)) => same_value(p, q),
                    (ir::Index::All, ir::Index::All) => true,
                    _ => false,
                })
        }
        (
            K::Call { callee: Callee::Builtin(f), args: x },
            K::Call { callee: Callee::Builtin(g), args: y },
        ) => f == g && all(x, y),
        (
            K::Call { callee: Callee::Function(f), args: x },
            K::Call { callee: Callee::Function(g), args: y },
        ) => f == g && all(x, y),
        _ => false,
    }
}

/// The IR's operator for a syntax operator (`None` for `|>`, which has no IR form).
fn ir_binary_of(op: BinaryOp) -> Option<ir::BinaryOp> {
    super::operators::ir_binary(op)
}

/// A rule that matched, with its bindings and its rank (§4.9.2).
pub(super) struct Match<'a> {
    pub def: &'a ast::Reduction,
    pub binds: Vec<(String, ir::Expr)>,
    /// The types the rule's type parameters stand for.
    pub types: Vec<(String, Type)>,
    /// Variables first, then the larger (more specific) pattern, then exactness (lower
    /// distance is better), then definition order.
    rank: (usize, usize, std::cmp::Reverse<u32>, std::cmp::Reverse<usize>),
}

impl<'c, 'a> FnLowerer<'c, 'a> {
    /// The rules (numbers `candidates`) that match an expression with these operands, the
    /// first to try first (§4.9.2).
    pub(super) fn matching_rules(
        &mut self,
        candidates: &[usize],
        values: &[ir::Expr],
        colons: &[bool],
    ) -> Vec<Match<'a>> {
        let mut matches = Vec::new();
        for &index in candidates {
            if let Some(m) = self.match_rule(index, values, colons) {
                matches.push(m);
            }
        }
        matches.sort_by_key(|m| std::cmp::Reverse(m.rank));
        matches
    }

    /// Runs `f` with a match's variables and type parameters bound (lowering its condition
    /// and replacement).
    pub(super) fn with_match<T>(
        &mut self,
        m: Match<'a>,
        f: impl FnOnce(&mut Self, &'a ast::Reduction) -> T,
    ) -> T {
        let saved = (!m.types.is_empty()).then(|| self.type_params.clone());
        self.type_params.extend(m.types);
        self.reduction_frames.push(m.binds);
        self.reduction_depth += 1;
        let r = f(self, m.def);
        self.reduction_depth -= 1;
        self.reduction_frames.pop();
        if let Some(saved) = saved {
            self.type_params = saved;
        }
        r
    }

    /// Matches rule number `index` against an expression with these operands.
    fn match_rule(
        &mut self,
        index: usize,
        values: &[ir::Expr],
        colons: &[bool],
    ) -> Option<Match<'a>> {
        let rule = &self.cx.rules[index];
        let (def, type_params, variadic) =
            (rule.def, rule.type_params.clone(), rule.variadic.clone());
        let (_, patterns, pattern_colons) = root_of(&def.pattern)?;
        if pattern_colons != colons {
            return None;
        }
        // A variadic variable takes the arguments after the fixed ones, as one cell.
        let fixed = patterns.len() - usize::from(variadic.is_some());
        let count_fits =
            if variadic.is_some() { values.len() >= fixed } else { values.len() == fixed };
        if !count_fits {
            return None;
        }
        let vars: Vec<&str> = def.params.iter().map(|p| p.name.name.as_str()).collect();
        let mut binds = Vec::new();
        for (p, v) in patterns.iter().zip(&values[..fixed]) {
            if !self.match_value(p, v, &vars, &mut binds) {
                return None;
            }
        }
        if let Some(name) = &variadic {
            let rest = values[fixed..].to_vec();
            let ty = Type::CellTuple(rest.iter().map(|v| v.ty.clone()).collect());
            let span = rest.first().map_or(def.span, |v| v.span);
            binds.push((name.clone(), ir::Expr::new(ir::ExprKind::Cell(rest), ty, span)));
        }
        let saved = self.type_params.clone();
        let checked = self.check_variable_types(def, &type_params, &binds);
        self.type_params = saved;
        let (distance, types) = checked?;
        let rank = (
            def.params.len(),
            pattern_size(&def.pattern),
            std::cmp::Reverse(distance),
            std::cmp::Reverse(index),
        );
        Some(Match { def, binds, types, rank })
    }

    /// Whether the bound values have the variables' declared types: the distance from an
    /// exact match (§4.9.2) and the types the type parameters stand for, or `None`. Leaves
    /// the type parameters bound in `self.type_params` (the caller restores them).
    fn check_variable_types(
        &mut self,
        def: &ast::Reduction,
        type_params: &[String],
        binds: &[(String, ir::Expr)],
    ) -> Option<(u32, Vec<(String, Type)>)> {
        for t in type_params {
            self.type_params.insert(t.clone(), Type::Param(t.clone()));
        }
        if !type_params.is_empty() {
            let mut sizes = self.sizes.clone();
            for p in def.params.iter().filter(|p| !p.variadic) {
                let (Some(t), Some((_, v))) =
                    (&p.ty, binds.iter().find(|(n, _)| *n == p.name.name))
                else {
                    continue;
                };
                let declared = self.resolve_type_quiet(t);
                super::scope::unify(&declared, &v.ty, &mut self.type_params, &mut sizes);
            }
        }
        let mut types = Vec::new();
        for t in type_params {
            match self.type_params.get(t) {
                Some(Type::Param(_)) | None => return None,
                Some(ty) => types.push((t.clone(), ty.clone())),
            }
        }
        let mut distance = 0u32;
        for p in def.params.iter().filter(|p| !type_params.contains(&p.name.name)) {
            let Some((_, bound)) = binds.iter().find(|(n, _)| *n == p.name.name) else {
                if replacement_lambda_parameter(def, &p.name.name) {
                    continue;
                }
                return None;
            };
            let Some(t) = &p.ty else {
                distance += 3;
                continue;
            };
            let declared = self.resolve_type_quiet(t);
            if p.variadic {
                // Each rest argument has the declared vector's element type.
                let elem = match &declared {
                    Type::Array(a) => a.elem.clone(),
                    other => other.clone(),
                };
                let ir::ExprKind::Cell(items) = &bound.kind else { return None };
                let fit = items.iter().all(|v| {
                    matches!(elem, Type::Unknown) || (v.ty.is_concrete() && self.fits(&v.ty, &elem))
                });
                if !fit {
                    return None;
                }
                continue;
            }
            // A type parameter names one type: `point[int]` does not convert to `point[T]`
            // bound to `point[scalar]` by another variable.
            let generic = type_params.iter().any(|tp| type_mentions(t, tp));
            let fits = if generic {
                is_subtype(&bound.ty, &declared)
            } else {
                self.fits(&bound.ty, &declared)
            };
            if matches!(bound.ty, Type::Void) || !bound.ty.is_concrete() || !fits {
                return None;
            }
            distance += match (&bound.ty, &declared) {
                (Type::Array(a), Type::Array(d)) => match (a.rank, d.rank) {
                    (Rank::Fixed(x), Rank::Fixed(y)) => y.saturating_sub(x) as u32,
                    _ => 1,
                },
                (b, d) if is_subtype(b, d) => 0,
                _ => 2,
            };
        }
        Some((distance, types))
    }

    /// Matches part of a pattern against a lowered value, binding variables.
    pub(super) fn match_value(
        &self,
        p: &Expr,
        v: &ir::Expr,
        vars: &[&str],
        binds: &mut Vec<(String, ir::Expr)>,
    ) -> bool {
        match &p.kind {
            ExprKind::Paren(items) if items.len() == 1 => {
                return self.match_value(&items[0], v, vars, binds)
            }
            ExprKind::Ident(n) if vars.contains(&n.as_str()) => {
                return match binds.iter().find(|(b, _)| b == n) {
                    Some((_, earlier)) => same_value(peel(earlier), peel(v)),
                    None => {
                        binds.push((n.clone(), v.clone()));
                        true
                    }
                };
            }
            // A variable called on a variable, `f(x)` in the term of a variadic sum (§4.9.5,
            // `reductions_sum.rs`): `f` takes the value itself (made a function of `x`
            // later); `x`, when nothing bound it yet, the one variable the value reads.
            ExprKind::Call { callee, args, .. } if matches!(&callee.kind, ExprKind::Ident(f) if vars.contains(&f.as_str())) =>
            {
                let (ExprKind::Ident(f), [arg]) = (&callee.kind, args.as_slice()) else {
                    return false;
                };
                let ExprKind::Ident(a) = &arg.value.kind else { return false };
                if !vars.contains(&a.as_str()) {
                    return false;
                }
                if binds.iter().all(|(n, _)| n != a) {
                    let Some(x) = self.only_variable(v) else { return false };
                    binds.push((a.clone(), x));
                }
                return match binds.iter().find(|(n, _)| n == f) {
                    Some((_, earlier)) => same_value(peel(earlier), peel(v)),
                    None => {
                        binds.push((f.clone(), v.clone()));
                        true
                    }
                };
            }
            _ => {}
        }
        let v = peel(v);
        let all = |l: &Self, ps: &[&Expr], vs: &[ir::Expr], binds: &mut Vec<(String, ir::Expr)>| {
            ps.len() == vs.len() && ps.iter().zip(vs).all(|(p, v)| l.match_value(p, v, vars, binds))
        };
        match (&p.kind, &v.kind) {
            (ExprKind::Number(text), ir::ExprKind::Const(c)) => {
                let lit = lower_number(text, p.span);
                match (lit.constant(), c) {
                    (Some(a), b) => number(a).zip(number(b)).is_some_and(|(x, y)| x == y),
                    _ => false,
                }
            }
            (ExprKind::Str(s), ir::ExprKind::Const(Const::Str(t))) => s == t,
            (ExprKind::Call { callee, args, .. }, ir::ExprKind::Call { callee: c, args: vs }) => {
                let ExprKind::Ident(f) = &callee.kind else { return false };
                let name = match c {
                    Callee::Builtin(b) => b.name(),
                    Callee::Function(id) => self.cx.module.function(*id).name.as_str(),
                    // A call of a variable: a `symbolic` name (chapter 15's `deferred(a)`)
                    // or a function value of that name.
                    Callee::Value(f) => match &peel(f).kind {
                        ir::ExprKind::Local(id) => self.locals[id.0 as usize].name.as_str(),
                        _ => return false,
                    },
                    _ => return false,
                };
                let ps: Vec<&Expr> = args.iter().map(|a| &a.value).collect();
                name == f && all(self, &ps, vs, binds)
            }
            (ExprKind::Binary { op, lhs, rhs }, ir::ExprKind::Binary { op: o, lhs: l, rhs: r }) => {
                ir_binary_of(*op) == Some(*o)
                    && self.match_value(lhs, l, vars, binds)
                    && self.match_value(rhs, r, vars, binds)
            }
            (ExprKind::Unary { op, operand }, ir::ExprKind::Unary { op: o, operand: x }) => {
                super::operators::ir_unary(*op) == *o && self.match_value(operand, x, vars, binds)
            }
            // An equation of a symbolic operation's arguments, lowered as `a == b`.
            (
                ExprKind::Assign { op: ast::AssignOp::Assign, lhs, rhs },
                ir::ExprKind::Binary { op: ir::BinaryOp::Eq, lhs: l, rhs: r },
            ) => self.match_value(lhs, l, vars, binds) && self.match_value(rhs, r, vars, binds),
            (ExprKind::Field { base, name }, ir::ExprKind::Field { base: b, field }) => {
                name.name == *field && self.match_value(base, b, vars, binds)
            }
            _ => false,
        }
    }
}

impl FnLowerer<'_, '_> {
    /// The one variable `v` reads, when it reads exactly one.
    fn only_variable(&self, v: &ir::Expr) -> Option<ir::Expr> {
        use crate::ir::visit::{walk_expr, Visit};
        struct Reads(Vec<ir::LocalId>);
        impl<'b> Visit<'b> for Reads {
            fn visit_expr(&mut self, e: &'b ir::Expr) {
                if let ir::ExprKind::Local(id) = e.kind {
                    if !self.0.contains(&id) {
                        self.0.push(id);
                    }
                }
                walk_expr(self, e)
            }
        }
        let mut reads = Reads(Vec::new());
        reads.visit_expr(v);
        let [id] = reads.0.as_slice() else { return None };
        let ty = self.locals[id.0 as usize].ty.clone();
        Some(ir::Expr::new(ir::ExprKind::Local(*id), ty, v.span))
    }
}

/// How many nodes a pattern has: among rules with as many variables, the more specific
/// pattern is tried first (`diff(sin(x), y)` before `diff(a, x)`, as the manual's symbolic
/// derivative rules of §4.9.1 need); the exactness of the types (§4.9.2's second rule, whose
/// examples have the same pattern) decides between patterns of the same size.
fn pattern_size(e: &Expr) -> usize {
    1 + match &e.kind {
        ExprKind::Paren(items) => return items.iter().map(pattern_size).sum(),
        ExprKind::Call { callee, args, .. } | ExprKind::Index { base: callee, indices: args } => {
            let callee =
                if matches!(callee.kind, ExprKind::Ident(_)) { 0 } else { pattern_size(callee) };
            callee + args.iter().map(|a| pattern_size(&a.value)).sum::<usize>()
        }
        ExprKind::Binary { lhs, rhs, .. } | ExprKind::Assign { lhs, rhs, .. } => {
            pattern_size(lhs) + pattern_size(rhs)
        }
        ExprKind::Unary { operand, .. } => pattern_size(operand),
        ExprKind::Field { base, .. } => pattern_size(base),
        _ => 0,
    }
}

fn number(c: &Const) -> Option<f64> {
    match c {
        Const::Int(i) => Some(*i as f64),
        Const::Scalar(x) => Some(*x),
        _ => None,
    }
}
