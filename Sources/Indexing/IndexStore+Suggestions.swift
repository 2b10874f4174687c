import Attributes
import FoundationEssentials
import GRDB

/// What suggestions are made of (`Suggester` in Querying): used items, when they were used,
/// calendar events and notes. Each read is bounded (a limit, or an index range) so that a
/// suggestion costs milliseconds whatever the size of the index.
extension IndexStore {
    /// `use_times` keeps the latest uses only, this many, so that it stays small (a few hundred
    /// KB): enough for months of a person's uses, which is what "at this hour before" needs.
    package static let maximumUseTimes = 10_000

    /// Drops the oldest use times past `maximumUseTimes` (rowids grow with each insert).
    static func trimUseTimes(_ db: Database) throws {
        try db.execute(sql: """
            DELETE FROM use_times WHERE rowid <= (SELECT max(rowid) FROM use_times) - ?
            """, arguments: [Self.maximumUseTimes])
    }

    /// One indexed item with its recorded uses.
    package struct UsedItem: Sendable, Hashable {
        package var item: SearchableItem
        package var lastUsed: Date
        package var useCount: Int64
    }

    /// How to order used items.
    package enum UseOrder: Sendable {
        case mostUsed, lastUsed
    }

    /// The indexed items with recorded uses, most used or last used first, at most `limit`.
    /// (`CROSS JOIN` keeps the usage table the outer loop: without statistics SQLite scanned
    /// every item and looked each up in it, 0.23 s on the bench corpus with no use at all.)
    package func usedItems(_ order: UseOrder, limit: Int, now: Date = Date()) throws(IndexError) -> [UsedItem] {
        try read { db in
            let orderBy = order == .mostUsed ? "u.use_count DESC, u.last_used DESC" : "u.last_used DESC"
            return try Row.fetchAll(db, sql: """
                SELECT u.last_used, CAST(u.use_count AS INTEGER) AS use_count, items.id, items.expiration, \(Self.attributeSelection)
                FROM usage u CROSS JOIN items ON items.path = u.identifier
                WHERE items.expiration IS NULL OR items.expiration > ?
                ORDER BY \(orderBy) LIMIT ?
                """, arguments: [now.timeIntervalSince1970, limit]).map { row in
                UsedItem(item: try Self.decodeItem(row, db, withText: false),
                         lastUsed: Date(timeIntervalSince1970: row["last_used"]), useCount: row["use_count"])
            }
        }
    }

    /// When each use since `since` happened, oldest first (at most `maximumUseTimes`).
    package func useTimes(since: Date) throws(IndexError) -> [(identifier: ItemIdentifier, date: Date)] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT identifier, used FROM use_times WHERE used >= ? ORDER BY used",
                             arguments: [since.timeIntervalSince1970]).map { row in
                (ItemIdentifier(bytes: Array(row["identifier"] as Data)), Date(timeIntervalSince1970: row["used"]))
            }
        }
    }

    /// The indexed items among `identifiers` (those not indexed, or expired, are left out).
    package func items(_ identifiers: [ItemIdentifier], now: Date = Date()) throws(IndexError) -> [SearchableItem] {
        try read { db in
            try identifiers.compactMap { identifier in
                guard let row = try Row.fetchOne(db.cachedStatement(sql: """
                    SELECT id, expiration, \(Self.attributeSelection) FROM items
                    WHERE path = ? AND (expiration IS NULL OR expiration > ?)
                    """), arguments: [Data(identifier.bytes), now.timeIntervalSince1970]) else { return nil }
                return try Self.decodeItem(row, db, withText: false)
            }
        }
    }

    /// The calendar's type: `.ics` files with one event, and each event of a larger calendar
    /// (child items), conform to it.
    package static let calendarEventType = "public.calendar-event"

    /// Items that are calendar events (at most `limit`, newest files first): the suggestions
    /// pick those that start soon, recurrences included, from their attributes.
    package func calendarEvents(limit: Int, now: Date = Date()) throws(IndexError) -> [SearchableItem] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT items.id, items.expiration, \(Self.attributeSelection)
                FROM item_types t JOIN items ON items.id = t.item_id
                WHERE t.type = ? AND (items.expiration IS NULL OR items.expiration > ?)
                  AND json_type(items.attributes, '$.startDate') IS NOT NULL
                ORDER BY items.modified DESC LIMIT ?
                """, arguments: [Self.calendarEventType, now.timeIntervalSince1970, limit]).map { row in
                try Self.decodeItem(row, db, withText: false)
            }
        }
    }

    /// The types of notes: plain text and Markdown (Org files are plain text to the type
    /// detector and are recognized by their `.org` name).
    package static let noteTypes = ["public.plain-text", "public.utf8-plain-text", "net.daringfireball.markdown"]

    /// Notes changed since `since`, newest first, at most `limit`: text, Markdown and Org files
    /// (not logs), and donated items of those types. Read through the `modified` index.
    package func recentNotes(since: Date, limit: Int, now: Date = Date()) throws(IndexError) -> [SearchableItem] {
        try read { db in
            let marks = Self.noteTypes.map { _ in "?" }.joined(separator: ",")
            var arguments: StatementArguments = [since.timeIntervalSince1970, now.timeIntervalSince1970]
            arguments += StatementArguments(Self.noteTypes)
            arguments += [limit]
            return try Row.fetchAll(db, sql: """
                SELECT items.id, items.expiration, \(Self.attributeSelection) FROM items
                WHERE items.modified >= ? AND (items.expiration IS NULL OR items.expiration > ?)
                  AND ((items.content_type IN (\(marks)) AND items.name NOT LIKE '%.log') OR items.name LIKE '%.org')
                ORDER BY items.modified DESC LIMIT ?
                """, arguments: arguments).map { row in try Self.decodeItem(row, db, withText: false) }
        }
    }
}
