//! Okapi BM25 over the tools' fields, the ranking of full-text search
//! engines: a word counts more the rarer it is among the tools (its
//! inverse document frequency), with diminishing returns for repeats
//! (`K1`) and less in long texts than in short ones (`B`).
//!
//! In its BM25F form: each field's count is weighted (a word of the name
//! counts as [`NAME`] words of the description) and discounted by that
//! field's own length against the field's average, before the counts are
//! added and saturated. A tool named for what is asked then ranks above
//! one that only mentions it, however long either's description.
//!
//! Written here rather than taken from a crate: the part that matters for
//! tools is the splitting of identifiers and the fields
//! ([`words`](super::words), [`Document`]), and the scoring is these few
//! lines.

use std::collections::BTreeMap;

use super::document::Document;
use super::words::{Stems, each_query_word, each_word, synonyms};

/// Saturation of a word's repeats: the usual value.
const K1: f32 = 1.2;
/// How much a text's length discounts its words: the usual value.
const B: f32 = 0.75;
/// Field weights: a word of the name counts three times, of the title
/// twice, of the description once, of the parameters half.
const NAME: f32 = 3.0;
const TITLE: f32 = 2.0;
const DESCRIPTION: f32 = 1.0;
const PARAMETERS: f32 = 0.5;
/// A query word found only as the start of longer words (`repo` of
/// `repository`) counts this much of a whole word.
const PREFIX: f32 = 0.5;
/// The shortest query word looked up as a prefix.
const PREFIX_MIN: usize = 3;
/// The most distinct words of a query that count: a model's query has a
/// few; a hostile one of a thousand short words would otherwise look each
/// up (and each as a prefix) for nothing.
const QUERY_WORDS_MAX: usize = 32;
/// A word found as a synonym of a query word (`delete` for "remove")
/// counts this much of the word itself.
const SYNONYM: f32 = 0.5;

/// The fields, in the order of [`WEIGHTS`].
const FIELDS: usize = 4;
const WEIGHTS: [f32; FIELDS] = [NAME, TITLE, DESCRIPTION, PARAMETERS];

/// The index of every tool's words.
pub(super) struct Bm25 {
    /// For each word, the tools that have it, each with the word's
    /// weighted count there, each field's discounted by the field's length
    /// (the query's part of the score is all that is left to compute).
    postings: BTreeMap<String, Vec<(u32, f32)>>,
    /// The number of tools.
    tools: usize,
}

impl Bm25 {
    pub(super) fn new(documents: &[Document]) -> Self {
        let mut stems = Stems::default();
        let mut counted = Vec::with_capacity(documents.len());
        let mut totals = [0.0; FIELDS];
        for document in documents {
            let mut counts: BTreeMap<String, [f32; FIELDS]> = BTreeMap::new();
            let mut lengths = [0.0; FIELDS];
            let fields = [&document.name, &document.title, &document.description, &document.parameters];
            for (field, text) in fields.into_iter().enumerate() {
                each_word(text, &mut stems, |word| {
                    counts.entry(word).or_default()[field] += 1.0;
                    lengths[field] += 1.0;
                });
                totals[field] += lengths[field];
            }
            counted.push((counts, lengths));
        }
        let n = documents.len().max(1) as f32;
        let averages = totals.map(|total| (total / n).max(1.0));
        let mut postings: BTreeMap<String, Vec<(u32, f32)>> = BTreeMap::new();
        for (i, (counts, lengths)) in counted.into_iter().enumerate() {
            let discount = |field: usize| 1.0 - B + B * lengths[field] / averages[field];
            for (word, count) in counts {
                let tf = (0..FIELDS).map(|field| WEIGHTS[field] * count[field] / discount(field)).sum();
                postings.entry(word).or_default().push((i as u32, tf));
            }
        }
        Bm25 { postings, tools: documents.len() }
    }

    /// Every tool's score for a query's `words` (see [`words`](Self::words));
    /// 0 for a tool that has none of them.
    ///
    /// Each query word counts once per tool, by the best of its forms the
    /// tool has: the word itself, longer words it begins (when the tools
    /// do not have it whole), or a synonym, these at a discount and at the
    /// word's own rarity (a tool cannot climb by listing every synonym of
    /// "list", nor by a rare one).
    pub(super) fn scores(&self, words: &[String]) -> Vec<f32> {
        let n = self.tools;
        let mut scores = vec![0.0; n];
        let mut best = vec![0.0; n];
        for word in words {
            best.fill(0.0);
            let own = self.postings.get(word);
            if let Some(postings) = own {
                self.best(&mut best, postings, 1.0, self.idf(postings.len()));
            } else if word.len() >= PREFIX_MIN {
                let after = (std::ops::Bound::Excluded(word.as_str()), std::ops::Bound::Unbounded);
                for (_, postings) in
                    self.postings.range::<str, _>(after).take_while(|(w, _)| w.starts_with(word.as_str()))
                {
                    self.best(&mut best, postings, PREFIX, self.idf(postings.len()));
                }
            }
            for synonym in synonyms(word) {
                if let Some(postings) = self.postings.get(&synonym)
                    && !words.contains(&synonym)
                {
                    let idf = self.idf(own.map_or(postings.len(), Vec::len));
                    self.best(&mut best, postings, SYNONYM, idf);
                }
            }
            for (score, best) in scores.iter_mut().zip(&best) {
                *score += best;
            }
        }
        scores
    }

    /// The words of `query`, each once, in order, the first
    /// [`QUERY_WORDS_MAX`].
    pub(super) fn words(&self, query: &str) -> Vec<String> {
        let mut words = Vec::new();
        each_query_word(
            query,
            |word| self.postings.contains_key(word),
            |word| {
                if words.len() < QUERY_WORDS_MAX && !words.contains(&word) {
                    words.push(word);
                }
            },
        );
        words
    }

    /// The inverse document frequency of a word `df` tools have.
    fn idf(&self, df: usize) -> f32 {
        let (n, df) = (self.tools as f32, df as f32);
        (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
    }

    /// Raises each tool's `best` to what `postings` gives it, counted at
    /// `weight` with `idf`.
    fn best(&self, best: &mut [f32], postings: &[(u32, f32)], weight: f32, idf: f32) {
        for &(doc, tf) in postings {
            let score = weight * idf * tf * (K1 + 1.0) / (tf + K1);
            let slot = &mut best[doc as usize];
            *slot = slot.max(score);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn document(name: &str, description: &str) -> Document {
        Document { name: name.into(), title: String::new(), description: description.into(), parameters: String::new() }
    }

    fn ranked(documents: &[Document], query: &str) -> Vec<usize> {
        let bm25 = Bm25::new(documents);
        let scores = bm25.scores(&bm25.words(query));
        let mut order: Vec<usize> = (0..documents.len()).filter(|&i| scores[i] > 0.0).collect();
        order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]));
        order
    }

    #[test]
    fn a_tool_cannot_climb_by_listing_synonyms() {
        let documents = [
            document("cluster_get", "List/enumerate/show/view/get/retrieve the clusters."),
            document("subscription_list", "Lists the subscriptions of the account."),
            document("weather", "Today's weather."),
        ];
        assert_eq!(ranked(&documents, "list my subscriptions"), [1, 0]);
        // A synonym alone still finds a tool.
        assert_eq!(ranked(&documents, "enumerate subscriptions")[0], 1);
    }

    #[test]
    fn a_query_counts_its_first_words_only() {
        let bm25 = Bm25::new(&[document("weather", "Today's weather.")]);
        let query: Vec<String> = (0..1000).map(|i| format!("w{i}")).collect();
        assert_eq!(bm25.words(&query.join(" ")).len(), QUERY_WORDS_MAX);
    }

    #[test]
    fn a_name_outranks_a_mention_in_a_long_description() {
        let long = "Manages things. ".repeat(40) + "It can also delete a branch.";
        let documents = [document("update_settings", &long), document("delete_branch", "Deletes a branch.")];
        assert_eq!(ranked(&documents, "remove a branch"), [1, 0]);
    }
}
