//! Arrays a kernel only accumulates into: every use of the argument in the kernel's own body
//! is a statement `a[i] += v` or `a[i] -= v` on one element, and nothing else reads it, passes
//! it on, captures it or assigns it. Such updates commute, and nothing the kernel does sees
//! their intermediate values, so a group of threads may add into a private zeroed copy and add
//! that copy into the array once at the end instead of updating it atomically per thread (a
//! histogram's 256 bins: every thread of a CPU block would otherwise contend on the same few
//! cache lines). The CPU back end privatises per block when the block has many more positions
//! than the array has elements (`backend/rust/kernel.rs`, quasar-std `rt::private`).

use crate::ir::visit::{walk_expr, walk_index, walk_place, walk_stmt, Visit};
use crate::ir::{AssignOp, Expr, ExprKind, Function, Index, LocalId, PlaceKind, Stmt, StmtKind};
use crate::sema::types::Type;

/// The arguments among `slots` (arrays of integers or reals) that `f`'s body only accumulates into, in
/// slot order.
pub fn accumulated_only(f: &Function, slots: &[LocalId]) -> Vec<LocalId> {
    let mut scan = Scan { accumulated: Vec::new(), other: Vec::new() };
    scan.visit_block(&f.body);
    slots
        .iter()
        .copied()
        .filter(|l| {
            let numeric =
                matches!(&f.local(*l).ty, Type::Array(a) if a.elem.is_int() || a.elem.is_scalar());
            numeric && scan.accumulated.contains(l) && !scan.other.contains(l)
        })
        .collect()
}

struct Scan {
    /// Locals that are the array of some `a[i] += v` / `a[i] -= v` statement.
    accumulated: Vec<LocalId>,
    /// Locals used any other way.
    other: Vec<LocalId>,
}

/// The array of `a[i, …] op= v` when `op` is `+=`/`-=` and every subscript is one position.
fn accumulation(s: &Stmt) -> Option<LocalId> {
    let StmtKind::Assign { place, op: AssignOp::Add | AssignOp::Sub, .. } = &s.kind else {
        return None;
    };
    let PlaceKind::Index { base, indices } = &place.kind else { return None };
    let ExprKind::Local(l) = base.kind else { return None };
    indices.iter().all(|i| matches!(i, Index::At(_))).then_some(l)
}

impl<'a> Visit<'a> for Scan {
    fn visit_stmt(&mut self, s: &'a Stmt) {
        match (accumulation(s), &s.kind) {
            (Some(l), StmtKind::Assign { place, value, .. }) => {
                self.accumulated.push(l);
                // The subscripts and the value are ordinary uses (`h[h[0]] += 1` reads `h`).
                if let PlaceKind::Index { indices, .. } = &place.kind {
                    indices.iter().for_each(|i| walk_index(self, i));
                }
                self.visit_expr(value);
            }
            _ => walk_stmt(self, s),
        }
    }

    fn visit_place(&mut self, p: &'a crate::ir::Place) {
        if let PlaceKind::Local(l) = p.kind {
            self.other.push(l);
        }
        walk_place(self, p);
    }

    fn visit_expr(&mut self, e: &'a Expr) {
        if let ExprKind::Local(l) = e.kind {
            self.other.push(l);
        }
        walk_expr(self, e);
    }
}

#[cfg(test)]
mod tests {
    use crate::sema::check::check_program;
    use crate::{syntax, FileId};

    /// The names of the kernel `k`'s accumulated-only arguments.
    fn accumulated(src: &str) -> Vec<String> {
        let parsed = syntax::parse(src, FileId(0));
        let checked = check_program(&parsed.program);
        assert!(!checked.has_errors(), "{:?}", checked.diagnostics);
        let m = checked.module;
        let id = m.functions.iter().position(|f| f.name == "k").expect("kernel k");
        let f = &m.functions[id];
        let info = crate::analysis::ModuleInfo::of(&m);
        let k = info.kernel(crate::ir::FunctionId(id as u32)).expect("kernel info");
        k.accumulators.iter().map(|l| f.local(*l).name.clone()).collect()
    }

    fn kernel(params: &str, body: &str, args: &str) -> String {
        format!(
            "function [] = __kernel__ k({params}, pos : int)\n{body}\nendfunction\n\
             function [] = run(x : vec, h : vec, g : vec)\n    parallel_do(numel(x), {args}, k)\nendfunction\n"
        )
    }

    #[test]
    fn histograms_and_scatters_accumulate_only() {
        let src = kernel(
            "x : vec, h : vec, g : vec",
            "    h[int(x[pos])] += 1.0\n    g[pos] -= x[pos]\n    g[pos + 1] += 2.0",
            "x, h, g",
        );
        assert_eq!(accumulated(&src), ["h", "g"]);
    }

    #[test]
    fn any_other_use_keeps_the_atomic_updates() {
        // Read elsewhere, assigned an element, used in its own subscript, passed on.
        for body in [
            "    h[pos] += 1.0\n    x[pos] = h[0]",
            "    h[pos] += 1.0\n    h[0] = 2.0",
            "    h[int(h[0])] += 1.0",
            "    h[pos] += numel(h)",
            "    h[pos] *= 2.0",
        ] {
            let src = kernel("x : vec, h : vec, g : vec", body, "x, h, g");
            assert_eq!(accumulated(&src), Vec::<String>::new(), "{body}");
        }
    }
}
