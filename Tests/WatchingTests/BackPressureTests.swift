import Attributes
import Configuration
import Crawling
import Dispatch
import Foundation
import IndexTestSupport
import Indexing
import Logging
import SystemPackage
import TestSupport
import Testing
@testable import Watching

/// Back-pressure: the daemon's writer takes the source's batches at its own pace, so the
/// inotify stream's bounded buffer is what holds a burst, and what does not fit becomes a rescan.
@Suite("IndexDaemon: back-pressure", .blocking, .serialized)
struct BackPressureTests {
    /// Passes a source's batches on only as they are asked for (no buffer of its own, so the
    /// consumer's pace reaches the source behind it), and remembers them.
    final class PullThrough: FileEventSource, @unchecked Sendable {
        let inner: any FileEventSource
        let events: AsyncStream<[FileEvent]>
        let seen: Mutex<[FileEvent]>

        init(_ inner: some FileEventSource) {
            self.inner = inner
            let iterator = Box(inner.events.makeAsyncIterator())
            let seen = Mutex<[FileEvent]>([])
            self.seen = seen
            events = AsyncStream(unfolding: {
                let batch = await iterator.next()
                if let batch { seen.withLock { $0 += batch } }
                return batch
            })
        }

        /// The inner stream's iterator; one consumer only (the daemon's forwarder).
        final class Box: @unchecked Sendable {
            var iterator: AsyncStream<[FileEvent]>.Iterator
            init(_ iterator: AsyncStream<[FileEvent]>.Iterator) { self.iterator = iterator }
            func next() async -> [FileEvent]? { await iterator.next() }
        }

        func add(root: FilePath, options: WalkOptions) throws(WatchError) { try inner.add(root: root, options: options) }
        func remove(root: FilePath) { inner.remove(root: root) }
        var counts: WatchCounts { inner.counts }
        func stop() { inner.stop() }
    }

    @Test("a writer that falls behind leaves a burst in the source's bounded buffer: what does not fit becomes a rescan, and nothing is lost")
    func flood() async throws {
        // Off the cooperative pool: the writer is held on purpose below.
        try await withTaskExecutorPreference(ThreadPerJobExecutor()) { try await body() }
    }

    func body() async throws {
        let tree = try TemporaryTree(prefix: "fsindex-back-pressure")
        defer { tree.remove() }
        try tree.create("root/start.txt", contents: "start")
        let root = tree.path("root")
        let store = try tree.makeIndexStore()
        // One batch in the source's buffer and `IndexDaemon.batchesAhead` taken by the writer:
        // the bursts below are more.
        let source = PullThrough(try InotifyEventSource(pollInterval: .seconds(30), bufferedBatches: 1))
        let daemon = IndexDaemon(store: store, settings: Settings(), roots: [root], source: source,
                                 logger: Logger(label: "test"))
        let running = Task(executorPreference: ThreadPerJobExecutor()) { await daemon.run() }
        defer { daemon.submit(.shutdown) }
        try await waitFor("the first crawl") { daemon.status.state == .watching }

        // The writer is held (a reindex whose acknowledgement waits for the test) while more
        // bursts arrive than fit, each its own batch (the source sends one after 4 ms of quiet).
        let held = Mutex(false)
        let gate = DispatchSemaphore(value: 0)
        daemon.submit(.reindex(paths: [root.appending("start.txt").bytes], done: { _ in
            held.withLock { $0 = true }
            gate.wait()
        }))
        try await waitFor("the writer to be held") { held.withLock { $0 } }
        var names: [String] = []
        for burst in 0..<(IndexDaemon.batchesAhead + 6) {
            for i in 0..<20 {
                names.append("b\(burst)-\(i).txt")
                try tree.create("root/\(names.last!)", contents: "burst \(burst) file \(i)")
            }
            // Real inotify events, which no clock of the test's can move.
            await letRealTimePass(0.15, for: "quiet, so that the source closes this burst's batch")
        }
        gate.signal()

        // Nothing is lost: every file is indexed, by its event or by the rescan.
        func indexed() throws -> Int {
            try names.filter { try store.item(ItemIdentifier(bytes: root.appending($0).bytes)) != nil }.count
        }
        try await waitFor("every file of the bursts to be indexed") { try indexed() == names.count }
        #expect(try indexed() == names.count)
        // The source's bound acted: the batches that did not fit came back as a rescan.
        let seen = source.seen.withLock { $0 }
        let rescanned = seen.contains(.rescan(root, recursive: true))
        #expect(rescanned, "no rescan among \(seen.count) events: the writer took every batch as it came")
        // And it replaced them: not every file came with an event of its own.
        let created = Set(seen.compactMap { if case .created(let p, _) = $0 { p } else { nil } })
        let replaced = names.filter { !created.contains(root.appending($0)) }.count
        #expect(replaced > 0, "every file's event reached the writer")
        daemon.submit(.shutdown)
        await running.value
    }
}
