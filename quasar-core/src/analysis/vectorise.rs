//! Whether the CPU loop over a kernel's positions can vectorise, which decides whether the
//! CPU back end compiles its hot loop for AVX2+FMA (`backend/rust/versions.rs`). Each such copy costs the user's crate as much compile time as
//! the loop itself (issue 19), so a kernel gets them only where they can pay.
//!
//! LLVM vectorises innermost loops. The loop over positions is innermost when every loop in
//! the per-position code is unrolled away: a `for` with a small constant trip count (a 3x3
//! stencil's taps). A loop that stays (a trip count known only at run time, `while`,
//! `repeat`) is innermost instead, and when it carries a floating-point value from one
//! iteration to the next (`acc += x[…] * w[i]`), it cannot vectorise either: without
//! fast-math LLVM does not reorder floating-point additions. Such a kernel runs scalar code in
//! every version, and the copies buy nothing, unless the back end runs its positions in
//! lockstep ([`lockstep`](super::lockstep): strips vectorise across positions). Any other
//! inner loop (an integer sum, an element-wise loop over a row) may vectorise itself, so the
//! copies stay.

use super::transfers::mentions_expr;
use crate::ir::visit::{walk_expr, walk_stmt, Visit};
use crate::ir::{
    AssignOp, BinaryOp, Callee, Const, Expr, ExprKind, Function, FunctionId, Module, PlaceKind,
    Stmt, StmtKind, UnaryOp,
};
use crate::sema::types::Type;

/// Trip counts up to this are taken as unrolled away (LLVM unrolls a 7x7 stencil's loops
/// fully at `opt-level = 3`; a larger constant loop may stay).
const UNROLLED: i64 = 16;

/// Whether the loop over `id`'s positions may vectorise: false when its body (or a function
/// it calls) holds a loop that stays a loop and carries a floating-point value.
pub fn positions_vectorise(m: &Module, id: FunctionId) -> bool {
    let mut scan = Scan { m, serial: false, seen: vec![id] };
    scan.visit_block(&m.function(id).body);
    !scan.serial
}

struct Scan<'m> {
    m: &'m Module,
    /// A serial loop was found.
    serial: bool,
    /// The functions scanned (recursion stops here).
    seen: Vec<FunctionId>,
}

impl<'a> Visit<'a> for Scan<'a> {
    fn visit_stmt(&mut self, s: &'a Stmt) {
        if self.serial {
            return;
        }
        let f = self.current();
        if loop_stays(s) && carries_float(f, s) {
            self.serial = true;
            return;
        }
        walk_stmt(self, s);
    }

    fn visit_expr(&mut self, e: &'a Expr) {
        if let ExprKind::Call { callee: Callee::Function(g), .. } = &e.kind {
            if !self.seen.contains(g) {
                self.seen.push(*g);
                let body = &self.m.function(*g).body;
                self.visit_block(body);
                self.seen.pop();
            }
        }
        walk_expr(self, e);
    }
}

impl<'a> Scan<'a> {
    /// The function whose statements are being scanned (the innermost call).
    fn current(&self) -> &'a Function {
        self.m.function(*self.seen.last().expect("the kernel itself is always seen"))
    }
}

/// Whether `s` is a loop that stays a loop in the compiled code: any loop but a `for` with a
/// small constant trip count (unrolled away).
pub(super) fn loop_stays(s: &Stmt) -> bool {
    match &s.kind {
        StmtKind::ForRange { start, step, end, .. } => {
            match (const_int(start), const_int(step), const_int(end)) {
                (Some(a), Some(st), Some(b)) if st != 0 => (b - a) / st + 1 > UNROLLED,
                _ => true,
            }
        }
        StmtKind::ForEach { .. } | StmtKind::While { .. } | StmtKind::Repeat { .. } => true,
        _ => false,
    }
}

/// Whether loop `s` updates a floating-point local from its own value: `x op= …`, or
/// `x = …` where the value reads `x`.
fn carries_float(f: &Function, s: &Stmt) -> bool {
    let mut found = false;
    crate::ir::walk::walk_block(
        std::slice::from_ref(s),
        &mut |s| {
            if let StmtKind::Assign { place, op, value } = &s.kind {
                if let PlaceKind::Local(l) = place.kind {
                    let float = matches!(f.local(l).ty.elem(), Type::Scalar(_) | Type::Complex(_));
                    found |= float && (*op != AssignOp::Assign || mentions_expr(value, l));
                }
            }
        },
        &mut |_| {},
    );
    found
}

/// An integer constant expression's value (`-1`, `2 * 3 + 1`).
fn const_int(e: &Expr) -> Option<i64> {
    match &e.kind {
        ExprKind::Const(Const::Int(v)) => Some(*v),
        ExprKind::Convert(x) => const_int(x),
        ExprKind::Unary { op: UnaryOp::Neg, operand } => const_int(operand)?.checked_neg(),
        ExprKind::Unary { op: UnaryOp::Plus, operand } => const_int(operand),
        ExprKind::Binary { op, lhs, rhs } => {
            let (a, b) = (const_int(lhs)?, const_int(rhs)?);
            match op {
                BinaryOp::Add => a.checked_add(b),
                BinaryOp::Sub => a.checked_sub(b),
                BinaryOp::Mul | BinaryOp::ElemMul => a.checked_mul(b),
                _ => None,
            }
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::sema::check::check_program;
    use crate::{syntax, FileId};

    /// Whether kernel `name` of `src` vectorises.
    fn vectorises(src: &str, name: &str) -> bool {
        let parsed = syntax::parse(src, FileId(0));
        let checked = check_program(&parsed.program);
        assert!(!checked.has_errors(), "{:?}", checked.diagnostics);
        let m = checked.module;
        let id = m.functions.iter().position(|f| f.name == name).expect("the kernel");
        positions_vectorise(&m, FunctionId(id as u32))
    }

    #[test]
    fn a_runtime_tap_loop_with_a_float_sum_is_serial() {
        let src = "function [] = __kernel__ blur(x : mat, y : mat, w : vec, pos : ivec2)
            acc = 0.0
            for i = 0..numel(w) - 1
                acc += x[pos + [0, i]] * w[i]
            endfor
            y[pos] = acc
        endfunction";
        assert!(!vectorises(src, "blur"));
        // The same through `acc = acc + …`, and in a device function the kernel calls.
        let src2 = "function a : scalar = __device__ taps(x : mat, w : vec, pos : ivec2)
            a = 0.0
            for i = 0..numel(w) - 1
                a = a + x[pos + [0, i]] * w[i]
            endfor
        endfunction
        function [] = __kernel__ blur(x : mat, y : mat, w : vec, pos : ivec2)
            y[pos] = taps(x, w, pos)
        endfunction";
        assert!(!vectorises(src2, "blur"));
        let src3 = "function [] = __kernel__ iterate(y : mat, pos : ivec2)
            z = 0.0
            while z < 4.0
                z = z * z + 0.5
            endwhile
            y[pos] = z
        endfunction";
        assert!(!vectorises(src3, "iterate"));
    }

    #[test]
    fn unrolled_taps_integer_sums_and_straight_code_vectorise() {
        let src = "function [] = __kernel__ box(x : mat'clamped, y : mat, pos : ivec2)
            acc = 0.0
            for dy = -1..1
                for dx = -1..1
                    acc += x[pos + [dy, dx]]
                endfor
            endfor
            y[pos] = acc / 9
        endfunction";
        assert!(vectorises(src, "box"));
        let src2 = "function [] = __kernel__ count(x : mat, y : mat, n : int, pos : ivec2)
            c = 0
            for i = 0..n - 1
                c += i
            endfor
            y[pos] = x[pos] + c
        endfunction";
        assert!(vectorises(src2, "count"));
        let src3 = "function [] = __kernel__ gamma(x : mat, y : mat, pos : ivec2)
            y[pos] = x[pos] ^ 0.45
        endfunction";
        assert!(vectorises(src3, "gamma"));
    }
}
