//! Statements: assignments (plain, compound, destructuring), control flow, `print`, `error`,
//! `assert`.

use super::expr::{syn_index, V};
use super::func::{Ctx, FnGen};
use super::ty::{Num, Repr};
use super::{unsupported, GResult};
use crate::ir::{AssignOp, BinaryOp, Builtin, Callee};
use crate::ir::{Block, Const, Expr, ExprKind, Place, PlaceKind, Stmt, StmtKind};
use crate::span::Span;
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

impl<'g, 'm> FnGen<'g, 'm> {
    pub fn block(&mut self, b: &Block) -> GResult<TokenStream> {
        let mut out = Vec::new();
        for s in b {
            out.push(crate::stack::guard(|| self.stmt(s))?);
        }
        Ok(quote!(#(#out)*))
    }

    pub(super) fn stmt(&mut self, s: &Stmt) -> GResult<TokenStream> {
        let rt = self.g.rt.clone();
        let q = quote!(#rt::qstd);
        Ok(match &s.kind {
            StmtKind::Assign { place, op, value } => self.assign(place, *op, value, s.span)?,
            StmtKind::Destructure { places, value } => self.destructure(places, value, s.span)?,
            StmtKind::Expr(e) => {
                let v = self.expr(e)?;
                let t = v.t;
                quote!(let _ = #t;)
            }
            StmtKind::If { cond, then_body, else_body } => {
                let c = self.truthy(cond)?;
                let a = self.block(then_body)?;
                if else_body.is_empty() {
                    quote!(if #c { #a })
                } else {
                    let b = self.block(else_body)?;
                    quote!(if #c { #a } else { #b })
                }
            }
            StmtKind::ForRange { var, start, step, end, body, .. } => {
                self.for_range(*var, start, step, end, body, s.span)?
            }
            StmtKind::ForEach { var, values, body } => {
                let v = self.expr(values)?;
                let var_t = self.local(*var);
                let var_r = self.local_repr_checked(*var)?;
                self.loop_depth += 1;
                let b = self.block(body);
                self.loop_depth -= 1;
                let b = b?;
                let items = v.t;
                match (&v.r, &var_r) {
                    // Every element in linear (row-major) order, as the type checker types `var`.
                    (Repr::Array(n, _), Repr::Num(m)) | (Repr::Fixed(n, _), Repr::Num(m)) => {
                        let x = super::expr::cast_num(*n, *m, quote!(__item), &rt);
                        let iter = if matches!(v.r, Repr::Array(..)) {
                            quote!(#items.to_vec()?)
                        } else {
                            quote!(#items)
                        };
                        quote!(for __item in #iter { #var_t = #x; #b })
                    }
                    _ => {
                        return Err(unsupported(
                            s.span,
                            "`for` over these values",
                            "loop over a range (`for i = 0..n-1`) or over the elements of an array",
                        ))
                    }
                }
            }
            StmtKind::While { cond, body } => {
                let c = self.truthy(cond)?;
                self.loop_depth += 1;
                let b = self.block(body);
                self.loop_depth -= 1;
                let b = b?;
                quote!(while #c { #b })
            }
            StmtKind::Repeat { body, until } => {
                self.loop_depth += 1;
                let b = self.block(body);
                self.loop_depth -= 1;
                let b = b?;
                let c = self.truthy(until)?;
                quote!(loop { #b if #c { break; } })
            }
            StmtKind::Break => quote!(break;),
            StmtKind::Continue => quote!(continue;),
            StmtKind::Return => {
                if self.ctx == Ctx::Kernel {
                    // A kernel thread that returns skips the rest of its body (only its own).
                    quote!(break '__thread;)
                } else {
                    let r = self.result_value();
                    quote!(return ::core::result::Result::Ok(#r);)
                }
            }
            StmtKind::Match { scrutinee, arms, default } => {
                let sv = self.expr(scrutinee)?;
                let sr = sv.r.clone();
                let st = sv.t;
                let mut chain = Vec::new();
                for arm in arms {
                    let mut conds = Vec::new();
                    for v in &arm.values {
                        let x = self.expr_as(v, &sr)?;
                        conds.push(quote!(__m == #x));
                    }
                    let b = self.block(&arm.body)?;
                    chain.push(quote!(if #(#conds)||* { #b }));
                }
                let d = match default {
                    Some(b) => self.block(b)?,
                    None => quote!(),
                };
                quote!({ let __m = #st; #(#chain else)* { #d } })
            }
            StmtKind::Try { body, catch_var, handler } => {
                if self.ctx != Ctx::Host {
                    return Err(unsupported(
                        s.span,
                        "`try`/`catch` inside kernel or device functions",
                        "put the `try` in host code around `parallel_do`",
                    ));
                }
                if contains_jump(body) {
                    return Err(unsupported(
                        s.span,
                        "`return`, `break` or `continue` inside `try`",
                        "set a variable in the `try` block and act on it after `end`",
                    ));
                }
                let b = self.block(body)?;
                let h = self.block(handler)?;
                let bind = match catch_var {
                    Some(v) => {
                        let t = self.local(*v);
                        match self.local_repr_checked(*v)? {
                            Repr::Str => quote!(#t = __e.to_string();),
                            _ => quote!(),
                        }
                    }
                    None => quote!(),
                };
                quote!({
                    let __r: #rt::run::Result<()> = (|| { #b ::core::result::Result::Ok(()) })();
                    if let ::core::result::Result::Err(__e) = __r { #bind #h }
                })
            }
            StmtKind::Print(items) => {
                let parts = self.show_parts(items)?;
                if self.ctx != Ctx::Host {
                    return Err(unsupported(
                        s.span,
                        "`print` inside kernel or device functions",
                        "write the values to an array argument and print them in host code",
                    ));
                }
                quote!({ #q::rt::print_line(&[#(&#parts as &dyn #q::rt::Show),*]); })
            }
            StmtKind::Error(items) => {
                let parts = self.show_parts(items)?;
                let loc = self.g.location(s.span);
                quote!(return ::core::result::Result::Err(#rt::run::Error::User {
                    message: #q::rt::format_parts(&[#(&#parts as &dyn #q::rt::Show),*]),
                    location: #loc,
                });)
            }
            StmtKind::Assert { cond, message } => {
                let c = self.truthy(cond)?;
                let text = if message.is_empty() {
                    let src = self
                        .g
                        .opts
                        .source_of(cond.span)
                        .get(cond.span.range())
                        .unwrap_or("condition")
                        .to_string();
                    quote!(::std::string::String::from(#src))
                } else {
                    let parts = self.show_parts(message)?;
                    quote!(#q::rt::format_parts(&[#(&#parts as &dyn #q::rt::Show),*]))
                };
                let loc = self.g.location(s.span);
                quote!(if !#c {
                    return ::core::result::Result::Err(#rt::run::Error::AssertionFailed {
                        condition: #text,
                        location: #loc,
                    });
                })
            }
            StmtKind::SyncThreads => {
                return Err(unsupported(
                    s.span,
                    "`syncthreads` outside a kernel body (or inside a branch of one)",
                    "call `syncthreads` at the top level of a kernel body, or in a `for` range or \
                     `while` loop there",
                ))
            }
        })
    }

    pub(super) fn show_parts(&mut self, items: &[Expr]) -> GResult<Vec<TokenStream>> {
        let mut out = Vec::new();
        for it in items {
            let v = self.expr(it)?;
            if matches!(v.r, Repr::Class(_) | Repr::Obj(_) | Repr::Ptr(_)) {
                out.push(self.show_class(v, it.span)?);
                continue;
            }
            if matches!(v.r, Repr::Tuple(_) | Repr::Unit | Repr::FnVal(_) | Repr::View(..)) {
                return Err(unsupported(
                    it.span,
                    "printing this value",
                    "print numbers, strings and arrays; print the results of a function one by one",
                ));
            }
            out.push(v.t);
        }
        Ok(out)
    }

    /// `place op= value` as a statement.
    pub fn assign(
        &mut self,
        place: &Place,
        op: AssignOp,
        value: &Expr,
        span: Span,
    ) -> GResult<TokenStream> {
        match &place.kind {
            PlaceKind::Local(id) => {
                let target = self.local_repr_checked(*id)?;
                let t = self.local(*id);
                if let Some(&k) = self.outputs.get(id) {
                    return self.output_assign(k, &target, op, value, span);
                }
                if op == AssignOp::Assign {
                    if let Some(t) = self.heap_assign(*id, value, span)? {
                        return Ok(t);
                    }
                }
                let rhs = match binary_of(op) {
                    None => self.expr_as(value, &target)?,
                    Some(bop) => {
                        let read = Expr::new(ExprKind::Local(*id), place.ty.clone(), span);
                        self.compound_local(op, bop, read, value, &target, span)?
                    }
                };
                Ok(quote!(#t = #rhs;))
            }
            PlaceKind::Index { base, indices } => {
                self.index_write(base, indices, op, value, &place.ty, place.span, place.id)
            }
            PlaceKind::Field { base, field } => {
                self.field_write(base, field, op, value, &place.ty, span)
            }
        }
    }

    /// The new value of a local updated by `op=` (`read` is the local, `value` the operand).
    fn compound_local(
        &mut self,
        op: AssignOp,
        bop: BinaryOp,
        read: Expr,
        value: &Expr,
        target: &Repr,
        span: Span,
    ) -> GResult<TokenStream> {
        let rt = self.g.rt.clone();
        match op {
            AssignOp::Max | AssignOp::Min => {
                let n = target.num().unwrap_or(Num::F32);
                let a = self.expr_as(&read, &Repr::Num(n))?;
                let b = self.expr_as(value, &Repr::Num(n))?;
                let f = if op == AssignOp::Max { quote!(max) } else { quote!(min) };
                Ok(quote!(#rt::qstd::rt::#f(#a, #b)))
            }
            AssignOp::Xor | AssignOp::Or | AssignOp::And => {
                let n = target.num().filter(|n| n.is_int()).ok_or_else(|| {
                    unsupported(
                        span,
                        "bitwise compound assignment on non-integers",
                        "convert to an integer first, e.g. `x = int(x)`",
                    )
                })?;
                let a = self.expr_as(&read, &Repr::Num(n))?;
                let b = self.expr_as(value, &Repr::Num(n))?;
                Ok(match op {
                    AssignOp::Xor => quote!((#a ^ #b)),
                    AssignOp::Or => quote!((#a | #b)),
                    _ => quote!((#a & #b)),
                })
            }
            _ => {
                let ty = read.ty.clone();
                let e = Expr::new(
                    ExprKind::Binary { op: bop, lhs: Box::new(read), rhs: Box::new(value.clone()) },
                    ty,
                    span,
                );
                self.expr_as(&e, target)
            }
        }
    }

    /// An assignment to a kernel output argument: combined into the block's slot.
    fn output_assign(
        &mut self,
        k: usize,
        target: &Repr,
        op: AssignOp,
        value: &Expr,
        span: Span,
    ) -> GResult<TokenStream> {
        let n = target.num().ok_or_else(|| {
            unsupported(span, "this kernel output", "make the output a number (`int` or `scalar`)")
        })?;
        let rt = self.g.rt.clone();
        let nt = n.tokens(&rt);
        let v = self.num_as(value, n)?;
        let combine = match op {
            AssignOp::Add => quote!(__o.get() + __v),
            AssignOp::Mul => quote!(__o.get() * __v),
            AssignOp::Max => quote!(#rt::qstd::rt::max(__o.get(), __v)),
            AssignOp::Min => quote!(#rt::qstd::rt::min(__o.get(), __v)),
            // `y = v` and `y |= v` combine as the launch's `Reduce` does across blocks (an
            // assigned non-zero value wins, bits are or-ed), so one rule holds on every device.
            AssignOp::Assign | AssignOp::Or => {
                let red = if op == AssignOp::Or {
                    quote!(#rt::run::Reduce::BitOr)
                } else {
                    quote!(#rt::run::Reduce::Assign)
                };
                quote!(<#nt as #rt::run::Reducible>::combine(#red, __o.get(), __v).unwrap_or(__v))
            }
            _ => {
                return Err(unsupported(
                    span,
                    "this assignment to a kernel output",
                    "assign it (`y = 1`) or accumulate into it with `+=`, `*=`, `^^=` (maximum), `__=` (minimum) or `|=`",
                ))
            }
        };
        let slot = if self.row_outputs {
            let acc = format_ident!("__out{}", k);
            if self.laned.contains(&k) {
                quote!(#acc.at(__l))
            } else {
                quote!(&#acc)
            }
        } else {
            quote!(__ctx.output::<#nt>(#k)?)
        };
        Ok(quote!({ let __v: #nt = #v; let __o = #slot; __o.set(#combine); }))
    }

    fn destructure(
        &mut self,
        places: &[Option<Place>],
        value: &Expr,
        span: Span,
    ) -> GResult<TokenStream> {
        let v = match &value.kind {
            // `[A, B] = load(file)`: as many `??` values as there are targets.
            ExprKind::Call { callee: Callee::Builtin(Builtin::Load), args } if args.len() == 1 => {
                let rt = self.g.rt.clone();
                let p = self.expr_as(&args[0], &Repr::Str)?;
                let n = places.len();
                let t = quote!(#rt::qstd::files::load_n(&#p, #n)?);
                // A `Vec<Value>`, indexed below.
                V { t, r: Repr::Value }
            }
            _ => self.expr(value)?,
        };
        let loaded =
            matches!(&value.kind, ExprKind::Call { callee: Callee::Builtin(Builtin::Load), .. });
        let mut out = Vec::new();
        let vt = v.t;
        out.push(quote!(let __d = #vt;));
        for (i, p) in places.iter().enumerate() {
            let Some(p) = p else { continue };
            let (elem_t, elem_r) = match &v.r {
                _ if loaded => (quote!(__d[#i].clone()), Repr::Value),
                Repr::Tuple(rs) => {
                    let ix = syn_index(i);
                    (
                        quote!(__d.#ix.clone()),
                        rs.get(i).cloned().ok_or_else(|| {
                            unsupported(span, "too many targets", "give one target per result")
                        })?,
                    )
                }
                Repr::Fixed(n, _) => (quote!(__d[#i]), Repr::Num(*n)),
                Repr::Array(n, _) => {
                    let k = i as i64;
                    let rt = self.g.rt.clone();
                    (
                        quote!(#rt::qstd::rt::get_elem(&__d, "value", &[#k], #rt::qstd::rt::Mode::Checked)?),
                        Repr::Num(*n),
                    )
                }
                // A cell vector (`[str, val] = {"String", value}`): its elements, checked
                // against the targets' types at run time.
                Repr::Value => {
                    let k = i as i64;
                    (self.vtry(quote!(__d.index(&[#k])), span), Repr::Value)
                }
                r if i == 0 => (quote!(__d), r.clone()),
                _ => {
                    return Err(unsupported(
                        span,
                        "destructuring this value",
                        "destructure the results of a call or a vector: `[a, b] = f(x)`",
                    ))
                }
            };
            let PlaceKind::Local(id) = &p.kind else {
                return Err(unsupported(
                    p.span,
                    "a destructuring target that is not a variable",
                    "destructure into variables, then assign them where they go",
                ));
            };
            let target = self.local_repr_checked(*id)?;
            let t = self.local(*id);
            let x = self.convert(V { t: elem_t, r: elem_r }, &target, p.span)?;
            out.push(quote!(#t = #x;));
        }
        Ok(quote!({ #(#out)* }))
    }

    fn for_range(
        &mut self,
        var: crate::ir::LocalId,
        start: &Expr,
        step: &Expr,
        end: &Expr,
        body: &Block,
        span: Span,
    ) -> GResult<TokenStream> {
        self.loop_depth += 1;
        let b = self.block(body);
        self.loop_depth -= 1;
        let b = b?;
        self.for_range_with(var, start, step, end, b, span)
    }

    /// A `for var = start..step..end` loop around the already generated body `b`.
    pub fn for_range_with(
        &mut self,
        var: crate::ir::LocalId,
        start: &Expr,
        step: &Expr,
        end: &Expr,
        b: TokenStream,
        span: Span,
    ) -> GResult<TokenStream> {
        let rt = self.g.rt.clone();
        let var_r = self.local_repr_checked(var)?;
        let Repr::Num(n) = var_r else {
            return Err(unsupported(
                span,
                "a `for` variable that is not a number",
                "loop over a range of numbers",
            ));
        };
        let v = self.local(var);
        let s = self.num_as(start, n)?;
        let e = self.num_as(end, n)?;
        let step_const = match step.constant() {
            Some(Const::Int(i)) => Some(*i as f64),
            Some(Const::Scalar(f)) => Some(*f),
            _ => None,
        };
        if n.is_int() && step_const == Some(1.0) {
            let w = if n == Num::I64 || n == Num::U64 { quote!(i128) } else { quote!(i64) };
            let nt = n.tokens(&rt);
            // A Rust range loop: LLVM knows the trip count (unrolls short constant loops).
            // An exclusive range (`..=` unrolls and vectorises worse); no overflow in #w.
            return Ok(quote!(for __i in (#s as #w)..(#e as #w + 1) { #v = __i as #nt; #b }));
        }
        let st = self.num_as(step, n)?;
        if n.is_int() {
            let nt = n.tokens(&rt);
            Ok(quote!({
                let (__s, __st, __e) = (#s as i128, #st as i128, #e as i128);
                if __st == 0 {
                    return ::core::result::Result::Err(#rt::run::Error::Unsupported(::std::string::String::from("a `for` loop with step 0")));
                }
                let mut __i = __s;
                while (__st > 0 && __i <= __e) || (__st < 0 && __i >= __e) {
                    #v = __i as #nt;
                    __i += __st;
                    #b
                }
            }))
        } else if n.is_float() {
            let nt = n.tokens(&rt);
            // `a..s..b` on scalars: floor((b - a)/s) + 1 values a + k s (no accumulated error).
            Ok(quote!({
                let (__s, __st, __e): (#nt, #nt, #nt) = (#s, #st, #e);
                let __n = ((__e - __s) / __st).floor();
                let __n: i64 = if __n >= 0.0 { __n as i64 + 1 } else { 0 };
                for __k in 0..__n {
                    #v = __s + (__k as #nt) * __st;
                    #b
                }
            }))
        } else {
            Err(unsupported(
                span,
                "a `for` loop over complex numbers",
                "loop over an integer range and compute the complex value in the body",
            ))
        }
    }

    /// Reads a place's current value (for assignments used as values).
    pub fn place_read(&mut self, place: &Place) -> GResult<V> {
        match &place.kind {
            PlaceKind::Local(id) => Ok(self.read_local(*id)),
            PlaceKind::Index { base, indices } => {
                let r = self.repr_of(&place.ty, place.span)?;
                self.index_read(base, indices, r, place.span, place.id)
            }
            PlaceKind::Field { base, field } => self.field_read(base, field, place.span),
        }
    }
}

/// The operator of a compound assignment (the IR's [`AssignOp::binary`]); the atomic-only
/// forms, handled separately, give `+`.
pub(crate) fn binary_of(op: AssignOp) -> Option<BinaryOp> {
    match op {
        AssignOp::Max | AssignOp::Min | AssignOp::Xor | AssignOp::Or | AssignOp::And => {
            Some(BinaryOp::Add)
        }
        _ => op.binary(),
    }
}

fn contains_jump(b: &Block) -> bool {
    b.iter().any(|s| match &s.kind {
        StmtKind::Return | StmtKind::Break | StmtKind::Continue => true,
        StmtKind::If { then_body, else_body, .. } => {
            contains_jump(then_body) || contains_jump(else_body)
        }
        StmtKind::Match { arms, default, .. } => {
            arms.iter().any(|a| contains_jump(&a.body))
                || default.as_ref().is_some_and(contains_jump)
        }
        StmtKind::Try { body, handler, .. } => contains_jump(body) || contains_jump(handler),
        // A jump inside a nested loop stays in that loop, except `return`.
        StmtKind::ForRange { body, .. }
        | StmtKind::ForEach { body, .. }
        | StmtKind::While { body, .. }
        | StmtKind::Repeat { body, .. } => body.iter().any(|s| matches!(s.kind, StmtKind::Return)),
        _ => false,
    })
}
