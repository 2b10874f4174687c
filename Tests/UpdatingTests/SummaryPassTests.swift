import Attributes
import Foundation
import GRDB
import IndexTestSupport
import Indexing
import Querying
import Summarizing
import SystemPackage
import TestSupport
import Testing
@testable import Updating

@Suite("Summary pass")
struct SummaryPassTests {
    func summary(_ f: CrawlFixture, _ relative: String) throws -> String? {
        try f.store.item(ItemIdentifier(bytes: Array(f.root.appending(relative).string.utf8)))?.attributes.string(.textContentSummary)
    }

    @Test("a crawled long text is written with its summary (the worker's, the summarizer's own), nothing left for the pass; a short one none; a new version another, the old one gone")
    func crawlThenPass() throws {
        let f = try CrawlFixture()
        try f.tree.create("root/owls.txt", contents: SummaryTexts.owls)
        try f.tree.create("root/short.txt", contents: "Too short for a summary.")
        let crawled = try f.crawl()
        #expect(crawled.summarized == 1)
        #expect(try summary(f, "owls.txt") != nil, "made during extraction")
        #expect(try f.store.pendingSummaryCount() == 0)

        let report = try SummaryPass(store: f.store).runAll()
        #expect(report.summarized == 0 && report.examined == 0, "nothing is left to the pass")
        let first = try #require(try summary(f, "owls.txt"))
        #expect(first == ExtractiveSummarizer().summary(of: SummaryTexts.owls))
        #expect(first.contains("owl") || first.contains("Owl"))
        #expect(try summary(f, "short.txt") == nil)
        #expect(try f.store.pendingSummaryCount() == 0)
        // Other attributes are kept, and the text is still there.
        let item = try #require(try f.store.item(ItemIdentifier(bytes: Array(f.root.appending("owls.txt").string.utf8))))
        #expect(item.attributes.textContent?.contains("pellets") == true)
        #expect(item.attributes.kind != nil)
        #expect(item.attributes.fileSize != nil)

        // A new version: its own summary at once, the stale one gone.
        try f.tree.create("root/owls.txt", contents: SummaryTexts.volcanoes)
        _ = try f.crawl()
        #expect(try f.store.pendingSummaryCount() == 0)
        let second = try #require(try summary(f, "owls.txt"))
        #expect(second != first)
        #expect(second.contains("olcano"))
    }

    @Test("the summary is searchable, in the full-text `other` column (weighted like subject)")
    func searchable() throws {
        let f = try CrawlFixture()
        try f.tree.create("root/owls.txt", contents: SummaryTexts.owls)
        _ = try f.crawl()
        _ = try SummaryPass(store: f.store).runAll()
        let other = try f.store.read { db in
            try String.fetchOne(db, sql: "SELECT other FROM items_fts WHERE rowid = (SELECT id FROM items WHERE name = 'owls.txt')")
        }
        #expect(other?.contains("pellets") == true || other?.contains("Owls hunt") == true, "\(other ?? "nil")")
        // A query on the attribute itself, through the short name.
        let spec = try QueryRequest(text: "summary:owl*").makeSpec()
        #expect(try QueryEngine(store: f.store).run(spec).count == 1)
    }

    @Test("an item written again while its summary was made is left alone, and stays pending")
    func rewrittenMeanwhile() throws {
        let t = try TemporaryTree(prefix: "fsindex-summary")
        let store = try t.makeIndexStore()
        let id = ItemIdentifier("/d/owls.txt")
        var a = AttributeSet()
        a.textContent = SummaryTexts.owls
        a[.subject] = .string("birds of prey")
        try store.indexSearchableItems([SearchableItem(uniqueIdentifier: id, domainIdentifier: "/d", attributes: a)])
        let pending = try store.pendingSummaries(limit: 10)
        try #require(pending.count == 1)
        // Rewritten (a new version of the file) after its text was read.
        // An item's version is its write's time: the second write comes a moment later.
        let firstWrite = Date()
        #expect(eventually { Date().timeIntervalSince(firstWrite) > 0.002 })
        a.textContent = SummaryTexts.volcanoes
        try store.indexSearchableItems([SearchableItem(uniqueIdentifier: id, domainIdentifier: "/d", attributes: a)])
        let stored = try store.storeSummaries([MadeSummary(pending[0], summary: "about owls")])
        #expect(stored.isEmpty)
        #expect(try store.item(id)?.attributes.string(.textContentSummary) == nil)
        #expect(try store.pendingSummaryCount() == 1)
        // Made again from the new text: stored, the subject kept in the attributes and in `other`.
        let again = try store.pendingSummaries(limit: 10)
        #expect(try store.storeSummaries([MadeSummary(again[0], summary: "about volcanoes")]) == [id])
        let item = try #require(try store.item(id))
        #expect(item.attributes.string(.textContentSummary) == "about volcanoes")
        #expect(item.attributes.string(.subject) == "birds of prey")
        let other = try store.read { db in try String.fetchOne(db, sql: "SELECT other FROM items_fts") }
        #expect(other == "birds of prey\nabout volcanoes")
    }

    @Test("garbage text: no summary, no longer pending")
    func garbage() throws {
        let t = try TemporaryTree(prefix: "fsindex-summary")
        let store = try t.makeIndexStore()
        var a = AttributeSet()
        a.textContent = String(repeating: "\u{FFFD}\u{1}\u{E000}", count: 100)
        try store.indexSearchableItems([SearchableItem(uniqueIdentifier: ItemIdentifier("/d/blob"), domainIdentifier: "/d", attributes: a)])
        let report = try SummaryPass(store: store).runAll()
        #expect(report.examined == 1 && report.summarized == 0)
        #expect(try store.pendingSummaryCount() == 0)
    }

    @Test("batches: many items on several threads, each summary its own text's")
    func manyItems() throws {
        let t = try TemporaryTree(prefix: "fsindex-summary")
        let store = try t.makeIndexStore()
        var items: [SearchableItem] = []
        for i in 0..<300 {
            var a = AttributeSet()
            a.textContent = (i % 2 == 0 ? SummaryTexts.owls : SummaryTexts.volcanoes) + " Item number \(i) ends here."
            items.append(SearchableItem(uniqueIdentifier: ItemIdentifier("/d/\(i).txt"), domainIdentifier: "/d", attributes: a))
        }
        try store.indexSearchableItems(items)
        let report = try SummaryPass(store: store).runAll(threads: 4, batchSize: 64)
        #expect(report.summarized == 300)
        for i in [0, 1, 150, 299] {
            let s = try #require(try store.item(ItemIdentifier("/d/\(i).txt"))?.attributes.string(.textContentSummary))
            #expect(s.contains(i % 2 == 0 ? "owl" : "olcano"), "\(i): \(s)")
        }
    }

    @Test("an index made before summaries (no summary_pending column) gets them after the migration")
    func migration() throws {
        let t = try TemporaryTree(prefix: "fsindex-summary")
        let location = IndexLocation(directory: t.path("index"))
        do {
            let store = try IndexStore(location: location)
            var a = AttributeSet()
            a.textContent = SummaryTexts.owls
            try store.indexSearchableItems([SearchableItem(uniqueIdentifier: ItemIdentifier("/d/owls.txt"), domainIdentifier: "/d", attributes: a)])
        }
        // Back to the schema before v6-summaries, as an older fsindex left it. (ALTER TABLE
        // checks item_texts' triggers, which name items_fts: the connection needs its tokenizer.)
        var config = Configuration()
        config.prepareDatabase { db in try IndexStore.registerTokenizer(db) }
        let queue = try DatabaseQueue(path: location.databasePath.string, configuration: config)
        try queue.write { db in
            try db.execute(sql: """
                DROP INDEX items_summary_pending;
                ALTER TABLE items DROP COLUMN summary_pending;
                DELETE FROM grdb_migrations WHERE identifier = 'v6-summaries';
                """)
        }
        try queue.close()
        let store = try IndexStore(location: location)
        #expect(try store.pendingSummaryCount() == 1)
        #expect(try SummaryPass(store: store).runAll().summarized == 1)
        #expect(try store.item(ItemIdentifier("/d/owls.txt"))?.attributes.string(.textContentSummary) != nil)
    }

    @Test("the index and the summarizer agree on which texts get a summary")
    func threshold() {
        #expect(IndexStore.summaryMinimumTextLength == ExtractiveSummarizer.minimumTextLength)
    }
}
