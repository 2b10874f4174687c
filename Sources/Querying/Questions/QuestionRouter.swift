/// Reads plain words as a question, or not, and says what its stages search for.
///
/// People and agents ask in their own words ("pause the program for a few seconds"), and the
/// file says it in others ("sleep", "duration"). All of a question's words rarely stand in one
/// file. So a question runs in two stages, the second only for the part of the page the first
/// did not fill (`QueryEngine.runQuestion`):
/// 1. **the words in order**: the question as one phrase, in any field. A title, a line of
///    code, a description or a man page's NAME line typed whole is found here.
/// 2. **any content word**: the stop words and the request's words left out (`StopWords`),
///    each word or any of its other forms in the index (`Inflections`) as one term, any of
///    them, ranked by BM25F times the square root of the share of them a file holds
///    (`fsindex_rank`'s coordination).
///
/// A key design decision, measured on the bench corpus with `question-bench.sh`'s dev set (160
/// questions) and `relevance-bench.sh`'s exact sets (titles, lines, descriptions, man):
///
/// | first stage, then | questions hits@10 | MRR@20 | titles | lines | descriptions | man |
/// |---|---|---|---|---|---|---|
/// | all words as typed only (before) | 10.6 % | 0.086 | 1.000 | 0.642 | 0.924 | 1.000 |
/// | as typed, all content words, any | 23.1 % | 0.138 | — | — | — | — |
/// | as typed when it fills the page, else any | 41.2 % | 0.271 | 0.915 | 0.612 | 0.775 | 0.948 |
/// | any word only | 45.6 % | 0.287 | 0.908 | 0.547 | 0.612 | 0.884 |
/// | **in order, then any** | **46.2 %** | **0.297** | **1.000** | **0.713** | **0.940** | **1.000** |
///
/// (46.9 % and 0.299 once "file" and "files" counted as content words, the exact sets the same.)
///
/// Then the second stage's ranking (`fsindex_rank`, dev set; the exact sets did not move):
///
/// | any content word | hits@10 | MRR@20 |
/// |---|---|---|
/// | forms scored one by one, share² | 46.9 % | 0.299 |
/// | no forms, share² / share / √share / none | 45.0 / 52.5 / 54.4 / 51.2 % | 0.307 / 0.334 / 0.344 / 0.319 |
/// | no stop words left out (share²) | 43.8 % | 0.250 |
/// | **a word and its forms one term, √share** | **57.5 %** | **0.355** |
///
/// (A word of symbols, "{}", is left out, where it made the question an error.) The held-out
/// set, asked once with the last line: 46.0 % and 0.292, where share² gave 38.0 % and 0.280
/// and the words joined by OR give 46.0 % and 0.288.
///
/// All the words as typed (and all the content words) fill a page with long files that hold
/// every common word somewhere, above the files about the question; the phrase keeps what the
/// exact queries found and lets any-word ranking order the rest.
package enum QuestionRouter {
    /// The stages, in order, as `fsfind --json` names them (`"stage"`).
    package enum Stage: String, Sendable, Hashable, CaseIterable {
        case inOrder = "the words in order"
        case anyWord = "any content word, by how many"
        /// Found by the second stage, and placed by its words and its meaning together.
        case byMeaning = "any content word, by how many and by meaning"
    }

    /// Whether plain words read as a question rather than a name or an identifier: three words
    /// or more, at least two of them content words; or any number that ends with `?`.
    package static func isQuestion(_ words: [String]) -> Bool {
        if words.last?.hasSuffix("?") == true, words.count >= 2 { return true }
        guard words.count >= 3 else { return false }
        let tokens = Set(words.flatMap(SearchPattern.tokens))
        return tokens.count(where: { !StopWords.contains($0) }) >= 2
    }

    /// The tokens of `words` that carry the question's subject, in order, once each: lowercase,
    /// without stop words and the request's words. All the tokens when every one is a stop word
    /// ("to be or not to be").
    package static func content(_ words: [String]) -> [String] {
        var all: [String] = [], kept: [String] = []
        var seen = Set<String>()
        for word in words {
            for token in SearchPattern.tokens(word) where seen.insert(token).inserted {
                all.append(token)
                if !StopWords.contains(token) { kept.append(token) }
            }
        }
        return kept.isEmpty ? all : kept
    }
}
