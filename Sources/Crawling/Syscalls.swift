import CSysShims
import SystemCalls
import SystemPackage
#if canImport(Glibc)
import Glibc
#endif

/// The crawler's system calls, in `SystemCall`'s convention: each returns a `Result` with the
/// `Errno` and retries `EINTR`.
enum Syscalls {
    static func statx(at dirfd: Int32, _ name: UnsafePointer<CChar>) -> Result<shim_statx, Errno> {
        var sx = shim_statx()
        return SystemCall.retrying { shim_statx(dirfd, name, &sx) }.map { _ in sx }
    }

    static func fstatx(_ fd: Int32) -> Result<shim_statx, Errno> {
        var sx = shim_statx()
        return SystemCall.retrying { shim_fstatx(fd, &sx) }.map { _ in sx }
    }

    /// Opens a directory below `dirfd` without following a symlink in its place.
    static func openDirectory(at dirfd: Int32, _ name: UnsafePointer<CChar>) -> Result<Int32, Errno> {
        SystemCall.retrying { openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY) }
    }

    static func readLink(at dirfd: Int32, _ name: UnsafePointer<CChar>) -> [UInt8]? {
        var buf = [CChar](repeating: 0, count: 4096)
        let n = readlinkat(dirfd, name, &buf, buf.count)
        guard n >= 0 else { return nil }
        return buf[0..<n].map { UInt8(bitPattern: $0) }
    }

    // MARK: extended attributes, of the path itself (l*xattr: a final symlink is not followed)

    /// Wraps `llistxattr(2)`: the NUL-separated names into `buffer` (or their total size when
    /// `buffer` is empty).
    static func listXattrs(_ path: FilePath, into buffer: UnsafeMutableRawBufferPointer) -> Result<Int, Errno> {
        SystemCall.retrying {
            path.withPlatformString { shim_llistxattr($0, buffer.baseAddress?.assumingMemoryBound(to: CChar.self), UInt(buffer.count)) }
        }
    }

    /// Wraps `lgetxattr(2)`: the value of `name` into `buffer`; returns its size.
    static func getXattr(_ path: FilePath, _ name: String, into buffer: UnsafeMutableRawBufferPointer) -> Result<Int, Errno> {
        SystemCall.retrying { path.withPlatformString { p in shim_lgetxattr(p, name, buffer.baseAddress, UInt(buffer.count)) } }
    }

    /// Wraps `lsetxattr(2)` (creating or replacing).
    static func setXattr(_ path: FilePath, _ name: String, _ value: [UInt8]) -> Result<Void, Errno> {
        SystemCall.retrying {
            path.withPlatformString { p in value.withUnsafeBytes { shim_lsetxattr(p, name, $0.baseAddress, UInt($0.count)) } }
        }.map { _ in () }
    }

    /// Wraps `lremovexattr(2)`.
    static func removeXattr(_ path: FilePath, _ name: String) -> Result<Void, Errno> {
        SystemCall.retrying { path.withPlatformString { p in shim_lremovexattr(p, name) } }.map { _ in () }
    }

    // MARK: inotify and the watcher's thread

    /// Wraps `inotify_init1(IN_NONBLOCK | IN_CLOEXEC)`.
    static func inotifyInit() -> Result<Int32, Errno> {
        SystemCall.retrying { inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC)) }
    }

    /// Wraps `inotify_add_watch(2)`. Adding a watch for an inode already watched returns the same
    /// descriptor (and replaces its mask).
    static func inotifyAddWatch(_ fd: Int32, _ path: FilePath, mask: UInt32) -> Result<Int32, Errno> {
        SystemCall.retrying { path.withPlatformString { inotify_add_watch(fd, $0, mask) } }
    }

    /// Wraps `inotify_rm_watch(2)`. EINVAL (the watch is already gone) is not an error worth reporting.
    @discardableResult
    static func inotifyRemoveWatch(_ fd: Int32, _ wd: Int32) -> Result<Void, Errno> {
        inotify_rm_watch(fd, wd) == 0 ? .success(()) : .failure(Errno(rawValue: errno))
    }

    /// Wraps `read(2)` on a non-blocking descriptor; `.success(0)` for "nothing to read now" (EAGAIN).
    static func readAvailable(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Result<Int, Errno> {
        switch SystemCall.retrying({ read(fd, buffer.baseAddress, buffer.count) }) {
        case .success(let n): return .success(n)
        case .failure(let e) where e == .resourceTemporarilyUnavailable || e == .wouldBlock: return .success(0)
        case .failure(let e): return .failure(e)
        }
    }

    /// Wraps `poll(2)`; `timeout` in milliseconds, -1 to wait for ever. Returns the `revents`, in order.
    static func poll(_ fds: [Int32], timeout: Int32) -> Result<[Int16], Errno> {
        var pfds = fds.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        return SystemCall.retrying { Glibc.poll(&pfds, nfds_t(pfds.count), timeout) }.map { _ in pfds.map(\.revents) }
    }

    /// An `eventfd(2)` (close-on-exec, non-blocking) to wake a thread blocked in `poll`.
    static func eventFD() -> Result<Int32, Errno> {
        let fd = shim_eventfd()
        return fd >= 0 ? .success(fd) : .failure(Errno(rawValue: errno))
    }

    /// Adds one to an eventfd counter (wakes its poller).
    static func signal(eventFD fd: Int32) {
        var one: UInt64 = 1
        while write(fd, &one, 8) < 0 && errno == EINTR {}
    }

    /// Resets an eventfd counter after a wake-up.
    static func drain(eventFD fd: Int32) {
        var value: UInt64 = 0
        while read(fd, &value, 8) < 0 && errno == EINTR {}
    }

    /// `CLOCK_MONOTONIC` in nanoseconds: deadlines for pending moves, debounces and polling.
    static func monotonicNanos() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }
}

extension FileFacts {
    init(path: FilePath, _ sx: shim_statx) {
        self.init(path: path, type: FileType(mode: sx.mode), size: Int64(sx.size), permissions: sx.mode & 0o7777,
                  uid: sx.uid, gid: sx.gid, device: sx.dev, inode: sx.ino, linkCount: sx.nlink,
                  accessTime: FileTime(seconds: sx.atime_sec, nanoseconds: sx.atime_nsec),
                  modificationTime: FileTime(seconds: sx.mtime_sec, nanoseconds: sx.mtime_nsec),
                  changeTime: FileTime(seconds: sx.ctime_sec, nanoseconds: sx.ctime_nsec),
                  birthTime: sx.has_birth != 0 ? FileTime(seconds: sx.btime_sec, nanoseconds: sx.btime_nsec) : nil,
                  allocatedSize: Int64(sx.blocks) * 512)
    }

    /// Reads the facts of `path` without following a final symlink; a path longer than
    /// `PATH_MAX` is reached in steps (see `LongPaths`).
    public static func read(_ path: FilePath) throws(Errno) -> FileFacts {
        var r = path.withPlatformString { Syscalls.statx(at: AT_FDCWD, $0) }
        if case .failure(.fileNameTooLong) = r { r = LongPaths.statx(path.bytes) }
        switch r {
        case .success(let sx): return FileFacts(path: path, sx)
        case .failure(let e): throw e
        }
    }

    /// Reads the facts of an open descriptor (the file actually opened, for a race-free check).
    public static func read(descriptor fd: FileDescriptor, path: FilePath) throws(Errno) -> FileFacts {
        switch Syscalls.fstatx(fd.rawValue) {
        case .success(let sx): return FileFacts(path: path, sx)
        case .failure(let e): throw e
        }
    }
}
