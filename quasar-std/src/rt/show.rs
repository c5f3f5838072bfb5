//! Printing (`print`, and the text of `error(...)`):
//!
//! * integers as integers;
//! * floats in the shortest form that reads back as the same value of their own type
//!   (`0.1f32` prints `0.1`, not `0.10000000149011612`), without a trailing `.0`: `3`, `0.5`,
//!   `-0.25`, as the manual's examples print. From `1e16` up and below `1e-5` the exponent
//!   form is used (`1e20`, `2.5e-7`) so that no number prints as a wall of zeros. NaN and
//!   infinities print `NaN`, `Inf`, `-Inf` (MATLAB's spelling);
//! * complex numbers as `a+bi` / `a-bi`;
//! * strings as they are; `bool` as `1`/`0` (Quasar's `true`/`false` are integers);
//! * arrays, slices and fixed vectors in bracket notation, row-major nesting, no spaces:
//!   `[1,2,3]`, `[[1,2],[3,4]]`; a 0-dimensional array prints its one element.

use quasar_runtime::{f16, Array, Complex, Element};
use std::fmt::Write as _;
use std::io::Write as _;

/// A value `print` can write.
pub trait Show {
    /// Appends the printed form of `self` to `out`.
    fn show(&self, out: &mut String);
}

macro_rules! show_int {
    ($($t:ty),*) => { $(
        impl Show for $t {
            fn show(&self, out: &mut String) {
                let _ = write!(out, "{self}");
            }
        }
    )* };
}
show_int!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

macro_rules! show_float {
    ($($t:ty),*) => { $(
        impl Show for $t {
            fn show(&self, out: &mut String) {
                let x = *self;
                let a = x.abs();
                let _ = if x.is_nan() {
                    write!(out, "NaN")
                } else if x.is_infinite() {
                    write!(out, "{}Inf", if x < 0.0 { "-" } else { "" })
                } else if a == 0.0 || (1e-5..1e16).contains(&a) {
                    // `Display` is the shortest round-tripping form, without `.0`.
                    write!(out, "{x}")
                } else {
                    write!(out, "{x:e}")
                };
            }
        }
    )* };
}
show_float!(f32, f64);

impl Show for f16 {
    /// Shortest for `f16` itself (`f16(0.1)` prints `0.1`, not its `f32` value).
    fn show(&self, out: &mut String) {
        let x = self.to_f32();
        if x.is_finite() {
            for digits in 0..8 {
                let text = format!("{x:.digits$e}");
                if let Ok(y) = text.parse::<f32>() {
                    if f16::from_f32(y) == *self {
                        return y.show(out);
                    }
                }
            }
        }
        x.show(out)
    }
}

macro_rules! show_complex {
    ($($t:ty),*) => { $(
        impl Show for Complex<$t> {
            fn show(&self, out: &mut String) {
                self.re.show(out);
                if self.im.is_sign_negative() && !self.im.is_nan() {
                    out.push('-');
                    (-self.im).show(out);
                } else {
                    out.push('+');
                    self.im.show(out);
                }
                out.push('i');
            }
        }
    )* };
}
show_complex!(f32, f64);

impl Show for bool {
    fn show(&self, out: &mut String) {
        out.push(if *self { '1' } else { '0' });
    }
}

impl Show for str {
    fn show(&self, out: &mut String) {
        out.push_str(self);
    }
}

impl Show for String {
    fn show(&self, out: &mut String) {
        out.push_str(self);
    }
}

impl<T: Show + ?Sized> Show for &T {
    fn show(&self, out: &mut String) {
        (**self).show(out);
    }
}

impl<T: Show> Show for [T] {
    fn show(&self, out: &mut String) {
        show_fixed(self, &[self.len()], out);
    }
}

impl<T: Show> Show for Vec<T> {
    fn show(&self, out: &mut String) {
        self.as_slice().show(out);
    }
}

impl<T: Show, const N: usize> Show for [T; N] {
    fn show(&self, out: &mut String) {
        self.as_slice().show(out);
    }
}

impl<T: Show + Element> Show for Array<T> {
    fn show(&self, out: &mut String) {
        match self.host_view() {
            Ok(v) => show_fixed(&v, self.shape(), out),
            Err(e) => {
                let _ = write!(out, "<array unavailable: {e}>");
            }
        }
    }
}

/// `data` (row-major) with the dimensions `shape` in bracket notation, e.g. a fixed
/// `mat(2,2)`. An empty `shape` prints the one element; a `shape` that does not match
/// `data.len()` prints `data` as a flat vector.
pub fn show_fixed<T: Show>(data: &[T], shape: &[usize], out: &mut String) {
    let count = shape.iter().try_fold(1usize, |n, &d| n.checked_mul(d));
    if count != Some(data.len()) {
        return nested(data, &[data.len()], out);
    }
    match data {
        [one] if shape.is_empty() => one.show(out),
        _ => nested(data, shape, out),
    }
}

/// Bracket notation of `data`, whose length is the product of `shape` (non-empty).
fn nested<T: Show>(data: &[T], shape: &[usize], out: &mut String) {
    let Some((&n, rest)) = shape.split_first() else {
        if let Some(x) = data.first() {
            x.show(out);
        }
        return;
    };
    let block: usize = rest.iter().product();
    out.push('[');
    for i in 0..n {
        if i > 0 {
            out.push(',');
        }
        nested(&data[i * block..(i + 1) * block], rest, out);
    }
    out.push(']');
}

/// The concatenation of the printed parts (the message of `error(...)`).
pub fn format_parts(parts: &[&dyn Show]) -> String {
    let mut s = String::new();
    for p in parts {
        p.show(&mut s);
    }
    s
}

/// `print a, b, …`: the concatenation of the parts and a newline, written to stdout at once.
/// Write errors (a closed pipe) are ignored: printing never fails a program.
pub fn print_line(parts: &[&dyn Show]) {
    let mut s = format_parts(parts);
    s.push('\n');
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(s.as_bytes());
    let _ = out.flush();
}
