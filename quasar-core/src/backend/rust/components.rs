//! The index components of kernel and fixed-size accesses as `i64` expressions; in a
//! kernel's interior they are computed from the loop counters (`__p0`…), affine in them.

use super::func::FnGen;
use super::ty::{Num, Repr};
use super::{unsupported, GResult};
use crate::ir::{Const, Expr, ExprKind, Index, NodeId};
use crate::span::Span;
use proc_macro2::TokenStream;
use quote::quote;

/// The index components of one access.
pub(super) struct Comps {
    /// Bindings evaluated before the components (a position vector is evaluated once).
    pub pre: Vec<TokenStream>,
    /// One `i64` expression per component, after `pre`.
    pub list: Vec<TokenStream>,
    /// The same components as one `[i64; k]` expression that needs no `pre`, when the index is
    /// one integer vector (`x[pos + [0, 1]]`): one call instead of a cast per component.
    pub whole: Option<TokenStream>,
}

impl Comps {
    /// The components as one `[i64; k]` expression, after `pre` unless `whole` is used.
    pub(super) fn array(&self) -> (&[TokenStream], TokenStream) {
        match &self.whole {
            Some(w) => (&[], w.clone()),
            None => {
                let list = &self.list;
                (&self.pre, quote!([#(#list),*]))
            }
        }
    }
}

impl FnGen<'_, '_> {
    /// The index components of kernel/fixed indexing, as `i64` expressions.
    pub(super) fn components(&mut self, indices: &[Index], span: Span) -> GResult<Comps> {
        let mut pre = Vec::new();
        let mut out = Vec::new();
        let mut whole = None;
        for ix in indices {
            match ix {
                Index::At(e) | Index::Spread(e) => {
                    let v = self.expr(e)?;
                    match &v.r {
                        Repr::Num(n) if n.is_int() => {
                            let t = v.t;
                            out.push(quote!((#t as i64)));
                        }
                        Repr::Num(n) if n.is_float() => {
                            let t = self.convert(v, &Repr::Num(Num::I32), e.span)?;
                            out.push(quote!((#t as i64)));
                        }
                        Repr::Fixed(n, s) if n.is_int() => {
                            let len: usize = s.iter().product();
                            let t = v.t;
                            let name = quote::format_ident!("__pv{}", pre.len());
                            if indices.len() == 1 {
                                let rt = &self.g.rt;
                                whole = Some(quote!(#rt::qstd::rt::widen(#t)));
                            }
                            pre.push(quote!(let #name = #t;));
                            for k in 0..len {
                                out.push(quote!((#name[#k] as i64)));
                            }
                        }
                        _ => {
                            return Err(unsupported(
                                e.span,
                                "this index inside a kernel",
                                "index with integers, positions (`pos`) or integer vectors inside \
                             kernels",
                            ))
                        }
                    }
                }
                Index::All | Index::Range { .. } | Index::List(_) => {
                    return Err(unsupported(
                        span,
                        "slicing (`:`, ranges) inside kernel or device functions",
                        "loop over the elements with `for`, or slice in host code and pass the \
                         slice to the kernel",
                    ))
                }
            }
        }
        Ok(Comps { pre, list: out, whole })
    }

    /// Components of a view access. In the interior fast path, positions are computed in
    /// `i64` straight from the loop counters (`__p0`…), so that LLVM sees addresses affine in
    /// the innermost counter and vectorises; the interior bounds exclude any overflow.
    pub(super) fn view_components(
        &mut self,
        indices: &[Index],
        span: Span,
        node: NodeId,
    ) -> GResult<Comps> {
        if self.interior.as_ref().is_some_and(|p| p.unchecked.contains(&node)) {
            let mut out = Vec::new();
            let mut ok = true;
            for ix in indices {
                let Index::At(e) = ix else {
                    ok = false;
                    break;
                };
                if e.ty.is_int() {
                    out.push(self.affine_i64(e)?);
                } else if let Some(cs) = self.affine_vec_i64(e)? {
                    out.extend(cs);
                } else {
                    ok = false;
                    break;
                }
            }
            if ok {
                return Ok(Comps { pre: Vec::new(), list: out, whole: None });
            }
        }
        self.components(indices, span)
    }

    /// The position component `d` when `e` is `pos[d]` (or `pos` itself as an `int`).
    fn pos_comp(&self, e: &Expr) -> Option<usize> {
        let is_pos = |id: &crate::ir::LocalId| {
            let l = self.f.local(*id);
            l.special() == Some(crate::ir::Special::Pos)
        };
        match &e.kind {
            ExprKind::Local(id) if is_pos(id) && e.ty.is_int() => Some(0),
            ExprKind::Index { base, indices } if indices.len() == 1 => {
                match (&base.kind, &indices[0]) {
                    (ExprKind::Local(id), Index::At(i)) if is_pos(id) => match i.constant() {
                        Some(Const::Int(d)) if *d >= 0 => Some(*d as usize),
                        _ => None,
                    },
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// An integer index expression in `i64`, reading positions from the loop counters.
    fn affine_i64(&mut self, e: &Expr) -> GResult<TokenStream> {
        if let Some(d) = self.pos_comp(e) {
            let p = quote::format_ident!("__p{}", d);
            return Ok(quote!((#p as i64)));
        }
        match &e.kind {
            ExprKind::Convert(inner) if inner.ty.is_int() => self.affine_i64(inner),
            ExprKind::Binary { op: crate::ir::BinaryOp::Add, lhs, rhs } if e.ty.is_int() => {
                let (a, b) = (self.affine_i64(lhs)?, self.affine_i64(rhs)?);
                Ok(quote!((#a + #b)))
            }
            ExprKind::Binary { op: crate::ir::BinaryOp::Sub, lhs, rhs } if e.ty.is_int() => {
                let (a, b) = (self.affine_i64(lhs)?, self.affine_i64(rhs)?);
                Ok(quote!((#a - #b)))
            }
            _ => {
                let t = self.num_as(e, Num::I64)?;
                Ok(quote!((#t)))
            }
        }
    }

    /// `pos` or `pos ± [a, b, …]` as a whole position vector, component by component.
    fn affine_vec_i64(&mut self, e: &Expr) -> GResult<Option<Vec<TokenStream>>> {
        let is_pos = |x: &Expr| {
            matches!(&x.kind, ExprKind::Local(id)
            if self.f.local(*id).special() == Some(crate::ir::Special::Pos))
        };
        let len =
            e.ty.as_array().and_then(super::ty::known_shape).map(|s| s.iter().product::<usize>());
        let Some(len) = len else { return Ok(None) };
        if is_pos(e) {
            return Ok(Some(
                (0..len)
                    .map(|d| {
                        let p = quote::format_ident!("__p{}", d);
                        quote!((#p as i64))
                    })
                    .collect(),
            ));
        }
        if let ExprKind::Binary { op, lhs, rhs } = &e.kind {
            if let (true, ExprKind::Matrix(items)) = (is_pos(lhs), &rhs.kind) {
                let sign = match op {
                    crate::ir::BinaryOp::Add => quote!(+),
                    crate::ir::BinaryOp::Sub => quote!(-),
                    _ => return Ok(None),
                };
                let mut out = Vec::new();
                for (d, it) in items.iter().enumerate() {
                    let p = quote::format_ident!("__p{}", d);
                    let x = self.affine_i64(it)?;
                    out.push(quote!(((#p as i64) #sign #x)));
                }
                return Ok(Some(out));
            }
        }
        Ok(None)
    }
}
