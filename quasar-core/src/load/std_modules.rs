//! The original's library modules (`import "imfilter.q"`), by name: what this version
//! provides for each. Shipping a module is one table entry: give it its Quasar `source` (the
//! loader then parses it as if it were a file called `<std>/NAME`), and the names it defines
//! stop being reported as missing.

/// One module of the original's library.
#[derive(Debug)]
pub struct StdModule {
    /// The name programs import it by (`"imfilter.q"`).
    pub name: &'static str,
    /// Its Quasar source, once it ships; `None` until then.
    pub source: Option<&'static str>,
    /// Whether everything it defines is built into the compiler already (the half types of
    /// `floattypes.q`): importing it is then fine without a source.
    pub built_in: bool,
    /// The functions real code and the manual call from it, so that a call to one of them
    /// names the module when the module is not available.
    pub functions: &'static [&'static str],
}

impl StdModule {
    /// Whether importing it provides its definitions in this version.
    pub fn available(&self) -> bool {
        self.built_in || self.source.is_some()
    }
}

const fn module(name: &'static str, functions: &'static [&'static str]) -> StdModule {
    StdModule { name, source: None, built_in: false, functions }
}

/// The modules, by name. (`system.q`'s type predicates and `find` are built-in functions, so
/// they work whether or not it is imported.)
pub const MODULES: &[StdModule] = &[
    module(
        "system.q",
        &["isempty", "diag", "vertcat", "horzcat", "median", "std", "var", "nextpow2", "numel2"],
    ),
    // Its integer types are built in; its conversions are not yet.
    module(
        "inttypes.q",
        &["uint8_to_float", "uint16_to_float", "float_to_uint8", "float_to_uint16"],
    ),
    StdModule { name: "floattypes.q", source: None, built_in: true, functions: &[] },
    module("imfilter.q", &["imfilter", "gaussian_filter", "imfilter_sep", "imfilter_nonsep"]),
    module("imresize.q", &["imresize"]),
    module("imboundary.q", &["imboundary", "mirror_boundary", "extend_boundary"]),
    module(
        "colortransform.q",
        &[
            "rgb2gray",
            "rgb2lab",
            "lab2rgb",
            "rgb2yuv",
            "yuv2rgb",
            "rgb2hsv",
            "hsv2rgb",
            "rgb2xyz",
            "xyz2rgb",
            "sRGB_encode",
            "sRGB_decode",
        ],
    ),
    module("immorphology.q", &["imerode", "imdilate", "imopen", "imclose"]),
    module("immedfilt.q", &["immedfilt", "medfilt"]),
    module("linalg.q", &["symeig", "logdet", "cholesky", "linsolve", "eig", "qr"]),
];

/// The module imported as `written` (its file name, case-insensitively, as on the
/// original's Windows file systems).
pub fn lookup(written: &str) -> Option<&'static StdModule> {
    MODULES.iter().find(|m| m.name.eq_ignore_ascii_case(written))
}

/// The unavailable module among `imported` that defines `function`, if the table knows it.
pub fn defining<'m>(function: &str, imported: &[&'m StdModule]) -> Option<&'m StdModule> {
    imported.iter().copied().find(|m| m.functions.contains(&function))
}

/// The module of the table that defines `function`, imported or not, if it is not available.
pub fn unavailable_defining(function: &str) -> Option<&'static StdModule> {
    MODULES.iter().find(|m| !m.available() && m.functions.contains(&function))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modules_are_found_by_name() {
        assert_eq!(lookup("imfilter.q").map(|m| m.name), Some("imfilter.q"));
        assert_eq!(lookup("IMRESIZE.Q").map(|m| m.name), Some("imresize.q"));
        assert!(lookup("mine.q").is_none());
        assert!(lookup("floattypes.q").is_some_and(StdModule::available));
        assert!(!lookup("imresize.q").is_some_and(StdModule::available));
        let imported = [lookup("imresize.q").unwrap(), lookup("colortransform.q").unwrap()];
        assert_eq!(defining("rgb2lab", &imported).map(|m| m.name), Some("colortransform.q"));
        assert!(defining("imerode", &imported).is_none());
    }

    #[test]
    fn names_are_unique() {
        for (i, m) in MODULES.iter().enumerate() {
            assert!(MODULES[..i].iter().all(|n| n.name != m.name), "{}", m.name);
        }
    }
}
