//! Which entries ran: a fingerprint of an entry's PTX text that stays the same from one build
//! (and process) to the next, so that the entries a test suite launched can be matched with
//! those the compiler emits for the project's sources.

/// The text of `.entry name` in `module`: from `.visible .entry name(` to the line `}` that
/// closes it (the back end writes no nested braces at the start of a line).
pub fn entry_text<'a>(module: &'a str, name: &str) -> Option<&'a str> {
    let head = format!(".entry {name}(");
    let start = module.match_indices(&head).map(|(i, _)| i).next()?;
    let line_start = module[..start].rfind('\n').map_or(0, |i| i + 1);
    let rest = &module[line_start..];
    let end = rest.find("\n}\n").map_or(rest.len(), |i| i + 3);
    Some(&rest[..end])
}

/// The names of the entries of `module`, in order.
pub fn entry_names(module: &str) -> Vec<&str> {
    module
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix(".visible .entry "))
        .filter_map(|l| l.split('(').next())
        .map(str::trim)
        .collect()
}

/// FNV-1a (64 bits) of the entry's text with its name (which numbers the kernel within its
/// module, and prefixes its parameters), comments and error-site numbers taken out: equal
/// for the same kernel compiled alike, whatever the module around it.
pub fn fingerprint(module: &str, name: &str) -> Option<u64> {
    // Without the `// line N` comments and `.loc` directives: `quasar!` numbers the lines of
    // an inline block from the Rust file's, other compilations from the block's start.
    let text: String = entry_text(module, name)?
        .lines()
        .filter(|l| {
            let l = l.trim_start();
            !l.starts_with("//") && !l.starts_with(".loc")
        })
        .map(without_site_number)
        .flat_map(|l| [l, "\n"])
        .collect();
    let text = without_name(&text, name);
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    Some(h)
}

/// A failing check's store of its error-site number (`st.global.u32 [%rd7+4], 12;`, word 1
/// of the error record) without the number: sites are numbered across the module, so the
/// same kernel has other numbers when the module holds other checks before it.
fn without_site_number(line: &str) -> &str {
    let t = line.trim_start();
    let site = t.strip_prefix("st.global.u32 [%rd").and_then(|r| {
        let (reg, rest) = r.split_once("+4], ")?;
        let num = rest.strip_suffix(';')?;
        let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        (digits(reg) && digits(num)).then_some(())
    });
    match site {
        Some(()) => "st.global.u32 [site]",
        None => line,
    }
}

/// `text` with each occurrence of the identifier `name` (alone or as the prefix of a
/// parameter, `name_x`) replaced by a byte that PTX text does not contain.
fn without_name(text: &str, name: &str) -> String {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '$' || c == '%';
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(name) {
        let before = out.chars().last().or_else(|| rest[..i].chars().last());
        let before = rest[..i].chars().last().or(before);
        let after = rest[i + name.len()..].chars().next();
        out.push_str(&rest[..i]);
        if before.is_some_and(ident) || after.is_some_and(|c| c.is_ascii_alphanumeric()) {
            out.push_str(name);
        } else {
            out.push('\u{1}');
        }
        rest = &rest[i + name.len()..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const TWO: &str =
        ".version 7.8\n// a (a)\n.visible .entry a(\n\t.param .u64 p\n)\n{\n\tret;\n}\n\
                       // b (b)\n.visible .entry b(\n)\n{\n\tret;\n}\n";

    #[test]
    fn entries_are_found_and_fingerprinted_by_their_own_text() {
        assert_eq!(entry_names(TWO), ["a", "b"]);
        assert_eq!(entry_text(TWO, "b"), Some(".visible .entry b(\n)\n{\n\tret;\n}\n"));
        let alone = ".version 7.8\n.visible .entry b(\n)\n{\n\tret;\n}\n";
        assert_eq!(fingerprint(TWO, "b"), fingerprint(alone, "b"));
        assert_ne!(fingerprint(TWO, "a"), fingerprint(TWO, "b"));
        assert_eq!(fingerprint(TWO, "c"), None);
        // The same kernel under another number.
        let renamed = ".visible .entry b_7(\n)\n{\n\tret;\n}\n";
        assert_eq!(fingerprint(TWO, "b"), fingerprint(renamed, "b_7"));
        let commented = ".visible .entry b(\n)\n{\n\t// line 12\n\tret;\n}\n";
        assert_eq!(fingerprint(TWO, "b"), fingerprint(commented, "b"));
        let located = ".visible .entry b(\n)\n{\n\t.loc 1 12 5\n\tret;\n}\n";
        assert_eq!(fingerprint(TWO, "b"), fingerprint(located, "b"));
        // The same checks under other error-site numbers; a stored register is code.
        let site =
            |s: &str| format!(".visible .entry b(\n)\n{{\n\tst.global.u32 [%rd28+4], {s};\n}}\n");
        assert_eq!(fingerprint(&site("0"), "b"), fingerprint(&site("12"), "b"));
        assert_ne!(fingerprint(&site("%r3"), "b"), fingerprint(&site("%r4"), "b"));
    }
}
