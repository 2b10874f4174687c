import Attributes
import FoundationEssentials
import GRDB

/// One stored item as another index needs it: the item with its text, the types it conforms to,
/// and a version that changes whenever anything stored of it changes.
package struct ExportedItem: Sendable {
    package var item: SearchableItem
    package var types: [String]
    package var extractor: String?
    package var size: Int64?
    package var modified: Double?
    package var created: Double?
    package var used: Double?
    package var version: String
}

/// Reading the index out, for the shared PostgreSQL index (issue 15): the local index is the
/// publishing watcher's journal, so whatever it holds can be sent again after a failure.
extension IndexStore {
    /// The domains that hold items.
    package func domainNames() throws(IndexError) -> [String] {
        try read { db in try String.fetchAll(db, sql: "SELECT DISTINCT domain FROM items ORDER BY domain") }
    }

    /// The root of each domain a crawl made (apps' domains have none), by domain name.
    package func domainRoots() throws(IndexError) -> [String: [UInt8]] {
        try read { db in
            var out: [String: [UInt8]] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT name, root FROM domains WHERE root IS NOT NULL") {
                out[row["name"]] = Array(row["root"] as Data)
            }
            return out
        }
    }

    /// The version of every item of `domain`, by identifier bytes.
    package func versions(domain: String) throws(IndexError) -> [[UInt8]: String] {
        try read { db in
            var out: [[UInt8]: String] = [:]
            let rows = try Row.fetchCursor(db, sql: """
                SELECT path, indexed_at, used, attributes, summary_pending FROM items WHERE domain = ?
                """, arguments: [domain])
            while let row = try rows.next() {
                out[Array(row[0] as Data)] = Self.version(row)
            }
            return out
        }
    }

    /// The items with these identifiers that exist (and have not expired), with their text.
    package func exportItems(_ identifiers: [[UInt8]], now: Date = Date()) throws(IndexError) -> [ExportedItem] {
        try read { db in
            var out: [ExportedItem] = []
            let statement = try db.cachedStatement(sql: """
                SELECT id, expiration, indexed_at, summary_pending, used, \(Self.attributeSelection) FROM items WHERE path = ?
                """)
            for identifier in identifiers {
                guard let row = try Row.fetchOne(statement, arguments: [Data(identifier)]) else { continue }
                let item = try Self.decodeItem(row, db, withText: true)
                let types = try String.fetchAll(db.cachedStatement(sql: "SELECT type FROM item_types WHERE item_id = ? ORDER BY type"),
                                                arguments: [row["id"] as Int64])
                out.append(ExportedItem(item: item, types: types, extractor: row["extractor"], size: row["size"],
                                        modified: row["modified"], created: row["created"], used: row["used"],
                                        version: Self.version(row)))
            }
            return out
        }
    }

    /// FNV-1a over what a write, a move, a refresh, a use or a summary changes: the stored JSON,
    /// the write time, the last use and whether a summary is due.
    static func version(_ row: Row) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func mix<S: Sequence<UInt8>>(_ bytes: S) {
            for b in bytes { hash = (hash ^ UInt64(b)) &* 0x0000_0100_0000_01B3 }
        }
        let json: String = row["attributes"] ?? ""
        mix(json.utf8)
        let indexed: Double = row["indexed_at"] ?? 0
        let used: Double? = row["used"]
        let pending: Int? = row["summary_pending"]
        return String(hash, radix: 16) + "/" + String(indexed) + "/" + (used.map { String($0) } ?? "-") + "/" + (pending.map(String.init) ?? "-")
    }
}
