//! The CPU versions of a kernel's block function, laid out in the kernel's own module.
//!
//! Users build without `-C target-cpu=native`, so the loops that vectorise are compiled for
//! baseline x86-64 and wider vector units and picked at run time (ARCHITECTURE §3). Only those
//! loops pay for the copies, and each copy costs the user's crate compile time (issue 19): a
//! kernel without barriers keeps its arguments in an `Env`, runs the hot loop of each row
//! through `rows` (the interior, or the whole row when the kernel has no interior path), one
//! function per version ([`Copies`]: AVX2+FMA for a loop that vectorises or calls math routines
//! that fuse), and the border segments of a row through one `thread` function compiled once,
//! for baseline x86-64 (the border is a sliver of the positions). A hot loop with an AVX2+FMA
//! copy has no baseline x86-64 one unless `quasar`'s `x86-baseline-copies` feature is on (the
//! choice is a macro of `qstd::rt`, so Cargo's feature unification decides it): CPUs without
//! AVX2+FMA (x86-64 before 2013) otherwise run `thread` over whole rows, correct and 3-6×
//! slower, for 25% less compile time of a library of kernels. A hot loop that cannot vectorise
//! (`analysis::vectorise`: a run-time-length loop summing floats per position, as a separable
//! blur's taps) and calls no fusable math gets no copies at all: every version would run the
//! same scalar code, unless the kernel runs in strips (`analysis::lockstep`,
//! [`super::strip`]): `rows` then runs strips of positions in lockstep, which vectorise, and a
//! segment of a row shorter than a strip through the border code (or, for a kernel without
//! one, a `rest` function compiled once). No copy is
//! compiled for AVX-512: it measured 11% of the LLVM time of a library of kernels for loops
//! that are bound by memory bandwidth on image-sized arrays (issue 19); AVX-512 CPUs run the
//! AVX2+FMA copy.
//! Kernels with barriers or without a position compile their whole block function per version.

use super::kernel::RowCode;
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

/// A field of a kernel's `Env` (a tuple struct): an argument, named as the block function's
/// local of the same value.
pub(super) struct EnvField {
    pub name: Ident,
    pub ty: TokenStream,
    /// `Copy` (everything but function values).
    pub copy: bool,
    /// The rank of a view argument whose extents and strides the functions read once
    /// (`{name}__n`, `{name}__s`).
    pub geom: Option<usize>,
}

/// The `Env` fields as locals of a function given `__e: &Env`.
fn unpack(env: &[EnvField]) -> TokenStream {
    let names = env.iter().map(|f| {
        let n = &f.name;
        if f.copy {
            quote!(#n)
        } else {
            quote!(ref #n)
        }
    });
    let clones = env.iter().filter(|f| !f.copy).map(|f| {
        let n = &f.name;
        quote!(let #n = #n.clone();)
    });
    let geoms = env.iter().filter_map(|f| {
        let (n, r) = (&f.name, f.geom?);
        let (nn, ss) = (format_ident!("{}__n", n), format_ident!("{}__s", n));
        Some(quote!(let (#nn, #ss) = #n.geom::<#r>();))
    });
    quote!(let Env(#(#names,)* ..) = *__e; #(#clones)* #(#geoms)*)
}

/// The versions of a kernel's hot loop besides baseline x86-64.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Copies {
    /// None: the loop cannot vectorise and calls no fusable math.
    None,
    /// AVX2+FMA (which CPUs with AVX-512 run too): a loop that vectorises, or calls math
    /// routines that fuse (`pow`, with FMA).
    Avx2,
}

impl Copies {
    /// The copies for a hot loop that `vectorises` (`analysis::vectorise`) and calls fusable
    /// math or not.
    pub fn of(vectorises: bool, fused_math: bool) -> Copies {
        if fused_math || vectorises {
            Copies::Avx2
        } else {
            Copies::None
        }
    }
}

/// The items of a kernel without barriers over `d >= 1` dimensions: `Env`, the `rows`
/// versions, `thread` and the block function `run`, which reads the arguments (`prologue`),
/// picks the version of `rows` this CPU runs, loops (`code.loops`) and ends with `epilogue`.
/// `copies` says which versions besides baseline x86-64 it gets.
pub(super) fn rows(
    rt: &TokenStream,
    prologue: &TokenStream,
    env: &[EnvField],
    d: usize,
    code: &RowCode,
    epilogue: &TokenStream,
    copies: Copies,
) -> TokenStream {
    let last = d - 1;
    let plast = format_ident!("__p{}", last);
    let outer: Vec<Ident> = (0..last).map(|k| format_ident!("__p{}", k)).collect();
    // The row's outer positions and its range in one array: short signatures.
    let q = d + 1;
    let params = quote!(__ctx: &__Ctx, __e: &Env, __q: [usize; #q]);
    let args = quote!(__ctx, __e, __q);
    let res = quote!(__Res);
    let unpack = unpack(env);
    let none = quote!();
    // A function over the segment `[__lo, __hi)` of one row, running `body` per position
    // between `open` and `close` (the kernel outputs held in registers).
    let segment_fn = |attr: TokenStream, f: &TokenStream, lp: &TokenStream, open, close| {
        quote! {
            #attr
            fn #f(#params) -> #res {
                let [#(#outer,)* __lo, __hi] = __q;
                #unpack
                #open
                #lp
                #close
                ::core::result::Result::Ok(())
            }
        }
    };
    let plain = |body: &TokenStream| quote!(for #plast in __lo..__hi { #body });
    let (open, close) = &code.outputs;
    let row_fn = |f: &TokenStream, hot: &TokenStream| {
        let lp = match code.lanes {
            // Kernel outputs in lanes: the thread's code in a closure given its lane `__l`.
            Some(l) => quote! {
                #rt::qstd::rt::lanes::<#l>(__lo, __hi, |#plast, __l| {
                    #hot
                    ::core::result::Result::Ok(())
                })?;
            },
            None => plain(hot),
        };
        segment_fn(quote!(#[inline(always)]), f, &lp, open, close)
    };
    // With fusable math (`pow`), one generic hot loop: `rows::<true>` calls the fused routines
    // (`pow_sel`), for the versions with `fma` enabled.
    let generic = code.fused();
    let hot = code.hot_fma.as_ref().unwrap_or(&code.hot);
    let (base, fused, rows_name) = if generic {
        (quote!(rows::<false>), quote!(rows::<true>), quote!(rows<const __F: bool>))
    } else {
        (quote!(rows), quote!(rows), quote!(rows))
    };
    let rows_fn = match &code.strip {
        // Strips of the segment in the versions, the last one ending at the segment's end
        // (it overlaps the one before: positions computed twice write the same values, since
        // a kernel runs in strips only when it writes its own position's elements of arrays
        // it does not read). A segment shorter than a strip runs in `rest`, one position at a
        // time, compiled once (twice when generic).
        Some(strip) => {
            let body = strip.body_fma.as_ref().unwrap_or(&strip.body);
            let l = super::strip::LANES;
            // A segment shorter than a strip: the border code when the kernel has one (it
            // handles every position, and is compiled anyway; flat rows' indices are turned
            // back into positions for it), else `rest`.
            let (short, rest_name) = match (&code.border, generic) {
                (Some(_), _) if code.merge => {
                    // Merged rows: `rows` gets `[p0, 0, …, j]`, `j` flat along dimensions 1..
                    // and past the end of row `p0`.
                    let ps: Vec<Ident> = (0..d).map(|k| format_ident!("__q{}", k)).collect();
                    let ql = &ps[last];
                    let code = quote! {
                        for __j in __lo..__hi {
                            let [#(#ps),*] = #rt::qstd::rt::unflatten::<#d>(
                                __p0 * __ctx.dims()[1..].iter().product::<usize>() + __j,
                                __ctx.dims());
                            thread(__ctx, __e, [#(#ps,)* #ql + 1])?;
                        }
                    };
                    (code, None)
                }
                (Some(_), _) if code.flat => {
                    // `rows` gets `[p0, 0, …, j]` with `j` flat along dimensions 1.. (flat
                    // rows) or the positions themselves: the flat index covers both.
                    let n = d - 1;
                    let ps: Vec<Ident> = (1..d).map(|k| format_ident!("__p{}", k)).collect();
                    let base = (1..last).map(|k| {
                        let p = &ps[k - 1];
                        quote!(#p * __ctx.dims()[#k + 1..].iter().product::<usize>() +)
                    });
                    let code = quote! {
                        for __j in __lo..__hi {
                            let [#(#ps),*] = #rt::qstd::rt::unflatten::<#n>(
                                #(#base)* __j, &__ctx.dims()[1..]);
                            thread(__ctx, __e, [__p0, #(#ps,)* #plast + 1])?;
                        }
                    };
                    (code, None)
                }
                (Some(_), _) => (quote!(thread(__ctx, __e, [#(#outer,)* __lo, __hi])?;), None),
                (None, true) => (
                    quote!(rest::<__F>(__ctx, __e, [#(#outer,)* __lo, __hi])?;),
                    Some(quote!(rest<const __F: bool>)),
                ),
                (None, false) => {
                    (quote!(rest(__ctx, __e, [#(#outer,)* __lo, __hi])?;), Some(quote!(rest)))
                }
            };
            let lp = quote! {
                if __hi.saturating_sub(__lo) < #l {
                    #short
                } else {
                    let mut __s = __lo;
                    while __s < __hi {
                        let #plast = __s.min(__hi - #l);
                        #body
                        __s += #l;
                    }
                }
            };
            let strips = segment_fn(quote!(#[inline(always)]), &rows_name, &lp, &none, &none);
            let rest_fn = rest_name
                .map(|name| segment_fn(quote!(#[inline(never)]), &name, &plain(hot), open, close));
            // Row pairs (`qstd::rt::block_row_pairs`): `rows2` runs the segment of the row at
            // `__q` and of the next, in strips of both rows; a segment shorter than a strip runs
            // the border code of each row. Pairs run only in a split (the kernel has border
            // code), without flat rows.
            let pair_fn = strip.pairs.as_ref().map(|(body, fma)| {
                let body = fma.as_ref().unwrap_or(body);
                let prow = format_ident!("__p{}", d - 2);
                let lp = quote! {
                    if __hi.saturating_sub(__lo) < #l {
                        for __r in 0..2usize {
                            let #prow = #prow + __r;
                            #short
                        }
                    } else {
                        let mut __s = __lo;
                        while __s < __hi {
                            let #plast = __s.min(__hi - #l);
                            #body
                            __s += #l;
                        }
                    }
                };
                let name = if generic { quote!(rows2<const __F: bool>) } else { quote!(rows2) };
                segment_fn(quote!(#[inline(always)]), &name, &lp, &none, &none)
            });
            quote!(#strips #rest_fn #pair_fn)
        }
        None => row_fn(&rows_name, hot),
    };
    // The border threads of one segment of a row, out of line: a call per segment, not per
    // position, so the views' geometry is read once (a row outside the interior is all
    // border).
    // (The border code writes kernel outputs to the block's slots itself.)
    let thread_fn = code.border.as_ref().map(|body| {
        segment_fn(quote!(#[inline(never)]), &quote!(thread), &plain(body), &none, &none)
    });
    let mut fields: Vec<TokenStream> = env.iter().map(|f| f.ty.clone()).collect();
    let mut values: Vec<TokenStream> = env
        .iter()
        .map(|f| {
            let n = &f.name;
            if f.copy {
                quote!(#n)
            } else {
                quote!(#n.clone())
            }
        })
        .collect();
    // The lifetime of the views, when the kernel takes none.
    if !fields.iter().any(|t| t.to_string().contains("'a")) {
        fields.push(quote!(::core::marker::PhantomData<&'a ()>));
        values.push(quote!(::core::marker::PhantomData));
    }
    let loops = &code.loops;
    let pairs = code.strip.as_ref().is_some_and(|s| s.pairs.is_some());
    let (base2, fused2) = if generic {
        (quote!(rows2::<false>), quote!(rows2::<true>))
    } else {
        (quote!(rows2), quote!(rows2))
    };
    let avx2_pairs = if pairs {
        quote! {
            #[cfg(target_arch = "x86_64")]
            #[target_feature(enable = "avx2,fma")]
            unsafe fn rows2_avx2(#params) -> #res { #fused2(#args) }
        }
    } else {
        quote!()
    };
    let avx2 = quote! {
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx2,fma")]
        unsafe fn rows_avx2(#params) -> #res { #fused(#args) }
        #avx2_pairs
    };
    let (versions, wide) = match copies {
        Copies::None => (quote!(), false),
        Copies::Avx2 => (avx2, true),
    };
    // `__rows` and whether the rows are split into interior and border (`block_rows`).
    let pick = match (wide, &thread_fn) {
        // Baseline x86-64 gets no copy of a hot loop that has a wider one unless the user's
        // build asks for it (`quasar`'s `x86-baseline-copies` feature): CPUs without
        // AVX2+FMA run the border code, which handles every position, over whole rows.
        (true, Some(_)) => quote! {
            #[cfg(target_arch = "x86_64")]
            let (__rows, __split): (Rows, bool) = if #rt::qstd::rt::has_avx2_fma() {
                (rows_avx2, true)
            } else {
                #rt::qstd::rt::x86_baseline_copies!((#base, true), (thread, false))
            };
            #[cfg(not(target_arch = "x86_64"))]
            let (__rows, __split): (Rows, bool) = (#base, true);
        },
        (true, None) => quote! {
            #[cfg(target_arch = "x86_64")]
            let __rows = #rt::qstd::rt::pick::<Rows>(#base, rows_avx2);
            #[cfg(not(target_arch = "x86_64"))]
            let __rows: Rows = #base;
        },
        (false, Some(_)) => quote!(let (__rows, __split): (Rows, bool) = (#base, true);),
        (false, None) => quote!(let __rows: Rows = #base;),
    };
    // `__pair`, the version of `rows2` beside `__rows` (row pairs have border code). Where
    // `__rows` is the border code (`__split` false), `block_row_pairs` never calls it.
    let pick = match (pairs, wide) {
        (false, _) => pick,
        (true, true) => quote! {
            #pick
            #[cfg(target_arch = "x86_64")]
            let __pair: Rows = if #rt::qstd::rt::has_avx2_fma() {
                rows2_avx2
            } else {
                #rt::qstd::rt::x86_baseline_copies!(#base2, thread)
            };
            #[cfg(not(target_arch = "x86_64"))]
            let __pair: Rows = #base2;
        },
        (true, false) => quote!(#pick let __pair: Rows = #base2;),
    };
    quote! {
        use #rt::run::{BlockCtx as __Ctx, KernelArgs as __Args};
        type __Res = #rt::run::Result<()>;
        struct Env<'a>(#(#fields),*);
        type Rows = unsafe fn(&__Ctx, &Env, [usize; #q]) -> __Res;
        #rows_fn
        #versions
        #thread_fn
        pub(super) fn run(__ctx: &__Ctx, __args: &__Args) -> #res {
            #prologue
            let __e = Env(#(#values),*);
            #pick
            #loops
            #epilogue
            ::core::result::Result::Ok(())
        }
    }
}

/// The items of a kernel whose whole block function is compiled per version (barriers, or no
/// position): `block`, its copy with fused math when that differs, the versions, and `run`.
pub(super) fn whole_block(
    rt: &TokenStream,
    prologue: &TokenStream,
    body: &TokenStream,
    fused_body: Option<&TokenStream>,
) -> TokenStream {
    let res = quote!(#rt::run::Result<()>);
    let params = quote!(__ctx: &#rt::run::BlockCtx<'_>, __args: &#rt::run::KernelArgs<'_>);
    let block_fn = |f: &TokenStream, body: &TokenStream| {
        quote! {
            #[inline(always)]
            fn #f(#params) -> #res {
                #prologue
                #body
                ::core::result::Result::Ok(())
            }
        }
    };
    // As `rows`: one generic copy when the math can be fused.
    let (base, fused, block_item) = match fused_body {
        Some(b) => (
            quote!(block::<false>),
            quote!(block::<true>),
            block_fn(&quote!(block<const __F: bool>), b),
        ),
        None => (quote!(block), quote!(block), block_fn(&quote!(block), body)),
    };
    quote! {
        #block_item
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx2,fma")]
        unsafe fn block_avx2(#params) -> #res { #fused(__ctx, __args) }
        pub(super) fn run(#params) -> #res {
            #[cfg(target_arch = "x86_64")]
            if #rt::qstd::rt::has_avx2_fma() {
                // SAFETY: the CPU supports AVX2 and FMA (checked just above).
                return unsafe { block_avx2(__ctx, __args) };
            }
            #base(__ctx, __args)
        }
    }
}
