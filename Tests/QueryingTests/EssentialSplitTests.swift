import Attributes
import Foundation
import GRDB
import IndexTestSupport
import Indexing
@testable import Querying
import TestSupport
import Testing

/// Issue 43: a question's second stage walks only the rows holding one of its rarer words when
/// its commoner words alone cannot reach the page (`QueryEngine.runAnyWord`). The page must be
/// the whole any-word query's, row for row and score for score, whether the proof holds at the
/// first try, at the second, or not at all.
@Suite("A question's second stage, narrowed to its rarer words, gives the whole query's page (issue 43)")
struct EssentialSplitTests {
    static let now = Date(timeIntervalSince1970: 1_790_000_000)

    /// 2,400 items: `common` in nine of ten texts, `usual` in six, `middle` in one of five,
    /// `scarce` in one of twenty, `rare` in one of sixty, each 1-5 times in texts of 5-300
    /// words, some in titles; dates over six years, so that the recency boost spreads the
    /// scores. The common words' item counts are stored (`term_docs`), as after a crawl.
    static let fixture = makeFixture()

    /// The index and its engine; the folder lives as long as the tests.
    struct Fixture: Sendable {
        let folder: TemporaryTree
        let engine: QueryEngine
        var store: IndexStore { engine.store }
    }

    static func makeFixture() -> Fixture {
        do {
            let folder = try TemporaryTree(prefix: "fsindex-split")
            let store = try folder.makeIndexStore()
            var rng = SplitMix64(seed: 43)
            let filler = ["lorem", "ipsum", "dolor", "amet", "kappa", "sigma", "theta", "omega"]
            let words: [(String, Int)] = [("common", 900), ("usual", 600), ("middle", 200), ("scarce", 50), ("rare", 17)]
            var items: [SearchableItem] = []
            for i in 0..<2400 {
                var text: [String] = []
                for _ in 0..<Int.random(in: 5...300, using: &rng) { text.append(filler.randomElement(using: &rng)!) }
                for (word, perMille) in words where Int.random(in: 0..<1000, using: &rng) < perMille {
                    for _ in 0..<Int.random(in: 1...5, using: &rng) { text.insert(word, at: Int.random(in: 0...text.count, using: &rng)) }
                }
                var a = AttributeSet()
                a[.name] = .string("f\(i).txt")
                if Int.random(in: 0..<12, using: &rng) == 0 { a.title = words.randomElement(using: &rng)!.0 + " notes" }
                a.textContent = text.joined(separator: " ")
                a.contentType = .plainText
                a.contentTypeTree = ContentType.plainText.tree
                a[.fsContentChangeDate] = .date(EssentialSplitTests.now.addingTimeInterval(-Double.random(in: 0...(6 * 365 * 86400), using: &rng)))
                items.append(SearchableItem(uniqueIdentifier: ItemIdentifier("/s/\(i % 7)/f\(i).txt"), domainIdentifier: "/s", attributes: a))
            }
            try store.indexSearchableItems(items)
            try store.refreshTermStatistics()
            return Fixture(folder: folder, engine: QueryEngine(store: store))
        } catch {
            fatalError("fixture: \(error)")
        }
    }

    static func anyWord(_ words: [String]) throws -> SearchPattern { try TopKRankingTests.anyWord(words) }

    static func spec(_ pattern: SearchPattern, limit: Int, recency: Double = 0.5) -> QuerySpec {
        var spec = QuerySpec(predicate: .text(pattern), now: now, exactNameHint: "", includeAttributes: false,
                             ranking: RankingWeights(recency: recency, usage: 0))
        spec.limit = limit
        return spec
    }

    /// `QueryEngine.essentialSplit` with the fixture's row count and word counts.
    static func split(_ pattern: SearchPattern, largestBoost: Double, below: Double?) throws -> (pattern: SearchPattern, ceiling: Double)? {
        let (rows, counts) = try fixture.store.read { db in
            (try IndexStore.fullTextRowCount(db), try IndexStore.termDocumentCounts(db, pattern.countableTerms))
        }
        return QueryEngine.essentialSplit(pattern, rows: try #require(rows), counts: counts, largestBoost: largestBoost, below: below)
    }

    static let questions = [["rare", "common", "usual"], ["scarce", "middle", "common", "usual"],
                            ["rare", "scarce", "middle", "common"], ["common", "usual", "middle"]]

    @Test("the narrowed page is the whole query's, for every question, limit and boost")
    func samePageAsTheWholeQuery() throws {
        let engine = Self.fixture.engine
        var proven = 0, cases = 0
        for words in Self.questions {
            let pattern = try Self.anyWord(words)
            for limit in [1, 5, 20, 60, 200] {
                for recency in [0.0, 0.5, 3.0] {
                    let spec = Self.spec(pattern, limit: limit, recency: recency)
                    cases += 1
                    let whole = try engine.runAsTyped(spec).map { "\($0.identifier) \($0.score)" }
                    let got = try engine.runAnyWord(spec, pattern, spec: spec).map { "\($0.identifier) \($0.score)" }
                    #expect(got == whole, "\(words) --limit \(limit), recency \(recency)")
                    // Whether the first narrowed query proved its page (as `runAnyWord` tests it).
                    let bound = try Self.fixture.store.read { db in try ResultQuery.largestBoost(spec, db) }
                    let largest = try #require(bound)
                    if let split = try Self.split(pattern, largestBoost: largest, below: nil) {
                        var narrowed = spec
                        narrowed.predicate = .text(split.pattern)
                        let page = try engine.runAsTyped(narrowed)
                        if page.count == limit, let last = page.last, split.ceiling * largest * (1 + 1e-9) < -last.score { proven += 1 }
                    }
                }
            }
        }
        // Else this tests little: many pages are proven at the first narrowed query, not all.
        #expect(proven > cases / 4 && proven < cases, "\(proven) of \(cases) proven at once")
    }

    @Test("without the proof, the narrowed page would lose rows of the commoner words only: the proof is needed")
    func theProofMatters() throws {
        let engine = Self.fixture.engine
        var lost = 0
        for words in Self.questions {
            let pattern = try Self.anyWord(words)
            for limit in [20, 200] {
                let spec = Self.spec(pattern, limit: limit)
                // The narrowest split the words allow: every word with a stored count left out.
                guard let split = try Self.split(pattern, largestBoost: 1, below: .infinity) else { continue }
                var narrowed = spec
                narrowed.predicate = .text(split.pattern)
                let page = try engine.runAsTyped(narrowed).map(\.identifier)
                if page != (try engine.runAsTyped(spec).map(\.identifier)) { lost += 1 }
            }
        }
        #expect(lost > 0)
    }

    @Test("a row holding a required word scores as in the whole pattern; the others are not matched")
    func requiredWordsOnlyNarrow() throws {
        let whole = try Self.anyWord(["rare", "middle", "common"])
        var narrowed = whole
        narrowed.requiredGroups = [0, 1]
        let sql = "SELECT rowid AS id, \(ResultQuery.rankFunction) AS b FROM \(Schema.ftsTable) WHERE \(Schema.ftsTable) MATCH ? ORDER BY id"
        let (all, some, filter) = try Self.fixture.store.read { db in
            let counts = try IndexStore.termDocumentCounts(db, whole.countableTerms)
            #expect(counts["common"] != nil && counts["middle"] != nil, "the fixture's common words are counted")
            return (try Row.fetchAll(db, sql: sql, arguments: [whole.rankLayout(documentCounts: counts), whole.fts5]),
                    try Row.fetchAll(db, sql: sql, arguments: [narrowed.rankLayout(documentCounts: counts), narrowed.fts5]),
                    Set(try Int64.fetchAll(db, sql: "SELECT rowid FROM \(Schema.ftsTable) WHERE \(Schema.ftsTable) MATCH 'rare OR middle'")))
        }
        let key = { (r: Row) in "\(r["id"] as Int64) \(r["b"] as Double)" }
        #expect(some.count == filter.count && some.count < all.count / 2, "\(some.count) of \(all.count)")
        #expect(some.map(key) == all.filter { filter.contains($0["id"]) }.map(key))
    }

    @Test("the required words come first in the FTS5 text, and the rank layout skips their phrases")
    func patternText() throws {
        var pattern = try Self.anyWord(["read_line", "file", "text"])
        #expect(pattern.fts5 == "(\"read_line\" OR \"read line\") OR \"file\" OR \"text\"")
        pattern.requiredGroups = [0, 2]
        #expect(pattern.fts5 == "((\"read_line\" OR \"read line\") OR \"text\") AND ((\"read_line\" OR \"read line\") OR \"file\" OR \"text\")")
        // An identifier is two phrases, the whole and its parts: three phrases skipped.
        #expect(pattern.rankLayout(documentCounts: ["file": 9], top: 5) == "coord top 5 skip 3 0:2 0:2 1:1:9 2:1")
        // Not an any-word pattern: nothing is required.
        pattern.anyGroup = false
        #expect(!pattern.fts5.contains("AND ((") && !pattern.rankLayout.contains("skip"))
    }

    @Test("the full-text row count is FTS5's own")
    func rowCount() throws {
        let (stored, counted) = try Self.fixture.store.read { db in
            (try IndexStore.fullTextRowCount(db), try Int.fetchOne(db, sql: "SELECT count(*) FROM \(Schema.ftsTable)"))
        }
        #expect(stored == 2400 && counted == 2400)
    }
}
