import Synchronization
import SystemPackage

/// A `FileEventSource` that reports exactly what a test tells it to, for the tests of the events'
/// consumer: an overflow, a move out of a root, a folder deleted mid-crawl, on cue and in order.
///
/// For example:
/// ```swift
/// let source = ScriptedEventSource()
/// source.send([.created("/r/a.txt", isDirectory: false), .rescan("/r", recursive: true)])
/// source.finish()
/// for await batch in source.events { … }    // the batch above, then the end
/// ```
/// The stream's buffer is unbounded: nothing a test sends is dropped.
package final class ScriptedEventSource: FileEventSource {
    package let events: AsyncStream<[FileEvent]>
    private let continuation: AsyncStream<[FileEvent]>.Continuation
    private let state = Mutex(State())

    private struct State {
        var roots: [FilePath: WalkOptions] = [:]
        var added: [FilePath] = []
        var removed: [FilePath] = []
        var failures: [FilePath: WatchError] = [:]
        var counts = WatchCounts()
        var stopped = false
    }

    package init(counts: WatchCounts = WatchCounts()) {
        (events, continuation) = AsyncStream.makeStream(of: [FileEvent].self)
        state.withLock { $0.counts = counts }
    }

    /// Sends one batch to the consumer.
    package func send(_ batch: [FileEvent]) {
        continuation.yield(batch)
    }

    /// Ends the stream, as `stop()` does.
    package func finish() {
        state.withLock { $0.stopped = true }
        continuation.finish()
    }

    /// Makes the next `add(root:)` of `root` throw `error` (a missing or unreadable root).
    package func failAdding(_ root: FilePath, with error: WatchError) {
        state.withLock { $0.failures[root] = error }
    }

    /// The roots being watched now, with their options.
    package var roots: [FilePath: WalkOptions] { state.withLock { $0.roots } }
    /// Every root given to `add(root:)`, in order (repeats included).
    package var addedRoots: [FilePath] { state.withLock { $0.added } }
    /// Every root given to `remove(root:)`, in order.
    package var removedRoots: [FilePath] { state.withLock { $0.removed } }

    package func add(root: FilePath, options: WalkOptions = WalkOptions()) throws(WatchError) {
        let failure: WatchError? = state.withLock { s in
            if s.stopped { return .stopped }
            s.added.append(root)
            if let e = s.failures.removeValue(forKey: root) { return e }
            s.roots[root] = options
            return nil
        }
        if let failure { throw failure }
    }

    package func remove(root: FilePath) {
        state.withLock { s in
            s.removed.append(root)
            s.roots[root] = nil
        }
    }

    package var counts: WatchCounts { state.withLock { $0.counts } }

    package func stop() { finish() }
}
