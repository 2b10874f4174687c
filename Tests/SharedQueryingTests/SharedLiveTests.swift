import Attributes
import Foundation
import IndexTestSupport
import Indexing
import Querying
import SharedQuerying
import SharedIndex
import TestSupport
import Synchronization
import Testing

/// Live queries on the shared index: LISTEN/NOTIFY wakes the query at each committed batch.
@Suite("Live queries on the shared index", .blocking, .postgres)
struct SharedLiveTests {
    final class Replies: Sendable {
        private let list = Mutex<[QueryReply]>([])
        func add(_ r: QueryReply) { list.withLock { $0.append(r) } }
        var all: [QueryReply] { list.withLock { $0 } }
    }

    static func item(_ path: String, _ text: String) -> SearchableItem {
        var a = AttributeSet()
        a[.name] = .string(String(path.split(separator: "/").last!))
        a.contentType = .plainText
        a.textContent = text
        return SearchableItem(uniqueIdentifier: ItemIdentifier(path), domainIdentifier: "live", attributes: a)
    }

    @Test("a batch published by a watcher reaches a live query as added and removed items")
    func liveThroughNotify() async throws {
        let pg = try ThrowawayPostgres.shared()
        let url = try SharedIndexURL(try pg.makeDatabase())
        let tree = try TemporaryTree(prefix: "fsindex-shared-live")
        let store = try tree.makeIndexStore()
        try store.indexSearchableItems([Self.item("/live/a.txt", "a zebra here")])
        let publisher = SharedPublisher(store: store, url: url, host: "w")
        _ = try publisher.publishAll()
        let engine = try SharedQueryEngine(url: url)
        let pipeline = QueryPipeline(engine: engine, repair: NoRepair())
        let replies = Replies()
        // Through `SearchBackend.changes()`: the pipeline subscribes (LISTEN) before its first answer.
        let ended = Mutex<String?>(nil)
        let task = Task {
            do { try await pipeline.live(QueryRequest(text: "zebra")) { replies.add($0) } } catch {
                // A live query that fails (no connection for LISTEN, say) says why, rather than
                // leaving the wait below to time out.
                ended.withLock { $0 = "the live query failed: \(error)" }
            }
        }
        // Subscribed before it answers: the first answer means the changes from now are heard.
        try await waitFor("the first answer") { !replies.all.isEmpty || ended.withLock { $0 } != nil }
        if let failure = ended.withLock({ $0 }) { Issue.record(Comment(rawValue: failure)); return }
        try store.indexSearchableItems([Self.item("/live/b.txt", "another zebra")])
        try store.deleteItems(identifiers: [ItemIdentifier("/live/a.txt")])
        _ = try publisher.publishAll()
        publisher.disconnect()
        var changes: [(added: [String], removed: [String])] = []
        _ = await eventually(10, every: .milliseconds(100)) {
            changes = replies.all.compactMap {
                if case .changes(let added, let removed) = $0.content {
                    return (added.map { String(decoding: $0.path, as: UTF8.self) }, removed.map { String(decoding: $0.path, as: UTF8.self) })
                }
                return nil
            }
            return changes.contains(where: { $0.added == ["/live/b.txt"] }) && changes.contains(where: { $0.removed == ["/live/a.txt"] })
        }
        task.cancel()
        guard case .items(let first)? = replies.all.first?.content else { Issue.record("no first reply"); return }
        #expect(first.map { String(decoding: $0.path, as: UTF8.self) } == ["/live/a.txt"])
        #expect(changes.contains { $0.added == ["/live/b.txt"] }, "\(changes)")
        #expect(changes.contains { $0.removed == ["/live/a.txt"] }, "\(changes)")
    }
}
