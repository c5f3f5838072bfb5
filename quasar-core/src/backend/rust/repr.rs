//! How a value of each type is held in generated code: its [`Repr`] in host, kernel or
//! device code, and the element number type of arrays.

use super::func::Ctx;
use super::ty::{fixed_shape, rank_of, Num, Repr};
use super::{unsupported, GResult};
use crate::sema::types::Type;
use crate::span::Span;
use crate::syntax::ast::FunctionKind;

/// The number type of an array element: a number, or a class of plain old data (arrays of
/// classes are stored in place, manual §2.2.6).
pub(crate) fn elem_num(g: &super::Gen, elem: &Type) -> Option<Num> {
    if let Some(n) = Num::of(elem) {
        return Some(n);
    }
    match elem {
        Type::Class(_) => match super::classes::class_repr(g, elem, Ctx::Kernel, Span::default()) {
            Ok(Repr::Class(k)) => Some(Num::Class(k)),
            _ => None,
        },
        _ => None,
    }
}

/// How a value of type `ty` is held in code running in `ctx`.
pub(crate) fn repr_in(g: &super::Gen, ty: &Type, ctx: Ctx, span: Span) -> GResult<Repr> {
    if let Some(n) = Num::of(ty) {
        return Ok(Repr::Num(n));
    }
    Ok(match ty {
        Type::String => Repr::Str,
        Type::Void => Repr::Unit,
        Type::Tuple(ts) if ts.is_empty() => Repr::Unit,
        Type::Tuple(ts) => {
            Repr::Tuple(ts.iter().map(|t| repr_in(g, t, ctx, span)).collect::<GResult<_>>()?)
        }
        Type::Array(a) if ctx == Ctx::Host && elem_num(g, &a.elem).is_none() => Repr::Value,
        Type::Array(a) => {
            let n = elem_num(g, &a.elem).ok_or_else(|| {
                unsupported(
                    span,
                    format_args!("arrays of {} elements", a.elem),
                    "use arrays of numbers (`int`, `scalar`, `cscalar`, …)",
                )
            })?;
            match ctx {
                Ctx::Host => Repr::Array(n, rank_of(a)),
                Ctx::Kernel | Ctx::Device => match fixed_shape(a) {
                    Some(s) => Repr::Fixed(n, s),
                    None => Repr::View(n, rank_of(a)),
                },
            }
        }
        Type::Function(ft) => {
            const TYPE_THE_FUNCTION_VALUE: &str = "annotate the lambda's parameter types \
                (`(x : scalar) -> …`), or declare the variable's function type (`add : \
                [scalar -> scalar -> scalar] = x -> y -> x + y`)";
            // Its enum needs every parameter and result type (`fnval.rs`).
            let inner = if ft.kind == FunctionKind::Device { Ctx::Device } else { Ctx::Host };
            for t in ft.params.iter().chain(&ft.results) {
                repr_in(g, t, inner, span).map_err(|_| {
                    unsupported(
                        span,
                        format_args!("function values of type {ty}"),
                        TYPE_THE_FUNCTION_VALUE,
                    )
                })?;
            }
            Repr::FnVal(g.info.fnvals.index_of(ft).ok_or_else(|| {
                unsupported(
                    span,
                    format_args!("function values of type {ty}"),
                    TYPE_THE_FUNCTION_VALUE,
                )
            })?)
        }
        Type::Class(_) | Type::Pointer(_) => super::classes::class_repr(g, ty, ctx, span)?,
        Type::Null => Repr::Null,
        // What `type(x)` gives at run time: the type's name (table 14.1).
        Type::TypeValue(_) if ctx == Ctx::Host => Repr::Str,
        // Dynamic values, cell arrays (`vec[??]`, `{…}`, typed cells such as `vec[mat]`).
        Type::Unknown | Type::CellTuple(_) if ctx == Ctx::Host => Repr::Value,
        Type::Unknown => {
            return Err(unsupported(
                span,
                "values of type `??` (dynamic typing)",
                "add a type annotation so that the type of this value is known at compile time",
            ))
        }
        t => return Err(unsupported(
            span,
            format_args!("values of type {t}"),
            "use numbers, strings, arrays or function values; keep class fields and cell elements \
             in separate variables",
        )),
    })
}

pub(crate) fn describe(r: &Repr) -> String {
    match r {
        Repr::Num(n) => n.quasar_name().into(),
        Repr::Str => "a string".into(),
        Repr::Unit => "no value".into(),
        Repr::Array(n, _) => format!("an array of {}", n.quasar_name()),
        Repr::Fixed(n, s) => format!("a fixed-size array of {} {:?}", n.quasar_name(), s),
        Repr::View(n, _) => format!("a kernel array of {}", n.quasar_name()),
        Repr::FnVal(_) => "a function value".into(),
        Repr::Tuple(_) => "several results".into(),
        Repr::Class(_) => "a class value".into(),
        Repr::Obj(_) => "a mutable class object".into(),
        Repr::Ptr(_) => "a pointer".into(),
        Repr::Null => "`nullptr`".into(),
        Repr::Value => "a value of type `??`".into(),
    }
}
