import Attributes
import FoundationEssentials
import GRDB
import MemberwiseInit

/// One use of an item, as a person or an application reports it: Core Spotlight's donated
/// `NSUserActivity`, reduced to what ranking needs.
///
/// For example, `fsindex used ~/notes.txt` records
/// `ItemUse(identifier: ItemIdentifier("/home/ada/notes.txt"), date: .now)`.
///
/// The identifier is any item identifier: today a file's path bytes; an item an application
/// donates will pass its own identifier the same way.
package struct ItemUse: Sendable, Hashable {
    package var identifier: ItemIdentifier
    /// When it was used. An older date than the last recorded use raises the count only.
    package var date: Date
    /// How many uses this stands for (a recently-used list may report several at once); at least 1.
    package var count: Int64
    /// What the person was doing (`NSUserActivity.title`), kept with the last use.
    package var title: String?

    package init(identifier: ItemIdentifier, date: Date = Date(), count: Int64 = 1, title: String? = nil) {
        self.identifier = identifier
        self.date = date
        self.count = max(1, count)
        self.title = title
    }
}

/// What the index remembers of one identifier's uses.
@MemberwiseInit
package struct UsageRecord: Sendable, Hashable {
    package var identifier: ItemIdentifier
    package var lastUsed: Date
    package var useCount: Int64
    package var title: String?
    /// Whether an item with this identifier is in the index now. When not, the uses wait in the
    /// usage table and apply when the item is written.
    package var indexed: Bool
}

/// What an outside list of uses (fsindexd's recently-used file) has given the index already, for
/// one identifier: the latest visit applied and each application's count, so that reading the
/// same list again (a restart, a rewrite with nothing new) adds nothing.
@MemberwiseInit
package struct FeedMark: Sendable, Hashable, Codable {
    package var visited: Date
    /// Use counts by application name, as the list states them.
    package var counts: [String: Int64] = [:]
}

extension IndexStore {
    /// Records uses and applies them to their items, in one transaction: the usage table takes
    /// the latest date and adds the counts, and an indexed item's `lastUsedDate`, `useCount` and
    /// `items.used` follow. With `feed`, that feed's marks are replaced by `marks` in the same
    /// transaction, so a use is never applied without its mark (or the reverse).
    ///
    /// Returns the records after the change, one per identifier, in the order first given.
    @discardableResult
    package func recordUses(_ uses: [ItemUse], feed: String? = nil,
                           marks: [ItemIdentifier: FeedMark] = [:]) throws(IndexError) -> [UsageRecord] {
        try write { db in
            var order: [ItemIdentifier] = []
            for use in uses {
                if !order.contains(use.identifier) { order.append(use.identifier) }
                try db.cachedStatement(sql: """
                    INSERT INTO usage(identifier, last_used, use_count, title) VALUES (?, ?, ?, ?)
                    ON CONFLICT(identifier) DO UPDATE SET
                        title = CASE WHEN excluded.last_used >= last_used THEN coalesce(excluded.title, title) ELSE title END,
                        last_used = max(last_used, excluded.last_used),
                        use_count = \(Self.saturatingSum("use_count", "excluded.use_count"))
                    """).execute(arguments: [Data(use.identifier.bytes), use.date.timeIntervalSince1970, use.count, use.title])
                try db.cachedStatement(sql: "INSERT INTO use_times(identifier, used) VALUES (?, ?)")
                    .execute(arguments: [Data(use.identifier.bytes), use.date.timeIntervalSince1970])
            }
            try Self.trimUseTimes(db)
            if let feed {
                try db.execute(sql: "DELETE FROM usage_feeds WHERE feed = ?", arguments: [feed])
                let encoder = JSONEncoder()
                encoder.outputFormatting = .sortedKeys
                for (identifier, mark) in marks {
                    try db.cachedStatement(sql: "INSERT INTO usage_feeds(feed, identifier, visited, counts) VALUES (?, ?, ?, ?)")
                        .execute(arguments: [feed, Data(identifier.bytes), mark.visited.timeIntervalSince1970,
                                             String(decoding: try encoder.encode(mark.counts), as: UTF8.self)])
                }
            }
            return try order.map { identifier in
                let record = try Self.usageRecord(identifier, db)!
                let indexed = try Self.applyUsage(record, db)
                return UsageRecord(identifier: identifier, lastUsed: record.lastUsed, useCount: record.useCount,
                                   title: record.title, indexed: indexed)
            }
        }
    }

    /// The recorded uses of `identifier`, or nil when none were.
    package func usage(_ identifier: ItemIdentifier) throws(IndexError) -> UsageRecord? {
        try read { db in
            guard var record = try Self.usageRecord(identifier, db) else { return nil }
            record.indexed = try Int64.fetchOne(db, sql: "SELECT id FROM items WHERE path = ?",
                                                arguments: [Data(identifier.bytes)]) != nil
            return record
        }
    }

    /// What `feed` has given the index so far, by identifier (see ``recordUses(_:feed:marks:)``).
    package func feedMarks(_ feed: String) throws(IndexError) -> [ItemIdentifier: FeedMark] {
        try read { db in
            var out: [ItemIdentifier: FeedMark] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT identifier, visited, counts FROM usage_feeds WHERE feed = ?",
                                        arguments: [feed]) {
                let counts = (try? JSONDecoder().decode([String: Int64].self, from: Data((row["counts"] as String).utf8))) ?? [:]
                out[ItemIdentifier(bytes: Array(row["identifier"] as Data))] =
                    FeedMark(visited: Date(timeIntervalSince1970: row["visited"]), counts: counts)
            }
            return out
        }
    }

    /// The largest use count: counts stop there rather than overflow.
    package static let maximumUseCount = Int64.max

    /// SQL for `a + b` of two non-negative counts, stopping at `Int64.max`.
    ///
    /// Why: SQLite turns an integer sum that overflows into a REAL (9.2e18), which GRDB cannot
    /// read back as an integer: `fsindex used` and fsindexd trapped on every later read of that
    /// count (issue 22, F5). `b` is at least 1 here, so `max - b` cannot overflow.
    static func saturatingSum(_ a: String, _ b: String) -> String {
        "CASE WHEN \(a) > \(maximumUseCount) - \(b) THEN \(maximumUseCount) ELSE \(a) + \(b) END"
    }

    /// A stored count as an integer, also one that an older build let overflow into a REAL
    /// (SQLite's CAST clamps a REAL to the 64-bit range).
    static let storedUseCount = "CAST(use_count AS INTEGER) AS use_count"

    static func usageRecord(_ identifier: ItemIdentifier, _ db: Database) throws -> UsageRecord? {
        guard let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT last_used, \(storedUseCount), title FROM usage WHERE identifier = ?"),
                                         arguments: [Data(identifier.bytes)]) else { return nil }
        return UsageRecord(identifier: identifier, lastUsed: Date(timeIntervalSince1970: row["last_used"]),
                           useCount: row["use_count"], title: row["title"], indexed: false)
    }

    /// Writes a record into its item, if indexed: the column ranking reads, and the attributes
    /// that `fsindex show`, `--json` and the MCP tools read. Returns whether an item was there.
    static func applyUsage(_ record: UsageRecord, _ db: Database) throws -> Bool {
        let date = record.lastUsed
        try db.cachedStatement(sql: """
            UPDATE items SET used = ?, attributes = json_set(attributes, '$.lastUsedDate', ?, '$.useCount', ?) WHERE path = ?
            """).execute(arguments: [date.timeIntervalSince1970, AttributeValue.iso8601(date), record.useCount,
                                     Data(record.identifier.bytes)])
        return db.changesCount > 0
    }

    /// The attributes an item is stored with: its own, with the recorded uses merged in (the
    /// later of its own `lastUsedDate`, if a caller gave one, and the last recorded use).
    static func mergingUsage(_ attributes: AttributeSet, path: Data, _ db: Database) throws -> AttributeSet {
        guard let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT last_used, \(storedUseCount) FROM usage WHERE identifier = ?"),
                                         arguments: [path]) else { return attributes }
        var merged = attributes
        let recorded = Date(timeIntervalSince1970: row["last_used"])
        merged[.lastUsedDate] = .date(max(recorded, attributes.date(.lastUsedDate) ?? recorded))
        merged[.useCount] = .integer(row["use_count"])
        return merged
    }
}
