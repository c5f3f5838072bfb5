//! `sscanf(text, format)`: reads numbers from text with a C-style format, as MATLAB's
//! `sscanf` (the manual only says "parses using a C-style format string").
//!
//! * `%d %i %u` read an integer (`%i` also `0x…` hexadecimal), `%x` a hexadecimal and `%o` an
//!   octal integer, `%f %e %g` (and `%F %E %G`) a floating-point number (also `inf`, `nan`);
//!   `%s` a word (up to white space) whose character codes become values; `%c` one character
//!   (also white space); `%%` a percent sign; `%*…` reads without keeping; a width (`%3d`)
//!   limits the characters read.
//! * White space in the format matches any amount of white space (also none); other
//!   characters must match exactly. Numeric conversions skip leading white space.
//! * The format is applied again and again until the text is used up or does not match; the
//!   values read so far are the result (a vector; empty when nothing matched).

use quasar_runtime::{Error, Result};

/// Quasar's `sscanf(text, format)`: the values read, in order.
pub fn sscanf(text: &str, format: &str) -> Result<Vec<f64>> {
    let spec = parse(format)?;
    let chars: Vec<char> = text.chars().collect();
    let mut pos = 0;
    let mut out = Vec::new();
    if !spec.iter().any(|s| matches!(s, Item::Conv { .. })) {
        return Ok(out);
    }
    loop {
        let start = pos;
        for item in &spec {
            let ok = match item {
                Item::Space => {
                    while chars.get(pos).is_some_and(|c| c.is_whitespace()) {
                        pos += 1;
                    }
                    true
                }
                Item::Literal(c) => {
                    if chars.get(pos) == Some(c) {
                        pos += 1;
                        true
                    } else {
                        false
                    }
                }
                Item::Conv { conv, width, keep } => read_one(
                    &chars,
                    &mut pos,
                    *conv,
                    *width,
                    if *keep { Some(&mut out) } else { None },
                ),
            };
            if !ok {
                return Ok(out);
            }
        }
        if pos >= chars.len() || pos == start {
            return Ok(out);
        }
    }
}

#[derive(Debug)]
enum Item {
    /// White space in the format.
    Space,
    Literal(char),
    Conv {
        conv: char,
        width: Option<usize>,
        keep: bool,
    },
}

fn parse(format: &str) -> Result<Vec<Item>> {
    let mut items = Vec::new();
    let mut it = format.chars().peekable();
    while let Some(c) = it.next() {
        if c.is_whitespace() {
            if !matches!(items.last(), Some(Item::Space)) {
                items.push(Item::Space);
            }
            continue;
        }
        if c != '%' {
            items.push(Item::Literal(c));
            continue;
        }
        if it.peek() == Some(&'%') {
            it.next();
            items.push(Item::Literal('%'));
            continue;
        }
        let keep = if it.peek() == Some(&'*') {
            it.next();
            false
        } else {
            true
        };
        let mut digits = String::new();
        while let Some(d) = it.peek().filter(|d| d.is_ascii_digit()) {
            digits.push(*d);
            it.next();
        }
        while matches!(it.peek(), Some('l' | 'h' | 'L')) {
            it.next();
        }
        let conv = match it.next() {
            Some(c) if "diuxXofFeEgGsc".contains(c) => c,
            other => {
                return Err(Error::argument(
                    "sscanf",
                    format!(
                        "the format `{format}` has an invalid conversion `%{}{}` (the types are \
                         d i u x o f e g s c)",
                        digits,
                        other.map(String::from).unwrap_or_default()
                    ),
                ))
            }
        };
        let width = if digits.is_empty() {
            None
        } else {
            Some(digits.parse().map_err(|_| {
                Error::argument("sscanf", format!("the width in `{format}` is too large"))
            })?)
        };
        items.push(Item::Conv { conv, width, keep });
    }
    Ok(items)
}

/// Reads one conversion at `*pos`; false when it does not match.
fn read_one(
    chars: &[char],
    pos: &mut usize,
    conv: char,
    width: Option<usize>,
    out: Option<&mut Vec<f64>>,
) -> bool {
    if conv == 'c' {
        let n = width.unwrap_or(1);
        if *pos + n > chars.len() {
            return false;
        }
        if let Some(out) = out {
            out.extend(chars[*pos..*pos + n].iter().map(|&c| f64::from(u32::from(c))));
        }
        *pos += n;
        return true;
    }
    while chars.get(*pos).is_some_and(|c| c.is_whitespace()) {
        *pos += 1;
    }
    let limit = width.map_or(chars.len(), |w| (*pos + w).min(chars.len()));
    let field = &chars[*pos..limit];
    if conv == 's' {
        let n = field.iter().take_while(|c| !c.is_whitespace()).count();
        if n == 0 {
            return false;
        }
        if let Some(out) = out {
            out.extend(field[..n].iter().map(|&c| f64::from(u32::from(c))));
        }
        *pos += n;
        return true;
    }
    let (value, n) = match conv {
        'd' | 'u' => integer(field, 10),
        'i' => auto_integer(field),
        'x' | 'X' => integer(field, 16),
        'o' => integer(field, 8),
        _ => floating(field),
    };
    match value {
        Some(v) if n > 0 => {
            if let Some(out) = out {
                out.push(v);
            }
            *pos += n;
            true
        }
        _ => false,
    }
}

/// An optionally signed integer in `radix` at the start of `s`: its value and length.
fn integer(s: &[char], radix: u32) -> (Option<f64>, usize) {
    let mut i = 0;
    let neg = match s.first() {
        Some('-') => {
            i += 1;
            true
        }
        Some('+') => {
            i += 1;
            false
        }
        _ => false,
    };
    if radix == 16
        && s.get(i) == Some(&'0')
        && matches!(s.get(i + 1), Some('x' | 'X'))
        && s.get(i + 2).is_some_and(char::is_ascii_hexdigit)
    {
        i += 2;
    }
    let start = i;
    let mut v = 0f64;
    while let Some(d) = s.get(i).and_then(|c| c.to_digit(radix)) {
        v = v * f64::from(radix) + f64::from(d);
        i += 1;
    }
    if i == start {
        return (None, 0);
    }
    (Some(if neg { -v } else { v }), i)
}

/// `%i`: decimal, `0x` hexadecimal or `0` octal.
fn auto_integer(s: &[char]) -> (Option<f64>, usize) {
    let sign = usize::from(matches!(s.first(), Some('-' | '+')));
    match (s.get(sign), s.get(sign + 1)) {
        (Some('0'), Some('x' | 'X')) => integer(s, 16),
        (Some('0'), Some(c)) if c.is_digit(8) => {
            let (v, n) = integer(&s[sign..], 8);
            let neg = s.first() == Some(&'-');
            (v.map(|v| if neg { -v } else { v }), n + sign)
        }
        _ => integer(s, 10),
    }
}

/// A floating-point number at the start of `s` (the longest prefix Rust parses, as C's
/// `strtod` takes the longest valid prefix).
fn floating(s: &[char]) -> (Option<f64>, usize) {
    let text: String = s.iter().take(400).collect();
    let lower = text.to_ascii_lowercase();
    let sign = usize::from(lower.starts_with(['-', '+']));
    for word in ["infinity", "inf", "nan"] {
        if lower[sign..].starts_with(word) {
            let n = sign + word.len();
            return (text[..n].parse::<f64>().ok().or(Some(f64::NAN)), n);
        }
    }
    // Scan the syntax: digits [. digits] [e [sign] digits].
    let b = lower.as_bytes();
    let mut i = sign;
    let digits = |i: &mut usize| {
        let s0 = *i;
        while b.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        *i - s0
    };
    let mut n = digits(&mut i);
    if b.get(i) == Some(&b'.') {
        i += 1;
        n += digits(&mut i);
    }
    if n == 0 {
        return (None, 0);
    }
    if b.get(i) == Some(&b'e') {
        let mut j = i + 1;
        if matches!(b.get(j), Some(b'+' | b'-')) {
            j += 1;
        }
        if digits(&mut j) > 0 {
            i = j;
        }
    }
    (text[..i].parse().ok(), i)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_numbers_like_matlab() {
        assert_eq!(sscanf("3 4 5", "%d").unwrap(), vec![3.0, 4.0, 5.0]);
        assert_eq!(sscanf("1.5, -2e3, .25", "%f,").unwrap(), vec![1.5, -2000.0, 0.25]);
        assert_eq!(sscanf("w=640 h=480", "w=%d h=%d").unwrap(), vec![640.0, 480.0]);
        assert_eq!(sscanf("size: 12x34", "size: %dx%d").unwrap(), vec![12.0, 34.0]);
        assert_eq!(sscanf("ff 0x10 017", "%x %i %i").unwrap(), vec![255.0, 16.0, 15.0]);
        assert_eq!(sscanf("12345", "%2d").unwrap(), vec![12.0, 34.0, 5.0]);
        assert_eq!(sscanf("a1b2", "%*c%d").unwrap(), vec![1.0, 2.0]);
        assert_eq!(sscanf("ab cd", "%s").unwrap(), vec![97.0, 98.0, 99.0, 100.0]);
        assert_eq!(sscanf("inf -nan", "%f").unwrap()[0], f64::INFINITY);
        assert!(sscanf("x", "%d").unwrap().is_empty());
        assert_eq!(sscanf("1 2 x 3", "%d").unwrap(), vec![1.0, 2.0]);
        assert!(sscanf("1 2", "no conversions").unwrap().is_empty());
    }

    #[test]
    fn a_bad_format_names_sscanf() {
        let e = sscanf("1", "%q").unwrap_err().to_string();
        assert!(e.starts_with("`sscanf`: the format `%q` has an invalid conversion"), "{e}");
    }

    #[test]
    fn agrees_with_rust_parsing_on_many_numbers() {
        for k in 0..500 {
            let x = (k as f64 * 1.37 - 300.0) * 10f64.powi((k % 17) - 8);
            let text = format!("{x:e} {x}");
            let v = sscanf(&text, "%f").unwrap();
            assert_eq!(v, vec![x, x], "{text}");
        }
    }
}
