import CSysShims
import Foundation
import SystemPackage

/// Extended attributes for tests: setting them as Dolphin or `setfattr` would, and whether the
/// temporary directory's file system takes `user.` names at all.
package enum TestXattrs {
    /// Sets `name` on `path` (not following a symlink); throws the errno.
    package static func set(_ path: FilePath, _ name: String, _ value: String) throws {
        let bytes = Array(value.utf8)
        let rc = path.withPlatformString { p in bytes.withUnsafeBytes { shim_lsetxattr(p, name, $0.baseAddress, UInt($0.count)) } }
        if rc != 0 { throw Errno(rawValue: errno) }
    }

    /// Sets `name` to raw bytes (a value with a NUL in it, an ACL's binary form).
    package static func set(_ path: FilePath, _ name: String, bytes: [UInt8]) throws {
        let rc = path.withPlatformString { p in bytes.withUnsafeBytes { shim_lsetxattr(p, name, $0.baseAddress, UInt($0.count)) } }
        if rc != 0 { throw Errno(rawValue: errno) }
    }

    /// Sets a name given as raw bytes (one that is not UTF-8, say).
    package static func set(_ path: FilePath, nameBytes: [UInt8], _ value: String) throws {
        let bytes = Array(value.utf8)
        let name = (nameBytes + [0]).map { CChar(bitPattern: $0) }
        let rc = path.withPlatformString { p in bytes.withUnsafeBytes { shim_lsetxattr(p, name, $0.baseAddress, UInt($0.count)) } }
        if rc != 0 { throw Errno(rawValue: errno) }
    }

    /// Removes `name` from `path`.
    package static func remove(_ path: FilePath, _ name: String) throws {
        if path.withPlatformString({ shim_lremovexattr($0, name) }) != 0 { throw Errno(rawValue: errno) }
    }

    /// The value of `name` on `path`, or nil.
    package static func get(_ path: FilePath, _ name: String) -> String? {
        var buffer = [UInt8](repeating: 0, count: 65536)
        let n = path.withPlatformString { p in buffer.withUnsafeMutableBytes { shim_lgetxattr(p, name, $0.baseAddress, UInt($0.count)) } }
        return n < 0 ? nil : String(decoding: buffer[0..<n], as: UTF8.self)
    }

    /// Whether files in the temporary directory (where `TemporaryTree` builds) take `user.`
    /// extended attributes: ext4, xfs, btrfs and tmpfs (Linux 6.6+) do; overlayfs may not.
    package static let supported: Bool = {
        let probe = FilePath(NSTemporaryDirectory()).appending("fsindex-xattr-probe-\(getpid())")
        let fd = probe.withPlatformString { open($0, O_CREAT | O_WRONLY | O_CLOEXEC, 0o600) }
        guard fd >= 0 else { return false }
        close(fd)
        defer { _ = probe.withPlatformString { unlink($0) } }
        return (try? set(probe, "user.fsindex.probe", "1")) != nil
    }()

    package static let skipReason = "needs a temporary directory whose file system takes user extended attributes (ext4, xfs, btrfs, tmpfs); set TMPDIR to one"
}

#if canImport(Testing)
import Testing

extension Trait where Self == ConditionTrait {
    /// For a test that sets `user.` extended attributes on files in a `TemporaryTree`: skipped,
    /// with the reason, where the temporary directory's file system refuses them.
    package static var userXattrs: Self {
        .enabled(if: TestXattrs.supported, Comment(rawValue: TestXattrs.skipReason))
    }
}
#endif
