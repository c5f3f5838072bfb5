//! Function values (lambdas, closures, function handles): every function type of the module
//! and, per type, the functions that flow into it. The Rust back end makes each type an enum
//! with one variant per function (defunctionalisation, `backend/rust/fnval.rs`); the PTX back
//! end reads the same enum's bytes and branches on its tag, the function's index here; effects
//! of a call through a value are those of every function of its type.

use crate::ir::visit::Visit;
use crate::ir::{Builtin, Callee, Expr, ExprKind, FunctionId, Module};
use crate::sema::types::{FnType, Type};

/// The function types a module uses as values, and for each the functions of that type (the variants of the host's function-value enum, the tags the PTX branches on).
#[derive(Clone, Debug, Default)]
pub struct FnValues {
    /// Function types, by their printed form.
    types: Vec<(String, FnType)>,
    /// The functions of each type (deduplicated, in module order of first use).
    variants: Vec<Vec<FunctionId>>,
}

impl FnValues {
    /// Every function type of `m` and every function used as a value, in module order.
    pub fn of(m: &Module) -> FnValues {
        struct Collect<'v>(&'v mut FnValues);
        impl<'a> Visit<'a> for Collect<'_> {
            fn visit_expr(&mut self, e: &'a Expr) {
                // `max_block_size(kernel, dims)` (and `opt_block_size`, `opt_block_cnt`) names
                // the kernel; it is not a value.
                if let ExprKind::Call {
                    callee:
                        Callee::Builtin(
                            Builtin::MaxBlockSize | Builtin::OptBlockSize | Builtin::OptBlockCnt,
                        ),
                    args,
                } = &e.kind
                {
                    for a in args.iter().filter(|a| !matches!(a.kind, ExprKind::FunctionRef(_))) {
                        self.visit_expr(a);
                    }
                    return;
                }
                match (&e.kind, &e.ty) {
                    (ExprKind::Closure { function, .. }, Type::Function(ft))
                    | (ExprKind::FunctionRef(function), Type::Function(ft)) => {
                        self.0.add_variant(ft, *function)
                    }
                    (_, Type::Function(ft)) => {
                        self.0.add_type(ft);
                    }
                    _ => {}
                }
                crate::ir::visit::walk_expr(self, e);
            }
        }
        let mut vals = FnValues::default();
        for f in m.functions.iter().filter(|f| !f.generic) {
            for l in &f.locals {
                if let Type::Function(ft) = &l.ty {
                    vals.add_type(ft);
                }
            }
            Collect(&mut vals).visit_block(&f.body);
        }
        vals
    }

    /// The number of function types.
    pub fn len(&self) -> usize {
        self.types.len()
    }

    /// Whether the module uses no function types.
    pub fn is_empty(&self) -> bool {
        self.types.is_empty()
    }

    /// The index of a function type, if the module uses it.
    pub fn index_of(&self, ft: &FnType) -> Option<usize> {
        let key = Type::Function(Box::new(ft.clone())).to_string();
        self.types.iter().position(|(k, _)| *k == key)
    }

    /// The function type with index `k`.
    pub fn signature(&self, k: usize) -> &FnType {
        &self.types[k].1
    }

    /// The functions of the `k`-th function type, in the order of the enum's variants (the
    /// variant's tag is its index here).
    pub fn variants(&self, k: usize) -> &[FunctionId] {
        &self.variants[k]
    }

    /// The functions a value of type `ft` may be.
    pub fn targets(&self, ft: &FnType) -> &[FunctionId] {
        self.index_of(ft).map_or(&[], |k| self.variants(k))
    }

    fn add_type(&mut self, ft: &FnType) -> usize {
        match self.index_of(ft) {
            Some(i) => i,
            None => {
                let key = Type::Function(Box::new(ft.clone())).to_string();
                self.types.push((key, ft.clone()));
                self.variants.push(Vec::new());
                self.types.len() - 1
            }
        }
    }

    fn add_variant(&mut self, ft: &FnType, f: FunctionId) {
        let i = self.add_type(ft);
        if !self.variants[i].contains(&f) {
            self.variants[i].push(f);
        }
    }
}
