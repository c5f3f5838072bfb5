//! The lexer: source text to [`Token`]s.
//!
//! Newlines are significant (they end statements) except inside `()`, `[]`, `{}` and after a
//! line-continuation `_`. `%` starts a comment that runs to the end of the line. A line
//! starting with `#` is a directive (`#pragma …`).

use super::ast::NumberValue;
use super::token::{Keyword, Punct, Token, TokenKind};
use crate::diagnostics::Diagnostic;
use crate::span::{FileId, Span};

/// The tokens of a file and what went wrong reading them.
pub struct Lexed {
    /// The tokens in order, ending with [`TokenKind::Eof`].
    pub tokens: Vec<Token>,
    /// Lexical errors (an unterminated string, a stray character, …).
    pub diagnostics: Vec<Diagnostic>,
    /// Byte ranges from an unclosed bracket to where the lexer gave up on it. The parser's
    /// own errors inside them are noise caused by the one reported bracket.
    pub unclosed: Vec<std::ops::Range<u32>>,
}

/// Splits `source` into tokens. Always ends with [`TokenKind::Eof`]; never panics.
pub fn lex(source: &str, file: FileId) -> Lexed {
    let mut lx = Lexer {
        src: source,
        bytes: source.as_bytes(),
        pos: 0,
        line: 1,
        line_start: 0,
        file,
        tokens: Vec::new(),
        diagnostics: Vec::new(),
        brackets: Vec::new(),
        unclosed: Vec::new(),
        col_cache: std::cell::Cell::new((0, 1)),
        line_has_token: false,
        escape_ok: None,
    };
    lx.run();
    Lexed { tokens: lx.tokens, diagnostics: lx.diagnostics, unclosed: lx.unclosed }
}

/// Decodes a numeric literal as the lexer accepted it.
pub fn decode_number(text: &str) -> Result<NumberValue, String> {
    let lower = text.to_ascii_lowercase();
    let (body, radix) = match lower.as_bytes().last() {
        Some(b'h') if is_radix_literal(&lower, 16) => (&lower[..lower.len() - 1], 16),
        Some(b'b') if is_radix_literal(&lower, 2) => (&lower[..lower.len() - 1], 2),
        Some(b'o') if is_radix_literal(&lower, 8) => (&lower[..lower.len() - 1], 8),
        _ => (lower.as_str(), 10),
    };
    if radix != 10 {
        return u64::from_str_radix(body, radix)
            .map(NumberValue::Int)
            .map_err(|_| format!("the literal `{text}` does not fit in 64 bits"));
    }
    if let Some(im) = body.strip_suffix(['i', 'j']) {
        return im
            .parse::<f64>()
            .map(NumberValue::Imaginary)
            .map_err(|_| format!("`{text}` is not a valid imaginary number"));
    }
    if body.contains(['.', 'e']) {
        return body
            .parse::<f64>()
            .map(NumberValue::Float)
            .map_err(|_| format!("`{text}` is not a valid number"));
    }
    if !body.bytes().all(|c| c.is_ascii_digit()) {
        return Err(format!("`{text}` is not a valid number"));
    }
    body.parse::<u64>()
        .map(NumberValue::Int)
        .map_err(|_| format!("the integer `{text}` is too large"))
}

/// `text` (lower case) is digits of `radix` followed by the radix suffix.
fn is_radix_literal(text: &str, radix: u32) -> bool {
    let body = &text[..text.len() - 1];
    !body.is_empty()
        && body.as_bytes()[0].is_ascii_digit()
        && body.chars().all(|c| c.is_digit(radix))
}

/// The longest rest of a line scanned to decide whether `\"` escapes a quote; beyond it (only
/// in generated input) the quote ends the string.
const MAX_ESCAPE_SCAN: usize = 1 << 16;

fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_' || c == b'$'
}

fn is_ident_continue(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'$'
}

struct Lexer<'a> {
    src: &'a str,
    bytes: &'a [u8],
    pos: usize,
    line: u32,
    line_start: usize,
    file: FileId,
    tokens: Vec<Token>,
    diagnostics: Vec<Diagnostic>,
    /// Open brackets with the span of each opener; newlines are ignored while non-empty.
    brackets: Vec<(u8, Span)>,
    unclosed: Vec<std::ops::Range<u32>>,
    /// The column of the last position [`Lexer::col_of`] computed, with that position.
    col_cache: std::cell::Cell<(usize, u32)>,
    /// A token other than white space was seen on the current line (so `#` is not a
    /// directive).
    line_has_token: bool,
    /// From where to where on a line [`Lexer::quote_escape_closes_line`] found that `\"`
    /// escapes, so a line of many escaped quotes is scanned once.
    escape_ok: Option<(usize, usize)>,
}

impl<'a> Lexer<'a> {
    fn peek(&self, ahead: usize) -> u8 {
        self.bytes.get(self.pos + ahead).copied().unwrap_or(0)
    }

    fn span_from(&self, start: usize, line: u32, col: u32) -> Span {
        Span::new(self.file, start as u32, self.pos as u32, line, col)
    }

    fn col_of(&self, pos: usize) -> u32 {
        // Columns count characters, not bytes, so carets line up under UTF-8 text. Counting
        // from the last position asked about keeps long lines linear.
        let (from, col) = match self.col_cache.get() {
            (p, c) if p >= self.line_start && p <= pos => (p, c),
            _ => (self.line_start, 1),
        };
        let col = col + self.src[from..pos].chars().count() as u32;
        self.col_cache.set((pos, col));
        col
    }

    fn push(&mut self, kind: TokenKind, start: usize, line: u32, col: u32, space: bool) {
        self.line_has_token |= kind != TokenKind::Newline;
        let span = self.span_from(start, line, col);
        self.tokens.push(Token { kind, span, space_before: space });
    }

    fn newline(&mut self) {
        self.line += 1;
        self.line_start = self.pos;
        self.line_has_token = false;
    }

    fn run(&mut self) {
        let mut space = true;
        loop {
            let c = self.peek(0);
            if self.pos >= self.bytes.len() {
                break;
            }
            match c {
                b' ' | b'\t' | b'\r' | 0x0c => {
                    self.pos += 1;
                    space = true;
                }
                b'\n' => self.lex_newline(&mut space),
                b'%' => {
                    self.skip_line_rest();
                    space = true;
                }
                b'#' if self.at_line_start() => {
                    let (start, line, col) = (self.pos, self.line, self.col_of(self.pos));
                    self.skip_line_rest();
                    let text = self.src[start + 1..self.pos].trim_end().to_string();
                    self.push(TokenKind::Pragma(text), start, line, col, true);
                    space = false;
                }
                b'_' if self.is_continuation() => {
                    // `_` at the end of a line joins it with the next one.
                    self.skip_line_rest();
                    if self.peek(0) == b'\n' {
                        self.pos += 1;
                        self.newline();
                    }
                    space = true;
                }
                _ => {
                    self.lex_token(space);
                    space = false;
                }
            }
        }
        self.report_unclosed("add the matching closing bracket");
        let eof = Span::new(self.file, self.pos as u32, self.pos as u32, self.line, {
            self.col_of(self.pos)
        });
        if !matches!(self.tokens.last(), Some(Token { kind: TokenKind::Newline, .. }) | None) {
            self.tokens.push(Token { kind: TokenKind::Newline, span: eof, space_before: false });
        }
        self.tokens.push(Token { kind: TokenKind::Eof, span: eof, space_before: true });
    }

    fn at_line_start(&self) -> bool {
        !self.line_has_token
    }

    /// `_` followed only by spaces or a comment up to the end of the line.
    fn is_continuation(&self) -> bool {
        if self.pos > 0 && is_ident_continue(self.bytes[self.pos - 1]) {
            return false;
        }
        let rest = &self.src[self.pos + 1..];
        let line = rest.split('\n').next().unwrap_or("");
        let code = line.split('%').next().unwrap_or("");
        code.trim().is_empty()
    }

    fn skip_line_rest(&mut self) {
        while self.pos < self.bytes.len() && self.bytes[self.pos] != b'\n' {
            self.pos += 1;
        }
    }

    fn lex_newline(&mut self, space: &mut bool) {
        let (start, line, col) = (self.pos, self.line, self.col_of(self.pos));
        self.pos += 1;
        self.newline();
        *space = true;
        if !self.brackets.is_empty() && self.next_line_starts_keyword() {
            // An unclosed bracket must not swallow the rest of the file: a keyword at the
            // start of a line ends the bracketed region, reporting each open bracket.
            self.report_unclosed("add the matching closing bracket before the end of the line");
        }
        if self.brackets.is_empty()
            && !matches!(self.tokens.last(), Some(Token { kind: TokenKind::Newline, .. }) | None)
            && !self.ends_with_continuing_operator()
        {
            self.push(TokenKind::Newline, start, line, col, false);
            // The newline token is empty, at the end of its line, so carets point there.
            if let Some(t) = self.tokens.last_mut() {
                t.span.end = start as u32;
            }
        }
    }

    /// A line that ends in a binary operator, `=`, `,` or `->` cannot be complete, so the
    /// statement continues on the next line (as in Julia); long headers wrap this way.
    fn ends_with_continuing_operator(&self) -> bool {
        use Punct::*;
        matches!(
            self.tokens.last(),
            Some(Token { kind: TokenKind::Punct(p), .. }) if matches!(p,
                Plus | Minus | Star | Slash | Caret | DotStar | DotSlash | DotCaret | Lt | Le | Gt
                | Ge | EqEq | NotEq | AndAnd | OrOr | Eq | PlusEq | MinusEq | StarEq | SlashEq
                | CaretEq | DotStarEq | DotSlashEq | DotCaretEq | MaxEq | MinEq | XorEq | OrEq
                | AndEq | Question | ColonEq | DotDot | Comma | Arrow | PipeGt)
        )
    }

    fn next_line_starts_keyword(&self) -> bool {
        let rest = self.src[self.pos..].trim_start_matches([' ', '\t', '\r']);
        let word: String =
            rest.bytes().take_while(|c| is_ident_continue(*c)).map(|c| c as char).collect();
        Keyword::from_word(&word).is_some()
    }

    fn report_unclosed(&mut self, note: &str) {
        let brackets = std::mem::take(&mut self.brackets);
        if let Some((_, first)) = brackets.first() {
            self.unclosed.push(first.start..self.pos as u32);
        }
        // One error for the outermost bracket: the others are the same mistake repeated.
        if let Some((_, open)) = brackets.first() {
            let mut d = Diagnostic::error(*open, "this bracket is never closed")
                .with_label("opened here")
                .with_note(note);
            if brackets.len() > 1 {
                d = d.with_note(format!(
                    "{} more brackets opened after it are not closed either",
                    brackets.len() - 1
                ));
            }
            self.diagnostics.push(d);
        }
    }

    fn lex_token(&mut self, space: bool) {
        let (start, line, col) = (self.pos, self.line, self.col_of(self.pos));
        let c = self.peek(0);
        if c.is_ascii_digit() || (c == b'.' && self.peek(1).is_ascii_digit() && !self.after_value())
        {
            let text = self.lex_number();
            if let Err(msg) = decode_number(&text) {
                let span = self.span_from(start, line, col);
                self.diagnostics.push(Diagnostic::error(span, msg).with_label("invalid literal"));
            }
            self.push(TokenKind::Number(text), start, line, col, space);
            return;
        }
        if c == b'_' && self.peek(1) == b'_' && self.peek(2) == b'=' {
            self.pos += 3;
            self.push(TokenKind::Punct(Punct::MinEq), start, line, col, space);
            return;
        }
        if is_ident_start(c) {
            while is_ident_continue(self.peek(0)) {
                self.pos += 1;
            }
            let word = &self.src[start..self.pos];
            let kind = match Keyword::from_word(word) {
                Some(k) => TokenKind::Keyword(k),
                None => TokenKind::Ident(word.to_string()),
            };
            self.push(kind, start, line, col, space);
            return;
        }
        if c == b'"' {
            self.lex_string(start, line, col, space);
            return;
        }
        // `'clamped`; the original also accepts blanks after the quote (`cube' clamped`).
        let blanks = self.bytes[self.pos + 1..].iter().take_while(|b| matches!(b, b' ' | b'\t'));
        let name_start = self.pos + 1 + blanks.count();
        if c == b'\'' && self.bytes.get(name_start).copied().is_some_and(is_ident_start) {
            self.pos = name_start;
            while is_ident_continue(self.peek(0)) {
                self.pos += 1;
            }
            let name = self.src[name_start..self.pos].to_string();
            self.push(TokenKind::Modifier(name), start, line, col, space);
            return;
        }
        match self.lex_punct() {
            Some(p) => {
                self.track_bracket(p, start, line, col);
                self.push(TokenKind::Punct(p), start, line, col, space);
            }
            None => {
                let ch = self.src[self.pos..].chars().next().unwrap_or('?');
                self.pos += ch.len_utf8();
                let span = self.span_from(start, line, col);
                let msg = if ch == '\'' {
                    "unexpected `'`: a quote starts a type modifier such as `'const`; strings use double quotes".to_string()
                } else {
                    format!("unexpected character `{}`", ch.escape_default())
                };
                self.diagnostics.push(Diagnostic::error(span, msg).with_label("not valid here"));
            }
        }
    }

    /// The previous token ends a value, so `.` after it is an operator or a field access.
    fn after_value(&self) -> bool {
        match self.tokens.last() {
            Some(t) if t.span.end as usize == self.pos => matches!(
                t.kind,
                TokenKind::Ident(_)
                    | TokenKind::Number(_)
                    | TokenKind::Str(_)
                    | TokenKind::Punct(Punct::RParen | Punct::RBracket | Punct::RBrace)
            ),
            _ => false,
        }
    }

    fn lex_number(&mut self) -> String {
        let start = self.pos;
        // Radix literals: `1Fh`, `0ECD3Fh`, `1011b`, `777o` (digits first, then hex letters).
        let mut end = self.pos;
        while end < self.bytes.len() && self.bytes[end].is_ascii_alphanumeric() {
            end += 1;
        }
        let word = self.src[start..end].to_ascii_lowercase();
        if [(16, 'h'), (2, 'b'), (8, 'o')]
            .iter()
            .any(|&(r, s)| word.ends_with(s) && is_radix_literal(&word, r))
        {
            self.pos = end;
            return self.src[start..end].to_string();
        }
        while self.peek(0).is_ascii_digit() {
            self.pos += 1;
        }
        // A fraction: `1.5`, `1.`; but `1..2` is a range and `2.^x`, `2.*x` are operators.
        if self.peek(0) == b'.' && !matches!(self.peek(1), b'.' | b'*' | b'/' | b'^') {
            let next = self.peek(1);
            if next.is_ascii_digit() || !is_ident_start(next) {
                self.pos += 1;
                while self.peek(0).is_ascii_digit() {
                    self.pos += 1;
                }
            }
        }
        if matches!(self.peek(0), b'e' | b'E') {
            let sign = matches!(self.peek(1), b'+' | b'-') as usize;
            if self.peek(1 + sign).is_ascii_digit() {
                self.pos += 1 + sign;
                while self.peek(0).is_ascii_digit() {
                    self.pos += 1;
                }
            }
        }
        // Imaginary suffix, then any trailing letters (reported by decode_number).
        while is_ident_continue(self.peek(0)) && self.peek(0) != b'$' {
            self.pos += 1;
        }
        self.src[start..self.pos].to_string()
    }

    fn lex_string(&mut self, start: usize, line: u32, col: u32, space: bool) {
        self.pos += 1;
        loop {
            match self.peek(0) {
                b'"' => {
                    self.pos += 1;
                    break;
                }
                // A backslash is an ordinary character (`"C:\dir\"` is a whole string) unless
                // it starts `\\` or a `\"` that leaves every string on the line closed.
                b'\\' if self.peek(1) == b'\\' => self.pos += 2,
                b'\\' if self.peek(1) == b'"' && self.quote_escape_closes_line() => self.pos += 2,
                b'\n' | 0 if self.pos >= self.bytes.len() || self.peek(0) == b'\n' => {
                    let span = self.span_from(start, line, col);
                    self.diagnostics.push(
                        Diagnostic::error(span, "unterminated string literal")
                            .with_label("this string has no closing `\"`")
                            .with_note("strings cannot span lines; close it with `\"`"),
                    );
                    let text = self.src[start + 1..self.pos].to_string();
                    self.push(TokenKind::Str(text), start, line, col, space);
                    return;
                }
                _ => {
                    let ch = self.src[self.pos..].chars().next().map_or(1, char::len_utf8);
                    self.pos += ch;
                }
            }
        }
        let text = self.src[start + 1..self.pos - 1].to_string();
        self.push(TokenKind::Str(text), start, line, col, space);
    }

    /// At `\"` inside a string: reading it as an escaped quote still closes this string and
    /// every later string on the line (outside a `%` comment). Otherwise the quote ends the
    /// string, as in `"H:\out\"` or `f("a\", "b")`, which the original reads that way.
    fn quote_escape_closes_line(&mut self) -> bool {
        let line_end = self.src[self.pos..].find('\n').map_or(self.src.len(), |n| self.pos + n);
        // A later `\"` after a successful scan of the same line: the lexer has followed that
        // scan's reading, so the scan from here is a suffix of it.
        if let Some((from, end)) = self.escape_ok {
            if from <= self.pos && self.pos < end {
                return true;
            }
        }
        if line_end - self.pos > MAX_ESCAPE_SCAN {
            return false;
        }
        let mut in_string = true;
        let mut i = self.pos + 2;
        while i < line_end {
            match self.bytes[i] {
                b'\\' if in_string && matches!(self.bytes.get(i + 1), Some(b'\\' | b'"')) => i += 1,
                b'"' => in_string = !in_string,
                b'%' if !in_string => break,
                _ => {}
            }
            i += 1;
        }
        if !in_string {
            self.escape_ok = Some((self.pos, line_end));
        }
        !in_string
    }

    fn lex_punct(&mut self) -> Option<Punct> {
        use Punct::*;
        let rest = &self.bytes[self.pos..];
        const TABLE: &[(&str, Punct)] = &[
            ("...", Ellipsis),
            (".*=", DotStarEq),
            ("./=", DotSlashEq),
            (".^=", DotCaretEq),
            ("^^=", MaxEq),
            ("..", DotDot),
            (".*", DotStar),
            ("./", DotSlash),
            (".^", DotCaret),
            ("<=", Le),
            (">=", Ge),
            ("==", EqEq),
            ("!=", NotEq),
            ("&&", AndAnd),
            ("||", OrOr),
            ("+=", PlusEq),
            ("-=", MinusEq),
            ("*=", StarEq),
            ("/=", SlashEq),
            ("^=", CaretEq),
            ("~=", XorEq),
            ("|=", OrEq),
            ("&=", AndEq),
            ("??", QuestionQuestion),
            (":=", ColonEq),
            ("->", Arrow),
            ("|>", PipeGt),
            ("{!", LBraceBang),
            ("+", Plus),
            ("-", Minus),
            ("*", Star),
            ("/", Slash),
            ("^", Caret),
            ("<", Lt),
            (">", Gt),
            ("!", Bang),
            ("=", Eq),
            ("?", Question),
            (":", Colon),
            (".", Dot),
            (",", Comma),
            (";", Semi),
            ("(", LParen),
            (")", RParen),
            ("[", LBracket),
            ("]", RBracket),
            ("{", LBrace),
            ("}", RBrace),
            ("|", Pipe),
        ];
        for (text, p) in TABLE {
            if rest.starts_with(text.as_bytes()) {
                self.pos += text.len();
                return Some(*p);
            }
        }
        None
    }

    fn track_bracket(&mut self, p: Punct, start: usize, line: u32, col: u32) {
        let span = Span::new(self.file, start as u32, self.pos as u32, line, col);
        let (open, close) = match p {
            Punct::LParen => (Some(b')'), None),
            Punct::LBracket => (Some(b']'), None),
            Punct::LBrace | Punct::LBraceBang => (Some(b'}'), None),
            Punct::RParen => (None, Some(b')')),
            Punct::RBracket => (None, Some(b']')),
            Punct::RBrace => (None, Some(b'}')),
            _ => (None, None),
        };
        if let Some(c) = open {
            self.brackets.push((c, span));
        }
        if let Some(c) = close {
            // Pop to the matching opener; a stray closer is left for the parser to report.
            if let Some(i) = self.brackets.iter().rposition(|(o, _)| *o == c) {
                self.brackets.truncate(i);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> Vec<TokenKind> {
        let l = lex(src, FileId(0));
        assert!(l.diagnostics.is_empty(), "{:?}", l.diagnostics);
        l.tokens.into_iter().map(|t| t.kind).collect()
    }

    fn texts(src: &str) -> Vec<String> {
        kinds(src)
            .into_iter()
            .map(|k| match k {
                TokenKind::Ident(s) | TokenKind::Number(s) => s,
                TokenKind::Str(s) => format!("\"{s}\""),
                TokenKind::Modifier(s) => format!("'{s}"),
                TokenKind::Keyword(k) => k.as_str().to_string(),
                TokenKind::Punct(p) => p.as_str().to_string(),
                TokenKind::Pragma(s) => format!("#{s}"),
                TokenKind::Newline => "NL".into(),
                TokenKind::Eof => "EOF".into(),
            })
            .collect()
    }

    #[test]
    fn numbers_in_all_notations() {
        assert_eq!(decode_number("5.678"), Ok(NumberValue::Float(5.678)));
        assert_eq!(decode_number("1.9e-4"), Ok(NumberValue::Float(1.9e-4)));
        assert_eq!(decode_number("1011011b"), Ok(NumberValue::Int(0b1011011)));
        assert_eq!(decode_number("123456o"), Ok(NumberValue::Int(0o123456)));
        assert_eq!(decode_number("1Fh"), Ok(NumberValue::Int(0x1f)));
        assert_eq!(decode_number("0ECD3Fh"), Ok(NumberValue::Int(0xecd3f)));
        assert_eq!(decode_number("2j"), Ok(NumberValue::Imaginary(2.0)));
        assert_eq!(decode_number("1.5i"), Ok(NumberValue::Imaginary(1.5)));
        assert_eq!(decode_number("42"), Ok(NumberValue::Int(42)));
        assert!(decode_number("12x").is_err());
        assert!(decode_number("99999999999999999999999").is_err());
    }

    #[test]
    fn ranges_and_pointwise_operators_after_integers() {
        assert_eq!(texts("0..9"), ["0", "..", "9", "NL", "EOF"]);
        assert_eq!(texts("2.^x"), ["2", ".^", "x", "NL", "EOF"]);
        assert_eq!(texts("1.*x"), ["1", ".*", "x", "NL", "EOF"]);
        assert_eq!(texts("total = 0."), ["total", "=", "0.", "NL", "EOF"]);
        assert_eq!(texts("a.x"), ["a", ".", "x", "NL", "EOF"]);
        assert_eq!(texts("x = .5"), ["x", "=", ".5", "NL", "EOF"]);
        assert_eq!(texts("1+1j"), ["1", "+", "1j", "NL", "EOF"]);
    }

    #[test]
    fn atomic_and_compound_operators() {
        assert_eq!(
            texts("a ^^= b; a __= b; a ~= b; a |= b; a &= b; a .^= 2"),
            [
                "a", "^^=", "b", ";", "a", "__=", "b", ";", "a", "~=", "b", ";", "a", "|=", "b",
                ";", "a", "&=", "b", ";", "a", ".^=", "2", "NL", "EOF"
            ]
        );
    }

    #[test]
    fn newlines_inside_brackets_and_after_continuation_are_skipped() {
        assert_eq!(texts("a = [1,\n 2]"), ["a", "=", "[", "1", ",", "2", "]", "NL", "EOF"]);
        assert_eq!(texts("a = 1 + _ % why\n 2"), ["a", "=", "1", "+", "2", "NL", "EOF"]);
        assert_eq!(texts("[a, _] = f()")[3], "_");
        assert_eq!(texts("x = a +\n b"), ["x", "=", "a", "+", "b", "NL", "EOF"]);
        assert_eq!(texts("f =\n  g"), ["f", "=", "g", "NL", "EOF"]);
    }

    #[test]
    fn comments_modifiers_strings_and_pragmas() {
        assert_eq!(
            texts("x : mat'const'unchecked % note\ny = \"a\\\"b\""),
            ["x", ":", "mat", "'const", "'unchecked", "NL", "y", "=", "\"a\\\"b\"", "NL", "EOF"]
        );
        assert_eq!(
            texts("#pragma loop_parallelizer off\nx"),
            ["#pragma loop_parallelizer off", "NL", "x", "NL", "EOF"]
        );
        assert_eq!(texts("$check(a) + opt$"), ["$check", "(", "a", ")", "+", "opt$", "NL", "EOF"]);
    }

    #[test]
    fn a_backslash_is_ordinary_unless_it_escapes() {
        // Windows paths end in a backslash; the quote after it closes the string.
        assert_eq!(texts("p = \"H:\\render\\\""), ["p", "=", "\"H:\\render\\\"", "NL", "EOF"]);
        assert_eq!(
            texts("f(\"C:\\a\\\", \"b\") % note"),
            ["f", "(", "\"C:\\a\\\"", ",", "\"b\"", ")", "NL", "EOF"]
        );
        // `\"` escapes a quote when the line still closes every string that way.
        assert_eq!(texts("s = \"a\\\"b\""), ["s", "=", "\"a\\\"b\"", "NL", "EOF"]);
        assert_eq!(texts("s = \"say \\\"hi\\\"\""), ["s", "=", "\"say \\\"hi\\\"\"", "NL", "EOF"]);
        // `\\` is one escaped backslash, so the quote after it closes the string.
        assert_eq!(texts("s = \"a\\\\\""), ["s", "=", "\"a\\\\\"", "NL", "EOF"]);
        assert_eq!(texts("s = \"\\t\\q\""), ["s", "=", "\"\\t\\q\"", "NL", "EOF"]);
    }

    #[test]
    fn modifiers_may_have_blanks_after_the_quote() {
        assert_eq!(
            texts("x : cube' clamped'const"),
            ["x", ":", "cube", "'clamped", "'const", "NL", "EOF"]
        );
    }

    #[test]
    fn keywords_are_recognised() {
        assert_eq!(kinds("endfor")[0], TokenKind::Keyword(Keyword::EndFor));
        assert_eq!(kinds("type")[0], TokenKind::Ident("type".into()));
    }

    #[test]
    fn spans_have_line_and_column() {
        let l = lex("a = 1\n  bb = 2", FileId(3));
        let bb = &l.tokens[4];
        assert_eq!(bb.kind, TokenKind::Ident("bb".into()));
        assert_eq!((bb.span.line, bb.span.col, bb.span.range()), (2, 3, 8..10));
        assert!(bb.space_before);
    }

    #[test]
    fn errors_are_reported_not_panicked() {
        let l = lex("x = \"abc\ny = 3 @ 4\nz = (1,\nendfunction", FileId(0));
        let msgs: Vec<_> = l.diagnostics.iter().map(|d| d.message.as_str()).collect();
        assert!(msgs.contains(&"unterminated string literal"), "{msgs:?}");
        assert!(msgs.iter().any(|m| m.contains("unexpected character `@`")), "{msgs:?}");
        assert!(msgs.contains(&"this bracket is never closed"), "{msgs:?}");
        assert_eq!(l.tokens.last().map(|t| &t.kind), Some(&TokenKind::Eof));
    }
}
