import Attributes
import FoundationEssentials
import GRDB

/// Apps' domains: items donated by a program (a notes app, a mail client), written in batches
/// with a client state per domain, as Core Spotlight's `CSSearchableIndex` with
/// `beginBatch`/`endBatch(withClientState:)` and `fetchLastClientState`. A crawl never touches
/// them: their domains are names (`notes`), never a root's path.
package struct DonatedDomain: Sendable, Hashable, Codable {
    package var name: String
    package var itemCount: Int
    package var clientState: [UInt8]?
    package var lastBatch: Date?
}

extension IndexStore {
    /// Writes one batch of `domain`'s items and its client state in one transaction: all of it,
    /// or (a crash, a full disk, a bad item) nothing, and the state read back is the committed
    /// batch's. Expired items of every domain are purged on the way. `urlScheme`, when given, is
    /// the scheme the app declares as its own (checked by `DonationReader.validate(urlScheme:)`);
    /// it stays the domain's until another batch declares another.
    package func donate(_ items: [SearchableItem], domain: String, clientState: [UInt8]?, urlScheme: String? = nil,
                       now: Date = Date()) throws(IndexError) {
        if let clientState, clientState.count > 250 { throw .clientStateTooLarge(size: clientState.count) }
        let t = now.timeIntervalSince1970
        try write { db in
            for item in items {
                var item = item
                item.domainIdentifier = domain
                try Self.upsert(IndexEntry(item: item), now: t, db)
                try Self.setThumbnail(item.thumbnailData, of: item.uniqueIdentifier, db)
            }
            try db.execute(sql: """
                INSERT INTO donated_domains(name, client_state, last_batch, url_scheme) VALUES (?, ?, ?, ?)
                ON CONFLICT(name) DO UPDATE SET client_state = coalesce(excluded.client_state, client_state), last_batch = excluded.last_batch,
                    url_scheme = coalesce(excluded.url_scheme, url_scheme)
                """, arguments: [domain, clientState.map { Data($0) }, t, urlScheme?.lowercased()])
            let expired = try Int64.fetchAll(db, sql: "SELECT id FROM items WHERE expiration IS NOT NULL AND expiration <= ?", arguments: [t])
            for id in expired { try Self.delete(rowid: id, db) }
        }
    }

    /// The URL scheme `domain`'s app declared as its own, if it did.
    package func urlScheme(domain: String) throws(IndexError) -> String? {
        try read { db in try String.fetchOne(db, sql: "SELECT url_scheme FROM donated_domains WHERE name = ?", arguments: [domain]) }
    }

    /// The client state of `domain`'s last committed batch (`fetchLastClientState`).
    package func fetchLastClientState(domain: String) throws(IndexError) -> [UInt8]? {
        try read { db in
            try Data.fetchOne(db, sql: "SELECT client_state FROM donated_domains WHERE name = ?", arguments: [domain]).map { Array($0) }
        }
    }

    /// Deletes `domain`'s items with these identifiers, or all of them (and its client state)
    /// when `ids` is nil. Returns the identifiers that went.
    ///
    /// An empty list forgets nothing: "these identifiers" and "everything" are told apart by
    /// the type, not by a count, since an app that computed an empty list of deletions wiped its
    /// whole domain when the two were the same (issue 22, F18).
    package func forget(domain: String, ids: [String]?) throws(IndexError) -> [ItemIdentifier] {
        try write { db in
            var gone: [ItemIdentifier] = []
            let rows: [Row]
            if let ids {
                rows = try ids.compactMap { id in
                    try Row.fetchOne(db, sql: "SELECT id, path FROM items WHERE path = ? AND domain = ?",
                                     arguments: [Data(ItemIdentifier.donated(domain: domain, id: id).bytes), domain])
                }
            } else {
                rows = try Row.fetchAll(db, sql: "SELECT id, path FROM items WHERE domain = ?", arguments: [domain])
                try db.execute(sql: "DELETE FROM donated_domains WHERE name = ?", arguments: [domain])
            }
            for row in rows {
                try Self.delete(rowid: row["id"], db)
                gone.append(ItemIdentifier(bytes: Array(row["path"] as Data)))
            }
            return gone
        }
    }

    /// The `contentURL` of donated items (what they print as), by identifier.
    package func contentURLs(_ identifiers: [[UInt8]]) throws(IndexError) -> [[UInt8]: String] {
        guard !identifiers.isEmpty else { return [:] }
        return try read { db in
            var out: [[UInt8]: String] = [:]
            for id in identifiers {
                if let url = try String.fetchOne(db, sql: "SELECT json_extract(attributes, '$.contentURL') FROM items WHERE path = ?",
                                                 arguments: [Data(id)]) {
                    out[id] = url
                }
            }
            return out
        }
    }

    /// Every domain apps have donated to, with its items and last batch.
    package func donatedDomains() throws(IndexError) -> [DonatedDomain] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT d.name, d.client_state, d.last_batch, (SELECT count(*) FROM items WHERE domain = d.name) AS n
                FROM donated_domains d ORDER BY d.name
                """).map { row in
                let state: Data? = row["client_state"]
                let last: Double? = row["last_batch"]
                return DonatedDomain(name: row["name"], itemCount: row["n"], clientState: state.map { Array($0) },
                                     lastBatch: last.map { Date(timeIntervalSince1970: $0) })
            }
        }
    }
}

extension IndexStore {
    /// The picture an app donated with its item (`thumbnailData`), or nil: no such item, or
    /// none donated with it.
    package func donatedThumbnail(_ identifier: ItemIdentifier) throws(IndexError) -> [UInt8]? {
        try read { db in
            try Data.fetchOne(db, sql: """
                SELECT t.data FROM item_thumbnails t JOIN items i ON i.id = t.item_id WHERE i.path = ?
                """, arguments: [Data(identifier.bytes)]).map { [UInt8]($0) }
        }
    }

    /// Replaces the item's donated thumbnail with `data` (nil: removes it), as a donation
    /// replaces the whole item.
    static func setThumbnail(_ data: [UInt8]?, of identifier: ItemIdentifier, _ db: Database) throws {
        guard let id = try Int64.fetchOne(db.cachedStatement(sql: "SELECT id FROM items WHERE path = ?"),
                                          arguments: [Data(identifier.bytes)]) else { return }
        if let data {
            try db.cachedStatement(sql: "INSERT OR REPLACE INTO item_thumbnails(item_id, data) VALUES (?, ?)")
                .execute(arguments: [id, Data(data)])
        } else {
            try db.cachedStatement(sql: "DELETE FROM item_thumbnails WHERE item_id = ?").execute(arguments: [id])
        }
    }
}
