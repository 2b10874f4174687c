import Attributes
import Controlling
import Foundation
import Indexing
@testable import Querying
import Synchronization
import TestSupport
import Testing

/// Records what the pipeline asks to forget, instead of touching a daemon or the index.
final class RecordingRepair: StaleResultRepair {
    let forgotten = Mutex<[[UInt8]]>([])
    func forget(_ paths: [[UInt8]]) { forgotten.withLock { $0 += paths } }
    var paths: [String] { forgotten.withLock { $0.map { String(decoding: $0, as: UTF8.self) } } }
}

/// A pipeline over generated items, whose "disk" is a set of paths the test controls.
struct PipelineFixture {
    let query: QueryFixture
    let repair = RecordingRepair()
    let pipeline: QueryPipeline

    init(_ items: [SearchableItem], gone: Set<String> = [], inaccessible: Set<String> = []) throws {
        query = try QueryFixture(items)
        let check = FileCheck { path in
            let p = String(decoding: path, as: UTF8.self)
            return gone.contains(p) ? .gone : inaccessible.contains(p) ? .inaccessible : .exists
        }
        pipeline = QueryPipeline(engine: query.engine, fileCheck: check, repair: repair)
    }

    func items(_ request: QueryRequest) throws -> [FoundItem] {
        var out: [QueryReply] = []
        try pipeline.run(request) { out.append($0) }
        #expect(out.count == 1 && out[0].isFinal)
        guard case .items(let items)? = out.first?.content else { return [] }
        return items
    }

    func paths(_ request: QueryRequest) throws -> [String] {
        try items(request).map { String(decoding: $0.path, as: UTF8.self) }
    }
}

@Suite("QueryPipeline: paging, the existence check, de-duplication, live diffs")
struct QueryPipelineTests {
    /// Twenty files that all hold "wombat", named so that name order is their number.
    static let wombats = (0..<20).map { doc(String(format: "/r/w%02d.txt", $0), text: "wombat \($0)") }

    @Test("offset and limit count the items that exist: page two starts where page one ended")
    func pagingCountsShownItems() throws {
        let gone: Set = ["/r/w01.txt", "/r/w02.txt", "/r/w05.txt"]
        let f = try PipelineFixture(Self.wombats, gone: gone)
        let first = try f.paths(QueryRequest(text: "wombat", sort: .name, limit: 4))
        let second = try f.paths(QueryRequest(text: "wombat", sort: .name, limit: 4, offset: 4))
        #expect(first == ["/r/w00.txt", "/r/w03.txt", "/r/w04.txt", "/r/w06.txt"])
        #expect(second == ["/r/w07.txt", "/r/w08.txt", "/r/w09.txt", "/r/w10.txt"])
        #expect(Set(first).isDisjoint(with: second))
        #expect(try f.paths(QueryRequest(text: "wombat", sort: .name)).count == 17)
    }

    @Test("more gone than the first fetch holds: it fetches again until the page is full")
    func refetchesPastGoneItems() throws {
        let items = (0..<200).map { doc(String(format: "/r/q%03d.txt", $0), text: "quokka") }
        let gone = Set((0..<150).map { String(format: "/r/q%03d.txt", $0) })
        let f = try PipelineFixture(items, gone: gone)
        let page = try f.paths(QueryRequest(text: "quokka", sort: .name, limit: 5))
        #expect(page == (150..<155).map { String(format: "/r/q%03d.txt", $0) })
    }

    @Test("the largest limit and offset page as all and nothing, without overflow")
    func hugePage() throws {
        let f = try PipelineFixture(Self.wombats)
        #expect(try f.paths(QueryRequest(text: "wombat", limit: Int.max)).count == 20)
        #expect(try f.paths(QueryRequest(text: "wombat", limit: Int.max, offset: Int.max)).isEmpty)
        #expect(try f.paths(QueryRequest(text: "wombat", limit: 3, offset: Int.max)).isEmpty)
    }

    @Test("$time with NaN, an infinity or a huge number is a syntax error, not a trap", arguments: ["NaN", "inf", "-inf", "1e300", "9223372036854775807"])
    func timeArguments(_ n: String) throws {
        #expect(throws: QueryError.self) { try QueryRequest(text: "kMDItemFSSize > $time.this_week(\(n))").makeSpec() }
        #expect(throws: QueryError.self) { try QueryRequest(text: "kMDItemContentModificationDate > $time.today(\(n))").makeSpec() }
    }

    @Test("gone files are never given and are handed to the repair policy; unreadable ones are hidden, not forgotten")
    func goneAndInaccessible() throws {
        let f = try PipelineFixture(Self.wombats, gone: ["/r/w03.txt"], inaccessible: ["/r/w04.txt"])
        let all = try f.paths(QueryRequest(text: "wombat", sort: .name))
        #expect(!all.contains("/r/w03.txt") && !all.contains("/r/w04.txt"))
        #expect(all.count == 18)
        #expect(f.repair.paths == ["/r/w03.txt"])
    }

    @Test("the real check: lstat of a missing file is gone, a file behind an unreadable folder is not", .enabled(if: geteuid() != 0, "root reads through mode 000"))
    func lstatCheck() throws {
        let tree = try TemporaryTree()
        let here = try tree.create("box/a.txt", contents: "x")
        #expect(FileCheck.lstat.state(of: Array(here.string.utf8)) == .exists)
        #expect(FileCheck.lstat.state(of: Array(tree.path("box/missing.txt").string.utf8)) == .gone)
        #expect(FileCheck.lstat.state(of: Array(tree.path("box/a.txt/below").string.utf8)) == .gone)   // ENOTDIR
        try tree.chmod("box", 0)
        defer { try? tree.chmod("box", 0o755) }
        #expect(FileCheck.lstat.state(of: Array(here.string.utf8)) == .inaccessible)
    }

    @Test("items inside a file: once per file for paths (as the file), each with its key for JSON")
    func childDeduplication() throws {
        var items = (1...3).map { n -> SearchableItem in
            var item = doc("/r/inbox.mbox", title: "message \(n)", text: "koala news \(n)")
            item.uniqueIdentifier = ItemIdentifier.child(of: Array("/r/inbox.mbox".utf8), key: "message/\(n)")
            return item
        }
        items.append(doc("/r/notes.txt", text: "koala notes"))
        let f = try PipelineFixture(items)
        let perFile = try f.items(QueryRequest(text: "koala", sort: .name, onePerFile: true))
        #expect(perFile.map { String(decoding: $0.path, as: UTF8.self) } == ["/r/inbox.mbox", "/r/notes.txt"])
        #expect(perFile.allSatisfy { $0.childKey == nil })
        let each = try f.items(QueryRequest(text: "koala", onePerFile: false))
        #expect(Set(each.compactMap(\.childKey)) == ["message/1", "message/2", "message/3"])
        // A child whose file is gone is hidden, but only the file is forgotten (with its children).
        let gone = try PipelineFixture(items, gone: ["/r/inbox.mbox"])
        #expect(try gone.paths(QueryRequest(text: "koala", onePerFile: true)) == ["/r/notes.txt"])
        #expect(gone.repair.paths.isEmpty)
    }

    @Test("fetched attributes are only those asked for; scores are higher-is-better")
    func fetchedAttributes() throws {
        let f = try PipelineFixture([doc("/r/a.txt", title: "Alpha", text: "emu"), doc("/r/emu.txt", text: "emu emu")]
                                    + (0..<8).map { doc("/r/other\($0).txt", text: "no birds here") })   // so that "emu" weighs
        let items = try f.items(QueryRequest(text: "emu", fetchAttributes: [.title]))
        #expect(items.count == 2)
        #expect(items.allSatisfy { $0.attributes.keys.allSatisfy { $0 == .title } })
        #expect(items.first { $0.path == Array("/r/a.txt".utf8) }?.attributes.title == "Alpha")
        #expect(items.allSatisfy { $0.score > 0 })
        #expect(try f.items(QueryRequest(text: "emu")).allSatisfy { $0.attributes.keys.isEmpty })
    }

    @Test("count, table and statistic come as one final reply each")
    func summaries() throws {
        let f = try PipelineFixture(Self.wombats + [doc("/r/p.pdf", text: "wombat", type: .pdf)])
        var replies: [QueryReply] = []
        try f.pipeline.run(QueryRequest(text: "wombat", answer: .count)) { replies.append($0) }
        try f.pipeline.run(QueryRequest(text: "wombat", answer: .table(try GroupKey.parse("kind")))) { replies.append($0) }
        try f.pipeline.run(QueryRequest(text: "", answer: .statistic(try AttributeNames.resolveForCommand("size")))) { replies.append($0) }
        #expect(replies.allSatisfy { $0.isFinal })
        #expect(replies[0].content == .count(21))
        guard case .table(let rows) = replies[1].content else { Issue.record("not a table"); return }
        #expect(rows.map(\.count) == [20, 1])
        guard case .statistic(let key, _) = replies[2].content else { Issue.record("not a statistic"); return }
        #expect(key == .fileSize)
    }

    @Test("group-by and attribute names as people write them; bad ones are clear errors")
    func parsing() throws {
        #expect(try GroupKey.parse("month") == GroupKey(.fsContentChangeDate, period: .month))
        #expect(try GroupKey.parse("modified:week").period == .week)
        #expect(throws: QueryError.self) { try GroupKey.parse("kind:week") }
        #expect(throws: QueryError.self) { try AttributeNames.resolveForCommand("kMDItemPixelWidht") }
        #expect(throws: QueryError.self) { try QueryRequest(text: "  ").makeSpec() }
    }

    @Test("live diff: each change gives + for items that start matching and - for those that stop, once")
    func liveDiff() {
        let a = Array("/r/a".utf8), b = Array("/r/b".utf8), c = Array("/r/c".utf8)
        var diff = LiveDiff()
        diff.start([a, b])
        var (added, removed) = diff.apply(ItemChanges(updated: [b, c]), matchingNow: [c])
        #expect(added == [c] && removed == [b])
        (added, removed) = diff.apply(ItemChanges(updated: [c], removed: [a]), matchingNow: [c])
        #expect(added.isEmpty && removed == [a])   // c already matched: no second +
        (added, removed) = diff.apply(ItemChanges(removed: [a, b]), matchingNow: [])
        #expect(added.isEmpty && removed.isEmpty)   // neither matched any more
        #expect(diff.matching == [c])
    }

    @Test("live: the current items, then a partial reply per change that matters")
    func liveReplies() async throws {
        let f = try PipelineFixture([doc("/r/a.txt", text: "numbat"), doc("/r/b.txt", text: "other")])
        let (changes, feed) = AsyncStream.makeStream(of: ItemChanges.self)
        var replies: [QueryReply] = []
        try await f.pipeline.live(QueryRequest(text: "numbat"), changes: changes) { reply in
            replies.append(reply)
            guard replies.count == 1 else { return }
            // After the current results: b starts matching once the index rewrote it; a is removed.
            try? f.query.store.indexSearchableItems([doc("/r/b.txt", text: "numbat too")])
            _ = try? f.query.store.deleteItems(identifiers: [ItemIdentifier("/r/a.txt")])
            feed.yield(ItemChanges(updated: [Array("/r/b.txt".utf8)], removed: [Array("/r/a.txt".utf8)]))
            feed.yield(ItemChanges(updated: [Array("/r/b.txt".utf8)]))   // no difference: no reply
            feed.finish()
        }
        try #require(replies.count == 2)
        #expect(replies.allSatisfy { !$0.isFinal })
        #expect(replies[0].content == .items([FoundItem(path: Array("/r/a.txt".utf8), score: replies.first.flatMap {
            if case .items(let i) = $0.content { i.first?.score } else { nil } } ?? 0)]))
        guard case .changes(let added, let removed) = replies[1].content else { Issue.record("not a change"); return }
        #expect(added.map(\.path) == [Array("/r/b.txt".utf8)])
        #expect(removed.map(\.path) == [Array("/r/a.txt".utf8)])
    }

    @Test("live: summarized items that match are reported as summarized; others not; one that starts matching is added")
    func liveSummaries() async throws {
        let f = try PipelineFixture([doc("/r/a.txt", text: "numbat"), doc("/r/b.txt", text: "other")])
        let (changes, feed) = AsyncStream.makeStream(of: ItemChanges.self)
        var replies: [QueryReply] = []
        try await f.pipeline.live(QueryRequest(text: "numbat"), changes: changes) { reply in
            replies.append(reply)
            guard replies.count == 1 else { return }
            feed.yield(ItemChanges(summarized: [Array("/r/a.txt".utf8), Array("/r/b.txt".utf8)]))
            feed.yield(ItemChanges(summarized: [Array("/r/b.txt".utf8)]))   // b does not match: nothing
            feed.finish()
        }
        try #require(replies.count == 2)
        #expect(replies[1].content == .summarized([FoundItem(path: Array("/r/a.txt".utf8), score: {
            if case .summarized(let i) = replies[1].content { i.first?.score ?? 0 } else { 0 } }())]))
    }
}
