//! Statements: assignments (atomic on array elements), structured control flow lowered to
//! labels and predicated branches, barriers.

use super::kernel::{local, Ctx};
use super::regs::{NumTy, Reg, RegClass, Val};
use super::{unsupported, PtxCheckSite, PtxSiteKind, Res};
use crate::ir::{self, Expr, LocalId, Stmt, StmtKind};
use crate::span::Span;

impl Ctx<'_> {
    pub fn block(&mut self, b: &[Stmt]) -> Res<()> {
        for s in b {
            crate::stack::guard(|| self.stmt(s))?;
        }
        Ok(())
    }

    fn stmt(&mut self, s: &Stmt) -> Res<()> {
        // Where the code comes from, once per Quasar line: a `.loc` when the file names are
        // known (`.file` k+1 is file k), else a comment.
        let at = (s.span.file.0, s.span.line);
        if self.last_line != Some(at) && s.span.line > 0 {
            self.last_line = Some(at);
            let (file, line, col) = (s.span.file.0 as usize, s.span.line, s.span.col.max(1));
            if file < self.opts.files.len() {
                self.code.push_str(&format!("\t.loc {} {line} {col}\n", file + 1));
            } else {
                self.code.push_str(&format!("\t// line {line}\n"));
            }
        }
        match &s.kind {
            StmtKind::Assign { place, op, value } => {
                self.assign(place, *op, value)?;
            }
            StmtKind::Destructure { places, value } => {
                let items = match self.expr(value)? {
                    Val::Tuple(items) => items,
                    // `[a, b] = v` takes the elements of a vector.
                    Val::Vec(rs, t) => rs.into_iter().map(|r| Val::Num(r, t)).collect(),
                    _ => {
                        return unsupported(
                            s.span,
                            "destructuring a value that is not a tuple",
                            "destructure the results of a call or a fixed-size vector (`[a, \
                             b] = v`)",
                        )
                    }
                };
                for (p, v) in places.iter().zip(items) {
                    if let Some(p) = p {
                        self.store_place(p, v)?;
                    }
                }
            }
            StmtKind::Expr(e) => {
                self.expr(e)?;
            }
            StmtKind::If { cond, then_body, else_body } => {
                let p = self.cond(cond)?;
                let l_else = self.label();
                self.ins(format!("@!{p} bra {l_else}"));
                self.block(then_body)?;
                if else_body.is_empty() {
                    self.place(&l_else);
                } else {
                    let l_end = self.label();
                    self.ins(format!("bra.uni {l_end}"));
                    self.place(&l_else);
                    self.block(else_body)?;
                    self.place(&l_end);
                }
            }
            StmtKind::ForRange { var, start, step, end, body, .. } => {
                self.for_range(*var, start, step, end, body, s.span)?;
            }
            StmtKind::ForEach { var, values, body } => self.for_each(*var, values, body)?,
            StmtKind::While { cond, body } => {
                let (head, exit) = (self.label(), self.label());
                self.place(&head);
                let p = self.cond(cond)?;
                self.ins(format!("@!{p} bra {exit}"));
                self.in_loop(&head, &exit, body)?;
                self.ins(format!("bra.uni {head}"));
                self.place(&exit);
            }
            StmtKind::Repeat { body, until } => {
                let (head, cont, exit) = (self.label(), self.label(), self.label());
                self.place(&head);
                self.in_loop(&cont, &exit, body)?;
                self.place(&cont);
                let p = self.cond(until)?;
                self.ins(format!("@!{p} bra {head}"));
                self.place(&exit);
            }
            StmtKind::Break | StmtKind::Continue => {
                let base = self.frame()?.loop_base;
                let Some((cont, exit)) = self.loops.get(base..).and_then(|l| l.last()).cloned()
                else {
                    return unsupported(
                        s.span,
                        "`break`/`continue` outside a loop",
                        "use `break`/`continue` only inside a loop of the kernel, or \
                         return from the device function",
                    );
                };
                let target = if matches!(s.kind, StmtKind::Break) { exit } else { cont };
                self.ins(format!("bra.uni {target}"));
            }
            StmtKind::Return => {
                let l = self.frame()?.ret_label.clone();
                self.ins(format!("bra.uni {l}"));
            }
            StmtKind::Match { scrutinee, arms, default } => {
                self.match_stmt(scrutinee, arms, default)?
            }
            StmtKind::SyncThreads => self.ins("bar.sync 0"),
            StmtKind::Try { .. } => {
                return unsupported(
                    s.span,
                    "`try`/`catch`",
                    "check the condition with `if` and report it with `error(\"…\")`",
                )
            }
            StmtKind::Print(_) => {
                return unsupported(
                    s.span,
                    "`print`",
                    "write the value to an output array and print it in host code",
                )
            }
            StmtKind::Error(items) => {
                let message = constant_text(items, "error")?;
                self.fail(PtxSiteKind::Error(message), None, s.span);
            }
            StmtKind::Assert { cond, message } => {
                let message = match message.is_empty() {
                    true => None,
                    false => Some(constant_text(message, "assert")?),
                };
                let ok = self.cond(cond)?;
                self.fail(PtxSiteKind::Assert { message, cond: cond.span }, Some(ok), s.span);
            }
        }
        Ok(())
    }

    /// A failing `error`/`assert` (unless `ok` holds): the first failure in the launch writes
    /// its site to the launch's error word (see `mod.rs`), and the thread ends as the CPU kernel does.
    pub(super) fn fail(&mut self, kind: PtxSiteKind, ok: Option<Reg>, span: Span) {
        let site = self.site_base + self.sites.len();
        self.sites.push(PtxCheckSite {
            kernel: self.entry.clone(),
            kind,
            array: String::new(),
            span,
        });
        let fine = self.label();
        if let Some(ok) = ok {
            self.ins(format!("@{ok} bra {fine}"));
        }
        let w = self.error_word();
        let old = self.reg(RegClass::B32);
        self.ins(format!("atom.global.cas.b32 {old}, [{w}], 0, 1"));
        let first = self.reg(RegClass::Pred);
        self.ins(format!("setp.eq.u32 {first}, {old}, 0"));
        self.ins(format!("@{first} st.global.u32 [{w}+4], {site}"));
        self.ins(format!("@{first} st.global.u32 [{w}+8], 0"));
        self.ins(format!("@{first} st.global.u32 [{w}+12], 0"));
        self.ins("exit");
        self.place(&fine);
    }

    fn in_loop(&mut self, cont: &str, exit: &str, body: &[Stmt]) -> Res<()> {
        self.loops.push((cont.to_string(), exit.to_string()));
        let r = self.block(body);
        self.loops.pop();
        r
    }

    /// `for var = start..step..end` (inclusive); the bounds are evaluated once, and the
    /// direction follows the sign of the step.
    fn for_range(
        &mut self,
        var: LocalId,
        start: &Expr,
        step: &Expr,
        end: &Expr,
        body: &[Stmt],
        span: Span,
    ) -> Res<()> {
        let f = self.frame()?.func;
        let l = local(f, var)?;
        let Some(t) = NumTy::of(&l.ty) else {
            return unsupported(
                span,
                format!("a `for` loop over {}", l.ty),
                "use an integer or scalar loop variable (`for i = 0..n-1`)",
            );
        };
        let v = self.expr(start)?;
        let v0 = self.num_val(v, t, start.span)?;
        let sv = self.expr(step)?;
        let st = self.num_val(sv, t, step.span)?;
        let ev = self.expr(end)?;
        let en = self.num_val(ev, t, end.span)?;
        let r = self.reg(t.class());
        self.ins(format!("mov.{} {r}, {v0}", t.arith()));
        self.frame_mut()?.locals.insert(var, Val::Num(r, t));
        let (head, cont, exit) = (self.label(), self.label(), self.label());
        let step_sign = match step.constant() {
            Some(ir::Const::Int(n)) => Some(*n >= 0),
            Some(ir::Const::Scalar(x)) => Some(*x >= 0.0),
            _ => None,
        };
        self.place(&head);
        let p = self.reg(RegClass::Pred);
        let a = t.arith();
        match step_sign {
            Some(true) => self.ins(format!("setp.gt.{a} {p}, {r}, {en}")),
            Some(false) => self.ins(format!("setp.lt.{a} {p}, {r}, {en}")),
            None => {
                // Past the end in the direction of the step.
                let (up, down, neg) =
                    (self.reg(RegClass::Pred), self.reg(RegClass::Pred), self.reg(RegClass::Pred));
                self.ins(format!("setp.gt.{a} {up}, {r}, {en}"));
                self.ins(format!("setp.lt.{a} {down}, {r}, {en}"));
                let zero = t.imm(0.0);
                self.ins(format!("setp.lt.{a} {neg}, {st}, {zero}"));
                self.ins(format!("@{neg} mov.pred {p}, {down}"));
                self.ins(format!("@!{neg} mov.pred {p}, {up}"));
            }
        }
        self.ins(format!("@{p} bra {exit}"));
        self.in_loop(&cont, &exit, body)?;
        self.place(&cont);
        // The body may have assigned the loop variable: step from its current register.
        let cur = match self.frame()?.locals.get(&var) {
            Some(Val::Num(c, _)) => *c,
            _ => r,
        };
        if cur != r {
            self.ins(format!("mov.{a} {r}, {cur}"));
        }
        self.ins(format!("add.{a} {r}, {r}, {st}"));
        if t.is_narrow() {
            self.wrap(r, t);
        }
        self.ins(format!("bra.uni {head}"));
        self.place(&exit);
        Ok(())
    }

    /// `for v = values` over a fixed-size vector: unrolled.
    fn for_each(&mut self, var: LocalId, values: &Expr, body: &[Stmt]) -> Res<()> {
        let vals = self.expr(values)?;
        let Val::Vec(regs, t) = vals else {
            return unsupported(
                values.span,
                "a `for` loop over an array (not a fixed-size vector)",
                "loop over the indices (`for i = 0..numel(x)-1`) and read `x[i]`",
            );
        };
        let exit = self.label();
        for r in regs {
            let v = self.reg(t.class());
            self.ins(format!("mov.{} {v}, {r}", t.arith()));
            self.frame_mut()?.locals.insert(var, Val::Num(v, t));
            let next = self.label();
            self.in_loop(&next, &exit, body)?;
            self.place(&next);
        }
        self.place(&exit);
        Ok(())
    }

    fn match_stmt(
        &mut self,
        scrutinee: &Expr,
        arms: &[ir::MatchArm],
        default: &Option<Vec<Stmt>>,
    ) -> Res<()> {
        let sv = self.expr(scrutinee)?;
        let Val::Num(s, st) = sv else {
            return unsupported(
                scrutinee.span,
                "`match` on a value that is not a number",
                "`match` on a number (an integer or enum value)",
            );
        };
        let end = self.label();
        for arm in arms {
            let next = self.label();
            let mut hit = None;
            for v in &arm.values {
                let x = self.expr(v)?;
                let Val::Num(xr, xt) = x else {
                    return unsupported(
                        v.span,
                        "a `match` case that is not a number",
                        "use numbers (or enum values) as `match` cases",
                    );
                };
                let t = NumTy::promote(st, xt);
                let a = self.convert_reg(s, st, t);
                let b = self.convert_reg(xr, xt, t);
                let q = self.reg(RegClass::Pred);
                self.ins(format!("setp.eq.{} {q}, {a}, {b}", t.arith()));
                if let Some(h) = hit {
                    self.ins(format!("or.pred {h}, {h}, {q}"));
                } else {
                    hit = Some(q);
                }
            }
            match hit {
                Some(h) => self.ins(format!("@!{h} bra {next}")),
                None => self.ins(format!("bra.uni {next}")),
            }
            self.block(&arm.body)?;
            self.ins(format!("bra.uni {end}"));
            self.place(&next);
        }
        if let Some(d) = default {
            self.block(d)?;
        }
        self.place(&end);
        Ok(())
    }
}

/// The message of `error`/`assert` in a kernel on the GPU: its parts must be string constants
/// (the GPU reports a site, not formatted values).
fn constant_text(items: &[Expr], what: &str) -> Res<String> {
    let mut text = String::new();
    for it in items {
        match &it.kind {
            ir::ExprKind::Const(ir::Const::Str(s)) => text.push_str(s),
            _ => {
                return unsupported(
                    it.span,
                    format!("a value that is not a string literal in the message of `{what}`"),
                    format!(
                        "give `{what}` a string literal message (`error(\"index too \
                         large\")`) and report values from host code"
                    ),
                )
            }
        }
    }
    Ok(text)
}
