//! Whether the CPU back end may run consecutive positions of a kernel's innermost dimension
//! in lockstep ("strips", as ISPC runs program instances in SIMD lanes), and which locals then
//! differ between the positions of a strip.
//!
//! A kernel whose every position runs a loop that stays a loop (a run-time trip count, as a
//! separable blur's taps or a matrix product's inner sum) does not vectorise across positions:
//! the loop over positions is not innermost, and LLVM does not reorder the floating-point sum
//! inside (`analysis::vectorise`). Run in lockstep, the body is emitted once per strip of `L`
//! positions: each varying local holds `L` values and each varying statement becomes a loop
//! over the lanes, which LLVM vectorises (each lane's sum keeps its order, so the results are
//! those of the per-position code), while uniform statements (the tap loop's header) run once
//! per strip (`backend/rust/strip.rs`).
//!
//! That reordering is invisible only when the positions of a strip cannot see each other's
//! statements, so the body must be assignments to scalar locals, writes of the position's own
//! element (`y[pos] = …`) of arrays the body does not read, `for` loops whose bounds are
//! uniform and `if`s, with expressions of arithmetic, array reads and pure math. An `if` whose
//! condition varies runs whole in each lane (a loop over the lanes around it, which LLVM
//! if-converts into selects and masked operations where it can), and every local it assigns
//! varies; one whose condition is uniform runs once per strip around its branches' strip code.
//! Anything else keeps the per-position code; the reason says why.

use crate::ir::{
    AssignOp, Builtin, Callee, Const, Expr, ExprKind, Function, Index, LocalId, LocalRole,
    PlaceKind, Special, Stmt, StmtKind, UnaryOp,
};
use crate::sema::types::{Dim, Type};

/// A kernel that runs in strips: per local, whether its value may differ between the positions
/// of a strip (the varying locals hold one value per lane; the others one per strip).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lockstep {
    /// Indexed by `LocalId`; `pos` is among the varying locals.
    pub varying: Vec<bool>,
    /// Row pairs: a kernel over two or more dimensions whose loop reads an array at indices
    /// that vary along the strip but not between rows (a matrix product's `b[k, pos[1]]`) may
    /// run two rows of positions in one strip, each such read serving both rows (register
    /// blocking: half the loads per sum; the column strip of `b` that a strip walks, one
    /// element per row of `b` and so a cache line and a page per step, is read once per two
    /// rows). Then the locals that differ between the lanes of such a strip (its rows and
    /// positions), with the loop bounds uniform across them; else `None`.
    pub pairs: Option<Vec<bool>>,
    /// The position parameter.
    pub pos: LocalId,
    /// The components of `pos` that differ between the lanes (the innermost; for row pairs
    /// the two innermost).
    pub lanes: std::ops::RangeInclusive<i64>,
}

impl Lockstep {
    /// Whether local `l` differs between the lanes of a strip.
    pub fn varies(&self, l: LocalId) -> bool {
        self.varying.get(l.0 as usize).copied().unwrap_or(false)
    }

    /// The strips of row pairs ([`Lockstep::pairs`]) as a lockstep of their own: its varying
    /// locals are those of the pairs.
    pub fn of_pairs(&self) -> Option<Lockstep> {
        let lanes = self.lanes.start() - 1..=*self.lanes.end();
        self.pairs.clone().map(|varying| Lockstep { varying, pairs: None, pos: self.pos, lanes })
    }

    /// Whether statement `s` (of a kernel that runs in strips) runs once per lane: it assigns
    /// a varying local or writes an array, or it is an `if` whose condition varies (whose
    /// assignments are then all to varying locals). The others run once per strip (an `if`
    /// with a uniform condition around the strip code of its branches).
    pub fn per_lane(&self, s: &Stmt) -> bool {
        match &s.kind {
            StmtKind::Assign { place, .. } => match place.kind {
                PlaceKind::Local(l) => self.varies(l),
                _ => true,
            },
            StmtKind::If { cond, .. } => {
                let lanes = &self.lanes;
                varies(cond, self.pos, &|k| lanes.contains(&k), &self.varying)
            }
            _ => false,
        }
    }
}

/// Whether kernel `f`, whose position has `rank` components, runs in strips; else why not.
pub fn lockstep(f: &Function, rank: Option<usize>) -> Result<Lockstep, &'static str> {
    let Some(rank) = rank.filter(|r| (1..=3).contains(r)) else {
        return Err("no position parameter");
    };
    if !f.outputs.is_empty() {
        return Err("kernel outputs (reductions)");
    }
    let mut pos = None;
    for (i, l) in f.locals.iter().enumerate() {
        match l.special() {
            Some(Special::Pos) => pos = Some(LocalId(i as u32)),
            Some(_) => return Err("a special parameter other than `pos`"),
            None => {}
        }
    }
    let pos = pos.ok_or("no position parameter")?;
    let mut scan = Scan { f, pos, rank, reads: Vec::new(), writes: Vec::new(), stays: false };
    scan.block(&f.body)?;
    if !scan.stays {
        return Err("no loop that stays a loop (the positions vectorise as they are)");
    }
    if scan.writes.iter().any(|w| scan.reads.contains(w)) {
        return Err("an array both read and written");
    }
    // In a strip the positions differ along the innermost dimension only.
    let varying = varying_locals(f, pos, &|k| k + 1 == rank as i64);
    if !uniform_bounds(f, pos, &|k| k + 1 == rank as i64, &varying) {
        return Err("a loop whose bounds differ between positions");
    }
    let pairs = (rank >= 2).then(|| row_pairs(f, pos, rank, &varying)).flatten();
    let last = rank as i64 - 1;
    Ok(Lockstep { varying, pairs, pos, lanes: last..=last })
}

/// The varying locals of [`Lockstep::pairs`], when the kernel gains from them: its loops'
/// bounds are the same for the two rows, and a loop reads an array at indices that differ
/// along a strip but not between rows.
fn row_pairs(f: &Function, pos: LocalId, rank: usize, varying: &[bool]) -> Option<Vec<bool>> {
    let row = rank as i64 - 2;
    let pairs = varying_locals(f, pos, &|k| k >= row);
    if !uniform_bounds(f, pos, &|k| k >= row, &pairs) {
        return None;
    }
    // What differs between the rows alone (the innermost component fixed).
    let across = varying_locals(f, pos, &|k| k == row);
    let mut shared = false;
    let mut read = |e: &Expr| {
        if let ExprKind::Index { base, indices } = &e.kind {
            let at: Vec<&Expr> = indices
                .iter()
                .filter_map(|i| match i {
                    Index::At(x) => Some(x),
                    _ => None,
                })
                .collect();
            shared |= matches!(base.kind, ExprKind::Local(a) if a != pos)
                && at.iter().any(|x| varies(x, pos, &|k| k == row + 1, varying))
                && !at.iter().any(|x| varies(x, pos, &|k| k == row, &across));
        }
    };
    crate::ir::walk::walk_block(
        &f.body,
        &mut |s| {
            if let StmtKind::ForRange { body, .. } = &s.kind {
                crate::ir::walk::walk_block(body, &mut |_| {}, &mut read);
            }
        },
        &mut |_| {},
    );
    shared.then_some(pairs)
}

/// The locals of `f` whose values may differ between positions whose components `k` differ
/// where `lane(k)` (the others being equal), to a fixed point: a loop may carry a varying
/// value back to an earlier statement. A local assigned under an `if` whose condition varies
/// varies too (the lanes take different branches), and so does a loop variable there.
fn varying_locals(f: &Function, pos: LocalId, lane: &dyn Fn(i64) -> bool) -> Vec<bool> {
    let mut varying = vec![false; f.locals.len()];
    varying[pos.0 as usize] = true;
    while mark(&f.body, false, pos, lane, &mut varying) {}
    varying
}

/// One pass of [`varying_locals`] over block `b`, under a varying condition when `branch`:
/// whether it marked a local.
fn mark(
    b: &[Stmt],
    branch: bool,
    pos: LocalId,
    lane: &dyn Fn(i64) -> bool,
    varying: &mut [bool],
) -> bool {
    let mut changed = false;
    let set =
        |l: LocalId, varying: &mut [bool]| !std::mem::replace(&mut varying[l.0 as usize], true);
    for s in b {
        match &s.kind {
            StmtKind::Assign { place, value, .. } => {
                if let PlaceKind::Local(l) = place.kind {
                    if branch || varies(value, pos, lane, varying) {
                        changed |= set(l, varying);
                    }
                }
            }
            StmtKind::ForRange { var, body, .. } => {
                if branch {
                    changed |= set(*var, varying);
                }
                changed |= mark(body, branch, pos, lane, varying);
            }
            StmtKind::If { cond, then_body, else_body } => {
                let branch = branch || varies(cond, pos, lane, varying);
                changed |= mark(then_body, branch, pos, lane, varying);
                changed |= mark(else_body, branch, pos, lane, varying);
            }
            // The scan admits no other statement.
            _ => {}
        }
    }
    changed
}

/// Whether every `for` loop of `f` has the same variable and bounds for the positions
/// [`varying_locals`] compares.
fn uniform_bounds(
    f: &Function,
    pos: LocalId,
    lane: &dyn Fn(i64) -> bool,
    varying: &[bool],
) -> bool {
    let mut uniform = true;
    crate::ir::walk::walk_block(
        &f.body,
        &mut |s| {
            if let StmtKind::ForRange { var, start, step, end, .. } = &s.kind {
                uniform &= !varying[var.0 as usize]
                    && [start, step, end].iter().all(|e| !varies(e, pos, lane, varying));
            }
        },
        &mut |_| {},
    );
    uniform
}

/// Whether `e`'s value may differ between the positions compared (those whose components `k`
/// differ where `lane(k)`: in a strip, the innermost): it reads a varying local, other than
/// through `pos[k]` for a component `k` that does not differ.
fn varies(e: &Expr, pos: LocalId, lane: &dyn Fn(i64) -> bool, varying: &[bool]) -> bool {
    match &e.kind {
        ExprKind::Local(l) => varying[l.0 as usize],
        ExprKind::Index { base, indices } if matches!(base.kind, ExprKind::Local(l) if l == pos) => {
            !matches!(indices.as_slice(),
                [Index::At(k)] if matches!(k.constant(), Some(Const::Int(k)) if !lane(*k)))
        }
        _ => children(e).into_iter().any(|c| varies(c, pos, lane, varying)),
    }
}

/// The sub-expressions of the expressions a strip may hold (see [`Scan::expr`]).
fn children(e: &Expr) -> Vec<&Expr> {
    match &e.kind {
        ExprKind::Unary { operand, .. } => vec![&**operand],
        ExprKind::Binary { lhs, rhs, .. } => vec![&**lhs, &**rhs],
        ExprKind::Convert(x) => vec![&**x],
        ExprKind::Call { args, .. } | ExprKind::Matrix(args) => args.iter().collect(),
        ExprKind::Index { base, indices } => {
            let mut v = vec![&**base];
            for i in indices {
                if let Index::At(x) = i {
                    v.push(x);
                }
            }
            v
        }
        ExprKind::Ternary { cond, then, otherwise } => vec![&**cond, &**then, &**otherwise],
        _ => Vec::new(),
    }
}

/// The structural check of a body.
struct Scan<'f> {
    f: &'f Function,
    pos: LocalId,
    rank: usize,
    /// The arrays whose elements the body reads, and those it writes.
    reads: Vec<LocalId>,
    writes: Vec<LocalId>,
    /// A loop stays a loop (`analysis::vectorise`).
    stays: bool,
}

impl Scan<'_> {
    fn block(&mut self, b: &[Stmt]) -> Result<(), &'static str> {
        b.iter().try_for_each(|s| self.stmt(s))
    }

    fn stmt(&mut self, s: &Stmt) -> Result<(), &'static str> {
        match &s.kind {
            StmtKind::Assign { place, op, value } => {
                match &place.kind {
                    PlaceKind::Local(l) => {
                        let local = self.f.local(*l);
                        if local.role != LocalRole::Var {
                            return Err("an assignment to a parameter");
                        }
                        if !register_value(&local.ty) {
                            return Err("a local that is not a number or a small vector");
                        }
                    }
                    PlaceKind::Index { base, indices } => {
                        if *op != AssignOp::Assign {
                            return Err("a compound assignment to an array element (atomic)");
                        }
                        let ExprKind::Local(a) = base.kind else {
                            return Err("a write to an array that is not an argument");
                        };
                        if !self.view(a) {
                            return Err("a write to an array that is not an argument");
                        }
                        if !self.at_position(indices) {
                            return Err("a write to an element other than the position's");
                        }
                        self.writes.push(a);
                    }
                    PlaceKind::Field { .. } => return Err("a write to a field"),
                }
                self.expr(value)
            }
            StmtKind::ForRange { var, start, step, end, body, .. } => {
                if self.f.local(*var).role != LocalRole::Var || !self.f.local(*var).ty.is_int() {
                    return Err("a `for` loop over non-integers");
                }
                let mut assigned = false;
                crate::ir::walk::walk_block(
                    body,
                    &mut |s| {
                        if let StmtKind::Assign { place, .. } = &s.kind {
                            assigned |= matches!(place.kind, PlaceKind::Local(l) if l == *var);
                        }
                    },
                    &mut |_| {},
                );
                if assigned {
                    return Err("a `for` loop whose body assigns its variable");
                }
                self.stays |= super::vectorise::loop_stays(s);
                self.expr(start)?;
                self.expr(step)?;
                self.expr(end)?;
                self.block(body)
            }
            StmtKind::If { cond, then_body, else_body } => {
                self.expr(cond)?;
                self.block(then_body)?;
                self.block(else_body)
            }
            StmtKind::Match { .. } => Err("a `match`"),
            StmtKind::While { .. } | StmtKind::Repeat { .. } | StmtKind::ForEach { .. } => {
                Err("a `while`, `repeat` or `for`-each loop")
            }
            StmtKind::Break | StmtKind::Continue | StmtKind::Return => {
                Err("`break`, `continue` or `return`")
            }
            _ => Err("a statement other than an assignment or a `for` range loop"),
        }
    }

    fn expr(&mut self, e: &Expr) -> Result<(), &'static str> {
        match &e.kind {
            ExprKind::Const(c) => {
                if matches!(c, Const::Str(_) | Const::Null) {
                    return Err("a constant that is not a number");
                }
                return Ok(());
            }
            ExprKind::Local(l) => {
                let local = self.f.local(*l);
                return match local.role {
                    LocalRole::Var | LocalRole::Param | LocalRole::Capture
                        if register_value(&local.ty) =>
                    {
                        Ok(())
                    }
                    LocalRole::Special(Special::Pos) => Ok(()),
                    _ => Err("a value that is not a number or a small vector"),
                };
            }
            ExprKind::Index { base, indices } => {
                let ExprKind::Local(a) = base.kind else {
                    return Err("indexing a computed value");
                };
                if !indices.iter().all(|i| matches!(i, Index::At(_))) {
                    return Err("a slice or an index list");
                }
                if self.view(a) {
                    self.reads.push(a);
                } else if !register_value(&self.f.local(a).ty)
                    && self.f.local(a).special() != Some(Special::Pos)
                {
                    return Err("indexing a value that is not an argument array or a vector");
                }
                if !register_value(&e.ty) {
                    return Err("a read whose value is not a number or a small vector");
                }
                for i in indices {
                    if let Index::At(x) = i {
                        self.expr(x)?;
                    }
                }
                return Ok(());
            }
            ExprKind::Call { callee: Callee::Builtin(b), args } => {
                if matches!(b, Builtin::Size | Builtin::Numel) {
                    // Of an argument (uniform): its extents.
                    return match args.first().map(|a| &a.kind) {
                        Some(ExprKind::Local(a)) if self.view(*a) => {
                            args[1..].iter().try_for_each(|x| self.expr(x))
                        }
                        _ => Err("`size`/`numel` of a value that is not an argument array"),
                    };
                }
                if !pure_math(*b) {
                    return Err("a call of a built-in that is not pure math");
                }
            }
            ExprKind::Call { .. } => return Err("a call of a function"),
            ExprKind::Unary { op, .. } if !matches!(op, UnaryOp::Neg | UnaryOp::Plus) => {
                return Err("a unary operator other than `-`");
            }
            ExprKind::Unary { .. }
            | ExprKind::Binary { .. }
            | ExprKind::Convert(_)
            | ExprKind::Matrix(_)
            | ExprKind::Ternary { .. } => {}
            _ => return Err("an expression other than arithmetic, array reads and math"),
        }
        if !register_value(&e.ty) {
            return Err("a value that is not a number or a small vector");
        }
        children(e).into_iter().try_for_each(|c| self.expr(c))
    }

    /// Whether `l` is an array argument of the kernel (a view).
    fn view(&self, l: LocalId) -> bool {
        let local = self.f.local(l);
        matches!(local.role, LocalRole::Param | LocalRole::Capture)
            && matches!(&local.ty, Type::Array(a) if a.elem.is_number() && !register_value(&local.ty))
    }

    /// Whether `indices` are exactly the position: `[pos]`, or `[pos[0], …, pos[rank - 1]]`.
    fn at_position(&self, indices: &[Index]) -> bool {
        let is_pos = |e: &Expr| matches!(e.kind, ExprKind::Local(l) if l == self.pos);
        match indices {
            [Index::At(p)] if is_pos(p) => true,
            _ if indices.len() == self.rank => indices.iter().enumerate().all(|(k, i)| {
                let Index::At(e) = i else { return false };
                let ExprKind::Index { base, indices } = &e.kind else { return false };
                is_pos(base)
                    && matches!(indices.as_slice(),
                        [Index::At(c)] if c.constant() == Some(&Const::Int(k as i64)))
            }),
            _ => false,
        }
    }
}

/// A number or a vector of at most 16 numbers of known length (`ivec3`, `vec4`): held in
/// registers, one per lane when it varies.
fn register_value(t: &Type) -> bool {
    match t {
        Type::Int(..) | Type::Scalar(_) => true,
        Type::Array(a) => {
            let Some(shape) = &a.shape else { return false };
            let mut n = 1u64;
            for d in shape {
                let Dim::Known(k) = d else { return false };
                n = n.saturating_mul(*k);
            }
            matches!(a.elem, Type::Int(..) | Type::Scalar(_)) && n <= 16
        }
        _ => false,
    }
}

/// The built-ins a strip may call: element-wise math on numbers, without effects.
fn pure_math(b: Builtin) -> bool {
    use Builtin as B;
    B::ELEMENTWISE.contains(&b)
        || matches!(
            b,
            B::Mod
                | B::Isnan
                | B::Isinf
                | B::Isfinite
                | B::Float
                | B::Int
                | B::Int8
                | B::Int16
                | B::Int32
                | B::Int64
                | B::Uint8
                | B::Uint16
                | B::Uint32
                | B::Uint64
                | B::Clamp
                | B::Min
                | B::Max
        )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::ModuleInfo;
    use crate::ir::FunctionId;
    use crate::sema::check::check_program;
    use crate::{syntax, FileId};

    /// The verdict on kernel `name` of `src`, with the names of its varying locals.
    fn verdict(src: &str, name: &str) -> Result<Vec<String>, &'static str> {
        let parsed = syntax::parse(src, FileId(0));
        let checked = check_program(&parsed.program);
        assert!(!checked.has_errors(), "{:?}", checked.diagnostics);
        let m = checked.module;
        let id = m.functions.iter().position(|f| f.name == name).expect("the kernel");
        let info = ModuleInfo::of(&m);
        let k = info.kernel(FunctionId(id as u32)).expect("a kernel");
        let f = &m.functions[id];
        k.lockstep.clone().map(|ls| {
            let mut v: Vec<String> = (0..f.locals.len())
                .filter(|&i| ls.varies(LocalId(i as u32)))
                .map(|i| f.locals[i].name.clone())
                .collect();
            v.sort();
            v
        })
    }

    /// The varying locals of kernel `name`'s row pairs, when it runs so.
    fn pairs(src: &str, name: &str) -> Option<Vec<String>> {
        let parsed = syntax::parse(src, FileId(0));
        let checked = check_program(&parsed.program);
        assert!(!checked.has_errors(), "{:?}", checked.diagnostics);
        let m = checked.module;
        let id = m.functions.iter().position(|f| f.name == name).expect("the kernel");
        let info = ModuleInfo::of(&m);
        let ls = info.kernel(FunctionId(id as u32)).expect("a kernel").lockstep.clone().ok()?;
        let f = &m.functions[id];
        let pairs = ls.of_pairs()?;
        let mut v: Vec<String> = (0..f.locals.len())
            .filter(|&i| pairs.varies(LocalId(i as u32)))
            .map(|i| f.locals[i].name.clone())
            .collect();
        v.sort();
        Some(v)
    }

    const MATMUL: &str = "function [] = __kernel__ mm(a : mat, b : mat, c : mat, pos : ivec2)
        s = 0.0
        for k = 0..size(a, 1) - 1
            s += a[pos[0], k] * b[k, pos[1]]
        endfor
        c[pos] = s
    endfunction";

    #[test]
    fn loops_reading_what_two_rows_share_run_in_row_pairs() {
        assert_eq!(pairs(MATMUL, "mm"), Some(vec!["pos".into(), "s".into()]));
        // A local of the row varies between the rows of a pair (not within a strip).
        let row_local =
            MATMUL.replace("s = 0.0", "s = 0.0\nr = pos[0]").replace("a[pos[0], k]", "a[r, k]");
        assert_eq!(pairs(&row_local, "mm"), Some(vec!["pos".into(), "r".into(), "s".into()]));
        assert_eq!(verdict(&row_local, "mm"), Ok(vec!["pos".into(), "s".into()]));
        // Three dimensions: pairs along dimension 1.
        let three = "function [] = __kernel__ g(x : cube, w : mat, y : cube, n : int, pos : ivec3)
            acc = 0.0
            for i = 0..n
                acc += x[pos[0], i, pos[2]] * w[pos[1], i]
            endfor
            y[pos] = acc
        endfunction";
        assert_eq!(pairs(three, "g"), Some(vec!["acc".into(), "pos".into()]));
        // No read the rows share: a blur's taps along the columns or the rows.
        assert_eq!(pairs(GAUSS, "gauss_h"), None);
        let vertical = GAUSS.replace("x[pos[0], pos[1] + i - n]", "x[pos[0] + i - n, pos[1]]");
        assert_eq!(pairs(&vertical, "gauss_h"), None);
        // A loop whose bound differs between the rows (a triangular product).
        let triangular = MATMUL.replace("for k = 0..size(a, 1) - 1", "for k = 0..pos[0]");
        assert!(verdict(&triangular, "mm").is_ok());
        assert_eq!(pairs(&triangular, "mm"), None);
        // One dimension: no rows.
        let one = "function [] = __kernel__ f(x : vec, y : vec, n : int, pos : int)
            acc = 0.0
            for i = 0..n
                acc += x[pos + i]
            endfor
            y[pos] = acc
        endfunction";
        assert_eq!(pairs(one, "f"), None);
    }

    const GAUSS: &str = "function [] = __kernel__ gauss_h(x : mat'mirror, y : mat, fc : vec'const, n : int, pos : ivec2)
        acc = 0.0
        for i = 0..2 * n
            acc += x[pos[0], pos[1] + i - n] * fc[i]
        endfor
        y[pos] = acc
    endfunction";

    #[test]
    fn tap_loops_and_matrix_products_run_in_strips() {
        // The sum varies; the tap index and the parameters are uniform.
        assert_eq!(verdict(GAUSS, "gauss_h"), Ok(vec!["acc".into(), "pos".into()]));
        let matmul = "function [] = __kernel__ mm(a : mat, b : mat, c : mat, pos : ivec2)
            s = 0.0
            for k = 0..size(a, 1) - 1
                s += a[pos[0], k] * b[k, pos[1]]
            endfor
            c[pos[0], pos[1]] = s
        endfunction";
        assert_eq!(verdict(matmul, "mm"), Ok(vec!["pos".into(), "s".into()]));
        // One dimension, integer and float locals, a uniform local, pure math.
        let one = "function [] = __kernel__ f(x : vec, y : vec, n : int, pos : int)
            t = n * 2
            c = 0
            acc = 0.0
            for i = 0..t - 1
                c += pos + i
                acc += sqrt(abs(x[mod(pos + i, numel(x))])) * t
            endfor
            y[pos] = acc + c
        endfunction";
        assert_eq!(verdict(one, "f"), Ok(vec!["acc".into(), "c".into(), "pos".into()]));
        // Three dimensions: the outer components of `pos` are uniform in a strip, so a loop
        // may run to one of them.
        let three = "function [] = __kernel__ g(x : cube, y : cube, pos : ivec3)
            r = pos[0]
            acc = 0.0
            for i = 0..r
                acc += x[pos + [0, 0, 0]] * i
            endfor
            y[pos] = acc
        endfunction";
        assert_eq!(verdict(three, "g"), Ok(vec!["acc".into(), "pos".into()]));
    }

    #[test]
    fn branches_run_in_strips_and_what_they_assign_under_a_varying_condition_varies() {
        // A sigma filter: the taps within `t` of the centre. The condition varies, so `s` and
        // `n` vary, and so does `u`, a uniform value assigned under it.
        let sigma = "function [] = __kernel__ sig(x : mat'clamped, y : mat, r : int, t : scalar, pos : ivec2)
            c = x[pos]
            s = 0.0
            n = 0.0
            u = 0
            for i = -r..r
                v = x[pos[0], pos[1] + i]
                if abs(v - c) < t
                    s += v
                    n += 1
                    u = r
                endif
            endfor
            y[pos] = s / n + u
        endfunction";
        assert_eq!(
            verdict(sigma, "sig"),
            Ok(["c", "n", "pos", "s", "u", "v"].map(String::from).to_vec())
        );
        // A uniform condition (a parameter, the loop variable) keeps what it assigns uniform
        // when the value is.
        let uniform = GAUSS.replace("acc += x", "w = n\nif i > n\nw = 2 * n\nendif\nacc += w * x");
        assert_eq!(verdict(&uniform, "gauss_h"), Ok(vec!["acc".into(), "pos".into()]));
    }

    #[test]
    fn anything_else_keeps_the_per_position_code_and_says_why() {
        let cases = [
            (
                GAUSS
                    .replace("acc += x", "if n > 0\n acc += x")
                    .replace("endfor", "else\nbreak\nendif\nendfor"),
                "`break`, `continue` or `return`",
            ),
            (
                GAUSS
                    .replace("acc += x", "if x[pos] > 0\nfor j = 0..1\nacc += x")
                    .replace("endfor", "endfor\nendif\nendfor"),
                "a loop whose bounds differ between positions",
            ),
            (
                GAUSS.replace("for i = 0..2 * n", "for i = 0..pos[1]"),
                "a loop whose bounds differ between positions",
            ),
            (
                GAUSS.replace("y[pos] = acc", "y[pos[0], 0] = acc"),
                "a write to an element other than the position's",
            ),
            (
                GAUSS.replace("y[pos] = acc", "y[pos] += acc"),
                "a compound assignment to an array element (atomic)",
            ),
            (GAUSS.replace("* fc[i]", "* y[pos[0], i]"), "an array both read and written"),
            (
                GAUSS
                    .replace("for i = 0..2 * n", "i = 0\nwhile i <= 2 * n")
                    .replace("endfor", "i += 1\nendwhile"),
                "a `while`, `repeat` or `for`-each loop",
            ),
            (
                GAUSS.replace("for i = 0..2 * n", "for i = 0..2"),
                "no loop that stays a loop (the positions vectorise as they are)",
            ),
            (GAUSS.replace("acc = 0.0", "acc = 0.0\nn = 3"), "an assignment to a parameter"),
        ];
        for (src, why) in cases {
            assert_eq!(verdict(&src, "gauss_h"), Err(why), "{src}");
        }
        let output = "function [s : scalar] = __kernel__ k(x : vec, n : int, pos : int)
            for i = 0..n
                s += x[pos] * i
            endfor
        endfunction";
        assert_eq!(verdict(output, "k"), Err("kernel outputs (reductions)"));
        let call = "function a : scalar = __device__ f(v : scalar)
            a = v * 2
        endfunction
        function [] = __kernel__ k(x : vec, y : vec, n : int, pos : int)
            acc = 0.0
            for i = 0..n
                acc += f(x[pos])
            endfor
            y[pos] = acc
        endfunction";
        assert_eq!(verdict(call, "k"), Err("a call of a function"));
        let blk = "function [] = __kernel__ k(x : vec, y : vec, n : int, pos : int, blkpos : int)
            acc = 0.0
            for i = 0..n
                acc += x[pos] * blkpos
            endfor
            y[pos] = acc
        endfunction";
        assert_eq!(verdict(blk, "k"), Err("a special parameter other than `pos`"));
    }
}
