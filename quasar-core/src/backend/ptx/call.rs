//! Calls of device functions and lambdas: inlined at the call site (parameters bound to copies
//! of the arguments, `return` a jump to the end), so no `.func` ABI is needed.

use super::kernel::{local, Ctx, Frame};
use super::regs::Val;
use super::{unsupported, Res};
use crate::ir::{Callee, Expr, FunctionId};

use crate::span::Span;
use std::collections::HashMap;

/// How deeply device functions are inlined into each other (recursion is not supported).
const MAX_INLINE_DEPTH: usize = 24;

impl Ctx<'_> {
    /// The call `e` of `callee` with `args`.
    pub fn call(&mut self, callee: &Callee, args: &[Expr], e: &Expr) -> Res<Val> {
        let (ty, span) = (&e.ty, e.span);
        match callee {
            Callee::Builtin(b) => self.builtin(*b, args, ty, span, e.id),
            Callee::Unresolved(name) => unsupported(
                span,
                format!("this call of `{name}` (its result type could not be inferred)"),
                "write a recursive function as a loop (device functions are inlined, so \
                 they cannot call themselves); for another function, declare the types of \
                 its parameters and results",
            ),
            Callee::Function(id) => {
                let mut vals = Vec::new();
                for a in args {
                    vals.push(self.expr(a)?);
                }
                // The arguments are the callee's parameters, then its captures (a nested
                // function reading the enclosing function's variables).
                let n = self.module.functions.get(id.0 as usize).map_or(0, |g| g.params.len());
                let captures = if vals.len() > n { vals.split_off(n) } else { Vec::new() };
                self.inline_call(*id, vals, captures, span)
            }
            Callee::Value(f) => {
                let c = match self.expr(f)? {
                    Val::Closure(c) => c,
                    Val::FnValue(fv) => return self.call_fn_value(fv, args, ty, span),
                    _ => {
                        return unsupported(
                            span,
                            "calling a function value not known when compiling",
                            "call a `__device__` function by name, or pass it as a \
                             function value parameter (`f : [__device__ scalar -> \
                             scalar]`)",
                        )
                    }
                };
                let mut vals = Vec::new();
                for a in args {
                    vals.push(self.expr(a)?);
                }
                self.inline_call(c.function, vals, c.captures, span)
            }
        }
    }

    /// Inlines a device function (or lambda) call: parameters are bound to copies of the
    /// arguments, `return` jumps to the end, the results are the outputs' values.
    pub fn inline_call(
        &mut self,
        id: FunctionId,
        args: Vec<Val>,
        captures: Vec<Val>,
        span: Span,
    ) -> Res<Val> {
        let module = self.module;
        let Some(g) = module.functions.get(id.0 as usize) else {
            return unsupported(
                span,
                "a call to an unknown function",
                "report this as a compiler bug, with the program; meanwhile run the \
                 kernel on the CPU",
            );
        };
        if self.frames.len() > MAX_INLINE_DEPTH
            || self.frames.iter().any(|f| std::ptr::eq(f.func, g))
        {
            return unsupported(
                span,
                format!("the recursive call of `{}`", g.name),
                "rewrite the recursion as a loop (device functions are inlined, so they \
                 cannot call themselves)",
            );
        }
        if g.params.len() != args.len() || g.captures.len() != captures.len() {
            return unsupported(
                span,
                format!("the call of `{}` with optional arguments", g.name),
                format!("pass every argument of `{}` explicitly, defaults included", g.name),
            );
        }
        let ret = self.label();
        let mut frame = Frame {
            func: g,
            locals: HashMap::new(),
            ret_label: ret.clone(),
            loop_base: self.loops.len(),
        };
        let bind = |cx: &mut Self, frame: &mut Frame, lid, v: Val| -> Res<()> {
            let l = local(g, lid)?;
            let v = cx.convert_to(v, &l.ty, span)?;
            let v = match v {
                Val::Num(..) | Val::Vec(..) | Val::Class(_) => {
                    let fresh = cx.fresh_like(&v, span)?;
                    cx.copy_into(&fresh, v, span)?;
                    fresh
                }
                v => v,
            };
            frame.locals.insert(lid, v);
            Ok(())
        };
        for (&lid, v) in g.params.iter().zip(args) {
            bind(self, &mut frame, lid, v)?;
        }
        for (&lid, v) in g.captures.iter().zip(captures) {
            bind(self, &mut frame, lid, v)?;
        }
        self.frames.push(frame);
        let r = self.init_vars(g).and_then(|_| self.block(&g.body));
        let frame = self.frames.pop();
        r?;
        self.place(&ret);
        let frame = match frame {
            Some(f) => f,
            None => {
                return unsupported(
                    span,
                    "an inlined call",
                    "report this as a compiler bug, with the program; meanwhile run the \
                     kernel on the CPU",
                )
            }
        };
        let mut results = Vec::new();
        for o in &g.outputs {
            match frame.locals.get(o) {
                Some(v) => results.push(v.clone()),
                None => {
                    return unsupported(
                        span,
                        format!("a result of `{}` that is not set", g.name),
                        format!(
                            "assign every result of `{}` on every path through the function",
                            g.name
                        ),
                    )
                }
            }
        }
        Ok(match results.len() {
            0 => Val::Void,
            1 => results.swap_remove(0),
            _ => Val::Tuple(results),
        })
    }
}
