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
            let (Some(Const::Int(a)), Some(Const::Int(b))) = (start.constant(), end.constant())
            else {
                return None;
            };
            let s = match step.as_deref().map(Expr::constant) {
                None => 1,
                Some(Some(Const::Int(s))) if *s != 0 => *s,
                _ => return None,
            };
            let n = (b - a) / s + 1;
            (n > 0).then_some(n as usize)
        }
        _ => None,
    })
}

/// The values of a range expression `a..s..b` whose bounds and step are constants
/// (`size(x, 0..1)` in a kernel), at most 64 of them.
pub fn constant_range_values(e: &Expr) -> Option<Vec<i64>> {
    let super::ExprKind::Range { start, step, end } = &e.kind else { return None };
    let (Some(Const::Int(a)), Some(Const::Int(b))) = (start.constant(), end.constant()) else {
        return None;
    };
    let s = match step.as_deref().map(Expr::constant) {
        None => 1,
        Some(Some(Const::Int(s))) if *s != 0 => *s,
        _ => return None,
    };
    let n = (b - a) / s + 1;
    (1..=64).contains(&n).then(|| (0..n).map(|k| a + k * s).collect())
}
