//! `__device__` lambdas kept as closure classes where a concrete device function type is
//! declared (manual §4.2's `lut`, chapter 15's images): a lambda capturing an array (which no
//! device function value can hold), or one taking a device function through a parameter
//! without a type (an `algorithm` given the images, which may capture arrays). A function's
//! result or a variable declared with such a type then takes the class's type, so the
//! instance is specialised for it as a function given it as a parameter is; calling it
//! instantiates the lambda (`closure_class.rs`), and device code reads its fields as
//! captures of its own (`image.data`).

use super::closure_class::{closure_index, keeps_class, kind_fits, ClassFn};
use super::scope::FnLowerer;
use crate::diagnostics::Diagnostic;
use crate::ir::{self, FunctionId, LocalId};
use crate::sema::decls::FnDeclId;
use crate::sema::types::{FnType, Type};
use crate::span::Span;
use crate::syntax::ast::FunctionKind;

/// Whether the `__device__` lambda `lambda`, given the function type `ft`, takes a device
/// function value through a parameter without a type (`__device__ (x, pos) -> x(pos + d)`
/// as an `algorithm`, manual ch. 15): it stays a closure class, instantiated for the images
/// it is called with, which may be device lambdas capturing arrays (no function value can
/// hold those; a call through a function value of the images would also make device code
/// recursive).
///
/// A nested named function ([`ClassFn::Nested`]) is kept for a parameter declared with a
/// device function type too: such a function is specialised for the images it is given. So
/// is a host lambda (the manual's `compute : rasterizer = (x, sz) -> …` and `apply_deferred
/// : application = (x, p) -> …`): its instance for the declared types would hold images as
/// function values, and one capturing another (`p(x, pos)`) makes every image value boxed,
/// which no kernel can take.
pub(super) fn takes_device_fn(f: ClassFn, ft: &FnType) -> bool {
    let nested = matches!(f, ClassFn::Nested(..));
    let host_lambda = matches!(f, ClassFn::Lambda(_))
        && matches!(f.kind(), FunctionKind::Host | FunctionKind::ExplicitHost);
    (f.kind() == FunctionKind::Device || host_lambda)
        && f.params().iter().zip(&ft.params).any(|(p, t)| {
            (nested || p.ty.is_none())
                && matches!(t, Type::Function(f) if f.kind == FunctionKind::Device)
        })
}

/// Whether a captured value of type `t` is an array a device function value cannot hold,
/// or a closure class value holding one (a device image capturing another, manual ch. 15).
pub(super) fn holds_heap_array(t: &Type) -> bool {
    match t {
        Type::Class(c) if c.id.is_closure() => c.args.iter().any(holds_heap_array),
        _ => super::closure_class::is_heap_array(t),
    }
}

impl<'c, 'a> FnLowerer<'c, 'a> {
    /// The nested function `decl` (instance `id`, for its declared parameter types) used as
    /// a value, as a closure class where it is a `__device__` function reading variables of
    /// its enclosing function and taking a parameter declared with a device function type
    /// (manual ch. 15: `function y : vec3 = __device__ algo(input : image, pos : ivec2)` as
    /// the `algorithm` of `mean_filter_hor(N)`): like a lambda taking an image, it is
    /// instantiated for the images it is called with, which may capture arrays.
    pub(super) fn nested_fn_class(&mut self, decl: FnDeclId, id: FunctionId) -> Option<ir::Expr> {
        let def = self.cx.decls.function(decl).def;
        let device_fn = |t: &Type| matches!(t, Type::Function(f) if f.kind == FunctionKind::Device);
        let takes = def.params.iter().any(|p| device_fn(&self.cx.declared_param_type(def, p)));
        let captures = !self.cx.module.function(id).captures.is_empty();
        (def.kind == FunctionKind::Device && takes && captures)
            .then(|| self.closure_class_of(ClassFn::Nested(decl, def), def.name.span, id))
    }

    /// Whether a value of type `from` is stored as it is where the concrete function type `ft`
    /// is declared (a variable, a function's result): a `__device__` lambda capturing an
    /// array, which no function value can hold; the instance holding it is specialised for
    /// it, as a function given it as a parameter is.
    pub(super) fn kept_as_class(&self, from: &Type, ft: &FnType) -> bool {
        let Some(index) = closure_index(from) else { return false };
        let Some(cc) = self.cx.closure_classes.get(index) else { return false };
        let f = cc.lambda;
        (keeps_class(f.kind(), from) || takes_device_fn(f, ft))
            && kind_fits(f.kind(), ft.kind)
            && (f.variadic() || ft.variadic || f.params().len() == ft.params.len())
    }

    /// Whether a function value of type `from` is stored as it is where `ft` is declared: the
    /// same parameters, and results that are kept classes where `ft` has device function
    /// types (`make_image : [cube -> image] = d -> __device__ (p) -> d[p[0], p[1], 0..2]`).
    pub(super) fn returns_kept_class(&self, from: &Type, ft: &FnType) -> bool {
        let Type::Function(vt) = from else { return false };
        let fits = |s: &Self, v: &Type, d: &Type| match d {
            Type::Function(df) => v == d || s.kept_as_class(v, df) || s.returns_kept_class(v, df),
            _ => v == d,
        };
        **vt != *ft
            && vt.kind == ft.kind
            && vt.params == ft.params
            && vt.variadic == ft.variadic
            && vt.results.len() == ft.results.len()
            && vt.results.iter().zip(&ft.results).all(|(v, d)| fits(self, v, d))
    }

    /// Stores the kept closure class value of type `ty` in local `id`, declared with the
    /// function type `decl` ([`Self::kept_as_class`]): the local takes the class's type; a
    /// second such value of another class is an error (one instance holds one).
    pub(super) fn specialise_fn_local(
        &mut self,
        id: LocalId,
        ty: &Type,
        decl: &Type,
        span: Span,
    ) -> Type {
        let old = self.locals[id.0 as usize].ty.clone();
        if old == *ty {
            return old;
        }
        if old != *decl && old != Type::Void && closure_index(&old).is_some() {
            let name = self.locals[id.0 as usize].name.clone();
            let d = Diagnostic::error(
                span,
                format!("`{name}` is given two different `__device__` lambdas that capture arrays"),
            )
            .with_label(format!("this is {ty}, and `{name}` already holds {old}"))
            .with_note("a `__device__` lambda capturing an array is not a function value: the code holding it is specialised for it; give each lambda its own variable or function");
            self.report(d);
            return old;
        }
        self.locals[id.0 as usize].ty = ty.clone();
        self.changed = true;
        ty.clone()
    }
}

#[cfg(test)]
mod tests {
    use crate::ir::dump;

    /// The messages of the errors of `src`, and the instances' signatures.
    fn checked(src: &str) -> (Vec<String>, String) {
        let c = super::super::tests::checked(src);
        let errs =
            c.diagnostics.iter().filter(|d| d.is_error()).map(|d| d.message.clone()).collect();
        (errs, dump::signatures(&c.module))
    }

    const TYPES: &str = "type image : [__device__ ivec2'const -> vec3]\ntype algorithm : [__device__ (image, ivec2'const) -> vec3]\n";

    #[test]
    fn a_result_declared_as_a_device_function_type_holds_the_image_as_its_class() {
        let src = format!("{TYPES}function img : image = make(d : cube)\n    img = __device__ (p) -> d[p[0], p[1], 0..2]\nendfunction\nfunction out : image = moved(x : image, s : ivec2)\n    out = __device__ (p) -> x(p + s)\nendfunction\nfunction y = run(c : cube)\n    f = moved(make(c), [1, 0])\n    y = f([0, 0])\nendfunction\n");
        let (errs, sigs) = checked(&src);
        assert!(errs.is_empty(), "{errs:?}");
        assert!(sigs.contains("make(d : cube) -> (img : <lambda@4:11>[cube"), "{sigs}");
        // The image captured by another image is a class too, and so is its holder, whose
        // device code reads the inner image's array as a capture of its own.
        assert!(
            sigs.contains(
                "moved(x : <lambda@4:11>[cube], s : ivec2) -> (out : <lambda@7:11>[ivec2, cube])"
            ),
            "{sigs}"
        );
        assert!(sigs.contains("captures s : ivec2, x.d : cube"), "{sigs}");
    }

    #[test]
    fn an_algorithm_taking_an_image_without_a_type_stays_a_class() {
        let src = format!("{TYPES}function a : algorithm = shift(s : ivec2)\n    a = __device__ (x, p) -> x(p + s)\nendfunction\nf = shift([1, 2])\n");
        let (errs, sigs) = checked(&src);
        assert!(errs.is_empty(), "{errs:?}");
        assert!(sigs.contains("-> (a : <lambda@4:9>[ivec2])"), "{sigs}");
    }

    #[test]
    fn a_lambda_declared_to_return_an_image_returns_the_image_s_class() {
        // The manual's `make_image : [cube -> image] = im_data -> __device__ (pos) -> …`.
        let src = format!("{TYPES}make : [cube -> image] = d -> __device__ (p) -> d[p[0], p[1], 0..2]\nfunction y = run(c : cube)\n    y = make(c)([0, 0])\nendfunction\n");
        let (errs, sigs) = checked(&src);
        assert!(errs.is_empty(), "{errs:?}");
        assert!(
            sigs.contains("<lambda@3:26>(d : cube) -> (<result> : <lambda@3:31>[cube])"),
            "{sigs}"
        );
    }

    #[test]
    fn two_array_capturing_lambdas_in_one_result_are_an_error() {
        let src = format!("{TYPES}function img : image = pick(d : cube, e : cube, c : int)\n    img = __device__ (p) -> d[p[0], p[1], 0..2]\n    if c > 0\n        img = __device__ (p) -> 2 * e[p[0], p[1], 0..2]\n    endif\nendfunction\nfunction y = run(a : cube, b : cube)\n    y = pick(a, b, 1)([0, 0])\nendfunction\n");
        let (errs, _) = checked(&src);
        assert!(
            errs.iter().any(|e| e.contains("`img` is given two different `__device__` lambdas")),
            "{errs:?}"
        );
    }
}
