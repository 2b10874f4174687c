import Attributes
import FoundationEssentials
import GRDB
import SystemPackage
import Glibc

extension IndexStore {
    /// The stored item with this identifier, with its full attribute set (text included), or nil.
    /// Expired items are not returned.
    package func item(_ identifier: ItemIdentifier, now: Date = Date()) throws(IndexError) -> SearchableItem? {
        try read { db in
            guard let row = try Row.fetchOne(db, sql: """
                SELECT id, expiration, \(Self.attributeSelection) FROM items
                WHERE path = ? AND (expiration IS NULL OR expiration > ?)
                """, arguments: [Data(identifier.bytes), now.timeIntervalSince1970]) else { return nil }
            return try Self.decodeItem(row, db, withText: true)
        }
    }

    static func decodeItem(_ row: Row, _ db: Database, withText: Bool) throws -> SearchableItem {
        var attributes = try Self.attributes(row)
        if withText, let text = try String.fetchOne(db, sql: "SELECT fsindex_unzip(text) FROM item_texts WHERE id = ?",
                                                        arguments: [row["id"] as Int64]) {
            attributes.textContent = text
        }
        let path: Data = row["path"]
        let exp: Double? = row["expiration"]
        return SearchableItem(uniqueIdentifier: ItemIdentifier(bytes: Array(path)), domainIdentifier: row["domain"],
                              attributes: attributes, expirationDate: exp.map { Date(timeIntervalSince1970: $0) })
    }

    /// The attribute set decoded from a row's `attributes` JSON (no text).
    package static func attributes(json: String) throws -> AttributeSet {
        try JSONDecoder().decode(AttributeSet.self, from: Data(json.utf8))
    }
}

/// A root and its crawl history, as `fsindex status` shows it.
package struct DomainRecord: Sendable, Hashable, Codable {
    package var name: String
    package var root: [UInt8]
    package var lastCrawlStarted: Date?
    package var lastCrawlFinished: Date?
    package var lastCrawlProblems: Int?
    package var itemCount: Int
}

/// Counts for `fsindex status`.
package struct IndexStatus: Sendable {
    package var location: IndexLocation
    package var itemCount: Int
    /// Of `itemCount`, the items inside files (the messages of mboxes).
    package var innerItemCount: Int = 0
    package var domains: [DomainRecord]
    package var kinds: [(kind: String, count: Int)]
    package var databaseBytes: Int64
    package var clientState: [UInt8]?
    /// Items whose extraction failed, counted per extractor (`fsindex failures` lists them).
    package var failures: [(extractor: String, count: Int)] = []
    /// Items whose `textContentSummary` is still to be made (by fsindexd or the next `fsindex index`).
    package var summariesPending = 0
    /// Pictures and scanned PDFs waiting for OCR (by fsindexd or the next `fsindex index`).
    package var recognitionsPending = 0
    /// Items waiting for the semantic pass (issue 43), and those that have a vector.
    package var meaningsPending = 0
    package var meanings = 0
}

/// One item whose content could not be extracted, as `fsindex failures` shows it.
package struct ExtractionFailureRecord: Sendable, Hashable {
    package var identifier: ItemIdentifier
    /// The extractor that failed (`pdf`, `mail`, ...), or nil when the file could not be read at all.
    package var extractor: String?
    package var error: String
    package var indexedAt: Date
}

extension IndexStore {
    /// Records that a crawl of `domain` (rooted at `root`) started.
    package func beginCrawl(domain: String, root: [UInt8], at date: Date = Date()) throws(IndexError) {
        try write { db in
            try db.execute(sql: """
                INSERT INTO domains(name, root, last_crawl_started) VALUES (?, ?, ?)
                ON CONFLICT(name) DO UPDATE SET root = excluded.root, last_crawl_started = excluded.last_crawl_started
                """, arguments: [domain, Data(root), date.timeIntervalSince1970])
        }
    }

    /// Records that a crawl of `domain` finished with `problems` reported, with a client state.
    package func finishCrawl(domain: String, problems: Int, clientState: [UInt8]?, at date: Date = Date()) throws(IndexError) {
        try write { db in
            try db.execute(sql: "UPDATE domains SET last_crawl_finished = ?, last_crawl_problems = ? WHERE name = ?",
                           arguments: [date.timeIntervalSince1970, problems, domain])
            if let clientState { try Self.saveClientState(clientState, now: date.timeIntervalSince1970, db) }
        }
    }

    package func domains() throws(IndexError) -> [DomainRecord] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT d.name, d.root, d.last_crawl_started, d.last_crawl_finished, d.last_crawl_problems,
                       (SELECT count(*) FROM items WHERE domain = d.name) AS n
                FROM domains d ORDER BY d.name
                """).map { row in
                let root: Data = row["root"]
                let s: Double? = row["last_crawl_started"], f: Double? = row["last_crawl_finished"]
                return DomainRecord(name: row["name"], root: Array(root),
                                    lastCrawlStarted: s.map { Date(timeIntervalSince1970: $0) },
                                    lastCrawlFinished: f.map { Date(timeIntervalSince1970: $0) },
                                    lastCrawlProblems: row["last_crawl_problems"], itemCount: row["n"])
            }
        }
    }

    package func status() throws(IndexError) -> IndexStatus {
        let domains = try domains()
        let (count, inner, kinds) = try read { db in
            let count = try Int.fetchOne(db, sql: "SELECT count(*) FROM items") ?? 0
            let inner = try Int.fetchOne(db, sql: "SELECT count(*) FROM items WHERE instr(path, x'00') > 0") ?? 0
            let kinds = try Row.fetchAll(db, sql: """
                SELECT coalesce(kind, '?') AS kind, count(*) AS n FROM items GROUP BY 1 ORDER BY n DESC, kind
                """).map { (kind: $0["kind"] as String, count: $0["n"] as Int) }
            return (count, inner, kinds)
        }
        let failures = try read { db in
            try Row.fetchAll(db, sql: """
                SELECT coalesce(extractor, '(none)') AS e, count(*) AS n FROM items WHERE error IS NOT NULL GROUP BY 1 ORDER BY n DESC, e
                """).map { (extractor: $0["e"] as String, count: $0["n"] as Int) }
        }
        var bytes: Int64 = 0
        for suffix in ["", "-wal", "-shm"] {
            var st = stat()
            if location.databasePath(suffix: suffix).withPlatformString({ stat($0, &st) }) == 0 { bytes += Int64(st.st_size) }
        }
        var status = IndexStatus(location: location, itemCount: count, innerItemCount: inner, domains: domains, kinds: kinds,
                                 databaseBytes: bytes, clientState: try fetchLastClientState(), failures: failures,
                                 summariesPending: try pendingSummaryCount())
        status.recognitionsPending = try pendingRecognitionCount()
        (status.meaningsPending, status.meanings) = try read { db in (try Self.pendingMeaningCount(db), try Self.meaningCount(db)) }
        return status
    }

    /// The items whose extraction failed, most recent first.
    package func extractionFailures(limit: Int = 100_000) throws(IndexError) -> [ExtractionFailureRecord] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT path, extractor, error, indexed_at FROM items WHERE error IS NOT NULL ORDER BY indexed_at DESC, path LIMIT ?
                """, arguments: [limit]).map {
                ExtractionFailureRecord(identifier: ItemIdentifier(bytes: Array($0["path"] as Data)), extractor: $0["extractor"],
                                        error: $0["error"], indexedAt: Date(timeIntervalSince1970: $0["indexed_at"]))
            }
        }
    }

    /// Total number of items (expired ones included until purged).
    package func count() throws(IndexError) -> Int {
        try read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM items") ?? 0 }
    }

    /// Compacts the full-text indexes after a large crawl (FTS5 'optimize'), counts the items
    /// of the common words again (`refreshTermStatistics`), and gives the pages that frees back
    /// to the file system (incremental auto-vacuum).
    package func optimize() throws(IndexError) {
        try write { db in
            try db.execute(sql: "INSERT INTO items_fts(items_fts) VALUES('optimize')")
            try db.execute(sql: "INSERT INTO items_names(items_names) VALUES('optimize')")
        }
        try refreshTermStatistics()
        do {
            try writer.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA incremental_vacuum") }
        } catch { throw Self.map(error, path: location.directory.string) }
    }
}
