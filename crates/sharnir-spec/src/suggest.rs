//! "Did you mean" hints for misspelt keys and names.

/// The candidate closest to `word` by edit distance, if it is close enough
/// to be a plausible typo (at most a third of the word, and at least one),
/// the word in other case (`MASS`, `K` for `k`) or a plural or
/// abbreviation of it (`bodies`, `desc`). Distances ignore case first, so
/// that `K` suggests `k` rather than another name one letter away (`g`);
/// among candidates alike but for case, the closest in case wins.
pub(crate) fn closest<'c>(
    word: &str,
    candidates: impl IntoIterator<Item = &'c str>,
) -> Option<&'c str> {
    let limit = (word.chars().count() / 3).max(1);
    let folded = word.to_lowercase();
    let stem = |c: &str| {
        let shared = word
            .chars()
            .zip(c.chars())
            .take_while(|(a, b)| a == b)
            .count();
        shared >= 3.max(word.chars().count().min(c.chars().count()) / 2)
    };
    candidates
        .into_iter()
        .map(|c| {
            let exact = edit_distance(word, c);
            (edit_distance(&folded, &c.to_lowercase()), exact, c)
        })
        .filter(|&(ignoring_case, exact, c)| ignoring_case == 0 || exact <= limit || stem(c))
        .min_by_key(|&(ignoring_case, exact, _)| (ignoring_case, exact))
        .map(|(_, _, c)| c)
}

/// `" (did you mean `x`?)"` when a close candidate exists, else nothing.
pub(crate) fn did_you_mean<'c>(
    word: &str,
    candidates: impl IntoIterator<Item = &'c str>,
) -> String {
    closest(word, candidates)
        .map(|c| format!(" (did you mean `{c}`?)"))
        .unwrap_or_default()
}

/// Levenshtein distance over characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut current = Vec::with_capacity(b.len() + 1);
        current.push(i + 1);
        for (j, cb) in b.iter().enumerate() {
            let substitute = previous
                .get(j)
                .copied()
                .unwrap_or(usize::MAX)
                .saturating_add(usize::from(ca != *cb));
            let delete = previous
                .get(j + 1)
                .copied()
                .unwrap_or(usize::MAX)
                .saturating_add(1);
            let insert = current
                .get(j)
                .copied()
                .unwrap_or(usize::MAX)
                .saturating_add(1);
            current.push(substitute.min(delete).min(insert));
        }
        previous = current;
    }
    previous.last().copied().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances() {
        assert_eq!(edit_distance("mass", "mass"), 0);
        assert_eq!(edit_distance("mas", "mass"), 1);
        assert_eq!(edit_distance("inertia", "intertia"), 1);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
    }

    #[test]
    fn only_plausible_typos_are_suggested() {
        let keys = ["name", "mass", "com", "inertia"];
        assert_eq!(closest("mas", keys), Some("mass"));
        assert_eq!(closest("intertia", keys), Some("inertia"));
        assert_eq!(closest("colour", keys), None);
        assert_eq!(did_you_mean("coM", keys), " (did you mean `com`?)");
        assert_eq!(
            closest("bodies", ["mechanism", "parameters", "body", "joint"]),
            Some("body")
        );
        assert_eq!(
            closest("params", ["mechanism", "parameters", "body", "joint"]),
            Some("parameters")
        );
        assert_eq!(closest("bo", ["body"]), None);
    }

    #[test]
    fn the_same_name_in_other_case_is_preferred() {
        assert_eq!(closest("K", ["g", "k"]), Some("k"));
        assert_eq!(closest("M", ["I", "L", "g", "m"]), Some("m"));
        assert_eq!(closest("MASS", ["name", "mass", "com"]), Some("mass"));
        assert_eq!(closest("Gain", ["GAIN", "gain"]), Some("gain"));
        // Case alone does not make a distant name plausible.
        assert_eq!(closest("Pi", ["I", "L", "g", "m"]), None);
    }
}
