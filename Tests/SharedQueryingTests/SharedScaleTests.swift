import Attributes
import Foundation
import IndexTestSupport
import Indexing
import Querying
@testable import SharedQuerying
import SharedIndex
import TestSupport
import Testing

/// The shared index's word ranking from the RUM index (issue 29, v3-scale): the page it gives
/// equals the first rows of the full ranking, a server without RUM answers the same, and a
/// database an older fsindex made is upgraded in place.
@Suite("Shared index at scale (issue 29)", .blocking, .postgres)
struct SharedScaleTests {
    static let rumAvailable = ThrowawayPostgres.rumAvailable
    static let rumReason = ThrowawayPostgres.rumReason

    static let now = Date()

    /// 3,000 items: every 9th named `budget-…`, every 13th titled with the word, every 7th with
    /// it as a keyword, the word 0–4 times in the text; half changed in the last days, so the
    /// recency boost reorders them; every 11th used lately.
    static func items() -> [SearchableItem] {
        (0..<3000).map { i in
            let name = (i % 9 == 0 ? "budget-\(i)" : "item\(i)") + (i % 5 == 0 ? ".py" : ".txt")
            var a = AttributeSet()
            a[.name] = .string(name)
            a.title = i % 13 == 0 ? "Budget plan \(i)" : "Plan \(i)"
            a[.keywords] = .strings(i % 7 == 0 ? ["budget", "finance"] : ["finance"])
            a.textContent = (["alpha beta"] + Array(repeating: "the budget line", count: i % 5) + ["gamma \(i) delta"]).joined(separator: " ")
            a.contentType = i % 5 == 0 ? ContentType(rawValue: "public.python-script") : .plainText
            let days = i % 2 == 0 ? Double(i % 17) : Double(300 + i % 400)
            a[.fsContentChangeDate] = .date(now.addingTimeInterval(-days * 86_400 - Double(i)))
            if i % 11 == 0 { a[.lastUsedDate] = .date(now.addingTimeInterval(-Double(i % 40) * 86_400)) }
            return SearchableItem(uniqueIdentifier: ItemIdentifier("/scale/d\(i % 2)/dir\(i / 100)/\(name)"),
                                  domainIdentifier: "d\(i % 2)", attributes: a)
        }
    }

    /// A local index of `items()` and the SQLite engine over it.
    static func local(_ tree: TemporaryTree) throws -> (IndexStore, QueryEngine) {
        let store = try tree.makeIndexStore()
        try store.indexSearchableItems(items())
        return (store, QueryEngine(store: store))
    }

    static func publish(_ store: IndexStore, _ url: String) throws -> SharedQueryEngine {
        let u = try SharedIndexURL(url)
        let publisher = SharedPublisher(store: store, url: u, host: "scale")
        _ = try publisher.publishAll()
        publisher.disconnect()
        return try SharedQueryEngine(url: u)
    }

    static func spec(_ query: String, limit: Int?, offset: Int = 0, sort: Querying.SortOrder = .relevance) throws -> QuerySpec {
        let parsed = try ShortQueryParser.parse(query)
        var s = QuerySpec(predicate: parsed.predicate, now: now, exactNameHint: parsed.nameHint)
        s.limit = limit
        s.offset = offset
        s.sort = sort
        return s
    }

    /// Words in names, titles and keywords (proven from the RUM index), a word every item has
    /// once as a keyword (equal scores: the boosts decide, beyond what the candidates prove), a
    /// column (residual on PostgreSQL), a word with a condition.
    static let words = ["budget", "budg", "finance", "title:budget", "budget kind:public.python-script"]
    static let proven: Set<String> = ["budget", "budg"]

    @Test("a ranked word query's page from the RUM index equals the first rows of the full ranking (offsets, boosts, an exact name), and SQLite finds the same matches",
          .enabled(if: rumAvailable, rumReason))
    func topKEqualsFullRanking() throws {
        let pg = try ThrowawayPostgres.shared()
        let tree = try TemporaryTree(prefix: "fsindex-scale-topk")
        let (store, sqlite) = try Self.local(tree)
        let engine = try Self.publish(store, try pg.makeDatabase())
        #expect(engine.features.rankedWords, "the migration made no RUM index")
        // RUM's score of every match is our ts_rank, word or prefix: the proof's ratio is 1.
        #expect(SharedWordRanking.weightRatio == 1)
        let weights = "'{" + SharedQueryEngine.rankWeights.map { String($0) }.joined(separator: ", ") + "}'"
        for q in ["'budget'", "'budg':*", "'finance'", "'line'"] {
            let rows = try engine.query("SELECT count(*)::int8 AS n, count(*) FILTER (WHERE abs(1 / (words <=> $1::tsquery) - ts_rank(\(weights), words, $1::tsquery)) > 1e-6)::int8 AS off FROM items WHERE words @@ $1::tsquery",
                                        [.text(q)], nil)
            let n = rows.first?.value("n", as: Int64.self), off = rows.first?.value("off", as: Int64.self)
            #expect((n ?? 0) > 0 && off == 0, "\(q): RUM's score differs from ts_rank in \(off ?? -1) of \(n ?? 0) matches")
        }
        for words in Self.words + ["budget-18.txt"] {
            let all = try engine.run(try Self.spec(words, limit: nil)).map(\.identifier.description)
            let local = try sqlite.run(try Self.spec(words, limit: nil)).map(\.identifier.description)
            #expect(Set(all) == Set(local) && all.count == local.count, "\(words): PostgreSQL \(all.count), SQLite \(local.count)")
            #expect(all.count > (words.contains(".txt") ? 0 : 3), "\(words)")
            for (limit, offset) in [(1, 0), (20, 0), (20, 40), (100, 7)] {
                let page = try Self.spec(words, limit: limit, offset: offset)
                if Self.proven.contains(words) {
                    #expect(try engine.rankedWords(page) != nil, "\(words) \(limit)+\(offset): not answered from the RUM index")
                }
                let got = try engine.run(page).map(\.identifier.description)
                #expect(got == Array(all.dropFirst(offset).prefix(limit)),
                        "\(words) \(limit)+\(offset): \(got.prefix(4)) … instead of \(all.dropFirst(offset).prefix(4)) …")
            }
        }
        // An exact name comes first, from the trigram index, whatever its score.
        #expect(try engine.run(try Self.spec("budget-18.txt", limit: 1)).first?.identifier.description == "/scale/d0/dir0/budget-18.txt")
    }

    @Test("the proof refuses a page it cannot prove: a bound made too small by hand would lose rows, and the page is then ranked in full",
          .enabled(if: rumAvailable, rumReason))
    func proofHoldsOrFallsBack() throws {
        // One word of the text only (no column above D): RUM's score and ts_rank agree, and
        // boosts of recent files spread the scores past the candidates' reach for a page deep
        // enough; the answer must still be the full ranking's.
        let pg = try ThrowawayPostgres.shared()
        let tree = try TemporaryTree(prefix: "fsindex-scale-proof")
        let (store, _) = try Self.local(tree)
        let engine = try Self.publish(store, try pg.makeDatabase())
        let all = try engine.run(try Self.spec("line", limit: nil)).map(\.identifier.description)
        let page = try Self.spec("line", limit: 150, offset: 0)
        let got = try engine.run(page).map(\.identifier.description)
        #expect(got == Array(all.prefix(150)))
        // The candidates alone (200 by RUM's score), without the proof, are not that page.
        let p = try #require(engine.parts(page))
        let (sql, values) = try #require(SharedWordRanking.statement(p, candidates: 200, wanted: 150, hint: nil))
        let unproven = try engine.query(sql, values, page).map { ItemIdentifier(bytes: $0.bytes("path") ?? []).description }
        #expect(unproven != got, "the test's words do not need the proof")
        #expect(SharedWordRanking(page)!.proven(try engine.query(sql, values, page), candidates: 200) == nil)
    }

    @Test("without RUM (a database owner that may not create the extension) the GIN index stays and the answers are the same, in the same order")
    func fallbackWithoutRUM() throws {
        let pg = try ThrowawayPostgres.shared()
        let db = try pg.makeDatabaseNamed()
        // Peer authentication gives this process the role of its OS user's name, no superuser.
        let me = String(cString: getpwuid(geteuid()).pointee.pw_name)
        try? pg.psql("postgres", "CREATE ROLE \"\(me)\" LOGIN")
        try pg.psql("postgres", "ALTER DATABASE \(db) OWNER TO \"\(me)\"")
        try pg.psql(db, "ALTER SCHEMA public OWNER TO \"\(me)\"")
        let tree = try TemporaryTree(prefix: "fsindex-scale-norum")
        let (store, sqlite) = try Self.local(tree)
        let plain = try Self.publish(store, pg.url(database: db, user: me))
        #expect(!plain.features.rankedWords)
        let indexes = try pg.psql(db, "SELECT string_agg(indexname, ',') FROM pg_indexes WHERE tablename = 'items'")
        #expect(indexes.contains("items_words") && !indexes.contains("items_words_rum"), "\(indexes)")
        #expect(try plain.explain(try Self.spec("budget", limit: 20)).contains { $0.contains("every match is read and ranked") })
        let ranked = Self.rumAvailable ? try Self.publish(store, try pg.makeDatabase()) : nil
        for words in Self.words {
            for limit in [nil, 20] as [Int?] {
                let spec = try Self.spec(words, limit: limit)
                let got = try plain.run(spec).map(\.identifier.description)
                #expect(try plain.rankedWords(spec) == nil)
                if limit == nil { #expect(got.count == (try sqlite.run(spec).count), "\(words)") }
                if let ranked { #expect(got == (try ranked.run(spec).map(\.identifier.description)), "\(words) \(String(describing: limit))") }
            }
        }
    }

    /// Names of every length band (under 12, 12–15, 16–23, 24 and more), many holding `report`.
    static func namedItems() -> [SearchableItem] {
        let stems = ["report", "Report", "xreportx", "quarterly-report", "the-annual-report-of-the-board", "notes", "rep", "REPORT"]
        return (0..<1200).map { i in
            let stem = stems[i % stems.count]
            let name = i % 97 == 0 ? "report" : "\(stem)-\(i).\(["txt", "md", "pdf"][i % 3])"
            var a = AttributeSet()
            a[.name] = .string(name)
            a.textContent = "body \(i)"
            return SearchableItem(uniqueIdentifier: ItemIdentifier("/names/d\(i % 4)/\(i)/\(name)"), domainIdentifier: "n", attributes: a)
        }
    }

    @Test("--name PART with a limit, from the length bands' trigram indexes in turn, gives the first rows of the full order at every page (an exact name first, offsets across bands), as SQLite matches")
    func namePagesFromBands() throws {
        let pg = try ThrowawayPostgres.shared()
        let tree = try TemporaryTree(prefix: "fsindex-scale-names")
        let store = try tree.makeIndexStore()
        try store.indexSearchableItems(Self.namedItems())
        let sqlite = QueryEngine(store: store)
        let db = try pg.makeDatabaseNamed()
        let engine = try Self.publish(store, pg.url(database: db))
        func spec(_ part: String, limit: Int?, offset: Int = 0) -> QuerySpec {
            var s = QuerySpec(predicate: .nameContains(part), limit: limit, now: Self.now, exactNameHint: part)
            s.offset = offset
            s.sort = .relevance
            return s
        }
        for part in ["report", "REPORT", "annual-report", "rep", "e-b", "zzz-nothing"] {
            let all = try engine.run(spec(part, limit: nil)).map(\.identifier.description)
            let local = try sqlite.run(spec(part, limit: nil)).map(\.identifier.description)
            #expect(Set(all) == Set(local) && all.count == local.count, "\(part): PostgreSQL \(all.count), SQLite \(local.count)")
            #expect((engine.namePageStatements(spec(part, limit: 20)) != nil) == SharedNamePage.hasTrigram(part), "\(part)")
            for (limit, offset) in [(1, 0), (20, 0), (50, 140), (300, 10), (5, all.count - 2)] where offset >= 0 {
                let got = try engine.run(spec(part, limit: limit, offset: offset)).map(\.identifier.description)
                #expect(got == Array(all.dropFirst(offset).prefix(limit)),
                        "\(part) \(limit)+\(offset): \(got.prefix(3)) … instead of \(all.dropFirst(offset).prefix(3)) …")
            }
        }
        // The exact name comes first; then the shortest names, each band before the next.
        let first = try engine.run(spec("report", limit: 1000)).map(\.identifier.description)
        #expect(first.first?.hasSuffix("/report") == true, "\(first.prefix(2))")
        let lengths = first.map { $0.split(separator: "/").last!.count }
        #expect(lengths.dropFirst() == lengths.dropFirst().sorted()[...], "not shortest first: \(lengths)")
        #expect(lengths.contains { $0 >= 24 } && lengths.contains { $0 < 12 }, "the page does not cross the bands: \(lengths)")
        // The page is read from the bands' indexes: the first band's index is scanned. (The
        // server reports an idle session's statistics within 10 s, PostgreSQL 15's
        // PGSTAT_IDLE_INTERVAL.)
        let scans = "SELECT coalesce(sum(idx_scan), 0) FROM pg_stat_user_indexes WHERE indexrelname = 'items_name_trgm_12'"
        let before = Int(try pg.psql(db, scans).trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
        _ = try engine.run(spec("report", limit: 20))
        var after = before
        _ = try eventually(15, every: .milliseconds(100)) {
            after = Int(try pg.psql(db, scans).trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
            return after > before
        }
        #expect(after > before, "items_name_trgm_12 was not scanned: \(before) → \(after)")
        // The plan names the bands' indexes.
        let plan = try engine.explain(spec("report", limit: 20))
        #expect(plan.contains { $0.contains("items_name_trgm_12, items_name_trgm_16, items_name_trgm_24, items_name_trgm") }
                && !plan.contains { $0.contains("along items_name_length") }, "\(plan)")
        #expect(try engine.explain(spec("e-b", limit: 20)).contains { $0.contains("along items_name_length") })
        #expect(SharedNamePage.hasTrigram("a1b") && !SharedNamePage.hasTrigram("ab") && !SharedNamePage.hasTrigram("a-b-c") && !SharedNamePage.hasTrigram("é日本"))
    }

    @Test("a database of schema v2 is upgraded to v3-scale in place: its rows stay and are found by word and by name, and the new indexes are made")
    func upgradeFromV2() throws {
        let pg = try ThrowawayPostgres.shared()
        let db = try pg.makeDatabaseNamed()
        let url = pg.url(database: db)
        let link = try PostgresLink.connect(try SharedIndexURL(url))
        try SharedSchema.migrate(link, through: "v2-failures")
        link.close()
        try pg.psql(db, """
            INSERT INTO hosts(host, first_seen) VALUES ('old', 0);
            INSERT INTO items(host, path, domain, name, attributes, types, words, version)
            SELECT 'old', convert_to('/old/file' || i || '.txt', 'UTF8'), 'd', 'file' || i || '.txt', '{}', '{public.plain-text}',
                   ('''file' || i || ''':1A ''oldword'':70D')::tsvector, 'v' FROM generate_series(1, 500) AS i
            """)
        #expect(!(try pg.psql(db, "SELECT string_agg(id, ',') FROM fsindex_migrations").contains("v3-scale")))
        // A watcher of this version connects: the migration runs.
        let tree = try TemporaryTree(prefix: "fsindex-scale-upgrade")
        let store = try tree.makeIndexStore()
        var a = AttributeSet()
        a[.name] = .string("one.txt")
        a.textContent = "oldword too"
        try store.indexSearchableItems([SearchableItem(uniqueIdentifier: ItemIdentifier("/new/one.txt"), domainIdentifier: "n", attributes: a)])
        let engine = try Self.publish(store, url)
        #expect(try pg.psql(db, "SELECT string_agg(id, ',') FROM fsindex_migrations").contains("v3-scale"))
        #expect(try pg.psql(db, "SELECT count(*) FROM items WHERE host = 'old'").trimmingCharacters(in: .whitespacesAndNewlines) == "500")
        let indexes = try pg.psql(db, "SELECT string_agg(indexname, ',') FROM pg_indexes WHERE tablename = 'items'")
        for name in ["items_name_length", "items_name_trgm_12", "items_name_trgm_16", "items_name_trgm_24", "items_modified_path", "items_used", Self.rumAvailable ? "items_words_rum" : "items_words"] {
            #expect(indexes.contains(name), "\(indexes)")
        }
        #expect(try engine.count(try Self.spec("oldword", limit: nil), keep: nil) == 501)
        var byName = QuerySpec(predicate: .nameContains("file1"), limit: 2, now: Self.now, exactNameHint: "file1")
        byName.sort = .relevance
        #expect(try engine.run(byName).map(\.identifier.description) == ["/old/file1.txt", "/old/file10.txt"])
        #expect(try engine.run(try Self.spec("oldword", limit: 3)).count == 3)
    }
}
