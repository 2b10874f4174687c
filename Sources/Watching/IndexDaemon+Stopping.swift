import Controlling
import Crawling
import Indexing
import Isolation
import Logging
import Synchronization
import SystemPackage
import Updating
import Glibc

/// Stopping: quickly on SIGTERM, and on its own when its database is taken away.
extension IndexDaemon {
    /// SIGTERM, SIGINT or a `.shutdown` request. The work at hand (a first crawl of a large
    /// home, a burst, a reconcile) stops at its next file, folder or batch (`IndexUpdater.cancel`)
    /// instead of running to its end, and work queued behind it is left for the next start, whose
    /// reconcile finds those changes on disk. Every batch is a transaction, so the index is
    /// consistent whenever this happens; systemd's stop timeout is never reached.
    package func requestStop() {
        guard !stopping.exchange(true, ordering: .relaxed) else { return }
        currentUpdater.withLock { $0?.cancel() }
        recognition.withLock { $0?.pass?.pool.stopAll() }
        submit(.shutdown)
    }

    func isShutdown(_ work: Work) -> Bool {
        switch work {
        case .shutdown, .fail: return true
        case .reindex(_, let done):
            done(.failure(.stopping(nothingDone: "run `fsindex reindex` again once it is started")))
            return false
        case .donate(let domain, _, _, _, let done), .forget(let domain, _, let done):
            done(.failure(.stopping(nothingDone: "nothing of \(domain) was written: send the batch again once it is started")))
            return false
        case .used(_, _, let done):
            done(.failure(.stopping(nothingDone: "the use was not recorded; run `fsindex used` again")))
            return false
        default: return false
        }
    }

    /// The device and inode of the database file, or nil if there is none.
    static func identity(of path: FilePath) -> FileIdentity? {
        guard let facts = try? FileFacts.read(path) else { return nil }
        return FileIdentity(device: facts.device, inode: facts.inode)
    }

    /// Whether the database file the daemon writes to is still the one at the index's path. A
    /// daemon that went on writing to a database `fsindex erase` deleted (or that a new
    /// `fsindex index` replaced) would index into a file nobody reads, for ever.
    package func indexFileProblem() -> String? {
        guard let opened = databaseIdentity else { return nil }
        let path = store.location.databasePath
        guard let now = Self.identity(of: path) else {
            return "the index database \(path.string) was deleted (by `fsindex erase`?) while fsindexd was using it; "
                + "stopping so that nothing is written to a deleted file; start fsindexd again to build a new index"
        }
        guard now == opened else {
            return "the index database \(path.string) was replaced by another file while fsindexd was using it; "
                + "stopping; start fsindexd again to use the new one"
        }
        return nil
    }
}

/// A file's identity on disk.
package struct FileIdentity: Sendable, Hashable {
    package var device: UInt64
    package var inode: UInt64
}
