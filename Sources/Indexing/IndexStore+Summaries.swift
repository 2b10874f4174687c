import Attributes
import FoundationEssentials
import GRDB
import MemberwiseInit

/// An item whose `textContentSummary` is to be made: what the summary pass reads.
package struct PendingSummary: Sendable, Hashable {
    package var rowID: Int64
    package var identifier: ItemIdentifier
    /// The start of the item's text (at most `IndexStore.pendingSummaries`' `textLimit` characters).
    package var text: String
    /// The item's write stamp when it was read: a summary is stored only if the item was not
    /// written again since (see `IndexStore.storeSummaries`).
    package var version: Double
}

/// A summary made for a `PendingSummary`; `summary` is nil when the text holds nothing to
/// summarize (binary garbage): the item is then no longer pending, and has no summary.
@MemberwiseInit
package struct MadeSummary: Sendable, Hashable {
    package var rowID: Int64
    package var version: Double
    package var summary: String?

    package init(_ pending: PendingSummary, summary: String?) {
        self.init(rowID: pending.rowID, version: pending.version, summary: summary)
    }
}

extension IndexStore {
    /// Texts shorter than this many characters (as SQLite's `length()` counts: Unicode scalars)
    /// get no summary. The summarizer uses the same threshold (`ExtractiveSummarizer`).
    package static let summaryMinimumTextLength = 200

    /// Whether an item with this text gets a summary. Stops counting at the threshold.
    static func needsSummary(_ text: String) -> Bool {
        var n = 0
        for _ in text.unicodeScalars {
            n += 1
            if n >= summaryMinimumTextLength { return true }
        }
        return false
    }

    /// Up to `limit` items whose summary is pending, in rowid order, each with the first
    /// `textLimit` characters of its text (the summarizer reads no more; a 1 MiB text costs
    /// what its first 64 Ki characters cost to move).
    ///
    /// Reads through the partial index `items_summary_pending`: cheap when nothing is pending.
    /// (`CROSS JOIN` keeps `items` the outer loop: left to itself, SQLite scanned the whole
    /// full-text table for every batch, 1.3 GB on the bench corpus.)
    /// `after` continues from a rowid, so that a caller that leaves some pending (it failed on
    /// them) does not read them again and again.
    package func pendingSummaries(limit: Int, textLimit: Int = 65_536, after: Int64 = 0) throws(IndexError) -> [PendingSummary] {
        try read { db in
            try Row.fetchAll(db.cachedStatement(sql: """
                SELECT items.id, items.path, items.indexed_at, substr(fsindex_unzip(item_texts.text), 1, ?) AS text
                FROM items CROSS JOIN item_texts ON item_texts.id = items.id
                WHERE items.summary_pending AND items.id > ? ORDER BY items.id LIMIT ?
                """), arguments: [textLimit, after, limit]).map { row in
                PendingSummary(rowID: row["id"], identifier: ItemIdentifier(bytes: Array(row["path"] as Data)),
                               text: row["text"] ?? "", version: row["indexed_at"])
            }
        }
    }

    /// How many items wait for their summary (for `fsindex status`).
    package func pendingSummaryCount() throws(IndexError) -> Int {
        try read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM items WHERE summary_pending") ?? 0 }
    }

    /// Stores summaries in one transaction: each goes into the item's attributes and into the
    /// full-text `other` column (ranked like `subject`), and the item is no longer pending.
    /// Returns the identifiers of the items that got a summary, for subscribers.
    ///
    /// An item written again since its text was read (a new version of the file), deleted, or
    /// no longer pending is left alone: its summary would describe a text it no longer has.
    /// Every other attribute is kept as it is.
    package func storeSummaries(_ summaries: [MadeSummary]) throws(IndexError) -> [ItemIdentifier] {
        // The JSON as stored: what it leaves out (`omitted`, see StoredAttributes) is neither
        // the summary nor a text of `other`, and stays left out.
        try storePassResults(summaries, pending: "summary_pending") { db, made, attributes in
            let had = attributes[.textContentSummary] != nil
            attributes[.textContentSummary] = made.summary.map { .string($0) }
            try db.cachedStatement(sql: "UPDATE items SET attributes = ?, summary_pending = NULL WHERE id = ?")
                .execute(arguments: [try Self.json(attributes), made.rowID])
            // Rewriting an FTS5 row tokenizes its text again: skipped when `other` stays as it is.
            if made.summary != nil || had {
                let other = AttributeKey.otherTextKeys.flatMap { attributes.strings($0) }.joined(separator: "\n")
                try db.cachedStatement(sql: "UPDATE item_texts SET other = ? WHERE id = ?")
                    .execute(arguments: [other.isEmpty ? nil : other, made.rowID])
            }
            return made.summary != nil
        }
    }
}
