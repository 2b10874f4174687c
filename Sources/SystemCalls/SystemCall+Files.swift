import CSysShims
import SystemPackage
import Glibc

// Files and descriptors, in `SystemCall`'s convention (`Result<_, Errno>`, EINTR retried). The
// libc functions are spelled `Glibc.` here: these wrappers share their names.

extension SystemCall {
    /// `open(2)` of a path of any bytes; `mode` is used only with `O_CREAT`.
    package static func open(_ path: FilePath, _ flags: Int32, mode: mode_t = 0) -> Result<Int32, Errno> {
        retrying { path.withPlatformString { Glibc.open($0, flags, mode) } }
    }

    /// `close(2)`, never retried: Linux releases the descriptor even when close reports EINTR,
    /// and a retry could close a descriptor another thread has just been given.
    package static func close(_ fd: Int32) {
        _ = Glibc.close(fd)
    }

    /// `read(2)`: the count read, 0 at the end.
    package static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Result<Int, Errno> {
        retrying { Glibc.read(fd, buffer.baseAddress, buffer.count) }
    }

    /// `read(2)` on a non-blocking descriptor; `.success(0)` for "nothing to read now" (EAGAIN).
    package static func readAvailable(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Result<Int, Errno> {
        switch read(fd, into: buffer) {
        case .success(let n): return .success(n)
        case .failure(let e) where e == .resourceTemporarilyUnavailable || e == .wouldBlock: return .success(0)
        case .failure(let e): return .failure(e)
        }
    }

    /// `write(2)`: the count written, which may be short.
    package static func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Result<Int, Errno> {
        retrying { Glibc.write(fd, bytes.baseAddress, bytes.count) }
    }

    /// `pread(2)`: up to `buffer.count` bytes from `offset`, 0 at the end. EAGAIN is retried as
    /// EINTR is: files to extract are opened `O_NONBLOCK` (so that a FIFO put in a file's place
    /// never blocks the open), and the open file is checked to be regular, where EAGAIN is at
    /// most a passing state.
    package static func pread(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) -> Result<Int, Errno> {
        while true {
            switch retrying({ Glibc.pread(fd, buffer.baseAddress, buffer.count, off_t(offset)) }) {
            case .failure(.resourceTemporarilyUnavailable): continue
            case let result: return result
            }
        }
    }

    /// Sets or clears `O_NONBLOCK` on `fd`.
    @discardableResult
    package static func setNonBlocking(_ fd: Int32, _ on: Bool) -> Result<Void, Errno> {
        retrying { fcntl(fd, F_GETFL) }.flatMap { flags in
            retrying { fcntl(fd, F_SETFL, on ? flags | O_NONBLOCK : flags & ~O_NONBLOCK) }.map { _ in () }
        }
    }

    /// `statx` of `name` below `dirfd` (`AT_FDCWD` for a path), not following a final symlink.
    package static func statx(at dirfd: Int32, _ name: UnsafePointer<CChar>) -> Result<shim_statx, Errno> {
        var sx = shim_statx()
        return retrying { shim_statx(dirfd, name, &sx) }.map { _ in sx }
    }

    /// `statx` of an open descriptor.
    package static func fstatx(_ fd: Int32) -> Result<shim_statx, Errno> {
        var sx = shim_statx()
        return retrying { shim_fstatx(fd, &sx) }.map { _ in sx }
    }

    /// Opens a directory below `dirfd` without following a symlink in its place.
    package static func openDirectory(at dirfd: Int32, _ name: UnsafePointer<CChar>) -> Result<Int32, Errno> {
        retrying { openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY) }
    }

    /// The target of the symlink `name` below `dirfd` (`AT_FDCWD` for a path), at most
    /// `PATH_MAX` (4096) bytes of it.
    package static func readLink(at dirfd: Int32, _ name: UnsafePointer<CChar>) -> Result<[UInt8], Errno> {
        var buf = [CChar](repeating: 0, count: Int(PATH_MAX))
        return retrying { readlinkat(dirfd, name, &buf, buf.count) }.map { n in buf[0..<n].map { UInt8(bitPattern: $0) } }
    }

    package static func lstat(_ path: [UInt8]) -> Result<stat, Errno> {
        var st = stat()
        return retrying { withCString(path) { Glibc.lstat($0, &st) } }.map { _ in st }
    }

    package static func mkdir(_ path: [UInt8], _ mode: mode_t) -> Result<Void, Errno> {
        retrying { withCString(path) { Glibc.mkdir($0, mode) } }.map { _ in () }
    }

    package static func chmod(_ path: [UInt8], _ mode: mode_t) -> Result<Void, Errno> {
        retrying { withCString(path) { Glibc.chmod($0, mode) } }.map { _ in () }
    }

    package static func unlink(_ path: [UInt8]) -> Result<Void, Errno> {
        retrying { withCString(path) { Glibc.unlink($0) } }.map { _ in () }
    }

    /// `rmdir(2)`: removes an empty folder.
    package static func rmdir(_ path: [UInt8]) -> Result<Void, Errno> {
        retrying { withCString(path) { Glibc.rmdir($0) } }.map { _ in () }
    }

    /// Opens (creating with 0600) the lock file and takes `flock(LOCK_EX | LOCK_NB)` on it.
    /// `.failure(EWOULDBLOCK)` means another process holds it.
    package static func lockFile(_ path: [UInt8]) -> Result<Int32, Errno> {
        let fd: Int32
        switch retrying({ withCString(path) { Glibc.open($0, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600) } }) {
        case let .success(opened): fd = opened
        case let .failure(error): return .failure(error)
        }
        switch retrying({ flock(fd, LOCK_EX | LOCK_NB) }) {
        case .success: return .success(fd)
        case let .failure(error):
            close(fd)
            return .failure(error)
        }
    }

    // MARK: extended attributes, of the path itself (l*xattr: a final symlink is not followed)

    /// Wraps `llistxattr(2)`: the NUL-separated names into `buffer` (or their total size when
    /// `buffer` is empty).
    package static func listXattrs(_ path: FilePath, into buffer: UnsafeMutableRawBufferPointer) -> Result<Int, Errno> {
        retrying {
            path.withPlatformString { shim_llistxattr($0, buffer.baseAddress?.assumingMemoryBound(to: CChar.self), UInt(buffer.count)) }
        }
    }

    /// Wraps `lgetxattr(2)`: the value of `name` into `buffer`; returns its size.
    package static func getXattr(_ path: FilePath, _ name: String, into buffer: UnsafeMutableRawBufferPointer) -> Result<Int, Errno> {
        retrying { path.withPlatformString { p in shim_lgetxattr(p, name, buffer.baseAddress, UInt(buffer.count)) } }
    }

    /// Wraps `lsetxattr(2)` (creating or replacing).
    package static func setXattr(_ path: FilePath, _ name: String, _ value: [UInt8]) -> Result<Void, Errno> {
        retrying {
            path.withPlatformString { p in value.withUnsafeBytes { shim_lsetxattr(p, name, $0.baseAddress, UInt($0.count)) } }
        }.map { _ in () }
    }

    /// Wraps `lremovexattr(2)`.
    package static func removeXattr(_ path: FilePath, _ name: String) -> Result<Void, Errno> {
        retrying { path.withPlatformString { p in shim_lremovexattr(p, name) } }.map { _ in () }
    }
}
