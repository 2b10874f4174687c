import Attributes
import Foundation
import Indexing
@testable import Querying
import TestSupport
import Testing

/// The home index and the volumes' indexes as one ranked answer (issue 29).
@Suite("MergedBackend: several indexes, one ranked answer, offline volumes")
struct MergedBackendTests {
    /// A home index and a volume's index, both holding "lynx" at different strengths.
    struct Fixture {
        let home: QueryFixture
        let volume: QueryFixture

        init() throws {
            home = try QueryFixture([
                doc("/home/ada/a.txt", text: "lynx among many other words of a long note about cats and dogs"),
                doc("/home/ada/b.txt", text: "lynx lynx lynx"),
                doc("/home/ada/c.txt", text: "nothing here"),
                doc("/home/ada/zeta.txt", text: "lynx once more in a middling text"),
            ])
            volume = try QueryFixture([
                doc("/run/media/ada/DISK/d.txt", text: "lynx lynx"),
                doc("/run/media/ada/DISK/e.txt", text: "lynx in a very long text with many many words so that it ranks low among them all"),
                doc("/run/media/ada/DISK/alpha.txt", text: "unrelated"),
            ])
        }

        func merged(offline: Bool = false) -> MergedBackend {
            MergedBackend(parts: [.init(backend: home.engine, origin: nil),
                                  .init(backend: volume.engine, origin: ResultOrigin(volume: "DISK", offline: offline))])
        }

        func spec(_ words: [String], limit: Int? = nil, offset: Int = 0, sort: Querying.SortOrder = .relevance) throws -> QuerySpec {
            QuerySpec(predicate: .text(try #require(SearchPattern(words: words))), limit: limit, offset: offset, sort: sort)
        }
    }

    @Test("results of both indexes in one list, ordered by score as each index scored them; the volume's are tagged")
    func rankedMerge() throws {
        let f = try Fixture()
        let spec = try f.spec(["lynx"])
        let each = try f.home.engine.run(spec) + f.volume.engine.run(spec)
        let merged = try f.merged().run(spec)
        #expect(merged.count == 5)
        #expect(merged.map(\.identifier.description) == each.sorted { $0.score < $1.score }.map(\.identifier.description))
        // Both indexes take part at the top: the order is not one index after the other.
        let homeFirst = merged.map { $0.origin == nil }
        #expect(homeFirst != homeFirst.sorted { $0 && !$1 })
        #expect(merged.filter { $0.origin?.volume == "DISK" }.map(\.identifier.description).sorted()
            == ["/run/media/ada/DISK/d.txt", "/run/media/ada/DISK/e.txt"])
    }

    @Test("pages of the merged list: offset and limit count over the whole, not per index")
    func paging() throws {
        let f = try Fixture()
        let all = try f.merged().run(try f.spec(["lynx"])).map(\.identifier.description)
        let first = try f.merged().run(try f.spec(["lynx"], limit: 2)).map(\.identifier.description)
        let second = try f.merged().run(try f.spec(["lynx"], limit: 2, offset: 2)).map(\.identifier.description)
        let third = try f.merged().run(try f.spec(["lynx"], limit: 5, offset: 4)).map(\.identifier.description)
        #expect(first + second + third == all)
        #expect(first.count == 2 && second.count == 2 && third.count == 1)
    }

    @Test("name order merges by name; counts and tables add up")
    func otherOrdersAndAnswers() throws {
        let f = try Fixture()
        let names = try f.merged().run(try f.spec(["lynx"], sort: .name)).map { $0.identifier.description.split(separator: "/").last.map(String.init) ?? "" }
        #expect(names == ["a.txt", "b.txt", "d.txt", "e.txt", "zeta.txt"])
        #expect(try f.merged().count(try f.spec(["lynx"]), keep: nil) == 5)
        let rows = try f.merged().groupCounts(try f.spec(["lynx"]), by: try GroupKey.parse("kind"), keep: nil)
        #expect(rows.reduce(0) { $0 + $1.count } == 5)
    }

    @Test("an offline volume's items are shown marked, never looked at on disk nor forgotten; a mounted volume's gone file is hidden")
    func offlineItems() throws {
        let f = try Fixture()
        let repair = RecordingRepair()
        // Nothing under the volume's mount point exists now (it is unplugged).
        let check = FileCheck { path in String(decoding: path, as: UTF8.self).hasPrefix("/run/media/") ? .gone : .exists }
        let offline = QueryPipeline(engine: f.merged(offline: true), fileCheck: check, repair: repair)
        var items: [FoundItem] = []
        try offline.run(QueryRequest(text: "lynx")) { if case .items(let i) = $0.content { items = i } }
        #expect(items.count == 5)
        #expect(items.filter { $0.origin == ResultOrigin(volume: "DISK", offline: true) }.count == 2)
        #expect(repair.paths.isEmpty)
        var count = 0
        try offline.run(QueryRequest(text: "lynx", answer: .count)) { if case .count(let n) = $0.content { count = n } }
        #expect(count == 5)
        #expect(repair.paths.isEmpty)

        let mounted = QueryPipeline(engine: f.merged(offline: false), fileCheck: check, repair: repair)
        try mounted.run(QueryRequest(text: "lynx")) { if case .items(let i) = $0.content { items = i } }
        #expect(items.count == 3 && items.allSatisfy { $0.origin == nil })
    }

    @Test("snippets come from the index that holds each result")
    func snippetsPerPart() throws {
        let f = try Fixture()
        let merged = f.merged()
        let spec = try f.spec(["lynx"])
        let results = try merged.run(spec)
        let snippets = try merged.snippets(spec, rowIDs: results.map(\.rowID))
        #expect(snippets.count == results.count)
        let e = try #require(results.first { $0.identifier.description.hasSuffix("e.txt") })
        #expect(snippets[e.rowID]?.contains("very long text") == true)
    }
}
