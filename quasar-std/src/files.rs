//! Files (manual table 14.2): `save`/`load`, `fopen`/`fread`/`fwrite`/`fclose`/`fgets`, `dir`.
//!
//! # The `save` format (`.qd`, version 1)
//!
//! The original's format is not published; `save` writes this one, and `load` reads it back.
//! All numbers are little-endian.
//!
//! ```text
//! file   := "QSAVE\0" u16 version(=1) u32 count value*count
//! value  := u8 kind  payload
//! kind 0 (array) : u8 elem  u32 ndim  u64 dims[ndim]  elements (row-major)
//! kind 1 (string): u64 byte length  UTF-8 bytes
//! elem   := 0 f32 | 1 f64 | 2 i8 | 3 i16 | 4 i32 | 5 i64 | 6 u8 | 7 u16 | 8 u32 | 9 u64
//!         | 10 complex f32 (re, im) | 11 complex f64 (re, im)
//! ```
//!
//! A number is saved as a 0-dimensional array. `load` checks the magic, the version, every
//! length against the file's size and the element count against the shape, so a truncated or
//! foreign file is an error naming `load`, never a huge allocation or a panic.
//!
//! # Binary and text files
//!
//! [`QFile`] is what `fopen(name, mode)` returns (modes as C's `fopen`: `"r" "w" "a"`, with
//! `"b"` and `"+"`). `fread(f, dims, type)` reads `prod(dims)` elements of the named type
//! (`"float32" "float64" "double" "single" "int8" … "uint64"`, little-endian) into an array of
//! that shape, converted to the requested element type; `fwrite(f, data, type)` writes them;
//! `fgets(f)` reads one line with its newline (an empty string at the end of the file);
//! `fclose(f)` closes it. In generated code a file is the identifier that [`fopen_id`]
//! returns (an `int`, as in MATLAB). `dir(pattern)` lists the files matching a `*`/`?`
//! pattern in one directory, sorted by name.

use quasar_runtime::{Array, Complex, Element, Error, Result};
use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek, Write};
use std::path::Path;

const MAGIC: &[u8; 6] = b"QSAVE\0";
const VERSION: u16 = 1;

/// One value in a saved file.
#[derive(Clone, Debug)]
pub enum Saved {
    /// An array of `f32`.
    F32(Array<f32>),
    /// An array of `f64`.
    F64(Array<f64>),
    /// An array of `i8`.
    I8(Array<i8>),
    /// An array of `i16`.
    I16(Array<i16>),
    /// An array of `i32`.
    I32(Array<i32>),
    /// An array of `i64`.
    I64(Array<i64>),
    /// An array of `u8`.
    U8(Array<u8>),
    /// An array of `u16`.
    U16(Array<u16>),
    /// An array of `u32`.
    U32(Array<u32>),
    /// An array of `u64`.
    U64(Array<u64>),
    /// An array of `Complex<f32>`.
    C32(Array<Complex<f32>>),
    /// An array of `Complex<f64>`.
    C64(Array<Complex<f64>>),
    /// A string.
    Str(String),
}

/// A value `save` can write (arrays, numbers and strings).
pub trait Save {
    /// The value as it is saved (arrays are copied from the device if needed).
    fn to_saved(&self) -> Result<Saved>;
}

/// An element type of the `save` format, with its code and bytes.
pub trait SaveElem: Element + Copy {
    /// The element type's code in the file.
    const CODE: u8;
    /// The bytes of one element.
    const SIZE: usize;
    /// An array of this type as a saved value.
    fn wrap(a: Array<Self>) -> Saved;
    /// Appends the element's little-endian bytes.
    fn put(self, out: &mut Vec<u8>);
    /// Reads an element from its little-endian bytes (`SIZE` of them).
    fn get(b: &[u8]) -> Self;
    /// The Quasar name of the type, for messages.
    fn name() -> &'static str;
}

macro_rules! save_elem {
    ($($t:ty, $code:literal, $variant:ident, $name:literal;)*) => { $(
        impl SaveElem for $t {
            const CODE: u8 = $code;
            const SIZE: usize = std::mem::size_of::<$t>();
            fn wrap(a: Array<Self>) -> Saved {
                Saved::$variant(a)
            }
            fn put(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
            fn get(b: &[u8]) -> Self {
                let mut a = [0u8; std::mem::size_of::<$t>()];
                a.copy_from_slice(&b[..Self::SIZE]);
                <$t>::from_le_bytes(a)
            }
            fn name() -> &'static str {
                $name
            }
        }
        impl Save for Array<$t> {
            fn to_saved(&self) -> Result<Saved> {
                Ok(Saved::$variant(self.clone()))
            }
        }
        impl Save for $t {
            fn to_saved(&self) -> Result<Saved> {
                Ok(Saved::$variant(Array::from_vec(&[], vec![*self])?))
            }
        }
    )* };
}
save_elem! {
    f32, 0, F32, "float32"; f64, 1, F64, "float64"; i8, 2, I8, "int8"; i16, 3, I16, "int16";
    i32, 4, I32, "int32"; i64, 5, I64, "int64"; u8, 6, U8, "uint8"; u16, 7, U16, "uint16";
    u32, 8, U32, "uint32"; u64, 9, U64, "uint64";
}

macro_rules! save_complex {
    ($($t:ty, $code:literal, $variant:ident;)*) => { $(
        impl SaveElem for Complex<$t> {
            const CODE: u8 = $code;
            const SIZE: usize = 2 * std::mem::size_of::<$t>();
            fn wrap(a: Array<Self>) -> Saved {
                Saved::$variant(a)
            }
            fn put(self, out: &mut Vec<u8>) {
                self.re.put(out);
                self.im.put(out);
            }
            fn get(b: &[u8]) -> Self {
                let h = Self::SIZE / 2;
                Complex::new(<$t>::get(b), <$t>::get(&b[h..]))
            }
            fn name() -> &'static str {
                "complex"
            }
        }
        impl Save for Array<Complex<$t>> {
            fn to_saved(&self) -> Result<Saved> {
                Ok(Saved::$variant(self.clone()))
            }
        }
        impl Save for Complex<$t> {
            fn to_saved(&self) -> Result<Saved> {
                Ok(Saved::$variant(Array::from_vec(&[], vec![*self])?))
            }
        }
    )* };
}
save_complex! { f32, 10, C32; f64, 11, C64; }

impl Save for String {
    fn to_saved(&self) -> Result<Saved> {
        Ok(Saved::Str(self.clone()))
    }
}

impl<T: Save + ?Sized> Save for &T {
    fn to_saved(&self) -> Result<Saved> {
        (**self).to_saved()
    }
}

impl Save for str {
    fn to_saved(&self) -> Result<Saved> {
        Ok(Saved::Str(self.to_string()))
    }
}

fn put_array<T: SaveElem>(a: &Array<T>, out: &mut Vec<u8>) -> Result<()> {
    out.push(0);
    out.push(T::CODE);
    out.extend_from_slice(&(a.ndim() as u32).to_le_bytes());
    for &d in a.shape() {
        out.extend_from_slice(&(d as u64).to_le_bytes());
    }
    for &v in a.host_view()?.iter() {
        v.put(out);
    }
    Ok(())
}

/// `save(file, values…)`.
pub fn save(path: impl AsRef<Path>, values: &[&dyn Save]) -> Result<()> {
    let path = path.as_ref();
    let mut out = Vec::new();
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&(values.len() as u32).to_le_bytes());
    for v in values {
        match v.to_saved()? {
            Saved::F32(a) => put_array(&a, &mut out)?,
            Saved::F64(a) => put_array(&a, &mut out)?,
            Saved::I8(a) => put_array(&a, &mut out)?,
            Saved::I16(a) => put_array(&a, &mut out)?,
            Saved::I32(a) => put_array(&a, &mut out)?,
            Saved::I64(a) => put_array(&a, &mut out)?,
            Saved::U8(a) => put_array(&a, &mut out)?,
            Saved::U16(a) => put_array(&a, &mut out)?,
            Saved::U32(a) => put_array(&a, &mut out)?,
            Saved::U64(a) => put_array(&a, &mut out)?,
            Saved::C32(a) => put_array(&a, &mut out)?,
            Saved::C64(a) => put_array(&a, &mut out)?,
            Saved::Str(s) => {
                out.push(1);
                out.extend_from_slice(&(s.len() as u64).to_le_bytes());
                out.extend_from_slice(s.as_bytes());
            }
        }
    }
    std::fs::write(path, out).map_err(|e| Error::io(path, e))
}

/// Reads the bytes of a saved file in order, checking every length.
struct Reader<'a> {
    b: &'a [u8],
    at: usize,
    path: &'a Path,
}

impl Reader<'_> {
    fn bad(&self, what: &str) -> Error {
        Error::argument(
            "load",
            format!("`{}` is not a valid save file: {what}", self.path.display()),
        )
    }

    fn take(&mut self, n: usize) -> Result<&[u8]> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.b.len());
        let Some(end) = end else { return Err(self.bad("it is truncated")) };
        let s = &self.b[self.at..end];
        self.at = end;
        Ok(s)
    }

    fn u8(&mut self) -> Result<u8> {
        Ok(self.take(1)?[0])
    }

    fn u32(&mut self) -> Result<u32> {
        Ok(u32::get(self.take(4)?))
    }

    fn u64(&mut self) -> Result<u64> {
        Ok(u64::get(self.take(8)?))
    }

    fn array<T: SaveElem>(&mut self) -> Result<Saved> {
        let ndim = self.u32()? as usize;
        if ndim > quasar_runtime::MAX_DIMS {
            return Err(self.bad("an array has too many dimensions"));
        }
        let mut dims = Vec::with_capacity(ndim);
        let mut count: u64 = 1;
        for _ in 0..ndim {
            let d = self.u64()?;
            count = count.checked_mul(d).ok_or_else(|| self.bad("an array is too large"))?;
            dims.push(usize::try_from(d).map_err(|_| self.bad("an array is too large"))?);
        }
        let bytes = usize::try_from(count)
            .ok()
            .and_then(|c| c.checked_mul(T::SIZE))
            .ok_or_else(|| self.bad("an array is too large"))?;
        let data = self.take(bytes)?;
        let v: Vec<T> = data.chunks_exact(T::SIZE).map(T::get).collect();
        Ok(T::wrap(Array::from_vec(&dims, v)?))
    }
}

/// `[A, B, …] = load(file)`: the values saved by `save`, in order.
pub fn load(path: impl AsRef<Path>) -> Result<Vec<Saved>> {
    let path = path.as_ref();
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    let mut r = Reader { b: &bytes, at: 0, path };
    if r.take(6).ok() != Some(&MAGIC[..]) {
        return Err(r.bad("it does not start with QSAVE"));
    }
    let version = u16::get(r.take(2)?);
    if version != VERSION {
        return Err(r.bad(&format!("version {version} (this library reads version {VERSION})")));
    }
    let count = r.u32()?;
    let mut out = Vec::new();
    for _ in 0..count {
        let v = match r.u8()? {
            0 => match r.u8()? {
                0 => r.array::<f32>()?,
                1 => r.array::<f64>()?,
                2 => r.array::<i8>()?,
                3 => r.array::<i16>()?,
                4 => r.array::<i32>()?,
                5 => r.array::<i64>()?,
                6 => r.array::<u8>()?,
                7 => r.array::<u16>()?,
                8 => r.array::<u32>()?,
                9 => r.array::<u64>()?,
                10 => r.array::<Complex<f32>>()?,
                11 => r.array::<Complex<f64>>()?,
                e => return Err(r.bad(&format!("unknown element type {e}"))),
            },
            1 => {
                let n = usize::try_from(r.u64()?).map_err(|_| r.bad("a string is too long"))?;
                let s = r.take(n)?.to_vec();
                Saved::Str(String::from_utf8(s).map_err(|_| r.bad("a string is not UTF-8"))?)
            }
            k => return Err(r.bad(&format!("unknown value kind {k}"))),
        };
        out.push(v);
    }
    Ok(out)
}

/// What `fopen` returns.
#[derive(Debug)]
pub struct QFile {
    name: String,
    reader: Option<BufReader<File>>,
    writer: Option<File>,
}

/// `fopen(name, mode)`.
pub fn fopen(name: &str, mode: &str) -> Result<QFile> {
    let mut o = std::fs::OpenOptions::new();
    let plus = mode.contains('+');
    match mode.chars().next() {
        Some('r') => o.read(true).write(plus),
        Some('w') => o.write(true).create(true).truncate(true).read(plus),
        Some('a') => o.append(true).create(true).read(plus),
        _ => {
            return Err(Error::argument(
                "fopen",
                format!(
                "unknown mode \"{mode}\" (the modes are \"r\", \"w\", \"a\", with \"b\" or \"+\")"
            ),
            ))
        }
    };
    let file = o.open(name).map_err(|e| Error::io(name, e))?;
    let reading = mode.starts_with('r') || plus;
    let (reader, writer) = if reading && !mode.starts_with('r') {
        (Some(BufReader::new(file.try_clone().map_err(|e| Error::io(name, e))?)), Some(file))
    } else if reading {
        let w = if plus { Some(file.try_clone().map_err(|e| Error::io(name, e))?) } else { None };
        (Some(BufReader::new(file)), w)
    } else {
        (None, Some(file))
    };
    Ok(QFile { name: name.to_string(), reader, writer })
}

/// The element size of an `fread`/`fwrite` type name.
fn elem_size(function: &str, ty: &str) -> Result<(usize, bool, bool)> {
    // (bytes, float, signed)
    Ok(match ty {
        "float32" | "single" | "float" => (4, true, true),
        "float64" | "double" => (8, true, true),
        "int8" => (1, false, true),
        "int16" => (2, false, true),
        "int32" | "int" => (4, false, true),
        "int64" => (8, false, true),
        "uint8" | "uchar" => (1, false, false),
        "uint16" => (2, false, false),
        "uint32" => (4, false, false),
        "uint64" => (8, false, false),
        _ => {
            return Err(Error::argument(
                function,
                format!(
                "unknown element type \"{ty}\" (float32, float64, int8 … int64, uint8 … uint64)"
            ),
            ))
        }
    })
}

fn decode(b: &[u8], float: bool, signed: bool) -> f64 {
    let mut w = [0u8; 8];
    w[..b.len()].copy_from_slice(b);
    match (b.len(), float, signed) {
        (4, true, _) => f64::from(f32::from_le_bytes([w[0], w[1], w[2], w[3]])),
        (8, true, _) => f64::from_le_bytes(w),
        (n, false, true) => {
            let shift = 64 - 8 * n as u32;
            ((i64::from_le_bytes(w) << shift) >> shift) as f64
        }
        (_, _, _) => u64::from_le_bytes(w) as f64,
    }
}

fn encode(v: f64, size: usize, float: bool, signed: bool, out: &mut Vec<u8>) {
    match (size, float, signed) {
        (4, true, _) => out.extend_from_slice(&(v as f32).to_le_bytes()),
        (8, true, _) => out.extend_from_slice(&v.to_le_bytes()),
        (n, false, true) => out.extend_from_slice(&(v as i64).to_le_bytes()[..n]),
        (n, _, _) => out.extend_from_slice(&(v as u64).to_le_bytes()[..n]),
    }
}

impl QFile {
    fn reader(&mut self, function: &str) -> Result<&mut BufReader<File>> {
        let name = self.name.clone();
        self.reader
            .as_mut()
            .ok_or_else(|| Error::argument(function, format!("`{name}` is not open for reading")))
    }

    /// `fread(f, dims, type)`: `prod(dims)` elements of `ty`, as an array of shape `dims`.
    pub fn fread<T: Element + Copy>(
        &mut self,
        dims: &[usize],
        ty: &str,
        conv: impl Fn(f64) -> T,
    ) -> Result<Array<T>> {
        let (size, float, signed) = elem_size("fread", ty)?;
        let n: usize = dims
            .iter()
            .try_fold(1usize, |a, &d| a.checked_mul(d))
            .ok_or_else(|| Error::argument("fread", "the shape is too large"))?;
        let name = self.name.clone();
        let mut buf = vec![
            0u8;
            n.checked_mul(size)
                .ok_or_else(|| Error::argument("fread", "the shape is too large"))?
        ];
        self.reader("fread")?.read_exact(&mut buf).map_err(|e| Error::io(&name, e))?;
        let v: Vec<T> = buf.chunks_exact(size).map(|b| conv(decode(b, float, signed))).collect();
        Array::from_vec(dims, v)
    }

    /// `fwrite(f, data, type)`.
    pub fn fwrite(&mut self, data: &[f64], ty: &str) -> Result<()> {
        let (size, float, signed) = elem_size("fwrite", ty)?;
        let mut out = Vec::with_capacity(data.len() * size);
        for &v in data {
            encode(v, size, float, signed, &mut out);
        }
        let name = self.name.clone();
        let w = self.writer.as_mut().ok_or_else(|| {
            Error::argument("fwrite", format!("`{name}` is not open for writing"))
        })?;
        w.write_all(&out).map_err(|e| Error::io(&name, e))
    }

    /// `fprintf(f, …)`: text written as it is.
    pub fn write_text(&mut self, text: &str) -> Result<()> {
        let name = self.name.clone();
        let w = self.writer.as_mut().ok_or_else(|| {
            Error::argument("fprintf", format!("`{name}` is not open for writing"))
        })?;
        w.write_all(text.as_bytes()).map_err(|e| Error::io(&name, e))
    }

    /// `fgets(f)`: the next line with its newline; empty at the end of the file.
    pub fn fgets(&mut self) -> Result<String> {
        let name = self.name.clone();
        let mut line = String::new();
        self.reader("fgets")?.read_line(&mut line).map_err(|e| Error::io(&name, e))?;
        Ok(line)
    }

    /// `fclose(f)`: flushes and closes the file.
    pub fn fclose(mut self) -> Result<()> {
        if let Some(w) = self.writer.as_mut() {
            w.flush().map_err(|e| Error::io(&self.name, e))?;
        }
        if let Some(r) = self.reader.as_mut() {
            let _ = r.stream_position();
        }
        Ok(())
    }
}

/// `dir(pattern)`: the names of the files matching `pattern` (`*` and `?` in the last part),
/// sorted.
pub fn dir(pattern: &str) -> Result<Vec<String>> {
    let p = Path::new(pattern);
    let (folder, glob) = match (p.parent(), p.file_name().and_then(|f| f.to_str())) {
        (Some(d), Some(g)) if g.contains(['*', '?']) => (d.to_path_buf(), g.to_string()),
        _ if p.is_dir() => (p.to_path_buf(), "*".to_string()),
        (Some(d), Some(g)) => (d.to_path_buf(), g.to_string()),
        _ => (p.to_path_buf(), "*".to_string()),
    };
    let folder = if folder.as_os_str().is_empty() { Path::new(".").to_path_buf() } else { folder };
    let entries = std::fs::read_dir(&folder).map_err(|e| Error::io(&folder, e))?;
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| matches(glob.as_bytes(), n.as_bytes()))
        .collect();
    names.sort();
    Ok(names)
}

/// Whether `name` matches the wildcard pattern `pat` (`*` any run, `?` one character).
fn matches(pat: &[u8], name: &[u8]) -> bool {
    match (pat.first(), name.first()) {
        (None, None) => true,
        (Some(b'*'), _) => {
            matches(&pat[1..], name) || (!name.is_empty() && matches(pat, &name[1..]))
        }
        (Some(b'?'), Some(_)) => matches(&pat[1..], &name[1..]),
        (Some(a), Some(b)) if a.eq_ignore_ascii_case(b) => matches(&pat[1..], &name[1..]),
        _ => false,
    }
}

#[path = "files_ids.rs"]
mod ids;
pub use ids::{fclose_id, fgets_id, fopen_id, fprintf_id, fread_id, fwrite_id};

#[cfg(test)]
#[path = "files_tests.rs"]
mod tests;

/// [`load`] as `??` values (generated code: `[A, B] = load(file)`, each checked against its
/// target's type when assigned). A saved number (a 0-dimensional array) is a number; integer
/// arrays other than `int` and `uint8` become `int` arrays, and a value that does not fit
/// `int` is an error naming `load`.
pub fn load_values(path: impl AsRef<Path>) -> Result<Vec<crate::value::Value>> {
    use crate::value::{AnyArray, Value};
    fn ints<T: Element + TryInto<i32>>(a: Array<T>) -> Result<AnyArray> {
        let v = a.to_vec()?;
        let mut out = Vec::with_capacity(v.len());
        for x in v {
            out.push(x.try_into().map_err(|_| {
                Error::argument("load", "an integer array holds a value outside `int`")
            })?);
        }
        Ok(AnyArray::I32(Array::from_vec(a.shape(), out)?))
    }
    let mut out = Vec::new();
    for s in load(path)? {
        let a = match s {
            Saved::Str(s) => {
                out.push(Value::Str(s));
                continue;
            }
            Saved::F32(a) => AnyArray::F32(a),
            Saved::F64(a) => AnyArray::F64(a),
            Saved::I32(a) => AnyArray::I32(a),
            Saved::U8(a) => AnyArray::U8(a),
            Saved::C32(a) => AnyArray::C32(a),
            Saved::C64(a) => AnyArray::C64(a),
            Saved::I8(a) => ints(a)?,
            Saved::I16(a) => ints(a)?,
            Saved::I64(a) => ints(a)?,
            Saved::U16(a) => ints(a)?,
            Saved::U32(a) => ints(a)?,
            Saved::U64(a) => ints(a)?,
        };
        // A number was saved as a 0-dimensional array.
        let number = a.rank() == 0;
        let v = Value::Array(a);
        out.push(if number { v.index(&[0]).map_err(|m| Error::argument("load", m))? } else { v });
    }
    Ok(out)
}

/// `[A, B, …] = load(file)` with `n` targets: the first `n` values (an error naming `load`
/// when the file holds fewer).
pub fn load_n(path: impl AsRef<Path>, n: usize) -> Result<Vec<crate::value::Value>> {
    let path = path.as_ref();
    let mut v = load_values(path)?;
    if v.len() < n {
        return Err(Error::argument(
            "load",
            format!("`{}` holds {} value(s); {n} are assigned", path.display(), v.len()),
        ));
    }
    v.truncate(n);
    Ok(v)
}
