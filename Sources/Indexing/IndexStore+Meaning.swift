import FoundationEssentials
import GRDB

/// An item whose words the semantic pass has yet to read (issue 43): what it embeds.
package struct PendingMeaning: Sendable, Hashable {
    package var rowID: Int64
    package var name: String
    package var title: String
    package var other: String
    /// The start of the text (400 characters) of an item with neither a title nor other text: a
    /// short note, whose text is too short for a summary (`summaryMinimumTextLength`), is its
    /// own description.
    package var passage: String

    package init(rowID: Int64, name: String, title: String, other: String, passage: String = "") {
        self.rowID = rowID
        self.name = name
        self.title = title
        self.other = other
        self.passage = passage
    }
}

extension IndexStore {
    /// Up to `limit` items waiting for the semantic pass after rowid `after`, in rowid order
    /// (`meaning_pending`, v23: one lookup when none waits).
    package func pendingMeanings(limit: Int, after: Int64 = 0) throws(IndexError) -> [PendingMeaning] {
        try read { db in
            try Row.fetchAll(db.cachedStatement(sql: """
                SELECT t.id, t.name, t.title, t.other,
                       CASE WHEN coalesce(t.title, '') = '' AND coalesce(t.other, '') = '' THEN substr(fsindex_unzip(t.text), 1, 400) END AS passage
                FROM meaning_pending p CROSS JOIN item_texts t ON t.id = p.id
                WHERE p.id > ? ORDER BY p.id LIMIT ?
                """), arguments: [after, limit]).map { row in
                PendingMeaning(rowID: row["id"], name: row["name"] ?? "", title: row["title"] ?? "", other: row["other"] ?? "",
                               passage: row["passage"] ?? "")
            }
        }
    }

    /// How many items wait for the semantic pass (`fsindex status`, `--explain`, tests).
    package func pendingMeaningCount() throws(IndexError) -> Int {
        try read { db in try Self.pendingMeaningCount(db) }
    }

    package static func pendingMeaningCount(_ db: Database) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT count(*) FROM meaning_pending") ?? 0
    }

    /// Whether any item has a vector: one row read.
    package static func hasMeanings(_ db: Database) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM item_vectors WHERE length(vector) > 0)") ?? false
    }

    /// How many items have a vector (not counting those with nothing to embed).
    package static func meaningCount(_ db: Database) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT count(*) FROM item_vectors WHERE length(vector) > 0") ?? 0
    }

    /// Stores vectors (an empty one: nothing to embed) in one transaction, and the items no
    /// longer wait. An item deleted or written again since it was read is left alone: its
    /// texts no longer match what was embedded, and a rewritten item waits again.
    package func storeMeanings(_ vectors: [(item: PendingMeaning, vector: [UInt8])]) throws(IndexError) {
        guard !vectors.isEmpty else { return }
        try write { db in
            let matches = try db.cachedStatement(sql: """
                SELECT 1 FROM item_texts WHERE id = ? AND coalesce(name, '') = ? AND coalesce(title, '') = ? AND coalesce(other, '') = ?
                """)
            let store = try db.cachedStatement(sql: "INSERT OR REPLACE INTO item_vectors(id, vector) VALUES (?, ?)")
            let done = try db.cachedStatement(sql: "DELETE FROM meaning_pending WHERE id = ?")
            for (item, vector) in vectors {
                guard try Bool.fetchOne(matches, arguments: [item.rowID, item.name, item.title, item.other]) != nil else { continue }
                try store.execute(arguments: [item.rowID, Data(vector)])
                try done.execute(arguments: [item.rowID])
            }
        }
    }

    /// The stored vectors of `rowIDs` (those that have one).
    package static func meanings(_ db: Database, rowIDs: [Int64]) throws -> [Int64: [UInt8]] {
        var out: [Int64: [UInt8]] = [:]
        let statement = try db.cachedStatement(sql: "SELECT vector FROM item_vectors WHERE id = ?")
        for id in rowIDs {
            if let blob = try Data.fetchOne(statement, arguments: [id]), !blob.isEmpty { out[id] = Array(blob) }
        }
        return out
    }
}
