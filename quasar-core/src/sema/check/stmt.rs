//! Statements: assignments (plain, compound, destructuring, to elements and fields),
//! control structures, and the statement forms of `print`, `error` and `assert`.

use super::scope::{FnLowerer, NameRef};
use crate::diagnostics::Diagnostic;
use crate::ir;
use crate::sema::builtins;
use crate::sema::types::Type;
use crate::span::Span;
use crate::syntax::ast::{self, CallStyle, Expr, ExprKind, Stmt, StmtKind};

/// The loop hint of `{!parallel for}` (`dim=N`) or `{!serial for}`.
fn loop_hint(item: &ast::AttributeItem) -> Option<ir::LoopHint> {
    let words: Vec<&str> = item.name.iter().map(|w| w.name.as_str()).collect();
    match words.as_slice() {
        ["parallel", "for"] => {
            let dims =
                item.args.iter().find(|a| a.key.name == "dim").and_then(|a| match &a.value.kind {
                    ExprKind::Number(n) => n.parse::<u8>().ok().filter(|n| *n > 0),
                    _ => None,
                });
            Some(ir::LoopHint::Parallel { dims, block: None })
        }
        ["serial", "for"] => Some(ir::LoopHint::Serial),
        _ => None,
    }
}

impl<'c, 'a> FnLowerer<'c, 'a> {
    pub fn lower_block(&mut self, body: &'a [Stmt]) -> ir::Block {
        let mut out = Vec::new();
        let mut hint_next = None;
        let known = self.assumptions.len();
        for s in body {
            let hint =
                std::mem::take(&mut hint_next).filter(|_| matches!(s.kind, StmtKind::For { .. }));
            let parallel = matches!(hint, Some(ir::LoopHint::Parallel { .. }));
            self.parallel_depth += parallel as u32;
            if let Some(mut stmt) = self.lower_stmt(s) {
                if let (ir::StmtKind::ForRange { hint: h, .. }, Some(hint)) = (&mut stmt.kind, hint)
                {
                    *h = hint;
                }
                out.push(stmt);
            }
            if let StmtKind::Attribute(a) = &s.kind {
                out.extend(self.lower_runtime_attributes(a));
            }
            self.parallel_depth -= parallel as u32;
            if let StmtKind::Attribute(a) = &s.kind {
                hint_next = a.items.iter().find_map(loop_hint);
                if let Some(ir::LoopHint::Parallel { block, .. }) = &mut hint_next {
                    *block = self.block_size(a).map(Box::new);
                }
            }
        }
        self.assumptions.truncate(known);
        out
    }

    fn stmt(kind: ir::StmtKind, span: Span) -> Option<ir::Stmt> {
        Some(ir::Stmt { kind, span })
    }

    fn lower_stmt(&mut self, s: &'a Stmt) -> Option<ir::Stmt> {
        crate::stack::guard(|| self.lower_stmt_unguarded(s))
    }

    fn lower_stmt_unguarded(&mut self, s: &'a Stmt) -> Option<ir::Stmt> {
        let span = s.span;
        match &s.kind {
            StmtKind::Expr(e) => self.lower_expr_stmt(e, span),
            StmtKind::If { branches, else_body } => {
                // Conditions first: a type predicate that the types decide (`isscalar(x)`)
                // keeps only the branch it takes, the others are not checked.
                let mut conds = Vec::new();
                let mut taken = None;
                for (i, (cond, _)) in branches.iter().enumerate() {
                    let c = self.lower_condition(cond);
                    match super::predicates::static_truth(&c) {
                        Some(true) => {
                            taken = Some(i);
                            break;
                        }
                        Some(false) => {}
                        None => conds.push((i, c)),
                    }
                }
                let mut else_ir = match (taken, else_body) {
                    (Some(i), _) => self.lower_block(&branches[i].1),
                    (None, Some(b)) => self.lower_block(b),
                    (None, None) => Vec::new(),
                };
                // `elseif` chains become nested ifs, built from the last branch outwards.
                for (i, c) in conds.into_iter().rev() {
                    let then_body = self.lower_block(&branches[i].1);
                    let nested = ir::Stmt {
                        kind: ir::StmtKind::If { cond: c, then_body, else_body: else_ir },
                        span,
                    };
                    else_ir = vec![nested];
                }
                match else_ir.len() {
                    0 | 1 => else_ir.pop(),
                    // The statements of the branch taken, under `if 1` (the fold-guards pass
                    // makes them straight-line code).
                    _ => {
                        let yes =
                            ir::Expr::new(ir::ExprKind::Const(ir::Const::Int(1)), Type::INT, span);
                        let kind =
                            ir::StmtKind::If { cond: yes, then_body: else_ir, else_body: vec![] };
                        Self::stmt(kind, span)
                    }
                }
            }
            StmtKind::For { var, iter, body } => {
                self.forget_assigned_in(body);
                self.lower_for(var, iter, body, span)
            }
            StmtKind::While { cond, body } => {
                self.forget_assigned_in(body);
                let cond = self.lower_condition(cond);
                let body = self.in_loop(|l| l.lower_block(body));
                Self::stmt(ir::StmtKind::While { cond, body }, span)
            }
            StmtKind::Repeat { body, until } => {
                self.forget_assigned_in(body);
                let body = self.in_loop(|l| l.lower_block(body));
                let until = self.lower_condition(until);
                Self::stmt(ir::StmtKind::Repeat { body, until }, span)
            }
            StmtKind::Break | StmtKind::Continue => {
                if self.loop_depth == 0 {
                    let word = if matches!(s.kind, StmtKind::Break) { "break" } else { "continue" };
                    let d = Diagnostic::error(span, format!("`{word}` outside of a loop"));
                    self.report(d);
                }
                let kind = if matches!(s.kind, StmtKind::Break) {
                    ir::StmtKind::Break
                } else {
                    ir::StmtKind::Continue
                };
                Self::stmt(kind, span)
            }
            StmtKind::Return => Self::stmt(ir::StmtKind::Return, span),
            StmtKind::Match { scrutinee, arms } => self.lower_match(scrutinee, arms, span),
            StmtKind::Try { body, catch_var, catch_type, catch_body } => {
                if let Some(t) = catch_type {
                    self.check_catch_type(t);
                }
                let body = self.lower_block(body);
                let var = catch_var.as_ref().map(|v| {
                    let id = self.names[&v.name];
                    self.assign_local(id, &Type::String, v.span);
                    id
                });
                let handler = self.lower_block(catch_body);
                Self::stmt(ir::StmtKind::Try { body, catch_var: var, handler }, span)
            }
            StmtKind::Symbolic(names) => {
                for p in names {
                    let ty = p.ty.as_ref().map(|t| self.resolve_type(t)).unwrap_or(Type::Unknown);
                    if let Some(NameRef::Local(id)) = self.resolve_name(&p.name.name, p.span) {
                        self.assign_local(id, &ty, p.span);
                    } else {
                        let id = self.add_local(&p.name.name, ty, ir::LocalRole::Var, p.span);
                        self.declared[id.0 as usize] = None;
                    }
                    if let Some(NameRef::Local(id)) = self.resolve_name(&p.name.name, p.span) {
                        self.symbolic.insert(id);
                    }
                }
                None
            }
            // Definitions were collected beforehand; attributes, pragmas and reductions
            // guide later passes and do not produce code here.
            StmtKind::Function(_)
            | StmtKind::TypeDef(_)
            | StmtKind::Reduction(_)
            | StmtKind::Import { .. }
            | StmtKind::Attribute(_)
            | StmtKind::Pragma(_) => None,
        }
    }

    /// `blkdim=M` of a `{!parallel for}` attribute: a positive number, or an `int` variable,
    /// or a vector of 2 or 3 of them (`blkdim=[N, N]`, one per parallelised loop).
    fn block_size(&mut self, a: &'a ast::Attribute) -> Option<ir::BlockSize> {
        let arg = a.items.iter().flat_map(|i| &i.args).find(|g| g.key.name == "blkdim")?;
        let v = self.lower_expr(&arg.value);
        let one = |e: &ir::Expr| match (&e.kind, &e.ty) {
            (ir::ExprKind::Const(ir::Const::Int(n)), _) if *n > 0 && *n <= 1024 => {
                Some(ir::BlockSize1::Const(*n as u32))
            }
            (ir::ExprKind::Local(l), t) if t.is_int() => Some(ir::BlockSize1::Local(*l)),
            _ => None,
        };
        let size = match &v.kind {
            ir::ExprKind::Matrix(items) if (2..=3).contains(&items.len()) => {
                let mut xs = [ir::BlockSize1::Const(1); 3];
                let mut ok = true;
                for (x, e) in xs.iter_mut().zip(items) {
                    match one(e) {
                        Some(b) => *x = b,
                        None => ok = false,
                    }
                }
                ok.then_some(ir::BlockSize::Dims(xs, items.len() as u8))
            }
            _ => one(&v).map(|b| match b {
                ir::BlockSize1::Const(n) => ir::BlockSize::Const(n),
                ir::BlockSize1::Local(l) => ir::BlockSize::Local(l),
            }),
        };
        if size.is_none() {
            let d = Diagnostic::error(
                arg.value.span,
                "`blkdim` of `{!parallel for}` must be a number from 1 to 1024, an `int` \
                 variable, or a vector of 2 or 3 of them (`blkdim=[16, 16]`)",
            );
            self.report(d);
        }
        size
    }

    fn in_loop<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> T {
        self.loop_depth += 1;
        let r = f(self);
        self.loop_depth -= 1;
        r
    }

    /// A condition of `if`, `while`, `until` or `?:`: a number (non-zero is true).
    pub fn lower_condition(&mut self, e: &'a Expr) -> ir::Expr {
        let c = self.lower_expr(e);
        // A number is true when non-zero; an array when all its elements are (as in MATLAB),
        // so `assert(size(x) == size(y))` compares whole sizes.
        let ok = match &c.ty {
            Type::Array(a) => a.elem.is_number() || matches!(a.elem, Type::Unknown),
            t => t.is_number() || matches!(t, Type::Unknown | Type::Void | Type::Param(_)),
        };
        if !ok {
            let d =
                Diagnostic::error(e.span, format!("a condition must be a number, found {}", c.ty))
                    .with_label(format!("this is {}", c.ty))
                    .with_note("conditions are true when non-zero");
            self.report(d);
        }
        c
    }

    fn lower_for(
        &mut self,
        var: &'a ast::Ident,
        iter: &'a Expr,
        body: &'a [Stmt],
        span: Span,
    ) -> Option<ir::Stmt> {
        let id = self.names[&var.name];
        if let ExprKind::Range { start, step, end } = &iter.kind {
            let start = self.lower_expr(start);
            let step = match step {
                Some(s) => self.lower_expr(s),
                None => ir::Expr::new(ir::ExprKind::Const(ir::Const::Int(1)), Type::INT, iter.span),
            };
            let end = self.lower_expr(end);
            let mut ty = crate::sema::types::join(&start.ty, &step.ty);
            ty = crate::sema::types::join(&ty, &end.ty);
            if !(ty.is_number() || matches!(ty, Type::Unknown | Type::Void))
                || matches!(ty, Type::Complex(_))
            {
                let d =
                    Diagnostic::error(iter.span, format!("a range needs real numbers, found {ty}"));
                self.report(d);
            }
            self.assign_local(id, &ty, var.span);
            let body = self.in_loop(|l| l.lower_block(body));
            return Self::stmt(
                ir::StmtKind::ForRange {
                    var: id,
                    start,
                    step,
                    end,
                    body,
                    hint: ir::LoopHint::Auto,
                },
                span,
            );
        }
        let values = self.lower_expr(iter);
        let elem = match &values.ty {
            Type::Array(a) => a.elem.clone(),
            Type::Unknown | Type::Void => Type::Unknown,
            t if t.is_number() => t.clone(),
            t => {
                let d = Diagnostic::error(
                    iter.span,
                    format!("a `for` loop runs over a range or a vector, found {t}"),
                );
                self.report(d);
                Type::Unknown
            }
        };
        self.assign_local(id, &elem, var.span);
        let body = self.in_loop(|l| l.lower_block(body));
        Self::stmt(ir::StmtKind::ForEach { var: id, values, body }, span)
    }

    fn lower_match(
        &mut self,
        scrutinee: &'a Expr,
        arms: &'a [ast::MatchArm],
        span: Span,
    ) -> Option<ir::Stmt> {
        let scrutinee = self.lower_expr(scrutinee);
        let mut ir_arms = Vec::new();
        let mut default = None;
        for arm in arms {
            let body = self.lower_block(&arm.body);
            if arm.patterns.iter().any(|p| matches!(p.kind, ExprKind::Placeholder)) {
                default = Some(body);
                continue;
            }
            let values =
                arm.patterns.iter().map(|p| self.lower_pattern(p, &scrutinee.ty)).collect();
            ir_arms.push(ir::MatchArm { values, body });
        }
        Self::stmt(ir::StmtKind::Match { scrutinee, arms: ir_arms, default }, span)
    }

    /// A match value: a literal, an expression, or the name of a variant of the matched enum.
    fn lower_pattern(&mut self, p: &'a Expr, scrutinee: &Type) -> ir::Expr {
        if let (ExprKind::Ident(name), Type::Enum(id, _)) = (&p.kind, scrutinee) {
            if let Some(value) = self.enum_variant(*id, name) {
                return ir::Expr::new(
                    ir::ExprKind::EnumValue { id: *id, value },
                    scrutinee.clone(),
                    p.span,
                );
            }
        }
        let v = self.lower_expr(p);
        let comparable = v.ty == *scrutinee
            || (v.ty.is_number() && scrutinee.is_number())
            || matches!(v.ty, Type::Unknown | Type::Void)
            || matches!(scrutinee, Type::Unknown | Type::Void);
        if !comparable {
            // Quasar allows mixed cases (`| 1 -> … | "String" -> …`); this one is dead code.
            let d = Diagnostic::warning(
                p.span,
                format!("this {} can never match a value of type {scrutinee}", v.ty),
            );
            self.report(d);
        }
        v
    }

    pub fn lower_expr_stmt(&mut self, e: &'a Expr, span: Span) -> Option<ir::Stmt> {
        match &e.kind {
            ExprKind::Assign { op, lhs, rhs } => Some(self.lower_assign(*op, lhs, rhs, span)),
            // `x : T` alone declares `x` (done beforehand); anything else is a type check.
            ExprKind::Annotated { expr, .. } if matches!(expr.kind, ExprKind::Ident(_)) => None,
            ExprKind::Ident(name) if matches!(name.as_str(), "syncthreads" | "syncthread") => {
                self.require_device(name, e.span);
                Self::stmt(ir::StmtKind::SyncThreads, span)
            }
            ExprKind::Call { callee, args, style } => {
                if let ExprKind::Ident(name) = &callee.kind {
                    if !self.names.contains_key(name) {
                        // `assert($subs(a=b, $assump(a)))` only adds to what is known.
                        if let ("assert", [a]) = (name.as_str(), args.as_slice()) {
                            if self.assume_substituted(&a.value).is_some() {
                                return None;
                            }
                            // About variables with no value, an assertion is an assumption.
                            if self.mentions_symbolic(&a.value) {
                                let cond = self.lower_condition(&a.value);
                                self.assume(&cond);
                                return None;
                            }
                        }
                        if let Some(kind) = self.lower_statement_call(name, args, *style, e.span) {
                            return Self::stmt(kind, span);
                        }
                    }
                }
                let v = self.lower_expr(e);
                Self::stmt(ir::StmtKind::Expr(v), span)
            }
            _ => {
                let v = self.lower_expr(e);
                Self::stmt(ir::StmtKind::Expr(v), span)
            }
        }
    }

    /// `print …`, `error …`, `assert(…)` and `syncthreads()` as statements.
    fn lower_statement_call(
        &mut self,
        name: &str,
        args: &'a [ast::Arg],
        _style: CallStyle,
        span: Span,
    ) -> Option<ir::StmtKind> {
        let values = |l: &mut Self| args.iter().map(|a| l.lower_expr(&a.value)).collect::<Vec<_>>();
        match name {
            "print" => Some(ir::StmtKind::Print(values(self))),
            "error" => Some(ir::StmtKind::Error(values(self))),
            "assert" => {
                let Some(first) = args.first() else {
                    let d = Diagnostic::error(span, "`assert` needs a condition");
                    self.report(d);
                    return None;
                };
                let cond = self.lower_condition(&first.value);
                self.assume(&cond);
                let message = args[1..].iter().map(|a| self.lower_expr(&a.value)).collect();
                Some(ir::StmtKind::Assert { cond, message })
            }
            "syncthreads" | "syncthread" if args.is_empty() => {
                self.require_device(name, span);
                Some(ir::StmtKind::SyncThreads)
            }
            // `syncthreads(warp)` (manual §9.8.1): the scope is a keyword, passed on as a
            // string constant; `syncthreads(block)` is plain `syncthreads`.
            "syncthreads" | "syncthread" if args.len() == 1 => {
                let ExprKind::Ident(scope) = &args[0].value.kind else { return None };
                if self.names.contains_key(scope)
                    || !builtins::SYNC_SCOPES.contains(&scope.as_str())
                {
                    return None;
                }
                self.require_device(name, span);
                if scope == "block" {
                    return Some(ir::StmtKind::SyncThreads);
                }
                let arg = ir::Expr::new(
                    ir::ExprKind::Const(ir::Const::Str(scope.clone())),
                    Type::String,
                    args[0].value.span,
                );
                let callee = ir::Callee::Builtin(ir::Builtin::Syncthreads);
                let call = ir::ExprKind::Call { callee, args: vec![arg] };
                Some(ir::StmtKind::Expr(ir::Expr::new(call, Type::Void, span)))
            }
            _ => None,
        }
    }

    /// The type written in `catch ex : T`: exceptions are `qexception` values (manual §4.13,
    /// which also says that classes derived from it cannot be caught yet).
    fn check_catch_type(&mut self, t: &ast::TypeExpr) {
        let ty = self.resolve_type(t);
        if matches!(ty, Type::String | Type::Unknown) {
            return;
        }
        let d = Diagnostic::error(
            t.span,
            format!(
                "a `catch` receives a `qexception`, not `{}`",
                crate::syntax::printer::print_type(t)
            ),
        )
        .with_note("catching exceptions of other types, such as classes derived from `qexception`, is not supported (manual §4.13)");
        self.report(d);
    }

    pub fn require_device(&mut self, what: &str, span: Span) {
        if !self.in_kernel_context() {
            let d = Diagnostic::error(
                span,
                format!("`{what}` can only be used in `__kernel__` and `__device__` functions"),
            );
            self.report(d);
        }
    }
}
