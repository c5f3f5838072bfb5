//! `parallel_do` / `serial_do`: instantiating the kernel for the launch's argument types, with
//! the special parameters typed after the dimensions, and the kernel's calling rules.

use super::call::results_type;
use super::scope::{FnLowerer, NameRef};
use crate::diagnostics::Diagnostic;
use crate::ir::Special;
use crate::ir::{self, Callee, FunctionId, LocalId};
use crate::sema::types::{Dim, Rank, Type};
use crate::span::Span;
use crate::syntax::ast::{self, Expr, ExprKind, FunctionKind};

/// Types a kernel's parameter list for one launch (or says why it does not fit).
type ParamFill<'f> = &'f dyn Fn(&[ast::Param]) -> Result<Vec<Type>, String>;

impl<'c, 'a> FnLowerer<'c, 'a> {
    /// `parallel_do(dims, args…, kernel)`: instantiates the kernel with the argument types,
    /// the special parameters typed after `dims` (`int` or `ivecN`).
    pub(super) fn parallel_do(
        &mut self,
        which: &str,
        args: &'a [ast::Arg],
        span: Span,
    ) -> ir::Expr {
        if args.len() < 2 {
            return self.invalid(span, &format!("`{which}` needs the dimensions and a kernel function: `{which}(dims, args…, kernel)`"));
        }
        let (dims_arg, rest) = args.split_first().expect("checked length");
        let (kernel_arg, call_args) = rest.split_last().expect("checked length");
        // `[dims, blkdims]`: explicit block dimensions, a matrix of two vectors or, for a
        // kernel declared one-dimensional, two numbers (docs/ARCHITECTURE.md, "Launch forms").
        let whole = self.lower_expr(&dims_arg.value);
        // `[size(x, 0..1)]` (manual §9.2.3.2): one vector in brackets is that vector.
        let whole = match whole.kind {
            ir::ExprKind::Matrix(mut items)
                if items.len() == 1
                    && matches!(&items[0].ty, Type::Array(a) if a.rank == Rank::Fixed(1)) =>
            {
                items.pop().expect("one item")
            }
            kind => ir::Expr { kind, ..whole },
        };
        let pair = |items: &[ir::Expr], this: &mut Self| {
            let vectors = items.iter().all(|i| matches!(i.ty, Type::Array(_)));
            let numbers = items.iter().all(|i| i.ty.is_int() || matches!(i.ty, Type::Scalar(_)));
            items.len() == 2
                && (vectors || numbers && this.declared_launch_rank(&kernel_arg.value) == Some(1))
        };
        let (dims, block_dims) = match whole.kind {
            ir::ExprKind::Matrix(mut items) if pair(&items, self) => {
                let blk = items.pop().expect("two items");
                let d = items.pop().expect("two items");
                self.check_block_rank(which, &d, &blk);
                (d, Some(Box::new(blk)))
            }
            kind => (ir::Expr { kind, ..whole }, None),
        };
        let pos_type = match &dims.ty {
            t if t.is_int() => Type::INT,
            // `parallel_do(numel(x) / 2, …)`: a scalar count is truncated.
            t @ Type::Scalar(_) => {
                self.warn_conversion(t, &Type::INT, dims.span);
                Type::INT
            }
            // A one-element size (`size(v)` of a vector) is a one-dimensional launch.
            Type::Array(a)
                if a.rank == Rank::Fixed(1) && a.shape.as_deref() == Some(&[Dim::Known(1)]) =>
            {
                Type::INT
            }
            Type::Array(a) if a.rank == Rank::Fixed(1) => {
                Type::Array(Box::new(crate::sema::types::ArrayType {
                    elem: Type::INT,
                    ..(**a).clone()
                }))
            }
            Type::Unknown | Type::Void | Type::Param(_) => Type::Unknown,
            t => {
                let d = Diagnostic::error(dims.span, format!("the dimensions of `{which}` must be an int or an integer vector, found {t}"));
                self.report(d);
                Type::Unknown
            }
        };
        let mut lowered = self.lower_args(call_args);
        // `parallel_do(dims, blkdims, args…, kernel)` (manual §9.2.3.2, §10.7, §17.2.5): one argument
        // more than the kernel takes, the first an `int` or a short integer vector, is the
        // block dimensions.
        let block_dims = match block_dims {
            None if Some(lowered.len().saturating_sub(1))
                == self.explicit_param_count(&kernel_arg.value)
                && !lowered.is_empty()
                && is_block_size(&lowered[0].ty) =>
            {
                let blk = lowered.remove(0);
                self.check_block_rank(which, &dims, &blk);
                Some(Box::new(blk))
            }
            b => b,
        };
        let arg_types = Self::arg_types(&lowered);
        let kernel = self.kernel_target(&kernel_arg.value, &arg_types, &pos_type, span);
        let Some(kernel) = kernel else {
            return ir::Expr::new(
                ir::ExprKind::Call { callee: Callee::Unresolved(which.to_string()), args: lowered },
                Type::Unknown,
                span,
            );
        };
        // (A cell of device function values goes element by element: `device_fn_cells.rs`.)
        let (setups, mut all_args) = self.flatten_args(kernel, lowered, span);
        all_args.extend(self.capture_args(kernel, span));
        let f = self.cx.module.function(kernel);
        let untyped: Vec<(String, Type, Span)> = f
            .params
            .iter()
            .map(|&p| &f.locals[p.0 as usize])
            .filter(|l| !l.ty.is_concrete() && l.ty != Type::Void)
            .map(|l| (l.name.clone(), l.ty.clone(), l.span))
            .collect();
        for (name, ty, pspan) in untyped {
            let d = Diagnostic::error(
                span,
                format!("the type of kernel parameter `{name}` cannot be inferred (it is {ty})"),
            )
            .with_secondary(pspan, format!("add a type annotation here, e.g. `{name} : mat`"))
            .with_note("kernel functions need fully known parameter types");
            self.report(d);
        }
        let f = self.cx.module.function(kernel);
        let results: Vec<Type> =
            f.outputs.iter().map(|o| f.locals[o.0 as usize].ty.clone()).collect();
        let kind =
            ir::ExprKind::ParallelDo { dims: Box::new(dims), block_dims, kernel, args: all_args };
        let launch = ir::Expr::new(kind, results_type(&results), span);
        super::flat_params::with_setups(setups, launch)
    }

    /// The number of launch dimensions that the declared geometry parameters (`pos`,
    /// `blkpos`, `blkidx`, `blkdim`, `blkcnt`) of the kernel named by `e` ask for: `Some(k)`
    /// when at least one is declared and all declared ones have `k` components (`int`: 1,
    /// `ivecK`: k). `None` for a kernel without declared ones, a lambda, or an unknown name.
    fn declared_launch_rank(&mut self, e: &'a Expr) -> Option<usize> {
        let def = self.named_kernel(e)?;
        let mut ranks = Vec::new();
        for p in def.params.iter().filter(|p| p.ty.is_some()) {
            if Special::from_name(&p.name.name).is_some_and(|s| s.is_geometry()) {
                let declared = self.cx.declared_param_type(def, p);
                ranks.push(super::geometry::components(&declared)?);
            }
        }
        let first = *ranks.first()?;
        ranks.iter().all(|&k| k == first).then_some(first)
    }

    /// The declaration of the `__kernel__` function that `e` names (looked up without
    /// reporting anything: `kernel_target` reports what is wrong with it).
    fn named_kernel(&self, e: &'a Expr) -> Option<&'a ast::FunctionDef> {
        let e = match &e.kind {
            ExprKind::Index { base, .. } => &**base,
            ExprKind::Paren(items) if items.len() == 1 => &items[0],
            _ => e,
        };
        let ExprKind::Ident(name) = &e.kind else { return None };
        if self.names.contains_key(name) {
            return None;
        }
        let ids = self.cx.decls.lookup_function(self.scope, name)?;
        let decl =
            *ids.iter().find(|&&i| self.cx.decls.function(i).def.kind == FunctionKind::Kernel)?;
        Some(self.cx.decls.function(decl).def)
    }

    /// Reports block dimensions with another number of components than the dimensions.
    fn check_block_rank(&mut self, which: &str, dims: &ir::Expr, blk: &ir::Expr) {
        let len = |e: &ir::Expr| match &e.ty {
            Type::Array(a) => match a.shape.as_deref() {
                Some([Dim::Known(n)]) => Some(*n),
                _ => None,
            },
            _ => Some(1),
        };
        if let (Some(n), Some(b)) = (len(dims), len(blk)) {
            if n != b {
                let d = Diagnostic::error(blk.span, format!("the block dimensions of `{which}` have {b} component(s) but the dimensions have {n}"))
                    .with_note("give one block dimension per launch dimension");
                self.report(d);
            }
        }
    }

    /// The kernel's explicit (not special) parameters.
    fn explicit_param_count(&self, e: &'a Expr) -> Option<usize> {
        let def = self.named_kernel(e)?;
        Some(def.params.iter().filter(|p| Special::from_name(&p.name.name).is_none()).count())
    }

    /// Resolves and instantiates the kernel of a `parallel_do`.
    fn kernel_target(
        &mut self,
        e: &'a Expr,
        arg_types: &[Type],
        pos_type: &Type,
        span: Span,
    ) -> Option<FunctionId> {
        // The parameter list to match: explicit ones take the arguments, special ones the
        // launch geometry.
        let fill = |params: &[ast::Param]| -> Result<Vec<Type>, String> {
            let explicit =
                params.iter().filter(|p| Special::from_name(&p.name.name).is_none()).count();
            if explicit != arg_types.len() {
                return Err(format!(
                    "the kernel takes {explicit} argument(s) but `parallel_do` passes {}",
                    arg_types.len()
                ));
            }
            let mut it = arg_types.iter();
            Ok(params
                .iter()
                .map(|p| match Special::from_name(&p.name.name) {
                    Some(s) => s.param_type(pos_type),
                    None => it.next().cloned().unwrap_or(Type::Unknown),
                })
                .collect())
        };
        // `hist_kernel[256]`: a generic kernel with explicit generic arguments.
        let (e, generics) = match &e.kind {
            ExprKind::Index { base, indices } if matches!(&base.kind, ExprKind::Ident(n) if !self.names.contains_key(n)) => {
                (&**base, self.lower_generic_args(indices))
            }
            _ => (e, Vec::new()),
        };
        match &e.kind {
            ExprKind::Ident(name) => match self.resolve_name(name, e.span) {
                Some(NameRef::Functions(ids)) => {
                    let decl = *ids
                        .iter()
                        .find(|&&i| self.cx.decls.function(i).def.kind == FunctionKind::Kernel)?;
                    let def = self.cx.decls.function(decl).def;
                    if !self.check_generic_count(def, generics.len(), span) {
                        return None;
                    }
                    let types = match fill(&def.params) {
                        Ok(t) => t,
                        Err(msg) => {
                            let d = Diagnostic::error(span, msg)
                                .with_secondary(def.name.span, "the kernel");
                            self.report(d);
                            return None;
                        }
                    };
                    self.check_kernel_args(def.params.as_slice(), &types, def, span);
                    let env = self.env_for_scope(self.cx.decls.function(decl).parent);
                    self.cx.instantiate(decl, types, generics, span, env)
                }
                Some(NameRef::Local(id)) if generics.is_empty() => {
                    let (lambda, lspan, _) = *self.lambdas.get(&id)?;
                    self.kernel_lambda(lambda, lspan, &fill, span)
                }
                _ => {
                    let d = Diagnostic::error(
                        e.span,
                        format!("`{name}` is not a `__kernel__` function"),
                    )
                    .with_note("the last argument of `parallel_do` is the kernel to run");
                    self.report(d);
                    None
                }
            },
            ExprKind::Lambda(l) => self.kernel_lambda(l, e.span, &fill, span),
            ExprKind::Paren(items) if items.len() == 1 => {
                self.kernel_target(&items[0], arg_types, pos_type, span)
            }
            _ => {
                let d = Diagnostic::error(e.span, "the last argument of `parallel_do` must name a `__kernel__` function or be a `__kernel__` lambda");
                self.report(d);
                None
            }
        }
    }

    fn kernel_lambda(
        &mut self,
        l: &'a ast::Lambda,
        lspan: Span,
        fill: ParamFill,
        span: Span,
    ) -> Option<FunctionId> {
        if l.kind != FunctionKind::Kernel {
            let d = Diagnostic::error(
                lspan,
                "the function launched by `parallel_do` must be a `__kernel__` lambda",
            )
            .with_note("write `__kernel__ (pos : ivec2) -> …`");
            self.report(d);
            return None;
        }
        let types = match fill(&l.params) {
            Ok(t) => t,
            Err(msg) => {
                let d = Diagnostic::error(span, msg);
                self.report(d);
                return None;
            }
        };
        let env = self.env_for_children();
        self.cx.instantiate_lambda(l, lspan, self.scope, types, None, env)
    }

    fn check_kernel_args(
        &mut self,
        params: &[ast::Param],
        types: &[Type],
        def: &ast::FunctionDef,
        span: Span,
    ) {
        for (p, t) in params.iter().zip(types) {
            if p.ty.is_none() {
                continue;
            }
            let declared = self.cx.declared_param_type(def, p);
            if let Some(s) = Special::from_name(&p.name.name) {
                // `pos : ivec2` over a 3-dimensional launch is fitted (a warning, `geometry.rs`);
                // `pos : vec2` or `blkdim : scalar` does not fit any launch.
                let geometry = |t: &Type| super::geometry::components(t).is_some();
                let lengths_differ = s.is_geometry() && geometry(&declared) && geometry(t);
                if declared.is_concrete()
                    && t.is_concrete()
                    && !lengths_differ
                    && !self.fits(t, &declared)
                {
                    let d = Diagnostic::error(span, format!("kernel parameter `{}` is declared as {declared}, but this launch gives it {t}", p.name.name))
                        .with_secondary(p.span, "declared here")
                        .with_note("positions have one integer per dimension of the `parallel_do` dimensions");
                    self.report(d);
                }
                continue;
            }
            if !self.fits(t, &declared) {
                let d = Diagnostic::error(span, format!("type mismatch: kernel parameter `{}` is declared as {declared}, but `parallel_do` passes {t}", p.name.name))
                    .with_secondary(p.span, "declared here");
                self.report(d);
            }
        }
    }
}

impl<'c, 'a> FnLowerer<'c, 'a> {
    /// Kernel output arguments are numbers or small vectors (manual §4.7).
    pub(super) fn check_kernel_outputs(&mut self, outputs: &[LocalId]) {
        for &o in outputs {
            let l = &self.locals[o.0 as usize];
            let ok = match &l.ty {
                Type::Void | Type::Unknown => true,
                t if t.is_number() => true,
                Type::Array(a) => {
                    a.elem.is_number() && matches!(a.shape.as_deref(), Some([Dim::Known(_)]))
                }
                _ => false,
            };
            if !ok {
                let d = Diagnostic::error(
                    l.span,
                    format!("the kernel output `{}` cannot be of type {}", l.name, l.ty),
                )
                .with_note("kernel outputs are `scalar`, `cscalar`, `int`, `vecX`, `cvecX` or `ivecX`; write arrays through a parameter instead");
                self.diags.push(d);
            }
        }
    }
}

/// Whether a value of type `t` can be block dimensions: a number or a vector of at most three
/// numbers.
fn is_block_size(t: &Type) -> bool {
    match t {
        Type::Array(a) => {
            a.elem.is_number()
                && matches!(a.shape.as_deref(), Some([Dim::Known(n)]) if (1..=3).contains(n))
        }
        t => t.is_int() || matches!(t, Type::Scalar(_)),
    }
}
