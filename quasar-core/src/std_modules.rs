//! The original's standard library modules (`import "system.q"`, `"imfilter.q"`, …), shipped
//! as Quasar source with the compiler and compiled like any imported file. The compiler carries
//! their text because it compiles them at the user's build time; the Rust functions they call
//! (`chol`, `fft2`, …) are built-ins implemented in quasar-std.
//!
//! A file of the same name next to the importing file takes precedence (a program may ship
//! its own `system.q`). The original's definitions are not published: each module's header
//! says which semantics it follows (the manual where it defines them, MATLAB otherwise).

/// Name as written in `import "…"` → source text.
pub const MODULES: &[(&str, &str)] = &[
    ("system.q", include_str!("../modules/system.q")),
    ("imfilter.q", include_str!("../modules/imfilter.q")),
    ("imresize.q", include_str!("../modules/imresize.q")),
    ("imboundary.q", include_str!("../modules/imboundary.q")),
    ("colortransform.q", include_str!("../modules/colortransform.q")),
    ("immorphology.q", include_str!("../modules/immorphology.q")),
    ("linalg.q", include_str!("../modules/linalg.q")),
    ("inttypes.q", include_str!("../modules/inttypes.q")),
    ("floattypes.q", include_str!("../modules/floattypes.q")),
    ("immedfilt.q", include_str!("../modules/immedfilt.q")),
];

/// The source of the standard module imported as `written` (a bare file name).
pub fn source(written: &str) -> Option<&'static str> {
    MODULES.iter().find(|(name, _)| *name == written).map(|(_, text)| *text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_module_parses() {
        for (name, text) in MODULES {
            let parsed = crate::syntax::parse(text, crate::FileId(0));
            let errors: Vec<_> = parsed.diagnostics.iter().filter(|d| d.is_error()).collect();
            assert!(errors.is_empty(), "{name}: {errors:?}");
        }
        assert!(source("system.q").is_some());
        assert!(source("nonexistent.q").is_none());
    }
}
