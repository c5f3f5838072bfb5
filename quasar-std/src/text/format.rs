//! `sprintf`/`printf`: C-style format strings, with MATLAB's rules for how the values are fed
//! to the conversions (the manual only says "a C-style format string").
//!
//! * A conversion is `%[flags][width][.precision]type` with the flags `- + space 0 #`, a width
//!   and precision that may be `*` (taken from the values), and the types `d i u o x X f F e E
//!   g G c s %`; length modifiers (`l`, `ll`, `h`, `z`, …) are accepted and ignored. Numbers
//!   are formatted as C's `printf` formats a `double` (or a `long long` for the integer types).
//! * The values are flattened (an array gives its elements in row-major order) and the format
//!   is applied again and again until all are used; it stops right before the first conversion
//!   that has no value left (the text before it is written). A format without conversions is
//!   written once.
//! * `%d %i %u %o %x %X` of a number that is not an integer use `%e` instead (MATLAB);
//!   `%c` of a number is the character with that code; `%s` of a number is the number as
//!   `print` writes it; `%s` of a complex number is `a+bi`. A string given to a numeric
//!   conversion, or a complex number to any conversion but `%s`, is an error naming the
//!   function.
//!
//! As MATLAB's `sprintf`, the format's escape sequences `\n \t \r \a \b \f \v \\` are
//! turned into their characters (Quasar string literals keep backslashes as written); any other
//! backslash is kept.

use crate::rt::show::Show;
use quasar_runtime::{f16, Array, Complex, Error, Result};
use std::fmt::Write as _;

/// One value fed to a format conversion.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// A signed integer.
    Int(i64),
    /// An unsigned integer.
    Uint(u64),
    /// A double-precision number.
    Float(f64),
    /// A single-precision number (`%s` writes its own shortest form).
    Single(f32),
    /// A complex number, with the text `print` writes for it.
    Complex(f64, f64, String),
    /// A string.
    Str(String),
}

/// A value (or several, for arrays) that `sprintf` can format.
pub trait FormatArg {
    /// Appends the values of `self`, flattened, to `out`.
    fn push_values(&self, out: &mut Vec<Value>) -> Result<()>;
}

macro_rules! signed {
    ($($t:ty),*) => { $(
        impl FormatArg for $t {
            fn push_values(&self, out: &mut Vec<Value>) -> Result<()> {
                out.push(Value::Int(*self as i64));
                Ok(())
            }
        }
    )* };
}
signed!(i8, i16, i32, i64);

macro_rules! unsigned {
    ($($t:ty),*) => { $(
        impl FormatArg for $t {
            fn push_values(&self, out: &mut Vec<Value>) -> Result<()> {
                out.push(Value::Uint(*self as u64));
                Ok(())
            }
        }
    )* };
}
unsigned!(u8, u16, u32, u64);

impl FormatArg for f32 {
    fn push_values(&self, out: &mut Vec<Value>) -> Result<()> {
        out.push(Value::Single(*self));
        Ok(())
    }
}

impl FormatArg for f64 {
    fn push_values(&self, out: &mut Vec<Value>) -> Result<()> {
        out.push(Value::Float(*self));
        Ok(())
    }
}

impl FormatArg for f16 {
    fn push_values(&self, out: &mut Vec<Value>) -> Result<()> {
        out.push(Value::Float(f64::from(self.to_f32())));
        Ok(())
    }
}

macro_rules! complex {
    ($($t:ty),*) => { $(
        impl FormatArg for Complex<$t> {
            fn push_values(&self, out: &mut Vec<Value>) -> Result<()> {
                let mut text = String::new();
                self.show(&mut text);
                out.push(Value::Complex(f64::from(self.re), f64::from(self.im), text));
                Ok(())
            }
        }
    )* };
}
complex!(f32, f64);

impl FormatArg for str {
    fn push_values(&self, out: &mut Vec<Value>) -> Result<()> {
        out.push(Value::Str(self.to_string()));
        Ok(())
    }
}

impl FormatArg for String {
    fn push_values(&self, out: &mut Vec<Value>) -> Result<()> {
        self.as_str().push_values(out)
    }
}

impl<T: FormatArg + ?Sized> FormatArg for &T {
    fn push_values(&self, out: &mut Vec<Value>) -> Result<()> {
        (**self).push_values(out)
    }
}

impl<T: FormatArg + quasar_runtime::Element> FormatArg for Array<T> {
    fn push_values(&self, out: &mut Vec<Value>) -> Result<()> {
        for v in self.host_view()?.iter() {
            v.push_values(out)?;
        }
        Ok(())
    }
}

impl<T: FormatArg, const N: usize> FormatArg for [T; N] {
    fn push_values(&self, out: &mut Vec<Value>) -> Result<()> {
        self.iter().try_for_each(|v| v.push_values(out))
    }
}

/// The values of `args`, flattened.
pub fn values(args: &[&dyn FormatArg]) -> Result<Vec<Value>> {
    let mut out = Vec::new();
    for a in args {
        a.push_values(&mut out)?;
    }
    Ok(out)
}

/// Quasar's `sprintf(format, values…)`; `function` names the caller in errors.
pub fn sprintf(function: &str, format: &str, args: &[&dyn FormatArg]) -> Result<String> {
    format_values(function, format, &values(args)?)
}

/// Quasar's `printf(format, values…)`: [`sprintf`] written to standard output.
pub fn printf(format: &str, args: &[&dyn FormatArg]) -> Result<()> {
    use std::io::Write as _;
    let text = sprintf("printf", format, args)?;
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(|e| Error::argument("printf", format!("cannot write to standard output: {e}")))
}

/// A parsed conversion specification.
#[derive(Clone, Copy, Debug, Default)]
struct Spec {
    left: bool,
    plus: bool,
    space: bool,
    zero: bool,
    alt: bool,
    width: Option<Count>,
    precision: Option<Count>,
    conv: u8,
}

#[derive(Clone, Copy, Debug)]
enum Count {
    Fixed(usize),
    Star,
}

/// A piece of a format: literal text or a conversion.
#[derive(Debug)]
enum Piece<'a> {
    Text(&'a str),
    Conv(Spec),
}

fn parse<'a>(function: &str, format: &'a str) -> Result<Vec<Piece<'a>>> {
    let b = format.as_bytes();
    let mut pieces = Vec::new();
    let (mut i, mut start) = (0, 0);
    while i < b.len() {
        if b[i] != b'%' {
            i += 1;
            continue;
        }
        if start < i {
            pieces.push(Piece::Text(&format[start..i]));
        }
        let at = i;
        i += 1;
        if b.get(i) == Some(&b'%') {
            pieces.push(Piece::Text("%"));
            i += 1;
            start = i;
            continue;
        }
        let mut s = Spec::default();
        while let Some(&c) = b.get(i) {
            match c {
                b'-' => s.left = true,
                b'+' => s.plus = true,
                b' ' => s.space = true,
                b'0' => s.zero = true,
                b'#' => s.alt = true,
                _ => break,
            }
            i += 1;
        }
        let count = |i: &mut usize| -> Option<Count> {
            if b.get(*i) == Some(&b'*') {
                *i += 1;
                return Some(Count::Star);
            }
            let s0 = *i;
            while b.get(*i).is_some_and(u8::is_ascii_digit) {
                *i += 1;
            }
            (s0 < *i).then(|| Count::Fixed(format[s0..*i].parse().unwrap_or(usize::MAX)))
        };
        s.width = count(&mut i);
        if b.get(i) == Some(&b'.') {
            i += 1;
            s.precision = Some(count(&mut i).unwrap_or(Count::Fixed(0)));
        }
        while matches!(b.get(i), Some(b'l' | b'h' | b'L' | b'q' | b'j' | b'z' | b't')) {
            i += 1;
        }
        match b.get(i) {
            Some(&c) if b"diuoxXfFeEgGcs".contains(&c) => s.conv = c,
            _ => {
                let end = format[at..].chars().take(i + 1 - at).collect::<String>();
                return Err(Error::argument(
                    function,
                    format!(
                        "the format `{format}` has an invalid conversion `{end}` (the types are \
                         d i u o x X f F e E g G c s, and %% for a percent sign)"
                    ),
                ));
            }
        }
        if matches!(s.width, Some(Count::Fixed(usize::MAX)))
            || matches!(s.precision, Some(Count::Fixed(usize::MAX)))
        {
            return Err(Error::argument(function, format!("a width in `{format}` is too large")));
        }
        pieces.push(Piece::Conv(s));
        i += 1;
        start = i;
    }
    if start < b.len() {
        pieces.push(Piece::Text(&format[start..]));
    }
    Ok(pieces)
}

/// Formats `values` with `format` (see the module documentation).
pub fn format_values(function: &str, format: &str, values: &[Value]) -> Result<String> {
    let format = unescape(format);
    let pieces = parse(function, &format)?;
    let mut out = String::new();
    let has_conv = pieces.iter().any(|p| matches!(p, Piece::Conv(_)));
    let mut next = 0;
    loop {
        for p in &pieces {
            match p {
                Piece::Text(t) => out.push_str(t),
                Piece::Conv(spec) => {
                    let mut spec = *spec;
                    let star = |c: Option<Count>, next: &mut usize| -> Result<Option<usize>> {
                        match c {
                            Some(Count::Star) => {
                                let Some(v) = values.get(*next) else { return Ok(None) };
                                *next += 1;
                                match v {
                                    Value::Int(n) => Ok(Some(n.unsigned_abs() as usize)),
                                    Value::Uint(n) => Ok(Some(*n as usize)),
                                    Value::Float(x) if x.fract() == 0.0 && x.abs() < 1e9 => {
                                        Ok(Some(x.abs() as usize))
                                    }
                                    Value::Single(x) if x.fract() == 0.0 && x.abs() < 1e9 => {
                                        Ok(Some(x.abs() as usize))
                                    }
                                    _ => Err(Error::argument(
                                        function,
                                        format!("a `*` width or precision needs an integer, found {v:?}"),
                                    )),
                                }
                            }
                            Some(Count::Fixed(n)) => Ok(Some(n)),
                            None => Ok(None),
                        }
                    };
                    let star_w = matches!(spec.width, Some(Count::Star));
                    let star_p = matches!(spec.precision, Some(Count::Star));
                    if (star_w || star_p) && next >= values.len() {
                        return Ok(out);
                    }
                    let w = star(spec.width, &mut next)?;
                    let p = star(spec.precision, &mut next)?;
                    spec.width = w.map(Count::Fixed);
                    spec.precision = p.map(Count::Fixed);
                    let Some(v) = values.get(next) else { return Ok(out) };
                    next += 1;
                    convert(function, &spec, v, &mut out)?;
                }
            }
        }
        if !has_conv || next >= values.len() {
            return Ok(out);
        }
    }
}

/// `format` with its escape sequences turned into characters.
fn unescape(format: &str) -> std::borrow::Cow<'_, str> {
    if !format.contains('\\') {
        return format.into();
    }
    let mut out = String::with_capacity(format.len());
    let mut it = format.chars().peekable();
    while let Some(c) = it.next() {
        let e = match (c, it.peek()) {
            ('\\', Some('n')) => '\n',
            ('\\', Some('t')) => '\t',
            ('\\', Some('r')) => '\r',
            ('\\', Some('a')) => '\u{7}',
            ('\\', Some('b')) => '\u{8}',
            ('\\', Some('f')) => '\u{c}',
            ('\\', Some('v')) => '\u{b}',
            ('\\', Some('\\')) => '\\',
            _ => {
                out.push(c);
                continue;
            }
        };
        it.next();
        out.push(e);
    }
    out.into()
}

fn fixed(c: Option<Count>) -> Option<usize> {
    match c {
        Some(Count::Fixed(n)) => Some(n),
        _ => None,
    }
}

/// Writes one value with one conversion.
fn convert(function: &str, spec: &Spec, v: &Value, out: &mut String) -> Result<()> {
    if let Value::Single(x) = *v {
        if spec.conv == b's' {
            let mut text = String::new();
            x.show(&mut text);
            return convert(function, spec, &Value::Str(text), out);
        }
        return convert(function, spec, &Value::Float(f64::from(x)), out);
    }
    let prec = fixed(spec.precision);
    let body = match (spec.conv, v) {
        (b's', Value::Str(s)) => {
            let s = match prec {
                Some(p) => s.chars().take(p).collect(),
                None => s.clone(),
            };
            return pad(out, spec, "", &s, false);
        }
        (b's', Value::Complex(.., text)) => return pad(out, spec, "", text, false),
        (b's', v) => {
            let mut text = String::new();
            match v {
                Value::Int(n) => n.show(&mut text),
                Value::Uint(n) => n.show(&mut text),
                Value::Float(x) => x.show(&mut text),
                _ => {}
            }
            return pad(out, spec, "", &text, false);
        }
        (b'c', Value::Str(s)) => return pad(out, spec, "", s, false),
        (b'c', v) => {
            let code = match *v {
                Value::Int(n) => u32::try_from(n).ok(),
                Value::Uint(n) => u32::try_from(n).ok(),
                Value::Float(x) if x.fract() == 0.0 && x >= 0.0 => Some(x as u32),
                _ => None,
            };
            let Some(ch) = code.and_then(char::from_u32) else {
                return Err(Error::argument(
                    function,
                    format!("`%c` needs a character code, found {}", describe(v)),
                ));
            };
            return pad(out, spec, "", &ch.to_string(), false);
        }
        (_, Value::Str(s)) => {
            return Err(Error::argument(
                function,
                format!(
                    "the conversion `%{}` needs a number, found the string \"{s}\"",
                    spec.conv as char
                ),
            ))
        }
        (_, Value::Complex(..)) => {
            return Err(Error::argument(
                function,
                format!(
                    "the conversion `%{}` cannot format the complex number {} (use %s, or \
                     real() and imag())",
                    spec.conv as char,
                    describe(v)
                ),
            ))
        }
        (b'd' | b'i' | b'u' | b'o' | b'x' | b'X', Value::Float(x))
            if x.fract() != 0.0 || !x.is_finite() =>
        {
            let e = Spec { conv: b'e', precision: None, ..*spec };
            return convert(function, &e, v, out);
        }
        (b'd' | b'i' | b'u' | b'o' | b'x' | b'X', v) => {
            let (neg, mag) = match *v {
                Value::Int(n) => (n < 0, n.unsigned_abs() as u128),
                Value::Uint(n) => (false, n as u128),
                Value::Float(x) => (x < 0.0, x.abs() as u128),
                _ => (false, 0),
            };
            integer(spec, neg, mag)
        }
        (_, &Value::Float(x)) => float(spec, x),
        (_, &Value::Int(n)) => float(spec, n as f64),
        (_, &Value::Uint(n)) => float(spec, n as f64),
        (_, &Value::Single(x)) => float(spec, f64::from(x)),
    };
    let (sign, digits, numeric) = body;
    pad(out, spec, &sign, &digits, numeric)
}

fn describe(v: &Value) -> String {
    match v {
        Value::Int(n) => n.to_string(),
        Value::Uint(n) => n.to_string(),
        Value::Float(x) => {
            let mut s = String::new();
            x.show(&mut s);
            s
        }
        Value::Single(x) => {
            let mut s = String::new();
            x.show(&mut s);
            s
        }
        Value::Complex(.., t) => t.clone(),
        Value::Str(s) => format!("\"{s}\""),
    }
}

/// The sign (or prefix) and digits of an integer conversion.
fn integer(spec: &Spec, neg: bool, mag: u128) -> (String, String, bool) {
    let mut digits = match spec.conv {
        b'o' => format!("{mag:o}"),
        b'x' => format!("{mag:x}"),
        b'X' => format!("{mag:X}"),
        _ => mag.to_string(),
    };
    let signed = matches!(spec.conv, b'd' | b'i');
    let mut sign = sign_of(spec, neg, signed);
    if spec.conv == b'u' && neg {
        // C prints the two's complement of a negative value given to %u.
        digits = ((mag as u64).wrapping_neg()).to_string();
    }
    if let Some(p) = fixed(spec.precision) {
        if p == 0 && mag == 0 {
            digits.clear();
        }
        while digits.len() < p {
            digits.insert(0, '0');
        }
    }
    if spec.alt && mag != 0 {
        match spec.conv {
            b'o' if !digits.starts_with('0') => digits.insert(0, '0'),
            b'x' => sign.push_str("0x"),
            b'X' => sign.push_str("0X"),
            _ => {}
        }
    }
    // With a precision, the 0 flag is ignored for integers (C).
    let zero_ok = spec.precision.is_none();
    (sign, digits, zero_ok)
}

fn sign_of(spec: &Spec, neg: bool, signed: bool) -> String {
    if neg && signed {
        "-".into()
    } else if spec.plus && signed {
        "+".into()
    } else if spec.space && signed {
        " ".into()
    } else {
        String::new()
    }
}

/// The sign and digits of a floating-point conversion (`f F e E g G`).
fn float(spec: &Spec, x: f64) -> (String, String, bool) {
    let sign = sign_of(spec, x.is_sign_negative() && !x.is_nan(), true);
    let upper = spec.conv.is_ascii_uppercase();
    if !x.is_finite() {
        let t = if x.is_nan() { "nan" } else { "inf" };
        let t = if upper { t.to_ascii_uppercase() } else { t.to_string() };
        return (sign, t, false);
    }
    let a = x.abs();
    let p = fixed(spec.precision).unwrap_or(6);
    let digits = match spec.conv.to_ascii_lowercase() {
        b'f' => {
            let mut s = format!("{a:.p$}");
            if spec.alt && p == 0 {
                s.push('.');
            }
            s
        }
        b'e' => exp_form(a, p, spec.alt),
        _ => {
            // %g: precision P (0 means 1); %e if the exponent is < -4 or >= P.
            let p = p.max(1);
            let e = exp_form(a, p - 1, spec.alt);
            let exp: i32 = e.rsplit('e').next().and_then(|t| t.parse().ok()).unwrap_or(0);
            let mut s = if exp < -4 || exp >= p as i32 {
                e
            } else {
                let decimals = (p as i32 - 1 - exp).max(0) as usize;
                let mut s = format!("{a:.decimals$}");
                if spec.alt && decimals == 0 {
                    s.push('.');
                }
                s
            };
            if !spec.alt {
                s = strip_zeros(&s);
            }
            s
        }
    };
    let digits = if upper { digits.to_ascii_uppercase() } else { digits };
    (sign, digits, true)
}

/// `a` (≥ 0) as C's `%.{p}e`: one digit, `p` decimals, `e`, a sign and at least two digits.
fn exp_form(a: f64, p: usize, alt: bool) -> String {
    let s = format!("{a:.p$e}");
    let (mantissa, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let mut m = mantissa.to_string();
    if alt && p == 0 {
        m.push('.');
    }
    let _ = write!(m, "e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.unsigned_abs());
    m
}

/// Removes trailing zeros of the fraction (and a trailing point), keeping an exponent.
fn strip_zeros(s: &str) -> String {
    let (mantissa, exp) = match s.find('e') {
        Some(i) => (&s[..i], &s[i..]),
        None => (s, ""),
    };
    let m = if mantissa.contains('.') {
        mantissa.trim_end_matches('0').trim_end_matches('.')
    } else {
        mantissa
    };
    format!("{m}{exp}")
}

/// Writes `sign` + `digits` padded to the width; `numeric` allows the `0` flag.
fn pad(out: &mut String, spec: &Spec, sign: &str, digits: &str, numeric: bool) -> Result<()> {
    let len = sign.chars().count() + digits.chars().count();
    let width = fixed(spec.width).unwrap_or(0);
    let fill = width.saturating_sub(len);
    if spec.left {
        out.push_str(sign);
        out.push_str(digits);
        out.extend(std::iter::repeat_n(' ', fill));
    } else if spec.zero && numeric {
        out.push_str(sign);
        out.extend(std::iter::repeat_n('0', fill));
        out.push_str(digits);
    } else {
        out.extend(std::iter::repeat_n(' ', fill));
        out.push_str(sign);
        out.push_str(digits);
    }
    Ok(())
}

#[cfg(test)]
#[path = "format_tests.rs"]
mod tests;
