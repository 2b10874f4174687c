import Foundation
import Indexing

/// The forms of a question's word that the index holds: `sleeping` finds `sleep`, `sleeps` and
/// `slept` not (Snowball does not know irregular forms), `libraries` finds `library`.
///
/// How: the word's stem in each language (`Stemmer`), then the index's words from a prefix of
/// that stem (the stem less its last letter, since Snowball may change it: `studi` for `study`),
/// each stemmed in turn; those with the same stem are the word's forms. A range of the index's
/// own vocabulary costs a few hundred words at most (`scanned`), and a word shorter than
/// `minimumLength` letters gets no forms (a short stem's range is most of a letter's words).
package struct Inflections {
    package let stemmers: [Stemmer]
    /// At most this many of the index's words are stemmed for one word of a question.
    package var scanned = 400
    /// At most this many forms are kept for one word, shortest first.
    package var kept = 8
    package static let minimumLength = 4

    /// Stemmers for English and for the user's language (`LANG`), where Snowball has them.
    package init(languages: [String] = Inflections.defaultLanguages()) {
        var seen = Set<String>()
        stemmers = languages.filter { seen.insert($0).inserted }.compactMap { Stemmer(language: $0) }
    }

    /// English, and the language of `LANG` or `LC_ALL` (`de_DE.UTF-8` → `de`) if another.
    package static func defaultLanguages(environment: [String: String] = ProcessInfo.processInfo.environment) -> [String] {
        var out = ["en"]
        if let locale = environment["LC_ALL"].flatMap({ $0.isEmpty ? nil : $0 }) ?? environment["LANG"],
           let code = locale.split(separator: "_").first.map(String.init), code.count == 2, code != "en" {
            out.append(code)
        }
        return out
    }

    /// The other forms of `word` (a lowercase token) among the words `vocabulary` lists for a
    /// range (`>= low`, `< high`, at most `limit`).
    package func forms(of word: String, vocabulary: (_ low: String, _ high: String, _ limit: Int) throws -> [String]) rethrows -> [String] {
        guard word.count >= Self.minimumLength, word.allSatisfy({ $0.isLetter }) else { return [] }
        let stems = stemmers.map { $0.stem(word) }
        var prefixes = Set<String>()
        for stem in stems {
            let shared = String(zip(word, stem).prefix { $0.0 == $0.1 }.map(\.0))
            let prefix = String(shared.prefix(max(3, min(shared.count, stem.count - 1))))
            if prefix.count >= 3 { prefixes.insert(prefix) }
        }
        var found = Set<String>()
        for prefix in prefixes.sorted() {
            for term in try vocabulary(prefix, IndexStore.prefixEnd(prefix), scanned) where term != word && !found.contains(term) {
                guard term.count <= word.count + 5, term.allSatisfy({ $0.isLetter }) else { continue }
                for (stemmer, stem) in zip(stemmers, stems) where stemmer.stem(term) == stem {
                    found.insert(term)
                    break
                }
            }
        }
        return found.sorted { $0.count != $1.count ? $0.count < $1.count : $0 < $1 }.prefix(kept).map { $0 }
    }
}
