import Attributes
import Foundation
import IndexTestSupport
import Indexing
import SharedIndex
import Synchronization
import TestSupport
import Testing

/// fsindexd's feeder of the shared index as a service (issue 42): its waits (the gathering
/// moment, the retries after a failure) go through the clock it is given, it publishes what
/// changed, and it ends when its task is cancelled.
@Suite("The shared index's feeder", .blocking)
struct SharedFeederTests {
    final class Log: Sendable {
        private let lines = Mutex<[String]>([])
        func add(_ line: String) { lines.withLock { $0.append(line) } }
        var all: [String] { lines.withLock { $0 } }
    }

    // The feeder runs on threads of its own, so its waits are looked for (`waitFor`) rather
    // than awaited with `TestClock.sleeping`, which would hang, not fail, if one never began.

    static func item(_ path: String, _ text: String) -> SearchableItem {
        var a = AttributeSet()
        a[.name] = .string(String(path.split(separator: "/").last!))
        a.contentType = .plainText
        a.textContent = text
        return SearchableItem(uniqueIdentifier: ItemIdentifier(path), domainIdentifier: "feed", attributes: a)
    }

    @Test("a server that is not there: the feeder waits 0.5 s, then 1 s, then 2 s on its clock, and stops when cancelled")
    func retriesOnTheClock() async throws {
        let tree = try TemporaryTree(prefix: "fsindex-feeder")
        let store = try tree.makeIndexStore()
        try store.indexSearchableItems([Self.item("/feed/a.txt", "an aardvark")])
        // A socket folder with no server in it: every connection fails at once.
        try tree.createDirectory("no-server")
        let url = try SharedIndexURL("postgresql:///fsindex?host=\(tree.path("no-server").string)", defaultUser: "nobody")
        let log = Log()
        let feeder = SharedFeeder(publisher: SharedPublisher(store: store, url: url, host: "h")) { log.add($0) }
        let clock = TestClock()
        // Off the cooperative pool, which the suite's long blocking tests can hold for minutes.
        let task = Task(executorPreference: ThreadPerJobExecutor()) { await feeder.run(clock: clock) }
        let zero = TestClock.Instant(offset: .zero)
        try await clock.waitingUntil(zero.advanced(by: .milliseconds(500)))
        #expect(log.all.count == 1 && log.all[0].hasSuffix("comparing everything again in 0.5 s"), "\(log.all)")
        // A change during the wait does not cut it short: the retry is the next full pass.
        feeder.changed([Array("/feed/a.txt".utf8)])
        clock.advance(by: .milliseconds(499))
        #expect(clock.deadlines == [zero.advanced(by: .milliseconds(500))])
        clock.advance(by: .milliseconds(1))
        try await clock.waitingUntil(zero.advanced(by: .milliseconds(1500)))
        #expect(log.all.count == 2 && log.all[1].hasSuffix("comparing everything again in 1 s"), "\(log.all)")
        clock.advance(by: .seconds(1))
        try await clock.waitingUntil(zero.advanced(by: .milliseconds(3500)))
        #expect(log.all.count == 3 && log.all[2].hasSuffix("comparing everything again in 2 s"), "\(log.all)")
        task.cancel()
        await task.value
        #expect(log.all.count == 3)
    }

    @Test("changes are gathered for 0.2 s of the clock, then published; an idle feeder has no wait under way", .postgres)
    func publishesChanges() async throws {
        let pg = try ThrowawayPostgres.shared()
        let url = try SharedIndexURL(try pg.makeDatabase())
        let tree = try TemporaryTree(prefix: "fsindex-feeder")
        let store = try tree.makeIndexStore()
        try store.indexSearchableItems([Self.item("/feed/a.txt", "an aardvark")])
        let log = Log()
        let feeder = SharedFeeder(publisher: SharedPublisher(store: store, url: url, host: "h")) { log.add($0) }
        let clock = TestClock()
        // Off the cooperative pool, which the suite's long blocking tests can hold for minutes.
        let task = Task(executorPreference: ThreadPerJobExecutor()) { await feeder.run(clock: clock) }
        defer { task.cancel() }
        let reader = try PostgresLink.connect(url)
        defer { reader.close() }
        func paths() throws -> [String] {
            try reader.query("SELECT path FROM items WHERE host = 'h' ORDER BY path").compactMap { $0.bytes("path").map { String(decoding: $0, as: UTF8.self) } }
        }
        // The first full pass needs no clock.
        try await waitFor("the first full pass", seconds: 120, context: { "\(log.all)" }) { log.all.contains { $0.contains("published 1 items") } }
        #expect(try paths() == ["/feed/a.txt"])
        #expect(clock.deadlines.isEmpty, "an idle feeder waits for a change, not on a timer")

        try store.indexSearchableItems([Self.item("/feed/b.txt", "a badger")])
        feeder.changed([Array("/feed/b.txt".utf8)])
        let gathered = clock.now.advanced(by: SharedFeeder.gathering)
        try await clock.waitingUntil(gathered)
        #expect(try paths() == ["/feed/a.txt"], "nothing is sent before the moment has passed")
        clock.advance(by: SharedFeeder.gathering)
        try await waitFor("the batch", seconds: 120, context: { "\(log.all)" }) { try paths() == ["/feed/a.txt", "/feed/b.txt"] }
        task.cancel()
        await task.value
        #expect(!log.all.contains { $0.contains("comparing everything again") }, "\(log.all)")
    }
}

extension TestClock {
    /// Returns once a sleep until `deadline` is under way, or records an issue after 60 s.
    func waitingUntil(_ deadline: Instant) async throws {
        try await waitFor("a wait on the clock until \(deadline)", seconds: 60) { deadlines.contains(deadline) }
    }
}
