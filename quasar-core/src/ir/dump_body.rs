//! The bodies of function instances as text: every statement, and every expression with its
//! type in braces, so tests can check what inference decided (`quasar check --ir`).
//!
//! ```text
//! scale(x : mat, a : scalar) -> (y : mat)
//!     y = (x{mat} * a{scalar}){mat}
//! ```
//!
//! A partitioned kernel (`ir::partition`) marks the accesses unchecked in its interior with
//! `!` after the brackets and lists the bounds of the interior after its body.

use super::dump::signature;
use super::{
    Block, Callee, Const, Expr, ExprKind, Function, Index, Module, Place, PlaceKind, Stmt, StmtKind,
};
use std::fmt::Write;

/// Every instance: its signature, then its body indented.
pub fn module(m: &Module) -> String {
    let mut out = String::new();
    for f in &m.functions {
        out.push_str(&function(m, f));
    }
    out
}

/// One instance: its signature and body.
pub fn function(m: &Module, f: &Function) -> String {
    let mut d = Dumper { m, f, out: String::new() };
    let _ = writeln!(d.out, "{}", signature(f));
    d.block(&f.body, 1);
    if let Some(p) = &f.partition {
        let flat = match (p.flat, p.merge_rows) {
            (_, true) => " (merged rows)",
            (true, false) => " (flat rows)",
            _ => "",
        };
        d.line(1, &format!("interior{flat}:"));
        for c in &p.region {
            let pos = format!("pos[{}]", c.launch_dim);
            let (lo, hi) = (d.bound(&c.lo), d.bound(&c.hi));
            let base = d.local(c.base);
            let text = format!("0 <= {pos} + {lo} && {pos} + {hi} < size({base}, {})", c.array_dim);
            d.line(2, &text);
        }
        for g in &p.guards {
            let (lo, hi) = (d.bound(&g.lo), d.bound(&g.hi));
            let base = d.local(g.base);
            let text = format!("guard: 0 <= {lo} && {hi} < size({base}, {})", g.array_dim);
            d.line(2, &text);
        }
    }
    d.out
}

struct Dumper<'m> {
    m: &'m Module,
    f: &'m Function,
    out: String,
}

impl Dumper<'_> {
    fn line(&mut self, depth: usize, text: &str) {
        let _ = writeln!(self.out, "{}{text}", "    ".repeat(depth));
    }

    fn block(&mut self, b: &Block, depth: usize) {
        for s in b {
            crate::stack::guard(|| self.stmt(s, depth));
        }
    }

    fn stmt(&mut self, s: &Stmt, depth: usize) {
        match &s.kind {
            StmtKind::Assign { place, op, value } => {
                let text = format!("{} {} {}", self.place(place), op.symbol(), self.expr(value));
                self.line(depth, &text);
            }
            StmtKind::Destructure { places, value } => {
                let targets: Vec<String> = places
                    .iter()
                    .map(|p| p.as_ref().map_or("_".to_string(), |p| self.place(p)))
                    .collect();
                let text = format!("[{}] = {}", targets.join(", "), self.expr(value));
                self.line(depth, &text);
            }
            StmtKind::Expr(e) => {
                let text = self.expr(e);
                self.line(depth, &text);
            }
            StmtKind::If { cond, then_body, else_body } => {
                let text = format!("if {}", self.expr(cond));
                self.line(depth, &text);
                self.block(then_body, depth + 1);
                if !else_body.is_empty() {
                    self.line(depth, "else");
                    self.block(else_body, depth + 1);
                }
                self.line(depth, "endif");
            }
            StmtKind::ForRange { var, start, step, end, body, hint } => {
                let attr = match hint {
                    super::LoopHint::Auto => String::new(),
                    super::LoopHint::Parallel { dims, block } => {
                        let dim = dims.map(|n| format!("; dim={n}")).unwrap_or_default();
                        let one = |b: &super::BlockSize1| match b {
                            super::BlockSize1::Const(n) => n.to_string(),
                            super::BlockSize1::Local(l) => format!("%{}", l.0),
                        };
                        let blk = match block.as_deref() {
                            Some(b @ super::BlockSize::Dims(..)) => {
                                let xs: Vec<String> = b.extents().iter().map(one).collect();
                                format!("; blkdim=[{}]", xs.join(", "))
                            }
                            Some(b) => {
                                let xs = b.extents();
                                format!("; blkdim={}", xs.first().map(one).unwrap_or_default())
                            }
                            None => String::new(),
                        };
                        format!("{{!parallel for{dim}{blk}}} ")
                    }
                    super::LoopHint::Serial => "{!serial for} ".into(),
                };
                let text = format!(
                    "{attr}for {} = {}..{}..{}",
                    self.local(*var),
                    self.expr(start),
                    self.expr(step),
                    self.expr(end)
                );
                self.line(depth, &text);
                self.block(body, depth + 1);
                self.line(depth, "endfor");
            }
            StmtKind::ForEach { var, values, body } => {
                let text = format!("for {} in {}", self.local(*var), self.expr(values));
                self.line(depth, &text);
                self.block(body, depth + 1);
                self.line(depth, "endfor");
            }
            StmtKind::While { cond, body } => {
                let text = format!("while {}", self.expr(cond));
                self.line(depth, &text);
                self.block(body, depth + 1);
                self.line(depth, "endwhile");
            }
            StmtKind::Repeat { body, until } => {
                self.line(depth, "repeat");
                self.block(body, depth + 1);
                let text = format!("until {}", self.expr(until));
                self.line(depth, &text);
            }
            StmtKind::Break => self.line(depth, "break"),
            StmtKind::Continue => self.line(depth, "continue"),
            StmtKind::Return => self.line(depth, "return"),
            StmtKind::Match { scrutinee, arms, default } => {
                let text = format!("match {}", self.expr(scrutinee));
                self.line(depth, &text);
                for arm in arms {
                    let values: Vec<String> = arm.values.iter().map(|v| self.expr(v)).collect();
                    self.line(depth, &format!("| {} ->", values.join(", ")));
                    self.block(&arm.body, depth + 1);
                }
                if let Some(b) = default {
                    self.line(depth, "| _ ->");
                    self.block(b, depth + 1);
                }
                self.line(depth, "endmatch");
            }
            StmtKind::Try { body, catch_var, handler } => {
                self.line(depth, "try");
                self.block(body, depth + 1);
                let var = catch_var.map(|v| format!(" {}", self.local(v))).unwrap_or_default();
                self.line(depth, &format!("catch{var}"));
                self.block(handler, depth + 1);
                self.line(depth, "endtry");
            }
            StmtKind::Print(values) => {
                let text = format!("print {}", self.list(values));
                self.line(depth, &text);
            }
            StmtKind::Error(values) => {
                let text = format!("error {}", self.list(values));
                self.line(depth, &text);
            }
            StmtKind::Assert { cond, message } => {
                let mut text = format!("assert({}", self.expr(cond));
                for m in message {
                    let _ = write!(text, ", {}", self.expr(m));
                }
                text.push(')');
                self.line(depth, &text);
            }
            StmtKind::SyncThreads => self.line(depth, "syncthreads"),
        }
    }

    fn local(&self, id: super::LocalId) -> String {
        self.f.locals.get(id.0 as usize).map_or_else(|| format!("%{}", id.0), |l| l.name.clone())
    }

    fn list(&self, items: &[Expr]) -> String {
        items.iter().map(|e| self.expr(e)).collect::<Vec<_>>().join(", ")
    }

    /// `!` for an access unchecked in the interior of the kernel's partition.
    fn mark(&self, id: super::NodeId) -> &'static str {
        match &self.f.partition {
            Some(p) if p.unchecked.contains(&id) => "!",
            _ => "",
        }
    }

    fn bound(&self, b: &super::partition::Bound) -> String {
        use super::partition::Term;
        let mut s = b.c.to_string();
        for &(k, t) in &b.terms {
            let v = match t {
                Term::Local(l) => self.local(l),
                Term::Numel(l) => format!("numel({})", self.local(l)),
                Term::Size(l, d) => format!("size({}, {d})", self.local(l)),
            };
            let _ = write!(
                s,
                " {} {}{v}",
                if k < 0 { '-' } else { '+' },
                if k.abs() == 1 { String::new() } else { format!("{}*", k.abs()) }
            );
        }
        if b.terms.is_empty() {
            s
        } else {
            format!("({s})")
        }
    }

    fn place(&self, p: &Place) -> String {
        match &p.kind {
            PlaceKind::Local(id) => format!("{}{{{}}}", self.local(*id), p.ty),
            PlaceKind::Index { base, indices } => {
                let m = self.mark(p.id);
                format!("{}[{}]{m}{{{}}}", self.expr(base), self.indices(indices), p.ty)
            }
            PlaceKind::Field { base, field } => format!("{}.{field}{{{}}}", self.expr(base), p.ty),
        }
    }

    fn indices(&self, indices: &[Index]) -> String {
        indices
            .iter()
            .map(|i| match i {
                Index::At(e) => self.expr(e),
                Index::All => ":".to_string(),
                Index::Range { start, step: None, end } => {
                    format!("{}..{}", self.expr(start), self.expr(end))
                }
                Index::Range { start, step: Some(s), end } => {
                    format!("{}..{}..{}", self.expr(start), self.expr(s), self.expr(end))
                }
                Index::Spread(e) => format!("...{}", self.expr(e)),
                Index::List(e) => format!("list {}", self.expr(e)),
            })
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn callee(&self, c: &Callee) -> String {
        match c {
            Callee::Function(id) => self.m.function(*id).instance_name.clone(),
            Callee::Builtin(b) => b.to_string(),
            Callee::Unresolved(name) => name.clone(),
            Callee::Value(e) => format!("({})", self.expr(e)),
        }
    }

    /// An expression followed by its type in braces.
    fn expr(&self, e: &Expr) -> String {
        let text = crate::stack::guard(|| self.expr_text(e));
        format!("{text}{{{}}}", e.ty)
    }

    fn expr_text(&self, e: &Expr) -> String {
        match &e.kind {
            ExprKind::Const(c) => match c {
                Const::Int(i) => i.to_string(),
                Const::Scalar(x) => format!("{x:?}"),
                Const::Complex(re, im) => format!("{re:?}+{im:?}i"),
                Const::Str(s) => format!("\"{s}\""),
                Const::Null => "nullptr".to_string(),
            },
            ExprKind::Local(id) => self.local(*id),
            ExprKind::FunctionRef(id) => format!("&{}", self.m.function(*id).instance_name),
            ExprKind::BuiltinRef(name) => format!("&{name}"),
            ExprKind::Unary { op, operand } => format!("{}{}", op.symbol(), self.expr(operand)),
            ExprKind::Binary { op, lhs, rhs } => {
                format!("({} {} {})", self.expr(lhs), op.symbol(), self.expr(rhs))
            }
            ExprKind::Convert(inner) => format!("convert({})", self.expr(inner)),
            ExprKind::Call { callee, args } => {
                format!("{}({})", self.callee(callee), self.list(args))
            }
            ExprKind::ParallelDo { dims, block_dims, kernel, args } => {
                let blk = block_dims
                    .as_ref()
                    .map(|b| format!(", block {}", self.expr(b)))
                    .unwrap_or_default();
                let args =
                    if args.is_empty() { String::new() } else { format!(", {}", self.list(args)) };
                format!(
                    "parallel_do({}{blk}, {}{args})",
                    self.expr(dims),
                    self.m.function(*kernel).instance_name
                )
            }
            ExprKind::Index { base, indices } => {
                format!("{}[{}]{}", self.expr(base), self.indices(indices), self.mark(e.id))
            }
            ExprKind::Field { base, field } => format!("{}.{field}", self.expr(base)),
            ExprKind::Matrix(items) => format!("[{}]", self.list(items)),
            ExprKind::Cell(items) => format!("{{{}}}", self.list(items)),
            ExprKind::Range { start, step, end } => match step {
                Some(s) => format!("{}..{}..{}", self.expr(start), self.expr(s), self.expr(end)),
                None => format!("{}..{}", self.expr(start), self.expr(end)),
            },
            ExprKind::Ternary { cond, then, otherwise } => {
                format!("({} ? {} : {})", self.expr(cond), self.expr(then), self.expr(otherwise))
            }
            ExprKind::Closure { function, captures } => {
                format!(
                    "closure {}[{}]",
                    self.m.function(*function).instance_name,
                    self.list(captures)
                )
            }
            ExprKind::Construct { fields, .. } => {
                let fs: Vec<String> =
                    fields.iter().map(|(n, v)| format!("{n} := {}", self.expr(v))).collect();
                format!("{}({})", e.ty, fs.join(", "))
            }
            ExprKind::Assign { place, op, value } => {
                format!("({} {} {})", self.place(place), op.symbol(), self.expr(value))
            }
            ExprKind::TypeValue => "type".to_string(),
            ExprKind::EnumValue { value, .. } => format!("{}.{value}", e.ty),
            ExprKind::Sequence(items) => {
                format!("({})", items.iter().map(|i| self.expr(i)).collect::<Vec<_>>().join("; "))
            }
            ExprKind::Spread(inner) => format!("...{}", self.expr(inner)),
            ExprKind::TupleField { tuple, index } => format!("{}.{index}", self.expr(tuple)),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::sema::check::check_program;
    use crate::span::FileId;
    use crate::syntax::parse;

    fn dump(src: &str) -> String {
        let parsed = parse(src, FileId(0));
        let c = check_program(&parsed.program);
        assert!(!c.has_errors(), "{:?}", c.diagnostics);
        super::module(&c.module)
    }

    #[test]
    fn shows_types_conversions_and_calls() {
        let d = dump("function y = scale(x : mat, a : scalar)\n    y = x * a\nendfunction\nz = scale(eye(2), 2)\n");
        assert!(d.contains("scale(x : mat(2, 2), a : scalar) -> (y : mat(2, 2))"), "{d}");
        assert!(d.contains("    y{mat(2, 2)} = (x{mat(2, 2)} * a{scalar}){mat(2, 2)}"), "{d}");
        assert!(
            d.contains("z{mat(2, 2)} = scale_0(eye(2{int}){mat(2, 2)}, 2{int}){mat(2, 2)}"),
            "{d}"
        );
    }

    #[test]
    fn shows_kernels_loops_and_implicit_conversions() {
        let src = "function [] = __kernel__ k(y : vec, pos : int)\n    y[pos] = pos\nendfunction\ny = zeros(4)\nparallel_do(4, y, k)\na = 0\nfor i = 0..3\n    a += y[i]\nendfor\n";
        let d = dump(src);
        assert!(d.contains("y{vec4}[pos{int}]{scalar} = convert(pos{int}){scalar}"), "{d}");
        assert!(d.contains("parallel_do(4{int}, k_0, y{vec4}){()}"), "{d}");
        assert!(d.contains("for i = 0{int}..1{int}..3{int}"), "{d}");
        assert!(d.contains("a{int} += convert(y{vec4}[i{int}]{scalar}){int}"), "{d}");
    }
}
