//! Boundary access modes (manual §2.4.1): `'safe 'checked 'unchecked 'circular 'mirror
//! 'clamped`, and the built-ins `periodize` and `mirror_ext` behind them.
//!
//! Decisions (the manual leaves them open):
//!
//! * `'mirror` reflects about the array's edges with the edge element repeated
//!   (half-sample symmetric, period `2n`): `…, 1, 0 | 0, 1, …, n-1 | n-1, n-2, …`, so index
//!   -1 reads element 0. This is what the GPU texture unit's mirror address mode does, which the
//!   manual says implements `'mirror` in hardware (`'hwtx_nearest`), and MATLAB's
//!   `'symmetric'` padding; the two paths then agree.
//! * **Writes**: `'circular`, `'mirror` and `'clamped` act as `'safe` — writes outside the
//!   array are dropped. The manual's feature overview ("Boundary access modes in Quasar")
//!   says so: put modes are only safe, unchecked and checked, to avoid unforeseen data races
//!   (a mapped write could hit an element another thread writes). See [`Mode::for_write`].
//! * `'unchecked` reports out-of-range host accesses like `'checked` (the check is
//!   dropped only in release kernels, which the code generator handles).
//! * Indices past the array's rank address dimensions of extent 1, mapped like any other
//!   (`'safe`/`'checked`: they must be 0; `'circular`/`'clamped`/`'mirror`: they map to 0).

use quasar_runtime::{Array, Element, Error, KernelView, Result};

/// How an access outside an array's bounds behaves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Reads outside are 0, writes outside are dropped (the kernel default).
    Safe,
    /// An access outside is an error (the host default).
    Checked,
    /// The programmer promises the access is inside; checked here anyway.
    Unchecked,
    /// The index wraps around (`periodize`).
    Circular,
    /// The index is reflected at the edges (`mirror_ext`).
    Mirror,
    /// The index is clamped to the first or last element.
    Clamped,
}

impl Mode {
    /// The mode that applies to writes: `Circular`, `Mirror` and `Clamped` become `Safe`.
    #[inline(always)]
    pub fn for_write(self) -> Mode {
        match self {
            Mode::Circular | Mode::Mirror | Mode::Clamped => Mode::Safe,
            m => m,
        }
    }

    /// Whether an access outside is an error rather than a zero or a dropped write.
    #[inline(always)]
    pub fn is_checked(self) -> bool {
        matches!(self, Mode::Checked | Mode::Unchecked)
    }
}

/// Index `i` along a dimension of extent `n` under `mode`: the element to access, or `None`
/// when the access is outside (only for `Safe`, `Checked`, `Unchecked`, and for `n == 0`).
#[inline(always)]
pub fn map_index(i: i64, n: usize, mode: Mode) -> Option<usize> {
    // Inside: no division (the common case in a stencil's interior).
    if (i as u64) < n as u64 {
        return Some(i as usize);
    }
    if n == 0 {
        return None;
    }
    // Extents come from array shapes, so n <= isize::MAX.
    let n = n as i64;
    match mode {
        Mode::Circular => Some(i.rem_euclid(n) as usize),
        Mode::Clamped => Some(if i < 0 { 0 } else { (n - 1) as usize }),
        Mode::Mirror => Some(mirror(i, n) as usize),
        Mode::Safe | Mode::Checked | Mode::Unchecked => None,
    }
}

/// Mirror with the edge repeated, `n >= 1`: period `2n`, computed without forming `2n`
/// (no overflow). Odd periods of `n` are reflected.
#[inline(always)]
fn mirror(i: i64, n: i64) -> i64 {
    let q = i.div_euclid(n);
    let r = i.rem_euclid(n);
    if q & 1 == 0 {
        r
    } else {
        n - 1 - r
    }
}

/// `periodize(x, N)`: `x` wrapped into `[0, N)` (`mod(x, N)`; for `N <= 0` it is
/// `mod(x, N)` with its MATLAB semantics: the sign of `N`, `mod(x, 0) = x`).
#[inline(always)]
pub fn periodize(i: i64, n: i64) -> i64 {
    crate::builtins::num::Real::modulo(i, n)
}

/// `clamp_ext(x, N)`: `x` clamped into `[0, N-1]` (the `'clamped` access mode of kernels; the
/// caller checks `N > 0`).
#[inline(always)]
pub fn clamp_ext(i: i64, n: i64) -> i64 {
    if i < 0 {
        0
    } else if i >= n {
        n - 1
    } else {
        i
    }
}

/// `mirror_ext(x, N)`: `x` mirrored into `[0, N-1]`, the edge element repeated
/// (`-1 -> 0`, `N -> N-1`; see the module documentation). `N <= 0` leaves `x` unchanged.
#[inline(always)]
pub fn mirror_ext(i: i64, n: i64) -> i64 {
    if n <= 0 {
        i
    } else {
        mirror(i, n)
    }
}

/// A kernel's read of element `i` of view `v` (extents `n`, strides `s`, row-major, the last
/// stride 1) in access mode `mode`: `Safe` gives zero outside; `Clamped`, `Circular` and
/// `Mirror` map each index inside (zero for an empty array). Other modes read as `Safe` (the
/// generator handles them itself, with their errors).
#[inline(always)]
pub fn view_get<T: Element, const R: usize>(
    v: &KernelView<'_, T>,
    mode: Mode,
    (n, s): ([i64; R], [usize; R]),
    i: [i64; R],
) -> T {
    let (ok, off) = view_offset(mode, n, s, i);
    // SAFETY: `ok` holds only when every mapped index lies in `0..n[d]`, the view's extents,
    // so `off` is below its element count (`quasar_runtime::unchecked`, case 1).
    unsafe { quasar_runtime::unchecked::read_if(v, ok, off) }
}

/// A kernel's `'safe` write of `x` to element `i` of view `v` (as [`view_get`]): nothing
/// outside.
#[inline(always)]
pub fn view_set<T: Element, const R: usize>(
    v: &KernelView<'_, T>,
    (n, s): ([i64; R], [usize; R]),
    i: [i64; R],
    x: T,
) {
    let (ok, off) = view_offset(Mode::Safe, n, s, i);
    // SAFETY: as for `view_get`.
    unsafe { quasar_runtime::unchecked::write_if(v, ok, off, x) }
}

/// A kernel's `'checked` read of element `i` of view `v` (as [`view_get`]): an index outside
/// is the error [`index_error_at`] for the access at `site` (array name, file, line, column).
#[inline(always)]
pub fn view_read<T: Element, const R: usize>(
    v: &KernelView<'_, T>,
    (n, s): ([i64; R], [usize; R]),
    i: [i64; R],
    site: (&str, &str, u32, u32),
) -> Result<T> {
    match view_offset(Mode::Checked, n, s, i) {
        // SAFETY: every index lies in `0..n[d]`, the view's extents, so `off` is below its
        // element count (`quasar_runtime::unchecked`, case 1).
        (true, off) => Ok(unsafe { quasar_runtime::unchecked::read(v, off) }),
        (false, _) => Err(site_error(v, &i, site)),
    }
}

/// A kernel's `'checked` write of `x` to element `i` of view `v` (as [`view_read`]).
#[inline(always)]
pub fn view_write<T: Element, const R: usize>(
    v: &KernelView<'_, T>,
    (n, s): ([i64; R], [usize; R]),
    i: [i64; R],
    x: T,
    site: (&str, &str, u32, u32),
) -> Result<()> {
    match view_offset(Mode::Checked, n, s, i) {
        // SAFETY: as for `view_read`.
        (true, off) => {
            unsafe { quasar_runtime::unchecked::write(v, off, x) };
            Ok(())
        }
        (false, _) => Err(site_error(v, &i, site)),
    }
}

#[cold]
fn site_error<T: Element>(
    v: &KernelView<'_, T>,
    i: &[i64],
    (name, file, line, col): (&str, &str, u32, u32),
) -> Error {
    index_error_at(name, i, v.shape().dims(), (file, line, col))
}

/// Whether index `i` is inside after `mode`'s mapping, and its offset (wrapping when outside).
#[inline(always)]
fn view_offset<const R: usize>(
    mode: Mode,
    n: [i64; R],
    s: [usize; R],
    i: [i64; R],
) -> (bool, usize) {
    let (mut ok, mut off) = (true, 0usize);
    for d in 0..R {
        let stride = if d + 1 == R { 1 } else { s[d] };
        let (inside, k) = match mode {
            Mode::Clamped => (n[d] > 0, clamp_ext(i[d], n[d])),
            Mode::Circular => (n[d] > 0, i[d].rem_euclid(n[d].max(1))),
            Mode::Mirror => (n[d] > 0, mirror_ext(i[d], n[d].max(1))),
            _ => (i[d] >= 0 && i[d] < n[d], i[d]),
        };
        ok &= inside;
        off = off.wrapping_add((k as usize).wrapping_mul(stride));
    }
    (ok, off)
}

/// The row-major offset of `idx` in an array of shape `shape`, each index mapped per
/// dimension with [`map_index`]. `idx` may have as many entries as dimensions; more (the
/// extra dimensions have extent 1); or fewer, where the last index is linear over the
/// remaining dimensions (so one index into a matrix is a linear index). No index: the
/// offset 0 of a one-element array. `None` when the access is outside.
#[inline]
pub fn elem_offset(shape: &[usize], idx: &[i64], mode: Mode) -> Option<usize> {
    if let ([n], 2..) = (shape, idx.len()) {
        // A vector indexed as a matrix is a row: `v[0, j]` (ARCHITECTURE §5).
        return elem_offset(&[1, *n], idx, mode);
    }
    let Some((&last, lead)) = idx.split_last() else {
        return if shape.iter().product::<usize>() == 1 { Some(0) } else { None };
    };
    let mut off = 0usize;
    for (k, &i) in lead.iter().enumerate() {
        let n = shape.get(k).copied().unwrap_or(1);
        off = off * n + map_index(i, n, mode)?;
    }
    let rest: usize = shape.iter().skip(lead.len()).product();
    Some(off * rest + map_index(last, rest, mode)?)
}

/// `Error::IndexOutOfRange` for the array `name`.
pub fn index_error(name: &str, idx: &[i64], shape: &[usize]) -> Error {
    Error::IndexOutOfRange {
        array: name.to_string(),
        index: idx.to_vec(),
        shape: shape.to_vec(),
        location: None,
    }
}

/// `Error::IndexOutOfRange` for the array `name`, accessed at `file:line:col` of the Quasar
/// source (kernels' accesses: the GPU reports the same location from its site table).
#[cold]
pub fn index_error_at(
    name: &str,
    idx: &[i64],
    shape: &[usize],
    (file, line, col): (&str, u32, u32),
) -> Error {
    let location = Some(quasar_runtime::SourceLocation::new(file, line, col));
    Error::IndexOutOfRange {
        array: name.to_string(),
        index: idx.to_vec(),
        shape: shape.to_vec(),
        location,
    }
}

/// Reads `a[idx]` under `mode` (host code): outside is 0 for `Safe`, an error naming `name`
/// for `Checked`/`Unchecked`, mapped for the others.
pub fn get_elem<T: Element>(a: &Array<T>, name: &str, idx: &[i64], mode: Mode) -> Result<T> {
    match elem_offset(a.shape(), idx, mode) {
        Some(off) => Ok(a.host_view()?[off]),
        None if mode.is_checked() => Err(index_error(name, idx, a.shape())),
        None => Ok(zero()),
    }
}

/// Writes `a[idx] = v` under `mode.for_write()`: outside is dropped (`Safe`, `Circular`,
/// `Mirror`, `Clamped`) or an error naming `name` (`Checked`, `Unchecked`).
pub fn set_elem<T: Element>(a: &Array<T>, name: &str, idx: &[i64], v: T, mode: Mode) -> Result<()> {
    let mode = mode.for_write();
    match elem_offset(a.shape(), idx, mode) {
        Some(off) => {
            a.host_view_mut()?[off] = v;
            Ok(())
        }
        None if mode.is_checked() => Err(index_error(name, idx, a.shape())),
        None => Ok(()),
    }
}

/// The zero of an element type (what `'safe` reads outside an array).
#[inline(always)]
pub(crate) fn zero<T: Element>() -> T {
    // SAFETY: `Element` requires the all-zero bit pattern to be a valid value (arrays are
    // created zero-filled).
    unsafe { std::mem::zeroed() }
}
