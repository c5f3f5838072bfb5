//! Read/write effects on array elements, per function and local, through calls of device
//! functions, calls through function values and closures: what a kernel launch must copy to
//! a device (read) and back (written). A function's effect on a parameter or capture is
//! visited on the argument passed for it at every call; a local of array type assigned from
//! another array shares its elements, so an effect on one is an effect on the other. The
//! result is the least fixpoint over the whole module (recursion and cycles of values too).

use super::fnvals::FnValues;
use crate::ir::visit::{walk_expr, walk_place, Visit};
use crate::ir::AssignOp;
use crate::ir::{
    Callee, Expr, ExprKind, Function, FunctionId, LocalId, Module, Place, PlaceKind, StmtKind,
};
use crate::sema::types::Type;

/// How a function uses the elements of one array.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Access {
    /// Some element may be read.
    pub read: bool,
    /// Some element may be written.
    pub write: bool,
}

impl Access {
    const READ: Access = Access { read: true, write: false };
    const WRITE: Access = Access { read: false, write: true };

    fn join(&mut self, o: Access) -> bool {
        let before = *self;
        self.read |= o.read;
        self.write |= o.write;
        *self != before
    }
}

/// The effects of every function: `of(f)[l]` for local `l` of `f`.
#[derive(Clone, Debug, Default)]
pub struct Effects {
    per_function: Vec<Vec<Access>>,
}

impl Effects {
    /// The effects of every function of `m`, through calls and function values.
    pub fn compute(m: &Module, fnvals: &FnValues) -> Effects {
        let mut e = Effects {
            per_function: m
                .functions
                .iter()
                .map(|f| vec![Access::default(); f.locals.len()])
                .collect(),
        };
        let aliases: Vec<Vec<(LocalId, LocalId)>> = m.functions.iter().map(array_aliases).collect();
        // Monotone in every entry: iterate to the fixpoint.
        loop {
            let mut changed = false;
            for (i, f) in m.functions.iter().enumerate() {
                let mut scan = Scan { m, fnvals, effects: &e, found: Vec::new() };
                scan.visit_block(&f.body);
                let found = std::mem::take(&mut scan.found);
                let own = &mut e.per_function[i];
                for (l, a) in found {
                    if let Some(slot) = own.get_mut(l.0 as usize) {
                        changed |= slot.join(a);
                    }
                }
                for &(a, b) in &aliases[i] {
                    let (x, y) = (own[a.0 as usize], own[b.0 as usize]);
                    changed |= own[a.0 as usize].join(y);
                    changed |= own[b.0 as usize].join(x);
                }
            }
            if !changed {
                return e;
            }
        }
    }

    /// The effect of function `f` on its local `l`.
    pub fn of(&self, f: FunctionId, l: LocalId) -> Access {
        self.per_function
            .get(f.0 as usize)
            .and_then(|v| v.get(l.0 as usize))
            .copied()
            .unwrap_or_default()
    }
}

/// Pairs of array locals of `f` that may hold the same array: `a = b` (and any array local
/// mentioned in the value assigned to an array local).
fn array_aliases(f: &Function) -> Vec<(LocalId, LocalId)> {
    let mut out = Vec::new();
    crate::ir::walk::walk_block(
        &f.body,
        &mut |s| {
            if let StmtKind::Assign { place, value, .. } = &s.kind {
                if let (PlaceKind::Local(dst), Type::Array(_)) = (&place.kind, &place.ty) {
                    crate::ir::walk::walk_expr(value, &mut |x| {
                        if let (ExprKind::Local(src), Type::Array(_)) = (&x.kind, &x.ty) {
                            out.push((*dst, *src));
                        }
                    });
                }
            }
        },
        &mut |_| {},
    );
    out
}

/// The direct effects of one function body, given the current effects of its callees.
struct Scan<'m, 'e> {
    m: &'m Module,
    fnvals: &'m FnValues,
    effects: &'e Effects,
    found: Vec<(LocalId, Access)>,
}

impl<'m> Scan<'m, '_> {
    /// The array local an expression names, looking through conversions.
    fn array_local(e: &Expr) -> Option<LocalId> {
        match &e.kind {
            ExprKind::Local(l) => Some(*l),
            ExprKind::Convert(inner) => Self::array_local(inner),
            _ => None,
        }
    }

    /// A call of `g` with `args` for `slots` of it: an array passed for a slot gets the
    /// callee's effect on that slot; other arguments are visited as reads.
    fn pass(&mut self, g: FunctionId, slots: &[LocalId], args: &'m [Expr]) {
        for (i, a) in args.iter().enumerate() {
            match (Self::array_local(a), slots.get(i)) {
                (Some(l), Some(slot)) => {
                    let eff = self.effects.of(g, *slot);
                    self.found.push((l, eff));
                }
                _ => self.visit_expr(a),
            }
        }
    }

    fn slots(&self, g: FunctionId, captures: bool) -> Vec<LocalId> {
        let Some(c) = self.m.functions.get(g.0 as usize) else { return Vec::new() };
        let params = c.params.iter().filter(|p| c.local(**p).special().is_none());
        if captures {
            params.chain(&c.captures).copied().collect()
        } else {
            params.copied().collect()
        }
    }
}

impl<'m> Visit<'m> for Scan<'m, '_> {
    fn visit_place(&mut self, p: &'m Place) {
        let (field_base, component) = match &p.kind {
            PlaceKind::Field { base, .. } => (Some(base), &[][..]),
            // A component of a vector field of an element (`a[i].v[k] = x`).
            PlaceKind::Index { base, indices } if matches!(base.kind, ExprKind::Field { .. }) => {
                (Some(base), &indices[..])
            }
            _ => (None, &[][..]),
        };
        if let Some(base) = field_base {
            let mut owner = base.as_ref();
            while let ExprKind::Field { base, .. } = &owner.kind {
                owner = base;
            }
            if let ExprKind::Index { base: arr, indices } = &owner.kind {
                if let Some(l) = Self::array_local(arr) {
                    // A field of an element (`a[i].x = v`): its other fields are kept, so
                    // the array is read as well as written.
                    self.found.push((l, Access::WRITE));
                    self.found.push((l, Access::READ));
                    indices.iter().chain(component).for_each(|i| self.visit_index(i));
                    return;
                }
            }
        }
        if let PlaceKind::Index { base, indices } = &p.kind {
            if let Some(l) = Self::array_local(base) {
                self.found.push((l, Access::WRITE));
                indices.iter().for_each(|i| self.visit_index(i));
                return;
            }
        }
        walk_place(self, p);
    }

    fn visit_stmt(&mut self, s: &'m crate::ir::Stmt) {
        // `x[i] += v` reads the element too.
        if let StmtKind::Assign { place, op, .. } = &s.kind {
            if let (PlaceKind::Index { base, .. }, false) = (&place.kind, *op == AssignOp::Assign) {
                if let Some(l) = Self::array_local(base) {
                    self.found.push((l, Access::READ));
                }
            }
        }
        crate::ir::visit::walk_stmt(self, s);
    }

    fn visit_expr(&mut self, e: &'m Expr) {
        match &e.kind {
            // Any other use of an array (an element, a slice, `size(x)`) reads it.
            ExprKind::Local(l) => self.found.push((*l, Access::READ)),
            ExprKind::Assign { place, op, .. } if *op != AssignOp::Assign => {
                if let PlaceKind::Index { base, .. } = &place.kind {
                    if let Some(l) = Self::array_local(base) {
                        self.found.push((l, Access::READ));
                    }
                }
            }
            ExprKind::Call { callee: Callee::Function(g), args } => {
                let slots = self.slots(*g, true);
                return self.pass(*g, &slots, args);
            }
            ExprKind::Call { callee: Callee::Value(v), args } => {
                self.visit_expr(v);
                let targets = match &v.ty {
                    Type::Function(ft) => self.fnvals.targets(ft),
                    _ => &[],
                };
                // A value's captures are bound inside it: the arguments are its parameters.
                for &g in targets {
                    let slots = self.slots(g, false);
                    self.pass(g, &slots, args);
                }
                if targets.is_empty() {
                    args.iter().for_each(|a| self.visit_expr(a));
                }
                return;
            }
            ExprKind::ParallelDo { dims, block_dims, kernel, args } => {
                self.visit_expr(dims);
                if let Some(b) = block_dims {
                    self.visit_expr(b);
                }
                let slots = self.slots(*kernel, true);
                return self.pass(*kernel, &slots, args);
            }
            ExprKind::Closure { function, captures } => {
                // Calling the closure later acts on what it captures now.
                let slots = self.m.functions.get(function.0 as usize).map(|c| c.captures.clone());
                return self.pass(*function, &slots.unwrap_or_default(), captures);
            }
            _ => {}
        }
        walk_expr(self, e);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sema::check::check_program;
    use crate::{syntax, FileId};

    fn kernel_effects(src: &str, kernel: &str) -> Vec<(String, Access)> {
        let parsed = syntax::parse(src, FileId(0));
        let checked = check_program(&parsed.program);
        assert!(!checked.has_errors(), "{:?}", checked.diagnostics);
        let m = checked.module;
        let fv = FnValues::of(&m);
        let e = Effects::compute(&m, &fv);
        let id = m.functions.iter().position(|f| f.name == kernel).expect("kernel");
        let f = &m.functions[id];
        f.params
            .iter()
            .filter(|p| matches!(f.local(**p).ty, Type::Array(_)))
            .map(|p| (f.local(*p).name.clone(), e.of(FunctionId(id as u32), *p)))
            .collect()
    }

    const R: Access = Access { read: true, write: false };
    const W: Access = Access { read: false, write: true };
    const RW: Access = Access { read: true, write: true };

    #[test]
    fn writes_through_device_functions_are_writes() {
        let src = "function [] = __device__ put(y : vec, i : int, v : scalar)
                 y[i] = v
             endfunction
             function [] = __device__ put2(y : vec, i : int, v : scalar)
                 put(y, i, v)
             endfunction
             function [] = __kernel__ k(x : vec, y : vec, pos : int)
                 put2(y, pos, 2 * x[pos])
             endfunction
             function [] = run(x : vec, y : vec)
                 parallel_do(numel(x), x, y, k)
             endfunction";
        assert_eq!(kernel_effects(src, "k"), [("x".to_string(), R), ("y".to_string(), W)]);
    }

    #[test]
    fn compound_assignments_and_aliases() {
        let src = "function [] = __kernel__ k(x : vec, y : vec, z : vec, pos : int)
                 x[pos] += 1
                 a = y
                 a[pos] = z[pos]
             endfunction
             function [] = run(x : vec, y : vec, z : vec)
                 parallel_do(numel(x), x, y, z, k)
             endfunction";
        let got = kernel_effects(src, "k");
        assert_eq!(got[0], ("x".to_string(), RW));
        assert!(got[1].1.write, "y is written through its alias: {got:?}");
        assert_eq!(got[2], ("z".to_string(), R));
    }

    #[test]
    fn a_component_of_a_vector_field_of_an_element_is_a_write() {
        let src = "type body : mutable class
                 v : vec3
             endtype
             function [] = __kernel__ k(a : vec[body], b : vec[body], pos : int)
                 a[pos].v[1] = pos
                 b[0].v[pos] += 1
             endfunction
             function [] = run(a : vec[body], b : vec[body])
                 parallel_do(numel(a), a, b, k)
             endfunction";
        assert_eq!(kernel_effects(src, "k"), [("a".to_string(), RW), ("b".to_string(), RW)]);
    }

    #[test]
    fn writes_through_function_values_are_writes() {
        let src = "function [] = __device__ put(y : vec, i : int, v : scalar)
                 y[i] = v
             endfunction
             function [] = __kernel__ k(y : vec, f : [__device__ (vec, int, scalar) -> ()], pos : int)
                 f(y, pos, 1.0)
             endfunction
             function [] = run(y : vec)
                 parallel_do(numel(y), y, put, k)
             endfunction";
        assert_eq!(kernel_effects(src, "k"), [("y".to_string(), W)]);
    }
}
