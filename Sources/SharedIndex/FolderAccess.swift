import CSysShims
#if canImport(Glibc)
import Glibc
#endif

/// Owner, group and mode of an item and of every folder above it, as the shared index keeps
/// them: the server cannot look at another host's files, so it decides who may see a row from
/// these (`fsindex_readable`): read permission on the item and search permission on every
/// folder from `/` down.
///
/// A POSIX ACL is not sent; it narrows the mode that is (`Triple.narrowed`), so that the
/// server never lets anyone see more than the ACL allows: an entry that denies a user or a
/// group takes the permission away from the group and other classes. An ACL that grants more
/// than the mode (a named user given read) is not shown to the server: that user finds the
/// item on the host's own index, not in the shared one. Capabilities are not taken into account.
///
/// When a folder's owner, group, mode or ACL changes, the rows below it must change too:
/// `SharedPublisher` compares each item's triple with the shared row's and rewrites the rows
/// below one that changed (`SharedPublisher+Access.swift`).
struct FolderAccess {
    /// Owner, group and (ACL-narrowed) permission bits of one file or folder.
    struct Triple: Hashable {
        var owner: UInt32
        var group: UInt32
        var mode: UInt32
        var isDirectory = false

        var flattened: [Int32] { [Int32(bitPattern: owner), Int32(bitPattern: group), Int32(bitPattern: mode)] }
    }

    struct Access {
        var owner: UInt32
        var group: UInt32
        var mode: UInt32
        /// (owner, group, mode) of each folder above, from `/`, flattened.
        var folders: [Int32]
        var isDirectory = false

        var triple: Triple { Triple(owner: owner, group: group, mode: mode, isDirectory: isDirectory) }
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
        for folder in Self.chain(above: file) {
            if cache[folder] == nil { cache[folder] = .some(Self.triple(folder)) }
            guard let entry = cache[folder], let t = entry else { return nil }
            folders += t.flattened
        }
        // A file inside a file (a message of an mbox) is not a folder, whatever its file is.
        return Access(owner: own.owner, group: own.group, mode: own.mode, folders: folders,
                      isDirectory: own.isDirectory && file.count == identifier.count)
    }

    /// The folders above `path`, from `/`: `/a/b/c` → `/`, `/a`, `/a/b`. The folder at index
    /// `i` has its triple at `access[3i + 1 ... 3i + 3]` (1-based, as PostgreSQL counts).
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

    /// The owner, group and narrowed mode of `path` (not following a symlink), or nil.
    static func triple(_ path: [UInt8]) -> Triple? {
        var st = Glibc.stat()
        let c = path + [0]
        let rc = c.withUnsafeBufferPointer { p in
            p.baseAddress!.withMemoryRebound(to: CChar.self, capacity: p.count) { lstat($0, &st) }
        }
        guard rc == 0 else { return nil }
        var mode = st.st_mode & 0o7777
        if let acl = Self.acl(c) { mode = Self.narrowed(mode, acl: acl) }
        return Triple(owner: st.st_uid, group: st.st_gid, mode: mode, isDirectory: st.st_mode & 0o170000 == 0o040000)
    }

    /// The `system.posix_acl_access` value of a NUL-terminated path, or nil without one.
    private static func acl(_ path: [UInt8]) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = path.withUnsafeBufferPointer { p in
            p.baseAddress!.withMemoryRebound(to: CChar.self, capacity: p.count) { name in
                shim_lgetxattr(name, "system.posix_acl_access", &buffer, UInt(buffer.count))
            }
        }
        // ERANGE (more than 4 KiB of entries, some 500 users): treated as denying all but the owner.
        if n < 0 { return errno == ERANGE ? [] : nil }
        return Array(buffer.prefix(Int(n)))
    }

    /// `mode` with the group and other permissions no wider than the ACL grants anyone of
    /// those classes. The kernel's check (acl(5)): the owner entry for the owner; a named user's
    /// entry (masked) for that user; else the matching group entries (masked), any of which may
    /// grant; else the other entry. The server knows only owner, group and other, so:
    /// - group = group entry ∧ mask ∧ every named user's entry (a member of the group may be one);
    /// - other = other ∧ every named user's and named group's entry, masked (anyone may be one).
    ///
    /// For example, mode 0755 with `user:bob:---` gives 0700; with `group:staff:r-x` and mask
    /// `r-x`, 0755 stays 0755. An ACL that cannot be read (an unknown version) leaves the owner alone.
    static func narrowed(_ mode: UInt32, acl: [UInt8]) -> UInt32 {
        guard acl.count >= 4, acl.count % 8 == 4,
              acl[0] == 2, acl[1] == 0, acl[2] == 0, acl[3] == 0 else { return mode & 0o7700 }
        var groupEntry: UInt32 = 7, mask: UInt32 = 7, other: UInt32 = 7
        var namedUsers: UInt32? = nil, namedGroups: UInt32? = nil
        var i = 4
        while i + 8 <= acl.count {
            let tag = UInt16(acl[i]) | UInt16(acl[i + 1]) << 8
            let perm = UInt32(acl[i + 2] & 7)
            switch tag {
            case 0x02: namedUsers = (namedUsers ?? 7) & perm    // ACL_USER
            case 0x04: groupEntry = perm    // ACL_GROUP_OBJ
            case 0x08: namedGroups = (namedGroups ?? 7) & perm  // ACL_GROUP
            case 0x10: mask = perm          // ACL_MASK
            case 0x20: other = perm         // ACL_OTHER
            default: break                  // ACL_USER_OBJ: the mode's owner bits say the same
            }
            i += 8
        }
        // Named entries are masked; the other entry is not.
        let users = namedUsers.map { $0 & mask } ?? 7, groups = namedGroups.map { $0 & mask } ?? 7
        let groupBits = (mode >> 3) & 7 & groupEntry & mask & users
        let otherBits = mode & 7 & other & users & groups
        return (mode & 0o7700) | groupBits << 3 | otherBits
    }
}
