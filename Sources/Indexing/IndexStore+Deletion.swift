import Attributes
import FoundationEssentials
import GRDB

extension IndexStore {
    /// Deletes the items with these identifiers (absent ones are ignored). Returns how many went.
    @discardableResult
    package func deleteItems(identifiers: [ItemIdentifier]) throws(IndexError) -> Int {
        try write { db in
            var n = 0
            for ident in identifiers {
                if let id = try Int64.fetchOne(db.cachedStatement(sql: "SELECT id FROM items WHERE path = ?"),
                                               arguments: [Data(ident.bytes)]) {
                    try Self.delete(rowid: id, db)
                    try Self.deleteChildren(of: ident.bytes, db)
                    n += 1
                }
            }
            return n
        }
    }

    /// Deletes items by row id (as returned in `StoredStamp.id`).
    @discardableResult
    package func deleteItems(rowIDs: [Int64]) throws(IndexError) -> Int {
        try write { db in
            for id in rowIDs {
                if let path = try Data.fetchOne(db.cachedStatement(sql: "SELECT path FROM items WHERE id = ?"), arguments: [id]) {
                    try Self.deleteChildren(of: Array(path), db)
                }
                try Self.delete(rowid: id, db)
            }
            return rowIDs.count
        }
    }

    /// ``deleteItems(rowIDs:)``, returning the identifiers of every item that went (the items
    /// inside those files too).
    package func deletedItems(rowIDs: [Int64]) throws(IndexError) -> [ItemIdentifier] {
        try write { db in
            var out: [ItemIdentifier] = []
            for id in rowIDs {
                guard let path = try Data.fetchOne(db.cachedStatement(sql: "SELECT path FROM items WHERE id = ?"), arguments: [id])
                else { continue }
                let children = try Row.fetchAll(db.cachedStatement(sql: "SELECT id, path FROM items WHERE path >= ? AND path < ?"),
                                                arguments: [Data(ItemIdentifier.childRange(of: Array(path)).lower),
                                                            Data(ItemIdentifier.childRange(of: Array(path)).upper)])
                for child in children {
                    try Self.delete(rowid: child["id"], db)
                    out.append(ItemIdentifier(bytes: Array(child["path"] as Data)))
                }
                try Self.delete(rowid: id, db)
                out.append(ItemIdentifier(bytes: Array(path)))
            }
            return out
        }
    }

    /// Deletes every item of these domains, and the domains' records.
    @discardableResult
    package func deleteItems(domains: [String]) throws(IndexError) -> Int {
        try write { db in
            var n = 0
            for d in domains {
                try db.execute(sql: "DELETE FROM item_texts WHERE id IN (SELECT id FROM items WHERE domain = ?)", arguments: [d])
                try db.execute(sql: "DELETE FROM items_names WHERE rowid IN (SELECT id FROM items WHERE domain = ?)", arguments: [d])
                try db.execute(sql: "DELETE FROM items WHERE domain = ?", arguments: [d])
                n += db.changesCount
                try db.execute(sql: "DELETE FROM domains WHERE name = ?", arguments: [d])
            }
            return n
        }
    }

    /// ``deleteItems(domains:)``, returning the identifiers of every item that went (for
    /// live-query subscribers when a root disappears).
    package func deletedItems(domains: [String]) throws(IndexError) -> [ItemIdentifier] {
        try write { db in
            var out: [ItemIdentifier] = []
            for d in domains {
                out += try Data.fetchAll(db, sql: "SELECT path FROM items WHERE domain = ?", arguments: [d])
                    .map { ItemIdentifier(bytes: Array($0)) }
                try db.execute(sql: "DELETE FROM item_texts WHERE id IN (SELECT id FROM items WHERE domain = ?)", arguments: [d])
                try db.execute(sql: "DELETE FROM items_names WHERE rowid IN (SELECT id FROM items WHERE domain = ?)", arguments: [d])
                try db.execute(sql: "DELETE FROM items WHERE domain = ?", arguments: [d])
                try db.execute(sql: "DELETE FROM domains WHERE name = ?", arguments: [d])
            }
            return out
        }
    }

    /// Deletes every item (Core Spotlight's `deleteAllSearchableItems`). Domains and the client
    /// state go too.
    package func deleteAllItems() throws(IndexError) {
        try write { db in
            try db.execute(sql: """
                DELETE FROM item_texts; DELETE FROM items_names; DELETE FROM items;
                DELETE FROM domains; DELETE FROM client_state;
                """)
        }
    }

    static func delete(rowid id: Int64, _ db: Database) throws {
        // item_texts' delete trigger takes the item's words out of items_fts.
        try db.cachedStatement(sql: "DELETE FROM item_texts WHERE id = ?").execute(arguments: [id])
        try db.cachedStatement(sql: "DELETE FROM items_names WHERE rowid = ?").execute(arguments: [id])
        try db.cachedStatement(sql: "DELETE FROM items WHERE id = ?").execute(arguments: [id])
    }
}

extension IndexStore {
    /// Deletes expired items (expiration at or before `now`). Returns how many went.
    /// Queries also filter them out, so an item is never returned after it expires, purged or not.
    @discardableResult
    package func purgeExpiredItems(now: Date = Date()) throws(IndexError) -> Int {
        let t = now.timeIntervalSince1970
        return try write { db in
            let ids = try Int64.fetchAll(db, sql: "SELECT id FROM items WHERE expiration IS NOT NULL AND expiration <= ?", arguments: [t])
            for id in ids { try Self.delete(rowid: id, db) }
            return ids.count
        }
    }
}
