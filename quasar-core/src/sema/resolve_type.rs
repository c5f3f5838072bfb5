//! Written types to [`Type`]s: primitive names, the array families (`vec3`, `imat`,
//! `cube{4}[int16]`, `mat(M, N)`), user classes, enums and aliases, type parameters, and
//! modifiers (`'const`, `'unchecked`, `'half`, `'sat`, …).

use super::decls::Decls;
use super::types::{
    Access, ArrayMods, ArrayType, ClassId, ClassRef, Dim, EnumId, FnType, IntKind, Overflow,
    Precision, Rank, ThreadGroup, Type,
};
use crate::diagnostics::Diagnostic;
use crate::syntax::ast::{self, BinaryOp, DimSpec, Expr, ExprKind, SizeSpec, TypeExpr, TypeKind};
use crate::syntax::lexer::decode_number;
use std::collections::HashMap;

/// What a type name may refer to besides the built-in names.
pub struct TypeEnv<'e, 'a> {
    /// The program's declared types (classes, enums, aliases).
    pub decls: &'e Decls<'a>,
    /// Generic parameters in scope, bound (`T` → `int`) or not (`T` → `Type::Param("T")`).
    pub params: &'e HashMap<String, Type>,
    /// Generic size parameters bound to constants (`N` → 3).
    pub sizes: &'e HashMap<String, u64>,
}

/// Hardware and layout hints that are kept on array types for the backends.
const HINTS: &[&str] =
    &["hwtex_nearest", "hwtex_linear", "hwconst", "hwtex_const", "shared", "col", "row", "simd"];

impl TypeEnv<'_, '_> {
    /// Resolves `t`, reporting problems into `diags`; a type that cannot be resolved is `??`.
    pub fn resolve(&self, t: &TypeExpr, diags: &mut Vec<Diagnostic>) -> Type {
        self.resolve_depth(t, diags, 0)
    }

    fn resolve_depth(&self, t: &TypeExpr, diags: &mut Vec<Diagnostic>, depth: u32) -> Type {
        crate::stack::guard(|| self.resolve_depth_unguarded(t, diags, depth))
    }

    fn resolve_depth_unguarded(
        &self,
        t: &TypeExpr,
        diags: &mut Vec<Diagnostic>,
        depth: u32,
    ) -> Type {
        if depth > 64 {
            diags
                .push(Diagnostic::error(t.span, "type definitions refer to each other in a cycle"));
            return Type::Unknown;
        }
        let base = match &t.kind {
            TypeKind::Unknown | TypeKind::Inferred => Type::Unknown,
            TypeKind::Unit => Type::Void,
            TypeKind::Pointer(inner) => {
                Type::Pointer(Box::new(self.resolve_depth(inner, diags, depth + 1)))
            }
            TypeKind::Union(members) => Type::Union(
                members.iter().map(|m| self.resolve_depth(m, diags, depth + 1)).collect(),
            ),
            TypeKind::Cell(items) => Type::CellTuple(
                items.iter().map(|m| self.resolve_depth(m, diags, depth + 1)).collect(),
            ),
            TypeKind::Function(f) => {
                let params =
                    f.params.iter().map(|p| self.resolve_depth(&p.ty, diags, depth + 1)).collect();
                let results = f
                    .results
                    .iter()
                    .map(|r| self.resolve_depth(r, diags, depth + 1))
                    .filter(|r| *r != Type::Void)
                    .collect();
                let variadic = f.params.last().is_some_and(|p| p.variadic);
                Type::Function(Box::new(FnType { kind: f.kind, params, variadic, results }))
            }
            TypeKind::Named { name, dims, args, sizes } => self.resolve_named(
                t,
                &name.name,
                dims.as_ref(),
                args,
                sizes.as_deref(),
                diags,
                depth,
            ),
        };
        let ty = t.modifiers.iter().fold(base, |ty, m| self.apply_modifier(ty, m, diags));
        texture_access(&ty, t, diags);
        ty
    }

    #[allow(clippy::too_many_arguments)]
    fn resolve_named(
        &self,
        t: &TypeExpr,
        name: &str,
        dims: Option<&DimSpec>,
        args: &[TypeExpr],
        sizes: Option<&[SizeSpec]>,
        diags: &mut Vec<Diagnostic>,
        depth: u32,
    ) -> Type {
        let args_resolved: Vec<Type> =
            args.iter().map(|a| self.resolve_depth(a, diags, depth + 1)).collect();
        if let Some(p) = self.params.get(name) {
            return p.clone();
        }
        if let Some(k) = IntKind::from_name(name) {
            return Type::Int(k, Overflow::Checked);
        }
        let simple = match name {
            "scalar" => Some(Type::SCALAR),
            "cscalar" => Some(Type::CSCALAR),
            "string" => Some(Type::String),
            // The exception a `catch` receives (manual §4.13): in this version its value is
            // its message (with the Quasar line that raised it), which `ex.message` reads too.
            "qexception" => Some(Type::String),
            "object" => Some(Type::Unknown),
            // Cooperative groups (manual §9.8): the kernel parameter's name picks the group.
            "thread_block" => Some(Type::ThreadBlock(ThreadGroup::Any)),
            "function" | "lambda_expr" | "kernel_function" => {
                Some(Type::Function(Box::new(FnType {
                    kind: if name == "kernel_function" {
                        ast::FunctionKind::Kernel
                    } else {
                        ast::FunctionKind::Host
                    },
                    params: vec![Type::Unknown],
                    variadic: true,
                    results: vec![Type::Unknown],
                })))
            }
            _ => None,
        };
        if let Some(ty) = simple {
            return ty;
        }
        if let Some(family) = ArrayFamily::parse(name) {
            // A cell array type (manual §3.5): `vec[{string, scalar}]` is the cell vector
            // whose elements have these types, as `{"String", value}` builds it. (A cell
            // matrix type such as `mat[{{vec, vec}, {scalar, scalar}}]` stays an array of
            // cells, which `typename(…)(2, 2)` constructs.)
            if let ([arg], [cell @ Type::CellTuple(items)]) = (args, args_resolved.as_slice()) {
                let flat = !items.iter().any(|i| matches!(i, Type::CellTuple(_)));
                if matches!(arg.kind, TypeKind::Cell(_))
                    && !family.prefixed
                    && family.rank == Rank::Fixed(1)
                    && family.shape.is_none()
                    && flat
                {
                    return cell.clone();
                }
            }
            return self.resolve_array(t, family, dims, &args_resolved, sizes, diags);
        }
        if let Some(&index) = self.decls.type_names.get(name) {
            let def = self.decls.types[index].def;
            return match &def.body {
                ast::TypeDefBody::Alias(target) => {
                    let mut ty = self.resolve_depth(target, diags, depth + 1);
                    if let Some(sizes) = sizes {
                        // `point_vec(10)`-style sizes on an array alias constrain its shape.
                        if let Type::Array(a) = &mut ty {
                            a.shape = Some(sizes.iter().map(|s| self.dim(s)).collect());
                        }
                    }
                    ty
                }
                ast::TypeDefBody::Class { .. } => Type::Class(ClassRef {
                    id: ClassId(index as u32),
                    name: name.to_string(),
                    args: args_resolved,
                }),
                ast::TypeDefBody::Enum(_) => Type::Enum(EnumId(index as u32), name.to_string()),
            };
        }
        diags.push(
            Diagnostic::error(t.span, format!("unknown type `{name}`"))
                .with_label("not a type")
                .with_note("types are `int`, `scalar`, `vec`, `mat`, `cube`, … or defined with `type name : …`"),
        );
        Type::Unknown
    }

    fn resolve_array(
        &self,
        t: &TypeExpr,
        family: ArrayFamily,
        dims: Option<&DimSpec>,
        args: &[Type],
        sizes: Option<&[SizeSpec]>,
        diags: &mut Vec<Diagnostic>,
    ) -> Type {
        let mut elem = family.elem.clone();
        if let Some(arg) = args.first() {
            if family.prefixed {
                diags.push(
                    Diagnostic::error(
                        t.span,
                        "a type argument goes on `vec`, `mat` or `cube`, not on a prefixed name",
                    )
                    .with_note("write `vec[int]` rather than `ivec[int]`"),
                );
            }
            elem = arg.clone();
            if args.len() > 1 {
                diags.push(Diagnostic::error(t.span, "an array type takes one element type"));
            }
        }
        let mut rank = family.rank;
        let mut shape = family.shape.clone();
        if let Some(d) = dims {
            if family.rank != Rank::Fixed(3) || family.shape.is_some() {
                diags.push(Diagnostic::error(t.span, "only `cube` takes a dimension `{n}`"));
            }
            rank = match d {
                DimSpec::Any => Rank::Any,
                DimSpec::Fixed(e) => match const_int(e, self.sizes) {
                    Some(n) if (1..=16).contains(&n) => Rank::Fixed(n as u8),
                    Some(n) => {
                        diags.push(Diagnostic::error(
                            e.span,
                            format!("arrays have 1 to 16 dimensions, not {n}"),
                        ));
                        Rank::Any
                    }
                    None => Rank::Any,
                },
            };
        }
        if let Some(sizes) = sizes {
            if shape.is_some() {
                diags.push(Diagnostic::error(t.span, "this type already has a size"));
            }
            let expected = match rank {
                // `cube(X, Y, W, Z)` is a hypercube (manual §3.3).
                Rank::Fixed(3) if sizes.len() > 3 => sizes.len(),
                Rank::Fixed(n) => n as usize,
                Rank::Any => sizes.len(),
            };
            if sizes.len() != expected {
                diags.push(Diagnostic::error(
                    t.span,
                    format!(
                        "this array type has {expected} dimension(s) but {} sizes are given",
                        sizes.len()
                    ),
                ));
            }
            if !sizes.is_empty() {
                rank = Rank::Fixed(sizes.len().min(16) as u8);
                shape = Some(sizes.iter().map(|s| self.dim(s)).collect());
            }
        }
        Type::Array(Box::new(ArrayType { elem, rank, shape, mods: ArrayMods::default() }))
    }

    fn dim(&self, s: &SizeSpec) -> Dim {
        match s {
            SizeSpec::Any => Dim::Unknown,
            SizeSpec::Expr(e) => match (&e.kind, const_int(e, self.sizes)) {
                (_, Some(n)) if n >= 0 => Dim::Known(n as u64),
                (ExprKind::Ident(name), _) => Dim::Param(name.clone()),
                _ => Dim::Unknown,
            },
        }
    }
}

/// Whether `name` is a type the language defines (`scalar`, `int32`, `string`, `vec`,
/// `cmat3x3`, `cellvec` …), as opposed to one a program defines.
pub fn is_builtin_type_name(name: &str) -> bool {
    IntKind::from_name(name).is_some()
        || matches!(
            name,
            "scalar"
                | "cscalar"
                | "string"
                | "qexception"
                | "object"
                | "thread_block"
                | "function"
                | "lambda_expr"
                | "kernel_function"
        )
        || ArrayFamily::parse(name).is_some()
}

/// The parts of an array type name such as `ivec3`, `cmat`, `cube2x2x3`, `cellvec`.
struct ArrayFamily {
    elem: Type,
    rank: Rank,
    shape: Option<Vec<Dim>>,
    /// Written with an `i`/`c`/`cell` prefix (so no `[T]` argument is allowed).
    prefixed: bool,
}

impl ArrayFamily {
    fn parse(name: &str) -> Option<ArrayFamily> {
        let (elem, rest, prefixed) = if let Some(r) = name.strip_prefix("cell") {
            (Type::Unknown, r, true)
        } else if let Some(r) = name.strip_prefix('i').filter(|r| is_array_word(r)) {
            (Type::INT, r, true)
        } else if let Some(r) = name.strip_prefix('c').filter(|r| is_array_word(r)) {
            (Type::CSCALAR, r, true)
        } else {
            (Type::SCALAR, name, false)
        };
        let (base, digits) =
            ["vec", "mat", "cube"].iter().find_map(|b| rest.strip_prefix(b).map(|d| (*b, d)))?;
        let rank = match base {
            "vec" => 1,
            "mat" => 2,
            _ => 3,
        };
        if digits.is_empty() {
            return Some(ArrayFamily { elem, rank: Rank::Fixed(rank), shape: None, prefixed });
        }
        // `vec4`, `mat2x3`, `cube2x2x3`, `cube2x2x2x2`.
        let parts: Vec<u64> = digits.split('x').map(|p| p.parse().ok()).collect::<Option<_>>()?;
        let ok = match base {
            "vec" => parts.len() == 1,
            "mat" => parts.len() == 2,
            _ => parts.len() >= 3 && parts.len() <= 16,
        };
        if !ok {
            return None;
        }
        let shape: Vec<Dim> = parts.iter().map(|&n| Dim::Known(n)).collect();
        Some(ArrayFamily {
            elem,
            rank: Rank::Fixed(shape.len() as u8),
            shape: Some(shape),
            prefixed,
        })
    }
}

/// Whether `name` names an array type family (`vec`, `cmat`, `ivec3`, `cube2x2x3`, `cellvec`).
pub(crate) fn is_array_type_name(name: &str) -> bool {
    ArrayFamily::parse(name).is_some()
}

fn is_array_word(s: &str) -> bool {
    ["vec", "mat", "cube"].iter().any(|b| s.starts_with(b))
}

impl TypeEnv<'_, '_> {
    /// Applies one `'modifier` to a resolved type. `'hwconst(n)` also gives the length of a
    /// vector that has none; other arguments (texture components) are kept with the hint.
    fn apply_modifier(
        &self,
        ty: Type,
        modifier: &ast::Modifier,
        diags: &mut Vec<Diagnostic>,
    ) -> Type {
        let mut ty = apply_modifier(ty, &modifier.name, diags);
        if let (Type::Array(a), Some(args)) = (&mut ty, &modifier.args) {
            if modifier.name.name == "hwconst" && a.shape.is_none() {
                if let [n] = args.as_slice() {
                    let d = self.dim(&SizeSpec::Expr(n.clone()));
                    a.shape = Some(vec![d]);
                }
            }
        }
        ty
    }
}

/// Applies one `'modifier` (without arguments) to a resolved type.
fn apply_modifier(ty: Type, m: &ast::Ident, diags: &mut Vec<Diagnostic>) -> Type {
    let name = m.name.as_str();
    match ty {
        Type::Array(mut a) => {
            if let Some(acc) = Access::from_name(name) {
                a.mods.access = Some(acc);
            } else if name == "const" {
                a.mods.is_const = true;
            } else if name == "nocopy" {
                a.mods.nocopy = true;
            } else if HINTS.contains(&name) {
                a.mods.hints.push(name.to_string());
            } else {
                warn_unknown_modifier(m, diags);
            }
            Type::Array(a)
        }
        Type::Scalar(_) | Type::Complex(_) if matches!(name, "half" | "single" | "double") => {
            let p = match name {
                "half" => Precision::Half,
                "single" => Precision::Single,
                _ => Precision::Double,
            };
            if let Type::Complex(_) = ty {
                Type::Complex(p)
            } else {
                Type::Scalar(p)
            }
        }
        Type::Int(k, _) if matches!(name, "sat" | "checked" | "unchecked") => {
            let o = match name {
                "sat" => Overflow::Saturate,
                "checked" => Overflow::Checked,
                _ => Overflow::Unchecked,
            };
            Type::Int(k, o)
        }
        // `'const` on a scalar or an inferred type marks a constant; the type is unchanged.
        ty if name == "const" => ty,
        ty if Access::from_name(name).is_some() || HINTS.contains(&name) || name == "nocopy" => {
            // Meaningful on arrays only; on an inferred type (`y : 'unchecked`) it is a hint
            // for whatever array the variable holds.
            ty
        }
        ty => {
            warn_unknown_modifier(m, diags);
            ty
        }
    }
}

/// A hardware texture's reads outside the array follow one of the boundary modes the
/// texture unit has (manual §9.3, table 9.4): `'checked` and `'unchecked` are errors.
fn texture_access(ty: &Type, t: &TypeExpr, diags: &mut Vec<Diagnostic>) {
    let Type::Array(a) = ty else { return };
    let (Some(_), Some(acc @ (Access::Checked | Access::Unchecked))) =
        (a.mods.texture(), a.mods.access)
    else {
        return;
    };
    let hint = a.mods.hints.iter().find(|h| h.starts_with("hwtex_")).map_or("", |h| h.as_str());
    let name = if acc == Access::Checked { "checked" } else { "unchecked" };
    diags.push(
        Diagnostic::error(t.span, format!("a hardware texture (`'{hint}`) cannot be `'{name}`"))
            .with_note("a texture read outside the array follows `'safe` (the default), `'clamped`, `'circular` or `'mirror`"),
    );
}

fn warn_unknown_modifier(m: &ast::Ident, diags: &mut Vec<Diagnostic>) {
    diags.push(
        Diagnostic::warning(m.span, format!("unknown type modifier `'{}`", m.name))
            .with_label("ignored")
            .with_note("known modifiers: 'const 'nocopy 'safe 'checked 'unchecked 'circular 'mirror 'clamped 'half 'single 'double 'sat"),
    );
}

/// The value of a constant integer expression (literals, `+ - * /`, size parameters).
pub fn const_int(e: &Expr, sizes: &HashMap<String, u64>) -> Option<i64> {
    match &e.kind {
        ExprKind::Number(text) => match decode_number(text).ok()? {
            ast::NumberValue::Int(v) => i64::try_from(v).ok(),
            _ => None,
        },
        ExprKind::Ident(name) => sizes.get(name).map(|&v| v as i64),
        ExprKind::Paren(items) if items.len() == 1 => const_int(&items[0], sizes),
        ExprKind::Unary { op: ast::UnaryOp::Neg, operand } => {
            const_int(operand, sizes)?.checked_neg()
        }
        ExprKind::Binary { op, lhs, rhs } => {
            let (a, b) = (const_int(lhs, sizes)?, const_int(rhs, sizes)?);
            match op {
                BinaryOp::Add => a.checked_add(b),
                BinaryOp::Sub => a.checked_sub(b),
                BinaryOp::Mul => a.checked_mul(b),
                _ => None,
            }
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::span::FileId;
    use crate::syntax::parse;

    /// Resolves the type annotation of `x : T` in a program that also declares `decls`.
    fn resolve(decls_src: &str, ty: &str) -> (String, Vec<String>) {
        let src = format!("{decls_src}\nx : {ty}\n");
        let parsed = parse(&src, FileId(0));
        assert!(!parsed.has_errors(), "{:?}", parsed.diagnostics);
        let decls = Decls::collect(&parsed.program.body);
        let last = parsed.program.body.last().unwrap();
        let ast::StmtKind::Expr(Expr { kind: ExprKind::Annotated { ty, .. }, .. }) = &last.kind
        else {
            panic!()
        };
        let params = HashMap::from([("T".to_string(), Type::Param("T".into()))]);
        let sizes = HashMap::new();
        let env = TypeEnv { decls: &decls, params: &params, sizes: &sizes };
        let mut diags = Vec::new();
        let t = env.resolve(ty, &mut diags);
        (t.to_string(), diags.into_iter().map(|d| d.message).collect())
    }

    fn ok(ty: &str) -> String {
        let (t, d) = resolve("", ty);
        assert!(d.is_empty(), "{ty}: {d:?}");
        t
    }

    #[test]
    fn primitive_and_array_names() {
        assert_eq!(ok("int"), "int");
        assert_eq!(ok("uint8'sat"), "uint8'sat");
        assert_eq!(ok("scalar'half"), "scalar'half");
        assert_eq!(ok("vec"), "vec");
        assert_eq!(ok("ivec3"), "ivec3");
        assert_eq!(ok("cvec"), "cvec");
        assert_eq!(ok("mat2x3"), "mat(2, 3)");
        assert_eq!(ok("cube2x2x2x2"), "cube{4}(2, 2, 2, 2)");
        assert_eq!(ok("cube{4}[int16]"), "cube{4}[int16]");
        assert_eq!(ok("cube{:}"), "cube{:}");
        assert_eq!(ok("vec[int]"), "ivec");
        assert_eq!(ok("mat[uint8'sat]"), "mat[uint8'sat]");
        assert_eq!(ok("cube(:, :, 3)"), "cube(:, :, 3)");
        assert_eq!(ok("mat(M, N)"), "mat(M, N)");
        assert_eq!(ok("vec[T]"), "vec[T]");
        assert_eq!(ok("cellvec"), "vec[??]");
        assert_eq!(ok("vec'hwconst(5)"), "vec5'hwconst");
        assert_eq!(ok("mat'unchecked'const"), "mat'unchecked'const");
    }

    #[test]
    fn compound_types() {
        assert_eq!(ok("[int|cube]"), "[int|cube]");
        // A cell array type (manual §3.5): the cell vector of a string and a scalar.
        assert_eq!(ok("vec[{string, scalar}]"), "{string, scalar}");
        assert_eq!(
            ok("[__device__ (scalar, scalar) -> scalar]"),
            "[__device__ (scalar, scalar) -> (scalar)]"
        );
        assert_eq!(ok("[(mat, vec) -> ()]"), "[(mat, vec) -> ()]");
        assert_eq!(ok("[(...??) -> ()]"), "[(...??) -> ()]");
        assert_eq!(ok("??"), "??");
    }

    #[test]
    fn user_types_aliases_and_pointers() {
        let decls = "type point : class\n  x : scalar\nendtype\ntype pv : vec[^point]\ntype color : enum\n  Red\nendtype";
        assert_eq!(resolve(decls, "point").0, "point");
        assert_eq!(resolve(decls, "pv").0, "vec[^point]");
        assert_eq!(resolve(decls, "color").0, "color");
        assert_eq!(resolve(decls, "^point").0, "^point");
    }

    #[test]
    fn errors_and_warnings() {
        let (_, d) = resolve("", "vector");
        assert_eq!(d, ["unknown type `vector`"]);
        let (_, d) = resolve("", "mat(1, 2, 3)");
        assert_eq!(d, ["this array type has 2 dimension(s) but 3 sizes are given"]);
        let (t, d) = resolve("", "mat'shiny");
        assert_eq!((t.as_str(), d), ("mat", vec!["unknown type modifier `'shiny`".to_string()]));
        let (_, d) = resolve("type a : b\ntype b : a", "a");
        assert_eq!(d, ["type definitions refer to each other in a cycle"]);
    }
}
