//! The truth-value system behind `$check` and `$assump` (manual chapter 5): propositions
//! built from comparisons of a variable with a number, combined with `&&`, `||` and `!`,
//! decided over the real numbers against the assertions made before.

use std::fmt;

/// A comparison operator of an atom `var op c`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cmp {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

impl Cmp {
    fn negate(self) -> Cmp {
        match self {
            Cmp::Lt => Cmp::Ge,
            Cmp::Le => Cmp::Gt,
            Cmp::Gt => Cmp::Le,
            Cmp::Ge => Cmp::Lt,
            Cmp::Eq => Cmp::Ne,
            Cmp::Ne => Cmp::Eq,
        }
    }

    /// The operator with its operands swapped (`c < v` is `v > c`).
    pub fn flip(self) -> Cmp {
        match self {
            Cmp::Lt => Cmp::Gt,
            Cmp::Le => Cmp::Ge,
            Cmp::Gt => Cmp::Lt,
            Cmp::Ge => Cmp::Le,
            c => c,
        }
    }

    fn text(self) -> &'static str {
        match self {
            Cmp::Lt => "<",
            Cmp::Le => "<=",
            Cmp::Gt => ">",
            Cmp::Ge => ">=",
            Cmp::Eq => "==",
            Cmp::Ne => "!=",
        }
    }
}

/// A proposition over named variables.
#[derive(Clone, Debug, PartialEq)]
pub enum Prop {
    /// `var op c` (written `c op' var` when `right`).
    Cmp {
        var: String,
        op: Cmp,
        c: f64,
        right: bool,
    },
    /// `type(var, "T")`: the type predicate of a declared variable (always true here).
    Type {
        var: String,
        ty: String,
    },
    And(Box<Prop>, Box<Prop>),
    Or(Box<Prop>, Box<Prop>),
    Not(Box<Prop>),
    Const(bool),
}

/// The answer of `$check`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Truth {
    Valid,
    Satisfiable,
    Unsatisfiable,
}

impl Truth {
    pub fn text(self) -> &'static str {
        match self {
            Truth::Valid => "Valid",
            Truth::Satisfiable => "Satisfiable",
            Truth::Unsatisfiable => "Unsatisfiable",
        }
    }
}

/// More disjuncts than this are not expanded: the answer is then "Satisfiable".
const MAX_TERMS: usize = 4096;

impl Prop {
    /// The conjuncts of `self` (`a && b && c` gives three).
    pub fn conjuncts(&self) -> Vec<&Prop> {
        match self {
            Prop::And(a, b) => {
                let mut v = a.conjuncts();
                v.extend(b.conjuncts());
                v
            }
            p => vec![p],
        }
    }

    /// Whether `var` occurs in `self`.
    pub fn mentions(&self, name: &str) -> bool {
        match self {
            Prop::Cmp { var, .. } | Prop::Type { var, .. } => var == name,
            Prop::And(a, b) | Prop::Or(a, b) => a.mentions(name) || b.mentions(name),
            Prop::Not(a) => a.mentions(name),
            Prop::Const(_) => false,
        }
    }

    /// `self` with the variable `from` renamed to `to` (`$subs(a=b, …)`).
    pub fn rename(&self, from: &str, to: &str) -> Prop {
        let name = |v: &String| if v == from { to.to_string() } else { v.clone() };
        match self {
            Prop::Cmp { var, op, c, right } => {
                Prop::Cmp { var: name(var), op: *op, c: *c, right: *right }
            }
            Prop::Type { var, ty } => Prop::Type { var: name(var), ty: ty.clone() },
            Prop::And(a, b) => {
                Prop::And(Box::new(a.rename(from, to)), Box::new(b.rename(from, to)))
            }
            Prop::Or(a, b) => Prop::Or(Box::new(a.rename(from, to)), Box::new(b.rename(from, to))),
            Prop::Not(a) => Prop::Not(Box::new(a.rename(from, to))),
            Prop::Const(b) => Prop::Const(*b),
        }
    }

    /// The disjunctive normal form of `self` (negated when `neg`): a list of conjunctions of
    /// comparisons, or `None` when it grows past `MAX_TERMS`.
    fn dnf(&self, neg: bool) -> Option<Vec<Vec<(String, Cmp, f64)>>> {
        Some(match (self, neg) {
            (Prop::Cmp { var, op, c, .. }, _) => {
                vec![vec![(var.clone(), if neg { op.negate() } else { *op }, *c)]]
            }
            (Prop::Type { .. }, false) => vec![vec![]],
            (Prop::Type { .. }, true) => vec![],
            (Prop::Const(b), _) => {
                if *b != neg {
                    vec![vec![]]
                } else {
                    vec![]
                }
            }
            (Prop::Not(a), _) => a.dnf(!neg)?,
            (Prop::And(a, b), false) | (Prop::Or(a, b), true) => {
                let (x, y) = (a.dnf(neg)?, b.dnf(neg)?);
                if x.len().saturating_mul(y.len()) > MAX_TERMS {
                    return None;
                }
                x.iter()
                    .flat_map(|l| y.iter().map(move |r| [l.clone(), r.clone()].concat()))
                    .collect()
            }
            (Prop::Or(a, b), false) | (Prop::And(a, b), true) => {
                let mut x = a.dnf(neg)?;
                x.extend(b.dnf(neg)?);
                if x.len() > MAX_TERMS {
                    return None;
                }
                x
            }
        })
    }
}

/// Whether some real values of the variables satisfy all of `facts` and `p` (negated when
/// `neg`). Too large a proposition counts as satisfiable.
fn satisfiable(facts: &[Prop], p: &Prop, neg: bool) -> bool {
    let all = facts
        .iter()
        .cloned()
        .fold(if neg { Prop::Not(Box::new(p.clone())) } else { p.clone() }, |acc, f| {
            Prop::And(Box::new(f), Box::new(acc))
        });
    match all.dnf(false) {
        Some(terms) => terms.iter().any(|t| term_satisfiable(t)),
        None => true,
    }
}

/// Whether a conjunction of comparisons has a solution: per variable, an interval less
/// finitely many excluded points.
fn term_satisfiable(term: &[(String, Cmp, f64)]) -> bool {
    let mut vars: Vec<&str> = term.iter().map(|(v, ..)| v.as_str()).collect();
    vars.sort_unstable();
    vars.dedup();
    vars.iter().all(|v| {
        // Bounds as (value, inclusive).
        let (mut lo, mut hi) = ((f64::NEG_INFINITY, false), (f64::INFINITY, false));
        let mut excluded = Vec::new();
        for (_, op, c) in term.iter().filter(|(w, ..)| w == v) {
            let c = *c;
            let raise = |lo: &mut (f64, bool), b: (f64, bool)| {
                if b.0 > lo.0 || (b.0 == lo.0 && !b.1) {
                    *lo = b;
                }
            };
            let lower = |hi: &mut (f64, bool), b: (f64, bool)| {
                if b.0 < hi.0 || (b.0 == hi.0 && !b.1) {
                    *hi = b;
                }
            };
            match op {
                Cmp::Gt => raise(&mut lo, (c, false)),
                Cmp::Ge => raise(&mut lo, (c, true)),
                Cmp::Lt => lower(&mut hi, (c, false)),
                Cmp::Le => lower(&mut hi, (c, true)),
                Cmp::Eq => {
                    raise(&mut lo, (c, true));
                    lower(&mut hi, (c, true));
                }
                Cmp::Ne => excluded.push(c),
            }
        }
        match lo.0.partial_cmp(&hi.0) {
            Some(std::cmp::Ordering::Less) => true,
            Some(std::cmp::Ordering::Equal) => lo.1 && hi.1 && !excluded.contains(&lo.0),
            _ => false,
        }
    })
}

/// `$check(p)` given the assertions `facts`.
pub fn check(facts: &[Prop], p: &Prop) -> Truth {
    if !satisfiable(facts, p, false) {
        Truth::Unsatisfiable
    } else if !satisfiable(facts, p, true) {
        Truth::Valid
    } else {
        Truth::Satisfiable
    }
}

impl fmt::Display for Prop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Prop::Cmp { var, op, c, right: false } => write!(f, "({var}{}{c})", op.text()),
            Prop::Cmp { var, op, c, right: true } => write!(f, "({c}{}{var})", op.flip().text()),
            Prop::Type { var, ty } => write!(f, "type({var},\"{ty}\")"),
            Prop::And(a, b) => write!(f, "({a} && {b})"),
            Prop::Or(a, b) => write!(f, "({a} || {b})"),
            Prop::Not(a) => write!(f, "!{a}"),
            Prop::Const(b) => write!(f, "{}", *b as i32),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(var: &str, op: Cmp, c: f64) -> Prop {
        Prop::Cmp { var: var.into(), op, c, right: false }
    }
    fn and(a: Prop, b: Prop) -> Prop {
        Prop::And(Box::new(a), Box::new(b))
    }
    fn or(a: Prop, b: Prop) -> Prop {
        Prop::Or(Box::new(a), Box::new(b))
    }

    #[test]
    fn equalities_decide_conjunctions_and_disjunctions() {
        let facts = [and(c("a", Cmp::Eq, 4.0), c("b", Cmp::Eq, 6.0))];
        assert_eq!(check(&facts, &c("a", Cmp::Eq, 5.0)), Truth::Unsatisfiable);
        assert_eq!(check(&facts, &c("a", Cmp::Eq, 4.0)), Truth::Valid);
        assert_eq!(check(&facts, &c("b", Cmp::Ne, 6.0)), Truth::Unsatisfiable);
        assert_eq!(check(&facts, &or(c("a", Cmp::Eq, 4.0), c("b", Cmp::Eq, 7.0))), Truth::Valid);
        assert_eq!(
            check(&facts, &or(c("a", Cmp::Eq, 3.0), c("b", Cmp::Eq, 5.0))),
            Truth::Unsatisfiable
        );
        assert_eq!(check(&[], &c("a", Cmp::Eq, 5.0)), Truth::Satisfiable);
    }

    #[test]
    fn inequalities_are_decided_over_the_reals() {
        let facts = [and(c("a", Cmp::Gt, 2.0), c("a", Cmp::Lt, 4.0))];
        assert_eq!(check(&facts, &c("a", Cmp::Gt, 1.0)), Truth::Valid);
        assert_eq!(check(&facts, &c("a", Cmp::Gt, 3.0)), Truth::Satisfiable);
        assert_eq!(check(&facts, &c("a", Cmp::Le, 2.0)), Truth::Unsatisfiable);
        assert_eq!(check(&facts, &c("a", Cmp::Ge, 2.0)), Truth::Valid);
        assert_eq!(check(&facts, &Prop::Not(Box::new(c("a", Cmp::Gt, 3.0)))), Truth::Satisfiable);
        // A point interval with the point excluded is empty.
        let point = [c("x", Cmp::Ge, 1.0), c("x", Cmp::Le, 1.0)];
        assert_eq!(check(&point, &c("x", Cmp::Ne, 1.0)), Truth::Unsatisfiable);
    }

    #[test]
    fn renaming_and_printing() {
        let zero_le = Prop::Cmp { var: "a".into(), op: Cmp::Ge, c: 0.0, right: true };
        let p = and(Prop::Type { var: "a".into(), ty: "int".into() }, zero_le);
        let q = p.rename("a", "b");
        assert!(q.mentions("b") && !q.mentions("a"));
        assert_eq!(q.to_string(), "(type(b,\"int\") && (0<=b))");
    }
}
