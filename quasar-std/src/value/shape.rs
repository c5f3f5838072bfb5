//! The shape of a dynamic value (`size`, `ndims` on `??`) and slices of cell arrays
//! (`c[a..b]`, `c[:]`).

use super::{lock, AnyArray, CellData, VResult, Value};
use std::sync::{Arc, Mutex};

impl Value {
    /// The dimensions: those of an array or cell array, `[n]` for a string of `n`
    /// characters, `[0]` for no value, `[1]` for a number or an object.
    pub fn shape(&self) -> Vec<usize> {
        match self {
            Value::Cell(c) => lock(c).shape.clone(),
            Value::Array(a) => any_array!(a, x => x.shape().to_vec()),
            Value::Str(s) => vec![s.chars().count()],
            Value::Null => vec![0],
            _ => vec![1],
        }
    }

    /// `size(x, d)`: dimension `d`, 1 past the value's rank.
    pub fn size_dim(&self, d: i64) -> VResult<usize> {
        let d = usize::try_from(d).map_err(|_| format!("`size` of dimension {d} (negative)"))?;
        Ok(self.shape().get(d).copied().unwrap_or(1))
    }

    /// `size(x)` as `int`s.
    pub fn size_i32(&self) -> Vec<i32> {
        self.shape().iter().map(|&d| d as i32).collect()
    }

    /// `ndims(x)`.
    pub fn ndims(&self) -> usize {
        self.shape().len()
    }

    /// `c[start..step..end]` of a cell array (a linear range of its elements): a new cell
    /// vector holding the same values. `None` for `c[:]`.
    pub fn slice(&self, range: Option<(i64, i64, i64)>) -> VResult<Value> {
        let Value::Cell(c) = self else {
            return Err(format!(
                "slicing {} held in a `??` value: slices of dynamic values are taken of cell \
                 arrays only; give the value its array type",
                self.type_name()
            ));
        };
        let c = lock(c);
        let n = c.items.len() as i64;
        let (start, step, end) = range.unwrap_or((0, 1, n - 1));
        if step == 0 {
            return Err("a cell slice with step 0".into());
        }
        let mut items = Vec::new();
        let mut k = start;
        while (step > 0 && k <= end) || (step < 0 && k >= end) {
            if k < 0 || k >= n {
                return Err(format!(
                    "index {k} of the slice {start}..{step}..{end} is out of range for a cell \
                     array of {n} elements"
                ));
            }
            items.push(c.items[k as usize].clone());
            k += step;
        }
        let shape = vec![items.len()];
        Ok(Value::Cell(Arc::new(Mutex::new(CellData { shape, items }))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_of_dynamic_values() {
        let c = Value::cell(&[2, 3]).unwrap();
        assert_eq!(c.shape(), [2, 3]);
        assert_eq!(c.size_dim(1).unwrap(), 3);
        assert_eq!(c.size_dim(4).unwrap(), 1);
        assert_eq!(c.ndims(), 2);
        assert_eq!(Value::Str("abc".into()).shape(), [3]);
        assert_eq!(Value::Int(4).size_i32(), [1]);
        assert_eq!(Value::Null.shape(), [0]);
        assert!(c.size_dim(-1).unwrap_err().contains("negative"));
    }

    #[test]
    fn cell_slices_copy_the_elements_in_range() {
        let c = Value::cell_of(vec![Value::Int(1), Value::Str("a".into()), Value::Scalar(2.5)]);
        let s = c.slice(Some((1, 1, 2))).unwrap();
        assert_eq!(s.numel(), 2);
        assert!(matches!(s.index(&[0]).unwrap(), Value::Str(t) if t == "a"));
        let r = c.slice(Some((2, -2, 0))).unwrap();
        assert!(matches!(r.index(&[1]).unwrap(), Value::Int(1)));
        assert_eq!(c.slice(None).unwrap().numel(), 3);
        assert!(c.slice(Some((1, 1, 5))).unwrap_err().contains("out of range"));
        assert!(Value::Int(3).slice(None).unwrap_err().contains("cell arrays only"));
    }
}
