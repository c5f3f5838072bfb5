//! The bit operations and type limits, in host and kernel code: `and or xor shl shr not`
//! on integers (C's operators; shift counts at or past the width give 0, or the sign for
//! `shr` of a negative number, never a panic), `angle`, `maxvalue`/`minvalue`.

use super::expr::cast_num;
use super::func::FnGen;
use super::ty::{Num, Repr};
use super::{unsupported, GResult};
use crate::ir::{Builtin, Builtin as B, Expr};
use crate::span::Span;
use proc_macro2::TokenStream;
use quote::quote;

impl FnGen<'_, '_> {
    /// `and or xor shl shr not` (bitwise, on integers), `angle`, `maxvalue`/`minvalue`, in host
    /// and kernel code.
    pub(super) fn bits_and_limits(
        &mut self,
        b: Builtin,
        args: &[Expr],
        r: &Repr,
        span: Span,
    ) -> GResult<TokenStream> {
        let rt = self.g.rt.clone();
        let bi = quote!(#rt::qstd::builtins);
        let name = b.name();
        let bad = || {
            unsupported(
                span,
                format_args!("the built-in `{name}` with these arguments"),
                "pass the arguments the manual lists for this built-in",
            )
        };
        let n = r.num().ok_or_else(bad)?;
        let nt = n.tokens(&rt);
        Ok(match b {
            B::Maxvalue | B::Minvalue => {
                let c = if b == B::Maxvalue { quote!(MAX) } else { quote!(MIN) };
                let v = quote!(<#nt>::#c);
                match r {
                    Repr::Num(_) => v,
                    _ => return Err(bad()),
                }
            }
            B::Not => {
                if !n.is_int() || args.len() != 1 {
                    return Err(bad());
                }
                self.map1(
                    &args[0],
                    r,
                    n,
                    |x| quote!((!#x)),
                    Some(quote!((|__x| #bi::map(__x, |__v: #nt| !__v)))),
                )?
            }
            B::And | B::Or | B::Xor | B::Shl | B::Shr => {
                if !n.is_int() || args.len() != 2 {
                    return Err(bad());
                }
                let op = |x: TokenStream, y: TokenStream| match b {
                    B::And => quote!((#x & #y)),
                    B::Or => quote!((#x | #y)),
                    B::Xor => quote!((#x ^ #y)),
                    // C's shifts for counts below the width; larger counts give 0 (or the
                    // sign for `shr` of a negative number), never a panic.
                    B::Shl => quote!(#x.checked_shl(#y as u32).unwrap_or(0)),
                    _ if is_signed(n) => {
                        quote!(#x.checked_shr(#y as u32).unwrap_or(#x >> (<#nt>::BITS - 1)))
                    }
                    _ => quote!(#x.checked_shr(#y as u32).unwrap_or(0)),
                };
                let e = op(quote!(__x), quote!(__y));
                let array_fn =
                    quote!((|__a, __b| #bi::zip_map(#name, __a, __b, |__x: #nt, __y: #nt| #e)));
                self.map2(&args[0], &args[1], r, n, op, array_fn)?
            }
            B::Angle => {
                let a = self.expr(&args[0])?;
                let from = a.r.num().ok_or_else(bad)?;
                if !matches!(a.r, Repr::Num(_)) || !matches!(r, Repr::Num(_)) {
                    return Err(bad());
                }
                let x = a.t;
                if from.is_complex() {
                    let re = cast_num(from.part(), n, quote!(__z.re), &rt);
                    let im = cast_num(from.part(), n, quote!(__z.im), &rt);
                    quote!({ let __z = #x; #rt::qstd::rt::atan2(#im, #re) })
                } else {
                    let v = cast_num(from, n, x, &rt);
                    let z = n.zero(&rt);
                    quote!(#rt::qstd::rt::atan2(#z, #v))
                }
            }
            _ => return Err(bad()),
        })
    }
}

fn is_signed(n: Num) -> bool {
    matches!(n, Num::I8 | Num::I16 | Num::I32 | Num::I64)
}
