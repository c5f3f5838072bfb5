//! Types written back in the manual's spellings (`vec3`, `cube[int]`, `mat'safe`), as
//! diagnostics show them.

use super::{ArrayType, Dim, IntKind, Overflow, Precision, Rank, Type};
use std::fmt;

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Unknown => write!(f, "??"),
            Type::Int(k, o) => {
                write!(f, "{}", k.name())?;
                match o {
                    Overflow::Checked => Ok(()),
                    Overflow::Saturate => write!(f, "'sat"),
                    Overflow::Unchecked => write!(f, "'unchecked"),
                }
            }
            Type::Scalar(p) => write!(f, "scalar{}", p.suffix()),
            Type::Complex(p) => write!(f, "cscalar{}", p.suffix()),
            Type::String => write!(f, "string"),
            Type::Array(a) => fmt_array(a, f),
            Type::CellTuple(items) => {
                write!(f, "{{")?;
                write_list(f, items)?;
                write!(f, "}}")
            }
            Type::Class(c) => {
                write!(f, "{}", c.name)?;
                if !c.args.is_empty() {
                    write!(f, "[")?;
                    write_list(f, &c.args)?;
                    write!(f, "]")?;
                }
                Ok(())
            }
            Type::Pointer(t) => write!(f, "^{t}"),
            Type::Null => write!(f, "nullptr"),
            Type::Enum(_, name) => write!(f, "{name}"),
            Type::Function(ft) => {
                write!(f, "[")?;
                if let Some(w) = ft.kind.word() {
                    write!(f, "{w} ")?;
                }
                write!(f, "(")?;
                for (i, p) in ft.params.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    if ft.variadic && i + 1 == ft.params.len() {
                        write!(f, "...")?;
                    }
                    write!(f, "{p}")?;
                }
                write!(f, ") -> (")?;
                write_list(f, &ft.results)?;
                write!(f, ")]")
            }
            Type::Union(ts) => {
                write!(f, "[")?;
                for (i, t) in ts.iter().enumerate() {
                    if i > 0 {
                        write!(f, "|")?;
                    }
                    write!(f, "{t}")?;
                }
                write!(f, "]")
            }
            Type::TypeValue(t) => write!(f, "type({t})"),
            Type::Tuple(ts) => {
                write!(f, "(")?;
                write_list(f, ts)?;
                write!(f, ")")
            }
            Type::Param(name) => write!(f, "{name}"),
            Type::Void => write!(f, "()"),
            Type::ThreadBlock(_) => write!(f, "thread_block"),
        }
    }
}

fn write_list(f: &mut fmt::Formatter<'_>, items: &[Type]) -> fmt::Result {
    for (i, t) in items.iter().enumerate() {
        if i > 0 {
            write!(f, ", ")?;
        }
        write!(f, "{t}")?;
    }
    Ok(())
}

/// `vec`, `ivec3`, `cmat`, `mat(2, 3)`, `cube(:, :, 3)`, `cube{4}[int16]`, `vec[point]'const`.
fn fmt_array(a: &ArrayType, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    let (prefix, generic) = match &a.elem {
        Type::Scalar(Precision::Default) => ("", false),
        Type::Int(IntKind::Int, Overflow::Checked) => ("i", false),
        Type::Complex(Precision::Default) => ("c", false),
        _ => ("", true),
    };
    let base = match a.rank {
        Rank::Fixed(1) => "vec".to_string(),
        Rank::Fixed(2) => "mat".to_string(),
        Rank::Fixed(3) => "cube".to_string(),
        Rank::Fixed(n) => format!("cube{{{n}}}"),
        Rank::Any => "cube{:}".to_string(),
    };
    write!(f, "{prefix}{base}")?;
    if generic {
        write!(f, "[{}]", a.elem)?;
    }
    if let Some(shape) = &a.shape {
        let all_known: Option<Vec<u64>> =
            shape.iter().map(|d| if let Dim::Known(n) = d { Some(*n) } else { None }).collect();
        match (a.rank, all_known) {
            (Rank::Fixed(1), Some(n)) if !generic && n.len() == 1 => write!(f, "{}", n[0])?,
            _ => {
                write!(f, "(")?;
                for (i, d) in shape.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    match d {
                        Dim::Known(n) => write!(f, "{n}")?,
                        Dim::Unknown => write!(f, ":")?,
                        Dim::Param(p) => write!(f, "{p}")?,
                    }
                }
                write!(f, ")")?;
            }
        }
    }
    if let Some(acc) = a.mods.access {
        write!(f, "'{}", acc.name())?;
    }
    if a.mods.is_const {
        write!(f, "'const")?;
    }
    if a.mods.nocopy {
        write!(f, "'nocopy")?;
    }
    for h in &a.mods.hints {
        write!(f, "'{h}")?;
    }
    Ok(())
}
