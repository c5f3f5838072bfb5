//! Facts about subscript lists that both back ends need for slices inside kernels
//! (`x[i, j, 0..2]`).

use super::{Const, Expr, Index};

/// Whether `indices` hold a slice (a range, `:` or a list).
pub fn is_slice(indices: &[Index]) -> bool {
    indices.iter().any(|i| matches!(i, Index::All | Index::Range { .. } | Index::List(_)))
}

/// The number of elements of the range `a..s..b` among `indices` when `a`, `s` and `b` are
/// constants (`y[…, 3..4] = 7` assigns a number to that many elements).
pub fn constant_range_len(indices: &[Index]) -> Option<usize> {
    indices.iter().find_map(|i| match i {
        Index::Range { start, step, end } => {
            let (_, _, n) = constant_range(start, step.as_deref(), end)?;
            (n > 0).then_some(n as usize)
        }
        _ => None,
    })
}

/// The values of a range expression `a..s..b` whose bounds and step are constants
/// (`size(x, 0..1)` in a kernel), at most 64 of them.
pub fn constant_range_values(e: &Expr) -> Option<Vec<i64>> {
    let super::ExprKind::Range { start, step, end } = &e.kind else { return None };
    let (a, s, n) = constant_range(start, step.as_deref(), end)?;
    (1..=64).contains(&n).then(|| (0..n).map(|k| a + k * s).collect())
}

/// The first value, the step and the number of values of `a..s..b` with constant `a`, `s`
/// (1 when not written) and `b`.
fn constant_range(start: &Expr, step: Option<&Expr>, end: &Expr) -> Option<(i64, i64, i64)> {
    let (Some(Const::Int(a)), Some(Const::Int(b))) = (start.constant(), end.constant()) else {
        return None;
    };
    let s = match step.map(Expr::constant) {
        None => 1,
        Some(Some(Const::Int(s))) if *s != 0 => *s,
        _ => return None,
    };
    // Empty when the end lies before the start in the step's direction (`0..3..-2`).
    let n = if (s > 0 && b < a) || (s < 0 && b > a) { 0 } else { (b - a) / s + 1 };
    Some((*a, s, n))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::ExprKind;
    use crate::sema::types::Type;
    use crate::span::Span;

    fn range(a: i64, s: Option<i64>, b: i64) -> Expr {
        let int =
            |v| Box::new(Expr::new(ExprKind::Const(Const::Int(v)), Type::INT, Span::default()));
        let kind = ExprKind::Range { start: int(a), step: s.map(int), end: int(b) };
        Expr::new(kind, Type::vec(Type::INT), Span::default())
    }

    #[test]
    fn constant_ranges_list_their_values_and_empty_ones_none() {
        assert_eq!(constant_range_values(&range(0, None, 3)), Some(vec![0, 1, 2, 3]));
        assert_eq!(constant_range_values(&range(8, Some(-3), 0)), Some(vec![8, 5, 2]));
        // The end before the start in the step's direction: empty, not one element.
        assert_eq!(constant_range_values(&range(0, Some(3), -2)), None);
        assert_eq!(constant_range_values(&range(0, None, 64)), None);
    }
}
