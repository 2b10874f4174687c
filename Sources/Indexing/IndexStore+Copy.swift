import CFTS5CJK
import FoundationEssentials
import GRDB
import SystemPackage
import Glibc

/// A volume's portable index copy (issue 29): the index written whole into one file with
/// `VACUUM INTO`, and a copy read back only after it is checked as hostile input.
extension IndexStore {
    /// Writes a consistent snapshot of the index to `path` (which must not exist) as one
    /// self-contained file in rollback-journal mode, then fsyncs it. SQLite holds `path` open
    /// only while this runs: the copy keeps no handle on the file system it is written to.
    package func copy(into path: FilePath) throws(IndexError) {
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
    package static func reasonToRefuseCopy(at path: FilePath) -> String? {
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
                if let why = try Self.schemaDifference(db, applied: applied) { return why }
                // Every compressed text must be one of ours: inflated within its bound
                // (`FSINDEX_TEXT_MAXIMUM`), to exactly the length its header gives. A text that
                // is not would fail later, when fsindexd reads or replaces it, and take the
                // volume's index down with it; here it only sets the copy aside.
                do {
                    _ = try Int.fetchOne(db, sql: "SELECT count(fsindex_unzip(text)) FROM item_texts WHERE typeof(text) = 'blob'")
                } catch let e as DatabaseError {
                    return "a stored text is not one fsindex wrote (\(e.message ?? "\(e.resultCode)"))"
                }
                return nil
            }
        } catch {
            return "not a readable SQLite database: \(error)"
        }
    }

    /// How the copy's schema differs from the one this fsindex makes with the same migrations,
    /// or nil when it is exactly that: every table, index, view and trigger, with its SQL.
    /// `quick_check` and the migration names prove nothing about the rest: a copy can carry a
    /// trigger (`AFTER DELETE ON items`) that fsindexd would run and write back to the stick.
    static func schemaDifference(_ db: Database, applied: Set<String>) throws -> String? {
        let all = Schema.migrator.migrations
        let prefix = Array(all.prefix(applied.count))
        guard Set(prefix) == applied, let last = prefix.last else {
            return "its migrations are not this fsindex's in order (\(applied.sorted().joined(separator: ", ")))"
        }
        let reference = try DatabaseQueue(configuration: {
            var c = Configuration()
            c.label = "fsindex-reference-schema"
            c.prepareDatabase { try IndexStore.registerTokenizer($0) }
            return c
        }())
        try Schema.migrator.migrate(reference, upTo: last)
        let expected = try reference.read { try Self.schemaObjects($0) }
        let found = try Self.schemaObjects(db)
        if found == expected { return nil }
        let extra = found.subtracting(expected).sorted().map { "\($0.type) \($0.name)" }
        let missing = expected.subtracting(found).sorted().map { "\($0.type) \($0.name)" }
        var parts: [String] = []
        if !extra.isEmpty { parts.append("not made by fsindex: " + extra.prefix(5).joined(separator: ", ")) }
        if !missing.isEmpty { parts.append("missing or changed: " + missing.prefix(5).joined(separator: ", ")) }
        return "its schema is not fsindex's (" + parts.joined(separator: "; ") + ")"
    }

    /// The schema's objects; SQLite's own statistics (`sqlite_stat*`, which `ANALYZE` makes and
    /// only steer the planner) aside.
    private static func schemaObjects(_ db: Database) throws -> Set<SchemaObject> {
        Set(try Row.fetchAll(db, sql: "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite\\_stat%' ESCAPE '\\'")
            .map { SchemaObject(type: $0["type"], name: $0["name"], table: $0["tbl_name"], sql: $0["sql"]) })
    }
}

/// One row of `sqlite_master`.
private struct SchemaObject: Hashable, Comparable {
    var type: String
    var name: String
    var table: String
    var sql: String?

    static func < (a: Self, b: Self) -> Bool { (a.type, a.name) < (b.type, b.name) }
}
