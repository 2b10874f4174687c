import CSysShims
import SystemPackage
#if canImport(Glibc)
import Glibc
#endif

/// The one place with `-1` checks: thin wrappers over the system calls the crawler uses. Each
/// returns a `Result` with the `Errno`, and retries `EINTR`.
enum Syscalls {
    static func statx(at dirfd: Int32, _ name: UnsafePointer<CChar>) -> Result<shim_statx, Errno> {
        var sx = shim_statx()
        while true {
            if shim_statx(dirfd, name, &sx) == 0 { return .success(sx) }
            if errno != EINTR { return .failure(Errno(rawValue: errno)) }
        }
    }

    static func fstatx(_ fd: Int32) -> Result<shim_statx, Errno> {
        var sx = shim_statx()
        while true {
            if shim_fstatx(fd, &sx) == 0 { return .success(sx) }
            if errno != EINTR { return .failure(Errno(rawValue: errno)) }
        }
    }

    /// Opens a directory below `dirfd` without following a symlink in its place.
    static func openDirectory(at dirfd: Int32, _ name: UnsafePointer<CChar>) -> Result<Int32, Errno> {
        while true {
            let fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY)
            if fd >= 0 { return .success(fd) }
            if errno != EINTR { return .failure(Errno(rawValue: errno)) }
        }
    }

    static func readLink(at dirfd: Int32, _ name: UnsafePointer<CChar>) -> [UInt8]? {
        var buf = [CChar](repeating: 0, count: 4096)
        let n = readlinkat(dirfd, name, &buf, buf.count)
        guard n >= 0 else { return nil }
        return buf[0..<n].map { UInt8(bitPattern: $0) }
    }
}

extension FileFacts {
    init(path: FilePath, _ sx: shim_statx) {
        self.init(path: path, type: FileType(mode: sx.mode), size: Int64(sx.size), permissions: sx.mode & 0o7777,
                  uid: sx.uid, gid: sx.gid, device: sx.dev, inode: sx.ino, linkCount: sx.nlink,
                  accessNanos: sx.atime_ns, modificationNanos: sx.mtime_ns, changeNanos: sx.ctime_ns,
                  birthNanos: sx.has_birth != 0 ? sx.btime_ns : nil, allocatedSize: Int64(sx.blocks) * 512)
    }

    /// Reads the facts of `path` without following a final symlink.
    public static func read(_ path: FilePath) throws(Errno) -> FileFacts {
        let r = path.withPlatformString { Syscalls.statx(at: AT_FDCWD, $0) }
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
