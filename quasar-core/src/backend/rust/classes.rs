//! Classes (manual §2.2.6 and chapter 7) in generated Rust.
//!
//! Every concrete class instance the module uses (`point`, `stack[int]`) gets a number `k`
//! (registered by [`class_repr`] the first time a type needs it) and two items:
//!
//! * `struct __QS<k>` with all fields, inherited ones first; `#[repr(C)]`, `Copy` and an
//!   `Element` when every field is plain old data (numbers, small vectors, such classes), so
//!   that such values can live in registers and arrays;
//! * `trait __QT<k>` with a getter and a setter per field the class declares itself (the
//!   parent's trait, a supertrait, has the inherited ones), implemented for `Mutex<__QS<j>>` of
//!   the class and of every class derived from it.
//!
//! An immutable class value is the struct itself (a value). A `mutable class` value is shared:
//! `Arc<dyn __QT<k>>`, so that a derived object seen as its parent (`^point` given a `circle`)
//! is the same object. A pointer `^T` is `Option<Arc<dyn __QT<k>>>`; `nullptr` is `None`.

use super::expr::V;
use super::func::FnGen;
use super::ty::Repr;
use super::{unsupported, GResult, Gen};
use crate::diagnostics::Diagnostic;
use crate::ir::ClassDef;
use crate::sema::types::{ClassRef, Type};
use crate::span::Span;
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

pub(crate) fn struct_ident(k: usize) -> Ident {
    format_ident!("__QS{}", k)
}

pub(crate) fn trait_ident(k: usize) -> Ident {
    format_ident!("__QT{}", k)
}

pub(crate) fn getter(field: &str) -> Ident {
    format_ident!("__get_{}", super::sanitize(field))
}

fn setter(field: &str) -> Ident {
    format_ident!("__set_{}", super::sanitize(field))
}

pub(crate) fn field_ident(field: &str) -> Ident {
    format_ident!("f_{}", super::sanitize(field))
}

/// The class definition of `id`.
pub(crate) fn def<'m>(g: &Gen<'m>, c: &ClassRef) -> Option<&'m ClassDef> {
    g.m.classes.iter().find(|d| d.id == c.id)
}

/// The number of the class instance `c`, registering it.
pub(crate) fn class_index(g: &Gen, c: &ClassRef) -> usize {
    let mut reg = g.classes.borrow_mut();
    let key = (c.id, c.args.clone());
    if let Some(k) = reg.iter().position(|r| (r.id, r.args.clone()) == key) {
        return k;
    }
    reg.push(c.clone());
    reg.len() - 1
}

/// How a class value (`ty` a class) or a pointer to one is held.
pub(crate) fn class_repr(g: &Gen, ty: &Type, ctx: super::func::Ctx, span: Span) -> GResult<Repr> {
    let (c, pointer) = match ty {
        Type::Class(c) => (c, false),
        Type::Pointer(inner) => match inner.as_ref() {
            Type::Class(c) => (c, true),
            t => {
                return Err(unsupported(
                    span,
                    format_args!("pointers to {t}"),
                    "point to class values only (manual §2.2.6)",
                ))
            }
        },
        _ => unreachable!("class_repr is called for classes and pointers"),
    };
    let Some(d) = def(g, c) else {
        return Err(unsupported(span, format_args!("values of type {ty}"), "define the class"));
    };
    // `^my_interface` for the one instance the module builds (`analysis::class_args`).
    let c = &*g.info.class_args.complete(c, d.params.len());
    let built = g.info.class_args.built(c.id).len();
    if c.args.len() < d.params.len() && built > 1 {
        return Err(Diagnostic::error(
            span,
            format!(
                "`{}` is named without the types of its function fields, and this module \
                 builds it with {built} different ones",
                d.name
            ),
        )
        .with_note(format!(
            "give each function field a full type (`f : [(^{}) -> int]`), so that every value \
             of the class has one type",
            d.name
        )));
    }
    if !c.args.iter().all(Type::is_concrete) || d.params.len() != c.args.len() {
        return Err(unsupported(
            span,
            format_args!("values of the generic class {ty}"),
            "give the class its type arguments (`stack[int]`)",
        ));
    }
    if d.dynamic {
        // Fields are added at run time (manual §7.4): an object, in host code only.
        if ctx != super::func::Ctx::Host || pointer {
            return Err(unsupported(
                span,
                format_args!("the dynamic class {ty} here"),
                "use dynamic classes in host code (manual §7.4); use a `class` or `mutable class` in kernels",
            ));
        }
        return Ok(Repr::Value);
    }
    let k = class_index(g, c);
    if ctx != super::func::Ctx::Host {
        // Kernels get class values by value, as plain old data (a `mutable class` value is
        // the thread's own: `p.x = 3` changes its copy, manual chapter 7).
        if pointer || !pod_class(g, k) {
            return Err(unsupported(
                span,
                format_args!("{ty} in kernel and device functions"),
                "use a `class` or `mutable class` whose fields are numbers, small vectors or \
                 such classes in kernels (pointers and fields of `mutable class` type stay on \
                 the host)",
            ));
        }
        return Ok(Repr::Class(k));
    }
    Ok(if pointer {
        Repr::Ptr(k)
    } else if d.mutable {
        Repr::Obj(k)
    } else {
        Repr::Class(k)
    })
}

/// Whether class instance `k` is plain old data (a kernel value and an array element).
pub(crate) fn pod_class(g: &Gen, k: usize) -> bool {
    is_pod(g, &Repr::Class(k))
}

/// Whether a value held as `r` is plain old data (can be `Copy` and an array element).
fn is_pod(g: &Gen, r: &Repr) -> bool {
    match r {
        Repr::Num(_) | Repr::Fixed(..) => true,
        Repr::Class(k) => {
            field_reprs(g, *k, Span::default()).is_ok_and(|fs| fs.iter().all(|(_, r)| is_pod(g, r)))
        }
        _ => false,
    }
}

/// The fields of a class instance, as its struct holds them (as host code holds values).
pub(crate) fn field_reprs(g: &Gen, k: usize, span: Span) -> GResult<Vec<(String, Repr)>> {
    let c = g.classes.borrow()[k].clone();
    let d = def(g, &c).ok_or_else(|| unsupported(span, "this class", "define the class"))?;
    let mut out = Vec::new();
    for (f, t) in d.fields_of(&c.args) {
        out.push((f, field_repr(g, &t, d.span)?));
    }
    Ok(out)
}

/// How a class's struct holds a field of type `t`: as host code holds values, except that
/// fixed-size vectors (`vec3`) are held in place, `[T; N]`, so that a class with such fields
/// is plain old data (a kernel value, an element of an array of classes).
pub(crate) fn field_repr(g: &Gen, t: &Type, span: Span) -> GResult<Repr> {
    let fixed = match t {
        Type::Array(a) => super::ty::fixed_shape(a)
            .zip(super::ty::Num::of(&a.elem))
            .map(|(s, n)| Repr::Fixed(n, s)),
        _ => None,
    };
    match fixed {
        Some(r) => Ok(r),
        None => super::repr::repr_in(g, t, super::func::Ctx::Host, span),
    }
}

/// The Rust items of every class instance registered while generating the module.
pub(crate) fn generate(g: &mut Gen) -> TokenStream {
    let mut items = Vec::new();
    let mut k = 0;
    while k < g.classes.borrow().len() {
        match class_items(g, k) {
            Ok(ts) => items.push(ts),
            Err(d) => g.diagnostics.push(d),
        }
        k += 1;
    }
    quote!(#(#items)*)
}

fn class_items(g: &Gen, k: usize) -> GResult<TokenStream> {
    let rt = &g.rt;
    let c = g.classes.borrow()[k].clone();
    let d = def(g, &c).ok_or_else(|| unsupported(Span::default(), "this class", "define it"))?;
    let fields = field_reprs(g, k, d.span)?;
    let sname = struct_ident(k);
    let tname = trait_ident(k);
    let pod = fields.iter().all(|(_, r)| is_pod(g, r));
    let names: Vec<Ident> = fields.iter().map(|(f, _)| field_ident(f)).collect();
    let types: Vec<TokenStream> =
        fields.iter().map(|(_, r)| super::ty::rust_type(r, rt, &quote!('static))).collect();
    let derive = if pod {
        quote!(#[derive(Clone, Copy, Debug, Default)] #[repr(C)])
    } else {
        quote!(#[derive(Clone)])
    };
    let element = if pod {
        // SAFETY: `repr(C)` and every field is a number, a fixed-size array of numbers or
        // such a struct (all `Element`s).
        quote!(unsafe impl #rt::run::Element for #sname {})
    } else {
        quote!()
    };
    // The zero value (`point()`), when every field has one.
    let zeros: Option<Vec<TokenStream>> = fields.iter().map(|(_, r)| zero_value(g, r)).collect();
    let zero = zeros.map(|zs| {
        quote!(impl #sname {
            #[allow(dead_code)]
            fn __zero() -> #rt::run::Result<#sname> {
                ::core::result::Result::Ok(#sname { #(#names: #zs),* })
            }
        })
    });
    // The trait: getters and setters of the fields this class declares itself.
    let parent = d.parent.map(|p| ClassRef { id: p, name: String::new(), args: Vec::new() });
    let inherited = parent.as_ref().and_then(|p| def(g, p)).map_or(0, |pd| pd.fields.len());
    let supertrait = match &parent {
        Some(p) => {
            let pk = class_index(g, p);
            let pt = trait_ident(pk);
            quote!(#pt)
        }
        None => quote!(::core::marker::Send + ::core::marker::Sync),
    };
    let own = &fields[inherited.min(fields.len())..];
    let sigs = own.iter().map(|(f, r)| {
        let (get, set) = (getter(f), setter(f));
        let t = super::ty::rust_type(r, rt, &quote!('static));
        quote!(fn #get(&self) -> #t; fn #set(&self, v: #t);)
    });
    let mut impls = Vec::new();
    // This class's trait for its own struct and for the struct of every class derived from it.
    let registered: Vec<ClassRef> = g.classes.borrow().clone();
    for (j, other) in registered.iter().enumerate() {
        if !other.args.is_empty() && j != k {
            continue;
        }
        if j != k && !derives_from(g, other.id, c.id) {
            continue;
        }
        let s = struct_ident(j);
        let methods = own.iter().map(|(f, r)| {
            let (get, set, name) = (getter(f), setter(f), field_ident(f));
            let t = super::ty::rust_type(r, rt, &quote!('static));
            quote! {
                fn #get(&self) -> #t {
                    self.lock().unwrap_or_else(::std::sync::PoisonError::into_inner).#name.clone()
                }
                fn #set(&self, v: #t) {
                    self.lock().unwrap_or_else(::std::sync::PoisonError::into_inner).#name = v;
                }
            }
        });
        impls.push(quote!(impl #tname for ::std::sync::Mutex<#s> { #(#methods)* }));
    }
    let doc = format!(" The Quasar class `{}`.", display_name(&c, d));
    Ok(quote! {
        #[doc = #doc]
        #derive
        #[allow(non_camel_case_types, dead_code)]
        pub struct #sname { #(pub #names: #types),* }
        #element
        #zero
        #[doc(hidden)]
        #[allow(non_camel_case_types, dead_code)]
        pub trait #tname: #supertrait { #(#sigs)* }
        #(#impls)*
    })
}

fn display_name(c: &ClassRef, d: &ClassDef) -> String {
    if c.args.is_empty() {
        d.name.clone()
    } else {
        Type::Class(ClassRef { name: d.name.clone(), ..c.clone() }).to_string()
    }
}

/// Whether class `child` derives (directly or not) from `ancestor`.
pub(crate) fn derives_from(
    g: &Gen,
    child: crate::sema::types::ClassId,
    ancestor: crate::sema::types::ClassId,
) -> bool {
    let mut cur = Some(child);
    while let Some(id) = cur {
        if id == ancestor {
            return true;
        }
        cur = g.m.classes.iter().find(|d| d.id == id).and_then(|d| d.parent);
    }
    false
}

/// The zero value of a field (`point()` leaves numbers 0, arrays empty, pointers null).
fn zero_value(g: &Gen, r: &Repr) -> Option<TokenStream> {
    let rt = &g.rt;
    Some(match r {
        Repr::Num(n) => n.zero(rt),
        Repr::Str => quote!(::std::string::String::new()),
        Repr::Array(n, _) => {
            let t = n.tokens(rt);
            quote!(#rt::run::Array::<#t>::empty())
        }
        Repr::Fixed(n, s) => {
            let z = n.zero(rt);
            let len: usize = s.iter().product();
            quote!([#z; #len])
        }
        Repr::Class(k) if has_zero(g, *k) => {
            let s = struct_ident(*k);
            quote!(#s::__zero()?)
        }
        Repr::Obj(k) if has_zero(g, *k) => {
            let (s, t) = (struct_ident(*k), trait_ident(*k));
            quote!((::std::sync::Arc::new(::std::sync::Mutex::new(#s::__zero()?)) as ::std::sync::Arc<dyn #t>))
        }
        Repr::Ptr(_) => quote!(::core::option::Option::None),
        _ => return None,
    })
}

/// Whether class instance `k` has a zero value: every field has one (a function value, as
/// in a field of type `[?? -> ??]`, has none).
fn has_zero(g: &Gen, k: usize) -> bool {
    field_reprs(g, k, Span::default())
        .is_ok_and(|fs| fs.iter().all(|(_, r)| zero_value(g, r).is_some()))
}

impl<'g, 'm> FnGen<'g, 'm> {
    /// The zero value of a class-typed local (its declaration), when it has one.
    pub fn class_zero(&self, r: &Repr) -> Option<TokenStream> {
        zero_value(self.g, r)
    }

    /// `point(x := 1, y := 2)` (every field given) or `point()` (all zero).
    pub fn construct(
        &mut self,
        fields: &[(String, crate::ir::Expr)],
        r: Repr,
        span: Span,
    ) -> GResult<V> {
        let k = match r {
            Repr::Class(k) | Repr::Obj(k) => k,
            _ => return Err(unsupported(span, "this class value", "construct a class")),
        };
        let layout = field_reprs(self.g, k, span)?;
        let s = struct_ident(k);
        let value = if fields.is_empty() {
            zero_value(self.g, &Repr::Class(k)).ok_or_else(|| {
                unsupported(
                    span,
                    "a class value without fields whose fields have no zero value",
                    "give every field a value: `name(field := value, …)`",
                )
            })?
        } else {
            let mut inits = Vec::new();
            for (name, fr) in &layout {
                let Some((_, e)) = fields.iter().find(|(f, _)| f == name) else {
                    return Err(unsupported(
                        span,
                        format_args!("a class value without its field `{name}`"),
                        "give every field a value",
                    ));
                };
                let v = self.expr_as(e, fr)?;
                let id = field_ident(name);
                inits.push(quote!(#id: #v));
            }
            quote!(#s { #(#inits),* })
        };
        Ok(match r {
            Repr::Obj(k) => {
                let t = trait_ident(k);
                V {
                    t: quote!((::std::sync::Arc::new(::std::sync::Mutex::new(#value)) as ::std::sync::Arc<dyn #t>)),
                    r,
                }
            }
            _ => V { t: value, r },
        })
    }

    /// Reads the field `field` of a class value or pointer.
    pub fn field_read(&mut self, base: &crate::ir::Expr, field: &str, span: Span) -> GResult<V> {
        let b = self.expr(base)?;
        if b.r == Repr::Value {
            return Ok(self.value_field(b, field, span));
        }
        let (k, access) = match &b.r {
            Repr::Class(k) | Repr::Num(super::ty::Num::Class(k)) => (*k, Access::Value),
            Repr::Obj(k) => (*k, Access::Shared),
            Repr::Ptr(k) => (*k, Access::Pointer),
            _ => {
                return Err(unsupported(
                    span,
                    "this field",
                    "read fields of class values (`p.x` where `p` is a class)",
                ))
            }
        };
        let fr = self.class_field_repr(k, field, span)?;
        let t = b.t;
        let t = match access {
            Access::Value => {
                let f = field_ident(field);
                quote!((#t).#f.clone())
            }
            Access::Shared => {
                let get = getter(field);
                quote!((#t).#get())
            }
            Access::Pointer => {
                let get = getter(field);
                let p = self.deref_pointer(t, span);
                quote!(#p.#get())
            }
        };
        Ok(V { t, r: fr })
    }

    /// The object a pointer points to, or the run-time error of a null pointer.
    fn deref_pointer(&self, p: TokenStream, span: Span) -> TokenStream {
        let rt = &self.g.rt;
        let loc = self.g.location(span);
        quote!((match #p {
            ::core::option::Option::Some(__p) => __p,
            ::core::option::Option::None => return ::core::result::Result::Err(#rt::run::Error::User {
                message: ::std::string::String::from("a field of `nullptr` was used (the pointer is null)"),
                location: #loc,
            }),
        }))
    }

    fn class_field_repr(&self, k: usize, field: &str, span: Span) -> GResult<Repr> {
        let layout = field_reprs(self.g, k, span)?;
        layout.into_iter().find(|(f, _)| f == field).map(|(_, r)| r).ok_or_else(|| {
            unsupported(span, format_args!("the field `{field}`"), "use a declared field")
        })
    }

    /// `obj.field op= value` on a mutable class object or through a pointer.
    pub fn field_write(
        &mut self,
        base: &crate::ir::Expr,
        field: &str,
        op: crate::ir::AssignOp,
        value: &crate::ir::Expr,
        field_ty: &Type,
        span: Span,
    ) -> GResult<TokenStream> {
        if let Some(t) = self.in_place_field_write(base, field, op, value, field_ty, span)? {
            return Ok(t);
        }
        let b = self.expr(base)?;
        if b.r == Repr::Value {
            return self.value_field_write(b, field, op, value, span);
        }
        let k = match &b.r {
            Repr::Obj(k) | Repr::Ptr(k) => *k,
            _ => {
                return Err(unsupported(
                    span,
                    "assigning a field of this value",
                    "assign fields of `mutable class` objects",
                ))
            }
        };
        let fr = self.class_field_repr(k, field, span)?;
        let new = match super::stmt::binary_of(op) {
            None => self.expr_as(value, &fr)?,
            Some(_)
                if matches!(
                    op,
                    crate::ir::AssignOp::Max
                        | crate::ir::AssignOp::Min
                        | crate::ir::AssignOp::Xor
                        | crate::ir::AssignOp::Or
                        | crate::ir::AssignOp::And
                ) =>
            {
                return Err(unsupported(
                    span,
                    "this compound assignment to a field",
                    "write `p.x = max(p.x, v)` (or the operator) in full",
                ))
            }
            Some(bop) => {
                let read = crate::ir::Expr::new(
                    crate::ir::ExprKind::Field {
                        base: Box::new(base.clone()),
                        field: field.to_string(),
                    },
                    field_ty.clone(),
                    span,
                );
                let e = crate::ir::Expr::new(
                    crate::ir::ExprKind::Binary {
                        op: bop,
                        lhs: Box::new(read),
                        rhs: Box::new(value.clone()),
                    },
                    field_ty.clone(),
                    span,
                );
                self.expr_as(&e, &fr)?
            }
        };
        let set = setter(field);
        let obj = b.t;
        let target = if matches!(b.r, Repr::Ptr(_)) {
            self.deref_pointer(quote!(__obj), span)
        } else {
            quote!(__obj)
        };
        Ok(quote!({ let __obj = #obj; let __new = #new; #target.#set(__new); }))
    }

    /// Class conversions: a derived class to its parent, a value to a pointer, `nullptr`.
    pub fn convert_class(&mut self, v: &V, target: &Repr, span: Span) -> GResult<TokenStream> {
        let t = &v.t;
        let arc = |k: usize| {
            let tr = trait_ident(k);
            quote!(::std::sync::Arc<dyn #tr>)
        };
        Ok(match (&v.r, target) {
            (Repr::Null, Repr::Ptr(_)) => quote!({ let _ = #t; ::core::option::Option::None }),
            (Repr::Class(a), Repr::Ptr(b)) if self.class_within(*a, *b) => {
                let ty = arc(*b);
                quote!(::core::option::Option::Some(::std::sync::Arc::new(::std::sync::Mutex::new(#t)) as #ty))
            }
            (Repr::Obj(a), Repr::Ptr(b)) if self.class_within(*a, *b) => {
                let ty = arc(*b);
                quote!(::core::option::Option::Some(#t as #ty))
            }
            // A snapshot of a `mutable class` object as a value (a kernel argument, an
            // element of an array of the class), and a new object holding a value.
            (Repr::Obj(a), Repr::Class(b)) if self.class_within(*a, *b) => {
                let layout = field_reprs(self.g, *b, span)?;
                let s = struct_ident(*b);
                let names: Vec<Ident> = layout.iter().map(|(f, _)| field_ident(f)).collect();
                let gets: Vec<Ident> = layout.iter().map(|(f, _)| getter(f)).collect();
                quote!({ let __o = #t; #s { #(#names: __o.#gets()),* } })
            }
            (Repr::Class(a), Repr::Obj(b)) if self.class_within(*a, *b) => {
                let ty = arc(*b);
                quote!((::std::sync::Arc::new(::std::sync::Mutex::new(#t)) as #ty))
            }
            (Repr::Obj(a), Repr::Obj(b)) if self.class_within(*a, *b) => {
                let ty = arc(*b);
                quote!((#t as #ty))
            }
            (Repr::Ptr(a), Repr::Ptr(b)) if self.class_within(*a, *b) => {
                let ty = arc(*b);
                quote!((#t).map(|__p| __p as #ty))
            }
            (Repr::Ptr(a), Repr::Obj(b)) if self.class_within(*a, *b) => {
                let ty = arc(*b);
                let p = self.deref_pointer(t.clone(), span);
                quote!((#p as #ty))
            }
            (Repr::Class(a), Repr::Class(b)) if self.class_within(*a, *b) => {
                let layout = field_reprs(self.g, *b, span)?;
                let s = struct_ident(*b);
                let names: Vec<Ident> = layout.iter().map(|(f, _)| field_ident(f)).collect();
                quote!({ let __c = #t; #s { #(#names: __c.#names),* } })
            }
            (from, to) => {
                return Err(unsupported(
                    span,
                    format_args!(
                        "a conversion from {} to {}",
                        super::repr::describe(from),
                        super::repr::describe(to)
                    ),
                    "pass an object of the class or of a class derived from it",
                ))
            }
        })
    }

    /// Whether instance `a` is instance `b` or derives from it.
    fn class_within(&self, a: usize, b: usize) -> bool {
        if a == b {
            return true;
        }
        let reg = self.g.classes.borrow();
        let (ca, cb) = (reg[a].clone(), reg[b].clone());
        drop(reg);
        ca.args.is_empty() && cb.args.is_empty() && derives_from(self.g, ca.id, cb.id)
    }

    /// `p == q`, `p != nullptr` on pointers and mutable objects: the same object.
    pub fn pointer_compare(
        &mut self,
        equal: bool,
        lhs: &crate::ir::Expr,
        rhs: &crate::ir::Expr,
    ) -> GResult<TokenStream> {
        let a = self.expr(lhs)?;
        let b = self.expr(rhs)?;
        let addr = |v: &V| -> TokenStream {
            let t = &v.t;
            match v.r {
                Repr::Null => quote!({ let _ = #t; ::core::ptr::null::<()>() }),
                Repr::Ptr(_) => {
                    quote!((#t).as_ref().map_or(::core::ptr::null::<()>(), |__p| ::std::sync::Arc::as_ptr(__p) as *const ()))
                }
                _ => quote!((::std::sync::Arc::as_ptr(&#t) as *const ())),
            }
        };
        let (x, y) = (addr(&a), addr(&b));
        Ok(if equal { quote!((#x == #y)) } else { quote!((#x != #y)) })
    }
}

enum Access {
    Value,
    Shared,
    Pointer,
}
