import CSysShims
import SystemCalls
import SystemPackage
import Glibc

// File facts from `statx`, through SystemCalls.

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
    package static func read(_ path: FilePath) throws(Errno) -> FileFacts {
        var r = path.withPlatformString { SystemCall.statx(at: AT_FDCWD, $0) }
        if case .failure(.fileNameTooLong) = r { r = LongPaths.statx(path.bytes) }
        switch r {
        case .success(let sx): return FileFacts(path: path, sx)
        case .failure(let e): throw e
        }
    }

    /// Reads the facts of an open descriptor (the file actually opened, for a race-free check).
    package static func read(descriptor fd: FileDescriptor, path: FilePath) throws(Errno) -> FileFacts {
        switch SystemCall.fstatx(fd.rawValue) {
        case .success(let sx): return FileFacts(path: path, sx)
        case .failure(let e): throw e
        }
    }
}
