//! Parser unit tests: one group per construct of manual chapters 2–9, 11, 12 and 15, written
//! from the manual's descriptions. Expressions are checked through a compact S-expression
//! rendering so that precedence and associativity are visible.

use crate::span::FileId;
use crate::syntax::ast::*;
use crate::syntax::parse;

fn ok(src: &str) -> Program {
    let parsed = parse(src, FileId(0));
    assert!(
        parsed.diagnostics.is_empty(),
        "unexpected diagnostics for {src:?}: {:#?}",
        parsed.diagnostics
    );
    parsed.program
}

/// Error messages for `src` (which must have at least one error).
fn errors(src: &str) -> Vec<String> {
    let parsed = parse(src, FileId(0));
    let msgs: Vec<String> = parsed
        .diagnostics
        .iter()
        .filter(|d| d.is_error())
        .map(|d| format!("{}:{}: {}", d.span.line, d.span.col, d.message))
        .collect();
    assert!(!msgs.is_empty(), "expected errors for {src:?}");
    msgs
}

fn stmts(src: &str) -> Vec<StmtKind> {
    ok(src).body.into_iter().map(|s| s.kind).collect()
}

fn one(src: &str) -> StmtKind {
    let mut v = stmts(src);
    assert_eq!(v.len(), 1, "expected one statement in {src:?}: {v:#?}");
    v.remove(0)
}

fn expr_of(src: &str) -> Expr {
    match one(src) {
        StmtKind::Expr(e) => e,
        other => panic!("not an expression statement: {other:#?}"),
    }
}

/// `expr_of` rendered as an S-expression.
fn sx(src: &str) -> String {
    sexp(&expr_of(src))
}

fn sexp(e: &Expr) -> String {
    use ExprKind::*;
    let list = |items: &[Expr]| items.iter().map(sexp).collect::<Vec<_>>().join(" ");
    let args = |args: &[Arg]| {
        args.iter()
            .map(|a| match &a.name {
                Some(n) => format!("{}:={}", n.name, sexp(&a.value)),
                None => sexp(&a.value),
            })
            .collect::<Vec<_>>()
            .join(" ")
    };
    match &e.kind {
        Number(t) | Ident(t) => t.clone(),
        Str(t) => format!("{t:?}"),
        Placeholder => "_".into(),
        Colon => ":".into(),
        Unknown => "??".into(),
        Spread(x) => format!("(... {})", sexp(x)),
        Range { start, step: None, end } => format!("(.. {} {})", sexp(start), sexp(end)),
        Range { start, step: Some(s), end } => {
            format!("(.. {} {} {})", sexp(start), sexp(s), sexp(end))
        }
        Unary { op, operand } => {
            let o = match op {
                UnaryOp::Neg => "-",
                UnaryOp::Plus => "+",
                UnaryOp::Not => "!",
            };
            format!("({o} {})", sexp(operand))
        }
        Binary { op, lhs, rhs } => {
            format!("({} {} {})", crate::syntax::printer::binary_op_str(*op), sexp(lhs), sexp(rhs))
        }
        Ternary { cond, then, otherwise } => {
            format!("(? {} {} {})", sexp(cond), sexp(then), sexp(otherwise))
        }
        Assign { op, lhs, rhs } => {
            format!("({} {} {})", crate::syntax::printer::assign_op_str(*op), sexp(lhs), sexp(rhs))
        }
        Annotated { expr, ty } => {
            format!("(: {} {})", sexp(expr), crate::syntax::printer::print_type(ty))
        }
        Call { callee, args: a, style } => {
            let tag = if *style == CallStyle::Command { "cmd" } else { "call" };
            format!("({tag} {} {})", sexp(callee), args(a)).replace(" )", ")")
        }
        Index { base, indices } => format!("(idx {} {})", sexp(base), args(indices)),
        Field { base, name } => format!("(. {} {})", sexp(base), name.name),
        Dims { base, dims } => match dims.as_ref() {
            DimSpec::Any => format!("(dims {} :)", sexp(base)),
            DimSpec::Fixed(n) => format!("(dims {} {})", sexp(base), sexp(n)),
        },
        Modified { base, modifier } => format!("(' {} {})", sexp(base), modifier.name),
        Matrix(items) => format!("[{}]", list(items)),
        Cell(items) => format!("{{{}}}", list(items)),
        Paren(items) => format!("(paren {})", list(items)),
        Tuple(items) => format!("(tuple {})", list(items)),
        Lambda(l) => {
            let params: Vec<String> = l
                .params
                .iter()
                .map(|p| {
                    let mut s = format!("{}{}", if p.variadic { "..." } else { "" }, p.name.name);
                    if let Some(t) = &p.ty {
                        s += &format!(":{}", crate::syntax::printer::print_type(t));
                    }
                    if let Some(d) = &p.default {
                        s += &format!("={}", sexp(d));
                    }
                    s
                })
                .collect();
            let kind = l.kind.word().map(|w| format!("{w} ")).unwrap_or_default();
            format!("(-> {kind}({}) {})", params.join(" "), sexp(&l.body))
        }
    }
}

// ---- statements, newlines, comments -------------------------------------------------------

#[test]
fn newlines_semicolons_and_comments_separate_statements() {
    assert_eq!(stmts("a = 1\nb = 2").len(), 2);
    assert_eq!(stmts("a=1; b=2").len(), 2);
    assert_eq!(stmts("a = 1 % a comment; b = 2\n% whole line\n\n").len(), 1);
    assert_eq!(stmts("x = 1;\n;\ny = 2;").len(), 2);
}

#[test]
fn continuation_with_underscore_and_inside_brackets() {
    assert_eq!(sx("a = [[1,2], _\n      [2,1]]"), "(= a [[1 2] [2 1]])");
    assert_eq!(sx("a = [[1,2],\n      [2,1]]"), "(= a [[1 2] [2 1]])");
    assert_eq!(sx("y = f(a,\n b)"), "(= y (call f a b))");
    assert_eq!(sx("y = a + _\n b"), "(= y (+ a b))");
}

#[test]
fn assignments_chain_and_destructure() {
    assert_eq!(sx("a = b = 1"), "(= a (= b 1))");
    assert_eq!(sx("[a, b] = [b, a]"), "(= [a b] [b a])");
    assert_eq!(sx("[a, _] = [1,2]"), "(= [a _] [1 2])");
    assert_eq!(
        sx("[A : ccube, B : vec] = load(\"f.dat\")"),
        "(= [(: A ccube) (: B vec)] (call load \"f.dat\"))"
    );
    assert_eq!(
        sx("img : cube(:,:,3) = imread(\"x.tif\")"),
        "(= (: img cube(:, :, 3)) (call imread \"x.tif\"))"
    );
    assert_eq!(sx("half : 'const = 4"), "(= (: half 'const) 4)");
    assert_eq!(sx("fn : [(...??) -> ()]"), "(: fn [(...??) -> ()])");
}

#[test]
fn all_compound_and_atomic_assignment_operators() {
    for (op, tag) in [
        ("+=", "+="),
        ("-=", "-="),
        ("*=", "*="),
        ("/=", "/="),
        ("^=", "^="),
        (".*=", ".*="),
        ("./=", "./="),
        (".^=", ".^="),
        ("^^=", "^^="),
        ("__=", "__="),
        ("~=", "~="),
        ("|=", "|="),
        ("&=", "&="),
        (":=", ":="),
    ] {
        assert_eq!(sx(&format!("x[i] {op} v")), format!("({tag} (idx x i) v)"));
    }
    assert_eq!(sx("cnt = (self.pointer += 1)"), "(= cnt (paren (+= (. self pointer) 1)))");
}

// ---- literals -----------------------------------------------------------------------------

#[test]
fn literals_of_every_notation() {
    assert_eq!(
        sx("x = [5.678, -1.9e-4, 1011011b, 123456o, 1Fh, 0ECD3Fh, 2j, 1i, 3, 0.]"),
        "(= x [5.678 (- 1.9e-4) 1011011b 123456o 1Fh 0ECD3Fh 2j 1i 3 0.])"
    );
    assert_eq!(sx("c = 1+1j"), "(= c (+ 1 1j))");
    assert_eq!(sx("s = \"a \\\"quoted\\\" word\""), "(= s \"a \\\\\\\"quoted\\\\\\\" word\")");
    assert_eq!(errors("x = 12q"), ["1:5: `12q` is not a valid number"]);
}

// ---- operators and precedence -------------------------------------------------------------

#[test]
fn arithmetic_precedence_and_associativity() {
    assert_eq!(sx("y = a + b * c"), "(= y (+ a (* b c)))");
    assert_eq!(sx("y = a - b - c"), "(= y (- (- a b) c))");
    assert_eq!(sx("y = a .* b ./ c"), "(= y (./ (.* a b) c))");
    assert_eq!(sx("y = -x^2"), "(= y (- (^ x 2)))");
    assert_eq!(sx("y = 2^-1"), "(= y (^ 2 (- 1)))");
    assert_eq!(sx("y = a.^2 .^ 3"), "(= y (.^ (.^ a 2) 3))");
    assert_eq!(sx("y = 2.^(1..7)"), "(= y (.^ 2 (paren (.. 1 7))))");
}

#[test]
fn logical_comparison_ternary_and_pipeline() {
    assert_eq!(sx("y = a < b && c >= d || !e"), "(= y (|| (&& (< a b) (>= c d)) (! e)))");
    assert_eq!(sx("y = a == b != c"), "(= y (!= (== a b) c))");
    assert_eq!(sx("y = (x > T) ? x - T : 0"), "(= y (? (paren (> x T)) (- x T) 0))");
    assert_eq!(sx("y = a ? b : c ? d : e"), "(= y (? a b (? c d e)))");
    assert_eq!(sx("y := im |> f(1) |> g"), "(:= y (|> (|> im (call f 1)) g))");
}

#[test]
fn ranges_colons_and_spread() {
    assert_eq!(sx("a = 0..9"), "(= a (.. 0 9))");
    assert_eq!(sx("b = 0..2..6"), "(= b (.. 0 2 6))");
    assert_eq!(sx("r = -N..N"), "(= r (.. (- N) N))");
    assert_eq!(sx("r = 0..size(A,0)-1"), "(= r (.. 0 (- (call size A 0) 1)))");
    assert_eq!(sx("print A[:,0], A[0,:]"), "(cmd print (idx A : 0) (idx A 0 :))");
    assert_eq!(sx("y = im[...pos, 0]"), "(= y (idx im (... pos) 0))");
    assert_eq!(sx("lum = luminance(...c)"), "(= lum (call luminance (... c)))");
    assert_eq!(sx("y[m, n, 0..2] = a"), "(= (idx y m n (.. 0 2)) a)");
}

// ---- arrays, indexing, calls --------------------------------------------------------------

#[test]
fn matrices_cells_indexing_and_fields() {
    assert_eq!(sx("a = [[[1,2],[3,4]],[[5,6],[7,8]]]"), "(= a [[[1 2] [3 4]] [[5 6] [7 8]]])");
    assert_eq!(sx("e = []"), "(= e [])");
    assert_eq!(sx("D = {A, \"B\", {}}"), "(= D {A \"B\" {}})");
    assert_eq!(sx("A[0,1][1][0,0] = 2"), "(= (idx (idx (idx A 0 1) 1) 0 0) 2)");
    assert_eq!(sx("x = p.next.x"), "(= x (. (. p next) x))");
    assert_eq!(sx("c = color.Magenta"), "(= c (. color Magenta))");
    assert_eq!(sx("y = f(x)(5)"), "(= y (call (call f x) 5))");
    assert_eq!(errors("a = [1, 2; 3, 4]"), ["1:10: `;` is not a separator in a matrix literal"]);
}

#[test]
fn named_arguments_and_type_constructors_in_expressions() {
    assert_eq!(sx("q = point(x:=1, y:=2)"), "(= q (call point x:=1 y:=2))");
    assert_eq!(sx("v = vec[int](200)"), "(= v (call (idx vec int) 200))");
    assert_eq!(
        sx("h = typename(cube{4}[int16])(2,2,2,2)"),
        "(= h (call (call typename (idx (dims cube 4) int16)) 2 2 2 2))"
    );
    assert_eq!(
        sx("h = typename(vec[scalar'half])(4)"),
        "(= h (call (call typename (idx vec (' scalar half))) 4))"
    );
    assert_eq!(sx("c = vec[??](4)"), "(= c (call (idx vec ??) 4))");
    assert_eq!(sx("x = cube{:}"), "(= x (dims cube :))");
    assert_eq!(sx("print(x : cube[int])"), "(call print (: x cube[int]))");
    assert_eq!(sx("y = add_item[int](l, 5, 4)"), "(= y (call (idx add_item int) l 5 4))");
}

#[test]
fn command_syntax_for_print_error_and_friends() {
    assert_eq!(sx("print \"a = \", a, \"b\""), "(cmd print \"a = \" a \"b\")");
    assert_eq!(sx("print [b, sum(c)]"), "(cmd print [b (call sum c)])");
    assert_eq!(sx("error \"not supported: \", name"), "(cmd error \"not supported: \" name)");
    assert_eq!(
        sx("print $str($assump(a)), \" \""),
        "(cmd print (call $str (call $assump a)) \" \")"
    );
    assert_eq!(sx("syncthreads"), "syncthreads");
    assert_eq!(sx("print(sum)"), "(call print sum)");
    assert_eq!(sx("assert(a > 2, \"msg\")"), "(call assert (> a 2) \"msg\")");
    assert_eq!(sx("x = y"), "(= x y)");
}

#[test]
fn a_comma_ends_a_statement_as_in_matlab() {
    assert_eq!(stmts("a = 1, b = 2").len(), 2);
    // The lexer joins a line ending in `,` with the next one; the comma still separates.
    assert_eq!(stmts("a = 1; b = 2,\nc = a + b\n").len(), 3);
    assert_eq!(sx("print \"x\", 1"), "(cmd print \"x\" 1)");
}

// ---- lambdas ------------------------------------------------------------------------------

#[test]
fn lambdas_plain_curried_typed_and_multi_expression() {
    assert_eq!(sx("u = x -> 2*x"), "(= u (-> (x) (* 2 x)))");
    assert_eq!(sx("v = (x,y) -> 2*x+y"), "(= v (-> (x y) (+ (* 2 x) y)))");
    assert_eq!(sx("w = x -> y -> x + y"), "(= w (-> (x) (-> (y) (+ x y))))");
    assert_eq!(sx("f = () -> 1"), "(= f (-> () 1))");
    assert_eq!(
        sx("s = (a, b) -> (sum=a+b;\n print(sum); sum)"),
        "(= s (-> (a b) (paren (= sum (+ a b)) (call print sum) sum)))"
    );
    assert_eq!(
        sx("f = x -> x > 0 ? x * f(x - 1) : 1"),
        "(= f (-> (x) (? (> x 0) (* x (call f (- x 1))) 1)))"
    );
    assert_eq!(
        sx("l = __device__ (a : scalar, b : scalar) -> a + b"),
        "(= l (-> __device__ (a:scalar b:scalar) (+ a b)))"
    );
    assert_eq!(
        sx("parallel_do(n, __kernel__ (pos : ivec2) -> y[pos] = x[pos])"),
        "(call parallel_do n (-> __kernel__ (pos:ivec2) (= (idx y pos) (idx x pos))))"
    );
    assert_eq!(sx("g = (x : scalar = 1, ...rest) -> x"), "(= g (-> (x:scalar=1 ...rest) x))");
    assert_eq!(
        sx("add : [scalar->scalar->scalar] = x -> y -> x + y"),
        "(= (: add [scalar -> scalar -> scalar]) (-> (x) (-> (y) (+ x y))))"
    );
    assert_eq!(errors("f = (1, 2) -> 3"), ["1:6: invalid lambda parameter"]);
}

#[test]
fn a_semicolon_may_end_a_lambda_argument() {
    // Event handlers in real code end the lambda with `;` before the closing parenthesis.
    assert_eq!(sx("h.add(() -> (s.v = 1);)"), "(call (. h add) (-> () (paren (= (. s v) 1))))");
    assert_eq!(
        sx("h.add(() -> (a = 1;\n   b = 2;);)"),
        "(call (. h add) (-> () (paren (= a 1) (= b 2))))"
    );
    assert_eq!(sx("g(x -> x + 1;, 2)"), "(call g (-> (x) (+ x 1)) 2)");
    assert_eq!(sx("t = [x -> x;]"), "(= t [(-> (x) x)])");
    // Elsewhere `;` still separates statements.
    assert_eq!(stmts("f = x -> x; y = 2").len(), 2);
    assert_eq!(errors("g(1;)")[0], "1:4: expected `,` or `)` in the argument list, found `;`");
}

// ---- control structures -------------------------------------------------------------------

#[test]
fn if_elseif_else() {
    let StmtKind::If { branches, else_body } =
        one("if a==2\n x=1\nelseif a==3\n x=2\nelse\n x=3\nendif")
    else {
        panic!()
    };
    assert_eq!(branches.len(), 2);
    assert_eq!(else_body.map(|b| b.len()), Some(1));
    assert_eq!(
        errors("if a==2; do_something(); endif"),
        ["1:8: an `if` block must be spread over several lines"]
    );
}

#[test]
fn loops_for_while_repeat_break_continue() {
    let StmtKind::For { var, iter, body } =
        one("for i=1..2..100\n  if i==1\n    break\n  endif\n  continue\nendfor")
    else {
        panic!()
    };
    assert_eq!((var.name.as_str(), sexp(&iter), body.len()), ("i", "(.. 1 2 100)".to_string(), 2));
    assert!(matches!(one("while x < 3\n x += 1\nendwhile"), StmtKind::While { .. }));
    let StmtKind::Repeat { body, until } = one("repeat\n x += 1\nuntil x > 3") else { panic!() };
    assert_eq!((body.len(), sexp(&until)), (1, "(> x 3)".to_string()));
    assert!(matches!(one("for p=[1,2,4]\nendfor"), StmtKind::For { .. }));
}

#[test]
fn match_with_grouped_values_strings_and_wildcard() {
    let src = "match a with\n| 1 ->\n    print \"one\"\n| (3, 4) -> print \"3 or 4\"\n  x = 1\n| \"s\" -> y = 2\n| Red -> z\n| _ -> print \"other\"\nendmatch";
    let StmtKind::Match { scrutinee, arms } = one(src) else { panic!() };
    assert_eq!(sexp(&scrutinee), "a");
    let shapes: Vec<(Vec<String>, usize)> =
        arms.iter().map(|a| (a.patterns.iter().map(sexp).collect(), a.body.len())).collect();
    assert_eq!(
        shapes,
        [
            (vec!["1".into()], 1),
            (vec!["3".into(), "4".into()], 2),
            (vec!["\"s\"".into()], 1),
            (vec!["Red".into()], 1),
            (vec!["_".into()], 1)
        ]
    );
}

#[test]
fn try_catch_and_error() {
    let StmtKind::Try { body, catch_var, catch_body, .. } =
        one("try\n    error \"Fail again\"\ncatch ex\n    print \"sigh: \", ex\nendtry")
    else {
        panic!()
    };
    assert_eq!(
        (body.len(), catch_var.map(|v| v.name), catch_body.len()),
        (1, Some("ex".into()), 1)
    );
    assert!(matches!(one("try\n f()\ncatch\nendtry"), StmtKind::Try { catch_var: None, .. }));
    let StmtKind::Try { catch_var, catch_type: Some(t), .. } =
        one("try\n f()\ncatch ex : qexception\n print ex\nendtry")
    else {
        panic!("`catch ex : qexception` has a type")
    };
    assert_eq!(catch_var.map(|v| v.name), Some("ex".into()));
    assert_eq!(crate::syntax::printer::print_type(&t), "qexception");
}

#[test]
fn legacy_end_style_and_mixing_is_an_error() {
    let p = ok("function y = f(x)\n  for i=0..2\n    if x\n      y = i\n    end\n  end\nend\n");
    assert_eq!(p.style, BlockStyle::Legacy);
    assert_eq!(ok("for i=0..2\nendfor").style, BlockStyle::Modern);
    assert_eq!(
        errors("for i=0..2\n  if i\n  end\nendfor"),
        ["4:1: block endings of both styles in one file"]
    );
    assert_eq!(
        errors("function f()\nendfunction\nwhile true\nend"),
        ["4:1: block endings of both styles in one file"]
    );
}

#[test]
fn older_style_closes_if_with_endif_and_everything_else_with_end() {
    // Manual §2, "Syntax notice": `if` → `endif`, every other block → `end`. `endif` is
    // shared by both styles, so it is not mixing in either.
    let src = "function y = f(x)\n  y = 0\n  for i=0..2\n    if x > i\n      y += i\n    \
               elseif x < 0\n      y -= 1\n    endif\n  end\n  while y > 9\n    y -= 1\n  \
               end\nend\n";
    let p = ok(src);
    assert_eq!(p.style, BlockStyle::Legacy);
    let modern = ok("for i=0..2\n  if i\n  endif\nendfor\n");
    assert_eq!(modern.style, BlockStyle::Modern);
    // A file with only `endif` has no style of its own: the modern default.
    assert_eq!(ok("if 1\n  x = 2\nendif\n").style, BlockStyle::Modern);
}

// ---- functions ----------------------------------------------------------------------------

fn function(src: &str) -> FunctionDef {
    match one(src) {
        StmtKind::Function(f) => *f,
        other => panic!("not a function: {other:#?}"),
    }
}

#[test]
fn function_headers_of_every_shape() {
    let f = function("function [x, y] = compute(a, b)\n    x = a + b\n    y = a * b\nendfunction");
    assert_eq!(
        (f.outputs.len(), f.params.len(), f.body.len(), f.bracketed_outputs),
        (2, 2, 2, true)
    );

    let f = function("function y : mat = gamma_correction(x : mat, gamma : scalar)\nendfunction");
    assert_eq!(
        f.outputs[0].ty.as_ref().map(crate::syntax::printer::print_type),
        Some("mat".into())
    );
    assert!(!f.bracketed_outputs);

    let f = function("function [] = __kernel__ k(x : mat'unchecked, pos : ivec2)\nendfunction");
    assert_eq!((f.kind, f.outputs.len(), f.bracketed_outputs), (FunctionKind::Kernel, 0, true));

    let f = function(
        "function [sum : scalar] =\n  __kernel__ stats(A : mat, pos : ivec2)\nendfunction",
    );
    assert_eq!((f.kind, f.name.name.as_str()), (FunctionKind::Kernel, "stats"));

    let f = function("function y = __device__ soft(x, T)\nendfunction");
    assert_eq!(f.kind, FunctionKind::Device);

    let f =
        function("function y:'unchecked = mult[T](a : mat[T]'unchecked) concealed\nendfunction");
    assert_eq!((f.type_params.len(), f.qualifiers[0].name.as_str()), (1, "concealed"));

    let f = function("function [] = color[P : int](im : cube(:, :, P))\nendfunction");
    assert_eq!(
        f.type_params[0].ty.as_ref().map(crate::syntax::printer::print_type),
        Some("int".into())
    );

    let f = function("function main()\nendfunction");
    assert!(f.outputs.is_empty() && !f.bracketed_outputs);
}

#[test]
fn optional_and_variadic_parameters() {
    let f = function("function [] = func(a, b, opt1=1.0, opt2 : mat = eye(4), ...args : vec[string])\nendfunction");
    let shape: Vec<(String, bool, bool, bool)> = f
        .params
        .iter()
        .map(|p| (p.name.name.clone(), p.ty.is_some(), p.default.is_some(), p.variadic))
        .collect();
    assert_eq!(
        shape,
        [
            ("a".into(), false, false, false),
            ("b".into(), false, false, false),
            ("opt1".into(), false, true, false),
            ("opt2".into(), true, true, false),
            ("args".into(), true, false, true)
        ]
    );
    assert!(function("function [] = f(... args)\nendfunction").params[0].variadic);
}

#[test]
fn nested_functions_and_macros() {
    let f = function(
        "function y = outer(x : vec3)\n    function a = inner(c)\n        a = c\n    endfunction\n    y = inner(x)\nendfunction",
    );
    assert!(matches!(&f.body[0].kind, StmtKind::Function(g) if g.name.name == "inner"));
    let m = function("macro [] = time(op)\n    tic()\n    op()\n    toc()\nendmacro");
    assert!(m.is_macro);
    assert_eq!(m.body.len(), 3);
}

// ---- types --------------------------------------------------------------------------------

fn ty(src: &str) -> String {
    match expr_of(&format!("x : {src}")).kind {
        ExprKind::Annotated { ty, .. } => format!("{ty:?}"),
        other => panic!("{other:?}"),
    }
}

fn type_of(src: &str) -> TypeExpr {
    match expr_of(&format!("x : {src}")).kind {
        ExprKind::Annotated { ty, .. } => *ty,
        other => panic!("{other:?}"),
    }
}

#[test]
fn named_types_with_dims_args_sizes_and_modifiers() {
    let t = type_of("cube{4}[int16](:, :, 3, N)'const'unchecked");
    let TypeKind::Named { name, dims, args, sizes } = t.kind else { panic!() };
    assert_eq!(name.name, "cube");
    assert!(matches!(dims, Some(DimSpec::Fixed(_))));
    assert_eq!(args.len(), 1);
    assert_eq!(sizes.map(|s| s.len()), Some(4));
    assert_eq!(
        t.modifiers.iter().map(|m| m.name.name.as_str()).collect::<Vec<_>>(),
        ["const", "unchecked"]
    );
    assert!(matches!(type_of("cube{:}").kind, TypeKind::Named { dims: Some(DimSpec::Any), .. }));
    let t = type_of("cube'hwtex_nearest(4)");
    assert_eq!(t.modifiers[0].args.as_ref().map(Vec::len), Some(1));
    assert!(matches!(t.kind, TypeKind::Named { sizes: None, .. }));
    assert!(ty("mat[uint8'sat]").contains("sat"));
}

#[test]
fn blanks_may_follow_the_quote_of_a_modifier() {
    let t = type_of("cube' clamped'hwtex_const");
    assert_eq!(
        t.modifiers.iter().map(|m| m.name.name.as_str()).collect::<Vec<_>>(),
        ["clamped", "hwtex_const"]
    );
    let f = function("function [] = __kernel__ k(a : mat'\tunchecked, pos : ivec2)\nendfunction");
    assert_eq!(
        f.params[0].ty.as_ref().map(crate::syntax::printer::print_type).as_deref(),
        Some("mat'unchecked")
    );
    // A quote followed by nothing that names a modifier is still an error.
    assert!(errors("x = a' + 1")[0].contains("unexpected `'`"));
}

#[test]
fn unknown_pointer_union_cell_and_function_types() {
    assert!(matches!(type_of("??").kind, TypeKind::Unknown));
    assert!(matches!(type_of("^point").kind, TypeKind::Pointer(_)));
    assert!(matches!(type_of("[int|int8|cube[int]]").kind, TypeKind::Union(v) if v.len() == 3));
    assert!(
        matches!(type_of("vec[{string, scalar}]").kind, TypeKind::Named { args, .. } if matches!(args[0].kind, TypeKind::Cell(_)))
    );
    let TypeKind::Function(f) = type_of("[__device__ (scalar, ...vec) -> (scalar, scalar)]").kind
    else {
        panic!()
    };
    assert_eq!(
        (f.kind, f.params.len(), f.params[1].variadic, f.results.len()),
        (FunctionKind::Device, 2, true, 2)
    );
    let TypeKind::Function(f) = type_of("[(mat, vec) -> ()]").kind else { panic!() };
    assert!(f.results.is_empty() && f.results_parenthesized);
    let TypeKind::Function(f) = type_of("[scalar -> scalar -> scalar]").kind else { panic!() };
    assert!(matches!(&f.results[0].kind, TypeKind::Function(g) if g.results.len() == 1));
    let TypeKind::Function(f) = type_of("[__device__ () -> ??]").kind else { panic!() };
    assert!(f.params.is_empty());
}

fn typedef(src: &str) -> TypeDef {
    match one(src) {
        StmtKind::TypeDef(t) => *t,
        other => panic!("not a type definition: {other:#?}"),
    }
}

#[test]
fn type_definitions_classes_enums_aliases_inheritance() {
    let t = typedef("type point : class\n  x : scalar\n  y : scalar\nendtype");
    assert!(
        matches!(t.body, TypeDefBody::Class { kind: ClassKind::Immutable, parent: None, ref fields } if fields.len() == 2)
    );
    let t = typedef("type stack[T] : mutable class\n  tab : vec[T]\n  pointer : int\nendtype");
    assert_eq!(t.params.len(), 1);
    assert!(matches!(t.body, TypeDefBody::Class { kind: ClassKind::Mutable, .. }));
    let t = typedef("type Bird : dynamic class\n    name : string\nendtype");
    assert!(matches!(t.body, TypeDefBody::Class { kind: ClassKind::Dynamic, .. }));
    let t = typedef("type circle : point\n  radius : scalar\nendtype");
    assert!(
        matches!(t.body, TypeDefBody::Class { parent: Some(_), ref fields, .. } if fields.len() == 1)
    );
    let t = typedef("type color : enum\n  Red\n  Green\n  Blue = 2\nendtype");
    assert!(matches!(t.body, TypeDefBody::Enum(ref v) if v.len() == 3 && v[2].value.is_some()));
    let t = typedef("type cvec : vec[cscalar]");
    assert!(matches!(t.body, TypeDefBody::Alias(_)));
    let t = typedef("type AllInt : [int|int8|uint64]");
    assert!(matches!(t.body, TypeDefBody::Alias(TypeExpr { kind: TypeKind::Union(_), .. })));
    let t = typedef("type binary_function : [__device__ (scalar, scalar) -> scalar]");
    assert!(matches!(t.body, TypeDefBody::Alias(TypeExpr { kind: TypeKind::Function(_), .. })));
    // An alias followed by other statements is not mistaken for a derived class.
    assert_eq!(stmts("type ivec : vec[int]\ntype imat : mat[int]\nx = 1").len(), 3);
    // `type(x, "scalar")` is still a call.
    assert_eq!(sx("assert(type(x, \"scalar\"))"), "(call assert (call type x \"scalar\"))");
}

// ---- reductions, symbolic, import, meta, attributes, pragmas ------------------------------

#[test]
fn reductions_with_and_without_where() {
    let StmtKind::Reduction(r) = one(
        "reduction (a:cube, b:cube, c:scalar) -> a+b*c = fmad(a,b,c) _\n  where size(a) == size(b)",
    ) else {
        panic!()
    };
    assert_eq!((r.params.len(), sexp(&r.pattern)), (3, "(+ a (* b c))".to_string()));
    assert_eq!(r.condition.as_ref().map(sexp), Some("(== (call size a) (call size b))".into()));
    let StmtKind::Reduction(r) = one("reduction x : scalar -> abs(x) = x where x >= 0") else {
        panic!()
    };
    assert!(!r.parenthesized && r.params[0].ty.is_some());
    let StmtKind::Reduction(r) =
        one("reduction (y : cube, x : image) -> (y := x) = y = compute(x, size(y))")
    else {
        panic!()
    };
    assert_eq!(sexp(&r.replacement), "(= y (call compute x (call size y)))");
}

#[test]
fn symbolic_import_meta_functions_and_pragmas() {
    let StmtKind::Symbolic(names) = one("symbolic x : int, y") else { panic!() };
    assert_eq!(names.len(), 2);
    assert_eq!(one("import \"system.q\""), StmtKind::Import { path: "system.q".into() });
    assert_eq!(
        sx("k = $specialize(f, type(x, mat'hwtex_nearest) && T==10)"),
        "(= k (call $specialize f (&& (call type x (' mat hwtex_nearest)) (== T 10))))"
    );
    assert_eq!(
        one("#pragma loop_parallelizer off"),
        StmtKind::Pragma("pragma loop_parallelizer off".into())
    );
}

fn attribute(src: &str) -> Attribute {
    match one(src) {
        StmtKind::Attribute(a) => a,
        other => panic!("not an attribute: {other:#?}"),
    }
}

#[test]
fn code_attributes() {
    let a = attribute("{!parallel for; blkdim=M}");
    let names: Vec<&str> = a.items[0].name.iter().map(|i| i.name.as_str()).collect();
    assert_eq!(names, ["parallel", "for"]);
    assert_eq!(a.items[0].args[0].key.name, "blkdim");
    let a = attribute("{!kernel_tiling dims=[128,128,1], mode=\"global\"}");
    assert_eq!(a.items[0].args.len(), 2);
    let a = attribute("{!kernel_arg name=y; op=\"+=\"\n !kernel_arg name=x; numel=2}");
    assert_eq!(a.items.len(), 2);
    let a = attribute("{!parallel for; reduction={val,\"+=\"}}");
    assert!(matches!(a.items[0].args[0].value.kind, ExprKind::Cell(_)));
    let a = attribute("!specialize args=(radius==1 || radius==2)");
    assert!(!a.braced);
    assert_eq!(attribute("{!auto_inline}").items[0].args.len(), 0);
}

// ---- diagnostics and recovery -------------------------------------------------------------

#[test]
fn many_errors_one_each_without_cascade() {
    let src = "c = 3 +* 4\na = (1 + \nb = 2\nfor i = \n  x = 1\nendfor\nd = ]\nfunction y = f(x\n  y = x\nendfunction\ne = 5\n";
    let parsed = parse(src, FileId(0));
    let mut lines: Vec<u32> = parsed.diagnostics.iter().map(|d| d.span.line).collect();
    lines.sort();
    assert_eq!(lines, [1, 2, 4, 7, 8], "{:#?}", parsed.diagnostics);
    // Statements after the errors are still parsed.
    let last = parsed.program.body.last().map(|s| s.span.line);
    assert_eq!(last, Some(11));
}

#[test]
fn block_errors_name_the_opener() {
    assert_eq!(
        errors("for i=0..2\n  x = 1\n"),
        ["3:1: expected `endfor` to close the `for`, found end of file"]
    );
    assert_eq!(errors("endwhile"), ["1:1: `endwhile` without a matching block opener"]);
    assert_eq!(
        errors("function f()\n  if x\n  endfor\nendfunction"),
        ["3:3: expected `endif` to close the `if`, found keyword `endfor`"]
    );
    assert_eq!(errors("x = endfor + 1"), ["1:5: expected an expression, found keyword `endfor`"]);
    assert_eq!(
        errors("match a\n| 1 -> x\nendmatch"),
        ["1:8: expected `with` after the matched expression"]
    );
}

#[test]
fn spans_cover_their_nodes() {
    let p = ok("x = 1\n  y = foo(2, 3)\n");
    let s = &p.body[1];
    assert_eq!((s.span.line, s.span.col, s.span.range()), (2, 3, 8..21));
    let StmtKind::Expr(Expr { kind: ExprKind::Assign { rhs, .. }, .. }) = &s.kind else { panic!() };
    assert_eq!(rhs.span.range(), 12..21);
}
