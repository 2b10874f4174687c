import Attributes
import Foundation
import GRDB
import IndexTestSupport
import Indexing
@testable import Querying
import TestSupport
import Testing

/// Issue 23: `--limit k` of a ranked word query takes its best k from candidates (`TopKRanking`)
/// instead of ranking every match; the answer must be the full ranking's first k, in the same
/// order, ties included.
@Suite("Top-k of a ranked query equals the full ranking's first k (issue 23)")
struct TopKRankingTests {
    static let now = Date(timeIntervalSince1970: 1_790_000_000)
    static let day = 86400.0
    static let markdown = ContentType("net.daringfireball.markdown")

    /// 1,500 items holding the common word "alpha" (some also "beta"), with texts of many
    /// lengths, the word 1-6 times, in the name or title of some, files named exactly "alpha"
    /// (in any case), groups of items equal but for their path (ties), changes from now to six
    /// years ago and recorded uses, so that the recency and usage boosts reorder the bm25 order.
    static let fixture: Fixture = {
        do { return try Fixture() } catch { fatalError("fixture: \(error)") }
    }()

    final class Fixture: Sendable {
        let tree: TemporaryTree
        let store: IndexStore
        let engine: QueryEngine

        init() throws {
            tree = try TemporaryTree(prefix: "fsindex-topk")
            store = try tree.makeIndexStore()
            var items: [SearchableItem] = []
            var uses: [ItemUse] = []
            let filler = ["lorem", "ipsum", "dolor", "sit", "amet", "gamma", "delta", "omega", "kappa", "sigma"]
            for i in 0..<1500 {
                let folder = "/r/d\(i % 5)"
                let name: String
                switch i % 97 {
                case 0: name = ["alpha", "ALPHA", "Alpha"][(i / 97) % 3]
                case 1: name = "alpha.txt"
                case 2: name = "alpha notes \(i).md"
                default: name = "f\(i).txt"
                }
                // Ties: every 50th item has the text, type, dates and uses of the one before it.
                var seedRng = SplitMix64(seed: UInt64(i % 50 == 1 ? i - 1 : i) &+ 0x9E37_79B9_7F4A_7C15)   // the fixture as first generated: one step ahead
                var words: [String] = []
                let length = Int.random(in: 3...400, using: &seedRng)
                for _ in 0..<length { words.append(filler.randomElement(using: &seedRng)!) }
                for _ in 0..<Int.random(in: 1...6, using: &seedRng) { words.insert("alpha", at: Int.random(in: 0...words.count, using: &seedRng)) }
                if Int.random(in: 0..<3, using: &seedRng) == 0 { words.append("beta") }
                var a = AttributeSet()
                a[.name] = .string(name)
                if Int.random(in: 0..<10, using: &seedRng) == 0 { a.title = "alpha report" }
                a.textContent = words.joined(separator: " ")
                let type: ContentType = Int.random(in: 0..<2, using: &seedRng) == 0 ? .plainText : TopKRankingTests.markdown
                a.contentType = type
                a.contentTypeTree = type.tree
                a.kind = type.wellKnown?.kind
                let age = Double.random(in: 0...(6 * 365), using: &seedRng) * TopKRankingTests.day
                a[.fsContentChangeDate] = .date(TopKRankingTests.now.addingTimeInterval(-age))
                let identifier = folder + "/\(i)/" + name
                items.append(SearchableItem(uniqueIdentifier: ItemIdentifier(identifier), domainIdentifier: "/r", attributes: a))
                if Int.random(in: 0..<4, using: &seedRng) == 0 {
                    let unused = Double.random(in: 0...400, using: &seedRng) * TopKRankingTests.day
                    uses.append(ItemUse(identifier: ItemIdentifier(identifier), date: TopKRankingTests.now.addingTimeInterval(-unused)))
                }
            }
            try store.indexSearchableItems(items)
            try store.recordUses(uses)
            engine = QueryEngine(store: store)
        }
    }

    /// The queries: words alone, with a type filter, two words, inside a folder, with other
    /// boosts, and without any.
    static func specs() throws -> [(String, QuerySpec)] {
        let alpha = try #require(SearchPattern(words: ["alpha"]))
        let both = try #require(SearchPattern(words: ["alpha", "beta"]))
        func spec(_ p: ItemPredicate, hint: String, onlyIn: [String] = [], ranking: RankingWeights = RankingWeights()) -> QuerySpec {
            QuerySpec(predicate: p, onlyIn: onlyIn.map { Array($0.utf8) }, now: now, exactNameHint: hint,
                      includeAttributes: false, ranking: ranking)
        }
        return [
            ("alpha", spec(.text(alpha), hint: "alpha")),
            ("alpha kind:markdown", spec(.and([.text(alpha), .conformsTo(markdown)]), hint: "alpha")),
            ("alpha beta", spec(.text(both), hint: "alpha beta")),
            ("alpha --onlyin /r/d2", spec(.text(alpha), hint: "alpha", onlyIn: ["/r/d2"])),
            ("alpha, strong boosts", spec(.text(alpha), hint: "alpha", ranking: RankingWeights(recency: 2, usage: 1.5))),
            ("alpha, no boosts", spec(.text(alpha), hint: "alpha", ranking: RankingWeights(recency: 0, usage: 0))),
            ("alpha, negative recency", spec(.text(alpha), hint: "alpha", ranking: RankingWeights(recency: -0.5, usage: 0.25))),
            // A question's second stage: any of the words, without an exact name, where
            // `fsindex_rank` scores only the rows that can be among the candidates.
            ("any of beta gamma omega alpha", spec(.text(try anyWord(["beta", "gamma", "omega", "alpha"])), hint: "")),
            ("any of beta report notes", spec(.text(try anyWord(["beta", "report", "notes"])), hint: "")),
            ("any of beta sigma, kind:markdown", spec(.and([.text(try anyWord(["beta", "sigma"])), .conformsTo(markdown)]), hint: "")),
        ]
    }

    /// An any-word pattern, as a question's second stage makes (`QueryEngine.anyWordPattern`).
    static func anyWord(_ words: [String]) throws -> SearchPattern {
        let terms = words.compactMap { SearchPattern.Term($0) }
        try #require(terms.count == words.count)
        var pattern = try #require(SearchPattern(groups: terms.map { [$0] }))
        pattern.anyGroup = true
        return pattern
    }

    static let ks = [1, 2, 7, 20, 64, 116]

    /// For each query and k: the full ranking's first k, what `TopKRanking` gave (nil: it could
    /// not prove its answer), and what the engine returns with the limit.
    static func compare(settings: TopKRanking.Settings) throws -> (mismatches: [String], proven: Int, cases: Int) {
        var engine = fixture.engine
        engine.topK = settings
        var mismatches: [String] = []
        var proven = 0, cases = 0
        for (label, base) in try specs() {
            let full = try engine.run(base)
            #expect(full.count > 200, "\(label): the fixture should give many matches")
            for k in ks {
                for offset in [0, 3] {
                    var spec = base
                    spec.limit = k
                    spec.offset = offset
                    cases += 1
                    let expected = full.dropFirst(offset).prefix(k).map { "\($0.identifier) \($0.score)" }
                    let shortcut = try fixture.store.read { db in
                        QueryFunctions.install(in: db)
                        return try TopKRanking(spec, settings: settings)?.rows(db)
                    }
                    if let shortcut {
                        proven += 1
                        let got = shortcut.map { row in "\(ItemIdentifier(bytes: Array(row["path"] as Data))) \(row["score"] as Double)" }
                        if got != expected { mismatches.append("\(label) k=\(k) offset=\(offset): top-k \(got.prefix(3))… full \(expected.prefix(3))…") }
                    }
                    let run = try engine.run(spec).map { "\($0.identifier) \($0.score)" }
                    if run != expected { mismatches.append("\(label) k=\(k) offset=\(offset): run differs") }
                }
            }
        }
        return (mismatches, proven, cases)
    }

    @Test("--limit k gives the full ranking's first k, with few candidates and with the default number")
    func equalsFullRanking() throws {
        // Few candidates: the proof must often fail and fall back, and succeed in other cases.
        let small = try Self.compare(settings: TopKRanking.Settings(candidateFactor: 2, minimumCandidates: 24, largestCeiling: .infinity))
        #expect(small.mismatches.isEmpty, "\(small.mismatches)")
        #expect(small.proven > small.cases / 4, "the shortcut should answer many of the cases (\(small.proven) of \(small.cases))")
        let usual = try Self.compare(settings: TopKRanking.Settings(largestCeiling: .infinity))
        #expect(usual.mismatches.isEmpty, "\(usual.mismatches)")
        #expect(usual.proven > 0)
        // By default the shortcut is tried only where the boosts are small: here, without them.
        let guarded = try Self.compare(settings: TopKRanking.Settings())
        #expect(guarded.mismatches.isEmpty, "\(guarded.mismatches)")
        #expect(guarded.proven > 0 && guarded.proven < guarded.cases)
    }

    @Test("an any-word query's rank leaves out rows that cannot be among the best M, and only those")
    func anyWordTopLeavesOutRows() throws {
        // Most rows hold one of these (beta in a third of the texts, report in a tenth of the
        // titles, notes in a few names), few all three.
        let pattern = try Self.anyWord(["beta", "report", "notes"])
        let sql = "SELECT rowid AS id, \(ResultQuery.rankFunction) AS b FROM \(Schema.ftsTable) WHERE \(Schema.ftsTable) MATCH ? ORDER BY b, id"
        let (all, topped) = try Self.fixture.store.read { db in
            (try Row.fetchAll(db, sql: sql, arguments: [pattern.rankLayout, pattern.fts5]),
             try Row.fetchAll(db, sql: sql, arguments: [pattern.rankLayout(documentCounts: [:], top: 24), pattern.fts5]))
        }
        let scored = topped.filter { ($0["b"] as Double) <= 0 }
        // Some rows were left out (else this tests nothing), the best 24 are the same rows with
        // the same scores, and every row left out scores below the 24th.
        #expect(all.count > 400 && scored.count < all.count / 2, "\(scored.count) of \(all.count) scored")
        let key = { (r: Row) in "\(r["id"] as Int64) \(r["b"] as Double)" }
        #expect(all.prefix(24).map(key) == scored.prefix(24).map(key))
        let scoredIDs = Set(scored.map { $0["id"] as Int64 })
        let twentyFourth: Double = all[23]["b"]
        #expect(all.filter { !scoredIDs.contains($0["id"] as Int64) }.allSatisfy { ($0["b"] as Double) > twentyFourth })
    }

    @Test("with each row's boost, the rows left out are those whose score times their boost cannot be among the best M")
    func anyWordTopWithBoosts() throws {
        let pattern = try Self.anyWord(["beta", "report", "notes"])
        // The worst match by its score alone, and a boost that makes it the best (as a file
        // changed a minute ago may come first): left out on its score, it would be lost.
        let plainSQL = "SELECT rowid AS id, \(ResultQuery.rankFunction) AS b FROM \(Schema.ftsTable) WHERE \(Schema.ftsTable) MATCH ? ORDER BY b DESC, id LIMIT 1"
        let worst: Int64 = try #require(try Self.fixture.store.read { db in
            try Row.fetchOne(db, sql: plainSQL, arguments: [pattern.rankLayout, pattern.fts5]).map { $0["id"] as Int64 }
        })
        let boost = "(CASE rowid WHEN \(worst) THEN 1000.0 ELSE 1.0 + (rowid % 7) / 10.0 END)"
        let sql = """
            SELECT id, b * \(boost) AS score, b FROM (SELECT rowid AS id, fsindex_rank(\(Schema.ftsTable), \(Schema.bm25Weights), ?, \(boost)) AS b,
            rowid FROM \(Schema.ftsTable) WHERE \(Schema.ftsTable) MATCH ?) ORDER BY score, id
            """
        let (all, topped) = try Self.fixture.store.read { db in
            (try Row.fetchAll(db, sql: sql, arguments: [pattern.rankLayout, pattern.fts5]),
             try Row.fetchAll(db, sql: sql, arguments: [pattern.rankLayout(documentCounts: [:], top: 24), pattern.fts5]))
        }
        let scored = topped.filter { ($0["b"] as Double) <= 0 }
        #expect(scored.count < all.count / 2, "\(scored.count) of \(all.count) scored")
        let key = { (r: Row) in "\(r["id"] as Int64) \(r["score"] as Double)" }
        #expect(all.first?["id"] as Int64? == worst)
        #expect(all.prefix(24).map(key) == scored.prefix(24).map(key))
    }

    @Test("a bound that leaves out the boosts loses better rows, and the comparison sees it")
    func brokenBoundIsCaught() throws {
        let broken = try Self.compare(settings: TopKRanking.Settings(candidateFactor: 2, minimumCandidates: 24, largestCeiling: .infinity, boostCeilingOverride: 1))
        #expect(!broken.mismatches.isEmpty, "a wrong bound went unnoticed: the fixture does not exercise the boosts")
    }

    @Test("every item named exactly as the query comes first, whatever its bm25")
    func exactNamesFirst() throws {
        // 20 candidates: the ~15 exact names, then the best by bm25; the 5th is an exact name.
        let settings = TopKRanking.Settings(candidateFactor: 1, minimumCandidates: 20, largestCeiling: .infinity)
        var spec = try #require(Self.specs().first?.1)
        spec.limit = 5
        let rows = try #require(try Self.fixture.store.read { db in
            QueryFunctions.install(in: db)
            return try TopKRanking(spec, settings: settings)?.rows(db)
        })
        let names = rows.map { row in row["name"] as String }
        #expect(names.count == 5 && names.allSatisfy { $0.lowercased() == "alpha" }, "\(names)")
    }
}
