import Dispatch
import Synchronization
import SystemPackage

/// A `FileEventSource` for a network file system (nfs, cifs, sshfs): every `interval` it asks
/// for a rescan of each root, which the consumer compares with the index by stamp (size,
/// modification and change times, inode), so files changed, added or deleted are found.
///
/// A key design decision: no inotify here. inotify sees only the changes made through this
/// machine's kernel; another client of the share writing to it is never reported, so watching
/// would look live and miss most changes. A rescan costs one `statx` per file per interval on
/// the server: `[daemon] poll_interval` (30 s by default) sets it. The timer exists only while a
/// share is indexed.
package final class RescanningEventSource: FileEventSource {
    package let events: AsyncStream<[FileEvent]>
    private let continuation: AsyncStream<[FileEvent]>.Continuation
    private let state = Mutex(State())
    /// Thread-safe itself (libdispatch): resumed once here, cancelled once in `stop()`.
    private nonisolated(unsafe) let timer: any DispatchSourceTimer

    private struct State {
        var roots: [FilePath] = []
        var stopped = false
    }

    package init(interval: Duration) {
        (events, continuation) = AsyncStream.makeStream(of: [FileEvent].self, bufferingPolicy: .bufferingNewest(1))
        timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "fsindex.rescanning-source"))
        let nanos = max(1, Int(interval.components.seconds) * 1_000_000_000 + Int(interval.components.attoseconds / 1_000_000_000))
        timer.schedule(deadline: .now() + .nanoseconds(nanos), repeating: .nanoseconds(nanos), leeway: .nanoseconds(nanos / 10))
        timer.setEventHandler { [weak self] in
            guard let self else { return }
            let roots = state.withLock { $0.stopped ? [] : $0.roots }
            // Only the newest request waits: a rescan still pending covers the next one.
            if !roots.isEmpty { continuation.yield(roots.map { .rescan($0, recursive: true) }) }
        }
        timer.resume()
    }

    package func add(root: FilePath, options: WalkOptions) throws(WatchError) {
        let stopped = state.withLock { s in
            if !s.stopped, !s.roots.contains(root) { s.roots.append(root) }
            return s.stopped
        }
        if stopped { throw .stopped }
    }

    package func remove(root: FilePath) {
        state.withLock { $0.roots.removeAll { $0 == root } }
    }

    package var counts: WatchCounts {
        state.withLock { WatchCounts(watched: 0, polled: $0.roots.count, unreachable: 0) }
    }

    package func stop() {
        let first = state.withLock { s in
            defer { s.stopped = true }
            return !s.stopped
        }
        guard first else { return }
        timer.cancel()
        continuation.finish()
    }

    deinit { stop() }
}
