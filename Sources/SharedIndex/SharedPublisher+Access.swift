import Attributes
import Indexing
import PostgresNIO

/// Keeping the rows' permissions current (issue 22, F2). A row carries the owner, group, mode
/// and ACL entries of its file and of every folder above it (`FolderAccess`), and the server
/// decides who sees it from those. A `chmod 700` of a folder changes nothing in the files below it, so
/// their versions stay and they are not sent again: the rows below must follow the folder.
///
/// A key design decision: the folder's row is the trigger. The local index records the
/// folder's new mode (an attributes-only refresh, from `fsindex index` or fsindexd's
/// `IN_ATTRIB`), so its version changes and it is sent; before it is written, its owner, group,
/// mode and ACL are compared with its shared row's, and where they differ, one `UPDATE` sets its
/// place in the `access` (and its quads in the `acl`) of every row below it, in the same
/// transaction. The folders above a
/// root are no items: `refreshRootChain` compares them with the root's row at each full pass.
/// Cost: one indexed lookup per batch, and an `UPDATE` of the rows below a folder only when its
/// permissions changed (a chmod of a folder with 100,000 files below rewrites their `access`).
extension SharedPublisher {
    /// An item whose owner, group or mode is not the one its shared row has.
    struct AccessChange {
        var path: [UInt8]
        var triple: FolderAccess.Triple
    }

    /// The items of a batch (files and folders, not items inside files or donated ones) whose
    /// permissions differ from their shared rows'. An item with no row yet has nothing below it
    /// to correct: what is below is sent with its own access, looked at now.
    func accessChanges(_ items: [ExportedItem], access: [FolderAccess.Access?], _ link: PostgresLink) throws(SharedIndexError) -> [AccessChange] {
        var fresh: [[UInt8]: FolderAccess.Triple] = [:]
        for (item, access) in zip(items, access) {
            let path = item.item.uniqueIdentifier.bytes
            guard let access, path.first == UInt8(ascii: "/"), !path.contains(0) else { continue }
            fresh[path] = access.triple
        }
        if fresh.isEmpty { return [] }
        var out: [AccessChange] = []
        for row in try link.query("""
            SELECT path, owner, grp, mode, acl, coalesce(array_length(access, 1), 0) / 3 AS depth
            FROM items WHERE host = $1 AND path = ANY($2::bytea[])
            """, [.text(host), .byteArrays(Array(fresh.keys))]) {
            guard let path = row.bytes("path"), let triple = fresh[path] else { continue }
            let old = [row.value("owner", as: Int32.self), row.value("grp", as: Int32.self), row.value("mode", as: Int32.self)]
            // A row from before ACLs were published (NULL) is being sent whole: only a changed
            // mode tells of a change below.
            let aclChanged = row.value("acl", as: [Int32].self).map {
                Self.entries($0, depth: Int(row.value("depth", as: Int32.self) ?? 0)) != Self.entries(triple.quads(depth: 0), depth: 0)
            } ?? false
            if old != triple.flattened.map(Optional.some) || aclChanged { out.append(AccessChange(path: path, triple: triple)) }
        }
        return out
    }

    /// The `(tag, perm, id)` entries of the quads of `depth`, in a stable order.
    static func entries(_ quads: [Int32], depth: Int) -> [[Int32]] {
        stride(from: 0, to: quads.count - 3, by: 4).filter { quads[$0] == Int32(depth) }
            .map { Array(quads[$0 + 1...$0 + 3]) }.sorted { $0.lexicographicallyPrecedes($1) }
    }

    /// Makes the rows below `change.path` agree with its permissions: for a folder, its place
    /// in the `access` of every row below it; for a file, the owner, group and mode of the items
    /// inside it (the messages of an mbox), which are its own.
    func refreshBelow(_ change: AccessChange, _ link: PostgresLink) throws(SharedIndexError) {
        let path = change.path
        if change.triple.isDirectory {
            let prefix = path.last == UInt8(ascii: "/") ? path : path + [UInt8(ascii: "/")]
            var upper = prefix
            upper[upper.count - 1] += 1
            // The folder at depth d sits at access[3d+1 ... 3d+3] of every row below it.
            let first = 3 * FolderAccess.depth(of: path) + 1
            // Its ACL entries too, as the quads of depth d (a row sent before ACLs keeps NULL:
            // it is sent again whole).
            let depth = FolderAccess.depth(of: path)
            try link.query("""
                UPDATE items SET access[\(first):\(first + 2)] = $4::integer[],
                                 acl = CASE WHEN acl IS NULL THEN NULL ELSE fsindex_acl_replace(acl, \(depth), \(depth), $5::integer[]) END
                WHERE host = $1 AND path >= $2 AND path < $3 AND cardinality(access) >= \(first + 2)
                """, [.text(host), .bytes(prefix), .bytes(upper), .ints(change.triple.flattened), .ints(change.triple.quads(depth: depth))])
        } else {
            // The items inside a file have its access: their own depth is its.
            let t = change.triple.flattened
            let depth = FolderAccess.chain(above: path).count
            try link.query("""
                UPDATE items SET owner = $4, grp = $5, mode = $6,
                                 acl = CASE WHEN acl IS NULL THEN NULL ELSE fsindex_acl_replace(acl, \(depth), \(depth), $7::integer[]) END
                WHERE host = $1 AND path >= $2 AND path < $3
                """, [.text(host), .bytes(path + [0]), .bytes(path + [1]), .int(Int64(t[0])), .int(Int64(t[1])), .int(Int64(t[2])),
                      .ints(change.triple.quads(depth: depth))])
        }
    }

    /// Compares the folders above `root`, and the root itself, with the root's shared row, and
    /// corrects the domain's rows where they differ: a `chmod 700 ~` above a root `~/Documents`
    /// changes nothing the local index holds, so only this comparison sees it. Nothing to do
    /// when the root has no row yet, or cannot be looked at (a missing root: its rows go with it).
    func refreshRootChain(_ root: [UInt8], _ link: PostgresLink) throws(SharedIndexError) {
        var folders = FolderAccess()
        guard let live = folders.access(of: root),
              let row = try link.query("SELECT owner, grp, mode, access, acl FROM items WHERE host = $1 AND path = $2",
                                       [.text(host), .bytes(root)]).first else { return }
        let chain = live.folders
        let depth = live.depth
        let storedChain = row.value("access", as: [Int32].self) ?? []
        // NULL: a row from before ACLs were published, which is sent again whole.
        let storedACL = row.value("acl", as: [Int32].self)
        let chainACL = Self.quads(live.acl, below: depth)
        let aclAbove = storedACL.map { Self.sorted(Self.quads($0, below: depth)) != Self.sorted(chainACL) } ?? false
        let aclOwn = storedACL.map { Self.entries($0, depth: depth) != Self.entries(live.acl, depth: depth) } ?? false
        let stored = [row.value("owner", as: Int32.self), row.value("grp", as: Int32.self), row.value("mode", as: Int32.self)]
        let ownChanged = stored != live.triple.flattened.map(Optional.some) || aclOwn
        if storedChain == chain && !aclAbove && !ownChanged { return }
        let prefix = root.last == UInt8(ascii: "/") ? root : root + [UInt8(ascii: "/")]
        var upper = prefix
        upper[upper.count - 1] += 1
        try link.transaction { () throws(SharedIndexError) in
            if storedChain != chain || aclAbove, !chain.isEmpty {
                try link.query("""
                    UPDATE items SET access[1:\(chain.count)] = $4::integer[],
                                     acl = CASE WHEN acl IS NULL THEN NULL ELSE fsindex_acl_replace(acl, 0, \(depth - 1), $6::integer[]) END
                    WHERE host = $1 AND (path = $5 OR (path >= $2 AND path < $3)) AND cardinality(access) >= \(chain.count)
                    """, [.text(host), .bytes(prefix), .bytes(upper), .ints(chain), .bytes(root), .ints(chainACL)])
            }
            if ownChanged {
                let t = live.triple.flattened
                try link.query("""
                    UPDATE items SET owner = $3, grp = $4, mode = $5,
                                     acl = CASE WHEN acl IS NULL THEN NULL ELSE fsindex_acl_replace(acl, \(depth), \(depth), $6::integer[]) END
                    WHERE host = $1 AND path = $2
                    """, [.text(host), .bytes(root), .int(Int64(t[0])), .int(Int64(t[1])), .int(Int64(t[2])), .ints(live.triple.quads(depth: depth))])
                try refreshBelow(AccessChange(path: root, triple: live.triple), link)
            }
        }
    }

    /// The quads of the folders above the item at `depth`.
    static func quads(_ quads: [Int32], below depth: Int) -> [Int32] {
        stride(from: 0, to: quads.count - 3, by: 4).filter { quads[$0] < Int32(depth) }.flatMap { quads[$0...$0 + 3] }
    }

    /// Quads in a stable order, to compare.
    static func sorted(_ quads: [Int32]) -> [[Int32]] {
        stride(from: 0, to: quads.count - 3, by: 4).map { Array(quads[$0...$0 + 3]) }.sorted { $0.lexicographicallyPrecedes($1) }
    }
}
