/// Reads plain words as a question, or not, and says what its stages search for.
///
/// People and agents ask in their own words ("pause the program for a few seconds"), and the
/// file says it in others ("sleep", "duration"). All of a question's words rarely stand in one
/// file. So a question runs in stages, each only for the part of the page the ones before did
/// not fill (`QueryEngine.run`):
/// 1. **as typed**: every word, the last one also as a prefix, as any query runs. A query that
///    fills its page here gets exactly the results it got before the router: a title, a line
///    of code, a name keep their ranks.
/// 2. **all content words**: the stop words and the request's words left out (`StopWords`),
///    each word or any of its other forms in the index (`Inflections`).
/// 3. **any content word**: the same words, any of them, ranked first by how many of them a file
///    holds (`fsindex_rank`'s coordination), then by BM25F.
///
/// A key design decision: the stages are decided from the words alone, before any search, and
/// run in order; no stage can push out a result of an earlier one. Mixing them into one ranked
/// list (reciprocal rank fusion) cost exact queries 0.07 MRR in the measurement.
package enum QuestionRouter {
    /// The stages, in order, as `--explain` names them.
    package enum Stage: String, Sendable, Hashable, CaseIterable {
        case asTyped = "as typed"
        case allWords = "all content words, with their forms"
        case anyWord = "any content word, by how many"
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
