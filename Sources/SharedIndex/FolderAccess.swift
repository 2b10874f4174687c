#if canImport(Glibc)
import Glibc
#endif

/// Owner, group and mode of an item and of every folder above it, as the shared index keeps
/// them: the server cannot look at another host's files, so it decides who may see a row from
/// these (`fsindex_readable`): read permission on the item and search permission on every
/// folder from `/` down. ACLs and capabilities are not taken into account.
struct FolderAccess {
    struct Access {
        var owner: UInt32
        var group: UInt32
        var mode: UInt32
        /// (owner, group, mode) of each folder above, from `/`, flattened.
        var folders: [Int32]
    }

    private var cache: [[UInt8]: (UInt32, UInt32, UInt32)?] = [:]

    /// The access of the item with these identifier bytes: for an item inside a file, the
    /// file's; for a donated item (no path), only its publisher's user. Nil when the file cannot
    /// be looked at: the row is then visible to the watchers' role alone.
    mutating func access(of identifier: [UInt8]) -> Access? {
        let file = identifier.split(separator: 0, maxSplits: 1, omittingEmptySubsequences: false).first.map(Array.init) ?? identifier
        guard file.first == UInt8(ascii: "/") else {
            return Access(owner: getuid(), group: getgid(), mode: 0o600, folders: [])
        }
        guard let own = Self.stat(file) else { return nil }
        var folders: [Int32] = []
        var prefix: [UInt8] = []
        let parts = file.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true)
        var chain: [[UInt8]] = [[UInt8(ascii: "/")]]
        for part in parts.dropLast() {
            prefix += [UInt8(ascii: "/")] + part
            chain.append(prefix)
        }
        for folder in chain {
            if cache[folder] == nil { cache[folder] = .some(Self.stat(folder)) }
            guard let entry = cache[folder], let (o, g, m) = entry else { return nil }
            folders += [Int32(bitPattern: o), Int32(bitPattern: g), Int32(bitPattern: m & 0o7777)]
        }
        return Access(owner: own.0, group: own.1, mode: own.2 & 0o7777, folders: folders)
    }

    static func stat(_ path: [UInt8]) -> (UInt32, UInt32, UInt32)? {
        var st = Glibc.stat()
        let rc = (path + [0]).withUnsafeBufferPointer { p in
            p.baseAddress!.withMemoryRebound(to: CChar.self, capacity: p.count) { lstat($0, &st) }
        }
        guard rc == 0 else { return nil }
        return (st.st_uid, st.st_gid, st.st_mode)
    }
}
