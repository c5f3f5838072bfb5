//! Class instances named without all their type arguments. A class with a field of a
//! function type with unknown parts takes the type of the function value it is built with as
//! an implicit argument (`sema/check/classes.rs`), but a program names the class without it
//! (`self : ^my_interface` in the manual's interface emulation, §7.7, even inside the class's
//! own fields). When every value of the class the module builds has the same arguments, such
//! a name denotes that instance: the module cannot make any other.

use crate::ir::{visit::walk_expr, visit::Visit, Expr, ExprKind, Module};
use crate::sema::types::{ClassId, ClassRef, Type};
use std::borrow::Cow;
use std::collections::HashMap;

/// The arguments of each class instance the module builds, per class.
#[derive(Clone, Debug, Default)]
pub struct ClassArgs {
    built: HashMap<ClassId, Vec<Vec<Type>>>,
}

impl ClassArgs {
    /// The instances `m` builds (`Construct` expressions), by class.
    pub fn of(m: &Module) -> ClassArgs {
        struct Built<'c>(&'c mut HashMap<ClassId, Vec<Vec<Type>>>);
        impl<'a> Visit<'a> for Built<'_> {
            fn visit_expr(&mut self, e: &'a Expr) {
                if let (ExprKind::Construct { .. }, Type::Class(c)) = (&e.kind, &e.ty) {
                    let all = self.0.entry(c.id).or_default();
                    if !all.contains(&c.args) {
                        all.push(c.args.clone());
                    }
                }
                walk_expr(self, e);
            }
        }
        let mut built = HashMap::new();
        for f in m.functions.iter().filter(|f| !f.generic) {
            Built(&mut built).visit_block(&f.body);
        }
        ClassArgs { built }
    }

    /// The argument lists the module builds class `id` with.
    pub fn built(&self, id: ClassId) -> &[Vec<Type>] {
        self.built.get(&id).map_or(&[], Vec::as_slice)
    }

    /// `c` with the arguments it leaves out, when `params` (the class's parameter count)
    /// asks for more than it gives and the module builds the class with one set of arguments
    /// that starts with the given ones; `c` itself otherwise.
    pub fn complete<'c>(&self, c: &'c ClassRef, params: usize) -> Cow<'c, ClassRef> {
        if c.args.len() >= params {
            return Cow::Borrowed(c);
        }
        let fits = |a: &&Vec<Type>| a.len() == params && a.starts_with(&c.args);
        let mut found = self.built.get(&c.id).into_iter().flatten().filter(fits);
        match (found.next(), found.next()) {
            (Some(args), None) => Cow::Owned(ClassRef { args: args.clone(), ..c.clone() }),
            _ => Cow::Borrowed(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn class_args(src: &str) -> (Module, ClassArgs) {
        let parsed = crate::syntax::parse(src, crate::span::FileId(0));
        assert!(!parsed.has_errors());
        let checked = crate::sema::check::check_program(&parsed.program);
        assert!(checked.diagnostics.iter().all(|d| !d.is_error()), "{:?}", checked.diagnostics);
        let args = ClassArgs::of(&checked.module);
        (checked.module, args)
    }

    #[test]
    fn a_class_named_without_its_implicit_argument_is_the_instance_built() {
        let (m, args) = class_args(
            "type iface : mutable class
               f : [(^iface) -> ??]
             endtype
             obj = iface(f := (s : ^iface) -> print(s))
             obj.f(obj)",
        );
        let d = &m.classes[0];
        assert_eq!(d.params.len(), 1);
        let bare = ClassRef { id: d.id, name: d.name.clone(), args: Vec::new() };
        let full = args.complete(&bare, 1);
        assert_eq!(full.args.len(), 1);
        assert!(full.args[0].to_string().contains("^iface"), "{}", full.args[0]);
    }

    #[test]
    fn two_instances_leave_the_bare_name_as_it_is() {
        let (m, args) = class_args(
            "type holder : class
               f : [?? -> ??]
             endtype
             a = holder(f := (x : int) -> x + 1)
             b = holder(f := (x : scalar) -> x * 2)
             print a.f(1), b.f(2.0)",
        );
        let d = &m.classes[0];
        let bare = ClassRef { id: d.id, name: d.name.clone(), args: Vec::new() };
        assert!(args.complete(&bare, d.params.len()).args.is_empty());
    }
}
