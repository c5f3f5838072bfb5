//! Assigns [`NodeId`]s: every expression and place of a function body without one gets a
//! fresh id, unique in its function. Ids already given stay, so results keyed by them (the
//! interior partition of a kernel) survive later passes; a pass that copies a subtree clears
//! the copy's ids first ([`clear_ids`]), and the verifier rejects an id used twice.

use super::visit::{walk_expr, walk_expr_mut, walk_place, walk_place_mut, Visit, VisitMut};
use super::{Block, Expr, Function, Module, NodeId, Place};

/// Numbers every function of `module`.
pub fn number_module(module: &mut Module) {
    for f in &mut module.functions {
        number_function(f);
    }
}

/// Gives every node of `f` without an id a fresh one (after the largest id in use).
pub fn number_function(f: &mut Function) {
    let mut max = MaxId(0);
    max.visit_block(&f.body);
    Numbering { next: max.0 + 1 }.visit_block_mut(&mut f.body);
}

/// Clears the ids of a copied subtree, so that numbering gives it new ones.
pub fn clear_ids(b: &mut Block) {
    Clear.visit_block_mut(b);
}

struct Clear;

impl VisitMut for Clear {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        e.id = NodeId::NONE;
        walk_expr_mut(self, e);
    }
    fn visit_place_mut(&mut self, p: &mut Place) {
        p.id = NodeId::NONE;
        walk_place_mut(self, p);
    }
}

/// [`clear_ids`] of one expression.
pub fn clear_expr_ids(e: &mut Expr) {
    Clear.visit_expr_mut(e);
}

struct MaxId(u32);

impl<'a> Visit<'a> for MaxId {
    fn visit_expr(&mut self, e: &'a Expr) {
        self.0 = self.0.max(e.id.0);
        walk_expr(self, e);
    }
    fn visit_place(&mut self, p: &'a Place) {
        self.0 = self.0.max(p.id.0);
        walk_place(self, p);
    }
}

struct Numbering {
    next: u32,
}

impl Numbering {
    fn fresh(&mut self, id: &mut NodeId) {
        if *id == NodeId::NONE {
            *id = NodeId(self.next);
            self.next += 1;
        }
    }
}

impl VisitMut for Numbering {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        self.fresh(&mut e.id);
        walk_expr_mut(self, e);
    }
    fn visit_place_mut(&mut self, p: &mut Place) {
        self.fresh(&mut p.id);
        walk_place_mut(self, p);
    }
}
