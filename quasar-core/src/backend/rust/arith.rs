//! Arithmetic: Quasar's unary and binary operators on numbers, fixed-size vectors (in
//! kernels) and host arrays (element-wise), with the operands converted to a common type.

use super::expr::{cast_num, V};
use super::func::FnGen;
use super::repr::describe;
use super::ty::{Num, Repr};
use super::{unsupported, GResult};
use crate::ir::{BinaryOp, UnaryOp};
use crate::ir::{Const, Expr};
use crate::sema::types::Type;
use crate::span::Span;
use proc_macro2::TokenStream;
use quote::quote;

/// An operand converted to the operation's element type.
pub(crate) enum Operand {
    Num(TokenStream),
    Array(TokenStream),
    Fixed(TokenStream),
}

impl Operand {
    fn is_fixed(&self) -> bool {
        matches!(self, Operand::Fixed(_))
    }

    /// For the host's element-wise built-ins: `&array` or a number.
    fn host_operand(&self) -> TokenStream {
        match self {
            Operand::Num(t) => t.clone(),
            Operand::Array(t) | Operand::Fixed(t) => quote!(&#t),
        }
    }

    /// For fixed-size element-wise code bound to `name`: the value, and its element `__k`
    /// (numbers broadcast).
    fn fixed_parts(&self, name: TokenStream) -> (TokenStream, TokenStream) {
        match self {
            Operand::Num(t) => (t.clone(), name),
            Operand::Fixed(t) | Operand::Array(t) => (t.clone(), quote!(#name[__k])),
        }
    }
}

/// `a op b` on numbers: operands of type `operand`, result of type `result`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn num_binary(
    op: BinaryOp,
    operand: Num,
    result: Num,
    a: TokenStream,
    b: TokenStream,
    rhs: &Expr,
    rt: &TokenStream,
    fused: bool,
) -> TokenStream {
    let q = quote!(#rt::qstd);
    let int = operand.is_int();
    let res = match op {
        BinaryOp::Add if int => quote!(#a.wrapping_add(#b)),
        BinaryOp::Sub if int => quote!(#a.wrapping_sub(#b)),
        BinaryOp::Mul | BinaryOp::ElemMul if int => quote!(#a.wrapping_mul(#b)),
        BinaryOp::Div | BinaryOp::ElemDiv if int => {
            let z = operand.zero(rt);
            quote!({ let __d = #b; if __d == #z { #z } else { #a.wrapping_div(__d) } })
        }
        BinaryOp::Pow | BinaryOp::ElemPow if int => {
            quote!(#a.wrapping_pow(#b as u32))
        }
        BinaryOp::Add => quote!((#a + #b)),
        BinaryOp::Sub => quote!((#a - #b)),
        BinaryOp::Mul | BinaryOp::ElemMul => quote!((#a * #b)),
        BinaryOp::Div | BinaryOp::ElemDiv => quote!((#a / #b)),
        BinaryOp::Pow | BinaryOp::ElemPow => match rhs.constant() {
            Some(Const::Int(2)) => quote!({ let __p = #a; __p * __p }),
            Some(Const::Int(1)) => a,
            _ if operand.is_complex() || operand == Num::F16 => {
                quote!(#q::builtins::Math::pow(#a, #b))
            }
            // `__F`: the const parameter of the generic hot loop (`versions.rs`).
            _ if fused => quote!(#q::rt::pow_sel::<__F, _>(#a, #b)),
            _ => quote!(#q::rt::pow(#a, #b)),
        },
        BinaryOp::Lt => quote!(((#a < #b) as i32)),
        BinaryOp::Le => quote!(((#a <= #b) as i32)),
        BinaryOp::Gt => quote!(((#a > #b) as i32)),
        BinaryOp::Ge => quote!(((#a >= #b) as i32)),
        BinaryOp::Eq => quote!(((#a == #b) as i32)),
        BinaryOp::Ne => quote!(((#a != #b) as i32)),
        BinaryOp::And | BinaryOp::Or => {
            let z = operand.zero(rt);
            let o = if op == BinaryOp::And { quote!(&&) } else { quote!(||) };
            quote!((((#a != #z) #o (#b != #z)) as i32))
        }
    };
    let is_cmp = matches!(
        op,
        BinaryOp::Lt
            | BinaryOp::Le
            | BinaryOp::Gt
            | BinaryOp::Ge
            | BinaryOp::Eq
            | BinaryOp::Ne
            | BinaryOp::And
            | BinaryOp::Or
    );
    if is_cmp && result != Num::I32 {
        cast_num(Num::I32, result, res, rt)
    } else {
        res
    }
}

fn with_num(r: &Repr, n: Num) -> Repr {
    match r {
        Repr::Array(_, k) => Repr::Array(n, *k),
        Repr::Fixed(_, s) => Repr::Fixed(n, s.clone()),
        _ => Repr::Num(n),
    }
}

impl<'g, 'm> FnGen<'g, 'm> {
    pub(super) fn unary(&mut self, op: UnaryOp, operand: &Expr, r: Repr, span: Span) -> GResult<V> {
        let rt = self.g.rt.clone();
        let q = quote!(#rt::qstd);
        let n = r.num().ok_or_else(|| {
            unsupported(span, "this operand", "use numbers or arrays of numbers as operands")
        })?;
        let x = self.expr_as(operand, &with_num(&r, n))?;
        let scalar = |x: TokenStream| match op {
            UnaryOp::Plus => x,
            UnaryOp::Neg if n.is_int() => quote!(#x.wrapping_neg()),
            UnaryOp::Neg => quote!((-#x)),
            UnaryOp::Not => {
                let z = n.zero(&rt);
                let one = n.literal(1.0, &rt);
                quote!((if #x == #z { #one } else { #z }))
            }
        };
        let t = match &r {
            Repr::Num(_) => scalar(x),
            Repr::Fixed(_, s) => {
                let len: usize = s.iter().product();
                let f = scalar(quote!(__a[__k]));
                quote!({ let __a = #x; ::core::array::from_fn::<_, #len, _>(|__k| #f) })
            }
            Repr::Array(..) => {
                let f = scalar(quote!(__v));
                quote!(#q::builtins::map(&#x, |__v| #f)?)
            }
            _ => {
                return Err(unsupported(
                    span,
                    "this operand",
                    "use numbers or arrays of numbers as operands",
                ))
            }
        };
        Ok(V { t, r })
    }

    pub(super) fn binary(
        &mut self,
        op: BinaryOp,
        l: &Expr,
        rr: &Expr,
        r: Repr,
        span: Span,
    ) -> GResult<V> {
        let rt = self.g.rt.clone();
        let q = quote!(#rt::qstd);
        // `mode == "mirror"`: strings compare by their text.
        if matches!(op, BinaryOp::Eq | BinaryOp::Ne)
            && l.ty == Type::String
            && rr.ty == Type::String
        {
            let a = self.expr_as(l, &Repr::Str)?;
            let b = self.expr_as(rr, &Repr::Str)?;
            let t = if op == BinaryOp::Eq { quote!((#a == #b)) } else { quote!((#a != #b)) };
            let t = self.convert(V { t: quote!((#t as i32)), r: Repr::Num(Num::I32) }, &r, span)?;
            return Ok(V { t, r });
        }
        // `p != nullptr`, `p == q`: pointers and mutable objects compare by identity.
        let g = &*self.g;
        let ctx = self.ctx;
        let is_ref = |t: &Type| {
            matches!(t, Type::Pointer(_) | Type::Null)
                || matches!(super::repr::repr_in(g, t, ctx, span), Ok(Repr::Obj(_)))
        };
        if matches!(op, BinaryOp::Eq | BinaryOp::Ne) && is_ref(&l.ty) && is_ref(&rr.ty) {
            let t = self.pointer_compare(op == BinaryOp::Eq, l, rr)?;
            let t = self.convert(V { t: quote!((#t as i32)), r: Repr::Num(Num::I32) }, &r, span)?;
            return Ok(V { t, r });
        }
        // `s + "_suffix"`: strings concatenate.
        if op == BinaryOp::Add && l.ty == Type::String && rr.ty == Type::String {
            let a = self.expr_as(l, &Repr::Str)?;
            let b = self.expr_as(rr, &Repr::Str)?;
            let t = quote!({ let mut __s: ::std::string::String = #a; __s.push_str(&#b); __s });
            return Ok(V { t, r: Repr::Str });
        }
        let n = r.num().ok_or_else(|| {
            unsupported(
                span,
                format_args!("the operator {op:?} here"),
                "apply it to numbers or arrays of numbers",
            )
        })?;
        let compare = matches!(
            op,
            BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge | BinaryOp::Eq | BinaryOp::Ne
        );
        let logic = matches!(op, BinaryOp::And | BinaryOp::Or);
        // The operand type: the result's, or for comparisons the operands' common type.
        let operand_num = if compare || logic {
            match (Num::of(l.ty.elem()), Num::of(rr.ty.elem())) {
                (Some(a), Some(b)) => Num::promote(a, b),
                _ => n,
            }
        } else {
            n
        };
        if op == BinaryOp::Mul && matches!(r, Repr::Fixed(..)) {
            if let Some(shape) = crate::backend::small_product::shape(&l.ty, &rr.ty) {
                return self.small_product(l, rr, shape, r);
            }
        }
        let lv = self.expr(l)?;
        let lv = self.fixed_view(lv, &l.ty, span)?;
        let rv = self.expr(rr)?;
        let rv = self.fixed_view(rv, &rr.ty, span)?;
        let lt = self.operand(lv, operand_num, span)?;
        let rtk = self.operand(rv, operand_num, span)?;
        let fused = self.g.fused;
        let scalar_op = |a: TokenStream, b: TokenStream| -> TokenStream {
            num_binary(op, operand_num, n, a, b, rr, &rt, fused)
        };
        let t = match (&lt, &rtk) {
            (Operand::Num(a), Operand::Num(b)) => match &r {
                Repr::Num(_) => scalar_op(a.clone(), b.clone()),
                _ => {
                    return Err(unsupported(
                        span,
                        "this operation",
                        "apply it to numbers or arrays of numbers",
                    ))
                }
            },
            (Operand::Array(a), Operand::Array(b)) if op == BinaryOp::Mul => {
                quote!(#q::builtins::matmul(&#a, &#b)?)
            }
            (Operand::Array(_), _) | (_, Operand::Array(_)) => {
                if op == BinaryOp::Div && matches!(rtk, Operand::Array(_)) {
                    return Err(unsupported(
                        span,
                        "`/` with an array divisor (matrix division)",
                        "divide element-wise with `./`, or solve the system with `linsolve`",
                    ));
                }
                let (a, b) = (lt.host_operand(), rtk.host_operand());
                let f = scalar_op(quote!(__x), quote!(__y));
                let name = format!("{op:?}");
                let ot = operand_num.tokens(&rt);
                quote!(#q::builtins::zip_map::<#ot, #ot, _, _>(#name, #a, #b, |__x, __y| #f)?)
            }
            (Operand::Fixed(_), _) | (_, Operand::Fixed(_)) => {
                if op == BinaryOp::Mul && lt.is_fixed() && rtk.is_fixed() {
                    return Err(unsupported(
                        span,
                        "matrix products of small fixed-size arrays in kernels",
                        "write the sums of products out, or multiply element-wise with `.*`",
                    ));
                }
                if let (Operand::Fixed(a), Operand::Fixed(b)) = (&lt, &rtk) {
                    // Two vectors: element by element through the runtime's `zip`.
                    let f = scalar_op(quote!(__x), quote!(__y));
                    return Ok(V { t: quote!(#rt::qstd::rt::zip(#a, #b, |__x, __y| #f)), r });
                }
                let (a, ai) = lt.fixed_parts(quote!(__a));
                let (b, bi) = rtk.fixed_parts(quote!(__b));
                let f = scalar_op(ai, bi);
                let len = r.fixed_len().unwrap_or(0);
                quote!({ let __a = #a; let __b = #b; ::core::array::from_fn::<_, #len, _>(|__k| #f) })
            }
        };
        Ok(V { t, r })
    }

    /// `l * rr`, the matrix product of small fixed-size arrays of `shape` (`C * v` with
    /// `C : mat(3, 3)`, `backend/small_product.rs`): each result element a sum of products
    /// in `k` order, unrolled. A kernel's array parameter of that shape is copied in first.
    fn small_product(
        &mut self,
        l: &Expr,
        rr: &Expr,
        shape: (usize, usize, usize),
        r: Repr,
    ) -> GResult<V> {
        let rt = self.g.rt.clone();
        let Some(n) = r.num() else {
            return Err(unsupported(l.span, "this matrix product", "multiply arrays of numbers"));
        };
        let (rows, inner, cols) = shape;
        let a = self.expr_as(l, &Repr::Fixed(n, vec![rows * inner]))?;
        let b = self.expr_as(rr, &Repr::Fixed(n, vec![inner * cols]))?;
        let fused = self.g.fused;
        let mul = |x: usize, y: usize| {
            num_binary(BinaryOp::Mul, n, n, quote!(__a[#x]), quote!(__b[#y]), rr, &rt, fused)
        };
        let mut elems = Vec::new();
        for i in 0..rows {
            for j in 0..cols {
                let mut terms = crate::backend::small_product::terms(shape, i, j);
                let Some((x, y)) = terms.next() else { continue };
                let mut acc = mul(x, y);
                for (x, y) in terms {
                    let p = mul(x, y);
                    acc = num_binary(BinaryOp::Add, n, n, acc, p, rr, &rt, fused);
                }
                elems.push(acc);
            }
        }
        Ok(V { t: quote!({ let __a = #a; let __b = #b; [#(#elems),*] }), r })
    }

    /// A kernel's array parameter of a small fixed shape (`ctr : ivec3`) as the value it
    /// holds (`[T; N]`), so that arithmetic takes it as a small vector; other values as
    /// they are.
    fn fixed_view(&mut self, v: V, ty: &Type, span: Span) -> GResult<V> {
        let (Repr::View(n, _), Some(s)) = (&v.r, ty.as_array().and_then(super::ty::fixed_shape))
        else {
            return Ok(v);
        };
        let r = Repr::Fixed(*n, s);
        let t = self.convert(v, &r, span)?;
        Ok(V { t, r })
    }

    /// An operand of arithmetic converted to element type `n`.
    pub(super) fn operand(&mut self, v: V, n: Num, span: Span) -> GResult<Operand> {
        Ok(match &v.r {
            Repr::Num(_) => Operand::Num(self.convert(v, &Repr::Num(n), span)?),
            Repr::Array(_, rank) => {
                let rank = *rank;
                Operand::Array(self.convert(v, &Repr::Array(n, rank), span)?)
            }
            Repr::Fixed(_, s) => {
                let s = s.clone();
                Operand::Fixed(self.convert(v, &Repr::Fixed(n, s), span)?)
            }
            Repr::View(..) => {
                return Err(unsupported(
                    span,
                    "whole-array arithmetic on arrays inside a kernel",
                    "compute one element per thread (`y[pos] = a[pos] + b[pos]`), or loop with \
                     `for`",
                ));
            }
            r => {
                return Err(unsupported(
                    span,
                    format_args!("arithmetic on {}", describe(r)),
                    "compute with numbers or arrays of numbers",
                ))
            }
        })
    }
}
