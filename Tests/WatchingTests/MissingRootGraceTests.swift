import Attributes
import Configuration
import Crawling
import Foundation
import IndexTestSupport
import Indexing
import Logging
import SystemPackage
import TestSupport
import Testing
@testable import Watching

/// A missing root keeps its items for `missing_root_grace` seconds, then loses them (issue 11),
/// on the daemon's clock: the default 300 s passes in no time, and exactly.
@Suite("IndexDaemon: a missing root's grace period", .blocking)
struct MissingRootGraceTests {
    @Test("a missing root's items are kept for the whole grace period and removed when it ends", .timeLimit(.minutes(3)))
    func itemsKeptThenPurged() async throws {
        let tree = try TemporaryTree(prefix: "fsindex-daemon-grace")
        defer { tree.remove() }
        try tree.create("root/kept.txt", contents: "kestrel")
        let root = tree.path("root")
        let store = try tree.makeIndexStore()
        let source = ScriptedEventSource()
        let clock = TestClock()
        let settings = Settings()
        let grace = Duration.seconds(settings.daemon.missingRootGrace)
        #expect(grace == .seconds(300), "the default grace period")
        let daemon = IndexDaemon(store: store, settings: settings, roots: [root], source: source,
                                 logger: Logger(label: "test"), clock: clock)
        let running = Task(executorPreference: ThreadPerJobExecutor()) { await daemon.run() }
        func kept() throws -> Bool { try store.item(ItemIdentifier(bytes: root.appending("kept.txt").bytes)) != nil }
        try await waitFor("the first crawl") { daemon.status.state == .watching }
        #expect(try kept())

        source.send([.rootGone(root)])
        await clock.sleeping(until: TestClock.Instant(offset: grace))   // the grace period has begun
        #expect(daemon.status.missingRoots.map(\.path) == [root.bytes])
        clock.advance(by: grace - .seconds(1))
        #expect(clock.deadlines.contains(TestClock.Instant(offset: grace)), "the grace period's wait goes on")
        #expect(try kept(), "kept during the grace period")
        clock.advance(by: .seconds(1))
        try await waitFor("the purge") { try !kept() }
        #expect(try !kept(), "removed when it ends")
        #expect(try store.count() == 0)
        daemon.submit(.shutdown)
        await running.value
    }
}
