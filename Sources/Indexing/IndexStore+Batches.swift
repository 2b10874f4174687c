import Attributes
import FoundationEssentials
import GRDB

extension IndexStore {
    /// Inserts or replaces `entries` and records `clientState`, all in one transaction: either the
    /// whole batch and its state are stored, or (disk full, crash) none of it is.
    ///
    /// Core Spotlight's `indexSearchableItems(_:completionHandler:)` inside
    /// `beginBatch()` / `endBatch(withClientState:)`.
    /// `deleting` removes items in the same transaction (files that vanished while the batch was
    /// being extracted).
    package func index(_ entries: [IndexEntry], deleting: [ItemIdentifier] = [], clientState: [UInt8]? = nil) throws(IndexError) {
        if let clientState, clientState.count > 250 { throw .clientStateTooLarge(size: clientState.count) }
        let now = Date().timeIntervalSince1970
        try write { db in
            for entry in entries { try Self.upsert(entry, now: now, db) }
            for ident in deleting {
                if let id = try Int64.fetchOne(db.cachedStatement(sql: "SELECT id FROM items WHERE path = ?"),
                                               arguments: [Data(ident.bytes)]) {
                    try Self.delete(rowid: id, db)
                }
            }
            if let clientState { try Self.saveClientState(clientState, now: now, db) }
        }
    }

    /// Core Spotlight's convenience: items without stamps.
    package func indexSearchableItems(_ items: [SearchableItem], clientState: [UInt8]? = nil) throws(IndexError) {
        try index(items.map { IndexEntry(item: $0) }, clientState: clientState)
    }

    /// The client state of the last committed batch, or `nil` if none was ever recorded.
    package func fetchLastClientState() throws(IndexError) -> [UInt8]? {
        try read { db in
            try Data.fetchOne(db, sql: "SELECT state FROM client_state WHERE id = 1").map { Array($0) }
        }
    }

    static func saveClientState(_ state: [UInt8], now: Double, _ db: Database) throws {
        try db.execute(sql: "INSERT OR REPLACE INTO client_state(id, state, updated) VALUES (1, ?, ?)",
                       arguments: [Data(state), now])
    }

    static func upsert(_ entry: IndexEntry, now: Double, _ db: Database) throws {
        let item = entry.item
        let pathData = Data(item.uniqueIdentifier.bytes)
        // Uses live in their own table and outlive every rewrite of the item (issue 13). NUL is
        // not text: here, the one door every item comes through, it becomes a space, so SQLite,
        // search and the shared index read the same words (`AttributeSet.replacingNUL`).
        let a = try Self.mergingUsage(item.attributes.replacingNUL(), path: pathData, db)
        let name = a.string(.name) ?? AttributeValue.replacingNUL(String(decoding: item.uniqueIdentifier.nameBytes, as: UTF8.self))
        var stored = a.removing(.textContent)
        stored[.domainIdentifier] = .string(item.domainIdentifier)
        let modified = (a.date(.fsContentChangeDate) ?? a.date(.contentModificationDate))?.timeIntervalSince1970
        let created = (a.date(.fsCreationDate) ?? a.date(.contentCreationDate))?.timeIntervalSince1970
        let size = entry.stamp?.size ?? a.fileSize
        // The JSON leaves out what these columns hold (`omitted` says which).
        let (json, omitted) = try StoredAttributes(
            path: item.uniqueIdentifier.bytes, domain: item.domainIdentifier, name: name, contentType: a.string(.contentType),
            kind: a.kind, extractor: entry.extractor, size: size, modified: modified, created: created).encode(stored)

        let types = a.contentTypeTree.isEmpty ? a.contentType.map { [$0] } ?? [] : a.contentTypeTree
        let typeTree = try Self.typeTree(Set(types.map(\.rawValue)), db)
        let existing = try Int64.fetchOne(db.cachedStatement(sql: "SELECT id FROM items WHERE path = ?"), arguments: [pathData])
        if !item.uniqueIdentifier.bytes.contains(0) {
            // The file's items (messages) are written after it in the same batch, afresh.
            try deleteChildren(of: item.uniqueIdentifier.bytes, db)
        }
        let args: StatementArguments = [
            pathData, item.domainIdentifier, name, a.string(.contentType), a.kind, size, modified, created,
            entry.stamp?.modificationNanos, entry.stamp?.changeNanos, entry.stamp.map { Int64(bitPattern: $0.inode) },
            json, item.expirationDate?.timeIntervalSince1970, entry.extractorVersion, now,
            entry.extractor, a.string(.extractionError), a.date(.lastUsedDate)?.timeIntervalSince1970,
            // New text: its summary is made again (the one in `stored`, if any, goes with it),
            // unless it was made with the text.
            !entry.summarized && a.textContent.map(Self.needsSummary) == true ? 1 : nil, omitted,
            // A picture or a PDF without text waits for the OCR pass (issue 28); anything else
            // (a file that changed into something else) no longer does.
            entry.recognitionWanted ?? Self.wantsRecognition(a) ? 1 : nil,
            typeTree,
        ]
        let id: Int64
        if let existing {
            id = existing
            try db.cachedStatement(sql: """
                UPDATE items SET path = ?, domain = ?, name = ?, content_type = ?, kind = ?, size = ?, modified = ?,
                created = ?, mtime_ns = ?, ctime_ns = ?, inode = ?, attributes = ?, expiration = ?,
                extractor_version = ?, indexed_at = ?, extractor = ?, error = ?, used = ?, summary_pending = ?, omitted = ?, ocr_pending = ?,
                type_tree = ?, ocr_confidence = NULL WHERE id = ?
                """).execute(arguments: args + [id])
            // The old words leave the full-text index through item_texts' delete trigger.
            try db.cachedStatement(sql: "DELETE FROM item_texts WHERE id = ?").execute(arguments: [id])
            try db.cachedStatement(sql: "DELETE FROM items_names WHERE rowid = ?").execute(arguments: [id])
        } else {
            try db.cachedStatement(sql: """
                INSERT INTO items (path, domain, name, content_type, kind, size, modified, created, mtime_ns,
                ctime_ns, inode, attributes, expiration, extractor_version, indexed_at, extractor, error, used, summary_pending,
                omitted, ocr_pending, type_tree)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """).execute(arguments: args)
            id = db.lastInsertedRowID
        }
        if a.string(.contentType) == Self.mailMessageType {
            // A message written afresh has lost its `isPriority`: the priority pass decides it again.
            try db.cachedStatement(sql: "UPDATE items SET priority_pending = 1, priority_recheck = NULL WHERE id = ?")
                .execute(arguments: [id])
        }
        let other = AttributeKey.otherTextKeys.flatMap { a.strings($0) }.joined(separator: "\n")
        let otherText: String? = other.isEmpty ? nil : other
        // The text compressed (by fsindex_zip, unless packed already), and its words indexed
        // from the text at hand: no trigger inflates what was just compressed (v13).
        switch entry.packedText {
        case .compressed(let blob)? where a.textContent == nil:
            // Packed away (`packText()`): the words are read from the packed bytes.
            let packed = Data(blob)
            try db.cachedStatement(sql: "INSERT INTO item_texts(id, name, title, other, text) VALUES (?, ?, ?, ?, ?)")
                .execute(arguments: [id, name, a.title, otherText, packed])
            try db.cachedStatement(sql: "INSERT INTO \(Schema.ftsTable)(rowid, name, title, other, text) VALUES (?, ?, ?, ?, fsindex_unzip(?))")
                .execute(arguments: [id, name, a.title, otherText, packed])
            return try db.cachedStatement(sql: "INSERT INTO items_names(rowid, name) VALUES (?, ?)").execute(arguments: [id, name])
        case .compressed(let blob)? where a.textContent != nil:
            try db.cachedStatement(sql: "INSERT INTO item_texts(id, name, title, other, text) VALUES (?, ?, ?, ?, ?)")
                .execute(arguments: [id, name, a.title, otherText, Data(blob)])
        case .plain? where a.textContent != nil:
            try db.cachedStatement(sql: "INSERT INTO item_texts(id, name, title, other, text) VALUES (?, ?, ?, ?, ?)")
                .execute(arguments: [id, name, a.title, otherText, a.textContent])
        default:
            try db.cachedStatement(sql: "INSERT INTO item_texts(id, name, title, other, text) VALUES (?, ?, ?, ?, fsindex_zip(?))")
                .execute(arguments: [id, name, a.title, otherText, a.textContent])
        }
        try db.cachedStatement(sql: "INSERT INTO \(Schema.ftsTable)(rowid, name, title, other, text) VALUES (?, ?, ?, ?, ?)")
            .execute(arguments: [id, name, a.title, otherText, a.textContent])
        try db.cachedStatement(sql: "INSERT INTO items_names(rowid, name) VALUES (?, ?)").execute(arguments: [id, name])
    }

    /// The id of the set `types` in `type_trees` (v22), stored there first if it is new; nil
    /// for no types. One lookup per item, where a row per type was written before.
    static func typeTree(_ types: Set<String>, _ db: Database) throws -> Int64? {
        guard !types.isEmpty else { return nil }
        let key = types.sorted().joined(separator: "\n")
        if let tree = try Int64.fetchOne(db.cachedStatement(sql: "SELECT tree FROM type_tree_keys WHERE key = ?"), arguments: [key]) {
            return tree
        }
        let tree = (try Int64.fetchOne(db, sql: "SELECT max(tree) FROM type_tree_keys") ?? 0) + 1
        try db.execute(sql: "INSERT INTO type_tree_keys(key, tree) VALUES (?, ?)", arguments: [key, tree])
        for t in types {
            try db.execute(sql: "INSERT INTO type_trees(tree, type) VALUES (?, ?)", arguments: [tree, t])
        }
        return tree
    }

    /// The stored stamps of every item in `domain`, keyed by identifier bytes, for an incremental
    /// crawl to compare with the disk.
    package func stamps(domain: String) throws(IndexError) -> [[UInt8]: StoredStamp] {
        try read { db in
            var out: [[UInt8]: StoredStamp] = [:]
            let rows = try Row.fetchCursor(db, sql: """
                SELECT id, path, size, mtime_ns, ctime_ns, inode, extractor_version, extractor FROM items WHERE domain = ?
                """, arguments: [domain])
            while let row = try rows.next() {
                let path = Array(row["path"] as Data)
                if path.contains(0) { continue }   // inside a file; goes with its file
                out[path] = Self.storedStamp(row)
            }
            return out
        }
    }
}
