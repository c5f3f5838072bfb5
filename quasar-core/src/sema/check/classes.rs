//! Classes and enumerations: their resolved definitions, and construction of class values
//! (`point()`, `point(x := 1, y := 2)`).

use super::scope::FnLowerer;
use crate::diagnostics::Diagnostic;
use crate::ir::{self, ClassDef, EnumDef};
use crate::sema::types::{ClassId, EnumId, Type};
use crate::span::Span;
use crate::syntax::ast::{self, ClassKind, TypeDefBody};
use std::collections::HashMap;

impl<'c, 'a> FnLowerer<'c, 'a> {
    /// The resolved definition of a class (fields with their types, inherited ones first).
    pub fn class_def(&mut self, id: ClassId) -> ClassDef {
        if let Some(def) = self.cx.module.classes.iter().find(|c| c.id == id) {
            return def.clone();
        }
        let index = id.0 as usize;
        let tdef = self.cx.decls.types[index].def;
        let TypeDefBody::Class { .. } = &tdef.body else {
            return ClassDef {
                id,
                name: tdef.name.name.clone(),
                mutable: false,
                dynamic: false,
                parent: None,
                params: Vec::new(),
                fields: Vec::new(),
                span: tdef.span,
            };
        };
        // Diagnostics of a class definition are reported once, not per lowering pass.
        let saved = std::mem::take(&mut self.diags);
        let def = self.class_def_uncached(id, index);
        let found = std::mem::replace(&mut self.diags, saved);
        self.cx.diags.extend(found);
        def
    }

    fn class_def_uncached(&mut self, id: ClassId, index: usize) -> ClassDef {
        let tdef = self.cx.decls.types[index].def;
        let TypeDefBody::Class { kind, parent, fields } = &tdef.body else {
            unreachable!("checked by class_def")
        };
        // Insert a provisional definition first, so that a class that refers to itself
        // through a pointer (`next : ^point`) terminates.
        let provisional = ClassDef {
            id,
            name: tdef.name.name.clone(),
            mutable: *kind == ClassKind::Mutable,
            dynamic: *kind == ClassKind::Dynamic,
            parent: None,
            params: Vec::new(),
            fields: Vec::new(),
            span: tdef.span,
        };
        self.cx.module.classes.push(provisional);
        let mut all_fields = Vec::new();
        let mut parent_id = None;
        let mut mutable = *kind == ClassKind::Mutable;
        let mut dynamic = *kind == ClassKind::Dynamic;
        if let Some(p) = parent {
            match self.resolve_type(p) {
                Type::Class(c) => {
                    let pd = self.class_def(c.id);
                    all_fields.extend(pd.fields.clone());
                    mutable |= pd.mutable;
                    dynamic |= pd.dynamic;
                    parent_id = Some(c.id);
                }
                t => {
                    let d = Diagnostic::error(
                        p.span,
                        format!("a class can only derive from a class, not from {t}"),
                    );
                    self.report(d);
                }
            }
        }
        // Parametric classes (`stack[T]`) keep their parameters as `Type::Param` here.
        let saved = self.type_params.clone();
        for tp in &tdef.params {
            self.type_params
                .entry(tp.name.name.clone())
                .or_insert_with(|| Type::Param(tp.name.name.clone()));
        }
        let mut params: Vec<String> = tdef.params.iter().map(|p| p.name.name.clone()).collect();
        for f in fields {
            let mut ty = f.ty.as_ref().map(|t| self.resolve_type(t)).unwrap_or(Type::Unknown);
            // A field of a function type with unknown parts (`sum_function : [?? -> ??]`,
            // manual §7.2) holds whichever function value it is built with, an untyped
            // lambda included: the class takes that value's type as an implicit argument.
            if matches!(ty, Type::Function(_)) && !ty.is_concrete() && !dynamic {
                let name = implicit_param(&f.name.name);
                params.push(name.clone());
                ty = Type::Param(name);
            }
            all_fields.push((f.name.name.clone(), ty));
        }
        self.type_params = saved;
        let def = ClassDef {
            id,
            name: tdef.name.name.clone(),
            mutable,
            dynamic,
            parent: parent_id,
            params,
            fields: all_fields,
            span: tdef.span,
        };
        if let Some(slot) = self.cx.module.classes.iter_mut().find(|c| c.id == id) {
            *slot = def.clone();
        }
        def
    }

    /// The enumeration defined by `type` definition `index`, if it is one.
    pub fn enum_id(&mut self, index: usize) -> Option<EnumId> {
        let tdef = self.cx.decls.types.get(index)?.def;
        let TypeDefBody::Enum(variants) = &tdef.body else { return None };
        let id = EnumId(index as u32);
        if !self.cx.module.enums.iter().any(|e| e.id == id) {
            let mut next = 0i64;
            let mut values = Vec::new();
            for v in variants {
                if let Some(e) = &v.value {
                    match crate::sema::resolve_type::const_int(e, &HashMap::new()) {
                        Some(n) => next = n,
                        None => {
                            let d = Diagnostic::error(
                                e.span,
                                "an enumeration value must be an integer constant",
                            );
                            self.report(d);
                        }
                    }
                }
                values.push((v.name.name.clone(), next));
                next += 1;
            }
            self.cx.module.enums.push(EnumDef {
                id,
                name: tdef.name.name.clone(),
                variants: values,
                span: tdef.span,
            });
        }
        Some(id)
    }

    pub fn enum_variant(&mut self, id: EnumId, name: &str) -> Option<i64> {
        self.enum_id(id.0 as usize);
        let e = self.cx.module.enums.iter().find(|e| e.id == id)?;
        e.variants.iter().find(|(n, _)| n == name).map(|(_, v)| *v)
    }

    /// `point(…)`: a class value. Fields not given are zero (numbers) or empty.
    pub fn construct(
        &mut self,
        class: &crate::sema::types::ClassRef,
        args: &'a [ast::Arg],
        span: Span,
    ) -> ir::Expr {
        let mut def = self.class_def(class.id);
        let implicit = implicit_fields(&def, class.args.len());
        def.fields = def.fields_of(&class.args);
        let mut fields = Vec::new();
        for (i, arg) in args.iter().enumerate() {
            let value = self.lower_expr(&arg.value);
            let field = match &arg.name {
                Some(n) => n.name.clone(),
                None => match def.fields.get(i) {
                    Some((f, _)) => f.clone(),
                    None => {
                        let d = Diagnostic::error(
                            arg.value.span,
                            format!("`{}` has only {} field(s)", def.name, def.fields.len()),
                        );
                        self.report(d);
                        continue;
                    }
                },
            };
            match def.fields.iter().find(|(f, _)| *f == field) {
                Some((_, Type::Param(p))) if implicit.iter().any(|(_, q)| q == p) => {
                    self.check_implicit_field(class.id, &field, &value, arg.value.span);
                    fields.push((field, value));
                }
                Some((_, ty)) => {
                    if !self.fits(&value.ty, ty) {
                        let d = Diagnostic::error(arg.value.span, format!("type mismatch: field `{field}` of `{}` is {ty}, but this value is {}", def.name, value.ty));
                        self.report(d);
                    }
                    let value = self.convert_to(value, ty, arg.value.span);
                    fields.push((field, value));
                }
                None if def.dynamic => fields.push((field, value)),
                None => {
                    let d = Diagnostic::error(
                        arg.value.span,
                        format!("`{}` has no field `{field}`", def.name),
                    );
                    self.report(d);
                }
            }
        }
        // All fields or none (manual §3.2): fields not given would have no value.
        if !fields.is_empty() && !def.dynamic {
            let missing: Vec<&str> = def
                .fields
                .iter()
                .map(|(f, _)| f.as_str())
                .filter(|f| !fields.iter().any(|(g, _)| g == f))
                .collect();
            if !missing.is_empty() {
                let d = Diagnostic::error(
                    span,
                    format!("missing field(s) of `{}`: {}", def.name, missing.join(", ")),
                )
                .with_note(
                    "a class value is built with all of its fields, or with none (`point()`)",
                );
                self.report(d);
            }
        }
        // The implicit arguments: the types of the function values given (`??` if none).
        let mut class = class.clone();
        for (field, _) in &implicit {
            let given = fields.iter().find(|(f, _)| f == field).map(|(_, v)| v.ty.clone());
            class.args.push(given.unwrap_or(Type::Unknown));
        }
        ir::Expr::new(ir::ExprKind::Construct { class: class.id, fields }, Type::Class(class), span)
    }

    /// Checks the value given for a field of a function type with unknown parts against
    /// that type (the number of parameters, the kind).
    fn check_implicit_field(&mut self, class: ClassId, field: &str, value: &ir::Expr, span: Span) {
        let tdef = self.cx.decls.types[class.0 as usize].def;
        let TypeDefBody::Class { fields, .. } = &tdef.body else { return };
        let Some(declared) =
            fields.iter().find(|f| f.name.name == field).and_then(|f| f.ty.as_ref())
        else {
            return;
        };
        let declared = self.resolve_type(declared);
        if !self.fits(&value.ty, &declared) {
            let d = Diagnostic::error(
                span,
                format!(
                    "type mismatch: field `{field}` is {declared}, but this value is {}",
                    value.ty
                ),
            );
            self.report(d);
        }
    }
}

/// The name of the implicit type parameter of a class field of a function type with unknown
/// parts (not a name a program can write).
fn implicit_param(field: &str) -> String {
    format!("<{field}>")
}

/// The fields of `def` whose types are implicit parameters, with their parameters' names, in
/// the order of the parameters; none unless the `given` arguments are exactly the explicit
/// ones (the implicit arguments follow them).
fn implicit_fields(def: &ClassDef, given: usize) -> Vec<(String, String)> {
    let implicit: Vec<(String, String)> = def
        .params
        .iter()
        .filter_map(|p| {
            let (f, _) = def.fields.iter().find(|(_, t)| matches!(t, Type::Param(q) if q == p))?;
            (implicit_param(f) == *p).then(|| (f.clone(), p.clone()))
        })
        .collect();
    if given + implicit.len() == def.params.len() {
        implicit
    } else {
        Vec::new()
    }
}
