//! The original's library modules (`import "imfilter.q"`), by name. Those that ship with the
//! compiler are Quasar source ([`crate::std_modules`]); the others are listed here with the
//! functions real code calls from them, so that such a call names its module. Shipping one of
//! these is moving it to `crate::std_modules::MODULES`.

use std::sync::OnceLock;

/// A module of the original's library that this version does not ship.
#[derive(Debug)]
pub struct NotShipped {
    /// The name programs import it by (`"imfilter.q"`).
    pub name: &'static str,
    /// The functions real code calls from it.
    pub functions: &'static [&'static str],
}

/// The modules not shipped yet: none (every module of the original that real code imports
/// ships). The unit tests list a made-up one to keep the path tested.
#[cfg(not(test))]
pub const NOT_SHIPPED: &[NotShipped] = &[];
/// The modules not shipped yet (for the unit tests: a made-up one).
#[cfg(test)]
pub const NOT_SHIPPED: &[NotShipped] =
    &[NotShipped { name: "imunshipped.q", functions: &["unshipped_filter"] }];

/// What a library module name resolves to.
#[derive(Debug)]
pub enum Library {
    /// Shipped: its source.
    Shipped(&'static str, &'static str),
    /// A known library module that does not ship: its name and the functions code calls from it.
    NotShipped(&'static NotShipped),
}

/// The module imported as `written` (its file name; case-insensitively, as on the original's
/// Windows file systems).
pub fn lookup(written: &str) -> Option<Library> {
    let shipped = crate::std_modules::MODULES.iter().find(|(n, _)| n.eq_ignore_ascii_case(written));
    if let Some((name, source)) = shipped {
        return Some(Library::Shipped(name, source));
    }
    NOT_SHIPPED.iter().find(|m| m.name.eq_ignore_ascii_case(written)).map(Library::NotShipped)
}

/// The library module that defines `function`: a shipped one (from its source), or one of
/// [`NOT_SHIPPED`]; with whether it ships.
pub fn defining(function: &str) -> Option<(&'static str, bool)> {
    static SHIPPED: OnceLock<Vec<(&'static str, Vec<String>)>> = OnceLock::new();
    let shipped = SHIPPED.get_or_init(|| {
        crate::std_modules::MODULES
            .iter()
            .map(|(name, source)| (*name, function_names(source)))
            .collect()
    });
    if let Some((name, _)) = shipped.iter().find(|(_, fs)| fs.iter().any(|f| f == function)) {
        return Some((name, true));
    }
    NOT_SHIPPED.iter().find(|m| m.functions.contains(&function)).map(|m| (m.name, false))
}

/// The top-level functions a module's source defines.
fn function_names(source: &str) -> Vec<String> {
    let parsed = crate::syntax::parse(source, crate::FileId(u32::MAX));
    parsed
        .program
        .body
        .iter()
        .filter_map(|s| match &s.kind {
            crate::syntax::ast::StmtKind::Function(f) => Some(f.name.name.clone()),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modules_are_found_by_name() {
        assert!(matches!(lookup("imfilter.q"), Some(Library::Shipped("imfilter.q", _))));
        assert!(matches!(lookup("IMRESIZE.Q"), Some(Library::Shipped("imresize.q", _))));
        assert!(matches!(lookup("immedfilt.q"), Some(Library::Shipped("immedfilt.q", _))));
        assert!(matches!(lookup("imunshipped.q"), Some(Library::NotShipped(_))));
        assert!(lookup("mine.q").is_none());
        assert_eq!(defining("medfilt2"), Some(("immedfilt.q", true)));
        assert_eq!(defining("unshipped_filter"), Some(("imunshipped.q", false)));
        assert_eq!(defining("no_such_function"), None);
    }

    #[test]
    fn a_shipped_modules_functions_are_known() {
        // Every shipped module defines at least one function the table finds.
        for (name, source) in crate::std_modules::MODULES {
            let fs = function_names(source);
            if let Some(f) = fs.first() {
                assert!(defining(f).is_some(), "{name}: {f}");
            }
        }
    }
}
