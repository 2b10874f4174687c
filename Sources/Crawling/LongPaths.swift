import CSysShims
import SystemCalls
import SystemPackage
import Glibc

/// Paths longer than `PATH_MAX` (4,096 bytes with its NUL): the kernel refuses them whole
/// (`ENAMETOOLONG`), but a tree can be that deep (`mkdir` relative to a deep folder works).
///
/// A key design decision: such a path is reached in steps, each an `openat(2)` relative to the
/// folder the previous step opened, with a piece of the path shorter than `PATH_MAX` and cut at a
/// slash. So the walker lists deep folders and `statx`es their entries like any other, and a
/// deep tree is indexed (names, file-system facts) instead of being reported as a problem on
/// every crawl for ever. Reading a deep file's content is another matter: the sandboxed worker
/// opens files by path, so those files are indexed from their facts and listed by
/// `fsindex failures` with the reason. A path that fits takes the ordinary single call.
enum LongPaths {
    /// The longest path a single system call takes (without the NUL).
    static let maxPath = Int(PATH_MAX) - 1

    /// Opens the folder at `path` (absolute or relative to the working directory), however long,
    /// without following a symlink in the last step.
    static func openDirectory(_ path: [UInt8]) -> Result<Int32, Errno> {
        if path.count <= maxPath { return SystemCall.withCString(path) { SystemCall.openDirectory(at: AT_FDCWD, $0) } }
        var fd = AT_FDCWD
        var start = 0
        while start < path.count {
            var end = min(path.count, start + maxPath)
            if end < path.count {
                // Cut at the last slash that fits; a single name longer than NAME_MAX cannot exist.
                guard let slash = path[start..<end].lastIndex(of: 0x2F), slash > start else {
                    if fd != AT_FDCWD { SystemCall.close(fd) }
                    return .failure(.fileNameTooLong)
                }
                end = slash
            }
            let piece = Array(path[start..<end])
            let opened = SystemCall.withCString(piece) { SystemCall.openDirectory(at: fd, $0) }
            if fd != AT_FDCWD { SystemCall.close(fd) }
            switch opened {
            case .success(let f): fd = f
            case .failure(let e): return .failure(e)
            }
            start = end
            while start < path.count && path[start] == 0x2F { start += 1 }
        }
        return .success(fd)
    }

    /// `statx` of `path` without following a final symlink, however long the path.
    static func statx(_ path: [UInt8]) -> Result<shim_statx, Errno> {
        if path.count <= maxPath { return SystemCall.withCString(path) { SystemCall.statx(at: AT_FDCWD, $0) } }
        guard let slash = path.lastIndex(of: 0x2F), slash > 0, slash < path.count - 1 else { return .failure(.fileNameTooLong) }
        let parent: Int32
        switch openDirectory(Array(path[..<slash])) {
        case .success(let fd): parent = fd
        case .failure(let e): return .failure(e)
        }
        defer { SystemCall.close(parent) }
        return SystemCall.withCString(Array(path[(slash + 1)...])) { SystemCall.statx(at: parent, $0) }
    }
}
