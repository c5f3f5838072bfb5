//! Calls of the run-time library (manual tables 14.1 and 14.2) in host code: strings
//! (`quasar_std::text`), timing and console (`system`), figures (`figure`), files (`files`),
//! FFTs (`fft`) and linear algebra (`linalg`); the bit operations and type limits that
//! kernels use too are `bits.rs`. A file is the `int` identifier `fopen` returns. Functions
//! that need values this back end cannot hold yet (cells, `??` objects, strings as array
//! elements) are compile errors that name the function and what it needs.

use super::expr::cast_num;
use super::func::FnGen;
use super::ty::{Num, Repr};
use super::{unsupported, GResult};
use crate::ir::{Builtin, Builtin as B, Expr, ExprKind};
use crate::span::Span;
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

impl FnGen<'_, '_> {
    /// A library built-in `b` whose result is held as `r`.
    pub(super) fn library(
        &mut self,
        b: Builtin,
        args: &[Expr],
        r: &Repr,
        span: Span,
    ) -> GResult<TokenStream> {
        let rt = self.g.rt.clone();
        let q = quote!(#rt::qstd);
        let name = b.name();
        let nargs = args.len();
        let bad = || {
            unsupported(
                span,
                format_args!("the built-in `{name}` with these arguments"),
                "pass the arguments the manual lists for this built-in",
            )
        };
        let needs = |what: &str| {
            unsupported(
                span,
                format_args!("`{name}` ({what}, which this version does not compile)"),
                "use typed values: numbers, strings and arrays of numbers in variables",
            )
        };
        Ok(match b {
            B::Sprintf | B::Printf => {
                if nargs == 0 {
                    return Err(bad());
                }
                let f = self.expr_as(&args[0], &Repr::Str)?;
                let (lets, refs) = self.operands(&args[1..], quote!(#q::text::FormatArg))?;
                let call = if b == B::Sprintf {
                    quote!(#q::text::sprintf("sprintf", &__fmt, &[#(#refs),*])?)
                } else {
                    quote!(#q::text::printf(&__fmt, &[#(#refs),*])?)
                };
                quote!({ let __fmt = #f; #(#lets)* #call })
            }
            B::Num2str | B::String => {
                if nargs == 2 {
                    let f = self.expr_as(&args[1], &Repr::Str)?;
                    let (lets, refs) = self.operands(&args[..1], quote!(#q::text::FormatArg))?;
                    quote!({ let __fmt = #f; #(#lets)* #q::text::sprintf(#name, &__fmt, &[#(#refs),*])? })
                } else {
                    let (lets, refs) = self.operands(&args[..1], quote!(#q::rt::Show))?;
                    quote!({ #(#lets)* #q::text::strcat(&[#(#refs),*]) })
                }
            }
            B::Strcat => {
                let (lets, refs) = self.operands(args, quote!(#q::rt::Show))?;
                quote!({ #(#lets)* #q::text::strcat(&[#(#refs),*]) })
            }
            B::Sscanf => {
                let n = r.num().filter(|n| n.is_float()).ok_or_else(bad)?;
                let nt = n.tokens(&rt);
                let s = self.expr_as(&args[0], &Repr::Str)?;
                let f = self.expr_as(&args[1], &Repr::Str)?;
                quote!({
                    let __v = #q::text::sscanf(&#s, &#f)?;
                    let __n = __v.len();
                    #rt::run::Array::from_vec(&[__n], __v.into_iter().map(|__x| __x as #nt).collect())?
                })
            }
            B::Fromascii | B::Fromunicode => {
                let n = r.num().ok_or_else(bad)?;
                let nt = n.tokens(&rt);
                let s = self.expr_as(&args[0], &Repr::Str)?;
                let f = format_ident!("{}", name);
                quote!(#q::text::#f::<#nt>(&#s)?)
            }
            B::Toascii | B::Tounicode => {
                let codes = self.slice_of(&args[0])?;
                let f = format_ident!("{}", name);
                quote!(#q::text::#f(&#codes)?)
            }
            B::Tic => quote!(#q::system::tic()),
            B::Toc => {
                let label = match args.first() {
                    Some(a) => {
                        let l = self.expr_as(a, &Repr::Str)?;
                        quote!(::core::option::Option::Some(#l.as_str()))
                    }
                    None => quote!(::core::option::Option::None),
                };
                let n = r.num().ok_or_else(bad)?;
                cast_num(Num::F64, n, quote!(#q::system::toc(#label)?), &rt)
            }
            B::Pause => {
                let ms = self.num_as(&args[0], Num::F64)?;
                quote!(#q::system::pause(#ms)?)
            }
            B::Disp => {
                let v = self.expr(&args[0])?;
                let t = v.t;
                match v.r {
                    Repr::Array(..) => quote!(#q::system::disp_array(&#t)?),
                    Repr::Num(_) | Repr::Str | Repr::Fixed(..) => quote!(#q::system::disp(&#t)),
                    _ => return Err(bad()),
                }
            }
            B::Imshow => {
                let img = self.expr_as(&args[0], &Repr::Array(Num::F32, None))?;
                let range = match args.get(1) {
                    None => quote!(::core::option::Option::None),
                    Some(a) if matches!(&a.kind, ExprKind::Matrix(items) if items.is_empty()) => {
                        quote!(::core::option::Option::Some(&[][..]))
                    }
                    Some(a) => {
                        let v = self.floats(a, Num::F32)?;
                        quote!(::core::option::Option::Some(&#v[..]))
                    }
                };
                let site = self.site(span);
                quote!({ let _ = #q::figure::imshow(#site, &#img, #range)?; })
            }
            B::Hold => {
                let s = self.expr_as(&args[0], &Repr::Str)?;
                quote!(#q::figure::hold(&#s)?)
            }
            B::Plot => {
                let style = match args.last().map(|a| self.repr_of(&a.ty, a.span)).transpose()? {
                    Some(Repr::Str) if nargs >= 2 => {
                        Some(self.expr_as(&args[nargs - 1], &Repr::Str)?)
                    }
                    _ => None,
                };
                let data = &args[..nargs - usize::from(style.is_some())];
                let (x, y) = match data {
                    [y] => (quote!(::core::option::Option::None), self.floats(y, Num::F64)?),
                    [x, y] => {
                        let x = self.floats(x, Num::F64)?;
                        (quote!(::core::option::Option::Some(#x)), self.floats(y, Num::F64)?)
                    }
                    _ => return Err(bad()),
                };
                let style = match style {
                    Some(s) => quote!(::core::option::Option::Some(#s.as_str())),
                    None => quote!(::core::option::Option::None),
                };
                let site = self.site(span);
                quote!({ let _ = #q::figure::plot::plot(#site, #x, #y, #style)?; })
            }
            B::Title | B::Xlabel | B::Ylabel => {
                let s = self.expr_as(&args[0], &Repr::Str)?;
                let f = format_ident!("{}", name);
                quote!({ let _ = #q::figure::plot::#f(&#s)?; })
            }
            B::Legend => {
                let mut names = Vec::new();
                for a in args {
                    names.push(self.expr_as(a, &Repr::Str)?);
                }
                quote!({ let _ = #q::figure::plot::legend(&[#(#names.as_str()),*])?; })
            }
            B::Xlim | B::Ylim => {
                let v = self.floats(&args[0], Num::F64)?;
                let f = format_ident!("{}", name);
                quote!({ let _ = #q::figure::plot::#f(&#v)?; })
            }
            B::Save => {
                let p = self.expr_as(&args[0], &Repr::Str)?;
                let (lets, refs) = self.operands(&args[1..], quote!(#q::files::Save))?;
                quote!({ #(#lets)* #q::files::save(&#p, &[#(#refs),*])? })
            }
            B::Fft1 | B::Ifft1 | B::Fft2 | B::Ifft2 | B::Fft3 | B::Ifft3 => {
                let x = self.float_array(&args[0], r)?;
                let f = format_ident!("{}", name);
                quote!(#q::fft::#f(&#x)?)
            }
            B::Irealfft1 | B::Irealfft2 | B::Irealfft3 => {
                let x = self.float_array(&args[0], r)?;
                let f = format_ident!("{}", name);
                quote!(#q::fft::#f(&#x)?)
            }
            B::Inv if r.is_num() => {
                let n = r.num().ok_or_else(bad)?;
                let x = self.num_as(&args[0], n)?;
                let one = n.literal(1.0, &rt);
                quote!((#one / #x))
            }
            B::Inv | B::Chol | B::Svd | B::Symeig | B::Det => {
                let x = self.float_array(&args[0], r)?;
                let f = format_ident!("{}", name);
                quote!(#q::linalg::#f(&#x)?)
            }
            B::Linsolve => {
                let a = self.float_array(&args[0], r)?;
                let c = self.float_array(&args[1], r)?;
                quote!(#q::linalg::linsolve(&#a, &#c)?)
            }
            B::Factorial => {
                let n = r.num().filter(|n| !n.is_complex()).ok_or_else(bad)?;
                if !r.is_num() {
                    return Err(bad());
                }
                let x = self.num_as(&args[0], Num::F64)?;
                cast_num(Num::F64, n, quote!(#q::builtins::factorial(#x)?), &rt)
            }
            B::Shuffledims => {
                let x = self.expr(&args[0])?;
                if !matches!(x.r, Repr::Array(..)) {
                    return Err(bad());
                }
                let t = x.t;
                let perm = self.dims_arg(name, &args[1..])?;
                quote!(#q::builtins::shuffledims(&#t, &#perm.iter().map(|&__d| __d as i32).collect::<::std::vec::Vec<i32>>())?)
            }
            B::Ind2pos | B::Pos2ind => {
                let dims = self.dims_arg(name, &args[..1])?;
                let dims =
                    quote!(#dims.iter().map(|&__d| __d as i32).collect::<::std::vec::Vec<i32>>());
                if b == B::Pos2ind {
                    let pos = self.dims_arg(name, &args[1..2])?;
                    let pos = quote!(#pos.iter().map(|&__d| __d as i32).collect::<::std::vec::Vec<i32>>());
                    let t = quote!(#q::builtins::pos2ind(&#dims, &#pos)?);
                    let n = r.num().ok_or_else(bad)?;
                    cast_num(Num::I32, n, t, &rt)
                } else {
                    let i = self.num_as(&args[1], Num::I32)?;
                    let v = quote!(#q::builtins::ind2pos(&#dims, #i)?);
                    int_vector(v, r, &rt).ok_or_else(bad)?
                }
            }
            B::Isreal | B::Iscomplex | B::Isscalar | B::Isvector | B::Ismatrix | B::Iscube => {
                let v = type_predicate(b, &args[0].ty).ok_or_else(|| {
                    unsupported(
                        span,
                        format_args!("`{name}` of a value whose type is not known here"),
                        "annotate the argument's type, e.g. `x : mat`",
                    )
                })?;
                let n = r.num().ok_or_else(bad)?;
                let v = i32::from(v);
                cast_num(Num::I32, n, quote!(#v), &rt)
            }
            // `type(x, "mat")` (manual §2.2): decided from the static type, as the type
            // predicates are.
            B::Type if nargs == 2 => {
                let name_of = match args[1].constant() {
                    Some(crate::ir::Const::Str(t)) => t.clone(),
                    _ => return Err(needs("a type name given as a constant string")),
                };
                let v = type_is(&args[0].ty, &name_of).ok_or_else(|| {
                    unsupported(
                        span,
                        format_args!(
                            "`type(x, \"{name_of}\")` where the type of x is not known here, or \
                             with a type name other than scalar, int, cscalar, string, vec, mat, \
                             cube, cvec, cmat, ccube"
                        ),
                        "annotate the argument's type (`x : mat`) and name one of these types",
                    )
                })?;
                let n = r.num().ok_or_else(bad)?;
                let v = i32::from(v);
                cast_num(Num::I32, n, quote!(#v), &rt)
            }
            // `A = load(file)`: the first value saved (`[A, B] = load(file)` is in `stmt.rs`),
            // a `??` value checked when it meets a type.
            B::Load => {
                let p = self.expr_as(&args[0], &Repr::Str)?;
                quote!(#q::files::load_n(&#p, 1)?.remove(0))
            }
            // `vec[string]` is a cell vector of strings.
            B::Dir => {
                let p = self.expr_as(&args[0], &Repr::Str)?;
                quote!(#q::value::Value::cell_vector(
                    #q::files::dir(&#p)?.into_iter().map(#q::value::Value::Str).collect()
                ))
            }
            // `type(x)`: the static type's name, or for a `??` value its type at run time.
            B::Type => {
                let v = self.expr(&args[0])?;
                let t = v.t;
                if v.r == Repr::Value {
                    quote!(#t.quasar_type())
                } else {
                    // As the source spells it: `scalar`, not `scalar'single`.
                    let name = args[0].ty.spelled_with_scalar(self.g.opts.scalar).to_string();
                    quote!({ let _ = #t; ::std::string::String::from(#name) })
                }
            }
            B::Mat2cell => {
                let a = self.expr(&args[0])?;
                let a = self.as_dynamic(a, args[0].span)?;
                let mut dists = Vec::new();
                for d in &args[1..] {
                    dists.push(self.dims_arg(name, std::slice::from_ref(d))?);
                }
                quote!(#q::cells::mat2cell(&#a, &[#(#dists),*])?)
            }
            B::Cell2mat => {
                let c = self.expr(&args[0])?;
                let c = self.as_dynamic(c, args[0].span)?;
                quote!(#q::cells::cell2mat(&#c)?)
            }
            // A file is the identifier `fopen` returns (an `int`, as in MATLAB).
            B::Fopen => {
                let p = self.expr_as(&args[0], &Repr::Str)?;
                let m = match args.get(1) {
                    Some(m) => self.expr_as(m, &Repr::Str)?,
                    None => quote!(::std::string::String::from("r")),
                };
                let n = r.num().ok_or_else(bad)?;
                cast_num(Num::I32, n, quote!(#q::files::fopen_id(&#p, &#m)?), &rt)
            }
            B::Fread => {
                let id = self.num_as(&args[0], Num::I32)?;
                let dims = self.dims_arg(name, &args[1..2])?;
                let ty = self.elem_type_name(args.get(2))?;
                let n = r.num().filter(|n| n.is_float()).ok_or_else(bad)?;
                let nt = n.tokens(&rt);
                quote!({
                    let __id = #id;
                    let __ty = #ty;
                    #q::files::fread_id(__id, &#dims, &__ty, |__v| __v as #nt)?
                })
            }
            B::Fwrite => {
                let id = self.num_as(&args[0], Num::I32)?;
                let data = self.floats(&args[1], Num::F64)?;
                let ty = self.elem_type_name(args.get(2))?;
                quote!({
                    let __id = #id;
                    let __data = #data;
                    let __ty = #ty;
                    #q::files::fwrite_id(__id, &__data, &__ty)?
                })
            }
            B::Fclose => {
                let id = self.num_as(&args[0], Num::I32)?;
                quote!(#q::files::fclose_id(#id)?)
            }
            B::Fgets => {
                let id = self.num_as(&args[0], Num::I32)?;
                quote!(#q::files::fgets_id(#id)?)
            }
            B::Fprintf => {
                if nargs < 2 {
                    return Err(bad());
                }
                let id = self.num_as(&args[0], Num::I32)?;
                let f = self.expr_as(&args[1], &Repr::Str)?;
                let (lets, refs) = self.operands(&args[2..], quote!(#q::text::FormatArg))?;
                quote!({
                    let __id = #id;
                    let __fmt = #f;
                    #(#lets)*
                    #q::files::fprintf_id(__id, &#q::text::sprintf("fprintf", &__fmt, &[#(#refs),*])?)?
                })
            }
            B::Object => return Err(needs("an object with dynamic fields")),
            B::Cell => return Err(needs("cell arrays")),
            // Not a gap to fill later: the text would need the compiler at run time.
            B::Eval => {
                return Err(crate::diagnostics::Diagnostic::error(
                    span,
                    "`eval` cannot be compiled: it evaluates Quasar text at run time, and a \
                     program compiled ahead of time by `quasar!` has no Quasar compiler inside",
                )
                .with_note(
                    "instead: write the expression in the program (`f = x -> 2*cos(x)`); for \
                     values given as text (command-line arguments), declare typed `main` \
                     parameters or parse the numbers with `sscanf`",
                ))
            }
            _ => return Err(bad()),
        })
    }

    /// `let`s evaluating `args` once, and references to them as `&dyn Trait`.
    fn operands(
        &mut self,
        args: &[Expr],
        trait_path: TokenStream,
    ) -> GResult<(Vec<TokenStream>, Vec<TokenStream>)> {
        let (mut lets, mut refs) = (Vec::new(), Vec::new());
        for (i, a) in args.iter().enumerate() {
            let v = self.expr(a)?;
            if !matches!(v.r, Repr::Num(_) | Repr::Str | Repr::Array(..) | Repr::Fixed(..)) {
                return Err(unsupported(
                    a.span,
                    "this value as an argument of a library function",
                    "pass numbers, strings or arrays of numbers",
                ));
            }
            let id = format_ident!("__lib{}", i);
            let t = v.t;
            lets.push(quote!(let #id = #t;));
            refs.push(quote!(&#id as &dyn #trait_path));
        }
        Ok((lets, refs))
    }

    /// A number, fixed vector or array as a `Vec` of `n` (a float type).
    fn floats(&mut self, a: &Expr, n: Num) -> GResult<TokenStream> {
        let rt = self.g.rt.clone();
        let nt = n.tokens(&rt);
        let v = self.expr(a)?;
        let t = v.t;
        let conv = |from: Num| cast_num(from, n, quote!(__v), &rt);
        Ok(match v.r {
            Repr::Num(from) if !from.is_complex() => {
                let x = cast_num(from, n, t, &rt);
                quote!(::std::vec![#x])
            }
            Repr::Fixed(from, _) if !from.is_complex() => {
                let c = conv(from);
                quote!(#t.iter().map(|&__v| #c).collect::<::std::vec::Vec<#nt>>())
            }
            Repr::Array(from, _) if !from.is_complex() => {
                let c = conv(from);
                quote!(#t.to_vec()?.into_iter().map(|__v| #c).collect::<::std::vec::Vec<#nt>>())
            }
            _ => {
                return Err(unsupported(
                    a.span,
                    "this value where real numbers are expected",
                    "pass real numbers (`real(z)` or `abs(z)` of a complex `z`)",
                ))
            }
        })
    }

    /// The element type name of `fread`/`fwrite` (MATLAB's default: `"uint8"`).
    fn elem_type_name(&mut self, a: Option<&Expr>) -> GResult<TokenStream> {
        match a {
            Some(t) => self.expr_as(t, &Repr::Str),
            None => Ok(quote!(::std::string::String::from("uint8"))),
        }
    }

    /// Character codes as a `Vec<f64>`.
    fn slice_of(&mut self, a: &Expr) -> GResult<TokenStream> {
        self.floats(a, Num::F64)
    }

    /// An array argument of an FFT or matrix function, as an array of the float (or complex)
    /// type of the result `r`'s precision: integer arrays become `scalar` arrays.
    fn float_array(&mut self, a: &Expr, r: &Repr) -> GResult<TokenStream> {
        let v = self.expr(a)?;
        let Some(from) = v.r.num() else {
            return Err(unsupported(a.span, "this argument", "pass an array of numbers"));
        };
        let double =
            matches!(r, Repr::Num(Num::F64 | Num::C64) | Repr::Array(Num::F64 | Num::C64, _))
                || matches!(r, Repr::Tuple(rs) if rs.first().and_then(Repr::num) == Some(Num::F64));
        let target = match from {
            Num::C32 | Num::C64 | Num::F32 | Num::F64 => from,
            _ if double => Num::F64,
            _ => Num::F32,
        };
        if !matches!(v.r, Repr::Array(..)) {
            return Err(unsupported(a.span, "this argument", "pass an array"));
        }
        self.convert(v, &Repr::Array(target, None), a.span)
    }

    /// The call site `file:line` that names a figure.
    fn site(&self, span: Span) -> TokenStream {
        let s = format!("{}:{}", self.g.opts.file_name_of(span), span.line);
        quote!(#s)
    }
}

/// The manual's `system.q` type predicates (§2.2), decided from the static type: `isreal`
/// (not complex), `iscomplex`, `isscalar` (a number), `isvector` (a `vec`), `ismatrix` (a
/// `vec` or `mat`), `iscube` (a `vec`, `mat` or `cube`). `None` when the type is not known.
fn type_predicate(b: Builtin, t: &crate::sema::types::Type) -> Option<bool> {
    use crate::sema::types::{Rank, Type};
    let (elem, rank) = match t {
        Type::Array(a) => (&a.elem, Some(a.rank)),
        t => (t, None),
    };
    let complex = matches!(elem, Type::Complex(_));
    if !(complex || matches!(elem, Type::Scalar(_) | Type::Int(..))) {
        return None;
    }
    let r = match rank {
        None => Some(0),
        Some(Rank::Fixed(r)) => Some(r),
        Some(Rank::Any) => None,
    };
    Some(match b {
        B::Isreal => !complex,
        B::Iscomplex => complex,
        B::Isscalar => r? == 0,
        B::Isvector => r? == 1,
        B::Ismatrix => matches!(r?, 1 | 2),
        _ => matches!(r?, 1..=3),
    })
}

/// A `Vec<i32>` expression `v` held as `r`: an `ivecN` (`[i32; N]`) or a `vec[int]` array.
pub(super) fn int_vector(v: TokenStream, r: &Repr, rt: &TokenStream) -> Option<TokenStream> {
    Some(match r {
        Repr::Fixed(Num::I32, s) => {
            let k: usize = s.iter().product();
            quote!({
                let __v = #v;
                let mut __a = [0i32; #k];
                for (__o, __x) in __a.iter_mut().zip(__v) { *__o = __x; }
                __a
            })
        }
        Repr::Array(Num::I32, _) => {
            quote!({ let __v = #v; let __n = __v.len(); #rt::run::Array::from_vec(&[__n], __v)? })
        }
        // A vector of one element is held as the number.
        Repr::Num(Num::I32) => quote!(#v.first().copied().unwrap_or_default()),
        _ => return None,
    })
}

/// `type(x, name)` from the static type of `x` (manual §2.2: `type(zeros(2, 2), "mat")`; a
/// `vec` is not a `mat`, the predicates `ismatrix`/`iscube` add the lower ranks). `None` when
/// the type of `x` or the name is not one this decides.
fn type_is(t: &crate::sema::types::Type, name: &str) -> Option<bool> {
    use crate::sema::types::{Rank, Type};
    let class = |elem: &Type| match elem {
        Type::Scalar(_) => Some(0),
        Type::Complex(_) => Some(1),
        Type::Int(..) => Some(2),
        _ => None,
    };
    let (kind, rank) = match t {
        Type::String => (3, 0),
        Type::Array(a) => match a.rank {
            Rank::Fixed(r) => (class(&a.elem)?, r),
            Rank::Any => return None,
        },
        t => (class(t)?, 0),
    };
    let want = match name {
        "scalar" => (0, 0),
        "cscalar" => (1, 0),
        "int" => (2, 0),
        "string" => (3, 0),
        "vec" => (0, 1),
        "mat" => (0, 2),
        "cube" => (0, 3),
        "cvec" => (1, 1),
        "cmat" => (1, 2),
        "ccube" => (1, 3),
        _ => return None,
    };
    Some((kind, rank) == want)
}
