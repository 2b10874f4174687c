import Dispatch
import Indexing
import SystemPackage
import Glibc

/// Wakes the daemon when something happens to its index folder's entries, so that an idle daemon
/// notices at once that its database was deleted or replaced (`fsindex erase`, a new
/// `fsindex index` after one), instead of at its next change.
///
/// A key design decision: this only *wakes*; the decision is `IndexDaemon.indexFileProblem`,
/// which compares the database file's device and inode with those it opened, and which the
/// daemon also asks before every piece of work. One inotify watch on the index folder (its own
/// instance, read by a dispatch source): no timer, so idle stays free. Events about the WAL and
/// shared-memory files (every commit) cost one `statx`.
/// Sendable: its one state is a dispatch source, whose `cancel()` is safe from any thread.
package final class IndexFileMonitor: @unchecked Sendable {
    private let source: any DispatchSourceRead

    /// Starts watching `location`'s folder; nil if inotify is unavailable (the per-work check
    /// still catches a deleted database).
    package init?(location: IndexLocation, onChange: @escaping @Sendable () -> Void) {
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { return nil }
        let mask = UInt32(bitPattern: IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE | IN_DELETE_SELF | IN_MOVE_SELF)
        guard location.directory.withPlatformString({ inotify_add_watch(fd, $0, mask) }) >= 0 else {
            close(fd)
            return nil
        }
        // A serial queue of its own, not `.global()`: the global queue's first thread starts
        // libdispatch's once-a-second workqueue monitor (issue 14; CGlobalExecutor).
        source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: DispatchQueue(label: "fsindex.index-file-monitor"))
        source.setEventHandler {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while buffer.withUnsafeMutableBytes({ read(fd, $0.baseAddress, $0.count) }) > 0 {}
            onChange()
        }
        source.setCancelHandler { close(fd) }
        source.resume()
    }

    package func stop() { source.cancel() }

    deinit { source.cancel() }
}
