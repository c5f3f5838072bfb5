//! Overload resolution: which of the definitions named alike a call means, and the arguments
//! put in parameter order (named, defaulted and spread parameters), preferring exact matches
//! over subtyping.

use super::scope::{unify, FnLowerer};
use crate::diagnostics::Diagnostic;
use crate::ir;
use crate::ir::Special;
use crate::sema::decls::FnDeclId;
use crate::sema::types::Type;
use crate::span::Span;
use crate::syntax::ast::{self, FunctionKind};
use std::collections::HashMap;

/// The weight of an exactly matched parameter in an overload's score (more than any number
/// of parameters matched through subtyping).
const EXACT: usize = 1 << 16;

/// `arg` is of the declared type itself, not of a subtype or a type that converts: the same
/// kind of number, or an array of the same element type and rank.
fn matches_exactly(arg: &Type, declared: &Type) -> bool {
    match (arg, declared) {
        (Type::Array(a), Type::Array(d)) => a.elem == d.elem && a.rank == d.rank,
        (a, d) => a == d,
    }
}

/// What the arguments matched so far bound a generic function's parameters to (types and
/// sizes, as `unify` binds them).
#[derive(Default)]
struct Bound {
    types: HashMap<String, Type>,
    sizes: HashMap<String, u64>,
}

impl<'c, 'a> FnLowerer<'c, 'a> {
    /// Where `actual` contradicts what earlier arguments bound the generic parameters of
    /// `declared` to (`add_item(list : vec[T], item : T)` with a `vec[int]` and a string):
    /// the parameter and its binding.
    fn generic_conflict(
        &mut self,
        declared: &Type,
        actual: &Type,
        bound: &Bound,
    ) -> Option<String> {
        match (declared, actual) {
            (Type::Param(n), a) if a.is_concrete() => {
                let b = bound.types.get(n).filter(|b| b.is_concrete())?.clone();
                (!self.fits(a, &b)).then(|| format!("`{n}` is {b}"))
            }
            // Sizes (`vec(N)`) are compared when the instance is made (`check_generic_sizes`).
            (Type::Array(d), Type::Array(a)) => self.generic_conflict(&d.elem, &a.elem, bound),
            (Type::Pointer(d), Type::Pointer(a)) => self.generic_conflict(d, a, bound),
            _ => None,
        }
    }

    /// Chooses among the definitions named `name` the one whose parameters accept the
    /// arguments (preferring the most specific), with the arguments in parameter order.
    pub(super) fn pick_overload(
        &mut self,
        name: &str,
        ids: &[FnDeclId],
        args: &[ir::Expr],
        names: &[Option<String>],
        span: Span,
    ) -> Option<(FnDeclId, Vec<ir::Expr>)> {
        let mut best: Option<(usize, FnDeclId, Vec<ir::Expr>)> = None;
        let mut last_error = None;
        for &id in ids {
            let def = self.cx.decls.function(id).def;
            match self.match_params(def, args, names) {
                Ok((score, ordered)) => {
                    if best.as_ref().is_none_or(|(s, _, _)| score > *s) {
                        best = Some((score, id, ordered));
                    }
                }
                Err(msg) => last_error = Some(msg),
            }
        }
        if let Some((_, id, ordered)) = best {
            return Some((id, ordered));
        }
        let types: Vec<String> = Self::arg_types(args).iter().map(|t| t.to_string()).collect();
        let mut d = if ids.len() == 1 {
            Diagnostic::error(
                span,
                last_error
                    .unwrap_or_else(|| format!("`{name}` cannot be called with these arguments")),
            )
        } else {
            Diagnostic::error(
                span,
                format!("no definition of `{name}` accepts the arguments ({})", types.join(", ")),
            )
        };
        let label = if ids.len() == 1 { "defined here" } else { "a candidate" };
        for &id in ids {
            let def = self.cx.decls.function(id).def;
            d = d.with_secondary(def.name.span, label);
        }
        self.report(d);
        None
    }

    /// Matches arguments to `def`'s parameters: a score (how many typed parameters matched)
    /// and the arguments in parameter order, or why they do not fit.
    fn match_params(
        &mut self,
        def: &ast::FunctionDef,
        args: &[ir::Expr],
        names: &[Option<String>],
    ) -> Result<(usize, Vec<ir::Expr>), String> {
        let fname = &def.name.name;
        let params: Vec<&ast::Param> = def
            .params
            .iter()
            .filter(|p| {
                !(def.kind == FunctionKind::Kernel && Special::from_name(&p.name.name).is_some())
            })
            .collect();
        let variadic = params.last().is_some_and(|p| p.variadic);
        // A spread of unknown length fills a rest parameter (packed below); anywhere else
        // its elements are matched by their expanded types.
        let first_spread = args.iter().position(|a| matches!(a.kind, ir::ExprKind::Spread(_)));
        if first_spread.is_some_and(|i| !variadic || i + 1 < params.len() || names[i].is_some()) {
            return self.match_spread_params(def, args);
        }
        let mut slots: Vec<Option<ir::Expr>> = vec![None; params.len()];
        let mut rest = Vec::new();
        let mut positional = 0;
        for (arg, name) in args.iter().zip(names) {
            match name {
                Some(n) => match params.iter().position(|p| p.name.name == *n) {
                    Some(i) => slots[i] = Some(arg.clone()),
                    None => return Err(format!("`{fname}` has no parameter named `{n}`")),
                },
                None => {
                    if variadic && positional + 1 >= params.len() {
                        rest.push(arg.clone());
                    } else if positional < params.len() {
                        slots[positional] = Some(arg.clone());
                    } else {
                        return Err(format!(
                            "`{fname}` takes {} argument(s) but {} are given",
                            params.len(),
                            args.len()
                        ));
                    }
                    positional += 1;
                }
            }
        }
        let mut score = 0;
        let mut ordered = Vec::new();
        let mut bound = Bound::default();
        for (i, p) in params.iter().enumerate() {
            if p.variadic {
                let declared = p.ty.as_ref().map(|_| self.cx.declared_param_type(def, p));
                match self.pack_rest(def.kind, declared.as_ref(), &mut rest) {
                    Some(packed) => ordered.push(packed),
                    None if rest.iter().any(|a| matches!(a.kind, ir::ExprKind::Spread(_))) => {
                        return Err(format!(
                            "a spread `...v` of a vector whose length is not known when compiling cannot fill the rest parameter `{}` of {} `{fname}`",
                            p.name.name,
                            if def.kind == FunctionKind::Host { "the function" } else { "the device function" }
                        ));
                    }
                    None => ordered.append(&mut rest),
                }
                continue;
            }
            let Some(mut arg) = slots[i].take() else {
                if p.default.is_none() {
                    return Err(format!("missing argument `{}` of `{fname}`", p.name.name));
                }
                // Later arguments given by name after a defaulted one are not supported.
                if slots[i..].iter().any(Option::is_some) {
                    return Err(format!(
                        "argument `{}` of `{fname}` is missing before later named arguments",
                        p.name.name
                    ));
                }
                break;
            };
            if p.ty.is_some() {
                let declared = self.cx.declared_param_type(def, p);
                // An untyped lambda given for a parameter of a function type, with the type
                // parameters the arguments before it bound (`fn : [(T, T) -> T]` after
                // `x : T`), which a function value is checked against too. A function (not a kernel: its arguments are launch
                // arguments) may be instantiated for a device lambda capturing an array.
                let bound_decl = declared.substitute(&|n| bound.types.get(n).cloned());
                let target = match &bound_decl {
                    Type::Function(ft) => {
                        let (span, keep) = (arg.span, def.kind != FunctionKind::Kernel);
                        arg = self.coerce_to_fn(arg, ft, span, keep);
                        &bound_decl
                    }
                    // A cell of untyped lambdas for `fs : vec[[scalar -> scalar]]`.
                    t if super::fn_cells::fn_elements(t).is_some() => {
                        arg = self.coerce_to_declared(arg, t);
                        &bound_decl
                    }
                    _ => &declared,
                };
                if !self.fits(&arg.ty, target) {
                    return Err(format!(
                        "type mismatch: argument `{}` of `{fname}` is declared as {declared}, but the value is {}",
                        p.name.name, arg.ty
                    ));
                }
                if !def.type_params.is_empty() {
                    if let Some(c) = self.generic_conflict(&declared, &arg.ty, &bound) {
                        return Err(format!(
                            "type mismatch: argument `{}` of `{fname}` is declared as {declared}, but the value is {} ({c} from the arguments before it)",
                            p.name.name, arg.ty
                        ));
                    }
                    unify(&declared, &arg.ty, &mut bound.types, &mut bound.sizes);
                }
                if declared.is_concrete() {
                    score += 1;
                    // An exact match outranks one through subtyping or conversion (manual
                    // §4.9.2, rule 2): `f(x : vec)` before `f(x : mat)` for a vector.
                    if matches_exactly(&arg.ty, &declared) {
                        score += EXACT;
                    }
                }
            }
            ordered.push(arg);
        }
        Ok((score, ordered))
    }

    /// Matches arguments that include `...v` spreads positionally, by their expanded types
    /// (`f(...two())` passes both results of `two`); the arguments stay as written.
    fn match_spread_params(
        &mut self,
        def: &ast::FunctionDef,
        args: &[ir::Expr],
    ) -> Result<(usize, Vec<ir::Expr>), String> {
        let fname = &def.name.name;
        let types = Self::arg_types(args);
        let required = def.params.iter().filter(|p| p.default.is_none() && !p.variadic).count();
        let variadic = def.params.last().is_some_and(|p| p.variadic);
        if types.len() < required || (!variadic && types.len() > def.params.len()) {
            return Err(format!(
                "`{fname}` takes {} argument(s) but the spread gives {}",
                def.params.len(),
                types.len()
            ));
        }
        let mut score = 0;
        for (p, t) in def.params.iter().zip(&types) {
            if p.variadic {
                break;
            }
            if p.ty.is_some() {
                let declared = self.cx.declared_param_type(def, p);
                if !self.fits(t, &declared) {
                    return Err(format!("type mismatch: argument `{}` of `{fname}` is declared as {declared}, but the value is {t}", p.name.name));
                }
                score += declared.is_concrete() as usize;
            }
        }
        Ok((score, args.to_vec()))
    }
}
