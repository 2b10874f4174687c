import Attributes
import Foundation
import Indexing
import MemberwiseInit

/// One completion of what a person is typing: the whole text with its last word completed, and
/// how many items the completed word finds.
@MemberwiseInit
package struct Completion: Sendable, Hashable, Codable {
    /// Where a completion comes from.
    package enum Source: String, Sendable, Hashable, Codable {
        /// A word of the index's vocabulary (names, titles, other text attributes and text).
        case word
        /// A field of the query language (`kind:`) or an attribute name (`kMDItemContentType`).
        case field
        /// A value of a field (`kind:pdf`, `domain:notes`, a word of names after `name:`).
        case value
    }

    /// The whole text, its last word completed (`annual rep` → `annual report`).
    package var text: String
    /// How many items the completed last word finds on its own (not together with the words
    /// before it); nil for a field name, which is not a query yet. A `kind:` value's count
    /// stops at `IndexStore.countedItemsCap` (5,000).
    package var count: Int?
    package var source: Source
}

/// Completes the last word of a query as it is typed (Core Spotlight's `CSUserQuery`
/// completions): words of the index, field names and field values, ranked by how many items
/// they would find.
///
/// For example, with an open index:
/// ```swift
/// let store = try IndexStore(location: .resolve(explicit: nil), readOnly: true)
/// try Completer.completions(for: "annual rep", limit: 5, in: store)
/// // [Completion(text: "annual report", count: 2251, source: .word), …]
/// try Completer.completions(for: "kind:pd", limit: 5, in: store)
/// // [Completion(text: "kind:pdf", count: 812, source: .value)]
/// ```
///
/// A key design decision: the count is the last word's alone, read from the index's vocabulary
/// (`IndexStore.words(startingWith:)`) rather than by running the whole query for every
/// candidate, which would cost a search per completion; a person typing sees the words the index
/// holds most. Field names have no count and come first: typing `kin` more likely means `kind:`
/// than a rare word. Cost on the bench corpus (111,000 files, debug build): 0.1 to 1.7 ms for a
/// word, 7 ms for `name:` and `kind:` values (`CompleterBench` in QueryingTests measures it).
package enum Completer {
    /// The completions of `text`'s last word, at most `limit`, field names first, then by count.
    /// Empty when `text` ends with a space (nothing to complete) or the word is in a phrase.
    package static func completions(for text: String, limit: Int = 10, in store: IndexStore) throws(QueryError) -> [Completion] {
        guard limit > 0, let last = text.unicodeScalars.last, !last.properties.isWhitespace else { return [] }
        // Inside an open quote (a phrase): no completion.
        if text.unicodeScalars.filter({ $0 == "\"" }).count % 2 == 1 { return [] }
        let start = text.unicodeScalars.lastIndex { $0.properties.isWhitespace }.map { text.unicodeScalars.index(after: $0) }
            ?? text.unicodeScalars.startIndex
        let before = String(text.unicodeScalars[..<start])
        var word = String(text.unicodeScalars[start...])
        // `-word`, `!word`, `(word`: the operator stays as typed.
        var lead = ""
        while let c = word.unicodeScalars.first, c == "-" || c == "!" || c == "(" {
            lead.unicodeScalars.append(c)
            word.unicodeScalars.removeFirst()
        }
        guard !word.isEmpty else { return [] }
        let head = before + lead
        do throws(IndexError) {
            if let colon = word.firstIndex(of: ":"), colon > word.startIndex {
                let field = String(word[..<colon])
                let value = String(word[word.index(after: colon)...])
                return try values(of: field, startingWith: value, limit: limit, in: store).map {
                    Completion(text: head + field + ":" + $0.text, count: $0.count, source: .value)
                }
            }
            var out = fields(startingWith: word, limit: limit).map { Completion(text: head + $0, count: nil, source: .field) }
            if word.lowercased().hasPrefix("kmditem") { return out }
            // A word the tokenizer splits (`annual-rep`): only its last part is completed.
            let cut = word.unicodeScalars.lastIndex { !isWordScalar($0) }.map { word.unicodeScalars.index(after: $0) }
                ?? word.unicodeScalars.startIndex
            let kept = String(word.unicodeScalars[..<cut])
            let part = String(word.unicodeScalars[cut...])
            for w in try store.words(startingWith: normalized(part), limit: limit - out.count) {
                out.append(Completion(text: head + kept + w.word, count: w.items, source: .word))
            }
            return Array(out.prefix(limit))
        } catch {
            throw .index(error.description, cause: error)
        }
    }

    /// Field names and attribute names that start with `prefix` (ignoring case), shortest first:
    /// at most 3, and only from two letters on, unless it is a Spotlight name (`kMDItem…`),
    /// whose names fill the list. Short fields end with `:`; Spotlight's names stand alone, as
    /// `kMDItemFSSize > 1000` takes them.
    static func fields(startingWith prefix: String, limit: Int) -> [String] {
        let lower = prefix.lowercased()
        if lower.hasPrefix("kmditem") || (lower.count >= 3 && "kmditem".hasPrefix(lower)) {
            return AttributeNames.spotlight.keys.filter { $0.lowercased().hasPrefix(lower) }
                .sorted { ($0.count, $0) < ($1.count, $1) }.prefix(limit).map { $0 }
        }
        guard lower.count >= 2 else { return [] }
        let names = Set(ShortQueryParser.fields + ["ext", "dir", "in", "folder", "by"] + ShortQueryParser.aliases.keys
                        + AttributeKey.types.keys.map(\.rawValue))
        let matches = names.filter { $0.lowercased().hasPrefix(lower) }
            .sorted { ($0.count, $0) < ($1.count, $1) }
        return matches.prefix(min(3, limit)).map { $0 + ":" }
    }

    /// The values of `field` that start with `prefix`, most items first.
    static func values(of field: String, startingWith prefix: String, limit: Int, in store: IndexStore) throws(IndexError) -> [(text: String, count: Int?)] {
        // A list (`kind:pdf,ima`): the last element is completed.
        let listHead = prefix.lastIndex(of: ",").map { String(prefix[...$0]) } ?? ""
        let element = String(prefix.dropFirst(listHead.count))
        switch field.lowercased() {
        case "kind":
            let lower = element.lowercased()
            var out: [(text: String, count: Int?)] = []
            var counted: [[String]: Int] = [:]   // image, images, picture, photo: one count
            for (k, types) in ShortQueryParser.kinds where k.hasPrefix(lower) {
                var n = counted[types] ?? -1
                if n < 0 {
                    n = try store.itemCount(conformingToAny: types)
                    counted[types] = n
                }
                out.append((text: listHead + k, count: n))
            }
            return Array(out.sorted { ($0.count ?? 0, $1.text) > ($1.count ?? 0, $0.text) }.prefix(limit))
        case "domain":
            return try store.domains(startingWith: element).prefix(limit).map { (text: listHead + $0.word, count: Optional($0.items)) }
        case "name":
            return try columnWords("name", element, limit: limit, store).map { (text: listHead + $0.0, count: $0.1) }
        case "title":
            return try columnWords("title", element, limit: limit, store).map { (text: listHead + $0.0, count: $0.1) }
        case "author", "authors", "by", "from", "to":
            return try columnWords("other", element, limit: limit, store).map { (text: listHead + $0.0, count: $0.1) }
        default:
            if let key = ShortQueryParser.aliases[field.lowercased()] ?? (try? AttributeNames.resolve(field)), key.valueType == .bool {
                return ["yes", "no"].filter { $0.hasPrefix(element.lowercased()) }.map { (text: listHead + $0, count: Int?.none) }
            }
            return []
        }
    }

    /// Words of one full-text column that start with `prefix`, with their counts there.
    private static func columnWords(_ column: String, _ prefix: String, limit: Int, _ store: IndexStore) throws(IndexError) -> [(String, Int?)] {
        // The value's last word is completed (`title:"annual rep`), the words before kept.
        let cut = prefix.unicodeScalars.lastIndex { !isWordScalar($0) }.map { prefix.unicodeScalars.index(after: $0) }
            ?? prefix.unicodeScalars.startIndex
        let kept = String(prefix.unicodeScalars[..<cut])
        let part = String(prefix.unicodeScalars[cut...])
        guard !part.isEmpty else { return [] }
        return try store.words(startingWith: normalized(part), column: column, limit: limit).map { (kept + $0.word, Optional($0.items)) }
    }

    /// A scalar the tokenizer keeps inside a word (letters, digits, marks and `_`).
    static func isWordScalar(_ c: Unicode.Scalar) -> Bool {
        c.properties.isAlphabetic || c.properties.numericType != nil || c == "_" || c.properties.generalCategory == .nonspacingMark
    }

    /// A word as the full-text index spells its terms: lowercase, without accents.
    static func normalized(_ word: String) -> String {
        word.lowercased().folding(options: .diacriticInsensitive, locale: nil)
    }
}
