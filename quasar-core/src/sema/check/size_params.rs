//! Generic size parameters no argument fixes (`colortransform[N](C : mat(N, N), img :
//! cube(:, :, N))` exported to Rust and not called in the module, or called with arrays of
//! unknown size): the instance takes `N` at run time, from the first parameter dimension
//! that names it (`size(C, 0)`), and checks on entry that the others agree (manual §6.7: "if
//! not, a compiler error or (in some rare cases) a runtime error"). In the body `N` is then
//! an `int` variable, so `zeros(size(img, 0), size(img, 1), N)` and loops up to `N - 1`
//! work; types such as `vec(N)` keep a dimension of unknown size. Host functions only:
//! kernel and device functions are instantiated by their launches and calls.

use super::scope::FnLowerer;
use crate::ir::{self, Builtin, Callee, Const, LocalId, LocalRole};
use crate::sema::types::{Dim, Type};
use crate::span::Span;
use crate::syntax::ast;

/// A size parameter taken at run time: its variable and the parameter dimensions naming it.
#[derive(Clone, Debug)]
pub struct RuntimeSize {
    local: LocalId,
    uses: Vec<(LocalId, usize)>,
    span: Span,
}

impl FnLowerer<'_, '_> {
    /// After the parameters are added: a variable for each size parameter of `def` that the
    /// instance does not fix, named by some parameter's type.
    pub(super) fn take_runtime_sizes(&mut self, def: &ast::FunctionDef) {
        // Kernel and device functions are instantiated by their launches and calls.
        if matches!(def.kind, ast::FunctionKind::Kernel | ast::FunctionKind::Device) {
            return;
        }
        for tp in &def.type_params {
            let name = &tp.name.name;
            if self.sizes.contains_key(name) {
                continue;
            }
            let mut uses = Vec::new();
            for p in &def.params {
                let Some(t) = &p.ty else { continue };
                let Type::Array(a) = self.resolve_type_quiet(t) else { continue };
                let Some(&id) = self.names.get(&p.name.name) else { continue };
                if self.locals[id.0 as usize].role != LocalRole::Param {
                    continue;
                }
                for (d, dim) in a.shape.iter().flatten().enumerate() {
                    if matches!(dim, Dim::Param(n) if n == name) {
                        uses.push((id, d));
                    }
                }
            }
            if uses.is_empty() {
                continue;
            }
            // A value from now on, not a type: nested functions capture it.
            self.type_params.remove(name);
            let local = self.add_local(name, Type::INT, LocalRole::Var, tp.span);
            self.declared[local.0 as usize] = Some(Type::INT);
            self.runtime_sizes.push(RuntimeSize { local, uses, span: tp.span });
        }
    }

    /// The names of the size parameters taken at run time.
    pub(super) fn runtime_size_names(&self) -> Vec<String> {
        self.runtime_sizes.iter().map(|r| self.locals[r.local.0 as usize].name.clone()).collect()
    }

    /// `N = size(C, 0)`, then an assertion per other dimension naming `N`.
    pub(super) fn lower_runtime_sizes(&self) -> ir::Block {
        let mut out = Vec::new();
        for rs in &self.runtime_sizes {
            let span = rs.span;
            let extent = |(p, d): (LocalId, usize)| {
                let arr = ir::Expr::new(
                    ir::ExprKind::Local(p),
                    self.locals[p.0 as usize].ty.clone(),
                    span,
                );
                let dim = ir::Expr::new(ir::ExprKind::Const(Const::Int(d as i64)), Type::INT, span);
                let call = ir::ExprKind::Call {
                    callee: Callee::Builtin(Builtin::Size),
                    args: vec![arr, dim],
                };
                ir::Expr::new(call, Type::INT, span)
            };
            let name = self.locals[rs.local.0 as usize].name.clone();
            let n = || ir::Expr::new(ir::ExprKind::Local(rs.local), Type::INT, span);
            let place = ir::Place::new(ir::PlaceKind::Local(rs.local), Type::INT, span);
            let value = extent(rs.uses[0]);
            out.push(ir::Stmt {
                kind: ir::StmtKind::Assign { place, op: ir::AssignOp::Assign, value },
                span,
            });
            let (first, d0) = rs.uses[0];
            for &(p, d) in &rs.uses[1..] {
                let cond = ir::ExprKind::Binary {
                    op: ir::BinaryOp::Eq,
                    lhs: Box::new(extent((p, d))),
                    rhs: Box::new(n()),
                };
                let message = format!(
                    "the size parameter `{name}` is dimension {d0} of `{}`, which differs from \
                     dimension {d} of `{}`",
                    self.locals[first.0 as usize].name, self.locals[p.0 as usize].name
                );
                let text =
                    ir::Expr::new(ir::ExprKind::Const(Const::Str(message)), Type::String, span);
                out.push(ir::Stmt {
                    kind: ir::StmtKind::Assert {
                        cond: ir::Expr::new(cond, Type::INT, span),
                        message: vec![text],
                    },
                    span,
                });
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use crate::sema::check::tests::checked;

    /// The dump of the instance of `name` in `src`, which must check without errors.
    fn instance(src: &str, name: &str) -> String {
        let c = checked(src);
        assert!(c.diagnostics.iter().all(|d| !d.is_error()), "{:?}", c.diagnostics);
        let f = c.module.functions.iter().find(|f| f.name == name).expect("the instance");
        crate::ir::dump_body::function(&c.module, f)
    }

    #[test]
    fn an_unfixed_size_parameter_is_read_from_the_first_dimension_naming_it() {
        let ir = instance(
            "function y = f[M, N](a : mat(M, N), b : vec(N))
                 y = zeros(M) + N
             endfunction",
            "f",
        );
        assert!(ir.contains("M{int} = size(a{mat(M, N)}, 0{int}){int}"), "{ir}");
        assert!(ir.contains("N{int} = size(a{mat(M, N)}, 1{int}){int}"), "{ir}");
        assert!(
            ir.contains("assert((size(b{vec(N)}, 0{int}){int} == N{int}){int}, \"the size parameter `N` is dimension 1 of `a`, which differs from dimension 0 of `b`\"{string})"),
            "{ir}"
        );
        assert!(ir.contains("zeros(M{int})"), "{ir}");
    }

    #[test]
    fn a_size_parameter_a_call_fixes_stays_a_constant() {
        let ir = instance(
            "function y = f[N](b : vec(N))
                 y = N
             endfunction
             z = f([1.0, 2.0, 3.0])",
            "f",
        );
        assert!(ir.contains("y{int} = 3{int}") && !ir.contains("size("), "{ir}");
    }
}
