import CSysShims
import Glibc

/// Owner, group, mode and POSIX ACL of an item and of every folder above it, as the shared
/// index keeps them: the server cannot look at another host's files, so it decides who may see
/// a row from these (`fsindex_readable`): read permission on the item and search permission on
/// every folder from `/` down, as the kernel checks them (acl(5), "ACCESS CHECK ALGORITHM").
///
/// An access ACL (`system.posix_acl_access`) is sent as it is (issue 29): its named user and
/// named group entries, the owning group's entry and the mask, as `(depth, tag, perm, id)`
/// quads in the row's `acl` column, where depth is the place of the file or folder in the
/// path (0 for `/`, the item's own being the number of folders above it). The owner's and
/// other's entries are the mode's bits, which are sent as they are. A default ACL
/// (`system.posix_acl_default`) is not sent: it only seeds new files' ACLs, which are read
/// from the new files. An ACL that cannot be read (an unknown version) leaves the owner alone
/// in the mode, and no entries: no one is shown more than the file allows. Capabilities are
/// not taken into account.
///
/// When a folder's owner, group, mode or ACL changes, the rows below it must change too:
/// `SharedPublisher` compares each item's own with the shared row's and rewrites the rows
/// below one that changed (`SharedPublisher+Access.swift`).
struct FolderAccess {
    /// Owner, group, permission bits and extended ACL entries of one file or folder.
    struct Triple: Hashable {
        var owner: UInt32
        var group: UInt32
        var mode: UInt32
        var isDirectory = false
        /// The extended ACL's entries, `(tag, perm, id)` each (`entries(acl:)`); empty when the
        /// mode says everything.
        var acl: [Int32] = []

        var flattened: [Int32] { [Int32(bitPattern: owner), Int32(bitPattern: group), Int32(bitPattern: mode)] }

        /// The ACL's entries as the `acl` column's quads for the file or folder at `depth`.
        func quads(depth: Int) -> [Int32] {
            stride(from: 0, to: acl.count - 2, by: 3).flatMap { [Int32(depth), acl[$0], acl[$0 + 1], acl[$0 + 2]] }
        }
    }

    struct Access {
        var owner: UInt32
        var group: UInt32
        var mode: UInt32
        /// (owner, group, mode) of each folder above, from `/`, flattened.
        var folders: [Int32]
        var isDirectory = false
        /// The item's own ACL entries, `(tag, perm, id)` each.
        var ownACL: [Int32] = []
        /// The ACL entries of the folders above and of the item, as `(depth, tag, perm, id)`
        /// quads: the row's `acl` column.
        var acl: [Int32] = []

        var triple: Triple { Triple(owner: owner, group: group, mode: mode, isDirectory: isDirectory, acl: ownACL) }
        /// The item's own depth in its `acl` quads: the number of folders above it.
        var depth: Int { folders.count / 3 }
    }

    private var cache: [[UInt8]: Triple?] = [:]

    /// The access of the item with these identifier bytes: for an item inside a file, the
    /// file's; for a donated item (no path), only its publisher's user. Nil when the file cannot
    /// be looked at: the row is then visible to the watchers' role alone.
    mutating func access(of identifier: [UInt8]) -> Access? {
        let file = identifier.split(separator: 0, maxSplits: 1, omittingEmptySubsequences: false).first.map(Array.init) ?? identifier
        guard file.first == UInt8(ascii: "/") else {
            return Access(owner: getuid(), group: getgid(), mode: 0o600, folders: [])
        }
        guard let own = Self.triple(file) else { return nil }
        var folders: [Int32] = []
        var acl: [Int32] = []
        for (depth, folder) in Self.chain(above: file).enumerated() {
            if cache[folder] == nil { cache[folder] = .some(Self.triple(folder)) }
            guard let entry = cache[folder], let t = entry else { return nil }
            folders += t.flattened
            acl += t.quads(depth: depth)
        }
        acl += own.quads(depth: folders.count / 3)
        // A file inside a file (a message of an mbox) is not a folder, whatever its file is.
        return Access(owner: own.owner, group: own.group, mode: own.mode, folders: folders,
                      isDirectory: own.isDirectory && file.count == identifier.count, ownACL: own.acl, acl: acl)
    }

    /// The folders above `path`, from `/`: `/a/b/c` → `/`, `/a`, `/a/b`. The folder at index
    /// `i` has its triple at `access[3i + 1 ... 3i + 3]` (1-based, as PostgreSQL counts), and
    /// its ACL entries are the `acl` quads of depth `i`.
    static func chain(above path: [UInt8]) -> [[UInt8]] {
        var chain: [[UInt8]] = [[UInt8(ascii: "/")]]
        var prefix: [UInt8] = []
        let parts = path.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true)
        for part in parts.dropLast() {
            prefix += [UInt8(ascii: "/")] + part
            chain.append(prefix)
        }
        return chain
    }

    /// How many folders are above `path`: its place in its descendants' chains.
    static func depth(of path: [UInt8]) -> Int {
        path.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true).count
    }

    /// The owner, group, mode and ACL entries of `path` (not following a symlink), or nil.
    static func triple(_ path: [UInt8]) -> Triple? {
        var st = Glibc.stat()
        let c = path + [0]
        let rc = c.withUnsafeBufferPointer { p in
            p.baseAddress!.withMemoryRebound(to: CChar.self, capacity: p.count) { lstat($0, &st) }
        }
        guard rc == 0 else { return nil }
        var mode = st.st_mode & 0o7777
        var entries: [Int32] = []
        if let acl = Self.acl(c) {
            if let e = Self.entries(acl: acl) { entries = e } else { mode &= 0o7700 }
        }
        return Triple(owner: st.st_uid, group: st.st_gid, mode: mode, isDirectory: st.st_mode & 0o170000 == 0o040000, acl: entries)
    }

    /// The `system.posix_acl_access` value of a NUL-terminated path, or nil without one. A
    /// value that grew between asking its size and reading it is asked again; one that cannot
    /// be read at all is an empty value (which `entries` refuses: the owner alone).
    private static func acl(_ path: [UInt8]) -> [UInt8]? {
        var size = 512
        for _ in 0..<4 {
            var buffer = [UInt8](repeating: 0, count: size)
            let n = path.withUnsafeBufferPointer { p in
                p.baseAddress!.withMemoryRebound(to: CChar.self, capacity: p.count) { name in
                    shim_lgetxattr(name, "system.posix_acl_access", &buffer, UInt(buffer.count))
                }
            }
            if n >= 0 { return Array(buffer.prefix(Int(n))) }
            guard errno == ERANGE else { return nil }
            let needed = path.withUnsafeBufferPointer { p in
                p.baseAddress!.withMemoryRebound(to: CChar.self, capacity: p.count) { name in
                    shim_lgetxattr(name, "system.posix_acl_access", nil, 0)
                }
            }
            guard needed > 0 else { return [] }
            size = Int(needed)
        }
        return []
    }

    /// ACL tags (linux/posix_acl.h): ACL_USER_OBJ 1, ACL_USER 2, ACL_GROUP_OBJ 4, ACL_GROUP 8,
    /// ACL_MASK 0x10, ACL_OTHER 0x20.
    static let user: Int32 = 0x02, groupObject: Int32 = 0x04, group: Int32 = 0x08, mask: Int32 = 0x10

    /// The entries of an access ACL's binary form (`acl_ea_header`, version 2, then 8-byte
    /// entries: tag and permissions as 16-bit, the id as 32-bit, little-endian) that the mode
    /// does not already say, as `(tag, perm, id)` triples: the named users and groups, the
    /// owning group's entry and the mask. Empty for a minimal ACL (the mode says it all); nil
    /// for a value that is not such an ACL.
    ///
    /// For example `user::rw- user:bob:r-- group::--- mask::r-- other::---` gives
    /// `[2, 4, bob, 4, 0, -1, 16, 4, -1]`.
    static func entries(acl: [UInt8]) -> [Int32]? {
        guard acl.count >= 4, acl.count % 8 == 4,
              acl[0] == 2, acl[1] == 0, acl[2] == 0, acl[3] == 0 else { return nil }
        var out: [Int32] = []
        var extended = false
        var i = 4
        while i + 8 <= acl.count {
            let tag = Int32(acl[i]) | Int32(acl[i + 1]) << 8
            let perm = Int32(acl[i + 2] & 7)
            let id = UInt32(acl[i + 4]) | UInt32(acl[i + 5]) << 8 | UInt32(acl[i + 6]) << 16 | UInt32(acl[i + 7]) << 24
            switch tag {
            case user, group, mask:
                extended = true
                out += [tag, perm, Int32(bitPattern: id)]
            case groupObject:
                out += [tag, perm, -1]
            case 0x01, 0x20: break   // the owner's and other's: the mode's bits
            default: return nil
            }
            i += 8
        }
        return extended ? out : []
    }
}
