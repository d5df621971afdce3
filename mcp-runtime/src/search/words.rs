//! The words a tool is found by, and a query's: identifiers split at their
//! case and punctuation (`createPullRequest`, `create_pull_request` and
//! "create a pull request" give the same words), lowercased, common
//! English words left out, and each reduced to its stem by the Snowball
//! English stemmer (`creating`, `created` and `creates` are `creat`), the
//! same way on both sides.

use std::sync::LazyLock;

use rust_stemmers::{Algorithm, Stemmer};

/// Words too common in tool descriptions to tell one tool from another.
const STOP_WORDS: &[&str] = &[
    "a",
    "about",
    "against",
    "all",
    "am",
    "an",
    "and",
    "any",
    "are",
    "as",
    "at",
    "be",
    "because",
    "been",
    "being",
    "between",
    "both",
    "but",
    "by",
    "can",
    "could",
    "did",
    "do",
    "does",
    "doing",
    "during",
    "each",
    "for",
    "from",
    "given",
    "had",
    "has",
    "have",
    "having",
    "he",
    "her",
    "here",
    "hers",
    "herself",
    "him",
    "himself",
    "his",
    "how",
    "i",
    "if",
    "in",
    "into",
    "is",
    "it",
    "its",
    "itself",
    "just",
    "me",
    "my",
    "myself",
    "of",
    "on",
    "or",
    "other",
    "ought",
    "our",
    "ours",
    "ourselves",
    "she",
    "should",
    "so",
    "some",
    "such",
    "than",
    "that",
    "the",
    "their",
    "theirs",
    "them",
    "themselves",
    "then",
    "there",
    "these",
    "they",
    "this",
    "those",
    "through",
    "to",
    "until",
    "use",
    "used",
    "using",
    "via",
    "was",
    "we",
    "were",
    "what",
    "when",
    "where",
    "which",
    "while",
    "who",
    "whom",
    "why",
    "will",
    "with",
    "would",
    "you",
    "your",
    "yours",
    "yourself",
    "yourselves",
];

static STEMMER: LazyLock<Stemmer> = LazyLock::new(|| Stemmer::create(Algorithm::English));

/// The stems of the words met, kept while an index is built: tools repeat
/// their words (every tool of a server has the same parameters), and
/// stemming is most of the index's cost.
#[derive(Default)]
pub(super) struct Stems(std::collections::HashMap<String, String>);

/// Calls `each` with every word of a tool's `text`, in order: the stem of
/// each part of an identifier, and of the whole when case split it
/// (`GitHub` is `github`, `git` and `hub`, so that "GitHub", "github" and
/// "git hub" all find it).
pub(super) fn each_word(text: &str, stems: &mut Stems, mut each: impl FnMut(String)) {
    let mut stemmed = |part: &str, each: &mut dyn FnMut(String)| {
        let lower = part.to_lowercase();
        if lower.is_empty() || STOP_WORDS.binary_search(&lower.as_str()).is_ok() {
            return;
        }
        let stem = stems.0.entry(lower).or_insert_with_key(|lower| stem(lower));
        each(stem.clone());
    };
    for piece in text.split(|c: char| !c.is_alphanumeric()) {
        let mut parts = 0;
        split_case(piece, |_| parts += 1);
        if parts > 1 {
            stemmed(piece, &mut each);
        }
        split_case(piece, |part| stemmed(part, &mut each));
    }
}

/// Calls `each` with every word of a query: as [`each_word`], but a
/// case-split word is one word, its whole when the tools have it (`known`),
/// else its parts: "MongoDB" asks for `mongodb` once, not three times. A
/// hyphenated word is one too when the tools or the synonyms know it
/// joined ("re-run" is `rerun`, "e-mail" `email`).
pub(super) fn each_query_word(text: &str, known: impl Fn(&str) -> bool, mut each: impl FnMut(String)) {
    for compound in text.split(|c: char| !c.is_alphanumeric() && c != '-') {
        if compound.contains('-') {
            let joined = stem(&compound.replace('-', "").to_lowercase());
            if known(&joined) || synonyms(&joined).next().is_some() {
                each(joined);
                continue;
            }
        }
        query_pieces(compound, &known, &mut each);
    }
}

fn query_pieces(text: &str, known: &impl Fn(&str) -> bool, mut each: impl FnMut(String)) {
    for piece in text.split(|c: char| !c.is_alphanumeric()) {
        let mut parts = 0;
        split_case(piece, |_| parts += 1);
        if parts > 1 {
            let mut whole = None;
            word(piece, &mut |w| whole = Some(w));
            if let Some(whole) = whole.filter(|w| known(w)) {
                each(whole);
                continue;
            }
        }
        split_case(piece, |part| word(part, &mut each));
    }
}

fn word(text: &str, each: &mut impl FnMut(String)) {
    let word = text.to_lowercase();
    if word.is_empty() || STOP_WORDS.binary_search(&word.as_str()).is_ok() {
        return;
    }
    each(stem(&word));
}

/// The stem of a lowercase word.
pub(super) fn stem(word: &str) -> String {
    STEMMER.stem(word).into_owned()
}

/// The parts of an identifier at its case changes: `createPullRequest` is
/// `create`, `Pull`, `Request`; `HTTPServer` is `HTTP`, `Server`; `s3Bucket`
/// is `s3`, `Bucket`.
fn split_case(piece: &str, mut each: impl FnMut(&str)) {
    let mut start = 0;
    let mut chars = piece.char_indices().peekable();
    let mut previous: Option<char> = None;
    while let Some((at, c)) = chars.next() {
        if let Some(previous) = previous {
            let next_is_lower = chars.peek().is_some_and(|(_, n)| n.is_lowercase());
            let boundary = c.is_uppercase()
                && (previous.is_lowercase() || previous.is_ascii_digit() || (previous.is_uppercase() && next_is_lower));
            if boundary {
                each(&piece[start..at]);
                start = at;
            }
        }
        previous = Some(c);
    }
    if start < piece.len() {
        each(&piece[start..]);
    }
}

/// Words that tools and the people who ask for them use for one another:
/// the verbs of every API (a query's "remove" finds a tool that
/// "deletes") and the usual abbreviations. Only general vocabulary: a
/// list tuned to particular tools would rank well on those alone.
const SYNONYMS: &[&[&str]] = &[
    &["create", "add", "new", "make", "open"],
    &["delete", "remove", "erase", "drop", "destroy"],
    &["get", "fetch", "retrieve", "read", "show", "view"],
    &["list", "enumerate", "show"],
    &["search", "find", "look", "lookup", "query"],
    &["update", "edit", "modify", "change", "set"],
    &["cancel", "stop", "abort", "terminate"],
    &["run", "execute", "start", "launch", "trigger"],
    &["retry", "rerun", "restart"],
    &["send", "post", "message"],
    &["comment", "reply", "note"],
    &["issue", "ticket", "bug"],
    &["pr", "pull"],
    &["mr", "merge"],
    &["repo", "repository"],
    &["dir", "directory", "folder"],
    &["db", "database"],
    &["doc", "docs", "document", "documentation"],
    &["log", "logs", "history"],
    &["k8s", "kubernetes"],
];

/// The stems of the words [`SYNONYMS`] puts beside `stem`'s, not itself.
pub(super) fn synonyms(stem: &str) -> impl Iterator<Item = String> + '_ {
    static STEMMED: LazyLock<Vec<Vec<String>>> =
        LazyLock::new(|| SYNONYMS.iter().map(|group| group.iter().map(|word| self::stem(word)).collect()).collect());
    STEMMED.iter().filter(move |group| group.iter().any(|s| s == stem)).flatten().filter(move |s| *s != stem).cloned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<String> {
        let mut out = Vec::new();
        each_word(text, &mut Stems::default(), |w| out.push(w));
        out
    }

    #[test]
    fn stop_words_are_sorted_for_the_binary_search() {
        assert!(STOP_WORDS.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn identifiers_and_prose_give_the_same_words() {
        let expected = ["creat", "pull", "request"];
        assert_eq!(words("create_pull_request"), expected);
        assert_eq!(words("create-pull-requests"), expected);
        assert_eq!(words("Creating a pull request"), expected);
        assert_eq!(words("createPullRequest"), ["createpullrequest", "creat", "pull", "request"]);
        assert_eq!(words("GitHub s3Bucket"), ["github", "git", "hub", "s3bucket", "s3", "bucket"]);
    }

    #[test]
    fn inflections_share_a_stem() {
        assert_eq!(words("files listing repositories deleted merged"), words("file list repository delete merge"));
    }

    #[test]
    fn synonyms_are_found_by_stem_and_exclude_the_word_itself() {
        let of_remove: Vec<String> = synonyms(&stem("remove")).collect();
        assert!(of_remove.contains(&stem("delete")), "{of_remove:?}");
        assert!(!of_remove.contains(&stem("remove")));
        assert_eq!(synonyms("zebra").count(), 0);
    }
}
