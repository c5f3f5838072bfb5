//! Host and device function instances: `fn __q_<instance>(params…, captures…) -> Result<…>`.

use super::expr::V;
use super::ty::Repr;
use super::{local_ident, unsupported, GResult, Gen};
use crate::ir::{Function, FunctionId, LocalId, LocalRole};
use crate::syntax::ast::FunctionKind;
use proc_macro2::{Ident, TokenStream};
use quote::quote;
use std::collections::HashMap;

/// Where generated code runs: host code, a device function, or a kernel's body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ctx {
    Host,
    Device,
    Kernel,
}

/// Per-function state of the generator.
pub(crate) struct FnGen<'g, 'm> {
    pub g: &'g mut Gen<'m>,
    pub f: &'m Function,
    pub id: FunctionId,
    pub ctx: Ctx,
    reprs: Vec<Option<Repr>>,
    pub names: Vec<Ident>,
    /// Barrier kernels keep every local per thread: a read of `x` is `x[__t]`.
    pub per_thread: Option<Ident>,
    /// Kernel parameters the body assigns to: each thread works on its own copy (kept per
    /// thread in barrier kernels, like locals).
    pub assigned_params: Vec<LocalId>,
    /// Kernel output locals and their output slot.
    pub outputs: HashMap<LocalId, usize>,
    /// The interior fast path of a kernel's innermost loop is being generated.
    pub interior: Option<crate::ir::partition::Partition>,
    /// The hot loop of a row is being generated: kernel outputs combine into the row's local
    /// copies `__out{k}` (see `kernel::row_outputs`), not into the block's slots.
    pub row_outputs: bool,
    /// The outputs (slot numbers) that the hot loop combines in lanes, `__out{k}.at(__l)`
    /// (see `kernel::row_outputs`).
    pub laned: Vec<usize>,
    /// A per-lane statement of a strip is being generated (`strip.rs`): per local, whether it
    /// holds one value per lane, read and written as `x[__l]`.
    pub lane_locals: Option<Vec<bool>>,
    /// The strip being generated holds two rows of positions (`Lockstep::pairs`): a lane
    /// local is `x[__r][__l]`, `__r` the row.
    pub lane_rows: bool,
    pub loop_depth: usize,
    /// Kernel views whose extents and strides were read once in the prologue
    /// (`<name>__n`, `<name>__s`), with their rank.
    pub geom: HashMap<LocalId, usize>,
    /// Kernel views a CPU block may accumulate into privately (`analysis::accumulators`),
    /// with the flag local that says whether this block does (`rt::acc_add`).
    pub private_acc: HashMap<LocalId, Ident>,
    /// The locals assigned arrays of run-time size (`backend/heap.rs`): views, yet the
    /// thread's own (per thread in barrier kernels).
    pub heap_locals: Vec<LocalId>,
}

impl<'g, 'm> FnGen<'g, 'm> {
    pub fn new(g: &'g mut Gen<'m>, id: FunctionId, ctx: Ctx) -> GResult<FnGen<'g, 'm>> {
        let f = g.m.function(id);
        let names =
            f.locals.iter().enumerate().map(|(i, l)| local_ident(&l.name, i as u32)).collect();
        let mut fg = FnGen {
            g,
            f,
            id,
            ctx,
            reprs: Vec::new(),
            names,
            per_thread: None,
            assigned_params: Vec::new(),
            outputs: HashMap::new(),
            interior: None,
            row_outputs: false,
            laned: Vec::new(),
            lane_locals: None,
            lane_rows: false,
            loop_depth: 0,
            geom: HashMap::new(),
            private_acc: HashMap::new(),
            heap_locals: crate::backend::heap::heap_locals(f),
        };
        let mut reprs = Vec::new();
        for l in &f.locals {
            // Locals whose type cannot be represented are an error only when used.
            reprs.push(fg.repr_of(&l.ty, l.span).ok());
        }
        fg.reprs = reprs;
        Ok(fg)
    }

    pub fn set_local_repr(&mut self, id: LocalId, r: Repr) {
        self.reprs[id.0 as usize] = Some(r);
    }

    pub fn local_repr(&self, id: LocalId) -> &Repr {
        self.reprs[id.0 as usize].as_ref().unwrap_or(&Repr::Unit)
    }

    /// The local's representation, or the error that says why it has none.
    pub fn local_repr_checked(&mut self, id: LocalId) -> GResult<Repr> {
        match &self.reprs[id.0 as usize] {
            Some(r) => Ok(r.clone()),
            None => {
                let l = self.f.local(id);
                let (ty, span) = (l.ty.clone(), l.span);
                self.repr_of(&ty, span)
            }
        }
    }

    /// A place expression for a local.
    pub fn local(&self, id: LocalId) -> TokenStream {
        let n = &self.names[id.0 as usize];
        if self.lane_locals.as_ref().is_some_and(|v| v.get(id.0 as usize) == Some(&true)) {
            return if self.lane_rows { quote!(#n[__r][__l]) } else { quote!(#n[__l]) };
        }
        match &self.per_thread {
            Some(t)
                if (matches!(self.f.local(id).role, LocalRole::Var | LocalRole::Output)
                    || self.assigned_params.contains(&id))
                    && (!matches!(self.local_repr(id), Repr::View(..))
                        || self.heap_locals.contains(&id)) =>
            {
                quote!(#n[#t])
            }
            _ => quote!(#n),
        }
    }

    /// Reads a local as a value.
    pub fn read_local(&self, id: LocalId) -> V {
        let r = self.local_repr(id).clone();
        let t = self.local(id);
        let t = match r {
            // A tuple (a spread call's results) is read once per result.
            Repr::Array(..)
            | Repr::Str
            | Repr::FnVal(_)
            | Repr::Tuple(_)
            | Repr::Class(_)
            | Repr::Obj(_)
            | Repr::Ptr(_)
            | Repr::Value => quote!(#t.clone()),
            _ => t,
        };
        V { t, r }
    }

    /// The function's result value: `()`, its output, or a tuple of them.
    pub fn result_value(&self) -> TokenStream {
        self.result_of(false)
    }

    /// The result at the end of the body: as [`result_value`](Self::result_value), but arrays
    /// are moved out of their variables (nothing runs after) instead of cloned.
    fn final_result_value(&self) -> TokenStream {
        self.result_of(true)
    }

    fn result_of(&self, move_arrays: bool) -> TokenStream {
        let outs = &self.f.outputs;
        let distinct = outs.iter().enumerate().all(|(i, o)| !outs[..i].contains(o));
        let vals: Vec<_> = outs
            .iter()
            .map(|o| match self.local_repr(*o) {
                Repr::Array(..) if move_arrays && distinct => {
                    let n = &self.names[o.0 as usize];
                    quote!(#n)
                }
                _ => self.read_local(*o).t,
            })
            .collect();
        match vals.len() {
            0 => quote!(()),
            1 => vals[0].clone(),
            _ => quote!((#(#vals),*)),
        }
    }

    pub fn result_type(&mut self) -> GResult<TokenStream> {
        let mut ts = Vec::new();
        for o in &self.f.outputs {
            let r = self.local_repr_checked(*o)?;
            ts.push(self.rust_type(&r));
        }
        Ok(match ts.len() {
            0 => quote!(()),
            1 => ts[0].clone(),
            _ => quote!((#(#ts),*)),
        })
    }

    /// `let mut x: T = default;` for every local that is not a parameter or capture.
    pub fn declare_locals(&mut self, skip: impl Fn(LocalRole) -> bool) -> GResult<TokenStream> {
        let mut out = vec![self.declare_arenas()];
        for (i, l) in self.f.locals.iter().enumerate() {
            if skip(l.role) {
                continue;
            }
            let Some(r) = self.reprs[i].clone() else { continue };
            let name = &self.names[i];
            let ty = self.rust_type(&r);
            match r {
                Repr::FnVal(_) | Repr::View(..) => out.push(quote!(let mut #name: #ty;)),
                Repr::Class(_) | Repr::Obj(_) | Repr::Ptr(_) => match self.class_zero(&r) {
                    Some(d) => out.push(quote!(let mut #name: #ty = #d;)),
                    None => out.push(quote!(let mut #name: #ty;)),
                },
                // A result of a function without one (`<result> = print(x)` in a lambda).
                Repr::Unit => out.push(quote!(let mut #name: () = ();)),
                _ => {
                    let d = self.default_value(&r, l.span)?;
                    out.push(quote!(let mut #name: #ty = #d;));
                }
            }
        }
        Ok(quote!(#(#out)*))
    }

    /// Parameters then captures, as `name: Type` (kernel views with the lifetime `'__v`), and
    /// whether any is a view (the function then declares `'__v`).
    pub fn signature_params(&mut self) -> GResult<(Vec<TokenStream>, bool)> {
        let mut out = Vec::new();
        let mut views = false;
        for id in self.f.params.iter().chain(&self.f.captures) {
            let r = self.local_repr_checked(*id)?;
            let l = self.f.local(*id);
            if r == Repr::Unit {
                return Err(unsupported(
                    l.span,
                    format_args!(
                        "the parameter `{}` of type {}",
                        l.name,
                        l.ty.spelled_with_scalar(self.g.opts.scalar)
                    ),
                    "give the parameter a number, string or array type",
                ));
            }
            views |= matches!(r, Repr::View(..));
            let name = &self.names[id.0 as usize];
            let ty = super::ty::rust_type(&r, &self.g.rt, &quote!('__v));
            out.push(quote!(mut #name: #ty));
        }
        Ok((out, views))
    }
}

/// A host or device function instance.
pub(crate) fn generate(g: &mut Gen, id: FunctionId) -> GResult<TokenStream> {
    let f = g.m.function(id);
    let ctx = match f.kind {
        FunctionKind::Device => Ctx::Device,
        _ => Ctx::Host,
    };
    let name = g.fn_ident(id);
    let rt = g.rt.clone();
    let mut fg = FnGen::new(g, id, ctx)?;
    let (params, views) = fg.signature_params()?;
    let ret = fg.result_type()?;
    let locals = fg.declare_locals(|r| matches!(r, LocalRole::Param | LocalRole::Capture))?;
    let body = fg.block(&f.body)?;
    let result = fg.final_result_value();
    let inline = match ctx {
        Ctx::Device => quote!(#[inline(always)]),
        // A host function that launches kernels is compiled once, not again inlined into
        // its public wrapper and each caller: a call costs nothing beside a launch, and
        // inlined the glue was optimised two or three times over (issue 19).
        _ if launches_kernels(&f.body) => quote!(#[inline(never)]),
        _ => quote!(),
    };
    let scope = super::control::sched_scope(&rt, &f.body);
    let generic = if views { quote!(<'__v>) } else { quote!() };
    Ok(quote! {
        #[allow(unused, non_snake_case, clippy::all)]
        #inline
        fn #name #generic (#(#params),*) -> #rt::run::Result<#ret> {
            #scope
            #locals
            #body
            ::core::result::Result::Ok(#result)
        }
    })
}

/// Whether `body` has a `parallel_do` (at any depth).
fn launches_kernels(body: &[crate::ir::Stmt]) -> bool {
    let mut found = false;
    crate::ir::walk::walk_block(body, &mut |_| {}, &mut |e| {
        found |= matches!(e.kind, crate::ir::ExprKind::ParallelDo { .. })
    });
    found
}
