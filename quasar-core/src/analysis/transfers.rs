//! What a launch must copy of each array argument (manual §16.6): a `'const` argument is
//! never copied back from a device, a `'nocopy` one never uploaded to it. Both are inferred
//! from the kernel's effects and body ("the compiler automatically detects parameters that can
//! be annotated") or declared on the parameter; the Rust back end hands the result to the
//! runtime as the argument's `Access`.
//!
//! `'nocopy` is only inferred where it cannot lose data: the kernel never reads the array
//! and every thread, before anything else touches the array, writes the element at its own
//! position (`y[pos] = …` at the top level of the body, no `return` before it), or at a
//! permutation of it (`y[pos[1], pos[0]] = …`, a transpose over its operand's positions).
//! Such a launch overwrites the whole array exactly when its positions, in that order, are
//! the array's elements, which only the launch knows: it passes the argument with
//! `Launch::arg_filled` (`arg_filled_in_order`), which asks for no upload then and copies
//! both ways otherwise.

use super::effects::{Access, Effects};
use super::ModuleInfo;
use crate::diagnostics::Diagnostic;
use crate::ir::visit::{walk_expr, walk_place, walk_stmt, Visit};
use crate::ir::{
    AssignOp, Const, Expr, ExprKind, Function, FunctionId, Index, LocalId, Module, Place,
    PlaceKind, Special, Stmt, StmtKind,
};
use crate::sema::types::{Rank, Type};
use std::fmt::Write as _;

/// How a launch moves one argument between the host and a device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transfer {
    /// Not an array: passed by value.
    Value,
    /// Never written (`'const`): made valid on the device, never copied back. `declared`:
    /// written as `'const` in the source.
    Const {
        /// The parameter's type says `'const`.
        declared: bool,
    },
    /// Declared `'nocopy`: never uploaded, copied back (the programmer's promise that the
    /// old contents are not used).
    NoCopy,
    /// Inferred `'nocopy` where the launch covers the array: never read, and each thread's
    /// first use writes the element whose index `k` is component `order[k]` of its position,
    /// which has `rank` components (see the module documentation).
    Fills {
        /// The components of the position (and the array's rank).
        rank: usize,
        /// The permutation of the position's components; `[0, 1, 2]` (cut to `rank`) is the
        /// position itself.
        order: [u8; 3],
    },
    /// Read and written: uploaded when stale, copied back.
    Copy,
}

/// The transfer of each argument slot of kernel `id` (`KernelInfo::arg_slots` order), from
/// their effects `access`.
pub(super) fn transfers(
    m: &Module,
    id: FunctionId,
    effects: &Effects,
    slots: &[LocalId],
    access: &[Access],
) -> Vec<Transfer> {
    let f = m.function(id);
    // `pos` (a vector is passed by reference) must keep the position.
    let pos = f
        .params
        .iter()
        .copied()
        .find(|p| f.local(*p).special() == Some(Special::Pos))
        .filter(|p| !effects.of(id, *p).write && !mentions(&f.body, *p, true));
    slots
        .iter()
        .zip(access)
        .map(|(&slot, acc)| {
            let Type::Array(a) = &f.local(slot).ty else { return Transfer::Value };
            if a.mods.nocopy {
                return Transfer::NoCopy;
            }
            if !acc.write {
                return Transfer::Const { declared: a.mods.is_const };
            }
            match (acc.read, a.rank) {
                (false, Rank::Fixed(r)) => pos
                    .and_then(|pos| fills_at_position(f, pos, slot, r as usize))
                    .map_or(Transfer::Copy, |order| Transfer::Fills { rank: r as usize, order }),
                _ => Transfer::Copy,
            }
        })
        .collect()
}

/// The order of the components of the position `pos` at which every thread first writes
/// `slot` (an array of rank `rank`), if the body's first statement that uses it is
/// `slot[pos] = …` (or `slot[pos[k0], …, pos[k(rank-1)]] = …` with each component once) with
/// nothing before it that could return.
fn fills_at_position(f: &Function, pos: LocalId, slot: LocalId, rank: usize) -> Option<[u8; 3]> {
    if super::kernel::geometry_rank(&f.local(pos).ty)? != rank || rank > 3 {
        return None;
    }
    for s in &f.body {
        if let StmtKind::Assign { place, op: AssignOp::Assign, value } = &s.kind {
            if let PlaceKind::Index { base, indices } = &place.kind {
                if matches!(base.kind, ExprKind::Local(l) if l == slot) {
                    let order = position_order(indices, pos, rank)?;
                    return (!mentions_expr(value, slot)).then_some(order);
                }
            }
        }
        if mentions(std::slice::from_ref(s), slot, false) || returns(s) {
            return None;
        }
    }
    None
}

/// The order of the position's components that `indices` are: `[0, 1, 2]` for `[pos]` (the
/// whole position) and `[pos[0], …, pos[rank-1]]`, `[1, 0, 2]` for `[pos[1], pos[0]]`; `None`
/// unless each of the `rank` components is used once.
fn position_order(indices: &[Index], pos: LocalId, rank: usize) -> Option<[u8; 3]> {
    let component = |i: &Index| match i {
        Index::At(Expr { kind: ExprKind::Index { base, indices }, .. }) if matches!(base.kind, ExprKind::Local(l) if l == pos) => {
            match indices.as_slice() {
                [Index::At(c)] => match c.constant() {
                    Some(Const::Int(k)) if (0..rank as i64).contains(k) => Some(*k as u8),
                    _ => None,
                },
                _ => None,
            }
        }
        _ => None,
    };
    let mut order = [0, 1, 2];
    match indices {
        [Index::At(e)] if matches!(e.kind, ExprKind::Local(l) if l == pos) => Some(order),
        _ if indices.len() == rank => {
            let mut seen = [false; 3];
            for (k, i) in indices.iter().enumerate() {
                let c = component(i)?;
                if std::mem::replace(&mut seen[c as usize], true) {
                    return None;
                }
                order[k] = c;
            }
            Some(order)
        }
        _ => None,
    }
}

/// Whether `body` uses local `l` (only assignments to it or to its elements when
/// `assigned_only`).
fn mentions(body: &[Stmt], l: LocalId, assigned_only: bool) -> bool {
    struct Find {
        l: LocalId,
        assigned_only: bool,
        found: bool,
    }
    impl Find {
        fn root_is(&self, p: &Place) -> bool {
            match &p.kind {
                PlaceKind::Local(x) => *x == self.l,
                PlaceKind::Index { base, .. } | PlaceKind::Field { base, .. } => {
                    matches!(base.kind, ExprKind::Local(x) if x == self.l)
                }
            }
        }
    }
    impl<'a> Visit<'a> for Find {
        fn visit_stmt(&mut self, s: &'a Stmt) {
            let var = match &s.kind {
                StmtKind::ForRange { var, .. } | StmtKind::ForEach { var, .. } => Some(*var),
                StmtKind::Try { catch_var, .. } => *catch_var,
                _ => None,
            };
            self.found |= var == Some(self.l);
            walk_stmt(self, s);
        }
        fn visit_place(&mut self, p: &'a Place) {
            self.found |= self.root_is(p);
            walk_place(self, p);
        }
        fn visit_expr(&mut self, e: &'a Expr) {
            self.found |=
                !self.assigned_only && matches!(e.kind, ExprKind::Local(x) if x == self.l);
            walk_expr(self, e);
        }
    }
    let mut find = Find { l, assigned_only, found: false };
    find.visit_block(body);
    find.found
}

/// Whether `e` reads local `l`.
pub(super) fn mentions_expr(e: &Expr, l: LocalId) -> bool {
    let mut found = false;
    crate::ir::walk::walk_expr(e, &mut |x| found |= matches!(x.kind, ExprKind::Local(y) if y == l));
    found
}

/// Whether a statement may leave the kernel (`return` at any depth).
fn returns(s: &Stmt) -> bool {
    let mut found = false;
    crate::ir::walk::walk_block(
        std::slice::from_ref(s),
        &mut |s| found |= matches!(s.kind, StmtKind::Return),
        &mut |_| {},
    );
    found
}

/// Errors where a declared modifier contradicts what a function does: a `'const` parameter
/// written through a function it calls or an alias (a direct write is a type error already)
/// and a
/// `'nocopy` parameter of a kernel that never writes it (its contents would be undefined
/// after a launch on a GPU).
pub fn check(m: &Module, info: &ModuleInfo) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for (i, f) in m.functions.iter().enumerate() {
        if f.generic {
            continue;
        }
        for &p in &f.params {
            let l = f.local(p);
            let Type::Array(a) = &l.ty else { continue };
            let acc = info.effects.of(FunctionId(i as u32), p);
            if a.mods.is_const && acc.write {
                out.push(
                    Diagnostic::error(
                        l.span,
                        format!("`{}` writes its `'const` parameter `{}` (through a function it calls or another variable)", f.name, l.name),
                    )
                    .with_note("remove `'const` from the parameter's type, or do not pass it to a function that writes it"),
                );
            }
            if a.mods.nocopy && !acc.write && info.kernel(FunctionId(i as u32)).is_some() {
                out.push(
                    Diagnostic::error(
                        l.span,
                        format!("kernel `{}` never writes its `'nocopy` parameter `{}`: its contents would be undefined after a launch on a GPU", f.name, l.name),
                    )
                    .with_note("`'nocopy` means the kernel overwrites the array without reading its old values; remove it (the compiler infers `'nocopy` where that holds)"),
                );
            }
        }
    }
    out
}

/// The transfers of every kernel, one line each, for `quasar check --ir --after=analysis` and
/// the golden tests: `kernel(x 'const, y 'nocopy when the launch covers it, …)`.
pub fn dump(m: &Module, info: &ModuleInfo) -> String {
    let mut ids: Vec<&FunctionId> = info.kernels.keys().collect();
    ids.sort();
    let mut out = String::new();
    for id in ids {
        let k = &info.kernels[id];
        let f = m.function(*id);
        let args: Vec<String> = k
            .arg_slots
            .iter()
            .zip(&k.transfers)
            .map(|(s, t)| {
                let what = match t {
                    Transfer::Value => "by value",
                    Transfer::Const { declared: true } => "'const (declared)",
                    Transfer::Const { declared: false } => "'const",
                    Transfer::NoCopy => "'nocopy (declared)",
                    Transfer::Fills { .. } => "'nocopy when the launch covers it",
                    Transfer::Copy => "copied both ways",
                };
                format!("{} {what}", f.local(*s).name)
            })
            .collect();
        let _ = writeln!(out, "__kernel__ {}({})", f.name, args.join(", "));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sema::check::check_program;
    use crate::{syntax, FileId};

    /// The transfers of kernel `kernel`'s array arguments, by name.
    fn of(src: &str, kernel: &str) -> Vec<(String, Transfer)> {
        let parsed = syntax::parse(src, FileId(0));
        let checked = check_program(&parsed.program);
        assert!(!checked.has_errors(), "{:?}", checked.diagnostics);
        let m = checked.module;
        let info = ModuleInfo::of(&m);
        let id = m.functions.iter().position(|f| f.name == kernel).expect("kernel");
        let k = info.kernel(FunctionId(id as u32)).expect("kernel info");
        let f = m.function(FunctionId(id as u32));
        k.arg_slots.iter().map(|s| f.local(*s).name.clone()).zip(k.transfers.clone()).collect()
    }

    fn names(v: &[(String, Transfer)]) -> Vec<(&str, Transfer)> {
        v.iter().map(|(n, t)| (n.as_str(), *t)).collect()
    }

    const CONST: Transfer = Transfer::Const { declared: false };

    #[test]
    fn reads_are_const_and_writes_at_the_position_fill() {
        let src = "function [] = __kernel__ k(x : mat, y : mat, z : mat, a : scalar, pos : ivec2)
                 y[pos] = a * x[pos]
                 z[pos[0], pos[1]] = x[pos] + 1
             endfunction
             function [] = run(x : mat, y : mat, z : mat)
                 parallel_do(size(x), x, y, z, 2.0, k)
             endfunction";
        let got = of(src, "k");
        assert_eq!(
            names(&got),
            [
                ("x", CONST),
                ("y", Transfer::Fills { rank: 2, order: [0, 1, 2] }),
                ("z", Transfer::Fills { rank: 2, order: [0, 1, 2] }),
                ("a", Transfer::Value)
            ]
        );
    }

    #[test]
    fn writes_at_a_permutation_of_the_position_fill_in_that_order() {
        let src =
            "function [] = __kernel__ k(x : mat, y : mat, z : cube, w : mat, v : mat, pos : ivec2)
                 y[pos[1], pos[0]] = x[pos]
                 w[pos[0], pos[0]] = x[pos]
                 v[pos[1], 0] = x[pos]
             endfunction
             function [] = __kernel__ k3(z : cube, pos : ivec3)
                 z[pos[2], pos[0], pos[1]] = 1.0
             endfunction
             function [] = run(x : mat, y : mat, z : cube)
                 parallel_do(size(x), x, y, z, x, x, k)
                 parallel_do(size(z), z, k3)
             endfunction";
        let got = of(src, "k");
        assert_eq!(got[1], ("y".into(), Transfer::Fills { rank: 2, order: [1, 0, 2] }));
        // A component twice, or a constant, does not cover the array.
        assert_eq!((got[3].1, got[4].1), (Transfer::Copy, Transfer::Copy));
        let got = of(src, "k3");
        assert_eq!(got[0], ("z".into(), Transfer::Fills { rank: 3, order: [2, 0, 1] }));
    }

    #[test]
    fn partial_conditional_or_read_writes_copy() {
        let src = "function [] = __kernel__ k(x : vec, a : vec, b : vec, c : vec, d : vec, e : mat, pos : int)
                 if pos > 0
                     a[pos] = 1.0
                 endif
                 b[pos + 1] = x[pos]
                 c[pos] = 1.0
                 c[pos] += x[pos]
                 if x[pos] > 2
                     return
                 endif
                 d[pos] = 2.0
                 e[pos] = 1.0
             endfunction
             function [] = run(x : vec, e : mat)
                 parallel_do(numel(x), x, x, x, x, x, e, k)
             endfunction";
        let got = of(src, "k");
        let copies = got.iter().filter(|(_, t)| *t == Transfer::Copy).count();
        // `a` conditional, `b` not at the position, `c` read, `d` after a return, `e` a
        // linear index into a matrix.
        assert_eq!(copies, 5, "{got:?}");
    }

    #[test]
    fn a_reassigned_position_or_an_earlier_use_prevents_filling() {
        let src = "function [] = __kernel__ k(y : vec, z : vec, pos : int)
                 n = numel(z)
                 z[pos] = n
                 pos = pos + 1
                 y[pos] = 1.0
             endfunction
             function [] = run(y : vec)
                 parallel_do(numel(y), y, y, k)
             endfunction";
        assert!(of(src, "k").iter().all(|(_, t)| *t == Transfer::Copy));
    }

    #[test]
    fn declared_modifiers_are_kept() {
        let src = "function [] = __kernel__ k(x : vec'const, y : vec'nocopy, pos : int)
                 y[pos] = 0.0
                 y[pos] += x[pos]
             endfunction
             function [] = run(x : vec, y : vec)
                 parallel_do(numel(x), x, y, k)
             endfunction";
        assert_eq!(
            names(&of(src, "k")),
            [("x", Transfer::Const { declared: true }), ("y", Transfer::NoCopy)]
        );
    }

    fn check_errors(src: &str) -> Vec<String> {
        let parsed = syntax::parse(src, FileId(0));
        let checked = check_program(&parsed.program);
        assert!(!checked.has_errors(), "{:?}", checked.diagnostics);
        let info = ModuleInfo::of(&checked.module);
        check(&checked.module, &info).into_iter().map(|d| d.message).collect()
    }

    #[test]
    fn contradicted_declarations_are_errors() {
        let src = "function [] = __device__ put(y : vec, i : int)
                 y[i] = 1.0
             endfunction
             function [] = __kernel__ k(x : vec'const, y : vec'nocopy, pos : int)
                 put(x, pos)
                 s = y[pos]
             endfunction
             function [] = run(x : vec, y : vec)
                 parallel_do(numel(x), x, y, k)
             endfunction";
        let errs = check_errors(src);
        assert_eq!(errs.len(), 2, "{errs:?}");
        assert!(errs[0].contains("`'const` parameter `x`"), "{errs:?}");
        assert!(errs[1].contains("never writes its `'nocopy` parameter `y`"), "{errs:?}");
    }
}
