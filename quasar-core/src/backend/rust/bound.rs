//! Loop-invariant integer bounds for boundary-check elimination ([`super::interior`]): a
//! constant plus multiples of values that do not change during a launch (integer parameters
//! and captures never assigned, `numel(v)` and `size(v, d)` of a view). A filter radius passed
//! as a parameter (`x[pos + [0, i - n]]` for `i = 0..2n`) so gets an interior as a constant
//! one does; the kernel evaluates the bounds once per block.

use crate::ir::LocalId;
use proc_macro2::{Ident, TokenStream};
use quote::quote;

/// A value fixed for the whole launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Term {
    /// An integer parameter or capture that the kernel never assigns.
    Local(LocalId),
    /// `numel(v)` of a view.
    Numel(LocalId),
    /// `size(v, d)` of a view.
    Size(LocalId, usize),
}

/// `c + Σ k·term`, terms sorted and merged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Bound {
    pub c: i64,
    pub terms: Vec<(i64, Term)>,
}

impl Bound {
    pub fn constant(c: i64) -> Bound {
        Bound { c, terms: Vec::new() }
    }

    pub fn term(t: Term) -> Bound {
        Bound { c: 0, terms: vec![(1, t)] }
    }

    /// `self + k·other`, or `None` on overflow.
    pub fn add_scaled(&self, other: &Bound, k: i64) -> Option<Bound> {
        let mut terms = self.terms.clone();
        for &(m, t) in &other.terms {
            let m = m.checked_mul(k)?;
            match terms.iter_mut().find(|(_, u)| *u == t) {
                Some(e) => e.0 = e.0.checked_add(m)?,
                None => terms.push((m, t)),
            }
        }
        terms.retain(|(m, _)| *m != 0);
        terms.sort_by_key(|&(_, t)| t);
        Some(Bound { c: self.c.checked_add(other.c.checked_mul(k)?)?, terms })
    }

    pub fn neg(&self) -> Option<Bound> {
        Bound::constant(0).add_scaled(self, -1)
    }

    /// The bound as an `i64` expression of the block function, where `names` are the locals'
    /// Rust names (parameters and views are bound before the position loops).
    pub fn tokens(&self, names: &[Ident]) -> TokenStream {
        let c = self.c;
        let terms = self.terms.iter().map(|&(k, t)| {
            let v = match t {
                Term::Local(l) => {
                    let n = &names[l.0 as usize];
                    quote!((#n as i64))
                }
                Term::Numel(l) => {
                    let n = &names[l.0 as usize];
                    quote!((#n.numel() as i64))
                }
                Term::Size(l, d) => {
                    let n = &names[l.0 as usize];
                    quote!((#n.dim(#d) as i64))
                }
            };
            quote!(+ (#k) * #v)
        });
        quote!(((#c) #(#terms)*))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_merge_and_cancel_terms() {
        let n = Bound::term(Term::Local(LocalId(3)));
        let m = Bound::term(Term::Numel(LocalId(1)));
        // (numel - 1 - n) - (-n) = numel - 1
        let hi = m.add_scaled(&Bound::constant(-1), 1).unwrap().add_scaled(&n, -1).unwrap();
        let lo = n.neg().unwrap();
        let d = hi.add_scaled(&lo, -1).unwrap();
        assert_eq!(d, Bound { c: -1, terms: vec![(1, Term::Numel(LocalId(1)))] });
        assert_eq!(n.add_scaled(&n, -1).unwrap(), Bound::constant(0));
        assert!(Bound::constant(i64::MAX).add_scaled(&Bound::constant(1), 1).is_none());
    }
}
