//! Tokens of PTX text, each with its 1-based line.

use crate::error::ParseError;

/// One token.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Tok {
    /// An identifier, opcode or register, dots included (`ld.global.f32`, `%tid.x`, `$L__1`).
    Word(String),
    /// A directive (`.version`, `.reg`, `.u32`, …), with its dot.
    Dir(String),
    /// A number as written (`12`, `0x1F`, `0f3F800000`, `7.8`).
    Num(String),
    /// Punctuation: `, ; : [ ] ( ) { } < > + - @ ! | =`.
    P(char),
    /// A string literal without its quotes (the file name of `.file`).
    Str(String),
}

/// A token and its line.
#[derive(Clone, Debug)]
pub(crate) struct Token {
    pub tok: Tok,
    pub line: u32,
}

fn word_start(c: char) -> bool {
    c.is_ascii_alphabetic() || matches!(c, '_' | '$' | '%')
}

fn word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '%' | '.')
}

/// Splits `text` into tokens; `//` and `/* */` comments are skipped.
pub(crate) fn tokens(text: &str) -> Result<Vec<Token>, ParseError> {
    let mut out = Vec::new();
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    let mut line = 1u32;
    while i < chars.len() {
        let c = chars[i];
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if c == '/' && chars.get(i + 1) == Some(&'/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && chars.get(i + 1) == Some(&'*') {
            i += 2;
            while i < chars.len() && !(chars[i] == '*' && chars.get(i + 1) == Some(&'/')) {
                line += u32::from(chars[i] == '\n');
                i += 1;
            }
            i += 2;
        } else if word_start(c) {
            let s = i;
            while i < chars.len() && word_char(chars[i]) {
                i += 1;
            }
            out.push(Token { tok: Tok::Word(chars[s..i].iter().collect()), line });
        } else if c == '.' && chars.get(i + 1).is_some_and(|c| c.is_ascii_alphabetic()) {
            let s = i;
            i += 1;
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            out.push(Token { tok: Tok::Dir(chars[s..i].iter().collect()), line });
        } else if c.is_ascii_digit() {
            let s = i;
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '.') {
                i += 1;
            }
            out.push(Token { tok: Tok::Num(chars[s..i].iter().collect()), line });
        } else if c == '"' {
            let s = i + 1;
            i = s;
            while i < chars.len() && chars[i] != '"' && chars[i] != '\n' {
                i += 1;
            }
            if chars.get(i) != Some(&'"') {
                return Err(ParseError::new(line, "unterminated string"));
            }
            out.push(Token { tok: Tok::Str(chars[s..i].iter().collect()), line });
            i += 1;
        } else if ",;:[](){}<>+-@!|=".contains(c) {
            out.push(Token { tok: Tok::P(c), line });
            i += 1;
        } else {
            return Err(ParseError::new(line, format!("unexpected character `{c}`")));
        }
    }
    Ok(out)
}

/// The value of an integer literal (decimal, `0x` hexadecimal, or octal with a leading 0).
pub(crate) fn int_literal(s: &str) -> Option<u64> {
    let s = s.strip_suffix('U').unwrap_or(s);
    if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        u64::from_str_radix(h, 16).ok()
    } else if s.len() > 1 && s.starts_with('0') && s.bytes().all(|b| b.is_ascii_digit()) {
        u64::from_str_radix(&s[1..], 8).ok()
    } else {
        s.parse().ok()
    }
}

/// The bits of a float literal `0fXXXXXXXX` (f32) or `0dXXXXXXXXXXXXXXXX` (f64), with whether
/// it is a double.
pub(crate) fn float_literal(s: &str) -> Option<(u64, bool)> {
    let (hex, double) = if let Some(h) = s.strip_prefix("0f").or_else(|| s.strip_prefix("0F")) {
        (h, false)
    } else if let Some(h) = s.strip_prefix("0d").or_else(|| s.strip_prefix("0D")) {
        (h, true)
    } else {
        return None;
    };
    let want = if double { 16 } else { 8 };
    if hex.len() != want {
        return None;
    }
    u64::from_str_radix(hex, 16).ok().map(|b| (b, double))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_directives_numbers_and_lines() {
        let t = tokens("// c\n.version 7.8\n@!%p1 ld.global.f32 %f1, [%rd2+-4]; /* x\n */ $L__1:")
            .unwrap();
        let kinds: Vec<_> = t.iter().map(|t| (t.tok.clone(), t.line)).collect();
        assert_eq!(kinds[0], (Tok::Dir(".version".into()), 2));
        assert_eq!(kinds[1], (Tok::Num("7.8".into()), 2));
        assert_eq!(kinds[2], (Tok::P('@'), 3));
        assert_eq!(kinds[4], (Tok::Word("%p1".into()), 3));
        assert_eq!(kinds[5], (Tok::Word("ld.global.f32".into()), 3));
        assert_eq!(kinds.last().unwrap(), &(Tok::P(':'), 4));
        assert!(tokens("a # b").is_err());
    }

    #[test]
    fn literals() {
        assert_eq!(int_literal("0x1F"), Some(31));
        assert_eq!(int_literal("010"), Some(8));
        assert_eq!(int_literal("42"), Some(42));
        assert_eq!(float_literal("0f3F800000"), Some((0x3F80_0000, false)));
        assert_eq!(float_literal("0d3FF0000000000000"), Some((0x3FF0_0000_0000_0000, true)));
        assert_eq!(float_literal("0f3F80"), None);
    }
}
