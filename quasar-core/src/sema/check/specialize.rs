//! Explicit specialization (manual §6.5), rewritten before type checking:
//! `$specialize(f, c1 && … && cn)` names a copy of the function `f` in which
//!
//! * a type constraint `type(x, T)` (`T` a type or its name as a string) declares the
//!   parameter `x` as `T`, which may only narrow it: an untyped or `??` parameter takes any
//!   type, a typed one only the same type with modifiers (`mat` → `mat'hwtex_nearest`);
//! * a value constraint `x == v` makes `x` the constant `v`: the parameter is gone from the
//!   copy (the manual's launch `parallel_do(size(im), im, im_out, $specialize(filter_kernel,
//!   a == [1,2,3,2,1]/9 && dir == [0,1]))` passes the others only) and its first statement is
//!   `x = v` (`x : T = v` for a declared non-array type), so the compiler folds it;
//! * any other constraint is a predicate assumed in the copy: its first statements assert it,
//!   which the type checker's assumptions (`$check`, `where` clauses of reductions) read.
//!
//! The copy is a definition of its own beside `f`'s (its spans are `f`'s, so its errors point
//! at `f`'s lines), named `f_specialized_N`. `$typerecon(f, constraints)` (manual §8.6) is the
//! type of that copy: `$typerecon(f_specialized_N)`, which the type checker answers.

use super::type_value::expr_to_type_expr;
use crate::diagnostics::Diagnostic;
use crate::sema::resolve_type::is_array_type_name;
use crate::syntax::ast::{
    Arg, AssignOp, BinaryOp, CallStyle, Expr, ExprKind, FunctionDef, Ident, Program, Stmt,
    StmtKind, TypeExpr, TypeKind,
};
use std::borrow::Cow;

/// `program` with its `$specialize(…)` calls replaced by the names of new specialized copies
/// (borrowed when it has none). `imports` are searched for functions not defined in it.
pub(super) fn rewrite<'p>(
    program: &'p Program,
    imports: &[&Program],
    diags: &mut Vec<Diagnostic>,
) -> Cow<'p, Program> {
    // One walk over a copy, which is dropped again when the program has no such call.
    let mut p = program.clone();
    let taken = defined_names(&program.body);
    let mut copies: Vec<(String, FunctionDef)> = Vec::new();
    let mut calls = 0;
    for s in &mut p.body {
        stmt_exprs(s, &mut |e| {
            let Some((f, constraints)) = specialize_call(e) else { return };
            calls += 1;
            let Some(def) = find_function(&program.body, imports, &f, diags) else {
                e.kind = ExprKind::Unknown;
                return;
            };
            let mut n = copies.len() + 1;
            let name = loop {
                let name = format!("{}_specialized_{n}", f.name);
                if !taken.contains(&name) && copies.iter().all(|(_, c)| c.name.name != name) {
                    break name;
                }
                n += 1;
            };
            match specialize(def, Ident { name: name.clone(), span: f.span }, &constraints, diags) {
                Some(copy) => {
                    copies.push((f.name, copy));
                    let copy = Expr::new(ExprKind::Ident(name), e.span);
                    // `$typerecon(f, c)` is the type of `$specialize(f, c)`.
                    match &mut e.kind {
                        ExprKind::Call { callee, args, .. } if matches!(&callee.kind, ExprKind::Ident(n) if n == "$typerecon") =>
                        {
                            *args = vec![Arg { name: None, value: copy }];
                        }
                        _ => *e = copy,
                    }
                }
                None => e.kind = ExprKind::Unknown,
            }
        });
    }
    if calls == 0 {
        return Cow::Borrowed(program);
    }
    // Each copy goes right after the top-level definition of `f` (at the end when `f` is
    // imported or nested).
    for (f, copy) in copies.into_iter().rev() {
        let at = p
            .body
            .iter()
            .position(|s| matches!(&s.kind, StmtKind::Function(d) if d.name.name == f))
            .map_or(p.body.len(), |i| i + 1);
        let span = copy.span;
        p.body.insert(at, Stmt { kind: StmtKind::Function(Box::new(copy)), span });
    }
    Cow::Owned(p)
}

/// `$specialize(f, constraints)` or `$typerecon(f, constraints)`: the function's name and
/// the constraints.
fn specialize_call(e: &Expr) -> Option<(Ident, Expr)> {
    let ExprKind::Call { callee, args, .. } = &e.kind else { return None };
    if !matches!(&callee.kind, ExprKind::Ident(n) if n == "$specialize" || n == "$typerecon") {
        return None;
    }
    match args.as_slice() {
        [Arg { value: f @ Expr { kind: ExprKind::Ident(name), .. }, .. }, c] => {
            Some((Ident { name: name.clone(), span: f.span }, c.value.clone()))
        }
        _ => None,
    }
}

/// The names of every function defined in `body`, nested ones included.
fn defined_names(body: &[Stmt]) -> Vec<String> {
    let mut out = Vec::new();
    for s in body {
        if let StmtKind::Function(d) = &s.kind {
            out.push(d.name.name.clone());
            out.extend(defined_names(&d.body));
        }
    }
    out
}

/// The one definition of `f` in `body` (nested ones included) or else in `imports`.
fn find_function<'p>(
    body: &'p [Stmt],
    imports: &[&'p Program],
    f: &Ident,
    diags: &mut Vec<Diagnostic>,
) -> Option<&'p FunctionDef> {
    fn collect<'p>(body: &'p [Stmt], name: &str, out: &mut Vec<&'p FunctionDef>) {
        for s in body {
            if let StmtKind::Function(d) = &s.kind {
                if d.name.name == name && !d.is_macro {
                    out.push(d);
                }
                collect(&d.body, name, out);
            }
        }
    }
    let mut defs = Vec::new();
    collect(body, &f.name, &mut defs);
    if defs.is_empty() {
        for p in imports {
            collect(&p.body, &f.name, &mut defs);
        }
    }
    match defs.as_slice() {
        [d] => Some(d),
        [] => {
            let msg = format!("`$specialize`: no function `{}` is defined", f.name);
            diags.push(Diagnostic::error(f.span, msg).with_note(
                "the first argument of `$specialize` names a function defined with `function`",
            ));
            None
        }
        _ => {
            let msg = format!("`$specialize`: `{}` has several definitions", f.name);
            diags.push(Diagnostic::error(f.span, msg).with_note(
                "specialize a function with one definition (give the overloads their own names)",
            ));
            None
        }
    }
}

/// `def` specialized by `constraints` (see the module documentation), named `name`.
fn specialize(
    def: &FunctionDef,
    name: Ident,
    constraints: &Expr,
    diags: &mut Vec<Diagnostic>,
) -> Option<FunctionDef> {
    let mut copy = def.clone();
    copy.name = name;
    let mut prologue = Vec::new();
    let mut ok = true;
    for c in conjuncts(constraints) {
        match constraint(&copy, c) {
            Constraint::Type(i, ty) => match narrows(copy.params[i].ty.as_ref(), &ty) {
                Ok(()) => copy.params[i].ty = Some(ty),
                Err(msg) => {
                    diags.push(Diagnostic::error(c.span, msg).with_note(
                        "`$specialize` may only narrow a parameter's type (manual §6.5)",
                    ));
                    ok = false;
                }
            },
            Constraint::Value(i, value) => {
                let p = copy.params.remove(i);
                let span = c.span;
                let declared = p.ty.filter(|t| !is_array_type(t));
                let lhs = Expr::new(ExprKind::Ident(p.name.name.clone()), p.name.span);
                let lhs = match declared {
                    Some(t) => Expr::new(
                        ExprKind::Annotated { expr: Box::new(lhs), ty: Box::new(t) },
                        p.name.span,
                    ),
                    None => lhs,
                };
                let kind = ExprKind::Assign {
                    op: AssignOp::Assign,
                    lhs: Box::new(lhs),
                    rhs: Box::new(value.clone()),
                };
                prologue.push(Stmt { kind: StmtKind::Expr(Expr::new(kind, span)), span });
            }
            Constraint::Predicate => {
                let callee = Box::new(Expr::new(ExprKind::Ident("assert".into()), c.span));
                let args = vec![Arg { name: None, value: c.clone() }];
                let call = ExprKind::Call { callee, args, style: CallStyle::Paren };
                prologue.push(Stmt { kind: StmtKind::Expr(Expr::new(call, c.span)), span: c.span });
            }
        }
    }
    prologue.append(&mut copy.body);
    copy.body = prologue;
    ok.then_some(copy)
}

/// What one constraint says.
enum Constraint {
    /// `type(x, T)`: parameter `i` is declared `T`.
    Type(usize, TypeExpr),
    /// `x == v`: parameter `i` is the value `v`.
    Value(usize, Expr),
    /// Anything else: an assumption.
    Predicate,
}

fn constraint(def: &FunctionDef, c: &Expr) -> Constraint {
    let param = |e: &Expr| match &e.kind {
        ExprKind::Ident(n) => def.params.iter().position(|p| &p.name.name == n),
        _ => None,
    };
    match &c.kind {
        ExprKind::Call { callee, args, .. }
            if matches!(&callee.kind, ExprKind::Ident(n) if n == "type") && args.len() == 2 =>
        {
            let ty = match &args[1].value.kind {
                ExprKind::Str(s) => Some(TypeExpr {
                    kind: TypeKind::Named {
                        name: Ident { name: s.clone(), span: args[1].value.span },
                        dims: None,
                        args: Vec::new(),
                        sizes: None,
                    },
                    modifiers: Vec::new(),
                    span: args[1].value.span,
                }),
                _ => expr_to_type_expr(&args[1].value),
            };
            match (param(&args[0].value), ty) {
                (Some(i), Some(ty)) => Constraint::Type(i, ty),
                _ => Constraint::Predicate,
            }
        }
        ExprKind::Binary { op: BinaryOp::Eq, lhs, rhs } => match (param(lhs), param(rhs)) {
            (Some(i), None) => Constraint::Value(i, (**rhs).clone()),
            (None, Some(i)) => Constraint::Value(i, (**lhs).clone()),
            _ => Constraint::Predicate,
        },
        _ => Constraint::Predicate,
    }
}

/// The operands of `a && b && …` (parentheses looked through).
fn conjuncts(e: &Expr) -> Vec<&Expr> {
    match &e.kind {
        ExprKind::Binary { op: BinaryOp::And, lhs, rhs } => {
            let mut v = conjuncts(lhs);
            v.extend(conjuncts(rhs));
            v
        }
        ExprKind::Paren(inner) if inner.len() == 1 => conjuncts(&inner[0]),
        _ => vec![e],
    }
}

/// Whether declaring a parameter `new` instead of `old` narrows it.
fn narrows(old: Option<&TypeExpr>, new: &TypeExpr) -> Result<(), String> {
    let Some(old) = old else { return Ok(()) };
    let name = |t: &TypeExpr| match &t.kind {
        TypeKind::Named { name, dims, args, sizes } => {
            Some((name.name.clone(), dims.is_none() && args.is_empty() && sizes.is_none()))
        }
        _ => None,
    };
    match (&old.kind, name(old), name(new)) {
        (TypeKind::Unknown, ..) => Ok(()),
        (_, Some((o, plain)), Some((n, _))) if o == n && (plain || old.kind == new.kind) => Ok(()),
        _ => Err(format!(
            "`$specialize` cannot declare a parameter of type `{}` as `{}`",
            crate::syntax::printer::print_type(old),
            crate::syntax::printer::print_type(new)
        )),
    }
}

/// Whether a written type is an array type (`vec`, `mat'const`, `cube[int]`, `ivec3`, …).
fn is_array_type(t: &TypeExpr) -> bool {
    matches!(&t.kind, TypeKind::Named { name, .. } if is_array_type_name(&name.name))
}

/// Calls `f` on every expression of `s` (nested functions included), innermost first.
fn stmt_exprs(s: &mut Stmt, f: &mut impl FnMut(&mut Expr)) {
    match &mut s.kind {
        StmtKind::Expr(e) => expr_tree(e, f),
        StmtKind::If { branches, else_body } => {
            for (c, b) in branches {
                expr_tree(c, f);
                b.iter_mut().for_each(|s| stmt_exprs(s, f));
            }
            if let Some(b) = else_body {
                b.iter_mut().for_each(|s| stmt_exprs(s, f));
            }
        }
        StmtKind::For { iter, body, .. } => {
            expr_tree(iter, f);
            body.iter_mut().for_each(|s| stmt_exprs(s, f));
        }
        StmtKind::While { cond: e, body } | StmtKind::Repeat { body, until: e } => {
            expr_tree(e, f);
            body.iter_mut().for_each(|s| stmt_exprs(s, f));
        }
        StmtKind::Match { scrutinee, arms } => {
            expr_tree(scrutinee, f);
            for a in arms {
                a.body.iter_mut().for_each(|s| stmt_exprs(s, f));
            }
        }
        StmtKind::Try { body, catch_body, .. } => {
            body.iter_mut().chain(catch_body).for_each(|s| stmt_exprs(s, f));
        }
        StmtKind::Function(d) => {
            for p in &mut d.params {
                if let Some(e) = &mut p.default {
                    expr_tree(e, f);
                }
            }
            d.body.iter_mut().for_each(|s| stmt_exprs(s, f));
        }
        _ => {}
    }
}

/// Calls `f` on `e` and every expression inside it, innermost first.
fn expr_tree(e: &mut Expr, f: &mut impl FnMut(&mut Expr)) {
    match &mut e.kind {
        ExprKind::Spread(x)
        | ExprKind::Unary { operand: x, .. }
        | ExprKind::Annotated { expr: x, .. }
        | ExprKind::Field { base: x, .. }
        | ExprKind::Dims { base: x, .. }
        | ExprKind::Modified { base: x, .. } => expr_tree(x, f),
        ExprKind::Range { start, step, end } => {
            expr_tree(start, f);
            if let Some(s) = step {
                expr_tree(s, f);
            }
            expr_tree(end, f);
        }
        ExprKind::Binary { lhs, rhs, .. } | ExprKind::Assign { lhs, rhs, .. } => {
            expr_tree(lhs, f);
            expr_tree(rhs, f);
        }
        ExprKind::Ternary { cond, then, otherwise } => {
            expr_tree(cond, f);
            expr_tree(then, f);
            expr_tree(otherwise, f);
        }
        ExprKind::Call { callee: x, args, .. } | ExprKind::Index { base: x, indices: args } => {
            expr_tree(x, f);
            args.iter_mut().for_each(|a| expr_tree(&mut a.value, f));
        }
        ExprKind::Matrix(xs) | ExprKind::Cell(xs) | ExprKind::Paren(xs) | ExprKind::Tuple(xs) => {
            xs.iter_mut().for_each(|x| expr_tree(x, f))
        }
        ExprKind::Lambda(l) => {
            for p in &mut l.params {
                if let Some(d) = &mut p.default {
                    expr_tree(d, f);
                }
            }
            expr_tree(&mut l.body, f);
        }
        _ => {}
    }
    f(e);
}

#[cfg(test)]
mod tests {
    use super::rewrite;
    use crate::syntax::{parse, printer::print_program};

    /// The program after the rewrite, printed, and its errors.
    fn rewritten(src: &str) -> (String, Vec<String>) {
        let parsed = parse(src, Default::default());
        let mut diags = Vec::new();
        let p = rewrite(&parsed.program, &[], &mut diags);
        (print_program(&p), diags.iter().map(|d| d.message.clone()).collect())
    }

    #[test]
    fn constraints_narrow_types_fix_values_and_assert_the_rest() {
        let (p, e) = rewritten(
            "function y = f(x, T, a : vec)\n  y = x + T + a[0]\nendfunction\n\
             g = $specialize(f, type(x, \"scalar\") && T == 10 && (a == [1, 2]) && x > 0)\n",
        );
        assert!(e.is_empty(), "{e:?}");
        assert!(p.contains("function y = f_specialized_1(x : scalar)"), "{p}");
        assert!(p.contains("T = 10"), "{p}");
        assert!(p.contains("a = [1, 2]"), "a vector keeps the constant's own size: {p}");
        assert!(p.contains("assert(x > 0)"), "{p}");
        assert!(p.contains("g = f_specialized_1"), "{p}");
        // The original stays as it was.
        assert!(p.contains("function y = f(x, T, a : vec)"), "{p}");
    }

    #[test]
    fn a_declared_scalar_fixed_by_value_keeps_its_type_and_names_do_not_clash() {
        let (p, e) = rewritten(
            "function y = f(x : scalar, T : scalar)\n  y = x - T\nendfunction\n\
             function y = f_specialized_1()\n  y = 0\nendfunction\n\
             g = $specialize(f, T == 10)\n",
        );
        assert!(e.is_empty(), "{e:?}");
        assert!(p.contains("function y = f_specialized_2(x : scalar)"), "{p}");
        assert!(p.contains("T : scalar = 10"), "{p}");
    }

    #[test]
    fn only_narrowing_is_allowed_and_overloads_are_ambiguous() {
        let (_, e) = rewritten(
            "function y = f(x : mat)\n  y = x\nendfunction\ng = $specialize(f, type(x, cube))\n",
        );
        assert_eq!(e, ["`$specialize` cannot declare a parameter of type `mat` as `cube`"]);
        let (_, e) = rewritten(
            "function y = f(x : mat)\n  y = x\nendfunction\ng = $specialize(f, type(x, mat'hwtex_nearest))\n",
        );
        assert!(e.is_empty(), "{e:?}");
        let (_, e) = rewritten(
            "function y = f(x : mat)\n  y = x\nendfunction\nfunction y = f(x : cube)\n  y = x\nendfunction\ng = $specialize(f, x == 1)\n",
        );
        assert_eq!(e, ["`$specialize`: `f` has several definitions"]);
    }

    #[test]
    fn typerecon_asks_for_the_type_of_the_specialized_copy() {
        let (p, e) = rewritten(
            "function y = f(x)\n  y = x\nendfunction\nt = $typerecon(f, type(x, \"scalar\"))\n",
        );
        assert!(e.is_empty(), "{e:?}");
        assert!(p.contains("function y = f_specialized_1(x : scalar)"), "{p}");
        assert!(p.contains("t = $typerecon(f_specialized_1)"), "{p}");
    }

    #[test]
    fn programs_without_specialize_are_borrowed() {
        let parsed = parse("x = 1\n", Default::default());
        let mut diags = Vec::new();
        assert!(matches!(rewrite(&parsed.program, &[], &mut diags), std::borrow::Cow::Borrowed(_)));
    }
}
