//! "Did you mean" suggestions: the known name closest to a misspelt one, by edit distance
//! (insertions, deletions, substitutions and swaps of two neighbouring characters), as rustc
//! suggests names.

/// The candidate closest to `name`, when it is close enough to be a likely misspelling: a
/// case-insensitive match, or at most one edit per three characters (at least one).
pub fn similar<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let limit = (name.chars().count() / 3).max(1);
    let mut best: Option<(usize, &str)> = None;
    for c in candidates {
        if c == name {
            continue;
        }
        let d = if c.eq_ignore_ascii_case(name) { 0 } else { distance(name, c) };
        // Ties go to the first candidate in sorted order, so the result is deterministic.
        let better = match best {
            None => true,
            Some((bd, bc)) => d < bd || (d == bd && c < bc),
        };
        if d <= limit && better {
            best = Some((d, c));
        }
    }
    best.map(|(_, c)| c)
}

/// The optimal-string-alignment distance between `a` and `b`.
fn distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut prev2 = vec![0; b.len() + 1];
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut row = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            row[j] = (prev[j] + 1).min(row[j - 1] + 1).min(prev[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                row[j] = row[j].min(prev2[j - 2] + 1);
            }
        }
        prev2 = std::mem::replace(&mut prev, row);
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances() {
        assert_eq!(distance("zeroes", "zeros"), 1);
        assert_eq!(distance("lenght", "length"), 1);
        assert_eq!(distance("kitten", "sitting"), 3);
        assert_eq!(distance("", "abc"), 3);
    }

    #[test]
    fn suggests_close_names_only() {
        let names = ["zeros", "ones", "size", "sum", "numel"];
        assert_eq!(similar("zeroes", names), Some("zeros"));
        assert_eq!(similar("Sum", names), Some("sum"));
        assert_eq!(similar("nmuel", names), Some("numel"));
        assert_eq!(similar("foo", names), None);
        assert_eq!(similar("sum", names), None, "the name itself is not a suggestion");
        assert_eq!(similar("x", ["y", "xs"]), Some("xs"));
    }
}
