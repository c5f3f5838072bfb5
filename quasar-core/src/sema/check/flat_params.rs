//! Closure class values holding arrays passed between device functions (manual ch. 15's
//! `p(x, pos)`, an `algorithm` given an image that captures the pixel array). Device code
//! never holds such a value whole (no kernel or device function can take a class value
//! holding an array): a `__device__` function's parameter of such a type is passed as the
//! class's fields, one parameter each (`x.data`, `x.last`), and the parameter's name stays
//! a captured-looking local, so that calling it reads the fields by their dotted names as
//! captured closure values are read (`closure_class.rs`). The caller passes the fields: by
//! their dotted names where the value is itself such a local of device code, as fields of
//! the value elsewhere.

use super::kept_classes::holds_heap_array;
use super::scope::FnLowerer;
use crate::ir::{self, ExprKind, FunctionId, LocalId, LocalRole};
use crate::sema::types::Type;
use crate::span::Span;
use crate::syntax::ast::FunctionKind;

impl<'c, 'a> FnLowerer<'c, 'a> {
    /// The fields a parameter of type `ty` of a function of kind `kind` is passed as, if it
    /// is a closure class value holding an array and the function is a device function.
    pub(super) fn flat_fields(&self, kind: FunctionKind, ty: &Type) -> Option<Vec<(String, Type)>> {
        // A cell of device function values, element by element (`device_fn_cells.rs`).
        if let Some(items) = super::device_fn_cells::device_fn_cell(ty) {
            let device = matches!(kind, FunctionKind::Device | FunctionKind::Kernel);
            return device.then(|| {
                items.iter().cloned().enumerate().map(|(k, t)| (k.to_string(), t)).collect()
            });
        }
        if kind != FunctionKind::Device || !holds_heap_array(ty) {
            return None;
        }
        let fields = self.closure_fields(ty);
        // A closure value among the fields whose own fields are fields too (`p` beside
        // `p.fn`: the class remembers the lambda it calls, device code reads `p.fn`) is not
        // passed; it may hold what no device function can take (a function value).
        let dotted = |f: &str| {
            fields.iter().any(|(g, _)| g.strip_prefix(f).is_some_and(|r| r.starts_with('.')))
        };
        let fields: Vec<(String, Type)> = fields
            .iter()
            .filter(|(f, t)| !(super::closure_class::closure_index(t).is_some() && dotted(f)))
            .cloned()
            .collect();
        (!fields.is_empty()).then_some(fields)
    }

    /// Declares parameter `name` of type `ty` of this (device) function: one parameter per
    /// field where the value is passed field by field ([`Self::flat_fields`]), the name
    /// itself a local that no caller passes; else the one parameter. Returns the parameters.
    pub(super) fn add_param(&mut self, name: &str, ty: Type, span: Span) -> Vec<LocalId> {
        let Some(fields) = self.flat_fields(self.kind, &ty) else {
            return vec![self.add_local(name, ty, LocalRole::Param, span)];
        };
        self.add_local(name, ty, LocalRole::Capture, span);
        fields
            .into_iter()
            .map(|(f, t)| self.add_local(&format!("{name}.{f}"), t, LocalRole::Param, span))
            .collect()
    }

    /// The arguments of a call of instance `id`, each closure class value that the instance
    /// takes field by field replaced by its fields; a value that is not a variable is
    /// evaluated once first (the setups).
    pub(super) fn flatten_args(
        &mut self,
        id: FunctionId,
        args: Vec<ir::Expr>,
        span: Span,
    ) -> (Vec<ir::Expr>, Vec<ir::Expr>) {
        let kind = self.cx.module.function(id).kind;
        let (mut setups, mut out) = (Vec::new(), Vec::new());
        for a in args {
            let Some(fields) = self.flat_fields(kind, &a.ty) else {
                out.push(a);
                continue;
            };
            let base = match a.kind {
                ExprKind::Local(_) => a,
                _ => {
                    let (setup, local) = self.stored_in_temporary(a);
                    setups.push(setup);
                    local
                }
            };
            // A captured value (or one passed field by field) of device code: its fields
            // are captures (parameters) of their own.
            let dotted = match base.kind {
                ExprKind::Local(l) if self.in_device_code() => {
                    let local = &self.locals[l.0 as usize];
                    (local.role == LocalRole::Capture).then(|| local.name.clone())
                }
                _ => None,
            };
            for (f, t) in fields {
                out.push(match &dotted {
                    Some(b) => self.lower_name(&format!("{b}.{f}"), span),
                    None => match f.parse::<i64>() {
                        // An element of a cell of device function values.
                        Ok(k) => {
                            let k =
                                ir::Expr::new(ExprKind::Const(ir::Const::Int(k)), Type::INT, span);
                            let indices = vec![ir::Index::At(k)];
                            ir::Expr::new(
                                ExprKind::Index { base: Box::new(base.clone()), indices },
                                t,
                                span,
                            )
                        }
                        Err(_) => {
                            let kind = ExprKind::Field { base: Box::new(base.clone()), field: f };
                            ir::Expr::new(kind, t, span)
                        }
                    },
                });
            }
        }
        (setups, out)
    }

    /// `value` stored in a new temporary: the assignment and the temporary's value.
    pub(super) fn stored_in_temporary(&mut self, value: ir::Expr) -> (ir::Expr, ir::Expr) {
        let span = value.span;
        let name = format!("<arg@{}:{}>", span.line, span.col);
        let tmp = match self.names.get(&name) {
            Some(&id) => id,
            None => self.add_local(&name, value.ty.clone(), LocalRole::Var, span),
        };
        let ty = self.assign_local(tmp, &value.ty, span);
        let place = ir::Place::new(ir::PlaceKind::Local(tmp), ty.clone(), span);
        let assign = ExprKind::Assign {
            place: Box::new(place),
            op: ir::AssignOp::Assign,
            value: Box::new(value),
        };
        (ir::Expr::new(assign, ty.clone(), span), ir::Expr::new(ExprKind::Local(tmp), ty, span))
    }
}

/// `(setups; value)`, or `value` without setups.
pub(super) fn with_setups(mut setups: Vec<ir::Expr>, value: ir::Expr) -> ir::Expr {
    if setups.is_empty() {
        return value;
    }
    let (ty, span) = (value.ty.clone(), value.span);
    setups.push(value);
    ir::Expr::new(ExprKind::Sequence(setups), ty, span)
}

#[cfg(test)]
mod tests {
    use super::super::tests::{errors, signatures};

    const TYPES: &str = "type image : [__device__ ivec2'const -> vec3]\ntype algorithm : [__device__ (image, ivec2'const) -> vec3]\nfunction img : image = make(d : cube)\n    img = __device__ (p) -> d[p[0], p[1], 0..2]\nendfunction\nfunction out : image = apply(x : image, a : algorithm)\n    out = __device__ (p) -> a(x, p)\nendfunction\n";

    #[test]
    fn an_image_given_to_an_algorithm_in_device_code_is_passed_field_by_field() {
        let src = format!("{TYPES}function a : algorithm = shift(s : ivec2)\n    a = __device__ (x, p) -> x(p + s)\nendfunction\nfunction y = run(c : cube)\n    y = apply(make(c), shift([1, 0]))([0, 0])\nendfunction\n");
        assert!(errors(&src).is_empty(), "{:?}", errors(&src));
        let sigs = signatures(&src);
        // The algorithm's instance takes the image's array and nothing holding it.
        assert!(sigs.contains("__device__ <lambda@10:9>(x.d : cube, p : ivec2)"), "{sigs}");
        // The deferred image reads the fields, not the image whole.
        assert!(sigs.contains("| captures a.s : ivec2, x.d : cube"), "{sigs}");
    }

    #[test]
    fn a_nested_device_function_taking_an_image_is_specialised_for_it() {
        // The manual's mean filters: the nested function is the output's value.
        let src = format!("{TYPES}function algo : algorithm = blur(N : int)\n    w = 1.0 / N\n    function y : vec3 = __device__ algo(input : image, pos : ivec2)\n        y = w * input(pos)\n    endfunction\nendfunction\nfunction y = run(c : cube)\n    y = apply(make(c), blur(3))([0, 0])\nendfunction\n");
        assert!(errors(&src).is_empty(), "{:?}", errors(&src));
        let sigs = signatures(&src);
        assert!(sigs.contains("blur(N : int) -> (algo : <algo@11:36>[scalar])"), "{sigs}");
        assert!(
            sigs.contains(
                "__device__ algo(input.d : cube, pos : ivec2) -> (y : vec3) | captures w : scalar"
            ),
            "{sigs}"
        );
    }

    #[test]
    fn a_lambda_value_beside_its_own_fields_is_not_passed() {
        // The point-wise image holds `a` (the algorithm, which holds a function value) and
        // `a.f`: only `a.f` and the array go to the translation.
        let src = format!("{TYPES}function a : algorithm = shift(s : ivec2)\n    a = __device__ (x, p) -> x(p + s)\nendfunction\nfunction a : algorithm = pointwise(f : [__device__ vec3 -> vec3])\n    a = __device__ (x, p) -> f(x(p))\nendfunction\nfunction y = run(c : cube, g : scalar)\n    y = apply(apply(make(c), pointwise(__device__ (v : vec3) -> g * v)), shift([0, 1]))([0, 0])\nendfunction\n");
        assert!(errors(&src).is_empty(), "{:?}", errors(&src));
        let sigs = signatures(&src);
        assert!(sigs.contains("__device__ <lambda@10:9>(x.a.f : [__device__ (vec3) -> (vec3)], x.x.d : cube, p : ivec2)"), "{sigs}");
    }
}
