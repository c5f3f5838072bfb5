//! [`Value`]: a Quasar value whose type is known only at run time (`??`), as generated code
//! holds it: numbers, strings, arrays, cell arrays (`cell(n)`, `{…}`, `vec[mat]`) and dynamic
//! objects (`object()`, `dynamic class`). Cells and objects are shared by reference, as arrays
//! are. Every operation checks the types it meets and says what it expected; generated code
//! adds the Quasar location to the message.

use quasar_runtime::Complex;
use quasar_runtime::{Array, Element};
use std::sync::{Arc, Mutex, MutexGuard};

/// What failed in an operation on dynamic values (generated code adds the location).
pub type VResult<T> = std::result::Result<T, String>;

/// A value of type `??`.
#[derive(Clone, Default)]
pub enum Value {
    /// No value: an element of `cell(n)` that was not assigned yet.
    #[default]
    Null,
    /// An `int` (of any width).
    Int(i64),
    /// A `scalar` (single or double precision).
    Scalar(f64),
    /// A `cscalar`.
    Complex(Complex<f64>),
    /// A `string`.
    Str(String),
    /// An array of numbers.
    Array(AnyArray),
    /// A cell array: its shape and elements, row-major, shared.
    Cell(Arc<Mutex<CellData>>),
    /// A dynamic object: named fields added at run time, shared.
    Object(Arc<Mutex<Vec<(String, Value)>>>),
    /// A function value (a lambda, closure or `@f`) as an element of a cell array or a `??`.
    Func(FnValue),
}

/// A function value held in a [`Value`]: the generated module's value of its function type
/// (an enum per function type, see the compiler's `backend/rust/fnval.rs`) and that type's
/// Quasar name. Reading it back as a function type checks that it is one of that type.
#[derive(Clone)]
pub struct FnValue {
    value: Arc<dyn std::any::Any + Send + Sync>,
    ty: &'static str,
}

impl Value {
    /// A function value of the function type named `ty` (`[scalar -> scalar]`).
    pub fn func<F: std::any::Any + Send + Sync>(f: F, ty: &'static str) -> Value {
        Value::Func(FnValue { value: Arc::new(f), ty })
    }

    /// The function value held here, as the generated type `F` of the function type named
    /// `ty`; an error naming both types when it holds another value.
    pub fn to_func<F: std::any::Any + Clone>(&self, ty: &str) -> VResult<F> {
        match self {
            Value::Func(f) => f.value.downcast_ref::<F>().cloned().ok_or_else(|| {
                format!("expected a function value of type {ty}, found one of type {}", f.ty)
            }),
            v => Err(format!("expected a function value of type {ty}, found {}", v.type_name())),
        }
    }
}

/// The elements of a cell array.
pub struct CellData {
    /// The dimensions, row-major.
    pub shape: Vec<usize>,
    /// The elements in row-major order.
    pub items: Vec<Value>,
}

/// An array of numbers held in a [`Value`].
#[derive(Clone)]
pub enum AnyArray {
    /// `scalar` (single precision).
    F32(Array<f32>),
    /// `scalar'double`.
    F64(Array<f64>),
    /// `int`.
    I32(Array<i32>),
    /// `uint8`.
    U8(Array<u8>),
    /// `cscalar` (single precision).
    C32(Array<Complex<f32>>),
    /// `cscalar` (double precision).
    C64(Array<Complex<f64>>),
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Value {
    /// `object()`: an empty dynamic object.
    pub fn object() -> Value {
        Value::Object(Arc::new(Mutex::new(Vec::new())))
    }

    /// `cell(m, n, …)`: a cell array of this shape with no values yet.
    pub fn cell(shape: &[usize]) -> VResult<Value> {
        let n = shape.iter().try_fold(1usize, |n, d| n.checked_mul(*d));
        let n = n.ok_or_else(|| format!("a cell array of shape {shape:?} is too large"))?;
        let items = vec![Value::Null; n];
        Ok(Value::Cell(Arc::new(Mutex::new(CellData { shape: shape.to_vec(), items }))))
    }

    /// `{a, b, c}`: a cell vector of these values.
    pub fn cell_of(items: Vec<Value>) -> Value {
        let shape = vec![1, items.len()];
        Value::Cell(Arc::new(Mutex::new(CellData { shape, items })))
    }

    /// A cell vector (shape `[n]`, as `vec[string]` and `cell(n)` are) of these values.
    pub fn cell_vector(items: Vec<Value>) -> Value {
        let shape = vec![items.len()];
        Value::Cell(Arc::new(Mutex::new(CellData { shape, items })))
    }

    /// `type(x)`: the value's Quasar type (`scalar`, `int`, `cscalar`, `string`, `vec`,
    /// `mat[int]`, `cube{4}`, …; `vec[??]`, `mat[??]`… for a cell array, `object`, and `??`
    /// before a value is assigned).
    pub fn quasar_type(&self) -> String {
        match self {
            Value::Null => "??".into(),
            Value::Cell(c) => match lock(c).shape.len() {
                1 => "vec[??]".into(),
                2 => "mat[??]".into(),
                3 => "cube[??]".into(),
                r => format!("cube{{{r}}}[??]"),
            },
            // As the compiler prints types: `ivec`, `cmat`, `cube{4}`, `mat[uint8]`.
            Value::Array(a) => {
                let rank = a.rank();
                let base = match rank {
                    1 => "vec".to_string(),
                    2 => "mat".to_string(),
                    3 => "cube".to_string(),
                    r => format!("cube{{{r}}}"),
                };
                match a.elem_name() {
                    "scalar" => base,
                    "int" => format!("i{base}"),
                    "cscalar" => format!("c{base}"),
                    e => format!("{base}[{e}]"),
                }
            }
            v => v.type_name(),
        }
    }

    /// The Quasar name of the value's type, for messages.
    pub fn type_name(&self) -> String {
        match self {
            Value::Null => "no value".into(),
            Value::Int(_) => "int".into(),
            Value::Scalar(_) => "scalar".into(),
            Value::Complex(_) => "cscalar".into(),
            Value::Str(_) => "string".into(),
            Value::Array(a) => {
                let (rank, elem) = (a.rank(), a.elem_name());
                let base = match rank {
                    1 => "vec".to_string(),
                    2 => "mat".to_string(),
                    3 => "cube".to_string(),
                    r => format!("cube{{{r}}}"),
                };
                if elem == "scalar" {
                    base
                } else {
                    format!("{base}[{elem}]")
                }
            }
            Value::Cell(_) => "a cell array".into(),
            Value::Object(_) => "object".into(),
            Value::Func(f) => f.ty.into(),
        }
    }

    /// The field `name` of an object.
    pub fn field(&self, name: &str) -> VResult<Value> {
        match self {
            Value::Object(o) => {
                let o = lock(o);
                o.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone()).ok_or_else(|| {
                    let names: Vec<&str> = o.iter().map(|(n, _)| n.as_str()).collect();
                    format!(
                        "the object has no field `{name}` (its fields: {})",
                        if names.is_empty() { "none".into() } else { names.join(", ") }
                    )
                })
            }
            v => Err(format!("`.{name}`: {} has no fields (only objects do)", v.type_name())),
        }
    }

    /// Sets (or adds) the field `name` of an object.
    pub fn set_field(&self, name: &str, value: Value) -> VResult<()> {
        match self {
            Value::Object(o) => {
                let mut o = lock(o);
                match o.iter_mut().find(|(n, _)| n == name) {
                    Some(slot) => slot.1 = value,
                    None => o.push((name.to_string(), value)),
                }
                Ok(())
            }
            v => Err(format!("`.{name} = …`: {} has no fields (only objects do)", v.type_name())),
        }
    }

    /// The number of elements (1 for a number or an object).
    pub fn numel(&self) -> usize {
        match self {
            Value::Cell(c) => lock(c).items.len(),
            Value::Array(a) => a.numel(),
            Value::Str(s) => s.chars().count(),
            Value::Null => 0,
            _ => 1,
        }
    }

    /// The element of a cell array or array at `index` (one subscript per dimension, or one
    /// linear subscript).
    pub fn index(&self, index: &[i64]) -> VResult<Value> {
        match self {
            Value::Cell(c) => {
                let c = lock(c);
                let k = linear(&c.shape, index)?;
                Ok(c.items[k].clone())
            }
            Value::Array(a) => a.get(index),
            v => Err(format!("{} cannot be indexed", v.type_name())),
        }
    }

    /// Stores `value` at `index` of a cell array.
    pub fn set_index(&self, index: &[i64], value: Value) -> VResult<()> {
        match self {
            Value::Cell(c) => {
                let mut c = lock(c);
                let k = linear(&c.shape, index)?;
                c.items[k] = value;
                Ok(())
            }
            // An element of an array held as `??` (`A[0,1][1][0,0] = 2`, manual §2.1).
            Value::Array(a) => a.set(index, &value),
            v => Err(format!(
                "storing into {} with `[…] =` is possible in cell arrays and arrays only; give the value a type",
                v.type_name()
            )),
        }
    }

    /// `copy(x)`: a deep copy (manual §2.1: the elements of a cell array are copied in turn,
    /// arrays element by element); numbers, strings and function values are values already.
    pub fn deep_copy(&self) -> VResult<Value> {
        let e = |r: quasar_runtime::Error| r.to_string();
        Ok(match self {
            Value::Array(a) => Value::Array(match a {
                AnyArray::F32(x) => AnyArray::F32(x.copy().map_err(e)?),
                AnyArray::F64(x) => AnyArray::F64(x.copy().map_err(e)?),
                AnyArray::I32(x) => AnyArray::I32(x.copy().map_err(e)?),
                AnyArray::U8(x) => AnyArray::U8(x.copy().map_err(e)?),
                AnyArray::C32(x) => AnyArray::C32(x.copy().map_err(e)?),
                AnyArray::C64(x) => AnyArray::C64(x.copy().map_err(e)?),
            }),
            Value::Cell(c) => {
                let c = lock(c);
                let items = c.items.iter().map(Value::deep_copy).collect::<VResult<Vec<_>>>()?;
                let shape = c.shape.clone();
                Value::Cell(Arc::new(Mutex::new(CellData { shape, items })))
            }
            Value::Object(o) => {
                let o = lock(o);
                let fields = o
                    .iter()
                    .map(|(n, v)| Ok((n.clone(), v.deep_copy()?)))
                    .collect::<VResult<Vec<_>>>()?;
                Value::Object(Arc::new(Mutex::new(fields)))
            }
            v => v.clone(),
        })
    }

    /// The value as a condition: a number is true when non-zero.
    pub fn truthy(&self) -> VResult<bool> {
        match self {
            Value::Int(i) => Ok(*i != 0),
            Value::Scalar(x) => Ok(*x != 0.0),
            Value::Complex(z) => Ok(z.re != 0.0 || z.im != 0.0),
            v => Err(format!("{} is not a condition (a number is)", v.type_name())),
        }
    }
}

/// The row-major position of `index` in an array of `shape` (one subscript per dimension,
/// or one linear subscript).
fn linear(shape: &[usize], index: &[i64]) -> VResult<usize> {
    let n: usize = shape.iter().product();
    let out = || format!("index {index:?} is out of range for a cell array of shape {shape:?}");
    if index.len() == 1 {
        let i = usize::try_from(index[0]).map_err(|_| out())?;
        return if i < n { Ok(i) } else { Err(out()) };
    }
    if index.len() != shape.len() {
        return Err(out());
    }
    let mut k = 0usize;
    for (i, d) in index.iter().zip(shape) {
        let i = usize::try_from(*i).map_err(|_| out())?;
        if i >= *d {
            return Err(out());
        }
        k = k * d + i;
    }
    Ok(k)
}

macro_rules! any_array {
    ($a:expr, $x:ident => $e:expr) => {
        match $a {
            AnyArray::F32($x) => $e,
            AnyArray::F64($x) => $e,
            AnyArray::I32($x) => $e,
            AnyArray::U8($x) => $e,
            AnyArray::C32($x) => $e,
            AnyArray::C64($x) => $e,
        }
    };
}

impl AnyArray {
    pub(crate) fn rank(&self) -> usize {
        any_array!(self, a => a.shape().len())
    }

    fn numel(&self) -> usize {
        any_array!(self, a => a.shape().iter().product())
    }

    fn elem_name(&self) -> &'static str {
        match self {
            AnyArray::F32(_) | AnyArray::F64(_) => "scalar",
            AnyArray::I32(_) => "int",
            AnyArray::U8(_) => "uint8",
            AnyArray::C32(_) | AnyArray::C64(_) => "cscalar",
        }
    }

    fn get(&self, index: &[i64]) -> VResult<Value> {
        let shape = any_array!(self, a => a.shape().to_vec());
        let k = linear(&shape, index)?;
        let flat = [k];
        let mut at = vec![0usize; shape.len()];
        let mut rest = flat[0];
        for (slot, d) in at.iter_mut().zip(&shape).rev() {
            *slot = rest % d;
            rest /= d;
        }
        let e = |r: quasar_runtime::Error| r.to_string();
        Ok(match self {
            AnyArray::F32(a) => Value::Scalar(a.get(&at).map_err(e)? as f64),
            AnyArray::F64(a) => Value::Scalar(a.get(&at).map_err(e)?),
            AnyArray::I32(a) => Value::Int(a.get(&at).map_err(e)? as i64),
            AnyArray::U8(a) => Value::Int(a.get(&at).map_err(e)? as i64),
            AnyArray::C32(a) => {
                let z = a.get(&at).map_err(e)?;
                Value::Complex(Complex::new(z.re as f64, z.im as f64))
            }
            AnyArray::C64(a) => Value::Complex(a.get(&at).map_err(e)?),
        })
    }

    /// Stores number `v` at `index` (one subscript per dimension, or one linear subscript),
    /// converted to the element type.
    fn set(&self, index: &[i64], v: &Value) -> VResult<()> {
        let shape = any_array!(self, a => a.shape().to_vec());
        let k = linear(&shape, index)?;
        let e = |r: quasar_runtime::Error| r.to_string();
        match self {
            AnyArray::F32(a) => a.set(&[k], f32::from_value(v)?).map_err(e),
            AnyArray::F64(a) => a.set(&[k], f64::from_value(v)?).map_err(e),
            AnyArray::I32(a) => a.set(&[k], i32::from_value(v)?).map_err(e),
            AnyArray::U8(a) => a.set(&[k], u8::from_value(v)?).map_err(e),
            AnyArray::C32(a) => a.set(&[k], Complex::<f32>::from_value(v)?).map_err(e),
            AnyArray::C64(a) => a.set(&[k], Complex::<f64>::from_value(v)?).map_err(e),
        }
    }

    /// The elements as `f64`s with the shape, for arithmetic (complex arrays are not).
    fn to_f64(&self) -> VResult<(Vec<usize>, Vec<f64>)> {
        let e = |r: quasar_runtime::Error| r.to_string();
        Ok(match self {
            AnyArray::F32(a) => {
                (a.shape().to_vec(), a.to_vec().map_err(e)?.iter().map(|x| *x as f64).collect())
            }
            AnyArray::F64(a) => (a.shape().to_vec(), a.to_vec().map_err(e)?),
            AnyArray::I32(a) => {
                (a.shape().to_vec(), a.to_vec().map_err(e)?.iter().map(|x| *x as f64).collect())
            }
            AnyArray::U8(a) => {
                (a.shape().to_vec(), a.to_vec().map_err(e)?.iter().map(|x| *x as f64).collect())
            }
            AnyArray::C32(_) | AnyArray::C64(_) => {
                return Err(
                    "arithmetic on complex arrays of type `??`: give the array a type".into()
                )
            }
        })
    }
}

/// Conversion of a typed value into a [`Value`] (generated code, where a typed value meets `??`).
pub trait IntoValue {
    /// The value as a `??` value.
    fn into_value(self) -> Value;
}

/// Conversion of a [`Value`] into a typed one, checked at run time.
pub trait FromValue: Sized {
    /// The value as `Self`, or a message that says what was expected and found.
    fn from_value(v: &Value) -> VResult<Self>;
}

impl IntoValue for Value {
    fn into_value(self) -> Value {
        self
    }
}

impl FromValue for Value {
    fn from_value(v: &Value) -> VResult<Value> {
        Ok(v.clone())
    }
}

fn mismatch(expected: &str, v: &Value) -> String {
    format!("expected a value of type {expected}, found {}", v.type_name())
}

macro_rules! int_value {
    ($($t:ty),*) => { $(
        impl IntoValue for $t {
            fn into_value(self) -> Value { Value::Int(self as i64) }
        }
        impl FromValue for $t {
            fn from_value(v: &Value) -> VResult<$t> {
                match v {
                    Value::Int(i) => <$t>::try_from(*i)
                        .map_err(|_| format!("{i} does not fit {}", stringify!($t))),
                    v => Err(mismatch("int", v)),
                }
            }
        }
    )* };
}
int_value!(i8, i16, i32, i64, u8, u16, u32, u64);

macro_rules! float_value {
    ($($t:ty),*) => { $(
        impl IntoValue for $t {
            fn into_value(self) -> Value { Value::Scalar(self as f64) }
        }
        impl FromValue for $t {
            fn from_value(v: &Value) -> VResult<$t> {
                match v {
                    Value::Int(i) => Ok(*i as $t),
                    Value::Scalar(x) => Ok(*x as $t),
                    v => Err(mismatch("scalar", v)),
                }
            }
        }
    )* };
}
float_value!(f32, f64);

macro_rules! complex_value {
    ($($t:ty),*) => { $(
        impl IntoValue for Complex<$t> {
            fn into_value(self) -> Value { Value::Complex(Complex::new(self.re as f64, self.im as f64)) }
        }
        impl FromValue for Complex<$t> {
            fn from_value(v: &Value) -> VResult<Complex<$t>> {
                match v {
                    Value::Int(i) => Ok(Complex::new(*i as $t, 0.0)),
                    Value::Scalar(x) => Ok(Complex::new(*x as $t, 0.0)),
                    Value::Complex(z) => Ok(Complex::new(z.re as $t, z.im as $t)),
                    v => Err(mismatch("cscalar", v)),
                }
            }
        }
    )* };
}
complex_value!(f32, f64);

impl IntoValue for String {
    fn into_value(self) -> Value {
        Value::Str(self)
    }
}

impl FromValue for String {
    fn from_value(v: &Value) -> VResult<String> {
        match v {
            Value::Str(s) => Ok(s.clone()),
            v => Err(mismatch("string", v)),
        }
    }
}

macro_rules! array_value {
    ($($t:ty => $k:ident),*) => { $(
        impl IntoValue for Array<$t> {
            fn into_value(self) -> Value { Value::Array(AnyArray::$k(self)) }
        }
        impl FromValue for Array<$t> {
            fn from_value(v: &Value) -> VResult<Array<$t>> {
                match v {
                    Value::Array(AnyArray::$k(a)) => Ok(a.clone()),
                    v => Err(mismatch(&format!("an array of {}", elem_name::<$t>()), v)),
                }
            }
        }
    )* };
}
array_value!(f32 => F32, f64 => F64, i32 => I32, u8 => U8, Complex<f32> => C32, Complex<f64> => C64);

fn elem_name<T: Element>() -> &'static str {
    match std::any::type_name::<T>() {
        "f32" | "f64" => "scalar",
        "i32" => "int",
        "u8" => "uint8",
        _ => "cscalar",
    }
}

/// A binary operator of Quasar on dynamic values (`op` as written: `+`, `.*`, `==`, …).
pub fn binary(op: &str, a: &Value, b: &Value) -> VResult<Value> {
    use Value::*;
    let bad = || {
        format!("the operator `{op}` cannot be applied to {} and {}", a.type_name(), b.type_name())
    };
    match (a, b) {
        (Str(x), Str(y)) => match op {
            "+" => Ok(Str(format!("{x}{y}"))),
            "==" => Ok(Int((x == y) as i64)),
            "!=" => Ok(Int((x != y) as i64)),
            _ => Err(bad()),
        },
        (Int(x), Int(y)) if matches!(op, "+" | "-" | "*" | ".*") => Ok(Int(match op {
            "+" => x.wrapping_add(*y),
            "-" => x.wrapping_sub(*y),
            _ => x.wrapping_mul(*y),
        })),
        (Int(_) | Scalar(_), Int(_) | Scalar(_)) => {
            let (x, y) = (as_f64(a), as_f64(b));
            let both_int = matches!((a, b), (Int(_), Int(_)));
            real_op(op, x, y, both_int).ok_or_else(bad)
        }
        (Int(_) | Scalar(_) | Complex(_), Int(_) | Scalar(_) | Complex(_)) => {
            let (x, y) = (as_complex(a), as_complex(b));
            Ok(match op {
                "+" => Complex(x + y),
                "-" => Complex(x - y),
                "*" | ".*" => Complex(x * y),
                "/" | "./" => Complex(x / y),
                "^" | ".^" => Complex(x.powc(y)),
                "==" => Int((x == y) as i64),
                "!=" => Int((x != y) as i64),
                _ => return Err(bad()),
            })
        }
        // Cell arrays of one structure, element by element; a cell and a number, each
        // element with the number (manual §2.1: `C = B + A`, `C = B * 4`).
        (Cell(_), _) | (_, Cell(_)) => cell_op(op, a, b),
        (Array(x), Int(_) | Scalar(_)) => array_op(op, x, None, Some(as_f64(b)), false),
        (Int(_) | Scalar(_), Array(y)) => array_op(op, y, None, Some(as_f64(a)), true),
        (Array(x), Array(y)) => array_op(op, x, Some(y), None, false),
        _ => Err(bad()),
    }
}

/// `a op b` where an operand is a cell array: the operator on each element (with the other
/// cell's element of the same position, which must have the same shape, or with the other
/// operand).
fn cell_op(op: &str, a: &Value, b: &Value) -> VResult<Value> {
    // (The elements are taken out before the operator runs: `A - A` locks one cell.)
    let items = |v: &Value| match v {
        Value::Cell(c) => {
            let c = lock(c);
            Some((c.shape.clone(), c.items.clone()))
        }
        _ => None,
    };
    // An element not assigned yet stays so (`cell(2, 2)` with one element set, times 4).
    let each = |x: &Value, y: &Value| match (x, y) {
        (Value::Null, _) | (_, Value::Null) => Ok(Value::Null),
        _ => binary(op, x, y),
    };
    let (shape, out) = match (items(a), items(b)) {
        (Some((sa, xs)), Some((sb, ys))) => {
            if sa != sb {
                return Err(format!(
                    "the operator `{op}` needs cell arrays of the same shape, found {sa:?} and {sb:?}"
                ));
            }
            let out = xs.iter().zip(&ys).map(|(x, y)| each(x, y));
            (sa, out.collect::<VResult<Vec<_>>>()?)
        }
        (Some((sa, xs)), None) => (sa, xs.iter().map(|x| each(x, b)).collect::<VResult<_>>()?),
        (None, Some((sb, ys))) => (sb, ys.iter().map(|y| each(a, y)).collect::<VResult<_>>()?),
        (None, None) => return Err(format!("the operator `{op}` on cell arrays")),
    };
    Ok(Value::Cell(Arc::new(Mutex::new(CellData { shape, items: out }))))
}

fn as_f64(v: &Value) -> f64 {
    match v {
        Value::Int(i) => *i as f64,
        Value::Scalar(x) => *x,
        _ => f64::NAN,
    }
}

fn as_complex(v: &Value) -> Complex<f64> {
    match v {
        Value::Complex(z) => *z,
        v => Complex::new(as_f64(v), 0.0),
    }
}

fn real_op(op: &str, x: f64, y: f64, both_int: bool) -> Option<Value> {
    let b = |c: bool| Value::Int(c as i64);
    Some(match op {
        "+" => Value::Scalar(x + y),
        "-" => Value::Scalar(x - y),
        "*" | ".*" => Value::Scalar(x * y),
        "/" | "./" => Value::Scalar(x / y),
        "^" | ".^" if both_int && y >= 0.0 => Value::Int(x.powf(y) as i64),
        "^" | ".^" => Value::Scalar(x.powf(y)),
        "==" => b(x == y),
        "!=" => b(x != y),
        "<" => b(x < y),
        "<=" => b(x <= y),
        ">" => b(x > y),
        ">=" => b(x >= y),
        "&&" => b(x != 0.0 && y != 0.0),
        "||" => b(x != 0.0 || y != 0.0),
        _ => return None,
    })
}

/// Element-wise arithmetic on arrays of real numbers held as `??` (the result is a `scalar`
/// array, f64 when either operand is).
fn array_op(
    op: &str,
    x: &AnyArray,
    y: Option<&AnyArray>,
    s: Option<f64>,
    scalar_first: bool,
) -> VResult<Value> {
    let (shape, a) = x.to_f64()?;
    let other: Vec<f64> = match (y, s) {
        (Some(y), _) => {
            let (sy, b) = y.to_f64()?;
            if sy != shape {
                return Err(format!(
                    "the operator `{op}` needs arrays of the same shape, found {shape:?} and {sy:?}"
                ));
            }
            b
        }
        (None, Some(v)) => vec![v; a.len()],
        (None, None) => return Err(format!("the operator `{op}` needs two operands")),
    };
    let elementwise = matches!(op, "+" | "-" | ".*" | "./" | ".^")
        || (matches!(op, "*" | "/") && (s.is_some() || y.is_none()));
    if !elementwise {
        return Err(format!(
            "the operator `{op}` on arrays of type `??` (give the arrays a type for matrix products and comparisons)"
        ));
    }
    let mut out = Vec::with_capacity(a.len());
    for (p, q) in a.iter().zip(&other) {
        let (p, q) = if scalar_first { (*q, *p) } else { (*p, *q) };
        match real_op(op, p, q, false) {
            Some(Value::Scalar(v)) => out.push(v),
            _ => return Err(format!("the operator `{op}` on arrays")),
        }
    }
    let f64s = matches!(x, AnyArray::F64(_)) || matches!(y, Some(AnyArray::F64(_)));
    let e = |r: quasar_runtime::Error| r.to_string();
    Ok(Value::Array(if f64s {
        AnyArray::F64(Array::from_vec(&shape, out).map_err(e)?)
    } else {
        let v: Vec<f32> = out.iter().map(|x| *x as f32).collect();
        AnyArray::F32(Array::from_vec(&shape, v).map_err(e)?)
    }))
}

/// `-x` and `!x` on a dynamic value.
pub fn unary(op: &str, a: &Value) -> VResult<Value> {
    match (op, a) {
        ("-", Value::Int(i)) => Ok(Value::Int(-i)),
        ("-", Value::Scalar(x)) => Ok(Value::Scalar(-x)),
        ("-", Value::Complex(z)) => Ok(Value::Complex(-z)),
        ("-", Value::Array(_)) => binary("*", a, &Value::Scalar(-1.0)),
        ("!", v) => Ok(Value::Int(!v.truthy()? as i64)),
        _ => Err(format!("the operator `{op}` cannot be applied to {}", a.type_name())),
    }
}

impl crate::rt::Show for Value {
    fn show(&self, out: &mut String) {
        match self {
            Value::Null => out.push_str("[]"),
            Value::Int(i) => i.show(out),
            Value::Scalar(x) => x.show(out),
            Value::Complex(z) => z.show(out),
            Value::Str(s) => out.push_str(s),
            Value::Array(a) => any_array!(a, x => x.show(out)),
            Value::Cell(c) => {
                let c = lock(c);
                out.push('{');
                for (i, v) in c.items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    v.show(out);
                }
                out.push('}');
            }
            Value::Object(o) => {
                let o = lock(o);
                out.push_str("object(");
                for (i, (n, v)) in o.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    out.push_str(n);
                    out.push_str(" := ");
                    v.show(out);
                }
                out.push(')');
            }
            Value::Func(f) => {
                out.push_str("function value of type ");
                out.push_str(f.ty);
            }
        }
    }
}

impl std::fmt::Debug for Value {
    /// The value as `print` shows it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut s = String::new();
        crate::rt::Show::show(self, &mut s);
        f.write_str(&s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn objects_get_fields_at_run_time_and_are_shared() {
        let o = Value::object();
        let p = o.clone();
        p.set_field("a", 2.5f32.into_value()).unwrap();
        assert_eq!(f32::from_value(&o.field("a").unwrap()).unwrap(), 2.5);
        let err = o.field("b").unwrap_err();
        assert!(err.contains("no field `b`") && err.contains("a"), "{err}");
    }

    #[test]
    fn cells_hold_values_of_any_type() {
        let c = Value::cell(&[3]).unwrap();
        c.set_index(&[1], "hi".to_string().into_value()).unwrap();
        assert_eq!(String::from_value(&c.index(&[1]).unwrap()).unwrap(), "hi");
        assert!(c.index(&[3]).unwrap_err().contains("out of range"));
        let err = f32::from_value(&c.index(&[1]).unwrap()).unwrap_err();
        assert_eq!(err, "expected a value of type scalar, found string");
    }

    #[test]
    fn arithmetic_follows_the_operand_types() {
        let s = binary("+", &Value::Int(2), &Value::Scalar(0.5)).unwrap();
        assert_eq!(f64::from_value(&s).unwrap(), 2.5);
        assert!(matches!(binary("*", &Value::Int(2), &Value::Int(3)).unwrap(), Value::Int(6)));
        let a = Array::from_vec(&[1, 2], vec![1.0f32, 2.0]).unwrap().into_value();
        let b = binary("*", &Value::Scalar(2.0), &a).unwrap();
        assert_eq!(Array::<f32>::from_value(&b).unwrap().to_vec().unwrap(), vec![2.0, 4.0]);
        let err = binary("+", &Value::Str("a".into()), &Value::Int(1)).unwrap_err();
        assert!(err.contains("string and int"), "{err}");
    }

    #[test]
    fn copy_of_a_cell_copies_its_elements_in_turn() {
        let inner = Value::cell(&[2]).unwrap();
        inner
            .set_index(&[0], Array::from_vec(&[2], vec![1.0f32, 2.0]).unwrap().into_value())
            .unwrap();
        let c = Value::cell_of(vec![inner.clone(), Value::Int(3)]);
        let d = c.deep_copy().unwrap();
        inner.set_index(&[1], Value::Int(9)).unwrap();
        let a = Array::<f32>::from_value(&inner.index(&[0]).unwrap()).unwrap();
        a.set(&[0], 5.0).unwrap();
        let copied = d.index(&[0]).unwrap();
        assert!(
            matches!(copied.index(&[1]).unwrap(), Value::Null),
            "the copy's inner cell is its own"
        );
        let b = Array::<f32>::from_value(&copied.index(&[0]).unwrap()).unwrap();
        assert_eq!(b.to_vec().unwrap(), vec![1.0, 2.0], "and so are its arrays");
    }

    #[test]
    fn operators_on_cells_of_one_structure_apply_element_by_element() {
        let inner = Value::cell_of(vec![Value::Int(2), Value::Scalar(0.5)]);
        let a = Value::cell_of(vec![inner, Value::Int(10), Value::Null]);
        let b = binary("*", &a, &Value::Int(3)).unwrap();
        let d = binary("-", &b, &a).unwrap();
        assert_eq!(format!("{d:?}"), "{{4,1},20,[]}");
        let z = binary("-", &a, &a).unwrap();
        assert_eq!(format!("{z:?}"), "{{0,0},0,[]}");
        let other = Value::cell(&[2]).unwrap();
        let err = binary("+", &a, &other).unwrap_err();
        assert!(err.contains("same shape") && err.contains("[1, 3]"), "{err}");
    }

    #[test]
    fn function_values_come_back_only_as_their_own_type() {
        #[derive(Clone, Debug, PartialEq)]
        struct Inc(i32);
        let c = Value::cell_of(vec![Value::func(Inc(3), "[int -> int]"), Value::Int(1)]);
        let f = c.index(&[0]).unwrap();
        assert_eq!(f.to_func::<Inc>("[int -> int]").unwrap(), Inc(3));
        assert_eq!(f.quasar_type(), "[int -> int]");
        let err = f.to_func::<u8>("[scalar -> scalar]").unwrap_err();
        assert_eq!(
            err,
            "expected a function value of type [scalar -> scalar], found one of type [int -> int]"
        );
        let err = c.index(&[1]).unwrap().to_func::<Inc>("[int -> int]").unwrap_err();
        assert_eq!(err, "expected a function value of type [int -> int], found int");
    }
}

mod shape;
