import Attributes
import FoundationEssentials
import CFTS5CJK
import GRDB
import SystemPackage
import Glibc

/// The index: a SQLite database (WAL, FTS5) that keeps Core Spotlight's contract.
///
/// - `index(_:clientState:)` inserts or replaces a batch of items in one transaction together
///   with a client state, so a crawl killed at any point resumes from its last committed state.
/// - `fetchLastClientState()` returns that state.
/// - `deleteItems(identifiers:)`, `deleteItems(domains:)`, `deleteAllItems()`.
/// - Expired items are never returned and are purged by `purgeExpiredItems(now:)`.
///
/// For example:
/// ```swift
/// let store = try IndexStore(location: .resolve(explicit: nil))
/// try store.index([IndexEntry(item: item)], clientState: Array("crawl:42".utf8))
/// ```
/// Readers (`fsfind`) open with `readOnly: true` and see a consistent snapshot while a writer works.
package final class IndexStore: Sendable {
    package let location: IndexLocation
    package let readOnly: Bool
    let writer: any DatabaseWriter
    /// The index folder held open while its name is not UTF-8 (see `DatabaseFolder`).
    private let folder: DatabaseFolder?

    /// Frees what SQLite caches for every connection (pages, statements; GRDB's `releaseMemory`):
    /// a first index calls it between its stages (issue 41), so that the crawl's caches are not
    /// held through the OCR pass, when an OCR worker needs its own 100-odd MiB.
    package func releaseMemory() {
        if let pool = writer as? DatabasePool { pool.releaseMemory() } else { (writer as? DatabaseQueue)?.releaseMemory() }
    }

    /// Opens (and, unless `readOnly`, creates and migrates) the index at `location`.
    /// `maxPageCount` caps the database size; tests use it to simulate a full disk.
    package init(location: IndexLocation, readOnly: Bool = false, maxPageCount: Int? = nil) throws(IndexError) {
        self.location = location
        self.readOnly = readOnly
        if readOnly {
            guard location.exists else { throw .missing(path: location.directory.string) }
        } else {
            try location.prepare()
        }
        folder = try DatabaseFolder.openIfNeeded(location)
        let path = folder?.databasePath ?? location.databasePath.string
        var config = Configuration()
        config.readonly = readOnly
        config.foreignKeysEnabled = true
        config.busyMode = .timeout(10)
        config.label = "fsindex"
        config.prepareDatabase { db in
            try Self.registerTokenizer(db)
            if !readOnly {
                try db.execute(sql: "PRAGMA synchronous = NORMAL")
                if let maxPageCount { try db.execute(sql: "PRAGMA max_page_count = \(maxPageCount)") }
            }
            try db.execute(sql: "PRAGMA cache_size = -16000")
        }
        let oldMask = umask(0o077)   // database, -wal and -shm files: 0600
        defer { umask(oldMask) }
        do {
            if readOnly {
                writer = try DatabaseQueue(path: path, configuration: config)
            } else {
                writer = try DatabasePool(path: path, configuration: config)
            }
            try Self.checkSchema(writer, path: location.directory.string, migrate: !readOnly)
        } catch let e as IndexError {
            throw e
        } catch {
            throw Self.map(error, path: location.directory.string)
        }
    }

    private static func checkSchema(_ writer: any DatabaseWriter, path: String, migrate: Bool) throws {
        let known = Set(Schema.migrator.migrations)
        let applied = try writer.read { db in try Schema.migrator.appliedIdentifiers(db) }
        let unknown = applied.subtracting(known)
        if !unknown.isEmpty { throw IndexError.schemaTooNew(path: path, unknownMigrations: unknown.sorted()) }
        if migrate {
            try Schema.migrator.migrate(writer)
            try compactOnce(writer, migrated: !known.isSubset(of: applied) && !applied.isEmpty)
            try restoreMergeDefaults(writer)
        } else if applied.isEmpty {
            throw IndexError.missing(path: path)
        } else if !known.isSubset(of: applied) {
            throw IndexError.schemaTooOld(path: path)
        }
    }

    /// Turns on incremental auto-vacuum, once per index: `optimize()` rewrites the whole
    /// full-text index (about a third of the database) and would otherwise leave the old pages
    /// free inside the file for good. Switching an existing index over takes a VACUUM, which
    /// also gives back the space `v11-compact` freed; a new index's VACUUM is instant. After a
    /// later migration (`migrated`), the pages it freed are given back.
    private static func compactOnce(_ writer: any DatabaseWriter, migrated: Bool) throws {
        try writer.writeWithoutTransaction { db in
            if try Int.fetchOne(db, sql: "PRAGMA auto_vacuum") != 2 {
                try db.execute(sql: "PRAGMA auto_vacuum = INCREMENTAL")
                try db.execute(sql: "VACUUM")
            } else if migrated {
                try db.execute(sql: "PRAGMA incremental_vacuum")
            }
        }
    }

    /// Turns a GRDB/SQLite error into an `IndexError` that names the fix. SQLite's own text
    /// never reaches the user except inside `.database` (shown with the code, for bug reports).
    static func map(_ error: any Error, path: String) -> IndexError {
        if let e = error as? IndexError { return e }
        guard let db = error as? DatabaseError else {
            return .database(path: path, code: -1, message: "\(error)")
        }
        switch db.resultCode {
        case .SQLITE_FULL: return .diskFull(path: path)
        case .SQLITE_CORRUPT, .SQLITE_NOTADB: return .corrupt(path: path, detail: db.message ?? "not a database")
        case .SQLITE_BUSY, .SQLITE_LOCKED: return .locked(path: path)
        case .SQLITE_CANTOPEN: return .missing(path: path)
        default:
            if db.extendedResultCode == .SQLITE_IOERR_WRITE || db.extendedResultCode == .SQLITE_IOERR_FSYNC {
                return .diskFull(path: path)
            }
            return .database(path: path, code: db.resultCode.rawValue, message: db.message ?? "")
        }
    }

    func write<T>(_ body: (Database) throws -> T) throws(IndexError) -> T {
        do { return try writer.write(body) } catch { throw Self.map(error, path: location.directory.string) }
    }

    package func read<T>(_ body: (Database) throws -> T) throws(IndexError) -> T {
        do { return try writer.read(body) } catch { throw Self.map(error, path: location.directory.string) }
    }

    /// The GRDB reader, for the `Querying` stage.
    package var reader: any DatabaseReader { writer }
}

extension IndexStore {
    /// Registers the `fsindex_cjk` tokenizer and the `fsindex_zip`/`fsindex_unzip` functions
    /// (CFTS5CJK) on a connection: every connection that reads or writes `items_fts` or
    /// `item_texts` needs them, ours and a test's own.
    package static func registerTokenizer(_ db: Database) throws {
        let rc = fsindex_fts5_cjk_register(db.sqliteConnection)
        guard rc == 0 else { throw DatabaseError(resultCode: ResultCode(rawValue: rc), message: "cannot register the fsindex_cjk tokenizer") }
        let zip = fsindex_text_zip_register(db.sqliteConnection)
        guard zip == 0 else { throw DatabaseError(resultCode: ResultCode(rawValue: zip), message: "cannot register fsindex_zip/fsindex_unzip") }
    }
}
