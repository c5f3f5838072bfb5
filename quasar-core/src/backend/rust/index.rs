//! Indexing and slicing: host arrays (through `quasar_std::rt`, `'checked` by default), kernel
//! views (inline address arithmetic with the access mode of the array's type, `'safe` by
//! default), and fixed-size vectors in registers.

use super::expr::V;
use super::func::{Ctx, FnGen};
use super::ty::{Num, Repr};
use super::{unsupported, GResult};
use crate::ir::AssignOp;
use crate::ir::NodeId;
use crate::ir::{Expr, ExprKind, Index};
use crate::sema::types::{Access, Type};
use crate::span::Span;
use proc_macro2::TokenStream;
use quote::quote;

impl<'g, 'm> FnGen<'g, 'm> {
    pub(super) fn access_mode(&self, base: &Expr) -> Access {
        let declared = base.ty.as_array().and_then(|a| a.mods.access);
        match (declared, self.ctx) {
            (Some(a), _) => a,
            (None, Ctx::Host) => Access::Checked,
            (None, _) => Access::Safe,
        }
    }

    pub(super) fn mode_tokens(&self, a: Access) -> TokenStream {
        let rt = &self.g.rt;
        let m = match a {
            Access::Safe => quote!(Safe),
            Access::Checked => quote!(Checked),
            Access::Unchecked => quote!(Unchecked),
            Access::Circular => quote!(Circular),
            Access::Mirror => quote!(Mirror),
            Access::Clamped => quote!(Clamped),
        };
        quote!(#rt::qstd::rt::Mode::#m)
    }

    pub(super) fn array_name(&self, base: &Expr) -> String {
        match &base.kind {
            ExprKind::Local(id) => self.f.local(*id).name.clone(),
            _ => "array".into(),
        }
    }

    /// Reads `base[indices]` (the node `node`).
    pub fn index_read(
        &mut self,
        base: &Expr,
        indices: &[Index],
        r: Repr,
        span: Span,
        node: NodeId,
    ) -> GResult<V> {
        if self.ctx != super::func::Ctx::Host && crate::ir::slice::is_slice(indices) {
            let t = self.kernel_slice_read(base, indices, &r, span, node)?;
            return Ok(V { t, r });
        }
        let b = self.expr(base)?;
        match b.r.clone() {
            Repr::Value => {
                let v = self.value_index(b, indices, span)?;
                self.dynamic_as(v, r, span)
            }
            Repr::Array(n, _) => self.host_read(base, b, n, indices, r, span),
            Repr::View(n, rank) => {
                let comps = self.view_components(indices, span, node)?;
                let t = self.view_access(base, &b.t, n, rank, comps, None, span, node)?;
                Ok(V { t, r })
            }
            Repr::Fixed(n, shape) => {
                let comps = self.components(indices, span)?;
                let t = self.fixed_access(&b.t, n, &shape, comps, None, span)?;
                Ok(V { t, r })
            }
            Repr::Str => Err(unsupported(
                span,
                "indexing strings",
                "convert the string with `toascii` and index the vector of codes",
            )),
            other => Err(unsupported(
                span,
                format_args!("indexing {}", super::repr::describe(&other)),
                "index arrays, vectors and matrices; assign the value to an array variable first",
            )),
        }
    }

    /// Writes `base[indices] op= value` (the place `node`).
    #[allow(clippy::too_many_arguments)]
    pub fn index_write(
        &mut self,
        base: &Expr,
        indices: &[Index],
        op: AssignOp,
        value: &Expr,
        elem_ty: &Type,
        span: Span,
        node: NodeId,
    ) -> GResult<TokenStream> {
        if self.ctx != super::func::Ctx::Host && crate::ir::slice::is_slice(indices) {
            return self.kernel_slice_write(base, indices, op, value, span, node);
        }
        let b = self.expr(base)?;
        match b.r.clone() {
            Repr::Value => self.value_index_write(b, indices, op, value, span),
            Repr::Array(n, _) => self.host_write(base, b, n, indices, op, value, elem_ty, span),
            Repr::View(n, rank) => {
                let comps = self.view_components(indices, span, node)?;
                let v = self.num_as(value, n)?;
                let t = self.view_access(base, &b.t, n, rank, comps, Some((op, v)), span, node)?;
                Ok(quote!(#t;))
            }
            Repr::Fixed(n, shape) => {
                // A vector variable, or a vector field of a class value in a variable.
                let target =
                    match &base.kind {
                        ExprKind::Local(id) => self.local(*id),
                        ExprKind::Field { field, .. } => {
                            if self.fixed_field_place(base).is_none() {
                                let w = self.kernel_vec_field_elem_write(
                                    base,
                                    indices,
                                    op,
                                    value,
                                    (n, &shape[..]),
                                    span,
                                )?;
                                if let Some(t) = w {
                                    return Ok(t);
                                }
                                let w = self.host_vec_field_elem_write(
                                    base,
                                    indices,
                                    op,
                                    value,
                                    elem_ty,
                                    (n, &shape[..]),
                                    span,
                                )?;
                                if let Some(t) = w {
                                    return Ok(t);
                                }
                            }
                            let kernel = self.ctx != super::func::Ctx::Host;
                            self.fixed_field_place(base).ok_or_else(|| {
                                let instead = if kernel {
                                    // Kernels write elements of their array arguments in
                                    // place, not of a variable holding one.
                                    format!(
                                        "write through the kernel's array argument itself \
                                         (`a[i].{field}[k] = x`), or copy the element into a \
                                         variable, change it and store it"
                                    )
                                } else {
                                    format!(
                                        "assign the whole field (`a[i].{field} = [x, y, z]`), or \
                                         copy the element into a variable, change it and store it"
                                    )
                                };
                                unsupported(
                                    span,
                                    format_args!(
                                        "writing one element of the vector field `{field}` of an \
                                     array element"
                                    ),
                                    instead,
                                )
                            })?
                        }
                        _ => return Err(unsupported(
                            span,
                            "writing into a temporary vector",
                            "assign the vector to a variable, write into the variable, then use \
                             it",
                        )),
                    };
                let comps = self.components(indices, span)?;
                let v = if let Some(bop) =
                    super::stmt::binary_of(op).filter(|_| op != AssignOp::Assign)
                {
                    let read = Expr::new(
                        ExprKind::Index { base: Box::new(base.clone()), indices: indices.to_vec() },
                        elem_ty.clone(),
                        span,
                    );
                    let e = Expr::new(
                        ExprKind::Binary {
                            op: bop,
                            lhs: Box::new(read),
                            rhs: Box::new(value.clone()),
                        },
                        elem_ty.clone(),
                        span,
                    );
                    self.num_as(&e, n)?
                } else {
                    self.num_as(value, n)?
                };
                let t = self.fixed_access(&target, n, &shape, comps, Some(v), span)?;
                Ok(quote!(#t;))
            }
            other => Err(unsupported(
                span,
                format_args!("writing into {}", super::repr::describe(&other)),
                "write into an array variable: `y[i] = v`",
            )),
        }
    }

    /// Reads (`write` None) or writes an element of a kernel view with its access mode.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn view_access(
        &mut self,
        base: &Expr,
        view: &TokenStream,
        n: Num,
        rank: Option<u8>,
        cs: super::components::Comps,
        write: Option<(AssignOp, TokenStream)>,
        span: Span,
        node: NodeId,
    ) -> GResult<TokenStream> {
        self.view_access_field(base, view, n, rank, cs, write, &ElemPart::default(), span, node)
    }

    /// [`Self::view_access`], writing the part `field` of a class element (a field such as
    /// `.f_a.f_b`, or one component of a vector field) instead of the whole element when its
    /// path is not empty: `=` stores it, a compound assignment updates it atomically (as on
    /// elements of numbers).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn view_access_field(
        &mut self,
        base: &Expr,
        view: &TokenStream,
        n: Num,
        rank: Option<u8>,
        cs: super::components::Comps,
        write: Option<(AssignOp, TokenStream)>,
        field: &ElemPart,
        span: Span,
        node: NodeId,
    ) -> GResult<TokenStream> {
        let path = &field.path;
        // A component of a vector field is written only where its index is inside.
        let guarded = |t: TokenStream| match &field.guard {
            Some(g) => quote!(if #g { #t; }),
            None => t,
        };
        let rt = self.g.rt.clone();
        let (pre, comps) = (&cs.pre, &cs.list);
        let mut mode = self.access_mode(base);
        if write.is_some() && matches!(mode, Access::Clamped | Access::Circular | Access::Mirror) {
            // Writes with these modes act as 'safe (the feature overview: mapping writes
            // would create data races).
            mode = Access::Safe;
        }
        let k = comps.len();
        let r = rank.map(|r| r as usize).unwrap_or(k);
        let name = self.array_name(base);
        let geom = match &base.kind {
            // A field is written through the element's address (the general form below).
            _ if !path.is_empty() => None,
            ExprKind::Local(id) if self.geom.get(id) == Some(&k) => {
                let n = &self.names[id.0 as usize];
                Some((quote::format_ident!("{}__n", n), quote::format_ident!("{}__s", n), k))
            }
            _ => None,
        };
        let fast: Vec<bool> = (0..k)
            .map(|_| self.interior.as_ref().is_some_and(|p| p.unchecked.contains(&node)))
            .collect();
        // In the interior every component is in bounds: no extents, no test, one offset (the
        // atomic compound assignments keep the general form).
        let all_fast = k > 0
            && path.is_empty()
            && fast.iter().all(|&f| f)
            && matches!(write, None | Some((AssignOp::Assign, _)));
        let mut lets = Vec::new();
        // The components (`__i{d}`) and, with the block's geometry, the extents used (`__n{d}`).
        let mut is: Vec<(proc_macro2::Ident, TokenStream)> = Vec::new();
        let mut ns: Vec<TokenStream> = vec![quote!(_); k];
        let mut oks = Vec::new();
        let mut offs = Vec::new();
        for (d, c) in comps.iter().enumerate() {
            let i = quote::format_ident!("__i{}", d);
            // Fewer indices than dimensions: the last one is linear over the rest.
            let ext = if d + 1 == k && k < r {
                let ds: Vec<_> = (d..r).map(|e| quote!(__v.dim(#e))).collect();
                quote!(((1usize #(* #ds)*) as i64))
            } else {
                quote!((__v.dim(#d) as i64))
            };
            let (ext, stride) = match &geom {
                // Row-major: the last stride is 1, which lets LLVM see contiguous accesses.
                Some((nn, _, r)) if d + 1 == *r => (quote!(#nn[#d]), quote!(1usize)),
                Some((nn, ss, _)) => (quote!(#nn[#d]), quote!(#ss[#d])),
                None if d + 1 == k && k < r => (ext, quote!(1usize)),
                None => (ext, quote!(__v.stride(#d))),
            };
            let en = quote::format_ident!("__n{}", d);
            if fast[d] {
                // Wrapping: the flat loops of `collapse` run the interior with components that
                // are negative on their own (`p1 + o` with `p1 = 0`); the sum is in bounds.
                if all_fast {
                    offs.push(quote!(((#c) as usize).wrapping_mul(#stride)));
                } else {
                    is.push((i.clone(), c.clone()));
                    offs.push(quote!((#i as usize).wrapping_mul(#stride)));
                }
                continue;
            }
            is.push((i.clone(), c.clone()));
            // The extents read once per block are bound together (below).
            if geom.is_some() {
                ns[d] = quote!(#en);
            } else {
                lets.push(quote!(let #en: i64 = #ext;));
            }
            match mode {
                // The offset is computed before `ok` is tested, so an index outside (negative,
                // for a 'safe read that gives 0) must wrap instead of overflowing.
                Access::Unchecked => {
                    oks.push(quote!((cfg!(debug_assertions) == false || (#i >= 0 && #i < #en))));
                    offs.push(quote!((#i as usize).wrapping_mul(#stride)));
                }
                Access::Safe | Access::Checked => {
                    oks.push(quote!((#i >= 0 && #i < #en)));
                    offs.push(quote!((#i as usize).wrapping_mul(#stride)));
                }
                Access::Clamped => {
                    oks.push(quote!((#en > 0)));
                    offs.push(quote!((#rt::qstd::rt::clamp_ext(#i, #en) as usize) * #stride));
                }
                Access::Circular => {
                    oks.push(quote!((#en > 0)));
                    offs.push(quote!((#i.rem_euclid(#en.max(1)) as usize) * #stride));
                }
                Access::Mirror => {
                    oks.push(quote!((#en > 0)));
                    offs.push(
                        quote!((#rt::qstd::rt::mirror_ext(#i, #en.max(1)) as usize) * #stride),
                    );
                }
            }
        }
        if let Some((nn, _, _)) = &geom {
            if ns.iter().any(|t| t.to_string() != "_") {
                lets.insert(0, quote!(let [#(#ns),*]: [i64; #k] = #nn;));
            }
        }
        let (ins, ivs): (Vec<_>, Vec<_>) = is.into_iter().unzip();
        let ni = ins.len();
        if ni > 0 {
            lets.push(quote!(let [#(#ins),*]: [i64; #ni] = [#(#ivs),*];));
        }
        let ok = if oks.is_empty() { quote!(true) } else { quote!(#(#oks)&&*) };
        let off = match offs.split_first() {
            Some((first, [])) => quote!(#first),
            Some((first, rest)) => quote!((#first) #(.wrapping_add(#rest))*),
            None => quote!(0usize),
        };
        let zero = n.zero(&rt);
        let idx_list: Vec<TokenStream> = (0..k)
            .map(|d| {
                let i = quote::format_ident!("__i{}", d);
                quote!(#i)
            })
            .collect();
        // The access's Quasar location, as the GPU reports it from its site table.
        let file = self.g.opts.file_name_of(span);
        let (line, col) = (span.line, span.col);
        let err = quote!(return ::core::result::Result::Err(#rt::qstd::rt::index_error_at(#name, &[#(#idx_list),*], __v.shape().dims(), (#file, #line, #col))));
        let on_fail_read = match mode {
            Access::Checked | Access::Unchecked => quote!({ #err; }),
            _ => quote!(#zero),
        };
        let on_fail_write = match mode {
            Access::Checked | Access::Unchecked => quote!({ #err; }),
            _ => quote!({}),
        };
        // More subscripts than the view has dimensions: a vector is indexed as a row
        // (`v[0, j]`), other views gain trailing extents of 1.
        let view = if k > r && geom.is_none() {
            quote!((#view).with_subscripts(#k))
        } else {
            view.clone()
        };
        // The unchecked accesses go through `quasar_runtime::unchecked`, which states once why
        // the offset is in bounds here: `__ok` tested it, the interior proved it, or the array
        // is `'unchecked` in a release build.
        let un = quote!(#rt::run::unchecked);
        if all_fast {
            // With the block's geometry and one index per dimension, the runtime forms the
            // row-major offset (`read_at`, `write_at`): the same wrapping sum, written once.
            let (bind, v) = match (&geom, is_ident(&view)) {
                (Some(_), true) => (quote!(), view.clone()),
                _ => (quote!(let __v = #view;), quote!(__v)),
            };
            let body = match (&geom, write) {
                (Some((_, ss, gr)), Some((_, x))) if *gr == k => {
                    quote!(let __x = #x; unsafe { #un::write_at(&#v, [#(#comps),*], #ss, __x) })
                }
                (Some((_, ss, gr)), None) if *gr == k => {
                    quote!(unsafe { #un::read_at(&#v, [#(#comps),*], #ss) })
                }
                (_, Some((_, x))) => quote!(let __x = #x; unsafe { #un::write(&#v, #off, __x) }),
                (_, None) => quote!(unsafe { #un::read(&#v, #off) }),
            };
            return Ok(quote!({ #bind #(#pre)* #body }));
        }
        let zero_outside = !matches!(mode, Access::Checked | Access::Unchecked);
        // With the block's geometry, every mode but `'unchecked` is one runtime call: the modes
        // without errors test (or map) every index and read zero or write nothing outside;
        // `'checked` gives the located index error (`?`: the thread's function returns it).
        if let (Some((nn, ss, _)), false) = (&geom, mode == Access::Unchecked) {
            let q = quote!(#rt::qstd::rt);
            let (bind, v) = match is_ident(&view) {
                true => (quote!(), view.clone()),
                false => (quote!(let __v = #view;), quote!(__v)),
            };
            let (pre, at) = cs.array();
            let g = quote!((#nn, #ss));
            let (get, set) = match mode {
                Access::Checked => {
                    let site = quote!((#name, #file, #line, #col));
                    (
                        quote!(#q::view_read(&#v, #g, #at, #site)?),
                        quote!(#q::view_write(&#v, #g, __i, __x, #site)?),
                    )
                }
                _ => {
                    let m = match mode {
                        Access::Clamped => quote!(Clamped),
                        Access::Circular => quote!(Circular),
                        Access::Mirror => quote!(Mirror),
                        _ => quote!(Safe),
                    };
                    (
                        quote!(#q::view_get(&#v, #q::Mode::#m, #g, #at)),
                        quote!(#q::view_set(&#v, #g, __i, __x)),
                    )
                }
            };
            match &write {
                None => return Ok(quote!({ #bind #(#pre)* #get })),
                Some((AssignOp::Assign, x)) => {
                    return Ok(quote!({ #bind #(#pre)* let __i = #at; let __x = #x; #set }))
                }
                _ => {}
            }
        }
        // The field's address in the element (`__f`), for a field write.
        let at_field = quote!(let __f = unsafe { ::core::ptr::addr_of_mut!((*#un::element(&__v, __off)) #path) };);
        let body = match write {
            Some((AssignOp::Assign, v)) if !path.is_empty() => {
                let store = guarded(quote!(#at_field unsafe { __f.write(__x) }));
                quote!({ let __x = #v; if __ok { #store } else #on_fail_write })
            }
            None if zero_outside => quote!(unsafe { #un::read_if(&__v, __ok, __off) }),
            None => quote!(if __ok { unsafe { #un::read(&__v, __off) } } else { #on_fail_read }),
            Some((AssignOp::Assign, v)) if zero_outside => {
                quote!({ let __x = #v; unsafe { #un::write_if(&__v, __ok, __off, __x) } })
            }
            Some((AssignOp::Assign, v)) => {
                quote!({ let __x = #v; if __ok { unsafe { #un::write(&__v, __off, __x) } } else #on_fail_write })
            }
            Some((op, v)) => {
                let f = match op {
                    AssignOp::Add => quote!(add),
                    AssignOp::Sub => quote!(sub),
                    AssignOp::Mul | AssignOp::ElemMul => quote!(mul),
                    AssignOp::Div | AssignOp::ElemDiv => quote!(div),
                    AssignOp::Max => quote!(max),
                    AssignOp::Min => quote!(min),
                    AssignOp::Xor => quote!(xor),
                    AssignOp::Or => quote!(or),
                    AssignOp::And => quote!(and),
                    _ => return Err(unsupported(
                        span,
                        "this compound assignment on an array element in a kernel",
                        "use `+=`, `-=`, `*=`, `/=`, `^^=` or `__=` (atomic), or read, compute \
                             and assign with `=`",
                    )),
                };
                // Compound assignment on array elements in kernels is atomic (ARCHITECTURE §5),
                // but for a block's private copy of an accumulated-only argument.
                let private = match &base.kind {
                    ExprKind::Local(l) if matches!(op, AssignOp::Add | AssignOp::Sub) => {
                        self.private_acc.get(l)
                    }
                    _ => None,
                };
                let update = match private {
                    // A field of a class element (class arrays are never private copies).
                    _ if !path.is_empty() => {
                        guarded(quote!(#at_field #rt::run::atomic::#f(__f, __x)))
                    }
                    Some(flag) => {
                        let g = if op == AssignOp::Add { quote!(acc_add) } else { quote!(acc_sub) };
                        quote!(#rt::qstd::rt::#g(#flag, #un::element(&__v, __off), __x))
                    }
                    None => quote!(#rt::run::atomic::#f(#un::element(&__v, __off), __x)),
                };
                quote!({ let __x = #v; if __ok { unsafe { #update; } } else #on_fail_write })
            }
        };
        Ok(
            quote!({ let __v = #view; #(#pre)* #(#lets)* let __ok: bool = #ok; let __off: usize = #off; #body }),
        )
    }

    /// Element access of a fixed-size vector or small matrix in registers (an index outside
    /// reads zero and writes nothing).
    pub(super) fn fixed_access(
        &mut self,
        value: &TokenStream,
        n: Num,
        shape: &[usize],
        cs: super::components::Comps,
        write: Option<TokenStream>,
        span: Span,
    ) -> GResult<TokenStream> {
        let rt = self.g.rt.clone();
        let pre = cs.pre;
        let (terms, oks, offs) = fixed_offset(shape, &cs.list, "__i", span)?;
        let zero = n.zero(&rt);
        Ok(match write {
            None => {
                quote!({ let __a = #value; #(#pre)* #(#terms)* if #(#oks)&&* { __a[0usize #(+ #offs)*] } else { #zero } })
            }
            Some(v) => {
                quote!({ let __x = #v; #(#pre)* #(#terms)* if #(#oks)&&* { #value[0usize #(+ #offs)*] = __x; } })
            }
        })
    }
}

/// The place in a class element that a kernel writes: a field (`.f_a.f_b`), or one component
/// of a vector field (`.f_v[__coff]`, written only where `guard` holds). Empty: the element.
#[derive(Default)]
pub(super) struct ElemPart {
    pub path: TokenStream,
    pub guard: Option<TokenStream>,
}

/// The element of a fixed-size vector or small matrix of `shape` at components `comps`: the
/// bindings of the components (`{name}{d}`), the tests that they are inside, and the
/// row-major terms of the offset (a single index is linear; a vector indexed as a matrix is a
/// row).
#[allow(clippy::type_complexity)]
pub(super) fn fixed_offset(
    shape: &[usize],
    comps: &[TokenStream],
    name: &str,
    span: Span,
) -> GResult<(Vec<TokenStream>, Vec<TokenStream>, Vec<TokenStream>)> {
    if comps.is_empty() {
        return Err(unsupported(span, "an empty index", "give at least one index, e.g. `x[0]`"));
    }
    let (mut terms, mut oks, mut offs) = (Vec::new(), Vec::new(), Vec::new());
    let es = crate::backend::small_layout::extents_strides(shape, comps.len());
    for (d, (c, &(ext, stride))) in comps.iter().zip(&es).enumerate() {
        let i = quote::format_ident!("{}{}", name, d);
        terms.push(quote!(let #i: i64 = #c;));
        oks.push(quote!((#i >= 0 && #i < #ext as i64)));
        offs.push(quote!((#i as usize) * #stride));
    }
    Ok((terms, oks, offs))
}

/// Whether `t` is a single identifier (a local that needs no binding of its own).
fn is_ident(t: &TokenStream) -> bool {
    let mut it = t.clone().into_iter();
    matches!((it.next(), it.next()), (Some(proc_macro2::TokenTree::Ident(_)), None))
}
