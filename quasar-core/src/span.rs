//! Source positions: every token and AST node carries a [`Span`].

use std::fmt;

/// Identifies one source file inside a [`crate::diagnostics::SourceMap`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FileId(pub u32);

/// A byte range in one file, with the 1-based line and column of its start.
///
/// Spans are metadata: two spans always compare equal, so that `==` on AST
/// nodes compares structure only (as `syn` does). Compare [`Span::range`]
/// explicitly where positions matter.
#[derive(Clone, Copy, Default)]
pub struct Span {
    /// The file the range is in.
    pub file: FileId,
    /// Byte offset of the first byte.
    pub start: u32,
    /// Byte offset just past the last byte.
    pub end: u32,
    /// 1-based line of `start`.
    pub line: u32,
    /// 1-based column (in characters) of `start`.
    pub col: u32,
}

impl Span {
    /// A span from its parts.
    pub fn new(file: FileId, start: u32, end: u32, line: u32, col: u32) -> Span {
        Span { file, start, end, line, col }
    }

    /// The byte range `start..end`.
    pub fn range(&self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }

    /// The smallest span covering `self` and `other` (positions of the earlier one).
    pub fn to(self, other: Span) -> Span {
        let (first, _) = if other.start < self.start { (other, self) } else { (self, other) };
        Span {
            file: self.file,
            start: first.start,
            end: self.end.max(other.end),
            line: first.line,
            col: first.col,
        }
    }
}

impl PartialEq for Span {
    fn eq(&self, _other: &Span) -> bool {
        true
    }
}

impl Eq for Span {}

impl std::hash::Hash for Span {
    /// Consistent with `==`: all spans are equal, so they all hash alike.
    fn hash<H: std::hash::Hasher>(&self, _state: &mut H) {}
}

impl fmt::Debug for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "@{}:{}", self.line, self.col)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn join_covers_both() {
        let a = Span::new(FileId(0), 4, 6, 1, 5);
        let b = Span::new(FileId(0), 10, 12, 2, 3);
        let j = a.to(b);
        assert_eq!(j.range(), 4..12);
        assert_eq!((j.line, j.col), (1, 5));
        assert_eq!(b.to(a).range(), 4..12);
    }
}
