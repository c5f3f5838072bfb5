//! Assigns [`NodeId`]s: every expression and place of a function body gets a distinct id, in
//! visiting order, starting at 1. Runs after type checking and after every pass that adds or
//! copies nodes, so that analyses can key their results by id.

use super::visit::{walk_expr_mut, walk_place_mut, VisitMut};
use super::{Expr, Function, Module, NodeId, Place};

/// Numbers every function of `module`.
pub fn number_module(module: &mut Module) {
    for f in &mut module.functions {
        number_function(f);
    }
}

/// Numbers the nodes of `f` from 1.
pub fn number_function(f: &mut Function) {
    let mut n = Numbering { next: 1 };
    n.visit_block_mut(&mut f.body);
}

struct Numbering {
    next: u32,
}

impl Numbering {
    fn fresh(&mut self) -> NodeId {
        let id = NodeId(self.next);
        self.next += 1;
        id
    }
}

impl VisitMut for Numbering {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        e.id = self.fresh();
        walk_expr_mut(self, e);
    }
    fn visit_place_mut(&mut self, p: &mut Place) {
        p.id = self.fresh();
        walk_place_mut(self, p);
    }
}
