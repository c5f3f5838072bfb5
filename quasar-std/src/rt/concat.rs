//! Matrix literals with array parts: `[...a, 4, ...b]` (concatenation, [`cat`]) and
//! `[[1, 2], [3, 4]]` built from row arrays ([`stack_rows`]).

use quasar_runtime::{Array, Element, Error, Result, MAX_DIMS};

/// One part of a concatenation: a number (a one-element array) or an array.
#[derive(Debug)]
pub enum Part<'a, T: Element> {
    /// A number.
    Value(T),
    /// An array.
    Array(&'a Array<T>),
}

impl<T: Element> Clone for Part<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T: Element> Copy for Part<'_, T> {}

fn mismatch(left: &[usize], right: &[usize]) -> Error {
    Error::ShapeMismatch {
        operation: "matrix literal".into(),
        left: left.to_vec(),
        right: right.to_vec(),
    }
}

/// `shape` padded with trailing singleton dimensions to `rank`.
fn padded(shape: &[usize], rank: usize) -> Vec<usize> {
    let mut s = shape.to_vec();
    s.resize(rank.max(s.len()), 1);
    s
}

/// The parts concatenated along dimension `dim` (0 = rows, 1 = columns, …). A number acts
/// as an array with every extent 1; all other dimensions must agree (missing trailing
/// dimensions count as 1), else `Error::ShapeMismatch` naming "matrix literal". Empty arrays
/// are skipped (so `x = []; x = [...x, 1]` works), as in MATLAB.
pub fn cat<T: Element>(dim: usize, parts: &[Part<'_, T>]) -> Result<Array<T>> {
    if dim >= MAX_DIMS {
        return Err(Error::InvalidShape {
            shape: vec![],
            reason: format!("matrix literal: dimension {dim}, at most {}", MAX_DIMS - 1),
        });
    }
    let shape_of = |p: &Part<'_, T>| match p {
        Part::Value(_) => Vec::new(),
        Part::Array(a) => a.shape().to_vec(),
    };
    let kept: Vec<&Part<'_, T>> = parts
        .iter()
        .filter(|p| match p {
            Part::Value(_) => true,
            Part::Array(a) => a.numel() > 0,
        })
        .collect();
    if kept.is_empty() {
        // Only empty parts: the first one's shape (or an empty vector).
        return Array::zeros(&parts.first().map_or_else(|| vec![0], shape_of));
    }
    let rank = kept.iter().map(|p| shape_of(p).len()).max().unwrap_or(0).max(dim + 1);
    let first = padded(&shape_of(kept[0]), rank);
    let mut out_shape = first.clone();
    out_shape[dim] = 0;
    for p in &kept {
        let s = padded(&shape_of(p), rank);
        if (0..rank).any(|d| d != dim && s[d] != first[d]) {
            return Err(mismatch(&first, &s));
        }
        out_shape[dim] += s[dim];
    }
    // Row-major: each part is `outer` blocks of `s[dim] * inner` contiguous elements, and the
    // result interleaves those blocks part after part.
    let outer: usize = first[..dim].iter().product();
    let mut data = quasar_runtime::host_vec(quasar_runtime::Shape::new(&out_shape)?.numel())?;
    let views = kept
        .iter()
        .map(|p| match p {
            Part::Value(v) => Ok(Chunk::Value(*v)),
            Part::Array(a) => Ok(Chunk::View(a.host_view()?)),
        })
        .collect::<Result<Vec<_>>>()?;
    for o in 0..outer {
        for v in &views {
            match v {
                Chunk::Value(x) => data.push(*x),
                Chunk::View(s) => {
                    let block = s.len() / outer;
                    data.extend_from_slice(&s[o * block..(o + 1) * block]);
                }
            }
        }
    }
    Array::from_vec(&out_shape, data)
}

enum Chunk<'a, T: Element> {
    Value(T),
    View(quasar_runtime::HostView<'a, T>),
}

/// `[[1, 2], [3, 4]]` from row arrays: the rows (of equal shape, up to trailing singleton
/// dimensions) stacked along a new leading dimension. No rows give an empty vector.
pub fn stack_rows<T: Element>(rows: &[Array<T>]) -> Result<Array<T>> {
    let Some(first) = rows.first() else {
        return Array::zeros(&[0]);
    };
    let trim = |d: &[usize]| d.len() - d.iter().rev().take_while(|&&x| x == 1).count();
    let f = first.shape();
    for r in rows {
        let s = r.shape();
        if f[..trim(f)] != s[..trim(s)] {
            return Err(mismatch(f, s));
        }
    }
    let mut shape = vec![rows.len()];
    shape.extend_from_slice(f);
    let n = quasar_runtime::Shape::new(&shape)?.numel();
    let mut data = quasar_runtime::host_vec(n)?;
    for r in rows {
        data.extend_from_slice(&r.host_view()?);
    }
    Array::from_vec(&shape, data)
}
