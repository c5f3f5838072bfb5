//! Strings (manual table 14.1): `sprintf`, `printf`, `sscanf`, `strcat`, `num2str`,
//! `fromascii`/`toascii`, `fromunicode`/`tounicode`.
//!
//! * [`format`](mod@format): `sprintf`/`printf` with C's conversions and MATLAB's rules for feeding values.
//! * [`scan`](mod@scan): `sscanf`.
//! * `fromascii(s)` gives the character codes of `s` (0 to 255: ASCII and Latin-1, as a
//!   .NET `Encoding.Latin1` would; a character above 255 is an error naming the function);
//!   `toascii(v)` is its inverse. `fromunicode(s)`/`tounicode(v)` use Unicode code points
//!   (a character outside the basic plane is one value, not two UTF-16 halves).
//! * `strcat(a, b, …)` joins its arguments; numbers are written as `print` writes them.

pub mod format;
pub mod scan;

pub use format::{printf, sprintf, FormatArg, Value};
pub use scan::sscanf;

use crate::rt::show::Show;
use quasar_runtime::{Array, Error, Result};

/// Quasar's `strcat(parts…)`: the parts joined, numbers in their `print` form.
pub fn strcat(parts: &[&dyn Show]) -> String {
    let mut out = String::new();
    for p in parts {
        p.show(&mut out);
    }
    out
}

/// Quasar's `num2str(x)` / `string(x)`: `x` as `print` writes it.
pub fn num2str<T: Show + ?Sized>(x: &T) -> String {
    let mut out = String::new();
    x.show(&mut out);
    out
}

/// Quasar's `fromascii(s)`: the codes (0 to 255) of the characters of `s`, as a vector.
pub fn fromascii<T: FromCode>(s: &str) -> Result<Array<T>> {
    let mut codes = Vec::with_capacity(s.len());
    for c in s.chars() {
        let code = u32::from(c);
        if code > 255 {
            return Err(Error::argument(
                "fromascii",
                format!(
                    "the character '{c}' (U+{code:04X}) is not an ASCII or Latin-1 character \
                     (use fromunicode)"
                ),
            ));
        }
        codes.push(T::from_code(code));
    }
    Array::from_vec(&[codes.len()], codes)
}

/// Quasar's `fromunicode(s)`: the Unicode code points of `s`, as a vector.
pub fn fromunicode<T: FromCode>(s: &str) -> Result<Array<T>> {
    let codes: Vec<T> = s.chars().map(|c| T::from_code(u32::from(c))).collect();
    Array::from_vec(&[codes.len()], codes)
}

/// Quasar's `toascii(v)`: the string whose characters have the codes `v` (0 to 255).
pub fn toascii<T: ToCode>(codes: &[T]) -> Result<String> {
    to_text("toascii", codes, 255)
}

/// Quasar's `tounicode(v)`: the string whose characters have the code points `v`.
pub fn tounicode<T: ToCode>(codes: &[T]) -> Result<String> {
    to_text("tounicode", codes, char::MAX as u32)
}

fn to_text<T: ToCode>(name: &str, codes: &[T], max: u32) -> Result<String> {
    let mut out = String::with_capacity(codes.len());
    for (i, v) in codes.iter().enumerate() {
        let c = v.to_code().filter(|&k| k <= max).and_then(char::from_u32);
        let Some(c) = c else {
            let range = if max == 255 { "0 to 255" } else { "a Unicode code point" };
            return Err(Error::argument(
                name,
                format!("element {i} ({}) is not a character code ({range})", v.describe()),
            ));
        };
        out.push(c);
    }
    Ok(out)
}

/// An element type that can hold a character code.
pub trait FromCode: quasar_runtime::Element {
    /// The element for character code `code`.
    fn from_code(code: u32) -> Self;
}

/// An element type that can be read as a character code.
pub trait ToCode: Copy {
    /// The code, when the value is a non-negative integer.
    fn to_code(self) -> Option<u32>;
    /// The value as text, for an error message when it is not a character code.
    fn describe(self) -> String;
}

macro_rules! codes_float {
    ($($t:ty),*) => { $(
        impl FromCode for $t {
            fn from_code(code: u32) -> Self {
                code as $t
            }
        }
        impl ToCode for $t {
            fn to_code(self) -> Option<u32> {
                (self >= 0.0 && self.fract() == 0.0 && self <= u32::MAX as $t).then(|| self as u32)
            }
            fn describe(self) -> String {
                num2str(&self)
            }
        }
    )* };
}
codes_float!(f32, f64);

macro_rules! codes_int {
    ($($t:ty),*) => { $(
        impl FromCode for $t {
            fn from_code(code: u32) -> Self {
                code as $t
            }
        }
        impl ToCode for $t {
            fn to_code(self) -> Option<u32> {
                u32::try_from(self).ok()
            }
            fn describe(self) -> String {
                self.to_string()
            }
        }
    )* };
}
codes_int!(i32, i64, u8, u16, u32);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn character_codes_round_trip() {
        let v = fromascii::<f32>("Hi!").unwrap();
        assert_eq!(v.shape(), &[3]);
        assert_eq!(v.to_vec().unwrap(), vec![72.0, 105.0, 33.0]);
        assert_eq!(toascii(&v.to_vec().unwrap()).unwrap(), "Hi!");
        assert_eq!(fromascii::<i32>("é").unwrap().to_vec().unwrap(), vec![0xE9]);
        let u = fromunicode::<f64>("a€😀").unwrap().to_vec().unwrap();
        assert_eq!(u, vec![97.0, 8364.0, 128512.0]);
        assert_eq!(tounicode(&u).unwrap(), "a€😀");
        assert_eq!(fromascii::<f32>("").unwrap().shape(), &[0]);
    }

    #[test]
    fn bad_codes_are_errors_naming_the_function() {
        let e = fromascii::<f32>("€").unwrap_err().to_string();
        assert!(e.starts_with("`fromascii`: the character '€' (U+20AC)"), "{e}");
        let e = toascii(&[65.0f32, 300.0]).unwrap_err().to_string();
        assert_eq!(e, "`toascii`: element 1 (300) is not a character code (0 to 255)");
        let e = tounicode(&[1.5f64]).unwrap_err().to_string();
        assert_eq!(
            e,
            "`tounicode`: element 0 (1.5) is not a character code (a Unicode code point)"
        );
        assert!(tounicode(&[0xD800i32]).is_err());
    }

    #[test]
    fn strcat_joins_numbers_in_print_form() {
        assert_eq!(strcat(&[&"out", &3i32, &"_", &0.5f32, &".png"]), "out3_0.5.png");
        assert_eq!(num2str(&2.5f64), "2.5");
    }
}
