import Attributes
import Foundation
import GRDB
import IndexTestSupport
import Indexing
@testable import Querying
import TestSupport
import Testing

/// Issue 23: queries without words, newest first, with a limit walk the `items_newest` index
/// (`OrderedWalk`) instead of reading and sorting every match, and name queries are driven by
/// the trigram table; the pages must be those of the full query, and the plans must not scan
/// `items`.
@Suite("Index-driven kind, date and name queries (issue 23)")
struct IndexDrivenQueryTests {
    static let now = Date(timeIntervalSince1970: 1_790_000_000)

    /// 2,000 items of four types; dates spread over two years, a tenth without any (as donated
    /// items often are) and groups with the same date (ties, ordered by path).
    static let fixture: (tree: TemporaryTree, store: IndexStore) = {
        do {
            let tree = try TemporaryTree(prefix: "fsindex-walk")
            let store = try tree.makeIndexStore()
            var items: [SearchableItem] = []
            let types: [ContentType] = [.plainText, ContentType("net.daringfireball.markdown"), ContentType("public.python-script"), .pdf]
            for i in 0..<2000 {
                var a = AttributeSet()
                let type = i % 97 == 0 ? types[3] : types[(i * 7) % 3]
                a[.name] = .string("report \(i % 13) item\(i).\(type == .pdf ? "pdf" : "txt")")
                a.contentType = type
                a.contentTypeTree = type.tree
                a.kind = type.wellKnown?.kind
                if i % 10 != 3 {
                    // Groups of five share a date.
                    a[.fsContentChangeDate] = .date(now.addingTimeInterval(-Double((i * 7919) % 730 / 5 * 5) * 86400))
                }
                items.append(SearchableItem(uniqueIdentifier: ItemIdentifier("/r/d\(i % 9)/f\(i)"), domainIdentifier: "/r", attributes: a))
            }
            try store.indexSearchableItems(items)
            return (tree, store)
        } catch { fatalError("fixture: \(error)") }
    }()

    static func spec(_ query: String, sort: Querying.SortOrder = .relevance, reverse: Bool = false) throws -> QuerySpec {
        let parsed = try ShortQueryParser.parse(query, clock: QueryClock(now: now))
        return QuerySpec(predicate: parsed.predicate, now: now, exactNameHint: parsed.nameHint, includeAttributes: false,
                         sort: sort, reverse: reverse)
    }

    static let queries: [(String, Querying.SortOrder, Bool)] = [
        ("kind:text", .relevance, false), ("kind:public.python-script", .relevance, false), ("kind:pdf", .relevance, false),
        ("kind:public.python-script", .modified, false), ("kind:public.python-script", .relevance, true), ("kind:pdf OR kind:public.python-script", .relevance, false),
        ("-kind:public.python-script", .relevance, false), ("kind:text modified:<200d", .relevance, false),
        ("contentTypeTree:public.text", .relevance, false), ("dir:d3", .modified, true),
        // Words in an OR: no ranking pattern, but the items named so come first (no walk).
        ("report OR item7 kind:text", .relevance, false),
    ]

    @Test("a page of the walk is the full query's page, for several limits and offsets; a rare filter falls back")
    func samePages() throws {
        var engine = QueryEngine(store: Self.fixture.store)
        engine.walk = OrderedWalk.Settings(walks: [(16, 2), (64, 4)])
        var walked = 0, cases = 0
        for (text, sort, reverse) in Self.queries {
            let base = try Self.spec(text, sort: sort, reverse: reverse)
            let full = try engine.run(base).map(\.identifier.description)
            #expect(!full.isEmpty, "\(text)")
            for limit in [1, 5, 20, 64] {
                for offset in [0, 7] {
                    var spec = base
                    spec.limit = limit
                    spec.offset = offset
                    cases += 1
                    let expected = Array(full.dropFirst(offset).prefix(limit))
                    #expect(try engine.run(spec).map(\.identifier.description) == expected, "\(text) --limit \(limit) --offset \(offset)")
                    guard let walk = OrderedWalk(spec, settings: engine.walk) else {
                        #expect(text.contains(" OR item7"), "\(text): the walk should apply")
                        continue
                    }
                    if let rows = try Self.fixture.store.read({ db in
                        QueryFunctions.install(in: db)
                        return try walk.rows(db)
                    }) {
                        walked += 1
                        #expect(rows.map { ItemIdentifier(bytes: Array($0["path"] as Data)).description } == expected, "\(text) walk")
                    }
                }
            }
        }
        #expect(walked > cases / 3, "the walk should answer many of the cases (\(walked) of \(cases))")
        #expect(walked < cases, "some cases (kind:pdf) should need the full query")
    }

    /// SQLite's plan of a statement, one line per step.
    static func plan(_ sql: String, _ arguments: StatementArguments) throws -> [String] {
        try fixture.store.read { db in
            QueryFunctions.install(in: db)
            return try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: arguments).map { $0["detail"] as String }
        }
    }

    @Test("kind: newest first with a limit reads items_newest and looks each item's types up: no scan of items")
    func kindPlan() throws {
        for query in ["kind:public.python-script", "kind:text OR kind:pdf", "kind:text modified:<200d"] {
            var spec = try Self.spec(query)
            spec.limit = 20
            let walk = try #require(OrderedWalk(spec))
            let steps = try Self.plan(walk.sql, walk.arguments(walk: 1024))
            #expect(steps.contains { $0.contains("items USING COVERING INDEX items_newest") }, "\(query): \(steps)")
            #expect(!steps.contains { $0.hasPrefix("SCAN items") && !$0.contains("INDEX items_newest") }, "\(query): \(steps)")
            #expect(!steps.contains { $0.contains("LIST SUBQUERY") }, "\(query): every item of the type listed first: \(steps)")
            // `--explain` shows the walk too.
            let explained = try QueryEngine(store: Self.fixture.store).explain(spec)
            #expect(explained.contains { $0.contains("COVERING INDEX items_newest") }, "\(explained)")
        }
    }

    @Test("name: queries are driven by the trigram table, items read by rowid: no scan of items")
    func namePlan() throws {
        for query in ["name:report", "name:item12 kind:text"] {
            var spec = try Self.spec(query)
            spec.limit = 20
            let (sql, arguments, _) = QueryEngine(store: Self.fixture.store).select(spec)
            let steps = try Self.plan(try #require(sql), arguments)
            #expect(steps.contains { $0.contains("items_names VIRTUAL TABLE") }, "\(query): \(steps)")
            #expect(!steps.contains { $0.hasPrefix("SCAN items") && !$0.contains("VIRTUAL TABLE") }, "\(query): \(steps)")
        }
    }
}
