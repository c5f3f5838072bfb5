//! Writing fields of class values held in place (manual chapter 7): in kernel and device code
//! a class value, `mutable class` included, is plain old data held by the thread (a local
//! struct, `p.x = 3` writes the local's field), and an element of an array of classes is
//! written in place (`a[pos].count += 1`: the field at the element's address, atomically for
//! compound assignments as on elements of numbers). On the host an element of an array of
//! classes is read, changed and stored back.

use super::func::{Ctx, FnGen};
use super::index::{fixed_offset, ElemPart};
use super::ty::{Num, Repr};
use super::{unsupported, GResult};
use crate::ir::{AssignOp, Expr, ExprKind};
use crate::sema::types::Type;
use crate::span::Span;
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

/// The Rust name of a field of a class struct (`classes.rs`).
fn field_ident(field: &str) -> Ident {
    format_ident!("f_{}", super::sanitize(field))
}

/// `a[i].f.….v` (the place of `a[i].v[k]`, `base` the field): the indexed element `a[i]`,
/// the array `a`, its indices and the field path; None for other places and slices.
fn element_field(base: &Expr) -> Option<(&Expr, &Expr, &[crate::ir::Index], Vec<Ident>)> {
    let ExprKind::Field { base: owner, field } = &base.kind else { return None };
    let (root, path) = field_chain(owner, field);
    let ExprKind::Index { base: arr, indices: at } = &root.kind else { return None };
    if crate::ir::slice::is_slice(at) {
        return None;
    }
    Some((root, arr, at, path.iter().map(|f| field_ident(f)).collect()))
}

/// `e` as the root of a chain of fields and the fields' names, outermost first
/// (`a[i].p.x` is `a[i]` and `[p, x]`).
fn field_chain<'e>(mut e: &'e Expr, last: &str) -> (&'e Expr, Vec<String>) {
    let mut path = vec![last.to_string()];
    while let ExprKind::Field { base, field } = &e.kind {
        path.insert(0, field.clone());
        e = base;
    }
    (e, path)
}

impl<'g, 'm> FnGen<'g, 'm> {
    /// The writable place of a chain of fields of a class value held in a local of kernel or
    /// device code (`p.a` as `p.f_a`), or None.
    pub(super) fn value_place(&self, e: &Expr) -> Option<TokenStream> {
        if self.ctx == Ctx::Host {
            return None;
        }
        match &e.kind {
            ExprKind::Local(id) if matches!(self.local_repr(*id), Repr::Class(_)) => {
                Some(self.local(*id))
            }
            ExprKind::Field { base, field } if matches!(base.ty, Type::Class(_)) => {
                let b = self.value_place(base)?;
                let f = field_ident(field);
                Some(quote!(#b.#f))
            }
            _ => None,
        }
    }

    /// `base.field op= value` when the class value is held in place: a local of kernel or
    /// device code, an element of a kernel array or of a host array of classes. None when
    /// `base` is an object or pointer (`classes.rs` writes it through its setter).
    pub(super) fn in_place_field_write(
        &mut self,
        base: &Expr,
        field: &str,
        op: AssignOp,
        value: &Expr,
        field_ty: &Type,
        span: Span,
    ) -> GResult<Option<TokenStream>> {
        let (root, path) = field_chain(base, field);
        let idents: Vec<Ident> = path.iter().map(|f| field_ident(f)).collect();
        if let Some(place) = self.value_place(root) {
            let new = self.new_field_value(base, field, op, value, field_ty, span)?;
            return Ok(Some(quote!({ let __new = #new; #place #(.#idents)* = __new; })));
        }
        let ExprKind::Index { base: arr, indices } = &root.kind else { return Ok(None) };
        if crate::ir::slice::is_slice(indices) {
            return Ok(None);
        }
        let b = self.expr(arr)?;
        match b.r.clone() {
            Repr::View(n @ Num::Class(_), rank) => {
                let fr = super::classes::field_repr(self.g, field_ty, span)?;
                let x = match (op, &fr) {
                    (AssignOp::Assign, _) => self.expr_as(value, &fr)?,
                    (_, Repr::Num(f)) if !matches!(f, Num::Class(_)) && !f.is_complex() => {
                        self.expr_as(value, &fr)?
                    }
                    _ => {
                        return Err(unsupported(
                            span,
                            format_args!("this compound assignment to the field `{field}`"),
                            "update number fields with `op=`; assign other fields with `=`",
                        ))
                    }
                };
                let comps = self.view_components(indices, span, root.id)?;
                let part = ElemPart { path: quote!(#(.#idents)*), guard: None };
                let t = self.view_access_field(
                    arr,
                    &b.t,
                    n,
                    rank,
                    comps,
                    Some((op, x)),
                    &part,
                    span,
                    root.id,
                )?;
                Ok(Some(quote!(#t;)))
            }
            Repr::Array(Num::Class(_), _) if self.ctx == Ctx::Host => {
                let rt = self.g.rt.clone();
                let q = quote!(#rt::qstd::rt);
                let mode = self.mode_tokens(self.access_mode(arr));
                let name = self.array_name(arr);
                let idx = self.host_positions(indices, span)?;
                let new = self.new_field_value(base, field, op, value, field_ty, span)?;
                let a = b.t;
                Ok(Some(quote!({
                    let __a = #a;
                    let __ix = #idx;
                    let __new = #new;
                    let mut __e = #q::get_elem(&__a, #name, &__ix, #mode)?;
                    __e #(.#idents)* = __new;
                    #q::set_elem(&__a, #name, &__ix, __e, #mode)?;
                })))
            }
            _ => Ok(None),
        }
    }

    /// The value `base.field op value` (or `value` for `=`), as the field holds it.
    fn new_field_value(
        &mut self,
        base: &Expr,
        field: &str,
        op: AssignOp,
        value: &Expr,
        field_ty: &Type,
        span: Span,
    ) -> GResult<TokenStream> {
        let fr = super::classes::field_repr(self.g, field_ty, span)?;
        match super::stmt::binary_of(op) {
            None => self.expr_as(value, &fr),
            Some(_)
                if matches!(
                    op,
                    AssignOp::Max | AssignOp::Min | AssignOp::Xor | AssignOp::Or | AssignOp::And
                ) =>
            {
                Err(unsupported(
                    span,
                    "this compound assignment to a field",
                    "write `p.x = max(p.x, v)` (or the operator) in full",
                ))
            }
            Some(bop) => {
                let read = Expr::new(
                    ExprKind::Field { base: Box::new(base.clone()), field: field.to_string() },
                    field_ty.clone(),
                    span,
                );
                let e = Expr::new(
                    ExprKind::Binary { op: bop, lhs: Box::new(read), rhs: Box::new(value.clone()) },
                    field_ty.clone(),
                    span,
                );
                self.expr_as(&e, &fr)
            }
        }
    }

    /// `a[i].v[k] op= x` on the host, `v` a vector field of an element of an array of
    /// classes: the element is read, the component of its field changed and the element
    /// stored back (as `a[i].v = …` is). None for other places (kernel arrays, whose callers
    /// report it).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn host_vec_field_elem_write(
        &mut self,
        base: &Expr,
        indices: &[crate::ir::Index],
        op: AssignOp,
        value: &Expr,
        elem_ty: &Type,
        (n, shape): (Num, &[usize]),
        span: Span,
    ) -> GResult<Option<TokenStream>> {
        if self.ctx != Ctx::Host {
            return Ok(None);
        }
        let Some((_, arr, at, idents)) = element_field(base) else { return Ok(None) };
        let b = self.expr(arr)?;
        if !matches!(b.r, Repr::Array(Num::Class(_), _)) {
            return Ok(None);
        }
        let new = match super::stmt::binary_of(op).filter(|_| op != AssignOp::Assign) {
            Some(bop) => {
                let read = Expr::new(
                    ExprKind::Index { base: Box::new(base.clone()), indices: indices.to_vec() },
                    elem_ty.clone(),
                    span,
                );
                let e = Expr::new(
                    ExprKind::Binary { op: bop, lhs: Box::new(read), rhs: Box::new(value.clone()) },
                    elem_ty.clone(),
                    span,
                );
                self.num_as(&e, n)?
            }
            None => self.num_as(value, n)?,
        };
        let comps = self.components(indices, span)?;
        let write = self.fixed_access(
            &quote!(__e #(.#idents)*),
            n,
            shape,
            comps,
            Some(quote!(__new)),
            span,
        )?;
        let rt = self.g.rt.clone();
        let q = quote!(#rt::qstd::rt);
        let mode = self.mode_tokens(self.access_mode(arr));
        let name = self.array_name(arr);
        let idx = self.host_positions(at, span)?;
        let a = b.t;
        Ok(Some(quote!({
            let __a = #a;
            let __ix = #idx;
            let __new = #new;
            let mut __e = #q::get_elem(&__a, #name, &__ix, #mode)?;
            #write;
            #q::set_elem(&__a, #name, &__ix, __e, #mode)?;
        })))
    }

    /// `a[i].v[k] op= x` in a kernel, `v` a vector field of an element of a kernel array of
    /// classes: the component is written at the element's address (as `a[i].x op= …` is;
    /// compound assignments atomically), nothing when `k` is outside the vector (as for a
    /// vector in a variable). None for other places.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn kernel_vec_field_elem_write(
        &mut self,
        base: &Expr,
        indices: &[crate::ir::Index],
        op: AssignOp,
        value: &Expr,
        (n, shape): (Num, &[usize]),
        span: Span,
    ) -> GResult<Option<TokenStream>> {
        if self.ctx == Ctx::Host {
            return Ok(None);
        }
        let Some((root, arr, at, idents)) = element_field(base) else { return Ok(None) };
        let b = self.expr(arr)?;
        let Repr::View(class @ Num::Class(_), rank) = b.r.clone() else { return Ok(None) };
        let cs = self.components(indices, span)?;
        let (terms, oks, offs) = fixed_offset(shape, &cs.list, "__c", span)?;
        let pre = cs.pre;
        let x = self.num_as(value, n)?;
        let part = ElemPart {
            path: quote!(#(.#idents)* [0usize #(+ #offs)*]),
            guard: Some(quote!((#(#oks)&&*))),
        };
        let comps = self.view_components(at, span, root.id)?;
        let t = self.view_access_field(
            arr,
            &b.t,
            class,
            rank,
            comps,
            Some((op, x)),
            &part,
            span,
            root.id,
        )?;
        Ok(Some(quote!({ #(#pre)* #(#terms)* #t; })))
    }

    /// `p.v[i] op= x` for a vector field of a class value held in a local (kernel and device
    /// code): the place of the vector, or None.
    pub(super) fn fixed_field_place(&self, base: &Expr) -> Option<TokenStream> {
        match &base.kind {
            ExprKind::Field { .. } => self.value_place(base),
            _ => None,
        }
    }
}
