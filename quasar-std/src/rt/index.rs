//! Host slicing: `A[:, 1]`, `A[0..2, 3..-1..0]`, `A[[0, 2], :]`, their assignments, and
//! range expressions used as values (`x = 0..9`, `0..0.1..1`).
//!
//! Each subscript selects indices along one dimension ([`Sub`]); out-of-range indices follow
//! the access [`Mode`] per dimension (a checked error names the array; `'safe` reads 0;
//! `'circular`/`'mirror`/`'clamped` reads map; writes use [`Mode::for_write`]). The result
//! keeps the dimensions of `All`, `Range` and `List` subscripts, in order; `At` drops its
//! dimension. With fewer subscripts than dimensions the last one covers the remaining
//! dimensions (a linear index; `All` there keeps them as they are). No kept dimension gives
//! a one-element array of shape `[1]`.

use super::access::{index_error, map_index, zero, Mode};
use crate::builtins::num::Float;
use quasar_runtime::{Array, Element, Error, Result, Shape};

/// One subscript of an indexing expression.
#[derive(Clone, Debug)]
pub enum Sub {
    /// One index (`A[3, :]`): the dimension is dropped.
    At(i64),
    /// Every index (`:`).
    All,
    /// `start..end` or `start..step..end`, `end` inclusive; `step` may be negative, not 0.
    Range {
        /// The first index.
        start: i64,
        /// The distance between indices.
        step: i64,
        /// The last index (included when the steps reach it).
        end: i64,
    },
    /// An index vector (`A[[0, 2, 2]]`).
    List(Vec<i64>),
}

/// `start..step..end` as a vector, `end` inclusive; empty when `end` is before `start` in the
/// direction of `step`. A zero step or more elements than fit in memory are errors.
pub fn range_vec(start: i64, step: i64, end: i64) -> Result<Vec<i64>> {
    let n = range_len(start, step, end)?;
    // The values lie between `start` and `end`, so wrapping arithmetic is exact.
    Ok((0..n as i64).map(|k| start.wrapping_add(k.wrapping_mul(step))).collect())
}

/// The number of elements of `start..step..end`, checked.
fn range_len(start: i64, step: i64, end: i64) -> Result<usize> {
    if step == 0 {
        return Err(bad_range(format!("the range {start}..0..{end} has step 0")));
    }
    let span = (end as i128 - start as i128) / step as i128;
    let n = if span < 0 { 0 } else { span + 1 };
    // At most what an array of i64 can hold; the values then stay between start and end.
    let max = (isize::MAX as usize / std::mem::size_of::<i64>()) as i128;
    if n > max {
        return Err(bad_range(format!("the range {start}..{step}..{end} has {n} elements")));
    }
    Ok(n as usize)
}

fn bad_range(reason: String) -> Error {
    Error::InvalidShape { shape: vec![], reason }
}

/// The range `start..step..end` of `int`s as a vector (`x = 0..9`).
pub fn range_array_i32(start: i32, step: i32, end: i32) -> Result<Array<i32>> {
    let n = range_len(start as i64, step as i64, end as i64)?;
    Array::from_fn(&[n], |k| (start as i64 + k as i64 * step as i64) as i32)
}

/// The range `start..step..end` of `scalar`s as a vector (`0..0.1..1` has 11 elements). As
/// MATLAB's colon: the count is rounded with a tolerance of a few ulps, so `end` is included
/// when rounding errors alone miss it; the values are `start + k*step`, computed in `f64`.
pub fn range_array_f<F: Float>(start: F, step: F, end: F) -> Result<Array<F>> {
    let (a, d, b) = (start.to_f64(), step.to_f64(), end.to_f64());
    if !(a.is_finite() && d.is_finite() && b.is_finite()) || d == 0.0 {
        let what = format!("the range {a}..{d}..{b} needs a finite, non-zero step and finite ends");
        return Err(bad_range(what));
    }
    let mut n = ((b - a) / d).round();
    let tol = 2.0 * F::EPS.to_f64() * a.abs().max(b.abs());
    if (a + n * d - b) * d.signum() > tol {
        n -= 1.0;
    }
    if n < 0.0 {
        return Array::zeros(&[0]);
    }
    if n >= (isize::MAX as usize / std::mem::size_of::<F>()) as f64 {
        return Err(bad_range(format!("the range {a}..{d}..{b} has too many elements")));
    }
    Array::from_fn(&[n as usize + 1], |k| F::from_f64(a + k as f64 * d))
}

/// `find(x)`: the linear indices of the non-zero elements, in order, as a vector (what
/// `x[mask]` selects with, for a mask of the same number of elements).
pub fn find<T: Element + PartialEq>(x: &Array<T>) -> Result<Array<i32>> {
    let v = x.host_view()?;
    let mut out = Vec::new();
    for (i, e) in v.iter().enumerate() {
        if *e != zero::<T>() {
            let i = i32::try_from(i)
                .map_err(|_| bad_range(format!("`find`: the index {i} does not fit in an int")))?;
            out.push(i);
        }
    }
    let n = out.len();
    Array::from_vec(&[n], out)
}

/// The offsets one subscript selects, already multiplied by its stride.
enum Axis {
    /// `n` offsets `start + k * delta`, all inside: `All`, and ranges within bounds (no
    /// per-element list, so `A[:] = 0` on a large array allocates nothing).
    Affine { start: usize, n: usize, delta: isize },
    /// Mapped offsets, `None` where the index is outside.
    Listed(Vec<Option<usize>>),
}

impl Axis {
    fn len(&self) -> usize {
        match self {
            Axis::Affine { n, .. } => *n,
            Axis::Listed(v) => v.len(),
        }
    }

    #[inline]
    fn at(&self, p: usize) -> Option<usize> {
        match self {
            Axis::Affine { start, delta, .. } => {
                Some(start.wrapping_add_signed(p as isize * delta))
            }
            Axis::Listed(v) => v[p],
        }
    }

    /// The subscript `sub` along a dimension of extent `n` and stride `stride`; `bad` is called
    /// with an index outside when `mode` makes that an error.
    fn new(
        sub: &Sub,
        n: usize,
        stride: usize,
        mode: Mode,
        bad: impl Fn(i64) -> Error,
    ) -> Result<Axis> {
        let raw = match sub {
            Sub::All => return Ok(Axis::Affine { start: 0, n, delta: stride as isize }),
            Sub::Range { start, step, end } => {
                let count = range_len(*start, *step, *end)?;
                let last = start.wrapping_add((count.max(1) as i64 - 1).wrapping_mul(*step));
                let inside = |i: i64| (i as u64) < n as u64;
                if count == 0 {
                    return Ok(Axis::Affine { start: 0, n: 0, delta: 0 });
                }
                if inside(*start) && inside(last) {
                    // Both ends inside: |step| < n (or one element), so `step * stride` fits.
                    let delta = if count == 1 { 0 } else { *step as isize * stride as isize };
                    return Ok(Axis::Affine { start: *start as usize * stride, n: count, delta });
                }
                range_vec(*start, *step, *end)?
            }
            Sub::At(i) => vec![*i],
            Sub::List(v) => v.clone(),
        };
        let mut mapped = Vec::with_capacity(raw.len());
        for i in raw {
            let m = map_index(i, n, mode);
            if m.is_none() && mode.is_checked() {
                return Err(bad(i));
            }
            mapped.push(m.map(|j| j * stride));
        }
        Ok(Axis::Listed(mapped))
    }
}

/// The selection made by `subs` in an array of shape `shape`: one [`Axis`] per subscript,
/// and the shape of the result.
struct Selection {
    axes: Vec<Axis>,
    shape: Vec<usize>,
}

impl Selection {
    fn new(shape: &[usize], name: &str, subs: &[Sub], mode: Mode) -> Result<Selection> {
        // `A[]` selects everything.
        let all = [Sub::All];
        let subs = if subs.is_empty() { &all[..] } else { subs };
        // A vector indexed as a matrix is a row (`v[0, j]`, ARCHITECTURE §5).
        let row;
        let shape = match shape {
            [n] if subs.len() >= 2 => {
                row = [1, *n];
                &row[..]
            }
            _ => shape,
        };
        let last = subs.len() - 1;
        let mut axes = Vec::with_capacity(subs.len());
        let mut stride = 1usize;
        for (k, sub) in subs.iter().enumerate().rev() {
            // The last subscript covers the remaining dimensions.
            let n = match k == last {
                true => shape.iter().skip(k).product(),
                false => shape.get(k).copied().unwrap_or(1),
            };
            let bad = |i| index_error(name, &first_bad(subs, k, i), shape);
            axes.push(Axis::new(sub, n, stride, mode, bad)?);
            stride *= n;
        }
        axes.reverse();
        let mut out_shape = Vec::new();
        for (k, sub) in subs.iter().enumerate() {
            match sub {
                Sub::At(_) => {}
                Sub::All if k == last && k < shape.len() => out_shape.extend(&shape[k..]),
                _ => out_shape.push(axes[k].len()),
            }
        }
        if out_shape.is_empty() {
            out_shape.push(1);
        }
        Shape::new(&out_shape)?;
        Ok(Selection { axes, shape: out_shape })
    }

    /// Calls `f(position in the result, offset in the array or None)` in row-major order.
    fn for_each(&self, mut f: impl FnMut(usize, Option<usize>)) {
        let Some((inner, outer)) = self.axes.split_last() else {
            return;
        };
        if outer.iter().any(|o| o.len() == 0) || inner.len() == 0 {
            return;
        }
        let mut pos = vec![0usize; outer.len()];
        let mut out = 0;
        loop {
            let base: Option<usize> =
                outer.iter().zip(&pos).try_fold(0, |acc, (o, &p)| o.at(p).map(|x| acc + x));
            match (inner, base) {
                (Axis::Affine { start, n, delta: 1 }, Some(b)) => {
                    for j in 0..*n {
                        f(out + j, Some(b + start + j));
                    }
                }
                _ => {
                    for j in 0..inner.len() {
                        f(out + j, base.and_then(|b| inner.at(j).map(|o| b + o)));
                    }
                }
            }
            out += inner.len();
            // Advance the odometer over the outer subscripts.
            let mut k = outer.len();
            loop {
                if k == 0 {
                    return;
                }
                k -= 1;
                pos[k] += 1;
                if pos[k] < outer[k].len() {
                    break;
                }
                pos[k] = 0;
            }
        }
    }

    fn numel(&self) -> usize {
        self.shape.iter().product()
    }
}

/// The index reported for an out-of-range subscript `k` (value `bad`): the first selected
/// index of every other subscript.
fn first_bad(subs: &[Sub], k: usize, bad: i64) -> Vec<i64> {
    let first = |s: &Sub| match s {
        Sub::At(i) => *i,
        Sub::All => 0,
        Sub::Range { start, .. } => *start,
        Sub::List(v) => v.first().copied().unwrap_or(0),
    };
    subs.iter().enumerate().map(|(j, s)| if j == k { bad } else { first(s) }).collect()
}

/// `a[subs]` under `mode`: a new array (see the module documentation).
pub fn index_get<T: Element>(
    a: &Array<T>,
    name: &str,
    subs: &[Sub],
    mode: Mode,
) -> Result<Array<T>> {
    let sel = Selection::new(a.shape(), name, subs, mode)?;
    let src = a.host_view()?;
    let mut data = quasar_runtime::host_vec(sel.numel())?;
    sel.for_each(|_, off| data.push(off.map_or_else(zero, |o| src[o])));
    Array::from_vec(&sel.shape, data)
}

/// `a[subs] = value` under `mode.for_write()`. `value` must have the selection's shape (up
/// to trailing singleton dimensions), or, when the selection is a vector (at most one
/// dimension above 1), the same number of elements; else `Error::ShapeMismatch`.
pub fn index_set<T: Element>(
    a: &Array<T>,
    name: &str,
    subs: &[Sub],
    value: &Array<T>,
    mode: Mode,
) -> Result<()> {
    let sel = Selection::new(a.shape(), name, subs, mode.for_write())?;
    if !fits(&sel.shape, value.shape()) {
        return Err(Error::ShapeMismatch {
            operation: format!("assignment to `{name}[…]`"),
            left: sel.shape.clone(),
            right: value.shape().to_vec(),
        });
    }
    // `A[0, :] = A[1, :]`: a view of `value` would conflict with the write borrow of `a`.
    let value = if value.same_data(a) { value.copy()? } else { value.clone() };
    let src = value.host_view()?;
    let mut dst = a.host_view_mut()?;
    sel.for_each(|p, off| {
        if let Some(o) = off {
            dst[o] = src[p];
        }
    });
    Ok(())
}

/// `a[subs] = value` for a number `value` (every selected element).
pub fn index_fill<T: Element>(
    a: &Array<T>,
    name: &str,
    subs: &[Sub],
    value: T,
    mode: Mode,
) -> Result<()> {
    let sel = Selection::new(a.shape(), name, subs, mode.for_write())?;
    let mut dst = a.host_view_mut()?;
    sel.for_each(|_, off| {
        if let Some(o) = off {
            dst[o] = value;
        }
    });
    Ok(())
}

/// Whether a right-hand side of shape `value` fits a selection of shape `sel`.
fn fits(sel: &[usize], value: &[usize]) -> bool {
    let trim = |d: &[usize]| d.len() - d.iter().rev().take_while(|&&x| x == 1).count();
    let (ts, tv) = (trim(sel), trim(value));
    if sel[..ts] == value[..tv] {
        return true;
    }
    let vector = sel.iter().filter(|&&d| d != 1).count() <= 1;
    vector && sel.iter().product::<usize>() == value.iter().product::<usize>()
}
