//! Fuzz-style robustness tests for the lexer, parser and type checker: whatever the input,
//! lexing and parsing must not panic, every span must lie inside the source on a character
//! boundary, diagnostics must render, and programs that parse without errors must survive a
//! trip through the pretty-printer unchanged and be type-checked without a panic (with sane
//! diagnostic spans and a printable typed IR).
//!
//! Inputs come from four sources: arbitrary strings, strings of Quasar-like tokens, random
//! mutations of a corpus of valid programs, and hand-written pathological inputs (deep
//! nesting, very long lines).
//!
//! The property tests run 256 cases each by default (a few seconds in a debug build); set
//! `PROPTEST_CASES` for a longer campaign, e.g.
//! `PROPTEST_CASES=20000 cargo test --release -p quasar-core --test no_panic`.

use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::Config as ProptestConfig;
use quasar_core::ir::dump;
use quasar_core::sema::check::check_program;
use quasar_core::syntax::ast::Program;
use quasar_core::syntax::encoding::decode;
use quasar_core::syntax::lexer::lex;
use quasar_core::syntax::printer::print_program;
use quasar_core::syntax::token::TokenKind;
use quasar_core::syntax::{parse, Parsed};
use quasar_core::{FileId, SourceMap, Span};

// ---- configuration ----------------------------------------------------------------------

/// `cases` unless `PROPTEST_CASES` is set. Failures are not persisted to files: proptest
/// prints the minimal failing input, which is what goes into a regression test.
fn config(cases: u32) -> ProptestConfig {
    let cases =
        std::env::var("PROPTEST_CASES").ok().and_then(|v| v.trim().parse().ok()).unwrap_or(cases);
    // Inputs that hit a known bug are rejected (`prop_assume!`); allow for that in long runs.
    let max_global_rejects = cases.saturating_mul(4).max(1024);
    ProptestConfig {
        cases,
        max_global_rejects,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

// ---- the checks -------------------------------------------------------------------------

/// Line and column lookup for byte offsets, in time independent of the source length.
struct Positions {
    /// Byte offset of the start of each line.
    line_starts: Vec<usize>,
    /// `chars_before[i]`: the number of chars that start before byte `i` (for `i <= len`).
    chars_before: Vec<u32>,
}

impl Positions {
    fn new(source: &str) -> Positions {
        let mut line_starts = vec![0];
        let mut chars_before = Vec::with_capacity(source.len() + 1);
        let mut count = 0;
        for (i, b) in source.bytes().enumerate() {
            chars_before.push(count);
            // Count each char at its first byte (anything but a UTF-8 continuation byte).
            if b & 0xC0 != 0x80 {
                count += 1;
            }
            if b == b'\n' {
                line_starts.push(i + 1);
            }
        }
        chars_before.push(count);
        Positions { line_starts, chars_before }
    }

    /// The 1-based line and column (in characters) of byte offset `pos`.
    fn line_col(&self, pos: usize) -> (u32, u32) {
        let line = self.line_starts.partition_point(|&s| s <= pos);
        let start = self.line_starts[line - 1];
        (line as u32, self.chars_before[pos] - self.chars_before[start] + 1)
    }
}

fn check_span(source: &str, span: Span, what: &str) -> Result<(), String> {
    let (start, end) = (span.start as usize, span.end as usize);
    if span.file != FileId(0) {
        return Err(format!("{what}: span in file {:?}, expected FileId(0)", span.file));
    }
    if start > end || end > source.len() {
        return Err(format!(
            "{what}: span {start}..{end} outside the source (len {})",
            source.len()
        ));
    }
    if !source.is_char_boundary(start) || !source.is_char_boundary(end) {
        return Err(format!("{what}: span {start}..{end} is not on a char boundary"));
    }
    Ok(())
}

/// Like [`check_span`], and the span's line and column must match its start offset.
fn check_span_position(
    source: &str,
    pos: &Positions,
    span: Span,
    what: &str,
) -> Result<(), String> {
    check_span(source, span, what)?;
    let expected = pos.line_col(span.start as usize);
    if (span.line, span.col) != expected {
        return Err(format!(
            "{what}: span {:?} says line {}, column {}, but offset {} is at {}:{}",
            span.range(),
            span.line,
            span.col,
            span.start,
            expected.0,
            expected.1
        ));
    }
    Ok(())
}

/// Lexes, parses, checks every span, renders the diagnostics and prints the tree.
fn check_source(source: &str) -> Result<Parsed, String> {
    let pos = Positions::new(source);
    let lexed = lex(source, FileId(0));
    match lexed.tokens.last() {
        Some(t) if t.kind == TokenKind::Eof => {}
        other => return Err(format!("the token list does not end with Eof: {other:?}")),
    }
    let eofs = lexed.tokens.iter().filter(|t| t.kind == TokenKind::Eof).count();
    if eofs != 1 {
        return Err(format!("{eofs} Eof tokens"));
    }
    let mut last_end = 0;
    for (i, t) in lexed.tokens.iter().enumerate() {
        check_span_position(source, &pos, t.span, &format!("token {i} ({})", t.kind))?;
        if (t.span.start as usize) < last_end {
            return Err(format!("token {i} ({}) starts before the previous token ends", t.kind));
        }
        last_end = t.span.end as usize;
    }
    for d in &lexed.diagnostics {
        check_span_position(source, &pos, d.span, &format!("lexer diagnostic {:?}", d.message))?;
    }

    let parsed = parse(source, FileId(0));
    for d in &parsed.diagnostics {
        let what = format!("diagnostic {:?}", d.message);
        check_span_position(source, &pos, d.span, &what)?;
        for (s, label) in &d.secondary {
            check_span_position(source, &pos, *s, &format!("{what}, secondary label {label:?}"))?;
        }
    }
    let mut map = SourceMap::new();
    let file = map.add("fuzz.q", source);
    assert_eq!(file, FileId(0));
    // Each rendered diagnostic shows its whole source line, so for pathological inputs
    // (100 000 unclosed brackets on one line) render only the first and last ones.
    let diags = &parsed.diagnostics;
    let rendered = if diags.len() > 256 {
        map.render(&diags[..128]) + &map.render(&diags[diags.len() - 128..])
    } else {
        map.render(diags)
    };
    if !diags.is_empty() && rendered.is_empty() {
        return Err("diagnostics rendered as nothing".into());
    }
    // Printing a tree must not panic, also one recovered from errors.
    let _ = print_program(&parsed.program);
    Ok(parsed)
}

/// Type-checks `program` (parsed from `source` without errors): no panic, every diagnostic
/// span (primary and secondary) inside the source at the right line and column, diagnostics
/// that render, and a typed IR that can be dumped.
fn check_types(source: &str, program: &Program) -> Result<(), String> {
    let pos = Positions::new(source);
    let checked = check_program(program);
    for d in &checked.diagnostics {
        let what = format!("type diagnostic {:?}", d.message);
        check_span_position(source, &pos, d.span, &what)?;
        for (s, label) in &d.secondary {
            check_span_position(source, &pos, *s, &format!("{what}, secondary label {label:?}"))?;
        }
    }
    let mut map = SourceMap::new();
    map.add("fuzz.q", source);
    if !checked.diagnostics.is_empty() && map.render(&checked.diagnostics).is_empty() {
        return Err("type diagnostics rendered as nothing".into());
    }
    let _ = dump::instances(&checked.module);
    Ok(())
}

/// [`check_source`], then [`check_types`] when the source parses without errors.
fn check_source_and_types(source: &str) -> Result<Parsed, String> {
    let parsed = check_source(source)?;
    if !parsed.has_errors() {
        check_types(source, &parsed.program)?;
    }
    Ok(parsed)
}

/// Printing `program` (parsed from `source` without errors) and parsing the result must give
/// an equal tree, and printing that again must give the same text.
fn check_round_trip(source: &str, program: &Program) -> Result<(), String> {
    let printed = print_program(program);
    let again = parse(&printed, FileId(0));
    if (again.has_errors() || again.program != *program) && hits_known_printer_bug(&printed) {
        return Ok(());
    }
    if again.has_errors() {
        let map = {
            let mut m = SourceMap::new();
            m.add("printed.q", printed.as_str());
            m
        };
        return Err(format!(
            "the printed form does not parse\n--- source ---\n{source}\n--- printed ---\n{printed}\n--- errors ---\n{}",
            map.render(&again.diagnostics)
        ));
    }
    if again.program != *program {
        return Err(format!(
            "the printed form parses to a different tree\n--- source ---\n{source}\n--- printed ---\n{printed}\n--- original tree ---\n{}\n--- reparsed tree ---\n{}",
            shorten(format!("{:?}", program.body), 4000),
            shorten(format!("{:?}", again.program.body), 4000)
        ));
    }
    let reprinted = print_program(&again.program);
    if reprinted != printed {
        return Err(format!(
            "printing is not idempotent\n--- source ---\n{source}\n--- first ---\n{printed}\n--- second ---\n{reprinted}"
        ));
    }
    Ok(())
}

/// Round trips that fail because of known, reported printer bugs; they are skipped so that
/// the property tests keep looking for new ones. Remove an entry when its bug is fixed.
fn hits_known_printer_bug(printed: &str) -> bool {
    // A placeholder `_` at the end of a printed line reads back as a line continuation:
    // `x = _ _` (a placeholder, then a continuation) prints as `x = _`.
    printed.lines().any(|l| {
        let l = l.trim_end();
        l.ends_with('_')
            && !l[..l.len() - 1]
                .ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_' || c == '$')
    })
}

fn shorten(s: String, max: usize) -> String {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &s[..end])
}

// ---- the token alphabet -----------------------------------------------------------------

const KEYWORDS: &[&str] = &[
    "function",
    "endfunction",
    "if",
    "elseif",
    "else",
    "endif",
    "for",
    "endfor",
    "while",
    "endwhile",
    "repeat",
    "until",
    "match",
    "with",
    "endmatch",
    "try",
    "catch",
    "endtry",
    "type",
    "endtype",
    "end",
    "break",
    "continue",
    "return",
    "reduction",
    "where",
    "symbolic",
    "import",
    "class",
    "mutable",
    "dynamic",
    "enum",
    "macro",
    "endmacro",
    "__kernel__",
    "__device__",
    "__host__",
];

const OPERATORS: &[&str] = &[
    "+",
    "-",
    "*",
    "/",
    "^",
    ".*",
    "./",
    ".^",
    "<",
    "<=",
    ">",
    ">=",
    "==",
    "!=",
    "!",
    "&&",
    "||",
    "=",
    "+=",
    "-=",
    "*=",
    "/=",
    "^=",
    ".*=",
    "./=",
    ".^=",
    "^^=",
    "__=",
    "~=",
    "|=",
    "&=",
    "?",
    "??",
    ":",
    ":=",
    "..",
    "...",
    ".",
    ",",
    ";",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    "{!",
    "->",
    "|",
    "|>",
    "'",
    "_",
    "%",
    "#",
    "\"",
    "'const",
    "'unchecked",
    "' clamped",
    "'\t",
    "\\\"",
    ";)",
    "\"C:\\dir\\\"",
    "#pragma",
    "@",
    "\\",
    "\t",
    "\r",
];

const NUMBERS: &[&str] = &[
    "0",
    "12",
    "1.5",
    ".5",
    "1.",
    "1e-3",
    "2.5E+10",
    "1Fh",
    "0ECD3Fh",
    "1011b",
    "17o",
    "2j",
    "3.5i",
    "99999999999999999999999",
    "1e",
    "12x",
    "0..9",
    "2.^",
    "1..2..3",
    "1e999",
    "0b",
];

const IDENTS: &[&str] = &[
    "x",
    "y",
    "a",
    "b",
    "f",
    "pos",
    "scalar",
    "vec",
    "mat",
    "cube",
    "int",
    "ivec2",
    "string",
    "parallel_do",
    "size",
    "print",
    "$meta",
    "$check",
    "opt$",
    "_",
    "__",
    "x_1",
];

const SPACING: &[&str] = &[" ", " ", " ", "\n", "\n", "\t", "\r\n", " _\n", " % comment\n", ""];

fn token() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::sample::select(KEYWORDS).prop_map(str::to_string),
        5 => prop::sample::select(OPERATORS).prop_map(str::to_string),
        2 => prop::sample::select(NUMBERS).prop_map(str::to_string),
        4 => prop::sample::select(IDENTS).prop_map(str::to_string),
        1 => "[a-zA-Z_$][a-zA-Z0-9_$]{0,8}",
        1 => r#""([^"\\\n]|\\.){0,6}"?"#,
        1 => "[0-9][0-9a-fA-FhboxXijeE.+-]{0,6}",
    ]
}

/// A sequence of tokens, each followed by a random separator.
fn token_soup(max_tokens: usize) -> impl Strategy<Value = String> {
    prop::collection::vec((token(), prop::sample::select(SPACING)), 0..max_tokens).prop_map(|v| {
        let mut s = String::new();
        for (t, sep) in v {
            s.push_str(&t);
            s.push_str(sep);
        }
        s
    })
}

/// Arbitrary text, biased towards ASCII, control characters and Quasar punctuation but
/// including any Unicode scalar value.
fn any_text() -> impl Strategy<Value = String> {
    let ch = prop_oneof![
        3 => any::<char>(),
        3 => proptest::char::range('\0', '\x7f'),
        2 => prop::sample::select(&['\n', ' ', '"', '\'', '_', '%', '#', '.', '(', '[', '{', '\\'][..]),
        1 => prop::sample::select(&['é', 'λ', '€', '\u{200b}', '\u{feff}', '😀', '\u{301}'][..]),
    ];
    prop_oneof![prop::collection::vec(ch, 0..200).prop_map(String::from_iter), any::<String>(),]
}

// ---- the corpus -------------------------------------------------------------------------

/// Valid Quasar programs covering the grammar; each must parse without errors.
const CORPUS: &[&str] = &[
    // 0: a function with several typed outputs and a default argument
    r#"function [mean_val : scalar, var_val : scalar] = stats(x : vec, w : vec = ones(size(x)))
    total = sum(w)
    mean_val = sum(x .* w) / total
    var_val = sum(w .* (x - mean_val).^2) / total
endfunction

[m, v] = stats([1, 2, 3, 4.5])
print "mean = ", m, ", variance = ", v
"#,
    // 1: a kernel function launched with parallel_do
    r#"im = imread("image_big.tif")
im_out = zeros(size(im))
N = 5
mask = ones(2*N+1, 2*N+1)/(2*N+1)^2

function [] = __kernel__ filter_kernel(im : cube, im_out : cube, mask : mat, N : int, pos : ivec2)
    a = [0., 0., 0.]
    for k = -N..N
        for l = -N..N
            a += mask[N+k, N+l] * im[pos[0]+k, pos[1]+l, 0..2]
        endfor
    endfor
    im_out[pos[0], pos[1], 0..2] = a
endfunction
parallel_do(size(im, 0..1), im, im_out, mask, N, filter_kernel)
"#,
    // 2: closures and lambdas of every kind
    r#"function y : mat = gamma_correction(x : mat, gamma : scalar)
    y = uninit(size(x))
    parallel_do(size(x), __kernel__ (pos : ivec2) -> y[pos] = x[pos]^gamma)
endfunction
gamma = 2.4
lut = ((0..255)/255).^gamma*255
correct = __device__ (x : scalar) -> lut[x]
add = (a, b) -> a + b
typed = (a : scalar, b : int = 2) -> a * b
twice = f -> x -> f(f(x))
z = twice(x -> x + 1)(3)
noargs = () -> 42
"#,
    // 3: match with literals, groups, strings and a default arm
    r#"function describe(a)
    match a with
    | 1 ->
        print "a=1"
    | (3, 4) ->
        print "a=3 or a=4"
    | "String" ->
        print "a=String"
    | Red -> print("red")
    | _ -> print "something else"
    endmatch
endfunction
"#,
    // 4: type definitions: classes, enums, aliases, generic and derived types
    r#"type point : mutable class
    x : scalar
    y : scalar
endtype

type color : enum
    Red
    Green
    Blue = 2
    Cyan
endtype

type particle : class
    position : vec3
    velocity : vec3 = [0, 0, 0]
    tag : string
endtype

type point_vec : vec[point]
type pt_ptr : vec[^point]
type cellvec : vec[??]
type AllInt : [int|int8|int16|int32|uint8|uint32|uint64]
type binary_function : [__device__ (scalar, scalar) -> scalar]
type binary_op : [scalar -> scalar -> scalar]
p = point(x := 1, y := 2)
c = color.Cyan
"#,
    // 5: reductions with and without conditions
    r#"reduction (p : point, q : point) -> p.distanceto(q) = point_distance(p, q)
reduction (x : mat) -> transpose(transpose(x)) = x
reduction (x : mat) -> x[:, :] = x
reduction (x : scalar) -> abs(x) = x where x >= 0
reduction (x : scalar) -> someop(x, a) = superfastop(x, a) where 0 <= a && a < 1
reduction x -> sum(x) = my_sum(x)
reduction (a : string, ...args : vec[??]) -> myprint(a, args) = handler(a, ...args)
"#,
    // 6: code attributes and pragmas
    r#"#pragma loop_parallelizer off
{!author name="someone"}
function y = smooth(x : mat'const)
    y = zeros(size(x))
    {!parallel for}
    for m = 0..size(x, 0) - 1
        {!kernel target="gpu"}
        for n = 0..size(x, 1) - 1
            y[m, n] = (x[m, n] + x[m, max(n - 1, 0)]) / 2
        endfor
    endfor
endfunction
"#,
    // 7: ranges, matrices and cells
    r#"A = [[1, 2, 3], [4, 5, 6]]
B = A[0, :]
C = A[:, 1..2]
D = A[1, 0]
v = 0..2..10
w = [v, 11, 12]
cells = {1, "two", [3, 4], {5}}
empty = []
no_cells = {}
t = (1, 2)
seq = (a = 1; b = 2; a + b)
"#,
    // 8: loops, conditionals, exceptions and number notations
    r#"i = 0
total = 0.
done = false
while i < 100
    i += 1
    if mod(i, 2) == 0
        continue
    elseif i > 50 && !done
        break
    else
        total += i * 1.5e-3
    endif
endwhile
repeat
    i -= 1
until i <= 0
try
    error "boom"
catch err
    print err
endtry
flags = [1Fh, 1011b, 17o, 0ECD3Fh, 12]
z = 2j + 3.5i - .5 + 1e-3 + 2.5E+10
"#,
    // 9: the legacy block style
    r#"function y = f(x)
    y = 0
    for i = 0..9
        if x > i
            y = y + i
        end
    end
end
"#,
    // 10: device and kernel functions, atomics and compound assignments
    r#"function y : vec2 = __device__ orth(x : vec2)
    y = [-x[1], x[0]]
endfunction

function [] = __kernel__ accumulate(y : vec'unchecked, x : vec'unchecked, hist : vec[int], pos : int)
    y[pos] *= 2
    y[pos] ./= 3
    y[pos] .^= 2
    hist[0] ^^= pos
    hist[1] __= pos
    hist[2] ~= pos
    hist[3] |= pos
    hist[4] &= pos
    hist[5] += 1
endfunction
parallel_do(numel(x), y, x, hist, accumulate)
"#,
    // 11: type annotations: function types, cells, unknowns, sizes, pointers, modifiers
    r#"function y : cube = pointwise_op(x : cube, fn : [__device__ scalar -> scalar])
    y = uninit(size(x))
    parallel_do(size(x), __kernel__ (pos : ivec3) -> y[pos] = fn(x[pos]))
endfunction
function [] = color_transform[P : int](im_in : cube(:, :, P), im_out : cube(:, :, P))
    im_out[:, :, 0] = im_in[:, :, 0]
endfunction
function C = generic_mult[M, N](A : mat(M, N), B : vec(N))
    C = A * B
endfunction
x : {string, scalar} = {"a", 1}
u : ?? = 4
k : 'const = 4
g : [(scalar, ...vec) -> (scalar, scalar)] = f
h : cube{4}[int16] = zeros(1, 2, 3, 4)
"#,
    // 12: imports, symbolic variables, pipelines, ternaries and named arguments
    r#"import "inttypes.q"
symbolic a, b : scalar
y = x |> abs |> sqrt
s = x > 0 ? 1 : -1
m = x >= 0 && x <= 1 || x == 2 || x != 3
r = resize(im, size := [64, 64], method := "bilinear")
q = -x^2 + +y .* !z ./ w
"#,
    // 13: nested functions, variadic parameters and spread arguments
    r#"function y = sum_all(...args : vec[scalar])
    function z = helper(t)
        z = t * 2
    endfunction
    y = 0
    for i = 0..numel(args) - 1
        y += helper(args[i])
    endfor
endfunction
r = sum_all(...[1, 2, 3])
field = r.value.inner
text = "escaped \" quote and \\ backslash"
"#,
    // 15: the older block endings (`if` … `endif`, every other block … `end`), blanks after
    // a modifier's quote, a `;` ending a lambda argument, `,` ending a statement and Windows
    // paths whose last backslash precedes the closing quote
    r#"function y = __device__ clampadd(a : scalar, b : scalar)
    y = a + b
    if y > 1
        y = 1
    elseif y < 0
        y = 0
    endif
end
function [] = __kernel__ k(x : cube' clamped'const, y : cube'  unchecked, pos : ivec3)
    for d = 0..1
        y[pos] += clampadd(x[pos], d)
    end
end
folder = "D:\out\"
other = "C:\a\b", n = 3,
handlers.add(() -> (n = 4;
                    print(folder););)
while n > 0
    n -= 1
end
"#,
    // 14: statements on one line, line continuations and comments
    r#"a = 1; b = 2; c = a + _  % continued
    b
% a whole-line comment
function [] = main()
    x = [1, 2, % a comment inside brackets
         3, 4]
    y = x +
        1
    return
endfunction
main()
"#,
];

// ---- mutations --------------------------------------------------------------------------

#[derive(Clone, Debug)]
enum Mutation {
    Delete(Index, Index),
    Duplicate(Index, Index, Index),
    Insert(Index, String),
    Swap([Index; 4]),
    Truncate(Index),
    ReplaceChar(Index, char),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let idx = any::<Index>;
    prop_oneof![
        3 => (idx(), idx()).prop_map(|(a, b)| Mutation::Delete(a, b)),
        2 => (idx(), idx(), idx()).prop_map(|(a, b, c)| Mutation::Duplicate(a, b, c)),
        4 => (idx(), prop_oneof![token(), prop::sample::select(SPACING).prop_map(str::to_string)])
            .prop_map(|(a, t)| Mutation::Insert(a, t)),
        2 => [idx(), idx(), idx(), idx()].prop_map(Mutation::Swap),
        1 => idx().prop_map(Mutation::Truncate),
        2 => (idx(), any::<char>()).prop_map(|(a, c)| Mutation::ReplaceChar(a, c)),
    ]
}

/// The char boundaries of `s`: `0`, each char's start, and `s.len()`.
fn boundaries(s: &str) -> Vec<usize> {
    s.char_indices().map(|(i, _)| i).chain(std::iter::once(s.len())).collect()
}

fn apply(s: &str, m: &Mutation) -> String {
    let b = boundaries(s);
    let at = |i: &Index| b[i.index(b.len())];
    let sorted = |a: &Index, c: &Index| {
        let (x, y) = (at(a), at(c));
        (x.min(y), x.max(y))
    };
    match m {
        Mutation::Delete(a, c) => {
            let (x, y) = sorted(a, c);
            format!("{}{}", &s[..x], &s[y..])
        }
        Mutation::Duplicate(a, c, dest) => {
            let (x, y) = sorted(a, c);
            let d = at(dest);
            format!("{}{}{}", &s[..d], &s[x..y], &s[d..])
        }
        Mutation::Insert(a, t) => {
            let x = at(a);
            format!("{}{t}{}", &s[..x], &s[x..])
        }
        Mutation::Swap(idx) => {
            let mut p: Vec<usize> = idx.iter().map(at).collect();
            p.sort_unstable();
            format!(
                "{}{}{}{}{}",
                &s[..p[0]],
                &s[p[2]..p[3]],
                &s[p[1]..p[2]],
                &s[p[0]..p[1]],
                &s[p[3]..]
            )
        }
        Mutation::Truncate(a) => s[..at(a)].to_string(),
        Mutation::ReplaceChar(a, c) => {
            let i = a.index(b.len());
            if i + 1 >= b.len() {
                format!("{s}{c}")
            } else {
                format!("{}{c}{}", &s[..b[i]], &s[b[i + 1]..])
            }
        }
    }
}

fn mutated_program() -> impl Strategy<Value = String> {
    (0..CORPUS.len(), prop::collection::vec(mutation(), 1..6)).prop_map(|(i, ms)| {
        let mut s = CORPUS[i].to_string();
        for m in &ms {
            s = apply(&s, m);
        }
        s
    })
}

// ---- mutated well-typed programs (for the type checker) ---------------------------------

/// The programs of the type checker's golden tests (`types_ok/`, `type_errors/`): valid,
/// mostly well-typed programs that reach deep into the checker.
fn typed_corpus() -> &'static [String] {
    static CORPUS: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    CORPUS.get_or_init(|| {
        let tests = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
        let mut programs = Vec::new();
        for dir in ["types_ok", "type_errors"] {
            let Ok(entries) = std::fs::read_dir(tests.join(dir)) else { continue };
            let mut paths: Vec<_> = entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "q"))
                .collect();
            paths.sort();
            programs.extend(paths.iter().filter_map(|p| std::fs::read_to_string(p).ok()));
        }
        if programs.is_empty() {
            programs.extend(CORPUS_FALLBACK.iter().map(|s| s.to_string()));
        }
        programs
    })
}

const CORPUS_FALLBACK: &[&str] =
    &["function y = f(x : scalar)\n    y = x\nendfunction\nz = f(1.0)\n"];

/// Words a type-aware mutation puts in place of another word: types, literals of each type,
/// special kernel parameters, function kinds, built-ins.
const TYPED_WORDS: &[&str] = &[
    "int",
    "scalar",
    "cscalar",
    "string",
    "vec",
    "vec3",
    "ivec2",
    "ivec3",
    "mat",
    "mat(2, 2)",
    "cube",
    "cube{4}",
    "vec[int]",
    "cube(:, :, 3)",
    "??",
    "'const",
    "^point",
    "0",
    "1",
    "2.5",
    "1j",
    "\"s\"",
    "[1, 2]",
    "[1.0, 2.0, 3.0]",
    "{1, \"a\"}",
    "eye(3)",
    "zeros(2, 3)",
    "x",
    "y",
    "pos",
    "blkpos",
    "blkdim",
    "warpsize",
    "__kernel__",
    "__device__",
    "__host__",
    "parallel_do",
    "shared",
    "syncthreads",
    "size",
    "numel",
    "load",
    "print",
    "self",
    "end",
    "...",
    ":",
    "(1, 2)",
    "x -> x",
    "T",
    "N",
    "vec(0)",
    "ivec0",
    "vec65",
    "cube{0}",
    "cube{20}",
    "mat(:, 0)",
    "mat[int8]",
    "uint8'sat",
    "'unchecked",
    "-1",
    "1e40",
    "[]",
    "{}",
    "class",
    "mutable class",
    "enum",
    "[scalar -> scalar]",
    "[__device__ (int) -> ()]",
    "vec[??]",
    "vec[vec[int]]",
    "[[1, 2], [3, 4]]",
    "0..9",
    "a[:, 1]",
    "...[1, 2]",
    "x.y",
    "color.Red",
];

#[derive(Clone, Debug)]
enum TypedMutation {
    /// Replace the n-th word (identifier, keyword or number) by one of [`TYPED_WORDS`].
    ReplaceWord(Index, &'static str),
    /// Remove the n-th word.
    DeleteWord(Index),
    /// Any of the text mutations.
    Text(Mutation),
}

fn typed_mutation() -> impl Strategy<Value = TypedMutation> {
    prop_oneof![
        5 => (any::<Index>(), prop::sample::select(TYPED_WORDS))
            .prop_map(|(i, w)| TypedMutation::ReplaceWord(i, w)),
        2 => any::<Index>().prop_map(TypedMutation::DeleteWord),
        1 => mutation().prop_map(TypedMutation::Text),
    ]
}

/// The byte ranges of the words of `s` (runs of ASCII alphanumerics, `_`, `$` and `.`).
fn words(s: &str) -> Vec<(usize, usize)> {
    let is_word = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b == b'.';
    let bytes = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if is_word(bytes[i]) {
            let start = i;
            while i < bytes.len() && is_word(bytes[i]) {
                i += 1;
            }
            out.push((start, i));
        } else {
            i += 1;
        }
    }
    out
}

fn apply_typed(s: &str, m: &TypedMutation) -> String {
    let ws = words(s);
    match m {
        TypedMutation::ReplaceWord(i, w) if !ws.is_empty() => {
            let (a, b) = ws[i.index(ws.len())];
            format!("{}{w}{}", &s[..a], &s[b..])
        }
        TypedMutation::DeleteWord(i) if !ws.is_empty() => {
            let (a, b) = ws[i.index(ws.len())];
            format!("{}{}", &s[..a], &s[b..])
        }
        TypedMutation::Text(m) => apply(s, m),
        _ => s.to_string(),
    }
}

fn mutated_typed_program() -> impl Strategy<Value = String> {
    (any::<Index>(), prop::collection::vec(typed_mutation(), 1..4)).prop_map(|(i, ms)| {
        let corpus = typed_corpus();
        let mut s = corpus[i.index(corpus.len())].clone();
        for m in &ms {
            s = apply_typed(&s, m);
        }
        s
    })
}

// ---- generated valid programs -----------------------------------------------------------

/// Source text of a (usually) valid expression, built bottom-up.
fn expr_text() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        prop::sample::select(&["x", "y", "a", "b", "pos", "n_1", "$m"][..])
            .prop_map(str::to_string),
        prop::sample::select(
            &["0", "12", "1.5", ".5", "1e-3", "1Fh", "1011b", "17o", "2j", "3.5i"][..]
        )
        .prop_map(str::to_string),
        r#""[a-z \\]{0,5}""#.prop_map(|s| s.replace('\\', "\\\\")),
        Just("??".to_string()),
    ];
    leaf.prop_recursive(5, 48, 4, |inner| {
        let binop = prop::sample::select(
            &[
                "+", "-", "*", "/", "^", ".*", "./", ".^", "<", "<=", ">", ">=", "==", "!=", "&&",
                "||", "|>",
            ][..],
        );
        let args = prop::collection::vec(inner.clone(), 0..4);
        prop_oneof![
            (inner.clone(), binop.clone(), inner.clone())
                .prop_map(|(a, op, b)| format!("{a} {op} {b}")),
            (inner.clone(), binop, inner.clone())
                .prop_map(|(a, op, b)| format!("({a}) {op} ({b})")),
            (prop::sample::select(&["-", "+", "!"][..]), inner.clone())
                .prop_map(|(op, a)| format!("{op}({a})")),
            (prop::sample::select(&["f", "g", "size"][..]), args.clone())
                .prop_map(|(f, a)| format!("{f}({})", a.join(", "))),
            (inner.clone(), args.clone()).prop_map(|(b, a)| format!("({b})[{}]", a.join(", "))),
            (inner.clone()).prop_map(|a| format!("x[{a}, :]")),
            args.clone().prop_map(|a| format!("[{}]", a.join(", "))),
            args.clone().prop_map(|a| format!("{{ {} }}", a.join(", "))),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a}, {b})")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a})..({b})")),
            (inner.clone(), inner.clone(), inner.clone())
                .prop_map(|(a, s, b)| format!("({a})..({s})..({b})")),
            (inner.clone(), inner.clone(), inner.clone())
                .prop_map(|(c, a, b)| format!("({c}) ? ({a}) : ({b})")),
            inner.clone().prop_map(|a| format!("x -> {a}")),
            inner.clone().prop_map(|a| format!("(p, q : scalar) -> {a}")),
            inner.clone().prop_map(|a| format!("__device__ (t : scalar) -> {a}")),
            inner.clone().prop_map(|a| format!("({a}).field")),
            inner.clone().prop_map(|a| format!("h(key := {a})")),
            inner.clone().prop_map(|a| format!("({a})")),
            Just("[_, a]".to_string()),
            inner.prop_map(|a| format!("f(_, {a})")),
        ]
    })
}

/// Source text of a (usually) valid program of a few statements.
fn program_text() -> impl Strategy<Value = String> {
    let simple = prop_oneof![
        expr_text().prop_map(|e| format!("y = {e}")),
        expr_text().prop_map(|e| format!("y += {e}")),
        expr_text().prop_map(|e| format!("z : scalar = {e}")),
        expr_text().prop_map(|e| format!("a[0, 1] = {e}")),
        expr_text().prop_map(|e| format!("f({e})")),
        expr_text().prop_map(|e| format!("print \"v\", {e}")),
        Just("break".to_string()),
        Just("{!parallel for}".to_string()),
    ];
    let stmt = simple.prop_recursive(3, 24, 3, |inner| {
        let body = prop::collection::vec(inner, 0..3).prop_map(|v| v.join("\n"));
        prop_oneof![
            (expr_text(), body.clone()).prop_map(|(c, b)| format!("if {c}\n{b}\nendif")),
            (expr_text(), body.clone(), body.clone())
                .prop_map(|(c, b, e)| format!("if {c}\n{b}\nelse\n{e}\nendif")),
            (expr_text(), body.clone()).prop_map(|(c, b)| format!("for i = {c}\n{b}\nendfor")),
            (expr_text(), body.clone()).prop_map(|(c, b)| format!("while {c}\n{b}\nendwhile")),
            (body.clone(), expr_text()).prop_map(|(b, c)| format!("repeat\n{b}\nuntil {c}")),
            (body.clone(), body.clone())
                .prop_map(|(b, c)| format!("try\n{b}\ncatch e\n{c}\nendtry")),
            (expr_text(), body.clone(), body.clone()).prop_map(|(s, a, b)| format!(
                "match {s} with\n| 1 ->\n{a}\n| _ ->\n{b}\nendmatch"
            )),
            body.prop_map(|b| format!(
                "function [r : scalar, s] = __device__ g(x : vec, n : int = 2)\n{b}\nendfunction"
            )),
        ]
    });
    prop::collection::vec(stmt, 1..5).prop_map(|v| v.join("\n") + "\n")
}

/// [`program_text`] in the older block-ending style: `if` … `endif`, every other block
/// … `end` (manual §2, "Syntax notice").
fn legacy_program_text() -> impl Strategy<Value = String> {
    program_text().prop_map(|p| {
        p.lines()
            .map(|l| match l {
                "endfor" | "endwhile" | "endtry" | "endmatch" | "endfunction" => "end",
                l => l,
            })
            .collect::<Vec<_>>()
            .join("\n")
            + "\n"
    })
}

const LATIN1_PIECES: &[&[u8]] = &[b"% caf\xe9 \x80\n", b"\"\x93q\x94\"", b"\xef\xbb\xbf", b"\xb5"];

/// Bytes that are mostly Quasar text with some bytes that are not UTF-8 (Windows-1252
/// comments and strings), as the CLI and the loader read them.
fn source_bytes() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        4 => token().prop_map(String::into_bytes),
        2 => prop::sample::select(SPACING).prop_map(|s| s.as_bytes().to_vec()),
        1 => prop::collection::vec(any::<u8>(), 0..4),
        1 => prop::sample::select(LATIN1_PIECES).prop_map(<[u8]>::to_vec),
    ];
    prop::collection::vec(piece, 0..80).prop_map(|v| v.concat())
}

// ---- property tests ---------------------------------------------------------------------

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn arbitrary_text_does_not_panic(source in any_text()) {
        check_source_and_types(&source).map_err(TestCaseError::fail)?;
    }

    #[test]
    fn token_soup_does_not_panic(source in token_soup(120)) {
        check_source_and_types(&source).map_err(TestCaseError::fail)?;
    }

    #[test]
    fn mutated_programs_do_not_panic(source in mutated_program()) {
        let parsed = check_source_and_types(&source).map_err(TestCaseError::fail)?;
        if !parsed.has_errors() {
            check_round_trip(&source, &parsed.program).map_err(TestCaseError::fail)?;
        }
    }

    #[test]
    fn mutated_typed_programs_do_not_panic(source in mutated_typed_program()) {
        check_source_and_types(&source).map_err(TestCaseError::fail)?;
    }

    #[test]
    fn generated_legacy_programs_round_trip(source in legacy_program_text()) {
        let parsed = check_source_and_types(&source).map_err(TestCaseError::fail)?;
        if !parsed.has_errors() {
            check_round_trip(&source, &parsed.program).map_err(TestCaseError::fail)?;
        }
    }

    #[test]
    fn bytes_that_are_not_utf8_decode_and_do_not_panic(bytes in source_bytes()) {
        let decoded = decode(bytes);
        if let Some(w) = decoded.warning(FileId(0)) {
            let pos = Positions::new(&decoded.text);
            check_span_position(&decoded.text, &pos, w.span, "encoding warning")
                .map_err(TestCaseError::fail)?;
        }
        check_source_and_types(&decoded.text).map_err(TestCaseError::fail)?;
    }

    #[test]
    fn generated_programs_round_trip(source in program_text()) {
        let parsed = check_source_and_types(&source).map_err(TestCaseError::fail)?;
        if !parsed.has_errors() {
            check_round_trip(&source, &parsed.program).map_err(TestCaseError::fail)?;
        }
    }
}

// ---- the corpus itself ------------------------------------------------------------------

#[test]
fn corpus_parses_without_errors_and_round_trips() {
    let mut failures = Vec::new();
    for (i, source) in CORPUS.iter().enumerate() {
        match check_source(source) {
            Ok(parsed) if !parsed.has_errors() => {
                if let Err(e) = check_round_trip(source, &parsed.program) {
                    failures.push(format!("corpus program {i}: {e}"));
                }
                if let Err(e) = check_types(source, &parsed.program) {
                    failures.push(format!("corpus program {i}: {e}"));
                }
            }
            Ok(parsed) => {
                let mut map = SourceMap::new();
                map.add(format!("corpus{i}.q"), *source);
                failures.push(format!(
                    "corpus program {i} does not parse:\n{}",
                    map.render(&parsed.diagnostics)
                ));
            }
            Err(e) => failures.push(format!("corpus program {i}: {e}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn every_corpus_prefix_does_not_panic() {
    // Truncation at every char boundary of every program: cheap and exhaustive.
    for source in CORPUS {
        for cut in boundaries(source) {
            if let Err(e) = check_source_and_types(&source[..cut]) {
                panic!("{e}\n--- input ---\n{}", &source[..cut]);
            }
        }
    }
}

// ---- pathological inputs ----------------------------------------------------------------
//
// These run on the test thread itself (a 2 MiB stack) to show that the depth limit protects
// it. Lines are kept to ~100 KB where the construct allows splitting it over lines (after
// `=`, `-`, `..` or `?` a statement continues on the next line), because the lexer's time
// grows with the square of a line's length.

/// Checks a pathological input: no panic, no stack overflow, sane spans; returns the
/// diagnostic messages.
fn check_deep(source: &str) -> Vec<String> {
    match check_source(source) {
        Ok(parsed) => parsed.diagnostics.into_iter().map(|d| d.message).collect(),
        Err(e) => panic!("{e}"),
    }
}

fn assert_too_deep(messages: &[String]) {
    assert!(
        messages.iter().any(|m| m == "nesting is too deep" || m == "this expression is too long"),
        "expected a \"nesting is too deep\" or \"this expression is too long\" error, got {:?}",
        &messages[..messages.len().min(5)]
    );
}

const DEEP: usize = 100_000;

#[test]
fn deep_unary_minus() {
    assert_too_deep(&check_deep(&"-".repeat(DEEP)));
    assert_too_deep(&check_deep(&format!("y = {}x", "-\n".repeat(DEEP))));
}

#[test]
fn deep_chained_assignment() {
    assert_too_deep(&check_deep(&"x =\n".repeat(DEEP)));
    assert_too_deep(&check_deep(&"x = ".repeat(DEEP / 5)));
}

#[test]
fn deep_if_blocks() {
    assert_too_deep(&check_deep(&"if a\n".repeat(DEEP / 10)));
}

#[test]
fn deep_balanced_blocks() {
    let n = 1000;
    for (open, close) in [
        ("if a\n", "endif\n"),
        ("for i = 0..9\n", "endfor\n"),
        ("while a\n", "endwhile\n"),
        ("try\n", "endtry\n"),
        ("function f()\n", "endfunction\n"),
        ("match a with\n| 1 ->\n", "endmatch\n"),
    ] {
        let src = format!("{}x = 1\n{}", open.repeat(n), close.repeat(n));
        assert_too_deep(&check_deep(&src));
    }
}

#[test]
fn deep_types() {
    assert_too_deep(&check_deep(&format!("x : {}scalar", "^".repeat(DEEP))));
    assert_too_deep(&check_deep(&format!(
        "x : {}scalar{}",
        "{".repeat(DEEP / 10),
        "}".repeat(DEEP / 10)
    )));
    assert_too_deep(&check_deep(&format!(
        "x : {}scalar{}",
        "vec[".repeat(DEEP / 10),
        "]".repeat(DEEP / 10)
    )));
}

#[test]
fn deep_ternaries() {
    assert_too_deep(&check_deep(&format!("y = {}x", "a ?\nb : ".repeat(DEEP))));
}

#[test]
fn deep_ranges_are_an_error() {
    assert!(!check_deep(&format!("y = {}a", "a..\n".repeat(DEEP))).is_empty());
}

#[test]
fn long_line_of_matrix_elements() {
    // One 90 KB line.
    let src = format!("y = [{}1]\n", "1, ".repeat(30_000));
    assert!(check_deep(&src).is_empty());
}

#[test]
fn many_short_lines() {
    let src = "x = x + 1 % comment\n".repeat(20_000);
    assert!(check_deep(&src).is_empty());
}

#[test]
fn long_string_and_comment() {
    let src = format!("s = \"{}\"\n% {}\n", "é".repeat(DEEP), "x".repeat(DEEP));
    assert!(check_deep(&src).is_empty());
    assert!(!check_deep(&format!("s = \"{}", "a".repeat(DEEP))).is_empty());
}

#[test]
fn many_unclosed_brackets_then_block_keyword() {
    let src = format!("y = f({}\nendfunction\n", "[1, ".repeat(50));
    assert!(!check_deep(&src).is_empty());
}

#[test]
fn nested_parens_within_a_debug_stack() {
    // 40 levels fit in a 2 MiB stack in a debug build; see the ignored tests below.
    let n = 40;
    assert!(check_deep(&format!("y = {}x{}", "(".repeat(n), ")".repeat(n))).is_empty());
    assert!(check_deep(&format!("y = {}x{}", "f(".repeat(n), ")".repeat(n))).is_empty());
    assert!(check_deep(&format!("y = {}x{}", "[".repeat(n), "]".repeat(n))).is_empty());
    assert!(check_deep(&format!("f = {}x", "x -> ".repeat(n))).is_empty());
}

#[test]
fn backslash_before_a_multibyte_char_in_a_string() {
    check_deep("\"\\é");
    check_deep("s = \"a\\\u{e000}\"\n");
}

// The following used to overflow the 2 MiB stack of a test thread; the parser, printer and
// checker now grow their stack on demand. The ones on 100 000-character lines stay ignored
// because they are slow in a debug build (the lexer's time grows with the square of a line's
// length); run them with `--ignored`, preferably with `--release`.

#[test]
fn deep_open_parens() {
    assert!(!check_deep(&"(".repeat(DEEP)).is_empty());
}

#[test]
fn deep_open_brackets() {
    assert!(!check_deep(&"[".repeat(DEEP)).is_empty());
}

#[test]
fn deep_open_braces() {
    assert!(!check_deep(&"{".repeat(DEEP)).is_empty());
}

#[test]
fn nested_parens_within_the_depth_limit() {
    let n = 60;
    assert!(check_deep(&format!("y = {}x{}", "(".repeat(n), ")".repeat(n))).is_empty());
}

#[test]
fn nested_calls_within_the_depth_limit() {
    let n = 70;
    assert!(check_deep(&format!("y = {}x{}", "f(".repeat(n), ")".repeat(n))).is_empty());
}

#[test]
fn nested_lambdas_within_the_depth_limit() {
    assert!(check_deep(&format!("f = {}x", "x -> ".repeat(60))).is_empty());
}

#[test]
fn long_sum() {
    // A left-associative chain builds a tree as deep as it is long: the parser refuses it
    // beyond its depth limit ("this expression is too long").
    check_deep(&format!("y = {}a", "a +\n".repeat(DEEP)));
}

#[test]
fn long_call_chain() {
    check_deep(&format!("y = f{}", "(1)".repeat(DEEP)));
}

#[test]
fn long_field_chain() {
    check_deep(&format!("y = a{}", ".b".repeat(DEEP)));
}

#[test]
fn long_sum_printed() {
    check_deep(&format!("y = {}a", "a + ".repeat(4_000)));
}

#[test]
fn deep_curried_function_type() {
    // `parse_fn_type_results` recurses for each `->` without going through `nested`.
    check_deep(&format!("x : [{}a]", "a -> ".repeat(DEEP)));
}

#[test]
fn array_type_with_an_empty_size_list() {
    let src = "function n = len(v : vec())\n    n = 1\nendfunction\nf = len([1.0, 2.0, 3.0])\n";
    let _ = type_errors(src);
}

// ---- type checking pathological programs --------------------------------------------------
//
// Valid programs that stress the type checker: long, wide and deep (within the parser's depth
// limit), checked on the test thread's 2 MiB stack: no stack overflow, no error.

/// Parses `source` (which must parse without errors) and type-checks it; returns the messages
/// of the type errors.
fn type_errors(source: &str) -> Vec<String> {
    let parsed = check_source(source).unwrap_or_else(|e| panic!("{e}"));
    assert!(!parsed.has_errors(), "{:?}", parsed.diagnostics.first().map(|d| &d.message));
    if let Err(e) = check_types(source, &parsed.program) {
        panic!("{e}");
    }
    let checked = check_program(&parsed.program);
    checked.diagnostics.into_iter().filter(|d| d.is_error()).map(|d| d.message).collect()
}

const NO_ERRORS: Vec<String> = Vec::new();

#[test]
fn type_check_many_statements() {
    let src = "x = 0\n".to_string() + &"x = x + 1 % comment\n".repeat(20_000);
    assert_eq!(type_errors(&src), NO_ERRORS);
}

#[test]
fn type_check_a_long_matrix_literal() {
    let src = format!("y = [{}1]\nz = sum(y)\n", "1, ".repeat(30_000));
    assert_eq!(type_errors(&src), NO_ERRORS);
}

#[test]
fn type_check_deeply_nested_blocks() {
    let n = 150;
    let mut src = String::from("x = 3\n");
    for i in 0..n {
        src.push_str(&match i % 3 {
            0 => format!("if x > {i}\n"),
            1 => format!("for i{i} = 0..2\n"),
            _ => "while x < 0\n".to_string(),
        });
    }
    src.push_str("y = x * 2\n");
    for i in (0..n).rev() {
        src.push_str(["endif\n", "endfor\n", "endwhile\n"][i % 3]);
    }
    assert_eq!(type_errors(&src), NO_ERRORS);
}

#[test]
fn type_check_nested_expressions() {
    let n = 200;
    for src in [
        format!("x = 1\ny = {}x{}\n", "(".repeat(n), ")".repeat(n)),
        format!("x = 1.5\ny = {}x{}\n", "sin(".repeat(n), ")".repeat(n)),
        format!("y = {}1{}\n", "[".repeat(n), "]".repeat(n)),
        format!("f = {}x\n", "x -> ".repeat(n)),
        format!("y = {}1.0\n", "1.0 + ".repeat(200)),
    ] {
        assert_eq!(type_errors(&src), NO_ERRORS, "{src}");
    }
}

/// `n` functions, each calling the next: instantiation nests as deep as the chain is long.
fn call_chain(n: usize) -> String {
    let mut src = String::new();
    for i in 0..n - 1 {
        src.push_str(&format!("function y = f{i}(x)\n    y = f{}(x) + 1\nendfunction\n", i + 1));
    }
    src + &format!("function y = f{}(x)\n    y = x\nendfunction\nz = f0(1)\n", n - 1)
}

#[test]
fn type_check_a_chain_of_calls_within_the_instantiation_limit() {
    // 60 nested instantiations, below the checker's limit of 64.
    assert_eq!(type_errors(&call_chain(60)), NO_ERRORS);
}

#[test]
fn type_check_recursion_and_mutual_recursion() {
    let src = "\
function y = fact(n)
    if n <= 1
        y = 1
    else
        y = n * fact(n - 1)
    endif
endfunction
function y = is_even(n)
    y = n == 0 ? 1 : is_odd(n - 1)
endfunction
function y = is_odd(n)
    y = n == 0 ? 0 : is_even(n - 1)
endfunction
a = fact(5)
b = is_even(10)
";
    assert_eq!(type_errors(src), NO_ERRORS);
}

#[test]
fn type_check_a_long_sum() {
    // As long as the parser accepts (it refuses chains that nest beyond its depth limit).
    assert_eq!(type_errors(&format!("y = {}1.0\n", "1.0 + ".repeat(490))), NO_ERRORS);
}

#[test]
fn type_check_runaway_instantiation() {
    // Every call instantiates `grow` with a larger array; the checker gives up (an error)
    // after 64 nested instances, without overflowing the stack.
    let src = "function y = grow(x)\n    y = grow([x, x])\nendfunction\nc = grow(1)\n";
    let errors = type_errors(src);
    assert!(errors.iter().any(|e| e.contains("too deeply")), "{errors:?}");
}
