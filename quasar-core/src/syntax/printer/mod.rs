//! The pretty-printer: turns an AST back into Quasar source text.
//!
//! The output re-parses to an equal tree (`parse(print(t)) == t` for every tree `t` the
//! parser produces). The printer therefore never adds grouping of its own: parentheses in
//! the source are [`ExprKind::Paren`] nodes and are printed from those, so a tree coming
//! from the parser is already grouped correctly. Layout is normalised: four spaces of
//! indentation per block, one statement per line, spaces around binary and assignment
//! operators (but not around `..`), and the block endings of the program's
//! [`BlockStyle`] (`endfor`, `endif`, … or the legacy `end`).

mod expr;
mod types;

use super::ast::*;
use expr::expr;
pub(crate) use expr::{assign_op_str, binary_op_str};
use types::ty;

/// Prints a whole program; every statement ends with a newline.
pub fn print_program(p: &Program) -> String {
    let mut pr = Printer::new(p.style);
    for s in &p.body {
        pr.stmt(s);
    }
    pr.out
}

/// Prints one expression on a single line.
pub fn print_expr(e: &Expr) -> String {
    let mut out = String::new();
    expr(e, &mut out);
    out
}

/// Prints a type as it is written after `:` (function types in brackets).
pub fn print_type(t: &TypeExpr) -> String {
    let mut out = String::new();
    ty(t, &mut out);
    out
}

/// Prints one statement at indentation 0 with modern block endings, without a trailing
/// newline (a block statement spans several lines).
pub fn print_stmt(s: &Stmt) -> String {
    let mut pr = Printer::new(BlockStyle::Modern);
    pr.stmt(s);
    if pr.out.ends_with('\n') {
        pr.out.pop();
    }
    pr.out
}

struct Printer {
    out: String,
    style: BlockStyle,
    indent: usize,
}

impl Printer {
    fn new(style: BlockStyle) -> Printer {
        Printer { out: String::new(), style, indent: 0 }
    }

    /// Starts a new line at the current indentation and writes `text` on it.
    fn line(&mut self, text: &str) {
        for _ in 0..self.indent {
            self.out.push_str("    ");
        }
        self.out.push_str(text);
        self.out.push('\n');
    }

    /// The closing keyword of a block: `modern` or, in a legacy file, `end`.
    fn end(&mut self, modern: &str) {
        let word = match self.style {
            BlockStyle::Modern => modern,
            BlockStyle::Legacy => "end",
        };
        self.line(word);
    }

    fn block(&mut self, body: &[Stmt]) {
        self.indent += 1;
        for s in body {
            self.stmt(s);
        }
        self.indent -= 1;
    }

    fn stmt(&mut self, s: &Stmt) {
        crate::stack::guard(|| self.stmt_unguarded(s))
    }

    fn stmt_unguarded(&mut self, s: &Stmt) {
        match &s.kind {
            StmtKind::Expr(e) => {
                // A lone `_` at the end of a line would read back as a line continuation.
                let text = print_expr(e);
                let lone_placeholder = text.strip_suffix('_').is_some_and(|t| {
                    !t.ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_' || c == '$')
                });
                if lone_placeholder {
                    self.line(&format!("{text};"));
                } else {
                    self.line(&text);
                }
            }
            StmtKind::If { branches, else_body } => {
                for (i, (cond, body)) in branches.iter().enumerate() {
                    let kw = if i == 0 { "if" } else { "elseif" };
                    self.line(&format!("{kw} {}", print_expr(cond)));
                    self.block(body);
                }
                if let Some(body) = else_body {
                    self.line("else");
                    self.block(body);
                }
                self.end("endif");
            }
            StmtKind::For { var, iter, body } => {
                self.line(&format!("for {} = {}", var.name, print_expr(iter)));
                self.block(body);
                self.end("endfor");
            }
            StmtKind::While { cond, body } => {
                self.line(&format!("while {}", print_expr(cond)));
                self.block(body);
                self.end("endwhile");
            }
            StmtKind::Repeat { body, until } => {
                self.line("repeat");
                self.block(body);
                self.line(&format!("until {}", print_expr(until)));
            }
            StmtKind::Match { scrutinee, arms } => {
                self.line(&format!("match {} with", print_expr(scrutinee)));
                for arm in arms {
                    let pats = match arm.patterns.as_slice() {
                        [single] => print_expr(single),
                        many => format!("({})", join(many, ", ", print_expr)),
                    };
                    self.line(&format!("| {pats} ->"));
                    self.block(&arm.body);
                }
                self.end("endmatch");
            }
            StmtKind::Try { body, catch_var, catch_type, catch_body } => {
                self.line("try");
                self.block(body);
                match (catch_var, catch_type) {
                    (Some(v), Some(t)) => {
                        self.line(&format!("catch {} : {}", v.name, print_type(t)))
                    }
                    (Some(v), None) => self.line(&format!("catch {}", v.name)),
                    (None, _) => self.line("catch"),
                }
                self.block(catch_body);
                self.end("endtry");
            }
            StmtKind::Break => self.line("break"),
            StmtKind::Continue => self.line("continue"),
            StmtKind::Return => self.line("return"),
            StmtKind::Function(f) => self.function(f),
            StmtKind::TypeDef(t) => self.typedef(t),
            StmtKind::Reduction(r) => {
                let params = join(&r.params, ", ", print_param);
                let mut text = if r.parenthesized {
                    format!("reduction ({params}) -> ")
                } else {
                    format!("reduction {params} -> ")
                };
                text.push_str(&print_expr(&r.pattern));
                text.push_str(" = ");
                text.push_str(&print_expr(&r.replacement));
                if let Some(c) = &r.condition {
                    text.push_str(" where ");
                    text.push_str(&print_expr(c));
                }
                self.line(&text);
            }
            StmtKind::Symbolic(params) => {
                self.line(&format!("symbolic {}", join(params, ", ", print_param)));
            }
            StmtKind::Import { path } => self.line(&format!("import \"{path}\"")),
            StmtKind::Attribute(a) => self.line(&print_attribute(a)),
            StmtKind::Pragma(text) => self.line(&format!("#{text}")),
        }
    }

    fn function(&mut self, f: &FunctionDef) {
        let mut head = String::from(if f.is_macro { "macro " } else { "function " });
        if f.bracketed_outputs {
            head.push('[');
            head.push_str(&join(&f.outputs, ", ", print_param));
            head.push_str("] = ");
        } else if !f.outputs.is_empty() {
            // Several outputs without brackets cannot be written; the parser never makes them.
            head.push_str(&join(&f.outputs, ", ", print_param));
            head.push_str(" = ");
        }
        if let Some(word) = f.kind.word() {
            head.push_str(word);
            head.push(' ');
        }
        head.push_str(&f.name.name);
        if !f.type_params.is_empty() {
            head.push('[');
            head.push_str(&join(&f.type_params, ", ", print_param));
            head.push(']');
        }
        head.push('(');
        head.push_str(&join(&f.params, ", ", print_param));
        head.push(')');
        for q in &f.qualifiers {
            head.push(' ');
            head.push_str(&q.name);
        }
        self.line(&head);
        self.block(&f.body);
        self.end(if f.is_macro { "endmacro" } else { "endfunction" });
    }

    fn typedef(&mut self, t: &TypeDef) {
        let mut head = format!("type {}", t.name.name);
        if !t.params.is_empty() {
            head.push('[');
            head.push_str(&join(&t.params, ", ", print_param));
            head.push(']');
        }
        head.push_str(" : ");
        match &t.body {
            TypeDefBody::Alias(aliased) => {
                head.push_str(&print_type(aliased));
                self.line(&head);
            }
            TypeDefBody::Class { kind, parent, fields } => {
                match parent {
                    Some(p) => head.push_str(&print_type(p)),
                    None => head.push_str(match kind {
                        ClassKind::Immutable => "class",
                        ClassKind::Mutable => "mutable class",
                        ClassKind::Dynamic => "dynamic class",
                    }),
                }
                self.line(&head);
                self.indent += 1;
                for field in fields {
                    self.line(&print_param(field));
                }
                self.indent -= 1;
                self.end("endtype");
            }
            TypeDefBody::Enum(variants) => {
                head.push_str("enum");
                self.line(&head);
                self.indent += 1;
                for v in variants {
                    match &v.value {
                        Some(value) => {
                            self.line(&format!("{} = {}", v.name.name, print_expr(value)))
                        }
                        None => self.line(&v.name.name),
                    }
                }
                self.indent -= 1;
                self.end("endtype");
            }
        }
    }
}

pub(super) fn join<T>(items: &[T], sep: &str, f: impl Fn(&T) -> String) -> String {
    let mut out = String::new();
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(sep);
        }
        out.push_str(&f(item));
    }
    out
}

/// `...name : T = default`
pub(super) fn print_param(p: &Param) -> String {
    let mut out = String::new();
    if p.variadic {
        out.push_str("...");
    }
    out.push_str(&p.name.name);
    if let Some(t) = &p.ty {
        out.push_str(" : ");
        ty(t, &mut out);
    }
    if let Some(d) = &p.default {
        out.push_str(" = ");
        expr(d, &mut out);
    }
    out
}

pub(super) fn print_arg(a: &Arg) -> String {
    let mut out = String::new();
    if let Some(name) = &a.name {
        out.push_str(&name.name);
        out.push_str(":=");
    }
    expr(&a.value, &mut out);
    out
}

/// `{!parallel for; blkdim=M}` or, unbraced, `!parallel for; blkdim=M`.
fn print_attribute(a: &Attribute) -> String {
    let mut out = String::from(if a.braced { "{!" } else { "!" });
    for (i, item) in a.items.iter().enumerate() {
        if i > 0 {
            out.push_str(" !");
        }
        out.push_str(&join(&item.name, " ", |id| id.name.clone()));
        for arg in &item.args {
            out.push_str(match arg.sep {
                AttrSep::First => " ",
                AttrSep::Semi => "; ",
                AttrSep::Comma => ", ",
            });
            out.push_str(&arg.key.name);
            out.push('=');
            expr(&arg.value, &mut out);
        }
    }
    if a.braced {
        out.push('}');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::span::Span;

    fn sp() -> Span {
        Span::default()
    }
    fn id(name: &str) -> Ident {
        Ident { name: name.to_string(), span: sp() }
    }
    fn ex(kind: ExprKind) -> Expr {
        Expr::new(kind, sp())
    }
    fn b(e: Expr) -> Box<Expr> {
        Box::new(e)
    }
    fn num(t: &str) -> Expr {
        ex(ExprKind::Number(t.to_string()))
    }
    fn var(n: &str) -> Expr {
        ex(ExprKind::Ident(n.to_string()))
    }
    fn string(t: &str) -> Expr {
        ex(ExprKind::Str(t.to_string()))
    }
    fn bin(op: BinaryOp, l: Expr, r: Expr) -> Expr {
        ex(ExprKind::Binary { op, lhs: b(l), rhs: b(r) })
    }
    fn un(op: UnaryOp, e: Expr) -> Expr {
        ex(ExprKind::Unary { op, operand: b(e) })
    }
    fn asg(op: AssignOp, l: Expr, r: Expr) -> Expr {
        ex(ExprKind::Assign { op, lhs: b(l), rhs: b(r) })
    }
    fn paren(e: Expr) -> Expr {
        ex(ExprKind::Paren(vec![e]))
    }
    fn arg(e: Expr) -> Arg {
        Arg { name: None, value: e }
    }
    fn call(f: &str, a: Vec<Expr>) -> Expr {
        ex(ExprKind::Call {
            callee: b(var(f)),
            args: a.into_iter().map(arg).collect(),
            style: CallStyle::Paren,
        })
    }
    fn cmd(f: &str, a: Vec<Expr>) -> Expr {
        ex(ExprKind::Call {
            callee: b(var(f)),
            args: a.into_iter().map(arg).collect(),
            style: CallStyle::Command,
        })
    }
    fn index(base: Expr, a: Vec<Expr>) -> Expr {
        ex(ExprKind::Index { base: b(base), indices: a.into_iter().map(arg).collect() })
    }
    fn annotated(e: Expr, t: TypeExpr) -> Expr {
        ex(ExprKind::Annotated { expr: b(e), ty: Box::new(t) })
    }
    fn t(kind: TypeKind) -> TypeExpr {
        TypeExpr { kind, modifiers: vec![], span: sp() }
    }
    fn tmod(kind: TypeKind, mods: &[&str]) -> TypeExpr {
        TypeExpr {
            kind,
            modifiers: mods.iter().map(|m| Modifier { name: id(m), args: None }).collect(),
            span: sp(),
        }
    }
    fn named(n: &str) -> TypeExpr {
        t(TypeKind::Named { name: id(n), dims: None, args: vec![], sizes: None })
    }
    fn fn_ty(params: Vec<TypeExpr>, parenthesized: bool, results: Vec<TypeExpr>) -> TypeExpr {
        t(TypeKind::Function(FunctionType {
            kind: FunctionKind::Host,
            params: params
                .into_iter()
                .map(|ty| FunctionTypeParam { ty, variadic: false })
                .collect(),
            parenthesized,
            results,
            results_parenthesized: false,
        }))
    }
    fn param(n: &str, ty: Option<TypeExpr>) -> Param {
        Param { name: id(n), ty, default: None, variadic: false, span: sp() }
    }
    fn st(kind: StmtKind) -> Stmt {
        Stmt { kind, span: sp() }
    }
    fn es(e: Expr) -> Stmt {
        st(StmtKind::Expr(e))
    }
    fn prog(style: BlockStyle, body: Vec<Stmt>) -> Program {
        Program { body, style, span: sp() }
    }

    #[test]
    fn literals_and_atoms() {
        assert_eq!(print_expr(&num("1.5e-3")), "1.5e-3");
        assert_eq!(print_expr(&num("1Fh")), "1Fh");
        assert_eq!(print_expr(&string("a\\n\\\"b")), "\"a\\n\\\"b\"");
        assert_eq!(print_expr(&var("x")), "x");
        assert_eq!(print_expr(&ex(ExprKind::Placeholder)), "_");
        assert_eq!(print_expr(&ex(ExprKind::Colon)), ":");
        assert_eq!(print_expr(&ex(ExprKind::Unknown)), "??");
        assert_eq!(print_expr(&ex(ExprKind::Spread(b(var("args"))))), "...args");
    }

    #[test]
    fn operators() {
        let e = bin(BinaryOp::Add, var("a"), bin(BinaryOp::ElemMul, var("b"), var("c")));
        assert_eq!(print_expr(&e), "a + b .* c");
        let e = bin(BinaryOp::Mul, paren(bin(BinaryOp::Sub, var("a"), var("b"))), var("c"));
        assert_eq!(print_expr(&e), "(a - b) * c");
        let ops = [
            (BinaryOp::Div, "/"),
            (BinaryOp::Pow, "^"),
            (BinaryOp::ElemDiv, "./"),
            (BinaryOp::ElemPow, ".^"),
            (BinaryOp::Lt, "<"),
            (BinaryOp::Le, "<="),
            (BinaryOp::Gt, ">"),
            (BinaryOp::Ge, ">="),
            (BinaryOp::Eq, "=="),
            (BinaryOp::Ne, "!="),
            (BinaryOp::And, "&&"),
            (BinaryOp::Or, "||"),
            (BinaryOp::Pipe, "|>"),
        ];
        for (op, s) in ops {
            assert_eq!(print_expr(&bin(op, var("x"), num("2"))), format!("x {s} 2"));
        }
        assert_eq!(print_expr(&un(UnaryOp::Neg, bin(BinaryOp::Pow, var("x"), num("2")))), "-x ^ 2");
        assert_eq!(print_expr(&bin(BinaryOp::Pow, num("2"), un(UnaryOp::Neg, num("1")))), "2 ^ -1");
        assert_eq!(print_expr(&un(UnaryOp::Not, var("ok"))), "!ok");
        assert_eq!(print_expr(&un(UnaryOp::Plus, var("x"))), "+x");
        assert_eq!(print_expr(&un(UnaryOp::Neg, un(UnaryOp::Neg, var("x")))), "--x");
        let tern =
            ex(ExprKind::Ternary { cond: b(var("c")), then: b(num("1")), otherwise: b(num("2")) });
        assert_eq!(print_expr(&tern), "c ? 1 : 2");
    }

    #[test]
    fn assignments() {
        let ops = [
            (AssignOp::Assign, "="),
            (AssignOp::Define, ":="),
            (AssignOp::Add, "+="),
            (AssignOp::Sub, "-="),
            (AssignOp::Mul, "*="),
            (AssignOp::Div, "/="),
            (AssignOp::Pow, "^="),
            (AssignOp::ElemMul, ".*="),
            (AssignOp::ElemDiv, "./="),
            (AssignOp::ElemPow, ".^="),
            (AssignOp::Max, "^^="),
            (AssignOp::Min, "__="),
            (AssignOp::Xor, "~="),
            (AssignOp::Or, "|="),
            (AssignOp::And, "&="),
        ];
        for (op, s) in ops {
            assert_eq!(print_expr(&asg(op, var("y"), var("x"))), format!("y {s} x"));
        }
        let chain = asg(AssignOp::Assign, var("a"), asg(AssignOp::Assign, var("b"), num("1")));
        assert_eq!(print_expr(&chain), "a = b = 1");
        let multi = asg(
            AssignOp::Assign,
            ex(ExprKind::Matrix(vec![var("a"), ex(ExprKind::Placeholder)])),
            ex(ExprKind::Matrix(vec![num("1"), num("2")])),
        );
        assert_eq!(print_expr(&multi), "[a, _] = [1, 2]");
        let decl = asg(AssignOp::Assign, annotated(var("x"), named("int")), num("4"));
        assert_eq!(print_expr(&decl), "x : int = 4");
        let inferred = annotated(var("n"), tmod(TypeKind::Inferred, &["const"]));
        assert_eq!(print_expr(&asg(AssignOp::Assign, inferred, num("4"))), "n : 'const = 4");
    }

    #[test]
    fn ranges() {
        let r = ex(ExprKind::Range { start: b(num("0")), step: None, end: b(num("9")) });
        assert_eq!(print_expr(&r), "0..9");
        let r =
            ex(ExprKind::Range { start: b(num("0")), step: Some(b(num("2"))), end: b(var("n")) });
        assert_eq!(print_expr(&r), "0..2..n");
        let r = ex(ExprKind::Range {
            start: b(bin(BinaryOp::Add, var("a"), num("1"))),
            step: None,
            end: b(bin(BinaryOp::Sub, var("b"), num("1"))),
        });
        assert_eq!(print_expr(&r), "a + 1..b - 1");
        // Dots of neighbouring literals must not run together.
        let r = ex(ExprKind::Range { start: b(num("1.")), step: None, end: b(num(".5")) });
        assert_eq!(print_expr(&r), "1. .. .5");
    }

    #[test]
    fn postfix_forms() {
        let c = ex(ExprKind::Call {
            callee: b(var("f")),
            args: vec![arg(var("a")), Arg { name: Some(id("mode")), value: string("x") }],
            style: CallStyle::Paren,
        });
        assert_eq!(print_expr(&c), "f(a, mode:=\"x\")");
        assert_eq!(print_expr(&call("f", vec![])), "f()");
        assert_eq!(print_expr(&cmd("print", vec![string("a = "), var("a")])), "print \"a = \", a");
        assert_eq!(print_expr(&cmd("pause", vec![])), "pause");
        let i = index(var("A"), vec![ex(ExprKind::Colon), num("0")]);
        assert_eq!(print_expr(&i), "A[:, 0]");
        let fld = ex(ExprKind::Field { base: b(var("p")), name: id("x") });
        assert_eq!(print_expr(&fld), "p.x");
        let dims =
            ex(ExprKind::Dims { base: b(var("cube")), dims: Box::new(DimSpec::Fixed(num("4"))) });
        assert_eq!(print_expr(&dims), "cube{4}");
        let dims = ex(ExprKind::Dims { base: b(var("cube")), dims: Box::new(DimSpec::Any) });
        assert_eq!(print_expr(&dims), "cube{:}");
        let m = ex(ExprKind::Modified { base: b(var("scalar")), modifier: id("half") });
        assert_eq!(print_expr(&m), "scalar'half");
        let ty_call = call("vec", vec![num("4")]);
        let ty_call = match ty_call.kind {
            ExprKind::Call { args, style, .. } => ex(ExprKind::Call {
                callee: b(index(var("vec"), vec![ex(ExprKind::Unknown)])),
                args,
                style,
            }),
            _ => unreachable!(),
        };
        assert_eq!(print_expr(&ty_call), "vec[??](4)");
        let chained = ex(ExprKind::Call {
            callee: b(call("filter", vec![string("Laplacian")])),
            args: vec![arg(var("im"))],
            style: CallStyle::Paren,
        });
        assert_eq!(print_expr(&chained), "filter(\"Laplacian\")(im)");
    }

    #[test]
    fn aggregates() {
        let m = ex(ExprKind::Matrix(vec![
            ex(ExprKind::Matrix(vec![num("1"), num("2")])),
            ex(ExprKind::Matrix(vec![num("3"), num("4")])),
        ]));
        assert_eq!(print_expr(&m), "[[1, 2], [3, 4]]");
        assert_eq!(print_expr(&ex(ExprKind::Matrix(vec![]))), "[]");
        assert_eq!(print_expr(&ex(ExprKind::Cell(vec![num("1"), string("a")]))), "{1, \"a\"}");
        assert_eq!(print_expr(&ex(ExprKind::Paren(vec![var("a"), var("b")]))), "(a; b)");
        assert_eq!(print_expr(&paren(var("a"))), "(a)");
        assert_eq!(print_expr(&ex(ExprKind::Tuple(vec![num("3"), num("4")]))), "(3, 4)");
        let annotated_elem = ex(ExprKind::Matrix(vec![annotated(var("a"), named("int"))]));
        assert_eq!(print_expr(&annotated_elem), "[a : int]");
    }

    #[test]
    fn lambdas() {
        let body = bin(BinaryOp::Add, var("x"), num("1"));
        let l = |params: Vec<Param>, parenthesized: bool, kind: FunctionKind| {
            ex(ExprKind::Lambda(Lambda { kind, params, parenthesized, body: b(body.clone()) }))
        };
        assert_eq!(print_expr(&l(vec![param("x", None)], false, FunctionKind::Host)), "x -> x + 1");
        assert_eq!(
            print_expr(&l(vec![param("x", None)], true, FunctionKind::Host)),
            "(x) -> x + 1"
        );
        assert_eq!(print_expr(&l(vec![], true, FunctionKind::Host)), "() -> x + 1");
        assert_eq!(
            print_expr(&l(
                vec![param("x", Some(named("scalar"))), param("y", None)],
                true,
                FunctionKind::Host
            )),
            "(x : scalar, y) -> x + 1"
        );
        assert_eq!(
            print_expr(&l(vec![param("x", Some(named("scalar")))], false, FunctionKind::Device)),
            "__device__ (x : scalar) -> x + 1"
        );
        assert_eq!(
            print_expr(&l(vec![param("x", None)], false, FunctionKind::Kernel)),
            "__kernel__ (x) -> x + 1"
        );
        let mut p = param("rest", None);
        p.variadic = true;
        let mut q = param("k", Some(named("int")));
        q.default = Some(num("3"));
        assert_eq!(
            print_expr(&l(vec![q, p], true, FunctionKind::Host)),
            "(k : int = 3, ...rest) -> x + 1"
        );
        // Curried: x -> y -> x + y
        let inner = ex(ExprKind::Lambda(Lambda {
            kind: FunctionKind::Host,
            params: vec![param("y", None)],
            parenthesized: false,
            body: b(bin(BinaryOp::Add, var("x"), var("y"))),
        }));
        let outer = ex(ExprKind::Lambda(Lambda {
            kind: FunctionKind::Host,
            params: vec![param("x", None)],
            parenthesized: false,
            body: b(inner),
        }));
        assert_eq!(print_expr(&outer), "x -> y -> x + y");
    }

    #[test]
    fn named_types() {
        assert_eq!(print_type(&named("scalar")), "scalar");
        let cube4 = t(TypeKind::Named {
            name: id("cube"),
            dims: Some(DimSpec::Fixed(num("4"))),
            args: vec![named("int16")],
            sizes: None,
        });
        assert_eq!(print_type(&cube4), "cube{4}[int16]");
        let any = t(TypeKind::Named {
            name: id("cube"),
            dims: Some(DimSpec::Any),
            args: vec![],
            sizes: None,
        });
        assert_eq!(print_type(&any), "cube{:}");
        let sized = t(TypeKind::Named {
            name: id("cube"),
            dims: None,
            args: vec![],
            sizes: Some(vec![SizeSpec::Any, SizeSpec::Any, SizeSpec::Expr(num("3"))]),
        });
        assert_eq!(print_type(&sized), "cube(:, :, 3)");
        let generic = tmod(
            TypeKind::Named {
                name: id("mat"),
                dims: None,
                args: vec![named("T")],
                sizes: Some(vec![SizeSpec::Expr(var("M")), SizeSpec::Expr(var("N"))]),
            },
            &["unchecked", "const"],
        );
        assert_eq!(print_type(&generic), "mat[T](M, N)'unchecked'const");
        assert_eq!(
            print_type(&tmod(
                TypeKind::Named { name: id("scalar"), dims: None, args: vec![], sizes: None },
                &["half"]
            )),
            "scalar'half"
        );
    }

    #[test]
    fn other_types() {
        assert_eq!(print_type(&t(TypeKind::Unknown)), "??");
        assert_eq!(print_type(&t(TypeKind::Pointer(Box::new(named("point"))))), "^point");
        assert_eq!(
            print_type(&t(TypeKind::Union(vec![named("int"), named("cube")]))),
            "[int|cube]"
        );
        assert_eq!(
            print_type(&t(TypeKind::Cell(vec![named("int"), named("string")]))),
            "{int, string}"
        );
        assert_eq!(print_type(&t(TypeKind::Unit)), "()");
        assert_eq!(print_type(&tmod(TypeKind::Inferred, &["const"])), "'const");
        assert_eq!(print_type(&tmod(TypeKind::Unknown, &["hwtex_const"])), "??'hwtex_const");
        let vec_unknown = t(TypeKind::Named {
            name: id("vec"),
            dims: None,
            args: vec![t(TypeKind::Unknown)],
            sizes: None,
        });
        assert_eq!(print_type(&vec_unknown), "vec[??]");
    }

    #[test]
    fn function_types() {
        let simple = fn_ty(vec![named("cube")], false, vec![named("cube")]);
        assert_eq!(print_type(&simple), "[cube -> cube]");
        let two = fn_ty(vec![named("scalar"), named("scalar")], true, vec![named("scalar")]);
        assert_eq!(print_type(&two), "[(scalar, scalar) -> scalar]");
        let full = t(TypeKind::Function(FunctionType {
            kind: FunctionKind::Device,
            params: vec![
                FunctionTypeParam { ty: named("A"), variadic: false },
                FunctionTypeParam { ty: named("B"), variadic: true },
            ],
            parenthesized: true,
            results: vec![named("C"), named("D")],
            results_parenthesized: true,
        }));
        assert_eq!(print_type(&full), "[__device__ (A, ...B) -> (C, D)]");
        let unit = t(TypeKind::Function(FunctionType {
            kind: FunctionKind::Kernel,
            params: vec![],
            parenthesized: true,
            results: vec![],
            results_parenthesized: true,
        }));
        assert_eq!(print_type(&unit), "[__kernel__ () -> ()]");
        let unit2 = fn_ty(vec![named("int")], true, vec![t(TypeKind::Unit)]);
        assert_eq!(print_type(&unit2), "[(int) -> ()]");
        // Curried: the inner function type has no brackets of its own.
        let curried = fn_ty(
            vec![named("scalar")],
            false,
            vec![fn_ty(vec![named("scalar")], false, vec![named("scalar")])],
        );
        assert_eq!(print_type(&curried), "[scalar -> scalar -> scalar]");
        // A function type as a parameter, in a union or as a type argument keeps brackets.
        let higher = fn_ty(vec![simple.clone()], false, vec![named("int")]);
        assert_eq!(print_type(&higher), "[[cube -> cube] -> int]");
        assert_eq!(
            print_type(&t(TypeKind::Union(vec![simple.clone(), named("int")]))),
            "[[cube -> cube]|int]"
        );
        let arg = t(TypeKind::Named {
            name: id("vec"),
            dims: None,
            args: vec![simple.clone()],
            sizes: None,
        });
        assert_eq!(print_type(&arg), "vec[[cube -> cube]]");
        // A result with modifiers keeps its brackets.
        let mut modded = simple.clone();
        modded.modifiers.push(Modifier { name: id("const"), args: None });
        let outer = fn_ty(vec![named("int")], false, vec![modded]);
        assert_eq!(print_type(&outer), "[int -> [cube -> cube]'const]");
    }

    #[test]
    fn control_flow_modern() {
        let body = vec![es(cmd("print", vec![var("i")]))];
        let s = st(StmtKind::If {
            branches: vec![
                (bin(BinaryOp::Gt, var("x"), num("0")), body.clone()),
                (bin(BinaryOp::Lt, var("x"), num("0")), vec![st(StmtKind::Break)]),
            ],
            else_body: Some(vec![st(StmtKind::Continue)]),
        });
        assert_eq!(
            print_stmt(&s),
            "if x > 0\n    print i\nelseif x < 0\n    break\nelse\n    continue\nendif"
        );
        let s = st(StmtKind::For {
            var: id("i"),
            iter: ex(ExprKind::Range { start: b(num("0")), step: None, end: b(var("n")) }),
            body: body.clone(),
        });
        assert_eq!(print_stmt(&s), "for i = 0..n\n    print i\nendfor");
        let s = st(StmtKind::While { cond: var("go"), body: vec![] });
        assert_eq!(print_stmt(&s), "while go\nendwhile");
        let s = st(StmtKind::Repeat { body: vec![st(StmtKind::Return)], until: var("done") });
        assert_eq!(print_stmt(&s), "repeat\n    return\nuntil done");
        let s = st(StmtKind::Try {
            body: body.clone(),
            catch_var: Some(id("ex")),
            catch_type: None,
            catch_body: vec![es(cmd("print", vec![var("ex")]))],
        });
        assert_eq!(print_stmt(&s), "try\n    print i\ncatch ex\n    print ex\nendtry");
        let s = st(StmtKind::Try {
            body: vec![],
            catch_var: Some(id("ex")),
            catch_type: Some(named("qexception")),
            catch_body: vec![],
        });
        assert_eq!(print_stmt(&s), "try\ncatch ex : qexception\nendtry");
        let s = st(StmtKind::Try {
            body: vec![],
            catch_var: None,
            catch_type: None,
            catch_body: vec![],
        });
        assert_eq!(print_stmt(&s), "try\ncatch\nendtry");
    }

    #[test]
    fn match_statement() {
        let arm = |patterns: Vec<Expr>, body: Vec<Stmt>| MatchArm { patterns, body, span: sp() };
        let s = st(StmtKind::Match {
            scrutinee: var("a"),
            arms: vec![
                arm(vec![num("1")], vec![es(cmd("print", vec![string("one")]))]),
                arm(vec![num("3"), num("4")], vec![]),
                arm(
                    vec![ex(ExprKind::Placeholder)],
                    vec![es(asg(AssignOp::Assign, var("b"), num("0")))],
                ),
            ],
        });
        assert_eq!(
            print_stmt(&s),
            "match a with\n| 1 ->\n    print \"one\"\n| (3, 4) ->\n| _ ->\n    b = 0\nendmatch"
        );
    }

    #[test]
    fn nested_indentation_and_legacy() {
        let inner = st(StmtKind::For {
            var: id("j"),
            iter: var("r"),
            body: vec![es(asg(AssignOp::Add, var("s"), var("j")))],
        });
        let outer = st(StmtKind::While { cond: var("c"), body: vec![inner] });
        let p = prog(BlockStyle::Modern, vec![outer.clone(), es(var("s"))]);
        assert_eq!(
            print_program(&p),
            "while c\n    for j = r\n        s += j\n    endfor\nendwhile\ns\n"
        );
        let p = prog(BlockStyle::Legacy, vec![outer]);
        assert_eq!(print_program(&p), "while c\n    for j = r\n        s += j\n    end\nend\n");
        let rep = st(StmtKind::Repeat { body: vec![], until: var("c") });
        assert_eq!(print_program(&prog(BlockStyle::Legacy, vec![rep])), "repeat\nuntil c\n");
        let m = st(StmtKind::Match { scrutinee: var("a"), arms: vec![] });
        let tr = st(StmtKind::Try {
            body: vec![],
            catch_var: None,
            catch_type: None,
            catch_body: vec![],
        });
        let iff = st(StmtKind::If { branches: vec![(var("a"), vec![])], else_body: None });
        assert_eq!(
            print_program(&prog(BlockStyle::Legacy, vec![m, tr, iff])),
            "match a with\nend\ntry\ncatch\nend\nif a\nend\n"
        );
        assert_eq!(print_program(&prog(BlockStyle::Modern, vec![])), "");
    }

    fn fdef(name: &str) -> FunctionDef {
        FunctionDef {
            is_macro: false,
            kind: FunctionKind::Host,
            name: id(name),
            type_params: vec![],
            params: vec![],
            outputs: vec![],
            bracketed_outputs: false,
            qualifiers: vec![],
            body: vec![],
            span: sp(),
        }
    }

    #[test]
    fn functions() {
        let mut f = fdef("f");
        f.params = vec![param("x", None)];
        f.body = vec![es(cmd("print", vec![var("x")]))];
        let s = st(StmtKind::Function(Box::new(f.clone())));
        assert_eq!(print_stmt(&s), "function f(x)\n    print x\nendfunction");
        let legacy = prog(BlockStyle::Legacy, vec![s]);
        assert_eq!(print_program(&legacy), "function f(x)\n    print x\nend\n");

        let mut g = fdef("g");
        g.outputs = vec![param("y", Some(tmod(TypeKind::Inferred, &["unchecked"])))];
        g.params = vec![param("x", Some(named("cube")))];
        assert_eq!(
            print_stmt(&st(StmtKind::Function(Box::new(g)))),
            "function y : 'unchecked = g(x : cube)\nendfunction"
        );

        let mut k = fdef("my_kernel");
        k.kind = FunctionKind::Kernel;
        k.bracketed_outputs = true;
        k.params = vec![param("y", Some(named("mat"))), param("pos", Some(named("ivec2")))];
        assert_eq!(
            print_stmt(&st(StmtKind::Function(Box::new(k)))),
            "function [] = __kernel__ my_kernel(y : mat, pos : ivec2)\nendfunction"
        );

        let mut gm = fdef("generic_multiply");
        gm.type_params = vec![param("T", None), param("P", Some(named("int")))];
        gm.outputs = vec![param("a", None), param("b", Some(named("int")))];
        gm.bracketed_outputs = true;
        gm.kind = FunctionKind::Device;
        gm.qualifiers = vec![id("concealed")];
        let mut v = param("args", None);
        v.variadic = true;
        let mut d = param("n", Some(named("int")));
        d.default = Some(num("2"));
        gm.params = vec![d, v];
        assert_eq!(
            print_stmt(&st(StmtKind::Function(Box::new(gm)))),
            "function [a, b : int] = __device__ generic_multiply[T, P : int](n : int = 2, ...args) concealed\nendfunction"
        );

        let mut one = fdef("h");
        one.outputs = vec![param("y", None)];
        one.bracketed_outputs = true;
        one.kind = FunctionKind::ExplicitHost;
        assert_eq!(
            print_stmt(&st(StmtKind::Function(Box::new(one)))),
            "function [y] = __host__ h()\nendfunction"
        );

        let mut m = fdef("m");
        m.is_macro = true;
        m.body = vec![st(StmtKind::Attribute(Attribute {
            braced: false,
            items: vec![AttributeItem {
                name: vec![id("kernel_transform")],
                args: vec![AttributeArg {
                    key: id("enable"),
                    value: string("localwindow"),
                    sep: AttrSep::First,
                }],
                span: sp(),
            }],
            span: sp(),
        }))];
        let s = st(StmtKind::Function(Box::new(m)));
        assert_eq!(
            print_stmt(&s),
            "macro m()\n    !kernel_transform enable=\"localwindow\"\nendmacro"
        );
        assert_eq!(
            print_program(&prog(BlockStyle::Legacy, vec![s])),
            "macro m()\n    !kernel_transform enable=\"localwindow\"\nend\n"
        );
    }

    #[test]
    fn typedefs() {
        let td = |name: &str, params: Vec<Param>, body: TypeDefBody| {
            st(StmtKind::TypeDef(Box::new(TypeDef { name: id(name), params, body, span: sp() })))
        };
        let alias = td(
            "binary_op",
            vec![],
            TypeDefBody::Alias(fn_ty(vec![named("scalar")], false, vec![named("scalar")])),
        );
        assert_eq!(print_stmt(&alias), "type binary_op : [scalar -> scalar]");
        let alias = td(
            "RealNumber",
            vec![],
            TypeDefBody::Alias(t(TypeKind::Union(vec![named("scalar"), named("cube")]))),
        );
        assert_eq!(print_stmt(&alias), "type RealNumber : [scalar|cube]");
        let fields = vec![param("x", Some(named("scalar"))), param("y", Some(named("scalar")))];
        let class = td(
            "point",
            vec![],
            TypeDefBody::Class { kind: ClassKind::Immutable, parent: None, fields: fields.clone() },
        );
        assert_eq!(
            print_stmt(&class),
            "type point : class\n    x : scalar\n    y : scalar\nendtype"
        );
        let mutable = td(
            "node",
            vec![param("T", None)],
            TypeDefBody::Class {
                kind: ClassKind::Mutable,
                parent: None,
                fields: vec![param("value", Some(named("T")))],
            },
        );
        assert_eq!(print_stmt(&mutable), "type node[T] : mutable class\n    value : T\nendtype");
        let dynamic = td(
            "obj",
            vec![],
            TypeDefBody::Class { kind: ClassKind::Dynamic, parent: None, fields: vec![] },
        );
        assert_eq!(print_stmt(&dynamic), "type obj : dynamic class\nendtype");
        let derived = td(
            "duck",
            vec![],
            TypeDefBody::Class {
                kind: ClassKind::Immutable,
                parent: Some(named("bird")),
                fields: vec![],
            },
        );
        assert_eq!(print_stmt(&derived), "type duck : bird\nendtype");
        let variants = vec![
            EnumVariant { name: id("Red"), value: None, span: sp() },
            EnumVariant { name: id("Green"), value: Some(num("4")), span: sp() },
        ];
        let en = td("color", vec![], TypeDefBody::Enum(variants));
        assert_eq!(print_stmt(&en), "type color : enum\n    Red\n    Green = 4\nendtype");
        assert_eq!(
            print_program(&prog(BlockStyle::Legacy, vec![en, class])),
            "type color : enum\n    Red\n    Green = 4\nend\ntype point : class\n    x : scalar\n    y : scalar\nend\n"
        );
    }

    #[test]
    fn reductions_and_declarations() {
        let r = Reduction {
            params: vec![param("a", Some(named("cube"))), param("c", Some(named("scalar")))],
            parenthesized: true,
            pattern: bin(BinaryOp::Add, var("a"), bin(BinaryOp::Mul, var("a"), var("c"))),
            replacement: call("fmad", vec![var("a"), var("a"), var("c")]),
            condition: Some(bin(BinaryOp::Eq, call("size", vec![var("a")]), num("3"))),
            span: sp(),
        };
        assert_eq!(
            print_stmt(&st(StmtKind::Reduction(Box::new(r)))),
            "reduction (a : cube, c : scalar) -> a + a * c = fmad(a, a, c) where size(a) == 3"
        );
        let r = Reduction {
            params: vec![param("x", None)],
            parenthesized: false,
            pattern: call("sum", vec![var("x")]),
            replacement: call("my_sum", vec![var("x")]),
            condition: None,
            span: sp(),
        };
        assert_eq!(
            print_stmt(&st(StmtKind::Reduction(Box::new(r)))),
            "reduction x -> sum(x) = my_sum(x)"
        );
        let s = st(StmtKind::Symbolic(vec![
            param("x", Some(named("int"))),
            param("y", Some(named("scalar"))),
        ]));
        assert_eq!(print_stmt(&s), "symbolic x : int, y : scalar");
        assert_eq!(
            print_stmt(&st(StmtKind::Import { path: "inttypes.q".into() })),
            "import \"inttypes.q\""
        );
        assert_eq!(
            print_stmt(&st(StmtKind::Pragma("pragma loop_parallelizer off".into()))),
            "#pragma loop_parallelizer off"
        );
        assert_eq!(
            print_stmt(&es(annotated(var("B"), tmod(TypeKind::Inferred, &["shared"])))),
            "B : 'shared"
        );
    }

    #[test]
    fn attributes() {
        let item = |name: &[&str], args: Vec<(&str, Expr, AttrSep)>| AttributeItem {
            name: name.iter().map(|n| id(n)).collect(),
            args: args
                .into_iter()
                .map(|(k, v, sep)| AttributeArg { key: id(k), value: v, sep })
                .collect(),
            span: sp(),
        };
        let attr = |braced: bool, items: Vec<AttributeItem>| {
            st(StmtKind::Attribute(Attribute { braced, items, span: sp() }))
        };
        let a = attr(true, vec![item(&["parallel", "for"], vec![])]);
        assert_eq!(print_stmt(&a), "{!parallel for}");
        let a =
            attr(true, vec![item(&["parallel", "for"], vec![("blkdim", var("M"), AttrSep::Semi)])]);
        assert_eq!(print_stmt(&a), "{!parallel for; blkdim=M}");
        let a = attr(true, vec![item(&["serial", "for"], vec![("dim", num("2"), AttrSep::Comma)])]);
        assert_eq!(print_stmt(&a), "{!serial for, dim=2}");
        let a = attr(
            true,
            vec![item(
                &["kernel_tiling"],
                vec![
                    (
                        "dims",
                        ex(ExprKind::Matrix(vec![num("1"), num("4"), num("1")])),
                        AttrSep::First,
                    ),
                    ("mode", string("global local"), AttrSep::Semi),
                    ("target", string("cpu gpu"), AttrSep::Comma),
                ],
            )],
        );
        assert_eq!(
            print_stmt(&a),
            "{!kernel_tiling dims=[1, 4, 1]; mode=\"global local\", target=\"cpu gpu\"}"
        );
        let a = attr(
            true,
            vec![item(&["a"], vec![]), item(&["b"], vec![("k", num("1"), AttrSep::First)])],
        );
        assert_eq!(print_stmt(&a), "{!a !b k=1}");
        let a = attr(false, vec![item(&["unroll"], vec![("times", num("4"), AttrSep::First)])]);
        assert_eq!(print_stmt(&a), "!unroll times=4");
    }
}

/// Round trips through the real parser: `parse(print(parse(src))) == parse(src)`, and
/// printing a re-parsed tree gives the same text again.
#[cfg(test)]
mod roundtrip_tests {
    use super::*;
    use crate::span::FileId;
    use crate::syntax::parse;

    fn roundtrip(src: &str) -> String {
        let first = parse(src, FileId(0));
        assert!(!first.has_errors(), "source does not parse: {:#?}\n{src}", first.diagnostics);
        let printed = print_program(&first.program);
        let second = parse(&printed, FileId(0));
        assert!(
            !second.has_errors(),
            "printed form does not parse: {:#?}\n--- source ---\n{src}\n--- printed ---\n{printed}",
            second.diagnostics
        );
        assert_eq!(
            second.program, first.program,
            "re-parsed tree differs\n--- source ---\n{src}\n--- printed ---\n{printed}"
        );
        assert_eq!(print_program(&second.program), printed, "printing is not idempotent");
        printed
    }

    #[test]
    fn expressions() {
        roundtrip(
            "a = [0, 1, 2, 3] + 4
b = -x^2 + 2^-1 - (a - b) * c ./ d .* e .^ 2
c = !(a && b) || a != b && a <= b && a >= b && a < b && a > b && a == b
d = c ? 1 : c2 ? 2 : 3
e = a = b = 1
g := x |> f |> g
[p, _] = [1, 2]
[_, q] = size(a, 0..1)
r = 0..2..n-1
s = 1.5e-3 + 1Fh + 1011011b + 123o + 2j + 1.5i + 5.678 + 1. + .5
t = \"hello \\\"world\\\"\"
u = A[:, 0] + A[i, j].x + A[0..9, 0..9]
v = vec[??](4) + zeros(6, 4) + cell(3)
w = {1, \"two\", [3]}
x = (a; b; c)
y = f(x, mode:=\"fast\", ...rest)
z = filter(\"Laplacian\")(im)
A[pos] += 1
B[pos] -= 1; C[pos] *= 2; D[pos] /= 2; E[pos] ^= 2
F .*= 2; G ./= 2; H .^= 2
I[0] ^^= v; J[0] __= v; K[0] ~= v; L[0] |= v; M[0] &= v
n : int = 4
half_wnd_size : 'const = 4
B : 'shared = transpose(a)
p : vec[int]
q : cube{4}[int16] = uninit(2, 2, 2, 2)
k = cube{:}
h = scalar'half(2)
",
        );
    }

    #[test]
    fn lambdas() {
        roundtrip(
            "f = x -> x + 1
g = (x, y) -> x * y
h = (x : scalar, y : int = 2) -> x ^ y
add : [scalar -> scalar -> scalar] = x -> y -> x + y
k = __device__ (x : scalar) -> 2 * x
m = map(x -> x ^ 2, v)
n = () -> 4
o = (x) -> (y) -> x + y
p = (...args) -> numel(args)
",
        );
    }

    #[test]
    fn commands() {
        roundtrip(
            "print \"a = \", a, \"a .* b = \", a .* b
print a[0, 0]
error \"the transform \", name, \" is not supported!\"
print
print(\"parenthesised\")
",
        );
    }

    #[test]
    fn control_flow_modern() {
        roundtrip(
            "for i = 0..n-1
    if x[i] > 0
        s += x[i]
    elseif x[i] < 0
        continue
    else
        break
    endif
endfor
while k < 10
    k = k + 1
endwhile
repeat
    k -= 1
until k == 0
match a with
| 1 ->
    print \"a=1\"
| (3, 4) ->
    print \"a=3 or a=4\"
| \"String\" -> print \"string\"
| _ ->
endmatch
try
    error \"x\"
catch ex
    print ex
endtry
try
    f()
catch
endtry
",
        );
    }

    #[test]
    fn control_flow_legacy() {
        let printed = roundtrip(
            "function y = f(x)
    for i = 0..n-1
        if x > 0
            y = 1
        else
            y = 2
        end
    end
    while 1
        break
    end
    match x with
    | 1 -> y = 3
    end
    try
        y = 4
    catch e
    end
end
",
        );
        assert!(!printed.contains("endfor") && printed.ends_with("\nend\n"), "{printed}");
    }

    #[test]
    fn functions() {
        roundtrip(
            "function [] = __kernel__ my_kernel(y : mat, x : mat'unchecked, pos : ivec2)
    y[pos] = 2 * x[pos]
endfunction
function y : 'unchecked = subsample(x : cube{:}, D : int = 2)
    y = x
endfunction
function [a, b : int] = __device__ pair[T](x : T, ...rest)
    a = x; b = 1
    return
endfunction
function y = generic_multiply[T](a : mat[T]'unchecked, b : mat[T]'unchecked) concealed
    y = a * b
endfunction
function f : [cube -> cube] = make_filter(name)
    f = x -> x
endfunction
function [y] = __host__ one()
    y = 1
endfunction
function noop()
endfunction
function [] = empty()
endfunction
macro m(x)
    !kernel_transform enable=\"localwindow\"
endmacro
",
        );
    }

    #[test]
    fn types_and_typedefs() {
        roundtrip(
            "type binary_op : [scalar -> scalar -> scalar]
type RealNumber : [scalar|cube|mat]
type handler : [__device__ (scalar, ...??) -> (scalar, int)]
type noresult : [(int) -> ()]
type point : class
    x : scalar
    y : scalar = 0
endtype
type node[T] : mutable class
    value : T
    next : ^node[T]
endtype
type bag : dynamic class
endtype
type duck : bird
    quack : string
endtype
type color : enum
    Red
    Green = 4
    Blue
endtype
x : mat(4, 4) = zeros(4, 4)
y : cube(:, :, 3)
z : {int, string}
w : vec[[scalar -> scalar]]
c : cscalar'const
",
        );
    }

    #[test]
    fn declarations_and_directives() {
        roundtrip(
            "import \"inttypes.q\"
symbolic x : int, y : scalar
reduction (a : cube, b : cube, c : scalar) -> a + b * c = fmad(a, b, c) where size(a) == size(b)
reduction x -> sum(x) = my_sum(x)
reduction (x : mat) -> x[:, :] = x
#pragma loop_parallelizer off
{!parallel for}
for i = 0..9
    y[i] = i
endfor
{!parallel for; blkdim=M}
{!serial for, dim=2}
{!kernel_tiling dims=[1, 4, 1]; mode=\"global local\"; target=\"cpu gpu\"}
{!author name=\"someone\"}
",
        );
    }
}

/// Random source text built from the expression and statement grammar: every generated
/// program that parses without errors must round-trip through the printer.
#[cfg(test)]
mod fuzz_tests {
    use super::*;
    use crate::span::FileId;
    use crate::syntax::parse;
    use proptest::prelude::*;
    use proptest::sample::select;

    fn leaf() -> BoxedStrategy<String> {
        prop_oneof![
            select(vec!["a", "b", "x", "pos", "cube", "scalar"]).prop_map(String::from),
            select(vec!["0", "1", "2.5", "1.", ".5", "1e-3", "2j", "1Fh", "101b", "7o"])
                .prop_map(String::from),
            Just("\"s %\"".to_string()),
            Just("_".to_string()),
            Just(":".to_string()),
            Just("??".to_string()),
        ]
        .boxed()
    }

    fn ty() -> BoxedStrategy<String> {
        select(vec![
            "int",
            "scalar'const",
            "'unchecked",
            "vec[int]",
            "cube{4}[int16]",
            "mat(4, :)",
            "[int|cube]",
            "{int, string}",
            "^point",
            "??",
            "[scalar -> scalar -> scalar]",
            "[__device__ (int, ...??) -> (int, scalar)]",
            "[() -> ()]",
        ])
        .prop_map(String::from)
        .boxed()
    }

    fn expr() -> BoxedStrategy<String> {
        let binop = select(vec![
            "+", "-", "*", "/", "^", ".*", "./", ".^", "<", "<=", ">", ">=", "==", "!=", "&&",
            "||", "|>",
        ]);
        let assignop = select(vec!["=", ":=", "+=", "-=", ".*=", "^^=", "__=", "~=", "|=", "&="]);
        leaf()
            .prop_recursive(4, 40, 3, move |e| {
                let list = prop::collection::vec(e.clone(), 0..3).prop_map(|v| v.join(", "));
                prop_oneof![
                    (e.clone(), binop.clone(), e.clone())
                        .prop_map(|(a, o, b)| format!("{a} {o} {b}")),
                    (select(vec!["-", "+", "!", "..."]), e.clone())
                        .prop_map(|(o, a)| format!("{o}{a}")),
                    e.clone().prop_map(|a| format!("({a})")),
                    (e.clone(), e.clone()).prop_map(|(a, b)| format!("({a}; {b})")),
                    (e.clone(), e.clone()).prop_map(|(a, b)| format!("{a}..{b}")),
                    (e.clone(), e.clone(), e.clone())
                        .prop_map(|(a, s, b)| format!("{a}..{s}..{b}")),
                    (e.clone(), e.clone(), e.clone())
                        .prop_map(|(c, a, b)| format!("{c} ? {a} : {b}")),
                    (e.clone(), list.clone()).prop_map(|(f, a)| format!("{f}({a})")),
                    (e.clone(), e.clone()).prop_map(|(f, a)| format!("{f}(n:={a})")),
                    (e.clone(), list.clone()).prop_map(|(f, a)| format!("{f}[{a}]")),
                    e.clone().prop_map(|a| format!("{a}.field")),
                    e.clone().prop_map(|a| format!("{a}'const")),
                    e.clone().prop_map(|a| format!("{a}{{4}}")),
                    list.clone().prop_map(|a| format!("[{a}]")),
                    list.clone().prop_map(|a| format!("{{{a}}}")),
                    e.clone().prop_map(|a| format!("x -> {a}")),
                    (e.clone(), ty()).prop_map(|(a, t)| format!("(x, y : {t} = 1) -> {a}")),
                    e.clone().prop_map(|a| format!("__device__ (x : int) -> {a}")),
                    (e.clone(), assignop.clone(), e.clone())
                        .prop_map(|(a, o, b)| format!("{a} {o} {b}")),
                    (e.clone(), ty(), e.clone()).prop_map(|(a, t, b)| format!("{a} : {t} = {b}")),
                    (e.clone(), ty()).prop_map(|(a, t)| format!("f({a} : {t})")),
                ]
            })
            .boxed()
    }

    /// Simple statements, then blocks whose bodies are statements again.
    fn stmt() -> BoxedStrategy<String> {
        let e = expr();
        let simple = prop_oneof![
            e.clone(),
            e.clone().prop_map(|a| format!("y = {a}")),
            (e.clone(), e.clone()).prop_map(|(a, b)| format!("print {a}, {b}")),
            (e.clone(), ty()).prop_map(|(a, t)| format!("v : {t} = {a}")),
            (e.clone(), e.clone())
                .prop_map(|(p, r)| format!("reduction (x : int, y) -> {p} = {r} where x > 0")),
            e.clone().prop_map(|a| format!("reduction x -> f(x) = {a}")),
            (ty(), e.clone()).prop_map(|(t, a)| format!("type t : class\nf : {t} = {a}\nendtype")),
            ty().prop_map(|t| format!("type t[T] : {t}")),
            e.clone().prop_map(|a| format!("type c : enum\nA\nB = {a}\nendtype")),
            e.clone().prop_map(|a| format!("{{!parallel for; blkdim={a}, dims=[1, 2]}}")),
            ty().prop_map(|t| format!("symbolic a, b : {t}")),
            select(vec!["break", "continue", "return", "import \"a.q\"", "#pragma x on"])
                .prop_map(String::from),
        ];
        simple
            .prop_recursive(2, 12, 3, move |body| {
                let block = prop::collection::vec(body, 0..3).prop_map(|v| v.join("\n"));
                let e = expr();
                prop_oneof![
                    (e.clone(), block.clone(), block.clone())
                        .prop_map(|(c, a, b)| format!("if {c}\n{a}\nelseif {c}\n{b}\nendif")),
                    (e.clone(), block.clone(), block.clone())
                        .prop_map(|(c, a, b)| format!("if {c}\n{a}\nelse\n{b}\nendif")),
                    (e.clone(), block.clone())
                        .prop_map(|(c, a)| format!("for i = {c}\n{a}\nendfor")),
                    (e.clone(), block.clone())
                        .prop_map(|(c, a)| format!("while {c}\n{a}\nendwhile")),
                    (e.clone(), block.clone()).prop_map(|(c, a)| format!("repeat\n{a}\nuntil {c}")),
                    (e.clone(), e.clone(), block.clone()).prop_map(|(s, p, a)| format!(
                        "match {s} with\n| {p} -> {a}\n| (1, {p}) ->\n{a}\nendmatch"
                    )),
                    (block.clone(), block.clone())
                        .prop_map(|(a, b)| format!("try\n{a}\ncatch err\n{b}\nendtry")),
                    (e.clone(), ty(), block.clone()).prop_map(|(a, t, b)| format!(
                        "function [o : {t}] = __kernel__ k[T](p : {t}, q = {a})\n{b}\nendfunction"
                    )),
                    (e, block.clone())
                        .prop_map(|(a, b)| format!("function y = f(x)\ny = {a}\n{b}\nendfunction")),
                    block.prop_map(|b| format!("macro m(x)\n!unroll times=4\n{b}\nendmacro")),
                ]
            })
            .boxed()
    }

    /// Rewrites the modern block endings of a generated program into the legacy `end`.
    fn to_legacy(src: &str) -> String {
        const ENDS: [&str; 8] = [
            "endif",
            "endfor",
            "endwhile",
            "endmatch",
            "endtry",
            "endtype",
            "endfunction",
            "endmacro",
        ];
        src.lines()
            .map(|l| if ENDS.contains(&l) { "end" } else { l })
            .collect::<Vec<_>>()
            .join("\n")
    }

    proptest! {
        // 256 cases by default; for a deep run:
        // PROPTEST_CASES=50000 cargo test --release -p quasar-core --lib fuzz_tests
        #![proptest_config(ProptestConfig {
            max_global_rejects: 1_000_000,
            failure_persistence: None,
            ..ProptestConfig::default()
        })]

        #[test]
        fn random_programs_round_trip(
            stmts in prop::collection::vec(stmt(), 1..4),
            legacy in any::<bool>(),
        ) {
            let src = stmts.join("\n");
            let src = if legacy { to_legacy(&src) } else { src };
            let first = parse(&src, FileId(0));
            prop_assume!(!first.has_errors());
            let printed = print_program(&first.program);
            let second = parse(&printed, FileId(0));
            prop_assert!(
                !second.has_errors(),
                "printed form does not parse: {:?}\n--- source ---\n{}\n--- printed ---\n{}",
                second.diagnostics.iter().map(|d| &d.message).collect::<Vec<_>>(),
                src,
                printed
            );
            prop_assert_eq!(
                &second.program, &first.program,
                "--- source ---\n{}\n--- printed ---\n{}", src, printed
            );
            prop_assert_eq!(print_program(&second.program), printed);
        }
    }
}
