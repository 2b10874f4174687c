import Attributes
import FoundationEssentials
import GRDB

extension IndexStore {
    /// Moves an item, and for a folder every item below it, to a new identifier, keeping their
    /// attributes: what a rename on disk does, without extracting anything again. The name
    /// attributes and the full-text name follow; an item already at the destination is replaced
    /// (a rename over an existing file). Returns how many items moved.
    @discardableResult
    package func moveItems(from old: ItemIdentifier, to new: ItemIdentifier, domain: String? = nil) throws(IndexError) -> Int {
        try movedItems(from: old, to: new, domain: domain).moved
    }

    /// What ``movedItems(from:to:domain:)`` did, item by item, for live-query subscribers.
    package struct ItemMove: Sendable, Hashable {
        /// The old identifiers of the items moved (the folder and everything below it, messages
        /// inside files included), and those of items at the destination that were replaced
        /// and whose identifier no moved item took over.
        package var removed: [ItemIdentifier] = []
        /// The new identifiers of the items moved, in the order of `removed`'s moved part.
        package var added: [ItemIdentifier] = []
        /// How many items moved.
        package var moved: Int { added.count }
    }

    /// ``moveItems(from:to:domain:)``, listing every identifier that went and came.
    package func movedItems(from old: ItemIdentifier, to new: ItemIdentifier, domain: String? = nil) throws(IndexError) -> ItemMove {
        try write { db in
            var result = ItemMove()
            // A rename over an existing file or folder replaces it.
            let replaced = try Self.deleteTreeListing(new.bytes, db)
            let rows = try Row.fetchAll(db, sql: """
                SELECT id, \(Self.attributeSelection) FROM items WHERE \(Self.treeCondition)
                """, arguments: Self.treeArguments(old.bytes))
            let oldBase = Self.treeBase(old.bytes), newBase = Self.treeBase(new.bytes)
            for row in rows {
                let id: Int64 = row["id"]
                let path = Array(row["path"] as Data)
                let newPath = newBase + path.dropFirst(oldBase.count)
                result.removed.append(ItemIdentifier(bytes: path))
                result.added.append(ItemIdentifier(bytes: newPath))
                if case (let file, _?) = ItemIdentifier.split(Array(newPath)) {
                    // An item inside a file (a message of an mbox): only its file's path changes.
                    var columns = StoredAttributes(row: row)
                    var attributes = try Self.attributes(row)
                    attributes[.path] = .string(ByteString.escaped(file))
                    if let domain { attributes[.domainIdentifier] = .string(domain) }
                    columns.path = newPath
                    columns.domain = domain ?? columns.domain
                    let (json, omitted) = try columns.encode(attributes)
                    try db.execute(sql: "UPDATE items SET path = ?, attributes = ?, omitted = ?, domain = coalesce(?, domain) WHERE id = ?",
                                   arguments: [Data(newPath), json, omitted, domain, id])
                    continue
                }
                // Its recorded uses go with it, as its attributes do.
                try db.execute(sql: "UPDATE OR REPLACE usage SET identifier = ? WHERE identifier = ?",
                               arguments: [Data(newPath), Data(path)])
                let ident = ItemIdentifier(bytes: newPath)
                let name = ByteString.escaped(ident.nameBytes)
                var columns = StoredAttributes(row: row)
                var attributes = try Self.attributes(row)
                attributes[.path] = .string(ByteString.escaped(newPath))
                attributes[.name] = .string(name)
                attributes[.displayName] = .string(name)
                if let domain { attributes[.domainIdentifier] = .string(domain) }
                columns.path = newPath
                columns.name = name
                columns.domain = domain ?? columns.domain
                let (json, omitted) = try columns.encode(attributes)
                try db.execute(sql: """
                    UPDATE items SET path = ?, name = ?, attributes = ?, omitted = ?, domain = coalesce(?, domain) WHERE id = ?
                    """, arguments: [Data(newPath), name, json, omitted, domain, id])
                try db.execute(sql: "UPDATE item_texts SET name = ? WHERE id = ?", arguments: [name, id])
                try db.execute(sql: "UPDATE items_names SET name = ? WHERE rowid = ?", arguments: [name, id])
            }
            // A replaced item whose identifier a moved item took is rewritten, not gone.
            let taken = Set(result.added.map(\.bytes))
            result.removed += replaced.filter { !taken.contains($0.bytes) }
            return result
        }
    }

    /// Deletes an item and, for a folder, everything below it. Returns how many went.
    @discardableResult
    package func deleteItems(under root: ItemIdentifier) throws(IndexError) -> Int {
        try write { db in try Self.deleteTree(root.bytes, db) }
    }

    /// Deletes an item and, for a folder, everything below it (messages inside files
    /// included). Returns the identifiers of every item that went.
    package func deletedItems(under root: ItemIdentifier) throws(IndexError) -> [ItemIdentifier] {
        try write { db in try Self.deleteTreeListing(root.bytes, db) }
    }

    /// The stored stamps of the items directly inside folder `dir` (or everything below it when
    /// `recursive`), keyed by identifier bytes, for comparing a folder with the disk.
    package func stamps(under dir: ItemIdentifier, recursive: Bool) throws(IndexError) -> [[UInt8]: StoredStamp] {
        try read { db in
            var out: [[UInt8]: StoredStamp] = [:]
            let rows = try Row.fetchCursor(db, sql: """
                SELECT id, path, size, mtime_ns, ctime_ns, inode, extractor_version, extractor FROM items
                WHERE path >= ? AND path < ?
                """, arguments: Self.belowArguments(dir.bytes))
            let depth = dir.bytes.count + 1
            while let row = try rows.next() {
                let path = Array(row["path"] as Data)
                if path.contains(0) { continue }   // inside a file; goes with its file
                if !recursive && path[depth...].contains(UInt8(ascii: "/")) { continue }
                out[path] = Self.storedStamp(row)
            }
            return out
        }
    }

    /// Deletes each of these items and everything below it, in one transaction (a burst of
    /// deletions, such as `rm -rf`, is one commit instead of one per file). Returns the
    /// identifiers of every item that went: for a folder, each item below it too (messages
    /// inside files included), so that live queries hear of each.
    @discardableResult
    package func deleteItems(underEach roots: [ItemIdentifier]) throws(IndexError) -> [ItemIdentifier] {
        guard !roots.isEmpty else { return [] }
        return try write { db in
            var out: [ItemIdentifier] = []
            for r in roots { out += try Self.deleteTreeListing(r.bytes, db) }
            return out
        }
    }

    /// The stored stamps of these items (those in the index), in one read.
    package func stamps(of identifiers: [ItemIdentifier]) throws(IndexError) -> [[UInt8]: StoredStamp] {
        try read { db in
            var out: [[UInt8]: StoredStamp] = [:]
            let statement = try db.cachedStatement(sql: """
                SELECT id, path, size, mtime_ns, ctime_ns, inode, extractor_version, extractor FROM items WHERE path = ?
                """)
            for ident in identifiers {
                if let row = try Row.fetchOne(statement, arguments: [Data(ident.bytes)]) {
                    out[ident.bytes] = Self.storedStamp(row)
                }
            }
            return out
        }
    }

    /// The stored stamp of one item, if it is in the index.
    package func stamp(of ident: ItemIdentifier) throws(IndexError) -> StoredStamp? {
        try read { db in
            try Row.fetchOne(db, sql: "SELECT id, path, size, mtime_ns, ctime_ns, inode, extractor_version, extractor FROM items WHERE path = ?",
                             arguments: [Data(ident.bytes)]).map(Self.storedStamp)
        }
    }

    static func storedStamp(_ row: Row) -> StoredStamp {
        var stamp: FileStamp?
        if let m: Int64 = row["mtime_ns"], let c: Int64 = row["ctime_ns"], let i: Int64 = row["inode"] {
            stamp = FileStamp(size: row["size"] ?? 0, modificationNanos: m, changeNanos: c, inode: UInt64(bitPattern: i))
        }
        return StoredStamp(id: row["id"], stamp: stamp, extractorVersion: row["extractor_version"], extractor: row["extractor"])
    }

    /// The rows of an item and everything below it, with `treeArguments`.
    static let treeCondition = "path = ? OR (path >= ? AND path < ?) OR (path >= ? AND path < ?)"

    /// `[path, path + "/", path + "0", path + NUL, path + 0x01]`: the item itself, the half-open
    /// byte range of everything below it ('0' is the byte after '/'), and the range of the items
    /// inside it (a file's messages: `path` NUL `key`).
    static func treeArguments(_ path: [UInt8]) -> StatementArguments {
        var dir = path
        while dir.count > 1 && dir.last == UInt8(ascii: "/") { dir.removeLast() }
        let children = ItemIdentifier.childRange(of: dir)
        return [Data(dir), Data(dir + [UInt8(ascii: "/")]), Data(dir + [UInt8(ascii: "0")]), Data(children.lower), Data(children.upper)]
    }

    /// Deletes the items inside the file at `path` (its messages), not the file's own item.
    static func deleteChildren(of path: [UInt8], _ db: Database) throws {
        let ids = try Int64.fetchAll(db.cachedStatement(sql: "SELECT id FROM items WHERE path >= ? AND path < ?"),
                                     arguments: [Data(ItemIdentifier.childRange(of: path).lower), Data(ItemIdentifier.childRange(of: path).upper)])
        for id in ids { try delete(rowid: id, db) }
    }

    /// `[path + "/", path + "0"]`: everything strictly below `path`.
    static func belowArguments(_ path: [UInt8]) -> StatementArguments {
        var dir = path
        while dir.count > 1 && dir.last == UInt8(ascii: "/") { dir.removeLast() }
        return [Data(dir + [UInt8(ascii: "/")]), Data(dir + [UInt8(ascii: "0")])]
    }

    static func deleteTree(_ path: [UInt8], _ db: Database) throws -> Int {
        let ids = try Int64.fetchAll(db, sql: "SELECT id FROM items WHERE \(treeCondition)",
                                     arguments: treeArguments(path))
        for id in ids { try delete(rowid: id, db) }
        return ids.count
    }

    /// ``deleteTree(_:_:)``, returning the identifiers of the items deleted.
    static func deleteTreeListing(_ path: [UInt8], _ db: Database) throws -> [ItemIdentifier] {
        let rows = try Row.fetchAll(db, sql: "SELECT id, path FROM items WHERE \(treeCondition)",
                                    arguments: treeArguments(path))
        var out: [ItemIdentifier] = []
        out.reserveCapacity(rows.count)
        for row in rows {
            try delete(rowid: row["id"], db)
            out.append(ItemIdentifier(bytes: Array(row["path"] as Data)))
        }
        return out
    }

    /// The path `treeArguments` matches a tree by: without trailing slashes.
    static func treeBase(_ path: [UInt8]) -> [UInt8] {
        var dir = path
        while dir.count > 1 && dir.last == UInt8(ascii: "/") { dir.removeLast() }
        return dir
    }
}

extension IndexStore {
    /// Checks the database and its full-text indexes (`PRAGMA quick_check` and FTS5's
    /// `integrity-check`). Returns nil when all is well, else what is wrong.
    package func integrityProblem() -> String? {
        do {
            return try read { db -> String? in
                let check = try String.fetchOne(db, sql: "PRAGMA quick_check") ?? "no answer"
                if check != "ok" { return check }
                return nil
            }
        } catch {
            return error.description
        }
    }

    /// Identifiers of items written by another version of their extractor than the current one
    /// (to re-extract them), or by an extractor that no longer exists. Items of a names-only
    /// pass (version 0) count as stale. Child items are left out: their file is re-extracted.
    package func identifiers(staleAgainst versions: ExtractorVersions, limit: Int = 10_000) throws(IndexError) -> [ItemIdentifier] {
        try read { db in
            var out: [ItemIdentifier] = []
            let known = versions.byName.keys.sorted()
            var clauses = ["(extractor IS NULL AND extractor_version != ?)"]
            var args: [any DatabaseValueConvertible] = [versions.none]
            for name in known {
                clauses.append("(extractor = ? AND extractor_version != ?)")
                args += [name, versions.byName[name]!]
            }
            clauses.append("(extractor IS NOT NULL AND extractor NOT IN (\(known.map { _ in "?" }.joined(separator: ","))))")
            args += known
            args.append(limit)
            let sql = "SELECT path FROM items WHERE (\(clauses.joined(separator: " OR "))) AND instr(path, x'00') = 0 LIMIT ?"
            for d in try Data.fetchAll(db, sql: sql, arguments: StatementArguments(args)) {
                out.append(ItemIdentifier(bytes: Array(d)))
            }
            return out
        }
    }
}
