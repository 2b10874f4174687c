import MemberwiseInit
import SystemCalls
import SystemPackage
import Glibc

/// The extended attributes of one file that FSIndex asked for, read beside its `FileFacts`.
///
/// A key design decision: they are read by the *parent* (`fsindex`, `fsindexd`), by path with
/// the `l*xattr` calls, never by the sandboxed worker. They are the user's metadata about the
/// file (tags, a comment, where it came from), not its content, so no parser is involved; the
/// worker's seccomp filter and Landlock rules need not allow them; and a change to them (an
/// `IN_ATTRIB` event) can be applied without sending the file to a worker at all.
///
/// Bounded: a value larger than `maximumValueBytes` (Linux's own limit, so only a file system
/// outside the kernel's rules sends one) is left out and reported; names that are not UTF-8 are
/// skipped (no name we read can be one). A file system that stores none (`ENOTSUP`: /proc,
/// vfat without them), or a name that vanished between the list and the read (`ENODATA`), is
/// quietly "no attributes"; so is a path longer than PATH_MAX (`ENAMETOOLONG`), already reported
/// by the crawl.
///
/// For example:
/// ```swift
/// let x = ExtendedAttributes.read("/home/ada/report.pdf", names: ["user.xdg.tags"])
/// x.values["user.xdg.tags"]   // Array("work,2026".utf8)
/// x.problems                  // [] (EACCES or EIO would be here)
/// ```
@MemberwiseInit
package struct ExtendedAttributes: Sendable, Hashable {
    /// The values of the asked-for names the file has, raw.
    package var values: [String: [UInt8]] = [:]
    /// What could not be read (never ENOTSUP or ENODATA).
    package var problems: [ExtendedAttributeError] = []

    /// Linux's largest value (`XATTR_SIZE_MAX`, 64 KiB): one read with a buffer this size
    /// always suffices.
    package static let maximumValueBytes = 64 * 1024
    /// Linux's largest list of names (`XATTR_LIST_MAX`).
    static let maximumListBytes = 64 * 1024

    /// Reads the values of `names` that `path` has, without following a final symlink. Costs one
    /// `llistxattr` for a file with no extended attributes (most files), plus one `lgetxattr`
    /// per asked-for name present.
    package static func read(_ path: FilePath, names: Set<String>) -> ExtendedAttributes {
        var out = ExtendedAttributes()
        let list: [String]
        switch listNames(path) {
        case .success(let l): list = l
        case .failure(let e):
            if !Self.isQuiet(e) { out.problems.append(.unreadable(name: nil, e)) }
            return out
        }
        let wanted = list.filter { names.contains($0) }
        guard !wanted.isEmpty else { return out }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: maximumValueBytes, alignment: 1)
        defer { buffer.deallocate() }
        for name in wanted {
            switch SystemCall.getXattr(path, name, into: buffer) {
            case .success(let n): out.values[name] = Array(buffer[0..<n])
            case .failure(let e) where e.rawValue == ERANGE: out.problems.append(.tooLarge(name: name))
            case .failure(let e) where Self.isQuiet(e): continue
            case .failure(let e): out.problems.append(.unreadable(name: name, e))
            }
        }
        return out
    }

    /// The names `path` has (UTF-8 ones only), in the file system's order.
    package static func listNames(_ path: FilePath) -> Result<[String], Errno> {
        var size: Int
        switch SystemCall.listXattrs(path, into: UnsafeMutableRawBufferPointer(start: nil, count: 0)) {
        case .success(let n): size = n
        case .failure(let e): return .failure(e)
        }
        // The list may grow between the two calls: try again, a few times, with its new size.
        for _ in 0..<3 {
            guard size > 0 else { return .success([]) }
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: min(size, maximumListBytes), alignment: 1)
            defer { buffer.deallocate() }
            switch SystemCall.listXattrs(path, into: buffer) {
            case .success(let n):
                return .success(buffer[0..<n].split(separator: 0).compactMap { String(validating: Array($0), as: UTF8.self) })
            case .failure(let e) where e.rawValue == ERANGE:
                if case .success(let n) = SystemCall.listXattrs(path, into: UnsafeMutableRawBufferPointer(start: nil, count: 0)) {
                    size = n
                }
            case .failure(let e):
                return .failure(e)
            }
        }
        return .failure(Errno(rawValue: ERANGE))
    }

    /// Sets `name` to `value` on `path` itself (a symlink is refused by Linux for `user.`
    /// names, with EPERM).
    package static func write(_ path: FilePath, name: String, value: [UInt8]) throws(ExtendedAttributeError) {
        guard value.count <= maximumValueBytes else { throw .tooLarge(name: name) }
        if case .failure(let e) = SystemCall.setXattr(path, name, value) { throw .unwritable(name: name, e) }
    }

    /// Removes `name` from `path`; a name it does not have is not an error.
    package static func remove(_ path: FilePath, name: String) throws(ExtendedAttributeError) {
        switch SystemCall.removeXattr(path, name) {
        case .success: return
        case .failure(let e) where e.rawValue == ENODATA: return
        case .failure(let e): throw .unwritable(name: name, e)
        }
    }

    /// ENOTSUP (no extended attributes on this file system) and ENODATA (the name went away).
    static func isQuiet(_ e: Errno) -> Bool {
        // ENAMETOOLONG: a path beyond PATH_MAX, which the crawl already reports once (its name
        // and facts are indexed through openat); its attributes are not read, like its content.
        e.rawValue == ENOTSUP || e.rawValue == EOPNOTSUPP || e.rawValue == ENODATA || e.rawValue == ENAMETOOLONG
    }
}

/// Why an extended attribute could not be read or written, with what to do about it.
package enum ExtendedAttributeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Listing (`name` nil) or reading failed: EACCES, EIO, ...
    case unreadable(name: String?, Errno)
    /// A value larger than Linux allows (64 KiB).
    case tooLarge(name: String)
    /// Setting or removing failed: ENOTSUP (the file system stores none), EPERM/EACCES, ENOSPC, EDQUOT.
    case unwritable(name: String, Errno)

    /// The error number, where there is one.
    package var errno: Errno? {
        switch self {
        case .unreadable(_, let e), .unwritable(_, let e): e
        case .tooLarge: nil
        }
    }

    package var description: String {
        switch self {
        case let .unreadable(name, e):
            "cannot read the extended attribute\(name.map { " \($0)" } ?? "s") (\(e.description)); "
                + (e.rawValue == EACCES || e.rawValue == EPERM ? "give the indexing user access to the file" : "check the file system (dmesg)")
        case let .tooLarge(name):
            "the extended attribute \(name) is larger than 64 KiB; it was left out"
        case let .unwritable(name, e):
            switch e.rawValue {
            case ENOTSUP, EOPNOTSUPP:
                "the file system does not store extended attributes (\(name)); mount it with user_xattr, or keep the file on one that does (ext4, xfs, btrfs, tmpfs)"
            case EPERM, EACCES:
                "not allowed to change \(name) (\(e.description)): only the file's owner (or root) may, and only on files and folders"
            case ENOSPC, EDQUOT:
                "no room for \(name) (\(e.description)): the file system or the quota is full"
            default:
                "cannot change \(name) (\(e.description))"
            }
        }
    }
}
