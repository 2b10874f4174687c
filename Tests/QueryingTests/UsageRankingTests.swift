import Attributes
import Foundation
import Indexing
import Querying
import TestSupport
import Testing

@Suite("Ranking and sorting by recorded uses (issue 13)")
struct UsageRankingTests {
    static let now = Date(timeIntervalSince1970: 1_790_000_000)
    static let files = ["/r/a.txt", "/r/b.txt", "/r/c.txt"].map { doc($0, text: "quarterly budget figures") }

    func order(_ f: QueryFixture, _ ranking: RankingWeights = RankingWeights(recency: 0, usage: 1), sort: Querying.SortOrder = .relevance,
               reverse: Bool = false) throws -> [String] {
        let p = try ShortQueryParser.parse("budget", clock: QueryClock(now: Self.now))
        return try f.engine.run(QuerySpec(predicate: p.predicate, now: Self.now, sort: sort, reverse: reverse, ranking: ranking))
            .map(\.identifier.description)
    }

    @Test("the usage boost reads recorded uses; an item never used gets none")
    func boost() throws {
        let f = try QueryFixture(Self.files)
        #expect(try order(f) == ["/r/a.txt", "/r/b.txt", "/r/c.txt"])
        try f.store.recordUses([ItemUse(identifier: ItemIdentifier("/r/c.txt"), date: Self.now.addingTimeInterval(-86400))])
        try f.store.recordUses([ItemUse(identifier: ItemIdentifier("/r/b.txt"), date: Self.now.addingTimeInterval(-200 * 86400))])
        #expect(try order(f) == ["/r/c.txt", "/r/b.txt", "/r/a.txt"])
        #expect(try order(f, RankingWeights(recency: 0, usage: 0)) == ["/r/a.txt", "/r/b.txt", "/r/c.txt"])
    }

    @Test("--sort used: the most recent use first, never used last; reversed, the other way")
    func sortUsed() throws {
        let f = try QueryFixture(Self.files)
        try f.store.recordUses([ItemUse(identifier: ItemIdentifier("/r/b.txt"), date: Self.now.addingTimeInterval(-10))])
        try f.store.recordUses([ItemUse(identifier: ItemIdentifier("/r/c.txt"), date: Self.now.addingTimeInterval(-20))])
        #expect(try order(f, sort: .used) == ["/r/b.txt", "/r/c.txt", "/r/a.txt"])
        #expect(try order(f, sort: .used, reverse: true) == ["/r/a.txt", "/r/c.txt", "/r/b.txt"])
    }

    @Test("fetched attributes carry the recorded use (what the MCP usage_boost stage reads)")
    func fetched() throws {
        let f = try PipelineFixture(Self.files)
        let when = Self.now.addingTimeInterval(-3600)
        try f.query.store.recordUses([ItemUse(identifier: ItemIdentifier("/r/b.txt"), date: when, count: 2)])
        let items = try f.items(QueryRequest(text: "budget", sort: .name, fetchAttributes: [.lastUsedDate, .useCount], now: Self.now))
        #expect(items.map { $0.attributes.date(.lastUsedDate) } == [nil, when, nil])
        #expect(items.map { $0.attributes.integer(.useCount) } == [nil, 2, nil])
    }
}
