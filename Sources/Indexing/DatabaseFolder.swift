import SystemCalls
import SystemPackage
import Glibc

/// The index folder, held open so that SQLite can reach a folder whose name is not UTF-8.
///
/// GRDB (and SQLite's Swift surface) take the database path as a `String`, which cannot hold a
/// byte that is not UTF-8: `--index-dir $'idx\xfe'` would open a U+FFFD look-alike instead. The
/// folder is opened by its bytes and the database named through the descriptor,
/// `/proc/self/fd/N/index.sqlite`, a valid UTF-8 path to the same file; SQLite derives its
/// `-wal` and `-shm` names from it, so they land beside the database. A UTF-8 folder is opened
/// by its own name as before (readable in messages and `lsof`), with no descriptor kept.
final class DatabaseFolder: Sendable {
    let fd: Int32
    var databasePath: String { "/proc/self/fd/\(fd)/index.sqlite" }

    private init(fd: Int32) { self.fd = fd }
    deinit { close(fd) }

    static func openIfNeeded(_ location: IndexLocation) throws(IndexError) -> DatabaseFolder? {
        guard String(validating: location.directory.bytes, as: UTF8.self) == nil else { return nil }
        let opened = SystemCall.retrying {
            location.directory.withPlatformString { open($0, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        }
        switch opened {
        case .success(let fd): return DatabaseFolder(fd: fd)
        case .failure(let e):
            throw .directory(path: location.directory.string, errno: e.rawValue, message: String(cString: strerror(e.rawValue)))
        }
    }
}
