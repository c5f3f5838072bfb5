//! Function values (lambdas, closures, function handles) by defunctionalisation: each function
//! type of the module becomes an enum with one variant per function that flows into it,
//! holding its captured values; calling it is a `match` (which LLVM hoists out of kernel
//! loops), never a boxed closure or a reference count.

use super::expr::repr_in;
use super::func::Ctx;
use super::ty::Repr;
use super::{unsupported, GResult, Gen};
use crate::ir::{Block, Expr, ExprKind, FunctionId, Index, PlaceKind, StmtKind};
use crate::sema::types::{FnType, Type};
use crate::syntax::ast::FunctionKind;
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

#[derive(Default)]
pub(crate) struct FnVals {
    /// Function types, by their printed form.
    types: Vec<(String, FnType)>,
    /// The functions of each type (deduplicated).
    variants: Vec<Vec<FunctionId>>,
}

impl FnVals {
    pub fn index_of(&self, ft: &FnType) -> Option<usize> {
        let key = Type::Function(Box::new(ft.clone())).to_string();
        self.types.iter().position(|(k, _)| *k == key)
    }

    pub fn signature(&self, k: usize) -> &FnType {
        &self.types[k].1
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

pub(crate) fn enum_ident(k: usize) -> Ident {
    format_ident!("__QFn{}", k)
}

fn variant_ident(f: FunctionId) -> Ident {
    format_ident!("F{}", f.0)
}

/// Finds every function type and every function used as a value.
pub(crate) fn collect(g: &mut Gen) {
    let m = g.m;
    for f in m.functions.iter().filter(|f| !f.generic) {
        for l in &f.locals {
            if let Type::Function(ft) = &l.ty {
                g.fnvals.add_type(ft);
            }
        }
        visit_block(&f.body, &mut |e| match (&e.kind, &e.ty) {
            (ExprKind::Closure { function, .. }, Type::Function(ft))
            | (ExprKind::FunctionRef(function), Type::Function(ft)) => {
                g.fnvals.add_variant(ft, *function)
            }
            (_, Type::Function(ft)) => {
                g.fnvals.add_type(ft);
            }
            _ => {}
        });
    }
}

impl<'g, 'm> super::func::FnGen<'g, 'm> {
    /// The value of a closure (or a function handle when `captures` is empty).
    pub fn closure_value(
        &mut self,
        f: FunctionId,
        captures: &[Expr],
        ty: &Type,
        span: crate::span::Span,
    ) -> GResult<TokenStream> {
        let Type::Function(ft) = ty else {
            return Err(unsupported(span, "this function value"));
        };
        let k =
            self.g.fnvals.index_of(ft).ok_or_else(|| unsupported(span, "this function value"))?;
        let ctx = if ft.kind == FunctionKind::Device { Ctx::Device } else { Ctx::Host };
        let func = self.g.m.function(f);
        if captures.len() != func.captures.len() {
            return Err(unsupported(span, "this closure (its captures do not match)"));
        }
        let mut vals = Vec::new();
        for (c, cap) in captures.iter().zip(&func.captures) {
            let l = func.local(*cap);
            let pr = repr_in(self.g, &l.ty, ctx, l.span)?;
            vals.push(self.expr_as(c, &pr)?);
        }
        let e = enum_ident(k);
        let v = variant_ident(f);
        Ok(quote!(#e::#v(#(#vals),*)))
    }
}

/// The enums of the module's function types.
pub(crate) fn generate(g: &mut Gen) -> TokenStream {
    let rt = g.rt.clone();
    let mut items = Vec::new();
    for k in 0..g.fnvals.types.len() {
        let ft = g.fnvals.types[k].1.clone();
        let name = enum_ident(k);
        let ctx = if ft.kind == FunctionKind::Device { Ctx::Device } else { Ctx::Host };
        let mut variants = Vec::new();
        let mut arms = Vec::new();
        let mut plain = true;
        let params: Vec<Ident> = (0..ft.params.len()).map(|i| format_ident!("__a{}", i)).collect();
        let mut param_tys = Vec::new();
        let mut ok = true;
        for p in &ft.params {
            match repr_in(g, p, ctx, crate::span::Span::default()) {
                Ok(r) => param_tys.push(type_tokens(g, &r)),
                Err(_) => ok = false,
            }
        }
        let ret = match ft.results.len() {
            0 => Ok(quote!(())),
            1 => repr_in(g, &ft.results[0], ctx, crate::span::Span::default())
                .map(|r| type_tokens(g, &r)),
            _ => ft
                .results
                .iter()
                .map(|t| {
                    repr_in(g, t, ctx, crate::span::Span::default()).map(|r| type_tokens(g, &r))
                })
                .collect::<GResult<Vec<_>>>()
                .map(|ts| quote!((#(#ts),*))),
        };
        let Ok(ret) = ret else { continue };
        if !ok {
            continue;
        }
        for f in g.fnvals.variants[k].clone() {
            let func = g.m.function(f);
            let mut caps = Vec::new();
            for c in &func.captures {
                let l = func.local(*c);
                match repr_in(g, &l.ty, ctx, l.span) {
                    Ok(r) => {
                        plain &= matches!(r, Repr::Num(_) | Repr::Fixed(..));
                        caps.push(type_tokens(g, &r));
                    }
                    Err(d) => {
                        g.diagnostics.push(d);
                        continue;
                    }
                }
            }
            let v = variant_ident(f);
            let fname = g.fn_ident(f);
            let binds: Vec<Ident> = (0..caps.len()).map(|i| format_ident!("__c{}", i)).collect();
            variants.push(quote!(#v(#(#caps),*)));
            arms.push(quote!(#name::#v(#(#binds),*) => #fname(#(#params,)* #(#binds.clone()),*)));
        }
        let element = if plain {
            quote! {
                // SAFETY: every variant holds numbers only (no pointers); values are only
                // copied byte-wise into kernel arguments and read back as the same type.
                unsafe impl #rt::run::Element for #name {}
                impl ::core::marker::Copy for #name {}
            }
        } else {
            quote!()
        };
        let body = if arms.is_empty() {
            quote!(match *self {})
        } else {
            quote!(match self { #(#arms,)* })
        };
        items.push(quote! {
            #[doc(hidden)]
            #[allow(non_camel_case_types, dead_code)]
            #[derive(Clone)]
            pub enum #name { #(#variants,)* }
            #element
            #[allow(clippy::all, unreachable_code, unused_variables)]
            impl #name {
                #[inline(always)]
                pub fn call(&self, #(#params: #param_tys),*) -> #rt::run::Result<#ret> {
                    #body
                }
            }
        });
    }
    quote!(#(#items)*)
}

pub(crate) fn type_tokens(g: &Gen, r: &Repr) -> TokenStream {
    let rt = &g.rt;
    match r {
        Repr::Num(n) => n.tokens(rt),
        Repr::Str => quote!(::std::string::String),
        Repr::Unit => quote!(()),
        Repr::Array(n, _) => {
            let t = n.tokens(rt);
            quote!(#rt::run::Array<#t>)
        }
        Repr::Fixed(n, s) => {
            let t = n.tokens(rt);
            let len: usize = s.iter().product();
            quote!([#t; #len])
        }
        Repr::View(n, _) => {
            let t = n.tokens(rt);
            quote!(#rt::run::KernelView<'static, #t>)
        }
        Repr::FnVal(i) => {
            let e = enum_ident(*i);
            quote!(#e)
        }
        Repr::Tuple(rs) => {
            let ts: Vec<_> = rs.iter().map(|r| type_tokens(g, r)).collect();
            quote!((#(#ts),*))
        }
    }
}

fn visit_block(b: &Block, f: &mut dyn FnMut(&Expr)) {
    for s in b {
        match &s.kind {
            StmtKind::Assign { place, value, .. } => {
                if let PlaceKind::Index { base, indices } = &place.kind {
                    visit_expr(base, f);
                    visit_indices(indices, f);
                }
                visit_expr(value, f);
            }
            StmtKind::Destructure { value, .. } | StmtKind::Expr(value) => visit_expr(value, f),
            StmtKind::If { cond, then_body, else_body } => {
                visit_expr(cond, f);
                visit_block(then_body, f);
                visit_block(else_body, f);
            }
            StmtKind::ForRange { start, step, end, body, .. } => {
                visit_expr(start, f);
                visit_expr(step, f);
                visit_expr(end, f);
                visit_block(body, f);
            }
            StmtKind::ForEach { values, body, .. } => {
                visit_expr(values, f);
                visit_block(body, f);
            }
            StmtKind::While { cond, body } | StmtKind::Repeat { body, until: cond } => {
                visit_expr(cond, f);
                visit_block(body, f);
            }
            StmtKind::Match { scrutinee, arms, default } => {
                visit_expr(scrutinee, f);
                for a in arms {
                    a.values.iter().for_each(|v| visit_expr(v, f));
                    visit_block(&a.body, f);
                }
                if let Some(d) = default {
                    visit_block(d, f);
                }
            }
            StmtKind::Try { body, handler, .. } => {
                visit_block(body, f);
                visit_block(handler, f);
            }
            StmtKind::Print(es) | StmtKind::Error(es) => es.iter().for_each(|e| visit_expr(e, f)),
            StmtKind::Assert { cond, message } => {
                visit_expr(cond, f);
                message.iter().for_each(|e| visit_expr(e, f));
            }
            _ => {}
        }
    }
}

fn visit_indices(ix: &[Index], f: &mut dyn FnMut(&Expr)) {
    for i in ix {
        match i {
            Index::At(e) | Index::Spread(e) | Index::List(e) => visit_expr(e, f),
            Index::Range { start, step, end } => {
                visit_expr(start, f);
                if let Some(s) = step {
                    visit_expr(s, f);
                }
                visit_expr(end, f);
            }
            Index::All => {}
        }
    }
}

/// Calls `f` on `e` and every expression inside it.
pub(crate) fn visit_expr(e: &Expr, f: &mut dyn FnMut(&Expr)) {
    crate::stack::guard(|| {
        f(e);
        match &e.kind {
            ExprKind::Unary { operand, .. } | ExprKind::Convert(operand) => visit_expr(operand, f),
            ExprKind::Binary { lhs, rhs, .. } => {
                visit_expr(lhs, f);
                visit_expr(rhs, f);
            }
            ExprKind::Call { callee, args } => {
                if let crate::ir::Callee::Value(v) = callee {
                    visit_expr(v, f);
                }
                args.iter().for_each(|a| visit_expr(a, f));
            }
            ExprKind::ParallelDo { dims, block_dims, args, .. } => {
                visit_expr(dims, f);
                if let Some(b) = block_dims {
                    visit_expr(b, f);
                }
                args.iter().for_each(|a| visit_expr(a, f));
            }
            ExprKind::Index { base, indices } => {
                visit_expr(base, f);
                visit_indices(indices, f);
            }
            ExprKind::Field { base, .. } => visit_expr(base, f),
            ExprKind::Matrix(es) | ExprKind::Cell(es) | ExprKind::Sequence(es) => {
                es.iter().for_each(|x| visit_expr(x, f))
            }
            ExprKind::Range { start, step, end } => {
                visit_expr(start, f);
                if let Some(s) = step {
                    visit_expr(s, f);
                }
                visit_expr(end, f);
            }
            ExprKind::Ternary { cond, then, otherwise } => {
                visit_expr(cond, f);
                visit_expr(then, f);
                visit_expr(otherwise, f);
            }
            ExprKind::Closure { captures, .. } => captures.iter().for_each(|c| visit_expr(c, f)),
            ExprKind::Construct { fields, .. } => fields.iter().for_each(|(_, x)| visit_expr(x, f)),
            ExprKind::Assign { value, .. } => visit_expr(value, f),
            ExprKind::Spread(x) | ExprKind::TupleField { tuple: x, .. } => visit_expr(x, f),
            _ => {}
        }
    })
}
