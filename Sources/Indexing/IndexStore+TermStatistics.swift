import FoundationEssentials
import GRDB

/// The number of items that hold each common word, stored for the ranking (`term_docs`, v16).
///
/// A word's rarity (idf) weighs it in the ranking, and FTS5 can only count a word's items by
/// reading its whole list of matches, again for every query: 2.5 ms for each of `in`, `core`
/// and `arch` in the bench corpus, more than the search itself. These counts are read once,
/// after a large crawl, from FTS5's own vocabulary (one pass over the index: 0.8 s of CPU for the
/// bench corpus's 1.1 million words), and only words in at least `commonTermMinimum` items are
/// kept (5,000 words there); a rarer word costs little to count at query time.
///
/// The counts go stale as files change between large crawls (fsindexd's changes one by one do
/// not count again); the ranking tolerates that, a word's rarity changing slowly, and the next
/// crawl of 5,000 files or more counts again (`optimize`).
extension IndexStore {
    /// Words in fewer items are counted at query time instead.
    package static let commonTermMinimum = 200

    /// Counts the items of every common word again.
    package func refreshTermStatistics() throws(IndexError) {
        try write { db in try Self.countTerms(db) }
    }

    /// Fills `term_docs` from the full-text index (also when the table is made, v16, so that an
    /// index upgraded without a large crawl has the counts at once).
    static func countTerms(_ db: Database) throws {
        try db.execute(sql: "CREATE VIRTUAL TABLE IF NOT EXISTS temp.items_fts_terms USING fts5vocab(main, '\(Schema.ftsTable)', 'row')")
        try db.execute(sql: "DELETE FROM term_docs")
        try db.execute(sql: "INSERT INTO term_docs(term, docs) SELECT term, doc FROM temp.items_fts_terms WHERE doc >= ?",
                       arguments: [Self.commonTermMinimum])
        try db.execute(sql: "DROP TABLE temp.items_fts_terms")
    }

    /// The stored item counts of these words (those not stored are absent: rarer words, or an
    /// index not yet counted).
    package static func termDocumentCounts(_ db: Database, _ terms: Set<String>) throws -> [String: Int] {
        guard !terms.isEmpty else { return [:] }
        let list = Array(terms)
        let rows = try Row.fetchAll(db, sql: "SELECT term, docs FROM term_docs WHERE term IN (" + Array(repeating: "?", count: list.count).joined(separator: ",") + ")",
                                    arguments: StatementArguments(list))
        var out: [String: Int] = [:]
        for row in rows { out[row["term"]] = row["docs"] }
        return out
    }

    /// The rows of the full-text index, as FTS5 counts them for its idf (`xRowCount`): the
    /// first number of its averages record (`items_fts_data`, id 1), an SQLite varint. Nil
    /// when the record is missing or does not parse.
    package static func fullTextRowCount(_ db: Database) throws -> Int? {
        guard let block = try Data.fetchOne(db, sql: "SELECT block FROM \(Schema.ftsTable)_data WHERE id = 1") else { return nil }
        var value: UInt64 = 0
        for (i, byte) in block.prefix(9).enumerated() {
            if i == 8 { return Int(exactly: value << 8 | UInt64(byte)) }
            value = value << 7 | UInt64(byte & 0x7F)
            if byte & 0x80 == 0 { return Int(exactly: value) }
        }
        return nil
    }
}
