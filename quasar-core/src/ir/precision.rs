//! The one step that decides `scalar`'s precision: after type checking, the driver replaces
//! every `Precision::Default` in the module (locals, expressions, places, class fields) by
//! `'double` in double mode and `'single` otherwise, so that passes and back ends see concrete
//! precisions only (invariant 9 of [`super`]; [`super::verify`] checks it).

use super::visit::{walk_expr_mut, walk_place_mut, VisitMut};
use super::{Expr, Module, Place};
use crate::sema::types::Type;

/// Resolves every default precision in `module` for the double mode `double`.
pub fn resolve(module: &mut Module, double: bool) {
    let mut r = Resolve { double };
    for class in &mut module.classes {
        for (_, t) in &mut class.fields {
            r.ty(t);
        }
    }
    for f in &mut module.functions {
        for l in &mut f.locals {
            r.ty(&mut l.ty);
        }
        r.visit_block_mut(&mut f.body);
    }
}

struct Resolve {
    double: bool,
}

impl Resolve {
    fn ty(&self, t: &mut Type) {
        if t.has_default_precision() {
            *t = t.map_precision(&|p| p.resolved(self.double));
        }
    }
}

impl VisitMut for Resolve {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        self.ty(&mut e.ty);
        walk_expr_mut(self, e)
    }

    fn visit_place_mut(&mut self, p: &mut Place) {
        self.ty(&mut p.ty);
        walk_place_mut(self, p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::visit::{walk_expr, Visit};
    use crate::sema::types::Precision;

    fn module(src: &str) -> Module {
        let parsed = crate::syntax::parse(src, crate::FileId(0));
        assert!(!parsed.has_errors(), "{:?}", parsed.diagnostics);
        let checked = crate::sema::check::check_program(&parsed.program);
        assert!(!checked.has_errors(), "{:?}", checked.diagnostics);
        checked.module
    }

    /// Every type of the module: locals, expressions, class fields.
    fn types(m: &Module) -> Vec<Type> {
        struct Types(Vec<Type>);
        impl<'a> Visit<'a> for Types {
            fn visit_expr(&mut self, e: &'a Expr) {
                self.0.push(e.ty.clone());
                walk_expr(self, e)
            }
        }
        let mut out = Types(Vec::new());
        for f in &m.functions {
            out.0.extend(f.locals.iter().map(|l| l.ty.clone()));
            out.visit_block(&f.body);
        }
        out.0.extend(m.classes.iter().flat_map(|c| c.fields.iter().map(|(_, t)| t.clone())));
        out.0
    }

    const SRC: &str = "type pt : class\n    w : vec\nendtype
function y = f(x : cscalar, h : [scalar -> scalar], v : scalar'half)
    p = pt(w := [1.0, 2.0])
    y = real(x) + h(p.w[0]) + v
endfunction
";

    #[test]
    fn scalar_becomes_single_or_double_and_explicit_precisions_stay() {
        for (double, want) in [(false, Precision::Single), (true, Precision::Double)] {
            let mut m = module(SRC);
            assert!(
                types(&m).iter().any(Type::has_default_precision),
                "the checker keeps `scalar`"
            );
            resolve(&mut m, double);
            let all = types(&m);
            assert!(!all.iter().any(Type::has_default_precision), "{all:?}");
            assert!(all.contains(&Type::Complex(want)), "cscalar in double={double}: {all:?}");
            assert!(all.contains(&Type::Scalar(Precision::Half)), "'half stays: {all:?}");
        }
    }
}
