//! Okapi BM25: how well each of a few documents matches a query's words — the classic
//! ranking of search engines, small enough to write here rather than pull in a search crate.

use std::collections::HashMap;

/// Term-frequency saturation: how much a word repeated in one document still adds.
const K1: f64 = 1.2;
/// Length normalisation: how much a long document is discounted.
const B: f64 = 0.75;

/// The words of `text` as the ranking compares them: runs of letters and digits, lower-case.
pub fn tokens(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// Most distinct query words ranked by: a query is a few words, and its cost grows with them.
pub const MAX_QUERY_WORDS: usize = 32;

/// The BM25 score of each of `documents` for the query `words` (already [`tokens`]; the first
/// [`MAX_QUERY_WORDS`] distinct ones count), in the documents' order: 0 for a document with
/// none of the words.
pub fn scores(documents: &[String], words: &[String]) -> Vec<f64> {
    if documents.is_empty() {
        return Vec::new();
    }
    let mut unique: Vec<&str> = Vec::new();
    for word in words {
        if unique.len() == MAX_QUERY_WORDS {
            break;
        }
        if !unique.contains(&word.as_str()) {
            unique.push(word);
        }
    }
    // Each document's length and how often each query word occurs in it, in one pass.
    let counted: Vec<(usize, HashMap<&str, f64>)> = documents
        .iter()
        .map(|document| {
            let tokens = tokens(document);
            let mut frequencies: HashMap<&str, f64> = HashMap::new();
            for token in &tokens {
                if let Some(word) = unique.iter().find(|w| **w == token.as_str()) {
                    *frequencies.entry(word).or_default() += 1.0;
                }
            }
            (tokens.len(), frequencies)
        })
        .collect();
    let count = documents.len() as f64;
    let average_len = counted.iter().map(|(len, _)| *len).sum::<usize>() as f64 / count;
    // In how many documents each query word appears.
    let containing = |word: &str| {
        counted
            .iter()
            .filter(|(_, frequencies)| frequencies.contains_key(word))
            .count() as f64
    };
    let idf: Vec<f64> = unique
        .iter()
        .map(|word| {
            let n = containing(word);
            // The "plus one" form: never negative for words in most documents.
            (1.0 + (count - n + 0.5) / (n + 0.5)).ln()
        })
        .collect();
    counted
        .iter()
        .map(|(len, frequencies)| {
            let norm = if average_len > 0.0 {
                *len as f64 / average_len
            } else {
                1.0
            };
            unique
                .iter()
                .zip(&idf)
                .map(|(word, idf)| {
                    let frequency = frequencies.get(word).copied().unwrap_or(0.0);
                    idf * frequency * (K1 + 1.0) / (frequency + K1 * (1.0 - B + B * norm))
                })
                .sum()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn docs(texts: &[&str]) -> Vec<String> {
        texts.iter().map(|t| t.to_string()).collect()
    }

    fn rank(texts: &[&str], query: &str) -> Vec<usize> {
        let scores = scores(&docs(texts), &tokens(query));
        let mut order: Vec<usize> = (0..texts.len()).filter(|&i| scores[i] > 0.0).collect();
        order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]));
        order
    }

    #[test]
    fn tokens_are_lower_case_runs_of_letters_and_digits() {
        assert_eq!(
            tokens("Run `cargo nextest` -p wright-core, twice!"),
            ["run", "cargo", "nextest", "p", "wright", "core", "twice"]
        );
    }

    #[test]
    fn a_document_without_the_words_scores_nothing() {
        assert_eq!(
            scores(&docs(&["tests use nextest", "style"]), &tokens("nextest"))[1],
            0.0
        );
    }

    #[test]
    fn a_rare_word_counts_more_than_a_common_one() {
        let texts = [
            "the build uses cargo",
            "the tests use cargo nextest",
            "the docs use cargo doc",
        ];
        // "cargo" is in every document, "nextest" in one: the one with it wins.
        assert_eq!(rank(&texts, "cargo nextest"), [1, 0, 2]);
    }

    #[test]
    fn more_of_the_words_ranks_higher() {
        let texts = [
            "deploy to staging",
            "deploy the staging server by ssh",
            "ssh keys",
        ];
        assert_eq!(rank(&texts, "staging ssh")[0], 1);
    }

    #[test]
    fn a_short_document_beats_a_long_one_with_the_word_as_often() {
        let texts = [
            "postgres",
            "postgres is one of many many many words in this long note about things",
        ];
        assert_eq!(rank(&texts, "postgres"), [0, 1]);
    }

    #[test]
    fn repeating_a_word_saturates() {
        let once = scores(&docs(&["lint", "other"]), &tokens("lint"))[0];
        let many = scores(
            &docs(&["lint lint lint lint lint lint", "other"]),
            &tokens("lint"),
        )[0];
        assert!(many > once);
        assert!(many < once * (K1 + 1.0), "{many} vs {once}");
    }

    #[test]
    fn only_the_first_words_of_a_long_query_count() {
        let mut query: Vec<String> = (0..MAX_QUERY_WORDS).map(|i| format!("w{i}")).collect();
        query.push("late".into());
        assert_eq!(scores(&docs(&["late", "other"]), &query)[0], 0.0);
    }

    #[test]
    fn no_documents_no_scores() {
        assert_eq!(scores(&[], &tokens("x")), Vec::<f64>::new());
    }
}
