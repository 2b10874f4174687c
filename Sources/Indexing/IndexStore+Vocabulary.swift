import Attributes
import FoundationEssentials
import GRDB
import MemberwiseInit

/// The index's words that start with a prefix, with how many items hold each: what completions
/// are made of (`Completer` in Querying).
///
/// A key design decision: the counts come from two places. Common words (in at least
/// `commonTermMinimum` items) are read from `term_docs`, already counted and ordered by their
/// counts through its primary key (a range read: microseconds). Rarer words are read from FTS5's
/// own vocabulary (`items_vocabulary`, v18), which counts a word's items by reading its list of
/// matches: cheap for a rare word, so at most `vocabularyScan` words of the prefix's range are
/// read there, in alphabetical order. So the common words are ranked by their counts over the
/// whole index, and rarer ones fill the rest; a rare word far down the alphabet may be missed
/// for a short prefix, never a common one. On the bench corpus (111,000 files, 1.1 million
/// words; debug build, median of 7) a word's prefix costs 0.15 to 1.7 ms, a `name:` value 7 ms
/// (FTS5's per-column vocabulary reads more), `kind:` alone 7.5 ms (`CompleterBench`).
extension IndexStore {
    /// At most this many words of a prefix's range are read from FTS5's vocabulary.
    package static let vocabularyScan = 64

    /// A word of the index and how many items hold it.
    @MemberwiseInit
    package struct WordCount: Sendable, Hashable {
        package var word: String
        package var items: Int
    }

    /// The words that start with `prefix` (already as the tokenizer writes them: lowercase,
    /// without accents), most items first, at most `limit`. With `column` (`name`, `title`,
    /// `other` or `text`), only words in that column, counted there.
    package func words(startingWith prefix: String, column: String? = nil, limit: Int) throws(IndexError) -> [WordCount] {
        guard !prefix.isEmpty, limit > 0 else { return [] }
        return try read { db in try Self.words(db, startingWith: prefix, column: column, limit: limit) }
    }

    static func words(_ db: Database, startingWith prefix: String, column: String?, limit: Int) throws -> [WordCount] {
        let upper = Self.prefixEnd(prefix)
        var found: [String: Int] = [:]
        if column == nil {
            let rows = try Row.fetchAll(db.cachedStatement(sql: """
                SELECT term, docs FROM term_docs WHERE term >= ? AND term < ? ORDER BY docs DESC LIMIT ?
                """), arguments: [prefix, upper, limit])
            for row in rows { found[row["term"]] = row["docs"] }
        }
        if found.count < limit {
            let sql = column == nil
                ? "SELECT term, doc FROM items_vocabulary WHERE term >= ? AND term < ? LIMIT ?"
                : "SELECT term, doc FROM items_vocabulary_columns WHERE term >= ? AND term < ? AND col = ? LIMIT ?"
            let arguments: StatementArguments = column == nil ? [prefix, upper, Self.vocabularyScan]
                : [prefix, upper, column!, Self.vocabularyScan]
            for row in try Row.fetchAll(db, sql: sql, arguments: arguments) {
                let term: String = row["term"]
                if found[term] == nil { found[term] = row["doc"] }
            }
        }
        return found.map { WordCount(word: $0.key, items: $0.value) }
            .sorted { $0.items != $1.items ? $0.items > $1.items : $0.word < $1.word }
            .prefix(limit).map { $0 }
    }

    /// The index's words from `low` (included) to `high` (excluded), in order, at most `limit`,
    /// from FTS5's vocabulary: what `Inflections` stems to find a word's other forms.
    package static func vocabulary(_ db: Database, from low: String, to high: String, limit: Int) throws -> [String] {
        try String.fetchAll(db.cachedStatement(sql: "SELECT term FROM items_vocabulary WHERE term >= ? AND term < ? LIMIT ?"),
                            arguments: [low, high, limit])
    }

    /// The first string after every string that starts with `prefix` (its last scalar raised by
    /// one), for a range `>= prefix AND < end`.
    package static func prefixEnd(_ prefix: String) -> String {
        var scalars = Array(prefix.unicodeScalars)
        while let last = scalars.popLast() {
            if let next = Unicode.Scalar(last.value + 1) ?? Unicode.Scalar(last.value + 0x801) {
                scalars.append(next)
                return String(String.UnicodeScalarView(scalars))
            }
        }
        return "\u{10FFFF}"
    }

    /// Counting stops at this many items: `public.text` alone has 95,000 items in the bench
    /// corpus, 20 ms to count, and a completion must cost a keystroke's time.
    package static let countedItemsCap = 5_000

    /// How many items conform to any of `types` (`kind:pdf`'s count), from `item_types`, at
    /// most `countedItemsCap`.
    package func itemCount(conformingToAny types: [String]) throws(IndexError) -> Int {
        guard !types.isEmpty else { return 0 }
        return try read { db in
            let marks = Array(repeating: "?", count: types.count).joined(separator: ",")
            let sql = types.count == 1 ? "SELECT count(*) FROM (SELECT 1 FROM item_types WHERE type = ? LIMIT ?)"
                : "SELECT count(*) FROM (SELECT DISTINCT item_id FROM item_types WHERE type IN (\(marks)) LIMIT ?)"
            var arguments = StatementArguments(types)
            arguments += [Self.countedItemsCap]
            return try Int.fetchOne(db, sql: sql, arguments: arguments) ?? 0
        }
    }

    /// The domains whose names start with `prefix`, with their item counts (`domain:` values).
    package func domains(startingWith prefix: String) throws(IndexError) -> [WordCount] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT domain, count(*) AS n FROM items WHERE domain >= ? AND domain < ? GROUP BY domain ORDER BY n DESC
                """, arguments: [prefix, Self.prefixEnd(prefix)]).map { WordCount(word: $0["domain"], items: $0["n"]) }
        }
    }
}
