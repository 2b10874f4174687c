import GRDB
import SystemPackage

/// The full-text table's merge settings for a large load, such as a first index.
///
/// FTS5 writes each flush of its in-memory terms as a new segment, and by default merges four
/// segments of a level into one of the next as it goes (`automerge` 4), so a term's postings are
/// rewritten once per level. A first index then writes the same postings several times over,
/// only for `optimize()` to merge everything into one segment at the end. During a load of many
/// files (`beginBulkLoad`) the terms are flushed in larger segments (`hashsize` 8 MiB instead of
/// 1 MiB) and no level is merged until it holds 64 segments (`automerge` 0, `crisismerge` 64);
/// `endBulkLoad` restores FTS5's defaults before the final `optimize()`.
///
/// Measured on the bench corpus (111,105 files): 2.4 GiB written instead of 3.2 GiB, 119 s of
/// CPU instead of 131 s, and the same index.
///
/// The settings are stored in the table (FTS5 keeps them in `items_fts_config`), so a load that
/// was killed leaves them; opening the index for writing puts the defaults back
/// (`restoreMergeDefaults`), so an index is never left without merging.
extension IndexStore {
    static let bulkSettings: [(String, Int)] = [("automerge", 0), ("crisismerge", 64), ("hashsize", 8 << 20)]
    static let defaultSettings: [(String, Int)] = [("automerge", 4), ("crisismerge", 16), ("hashsize", 1 << 20)]

    /// Large segments, no merging until a level holds 64: for a load of thousands of files.
    package func beginBulkLoad() throws(IndexError) {
        try write { db in try Self.apply(Self.bulkSettings, db) }
        try checkpointEvery(Self.bulkCheckpointPages)
    }

    /// WAL pages between automatic checkpoints during a bulk load (SQLite's default: 1000). A
    /// checkpoint copies the newest version of each page the log holds into the database: the
    /// B-tree pages every batch touches (the indexes of paths, dates and types) were copied at
    /// almost every checkpoint; 8192 pages (32 MiB of log) copy each of them far less often.
    static let bulkCheckpointPages = 8192

    /// Sets the writer connection's `wal_autocheckpoint` (a setting of the connection, not of
    /// the index: nothing is left behind by a killed load).
    func checkpointEvery(_ pages: Int) throws(IndexError) {
        do {
            try writer.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_autocheckpoint = \(pages)") }
        } catch { throw Self.map(error, path: location.directory.string) }
    }

    /// FTS5's default merge settings again; call `optimize()` after it.
    package func endBulkLoad() throws(IndexError) {
        try write { db in try Self.apply(Self.defaultSettings, db) }
        try checkpointEvery(1000)
    }

    /// Whether a bulk load's settings are in force (for tests and `status`).
    package func isBulkLoading() throws(IndexError) -> Bool {
        try read { db in try Self.bulkLoading(db) }
    }

    static func apply(_ settings: [(String, Int)], _ db: Database) throws {
        for (name, value) in settings {
            try db.execute(sql: "INSERT INTO \(Schema.ftsTable)(\(Schema.ftsTable), rank) VALUES (?, ?)", arguments: [name, value])
        }
    }

    static func bulkLoading(_ db: Database) throws -> Bool {
        try Int.fetchOne(db, sql: "SELECT v FROM \(Schema.ftsTable)_config WHERE k = 'automerge'") == 0
    }

    /// Puts FTS5's merge defaults back if a bulk load was left unfinished (killed).
    static func restoreMergeDefaults(_ writer: any DatabaseWriter) throws {
        try writer.write { db in
            if try bulkLoading(db) { try apply(defaultSettings, db) }
        }
    }
}
