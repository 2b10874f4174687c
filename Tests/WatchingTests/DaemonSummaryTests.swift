import Configuration
import Attributes
import Controlling
import Crawling
import Foundation
import IndexTestSupport
import Indexing
import Logging
import SystemPackage
import TestSupport
import Testing
import Updating
@testable import Watching

/// fsindexd's summaries. A file's is made by its extraction worker and written with it (issue
/// 23), so it is searchable with its summary at once and never waits for a pass; the texts apps
/// donate are summarized in small batches behind the writer's other work and published as
/// `ItemChanges.summarized`.
@Suite("IndexDaemon: summaries", .blocking, .serialized)
struct DaemonSummaryTests {
    static let text = """
        Owls hunt at night and find their prey by sound as much as by sight. \
        The weather was mild on Tuesday. \
        An owl's feathers have soft edges, so an owl flies almost without a sound. \
        Most owls swallow small prey whole and bring up the bones and fur as pellets.
        """

    @Test("files are written with their summaries, by the first crawl and after a change; donated texts are summarized in batches of the set size, and published")
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
        let store = try tree.makeIndexStore()
        let daemon = IndexDaemon(store: store, settings: Settings(), roots: [root],
                                 source: try InotifyEventSource(pollInterval: .seconds(30)), logger: Logger(label: "test"))
        daemon.summaries.batchSize = 2
        let published = Mutex<[ItemChanges]>([])
        daemon.setPublisher { c in published.withLock { $0.append(c) } }
        let running = Task(executorPreference: ThreadPerJobExecutor()) { await daemon.run() }
        defer { daemon.submit(.shutdown) }

        func summarized() -> [[UInt8]] { published.withLock { $0.flatMap(\.summarized) } }
        func summary(_ name: String) -> String? {
            (try? store.item(ItemIdentifier(bytes: Array(root.appending(name).string.utf8))))?.attributes.string(.textContentSummary)
        }
        // Long: the daemon's event source runs on the cooperative pool, which the suite's
        // minutes-long blocking tests can hold; alone each wait takes well under a second.
        func wait(until done: () -> Bool) async throws {
            _ = await eventually(300, every: .milliseconds(50), done)
        }

        // The first crawl: each owl has its summary as soon as its content is in.
        try await wait { (0..<5).allSatisfy { summary("owl\($0).txt") != nil } }
        for i in 0..<5 { #expect(summary("owl\(i).txt")?.contains("owl") == true, "owl\(i).txt") }
        #expect(summary("short.txt") == nil)
        #expect(try store.pendingSummaryCount() == 0)
        // Words of the summary are searchable with the item (the full-text `other` column).
        #expect(summarized().isEmpty, "a file's summary came later than the file: \(summarized().map { String(decoding: $0, as: UTF8.self) })")

        try tree.create("root/later.txt", contents: Self.text + " Written later.")
        try await wait { summary("later.txt") != nil }
        #expect(summary("later.txt")?.contains("owl") == true)
        #expect(try store.pendingSummaryCount() == 0)

        // Donated texts: made pending by the donation, summarized two at a time, published.
        let donated = (0..<5).map { makeItem("note\($0)", domain: "app.notes", text: Self.text + " Donated \($0).") }
            + [makeItem("tiny", domain: "app.notes", text: "Too short to summarize.")]
        let answered = Mutex<Result<Int, WriterError>?>(nil)
        daemon.submit(.donate(domain: "app.notes", clientState: nil, items: donated, done: { r in answered.withLock { $0 = r } }))
        try await wait { summarized().count >= 5 }
        let ids = Set(summarized())
        #expect(ids == Set((0..<5).map { Array("note\($0)".utf8) }), "\(ids.map { String(decoding: $0, as: UTF8.self) })")
        #expect(!ids.contains(Array("tiny".utf8)))
        // Batches of two: no message carries more.
        #expect(published.withLock { $0.allSatisfy { $0.summarized.count <= 2 } })
        #expect(try store.pendingSummaryCount() == 0)
        #expect(try store.item(ItemIdentifier("note3"))?.attributes.string(.textContentSummary)?.contains("owl") == true)
        daemon.submit(.shutdown)
        await running.value
    }
}
