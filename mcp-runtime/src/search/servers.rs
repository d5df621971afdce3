//! The servers a gateway's tools come from: a query that names a mounted
//! server ("… in GitLab", "… from memory") ranks that server's tools first,
//! as a person asking means it.

use super::words::{Stems, each_word, synonyms};

/// How much more a tool of a server the query names scores.
const NAMED: f32 = 1.5;
/// The shortest query word taken as the start of a server's word
/// ("mongo" of `mongodb`).
const PREFIX_MIN: usize = 4;

/// Each tool's server, when it comes from a mounted one.
pub(super) struct Servers {
    /// Each namespace's words.
    words: Vec<Vec<String>>,
    /// Each tool's namespace, by its place in `words`.
    of_tool: Vec<Option<usize>>,
}

impl Servers {
    /// The servers of the tools named `names`, among the `namespaces`
    /// mounted (the longest that prefixes a name is its server).
    pub(super) fn new<'a>(namespaces: &[String], names: impl Iterator<Item = &'a str>) -> Self {
        let words = namespaces
            .iter()
            .map(|namespace| {
                let mut words = Vec::new();
                each_word(namespace, &mut Stems::default(), |w| words.push(w));
                words
            })
            .collect();
        let of_tool = names
            .map(|name| {
                let mut best: Option<usize> = None;
                for (i, namespace) in namespaces.iter().enumerate() {
                    let under = name.len() > namespace.len()
                        && name.starts_with(namespace.as_str())
                        && name.as_bytes()[namespace.len()] == b'_';
                    if under && best.is_none_or(|b| namespaces[b].len() < namespace.len()) {
                        best = Some(i);
                    }
                }
                best
            })
            .collect();
        Servers { words, of_tool }
    }

    /// Multiplies the score of every tool of a server `query_words` name
    /// (each word of its namespace asked for, as itself, a synonym, or the
    /// start of it) by [`NAMED`].
    pub(super) fn favour_named(&self, query_words: &[String], scores: &mut [f32]) {
        if self.words.is_empty() {
            return;
        }
        let mut expanded: Vec<String> = query_words.to_vec();
        expanded.extend(query_words.iter().flat_map(|q| synonyms(q)));
        let asked = |word: &String| {
            expanded.iter().any(|q| q == word || (q.len() >= PREFIX_MIN && word.starts_with(q.as_str())))
        };
        let named: Vec<bool> = self.words.iter().map(|words| !words.is_empty() && words.iter().all(asked)).collect();
        if !named.contains(&true) {
            return;
        }
        for (score, server) in scores.iter_mut().zip(&self.of_tool) {
            if server.is_some_and(|s| named[s]) {
                *score *= NAMED;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_query_naming_a_server_favours_its_tools_and_only_theirs() {
        let namespaces = ["git".to_owned(), "github".to_owned(), "aws-docs".to_owned()];
        let names = ["git_log", "github_list_commits", "aws-docs_search", "gitlab_log"];
        let servers = Servers::new(&namespaces, names.into_iter());
        assert_eq!(servers.of_tool, [Some(0), Some(1), Some(2), None]);
        let favoured = |words: &[&str]| {
            let words: Vec<String> = words.iter().map(|w| crate::search::words::stem(w)).collect();
            let mut scores = [1.0; 4];
            servers.favour_named(&words, &mut scores);
            scores.map(|s| s > 1.0)
        };
        assert_eq!(favoured(&["commit", "github"]), [false, true, false, false]);
        // Every word of the namespace, one through a synonym.
        assert_eq!(favoured(&["aws", "documentation"]), [false, false, true, false]);
        assert_eq!(favoured(&["aws"]), [false; 4]);
    }
}
