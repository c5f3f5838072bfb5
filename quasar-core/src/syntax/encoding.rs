//! Source text that is not UTF-8. Quasar's own tools ran on Windows, and real `.q` files carry
//! Windows-1252 bytes (`é`, `µ`, `°` in comments). Such a file is read as Windows-1252, the
//! superset of Latin-1 that Windows editors write, with one warning; the compiler then works on
//! the decoded text, so every span, line and column refers to what the user sees.

use crate::diagnostics::Diagnostic;
use crate::span::{FileId, Span};

/// Text decoded from a file's bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decoded {
    /// The text as UTF-8.
    pub text: String,
    /// When the file was decoded as Windows-1252: the byte offset (in `text`) of its first
    /// character that is not ASCII.
    pub fallback_at: Option<usize>,
}

impl Decoded {
    /// The warning for a file decoded as Windows-1252 (registered as `file`), at its first
    /// character that is not ASCII.
    pub fn warning(&self, file: FileId) -> Option<Diagnostic> {
        let at = self.fallback_at?;
        let before = &self.text[..at];
        let line = before.matches('\n').count() as u32 + 1;
        let line_start = before.rfind('\n').map_or(0, |n| n + 1);
        let col = before[line_start..].chars().count() as u32 + 1;
        let end = at + self.text[at..].chars().next().map_or(0, char::len_utf8);
        let span = Span::new(file, at as u32, end as u32, line, col);
        Some(
            Diagnostic::warning(span, "this file is not UTF-8; it was read as Windows-1252")
                .with_label("the first character that is not ASCII")
                .with_note("save the file as UTF-8 to silence this warning"),
        )
    }
}

/// Decodes `bytes` as UTF-8 (a leading byte-order mark is dropped) or, when they are not
/// valid UTF-8, as Windows-1252. Never fails: every byte maps to a character.
pub fn decode(bytes: Vec<u8>) -> Decoded {
    let bytes = match bytes.strip_prefix(b"\xEF\xBB\xBF") {
        Some(rest) => rest.to_vec(),
        None => bytes,
    };
    match String::from_utf8(bytes) {
        Ok(text) => Decoded { text, fallback_at: None },
        Err(e) => {
            let text: String = e.into_bytes().into_iter().map(windows_1252).collect();
            // Invalid UTF-8 has a byte above 0x7F, so there is a non-ASCII character.
            let fallback_at = text.char_indices().find(|(_, c)| !c.is_ascii()).map(|(i, _)| i);
            Decoded { text, fallback_at }
        }
    }
}

/// The character of one Windows-1252 byte. 0x80–0x9F hold the typographic characters that
/// Windows puts where Latin-1 has control codes; the five unassigned ones map to the
/// control codes of the same value, as the WHATWG encoding standard does.
fn windows_1252(b: u8) -> char {
    const HIGH: [char; 32] = [
        '€', '\u{81}', '‚', 'ƒ', '„', '…', '†', '‡', 'ˆ', '‰', 'Š', '‹', 'Œ', '\u{8D}', 'Ž',
        '\u{8F}', '\u{90}', '‘', '’', '“', '”', '•', '–', '—', '˜', '™', 'š', '›', 'œ', '\u{9D}',
        'ž', 'Ÿ',
    ];
    match b {
        0x80..=0x9F => HIGH[usize::from(b - 0x80)],
        _ => char::from(b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf8_is_kept_and_a_bom_dropped() {
        let d = decode("x = 1 % é\n".as_bytes().to_vec());
        assert_eq!(d, Decoded { text: "x = 1 % é\n".into(), fallback_at: None });
        let d = decode(b"\xEF\xBB\xBFy = 2".to_vec());
        assert_eq!(d.text, "y = 2");
        assert!(d.warning(FileId(0)).is_none());
    }

    #[test]
    fn windows_1252_bytes_become_their_characters() {
        // "% caf\xE9 \x80 \x96" in Windows-1252: é, €, en dash (Python: bytes.decode("cp1252")).
        let d = decode(b"a = 1\n% caf\xE9 \x80 \x96\n".to_vec());
        assert_eq!(d.text, "a = 1\n% caf\u{E9} \u{20AC} \u{2013}\n");
        let w = d.warning(FileId(3)).expect("a warning");
        assert!(!w.is_error());
        assert_eq!((w.span.file, w.span.line, w.span.col), (FileId(3), 2, 6));
        assert_eq!(&d.text[w.span.range()], "é");
    }

    #[test]
    fn every_byte_decodes() {
        let all: Vec<u8> = (0..=255).collect();
        let d = decode(all);
        assert_eq!(d.text.chars().count(), 256);
        assert_eq!(d.text.chars().nth(0xA0), Some('\u{A0}'));
        assert_eq!(d.text.chars().nth(0x9F), Some('Ÿ'));
        assert!(d.warning(FileId(0)).is_some());
    }
}
