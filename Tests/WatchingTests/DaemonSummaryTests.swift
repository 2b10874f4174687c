import Configuration
import Attributes
import Controlling
import Crawling
import Foundation
import Indexing
import Logging
import SystemPackage
import TestSupport
import Testing
import Updating
@testable import Watching

/// fsindexd's summaries: made in small batches behind the writer's other work, published as
/// `ItemChanges.summarized`, after the first crawl and after changes.
@Suite("IndexDaemon: summaries in the background", .serialized)
struct DaemonSummaryTests {
    static let text = """
        Owls hunt at night and find their prey by sound as much as by sight. \
        The weather was mild on Tuesday. \
        An owl's feathers have soft edges, so an owl flies almost without a sound. \
        Most owls swallow small prey whole and bring up the bones and fur as pellets.
        """

    @Test("the first crawl's long texts and a file written later are summarized in batches of the set size, and published")
    func summarizedAndPublished() async throws {
        // Off the cooperative pool, the daemon and this test's waits: under the whole suite its
        // two threads can be held by blocking tests for minutes (nothing was published in 90 s).
        try await withTaskExecutorPreference(ThreadPerJobExecutor()) { try await body() }
    }

    func body() async throws {
        let tree = try TemporaryTree(prefix: "fsindex-daemon-summaries")
        for i in 0..<5 { try tree.create("root/owl\(i).txt", contents: Self.text + " Note \(i).") }
        try tree.create("root/short.txt", contents: "A short note.")
        let root = tree.path("root")
        let store = try IndexStore(location: IndexLocation(directory: tree.path("index")))
        let daemon = IndexDaemon(store: store, settings: Settings(), roots: [root],
                                 source: try InotifyEventSource(pollInterval: .seconds(30)), logger: Logger(label: "test"))
        daemon.summaryBatchSize = 2
        let published = Mutex<[ItemChanges]>([])
        daemon.setPublisher { c in published.withLock { $0.append(c) } }
        let running = Task(executorPreference: ThreadPerJobExecutor()) { await daemon.run() }
        defer { daemon.submit(.shutdown) }

        func summarized() -> [[UInt8]] { published.withLock { $0.flatMap(\.summarized) } }
        func waitFor(_ count: Int) async throws {
            // Long: the daemon's event source runs on the cooperative pool, which the suite's
            // minutes-long blocking tests can hold; alone this takes well under a second.
            let deadline = Date().addingTimeInterval(300)
            while summarized().count < count && Date() < deadline { try await Task.sleep(for: .milliseconds(50)) }
        }
        try await waitFor(5)
        let first = summarized()
        #expect(Set(first) == Set((0..<5).map { Array(root.appending("owl\($0).txt").string.utf8) }), "\(first.map { String(decoding: $0, as: UTF8.self) })")
        // Batches of two: no message carries more.
        #expect(published.withLock { $0.allSatisfy { $0.summarized.count <= 2 } })
        #expect(try store.pendingSummaryCount() == 0)

        try tree.create("root/later.txt", contents: Self.text + " Written later.")
        try await waitFor(6)
        #expect(summarized().last == Array(root.appending("later.txt").string.utf8))
        let item = try store.item(ItemIdentifier(bytes: Array(root.appending("later.txt").string.utf8)))
        #expect(item?.attributes.string(.textContentSummary)?.contains("owl") == true)
        #expect(!summarized().contains(Array(root.appending("short.txt").string.utf8)))
        daemon.submit(.shutdown)
        await running.value
    }
}
