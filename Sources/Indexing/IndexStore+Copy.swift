import CFTS5CJK
import FoundationEssentials
import GRDB
import SystemPackage
#if canImport(Glibc)
import Glibc
#endif

/// A volume's portable index copy (issue 29): the index written whole into one file with
/// `VACUUM INTO`, and a copy read back only after it is checked as hostile input.
extension IndexStore {
    /// Writes a consistent snapshot of the index to `path` (which must not exist) as one
    /// self-contained file in rollback-journal mode, then fsyncs it. SQLite holds `path` open
    /// only while this runs: the copy keeps no handle on the file system it is written to.
    public func copy(into path: FilePath) throws(IndexError) {
        do {
            // VACUUM cannot run inside a transaction; the writer's queue keeps the snapshot whole.
            try writer.writeWithoutTransaction { db in
                try db.execute(sql: "VACUUM INTO ?", arguments: [path.string])
            }
            // The copy says WAL when the index does: a WAL file read elsewhere needs its -shm
            // beside it, so the copy is switched to a plain journal (one file, nothing beside it).
            var config = Configuration()
            config.label = "fsindex-copy"
            let queue = try DatabaseQueue(path: path.string, configuration: config)
            try queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA journal_mode = DELETE") }
            try queue.close()
        } catch {
            throw Self.map(error, path: path.string)
        }
        let fd = path.withPlatformString { open($0, O_RDONLY | O_CLOEXEC | O_NOFOLLOW) }
        guard fd >= 0 else { let e = errno; throw .directory(path: path.string, errno: e, message: String(cString: strerror(e))) }
        defer { _ = Glibc.close(fd) }
        if fsync(fd) != 0 { let e = errno; throw .directory(path: path.string, errno: e, message: String(cString: strerror(e))) }
    }

    /// Why the database at `path` (an index copy that came from outside) must not be used, or
    /// nil when it may be opened as an index: it is opened read-only, defensively (no trusted
    /// schema, SQLITE_DBCONFIG_DEFENSIVE), `PRAGMA quick_check` must say ok, and its migrations
    /// must all be known ones (an older index is migrated when opened; a newer one is refused).
    public static func reasonToRefuseCopy(at path: FilePath) -> String? {
        var config = Configuration()
        config.readonly = true
        config.label = "fsindex-seed"
        config.prepareDatabase { db in
            let rc = fsindex_sqlite_defensive(db.sqliteConnection)
            guard rc == 0 else { throw DatabaseError(resultCode: ResultCode(rawValue: rc), message: "cannot open defensively") }
            try db.execute(sql: "PRAGMA trusted_schema = OFF")
            try Self.registerTokenizer(db)
        }
        do {
            let queue = try DatabaseQueue(path: path.string, configuration: config)
            defer { try? queue.close() }
            return try queue.read { db -> String? in
                let check = try String.fetchAll(db, sql: "PRAGMA quick_check")
                guard check == ["ok"] else { return "quick_check: " + check.prefix(3).joined(separator: "; ") }
                guard try db.tableExists("grdb_migrations") else { return "not an fsindex index (no migrations table)" }
                let applied = Set(try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations"))
                let unknown = applied.subtracting(Schema.migrator.migrations)
                if !unknown.isEmpty { return "written by a newer fsindex (unknown migrations \(unknown.sorted().joined(separator: ", ")))" }
                if applied.isEmpty { return "an empty index (no migrations applied)" }
                return nil
            }
        } catch {
            return "not a readable SQLite database: \(error)"
        }
    }
}
