//! `parallel_do` in host code: the launch of a kernel with its arguments (each array with the
//! transfer the analysis gives it: `'const` ones are not copied back from a device, `'nocopy`
//! ones not uploaded) and its reduced outputs.

use super::expr::V;
use super::func::{Ctx, FnGen};
use super::ty::Repr;
use super::{unsupported, GResult};
use crate::analysis::Transfer;
use crate::ir::AssignOp;
use crate::ir::{Expr, ExprKind, FunctionId};
use crate::sema::types::Type;
use crate::span::Span;
use proc_macro2::TokenStream;
use quote::quote;

impl FnGen<'_, '_> {
    /// `parallel_do(dims, args…, kernel)` in host code.
    pub fn parallel_do(
        &mut self,
        dims: &Expr,
        block_dims: Option<&Expr>,
        kernel: FunctionId,
        args: &[Expr],
        ty: &Type,
        span: Span,
    ) -> GResult<V> {
        let rt = self.g.rt.clone();
        if self.ctx != Ctx::Host {
            return Err(unsupported(
                span,
                "`parallel_do` inside kernel or device functions (dynamic parallelism)",
                "launch kernels from host code",
            ));
        }
        let kf = self.g.m.function(kernel);
        let info = self.g.info.kernel(kernel).ok_or_else(|| {
            unsupported(
                span,
                "this launch",
                "launch a `__kernel__` function whose parameters have types",
            )
        })?;
        let slots = &info.arg_slots;
        if slots.len() != args.len() {
            return Err(unsupported(
                span,
                format_args!(
                    "this launch: the kernel takes {} arguments, {} are given",
                    slots.len(),
                    args.len()
                ),
                "pass one argument per kernel parameter (the position parameters excluded)",
            ));
        }
        let dims_t = self.launch_dims(dims)?;
        let block = match block_dims {
            Some(b) => {
                let t = self.launch_dims(b)?;
                quote!(__l.set_block(&#t);)
            }
            None => quote!(),
        };
        // The arguments (`run::Arg`), then the outputs (`pushes`, on a launch built step by step).
        let (mut argl, mut pushes) = (Vec::new(), Vec::new());
        for ((a, slot), transfer) in args.iter().zip(slots).zip(&info.transfers) {
            let l = kf.local(*slot);
            let v = self.expr(a)?;
            match &l.ty {
                Type::Array(arr) => {
                    let n = super::repr::elem_num(self.g, &arr.elem).ok_or_else(|| {
                        unsupported(
                            a.span,
                            "this kernel argument",
                            "pass numbers or arrays of numbers",
                        )
                    })?;
                    // Seen at the parameter's rank (a vector is a row), checked at run time.
                    let param = format!("argument `{}` of kernel `{}`", l.name, kf.name);
                    let rank = super::ty::rank_of(arr);
                    let x = self.fit_arg(v, &Repr::Array(n, rank), &param, &l.ty, a.span)?;
                    // What the launch copies (manual §16.6): a `'const` argument is not
                    // copied back from a device, a `'nocopy` one not uploaded; one the kernel
                    // fills at its positions is not uploaded when the launch covers it.
                    let access = |acc: TokenStream| quote!(#rt::run::Access::#acc);
                    let (arg, how) = match transfer {
                        Transfer::Const { .. } => (quote!(array), access(quote!(Read))),
                        Transfer::NoCopy => (quote!(array), access(quote!(Write))),
                        Transfer::Fills { rank, order } => match &order[..*rank] {
                            o if o.iter().enumerate().all(|(k, &c)| c as usize == k) => {
                                (quote!(filled), quote!(#rank))
                            }
                            o => {
                                let o = o.iter().map(|&c| c as usize);
                                (quote!(filled_in_order), quote!(&[#(#o),*]))
                            }
                        },
                        Transfer::Copy | Transfer::Value => {
                            (quote!(array), access(quote!(ReadWrite)))
                        }
                    };
                    // An array variable as it is: passed by reference, not cloned.
                    let arr = match &a.kind {
                        ExprKind::Local(l) if self.local_repr(*l) == &Repr::Array(n, rank) => {
                            let name = &self.names[l.0 as usize];
                            quote!(#name)
                        }
                        _ => quote!((#x)),
                    };
                    argl.push(quote!(#rt::run::Arg::#arg(&#arr, #how)));
                }
                Type::Function(ft) if !super::fnval::is_plain(self.g, ft) => {
                    return Err(unsupported(
                        a.span,
                        format_args!(
                            "the function value `{}` of type {} given to kernel `{}`, whose \
                             values may capture arrays or values of their own type",
                            l.name, l.ty, kf.name
                        ),
                        "give the kernel's function the `__device__` lambdas themselves: a \
                         function (or lambda) whose parameter or result is declared with the \
                         device function type is specialised for each lambda it is given",
                    ));
                }
                t => {
                    let r = super::repr::repr_in(self.g, t, Ctx::Kernel, l.span)?;
                    let x = self.convert(v, &r, a.span)?;
                    argl.push(quote!(#rt::run::Arg::value(&(#x))));
                }
            }
        }
        let mut outs = Vec::new();
        let mut out_tys = Vec::new();
        for (k, &(o, op)) in info.outputs.iter().enumerate() {
            let l = kf.local(o);
            let r = super::repr::repr_in(self.g, &l.ty, Ctx::Kernel, l.span)?;
            let Repr::Num(n) = r else {
                return Err(unsupported(
                    l.span,
                    "a kernel output that is not a number",
                    "make the output an `int` or a `scalar`",
                ));
            };
            let nt = n.tokens(&rt);
            let red = reduce_tokens(&rt, op).ok_or_else(|| {
                unsupported(
                    l.span,
                    "this kernel output reduction",
                    "assign it (`y = 1`) or accumulate with `+=` (sum), `*=` (product), `^^=` (maximum), `__=` (minimum) or `|=`",
                )
            })?;
            pushes.push(if kf.outputs_from_identity {
                quote!(__l.push_output::<#nt>(#red, #rt::run::Start::Identity);)
            } else {
                quote!(__l.push_output::<#nt>(#red, #rt::run::Start::Zero);)
            });
            outs.push(quote!(__res.output::<#nt>(#k)?));
            out_tys.push(Repr::Num(n));
        }
        let stat = self.g.kernel_static(kernel);
        let result = match outs.len() {
            0 => quote!(()),
            1 => outs[0].clone(),
            _ => quote!((#(#outs),*)),
        };
        let produced = match out_tys.len() {
            0 => Repr::Unit,
            1 => out_tys[0].clone(),
            _ => Repr::Tuple(out_tys),
        };
        // Without outputs the launch's result is not read.
        let run = match outs.is_empty() {
            true => quote!(__l.run()?;),
            false => quote!(let __res = __l.run()?; #result),
        };
        let t = if outs.is_empty() && block_dims.is_none() {
            // The common launch in one runtime call (`run::launch_with`): less glue per launch.
            quote!({
                let __dims = #dims_t;
                #rt::run::launch_with(&#stat, &__dims, &[#(#argl),*])?;
            })
        } else {
            quote!({
                let __dims = #dims_t;
                let mut __l = #rt::run::launch(&#stat).dims(&__dims);
                #block
                #(__l.push(&#argl);)*
                #(#pushes)*
                #run
            })
        };
        let want = self.repr_of(ty, span)?;
        if want == produced || want == Repr::Unit {
            return Ok(V { t, r: produced });
        }
        let t = self.convert(V { t, r: produced }, &want, span)?;
        Ok(V { t, r: want })
    }

    /// Launch dimensions as a `Vec<usize>` expression: an `int`, a vector of them, or (as
    /// the checker warns) numbers that are truncated (`numel(x) / 2`, `size(x) / 2`).
    fn launch_dims(&mut self, e: &Expr) -> GResult<TokenStream> {
        let rt = self.g.rt.clone();
        let to_dims = quote!(#rt::qstd::builtins::to_dims);
        if let Some(s) = self.size_as_dims(e) {
            return Ok(quote!(#to_dims("parallel_do", &#s)?));
        }
        let v = self.expr(e)?;
        let t = v.t;
        Ok(match v.r {
            Repr::Num(n) if !n.is_complex() => quote!(#to_dims("parallel_do", &[#t as i32])?),
            Repr::Array(n, _) if !n.is_complex() => {
                quote!(#to_dims("parallel_do", &#t.to_vec()?.into_iter().map(|__v| __v as i32).collect::<::std::vec::Vec<i32>>())?)
            }
            Repr::Fixed(n, _) if !n.is_complex() => {
                quote!(#to_dims("parallel_do", &#t.iter().map(|&__v| __v as i32).collect::<::std::vec::Vec<i32>>())?)
            }
            other => return Err(unsupported(
                e.span,
                format_args!("launch dimensions that are {}", super::repr::describe(&other)),
                "write an `int`, such as `numel(y)`, or a vector of them, such as `size(y)` or \
                     `[m, n]`",
            )),
        })
    }
}

fn reduce_tokens(rt: &TokenStream, op: AssignOp) -> Option<TokenStream> {
    Some(match op {
        AssignOp::Add => quote!(#rt::run::Reduce::Sum),
        AssignOp::Mul => quote!(#rt::run::Reduce::Prod),
        AssignOp::Max => quote!(#rt::run::Reduce::Max),
        AssignOp::Min => quote!(#rt::run::Reduce::Min),
        AssignOp::Or => quote!(#rt::run::Reduce::BitOr),
        AssignOp::Assign => quote!(#rt::run::Reduce::Assign),
        _ => return None,
    })
}
