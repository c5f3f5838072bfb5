//! Hardware-texture hints on kernel arrays (`x : mat'hwtex_linear`, manual §9.3): what a
//! read or write at a real position may be. The reads themselves become software
//! interpolation in `transform::texture_reads`.

use super::scope::FnLowerer;
use crate::diagnostics::Diagnostic;
use crate::ir;
use crate::sema::types::{Dim, Rank, TextureFilter, Type};
use crate::span::Span;

/// Whether `t` is a real index operand (a number or a vector of them).
fn real(t: &Type) -> bool {
    t.elem().is_scalar()
}

impl FnLowerer<'_, '_> {
    /// In kernel code, a read of the texture `base` at real positions: linear interpolation
    /// needs real elements, and the position a known number of components.
    pub(super) fn check_texture_read(&mut self, base: &Type, subs: &[ir::Index], span: Span) {
        let Some(filter) = self.texture_here(base) else { return };
        let operands = real_operands(subs);
        if operands.is_empty() {
            return;
        }
        let elem = base.elem();
        if filter == TextureFilter::Linear && !elem.is_scalar() && elem.is_number() {
            let d = Diagnostic::error(
                span,
                format!("`'hwtex_linear` interpolates real elements; this texture holds {elem}"),
            )
            .with_note("read it with `'hwtex_nearest`, or at integer positions");
            self.report(d);
        }
        for x in operands {
            let unknown = matches!(&x.ty, Type::Array(a)
                if a.rank != Rank::Fixed(1) || !matches!(a.shape.as_deref(), Some([Dim::Known(_)])));
            if unknown {
                let d = Diagnostic::error(
                    x.span,
                    format!(
                        "the position of a texture read needs a known number of components; this is {}",
                        x.ty
                    ),
                )
                .with_note("give the position a fixed size (`p : vec2`) or one subscript per dimension");
                self.report(d);
            }
        }
    }

    /// In kernel code, a write to the texture `base` at real positions (a surface write
    /// addresses elements).
    pub(super) fn check_texture_write(&mut self, base: &Type, subs: &[ir::Index], span: Span) {
        if self.texture_here(base).is_none() || real_operands(subs).is_empty() {
            return;
        }
        let d = Diagnostic::error(span, "a texture is written at integer positions only")
            .with_label("this position is real")
            .with_note("round the position first: `x[int(round(p))] = v`");
        self.report(d);
    }

    /// The texture filter of `base` where it takes effect (kernel and device code).
    fn texture_here(&self, base: &Type) -> Option<TextureFilter> {
        let f = base.as_array()?.mods.texture()?;
        self.in_kernel_context().then_some(f)
    }
}

/// The real operands among the subscripts.
fn real_operands(subs: &[ir::Index]) -> Vec<&ir::Expr> {
    subs.iter()
        .filter_map(|i| match i {
            ir::Index::At(x) | ir::Index::Spread(x) if real(&x.ty) => Some(x),
            _ => None,
        })
        .collect()
}
