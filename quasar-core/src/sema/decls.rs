//! Declarations: the functions, types and imports of a program, collected before any body
//! is checked so that definitions may be used before the line that defines them.

use crate::span::Span;
use crate::syntax::ast::{self, Stmt, StmtKind};
use crate::syntax::ast::{FunctionDef, TypeDef};
use std::collections::HashMap;

/// Identifies a function definition in the source (not an instance).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FnDeclId(pub u32);

/// Identifies a lexical scope: the script, or the body of a function definition.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScopeId {
    /// The top level of the file.
    Script,
    /// The body of this function.
    Function(FnDeclId),
}

/// A function definition and where it appears.
#[derive(Debug)]
pub struct FnDecl<'a> {
    /// The definition in the syntax tree.
    pub def: &'a FunctionDef,
    /// The scope the definition appears in (its captured variables come from there).
    pub parent: ScopeId,
}

/// A type definition and where it appears.
#[derive(Debug)]
pub struct TypeDecl<'a> {
    /// The definition in the syntax tree.
    pub def: &'a TypeDef,
    /// The scope the definition appears in.
    pub parent: ScopeId,
}

/// Everything a program declares.
#[derive(Debug, Default)]
pub struct Decls<'a> {
    /// Every function definition, indexed by [`FnDeclId`].
    pub functions: Vec<FnDecl<'a>>,
    /// Function names visible in each scope: several definitions make an overload set.
    pub fn_names: HashMap<(ScopeKey, String), Vec<FnDeclId>>,
    /// Every type definition in order.
    pub types: Vec<TypeDecl<'a>>,
    /// Type names to their index in `types`.
    pub type_names: HashMap<String, usize>,
    /// The `import` paths with their positions.
    pub imports: Vec<(String, Span)>,
    /// The reductions (rewrite rules) in order.
    pub reductions: Vec<&'a ast::Reduction>,
}

/// A hashable form of [`ScopeId`].
pub type ScopeKey = Option<FnDeclId>;

/// The key of a scope in the name tables.
pub fn scope_key(s: ScopeId) -> ScopeKey {
    match s {
        ScopeId::Script => None,
        ScopeId::Function(f) => Some(f),
    }
}

impl<'a> Decls<'a> {
    /// Collects the declarations of `body` (the file's top level) and of every nested body.
    pub fn collect(body: &'a [Stmt]) -> Decls<'a> {
        Decls::collect_with_imports(body, &[])
    }

    /// Like [`Decls::collect`], with the definitions of imported files visible at the top
    /// level too. An imported file's `main` function is skipped (manual §13.1), and so are
    /// its top-level statements.
    pub fn collect_with_imports(body: &'a [Stmt], imports: &[&'a [Stmt]]) -> Decls<'a> {
        let mut d = Decls::default();
        for imported in imports {
            for stmt in imported.iter() {
                match &stmt.kind {
                    StmtKind::Function(f) if f.name.name == "main" => {}
                    StmtKind::Function(_) | StmtKind::TypeDef(_) | StmtKind::Reduction(_) => {
                        d.walk_stmt(stmt, ScopeId::Script)
                    }
                    _ => {}
                }
            }
        }
        d.walk(body, ScopeId::Script);
        d
    }

    /// The definition with this id.
    pub fn function(&self, id: FnDeclId) -> &FnDecl<'a> {
        &self.functions[id.0 as usize]
    }

    /// The overload set named `name` visible from `scope` (innermost scope first).
    pub fn lookup_function(&self, mut scope: ScopeId, name: &str) -> Option<&[FnDeclId]> {
        loop {
            if let Some(ids) = self.fn_names.get(&(scope_key(scope), name.to_string())) {
                return Some(ids);
            }
            match scope {
                ScopeId::Script => return None,
                ScopeId::Function(f) => scope = self.function(f).parent,
            }
        }
    }

    fn walk(&mut self, body: &'a [Stmt], scope: ScopeId) {
        for stmt in body {
            self.walk_stmt(stmt, scope);
        }
    }

    fn walk_stmt(&mut self, stmt: &'a Stmt, scope: ScopeId) {
        match &stmt.kind {
            StmtKind::Function(def) => {
                let id = FnDeclId(self.functions.len() as u32);
                self.functions.push(FnDecl { def, parent: scope });
                self.fn_names
                    .entry((scope_key(scope), def.name.name.clone()))
                    .or_default()
                    .push(id);
                self.walk(&def.body, ScopeId::Function(id));
            }
            StmtKind::TypeDef(def) => {
                self.type_names.insert(def.name.name.clone(), self.types.len());
                self.types.push(TypeDecl { def, parent: scope });
            }
            StmtKind::Import { path } => self.imports.push((path.clone(), stmt.span)),
            StmtKind::Reduction(r) => self.reductions.push(r),
            // Definitions inside control structures are still definitions of this scope.
            StmtKind::If { branches, else_body } => {
                for (_, b) in branches {
                    self.walk(b, scope);
                }
                if let Some(b) = else_body {
                    self.walk(b, scope);
                }
            }
            StmtKind::For { body, .. }
            | StmtKind::While { body, .. }
            | StmtKind::Repeat { body, .. } => self.walk(body, scope),
            StmtKind::Match { arms, .. } => {
                for arm in arms {
                    self.walk(&arm.body, scope);
                }
            }
            StmtKind::Try { body, catch_body, .. } => {
                self.walk(body, scope);
                self.walk(catch_body, scope);
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::span::FileId;
    use crate::syntax::parse;

    #[test]
    fn nested_functions_are_scoped_and_overloads_grouped() {
        let src = "function y = f(x : scalar)\n  function z = g(a)\n    z = a\n  endfunction\n  y = g(x)\nendfunction\nfunction y = f(x : mat)\n  y = x\nendfunction\ntype p : class\n  x : int\nendtype\nimport \"other.q\"\n";
        let parsed = parse(src, FileId(0));
        assert!(!parsed.has_errors());
        let d = Decls::collect(&parsed.program.body);
        assert_eq!(d.lookup_function(ScopeId::Script, "f").map(|v| v.len()), Some(2));
        assert!(d.lookup_function(ScopeId::Script, "g").is_none(), "g is local to f");
        let f0 = d.lookup_function(ScopeId::Script, "f").unwrap()[0];
        assert!(d.lookup_function(ScopeId::Function(f0), "g").is_some());
        assert!(d.lookup_function(ScopeId::Function(f0), "f").is_some(), "outer names are visible");
        assert_eq!(d.type_names.get("p"), Some(&0));
        assert_eq!(d.imports.len(), 1);
    }
}
