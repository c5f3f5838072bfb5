//! Files in generated code: `fopen` returns a file identifier (an `int`, as MATLAB's `fopen`
//! does), naming a [`QFile`] in this process's table of open files until `fclose`. Identifiers
//! start at 3; 1 and 2 are standard output and error for `fprintf`, as in MATLAB and C.

use super::{fopen, QFile};
use quasar_runtime::{Array, Element, Error, Result};
use std::collections::BTreeMap;
use std::io::Write;
use std::sync::{Mutex, MutexGuard};

struct Table {
    next: i32,
    open: BTreeMap<i32, QFile>,
}

static FILES: Mutex<Table> = Mutex::new(Table { next: 3, open: BTreeMap::new() });

fn table() -> MutexGuard<'static, Table> {
    // A panic elsewhere while holding the lock leaves the table itself consistent.
    FILES.lock().unwrap_or_else(|e| e.into_inner())
}

/// Runs `f` on the open file `id`, or an error naming `function`.
fn with<R>(function: &str, id: i32, f: impl FnOnce(&mut QFile) -> Result<R>) -> Result<R> {
    let mut t = table();
    match t.open.get_mut(&id) {
        Some(file) => f(file),
        None => Err(Error::argument(
            function,
            format!("{id} is not an open file (use what `fopen` returned, before `fclose`)"),
        )),
    }
}

/// `f = fopen(name, mode)`: opens the file (see [`fopen`]) and returns its identifier.
pub fn fopen_id(name: &str, mode: &str) -> Result<i32> {
    let file = fopen(name, mode)?;
    let mut t = table();
    let id = t.next;
    t.next = t
        .next
        .checked_add(1)
        .ok_or_else(|| Error::argument("fopen", "too many files opened by this program"))?;
    t.open.insert(id, file);
    Ok(id)
}

/// `fread(f, dims, type)` on the file `id`.
pub fn fread_id<T: Element + Copy>(
    id: i32,
    dims: &[usize],
    ty: &str,
    conv: impl Fn(f64) -> T,
) -> Result<Array<T>> {
    with("fread", id, |f| f.fread(dims, ty, conv))
}

/// `fwrite(f, data, type)` on the file `id`.
pub fn fwrite_id(id: i32, data: &[f64], ty: &str) -> Result<()> {
    with("fwrite", id, |f| f.fwrite(data, ty))
}

/// `fgets(f)` on the file `id`.
pub fn fgets_id(id: i32) -> Result<String> {
    with("fgets", id, |f| f.fgets())
}

/// `fclose(f)`: flushes and forgets the file `id`.
pub fn fclose_id(id: i32) -> Result<()> {
    let file = table().open.remove(&id).ok_or_else(|| {
        Error::argument("fclose", format!("{id} is not an open file (closed twice?)"))
    })?;
    file.fclose()
}

/// `fprintf(f, format, values…)`: `text` (already formatted) written to the file `id`, or to
/// standard output (1) or error (2).
pub fn fprintf_id(id: i32, text: &str) -> Result<()> {
    let io = |e| Error::io("<standard stream>", e);
    match id {
        1 => {
            let mut o = std::io::stdout().lock();
            o.write_all(text.as_bytes()).and_then(|()| o.flush()).map_err(io)
        }
        2 => std::io::stderr().lock().write_all(text.as_bytes()).map_err(io),
        _ => with("fprintf", id, |f| f.write_text(text)),
    }
}
