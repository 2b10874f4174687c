import SystemPackage
import Glibc

/// `lstat(2)` of one query's results, the folders they share looked up once: a folder met a
/// second time is opened (`O_PATH`) and its files are then looked at with
/// `fstatat(folder, name, AT_SYMLINK_NOFOLLOW)`, which walks one name instead of the whole path.
///
/// Why: fsindexd answering `--name mutex` (430 results in the bench corpus) spent 43 % of its
/// time walking the results' paths in `lstat`, most of them in the same few folders. The answer
/// is the same as `lstat`'s: a folder that cannot be opened gives what `lstat` would have given
/// for its files (ENOENT/ENOTDIR: gone; EACCES: cannot be looked at), and a folder without
/// search permission fails `fstatat` as it fails `lstat`. A folder renamed while the query runs
/// is still looked into where it was opened, a few milliseconds earlier at most.
///
/// At most `maximumOpen` folders are held open, and all are closed when the query is done.
/// Not `Sendable`: one query's, on one thread.
final class FolderStat {
    static let maximumOpen = 128
    /// `O_PATH` (Linux x86-64 and arm64), which Glibc's Swift module leaves out: a folder opened
    /// so needs no read permission, only the search permission `lstat` needs too.
    static let openPath: Int32 = 0o10000000
    /// Folders met once (not opened yet), and those opened: a descriptor, or -errno when the
    /// folder could not be opened.
    private var seen = Set<PageCounter.PathKey>()
    private var open: [PageCounter.PathKey: Int32] = [:]

    /// How many folders are open (for tests).
    var openFolders: Int { open.values.filter { $0 >= 0 }.count }

    deinit {
        for fd in open.values where fd >= 0 { Glibc.close(fd) }
    }

    func state(of path: [UInt8]) -> FileCheck.State {
        guard let slash = path.lastIndex(of: UInt8(ascii: "/")), slash > 0, slash < path.count - 1,
              !path.contains(0) else { return Self.lstat(path) }
        let folder = PageCounter.PathKey(bytes: Array(path[..<slash]))
        var fd = open[folder]
        if fd == nil {
            guard !seen.insert(folder).inserted, open.count < Self.maximumOpen else { return Self.lstat(path) }
            let opened = (folder.bytes.map { CChar(bitPattern: $0) } + [0]).withUnsafeBufferPointer {
                Glibc.open($0.baseAddress!, Self.openPath | O_DIRECTORY | O_CLOEXEC)
            }
            fd = opened >= 0 ? opened : -errno
            open[folder] = fd
        }
        guard let fd else { return Self.lstat(path) }
        if fd < 0 { return Self.state(errno: -fd) }
        var st = stat()
        let name = path[(slash + 1)...].map { CChar(bitPattern: $0) } + [0]
        if fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 { return .exists }
        return Self.state(errno: errno)
    }

    /// `lstat(2)` of the whole path.
    static func lstat(_ path: [UInt8]) -> FileCheck.State {
        var st = stat()
        let c = path.map { CChar(bitPattern: $0) } + [0]
        if Glibc.lstat(c, &st) == 0 { return .exists }
        return state(errno: errno)
    }

    static func state(errno e: Int32) -> FileCheck.State {
        e == ENOENT || e == ENOTDIR ? .gone : .inaccessible
    }
}
