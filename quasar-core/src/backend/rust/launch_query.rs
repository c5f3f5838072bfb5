//! Host calls that ask the runtime about launches and the device (manual §2.4.4, §9.8.2,
//! §9.11): `max_block_size`, `opt_block_size`, `opt_block_cnt` and `gpu_feature`, answered
//! by `quasar_runtime::block_size` for the device the kernel's launches go to.

use super::expr::cast_num;
use super::func::FnGen;
use super::library::int_vector;
use super::ty::{Num, Repr};
use super::{unsupported, GResult};
use crate::ir::{Builtin, Builtin as B, Expr, ExprKind};
use crate::span::Span;
use proc_macro2::TokenStream;
use quote::quote;

impl FnGen<'_, '_> {
    /// A launch-configuration or device query `b` whose result is held as `r`.
    pub(super) fn launch_query(
        &mut self,
        b: Builtin,
        args: &[Expr],
        r: &Repr,
        span: Span,
    ) -> GResult<TokenStream> {
        let rt = self.g.rt.clone();
        let name = b.name();
        let bad = || {
            unsupported(
                span,
                format_args!("the built-in `{name}` with these arguments"),
                "pass the arguments the manual lists for this built-in",
            )
        };
        // A block size or block count: the runtime's `Vec<usize>` as the result's `int`s.
        let ints = |v: TokenStream| {
            let v = quote!(#v
                .into_iter()
                .map(|__d| i32::try_from(__d).unwrap_or(i32::MAX))
                .collect::<::std::vec::Vec<i32>>());
            int_vector(v, r, &rt).ok_or_else(bad)
        };
        let global = quote!(#rt::run::Runtime::global());
        Ok(match b {
            // `max_block_size(kernel, dims)` and the older `max_block_size(dims)`.
            B::MaxBlockSize => {
                let (kernel, dims) = match args {
                    [d] if d.ty.as_array().is_some() => (None, d),
                    [k, d] => (Some(self.kernel_ref(name, k, span)?), d),
                    _ => return Err(bad()),
                };
                let kernel = match kernel {
                    Some(k) => quote!(Some(&#k)),
                    None => quote!(None),
                };
                let dims = self.dims_arg(name, std::slice::from_ref(dims))?;
                ints(quote!(#global.max_block_size(#kernel, &#dims)?))?
            }
            // `opt_block_size(kernel)` and `opt_block_size(kernel, dims)`.
            B::OptBlockSize => {
                let (k, dims) = args.split_first().ok_or_else(bad)?;
                let k = self.kernel_ref(name, k, span)?;
                let dims = match dims {
                    [] => quote!(None),
                    [d] => {
                        let d = self.dims_arg(name, std::slice::from_ref(d))?;
                        quote!(Some(&#d[..]))
                    }
                    _ => return Err(bad()),
                };
                ints(quote!(#global.opt_block_size(&#k, #dims)?))?
            }
            B::OptBlockCnt => {
                let [k, block, dims] = args else { return Err(bad()) };
                let k = self.kernel_ref(name, k, span)?;
                let block = self.dims_arg(name, std::slice::from_ref(block))?;
                let dims = self.dims_arg(name, std::slice::from_ref(dims))?;
                ints(quote!(#global.opt_block_cnt(&#k, &#block, &#dims)?))?
            }
            B::GpuFeature => {
                let [f] = args else { return Err(bad()) };
                let f = self.expr_as(f, &Repr::Str)?;
                let n = r.num().filter(|n| !n.is_complex()).ok_or_else(bad)?;
                cast_num(Num::I32, n, quote!(#global.gpu_feature(&#f)?), &rt)
            }
            _ => return Err(bad()),
        })
    }

    /// The `Kernel` static of a kernel named in host code.
    fn kernel_ref(&self, name: &str, k: &Expr, span: Span) -> GResult<TokenStream> {
        match &k.kind {
            ExprKind::FunctionRef(id) if self.g.info.kernel(*id).is_some() => {
                let s = self.g.kernel_static(*id);
                Ok(quote!(#s))
            }
            _ => Err(unsupported(
                span,
                format_args!("`{name}` of a kernel value or of a generic kernel"),
                format_args!(
                    "name a kernel function whose parameters all have types: \
                     `{name}(my_kernel, …)`"
                ),
            )),
        }
    }
}
