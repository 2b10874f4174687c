import Foundation
import TestSupport
import Testing

/// The shared index's query shapes at scale (issue 29, v3-scale), with the built binaries and a
/// real PostgreSQL: `fsfind --explain` shows the plans use the indexes made for them, and what
/// a word query costs without RUM. (SharedQueryingTests' `SharedScaleTests` check the answers.)
@Suite("Shared index at scale (issue 29)", .blocking, .postgres)
struct SharedIndexScaleTests {
    static let rumAvailable = ThrowawayPostgres.rumAvailable
    static let rumReason = ThrowawayPostgres.rumReason

    /// 4,000 donated items over two domains: every 9th named `…budget…`, every 13th titled with
    /// the word, every 7th with it as a keyword, the word 0–4 times in the text, half of them
    /// changed in the last days (so the recency boost reorders them), a fifth Python scripts.
    static func makeLocalIndex(_ tree: TemporaryTree) throws -> String {
        let now = Date().timeIntervalSince1970
        for d in 0..<2 {
            var lines = ""
            for j in 0..<2000 {
                let i = d * 2000 + j
                let name = (i % 9 == 0 ? "budget-\(i)" : "item\(i)") + (i % 5 == 0 ? ".py" : ".txt")
                let title = i % 13 == 0 ? "Budget plan \(i)" : "Plan \(i)"
                let keywords = i % 7 == 0 ? ["budget", "finance"] : ["finance"]
                let text = (["alpha beta"] + Array(repeating: "the budget line", count: i % 5) + ["gamma \(i) delta"]).joined(separator: " ")
                let days = i % 2 == 0 ? Double(i % 17) : Double(300 + i % 400)
                let modified = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: now - days * 86_400 - Double(i)))
                let item: [String: Any] = [
                    "uniqueIdentifier": "/scale/d\(d)/dir\(j / 100)/\(name)",
                    "attributes": ["name": name, "title": title, "keywords": keywords, "textContent": text,
                                   "contentType": i % 5 == 0 ? "public.python-script" : "public.plain-text",
                                   "contentModificationDate": modified],
                ]
                lines += String(decoding: try JSONSerialization.data(withJSONObject: item), as: UTF8.self) + "\n"
            }
            try tree.create("d\(d).jsonl", contents: lines)
            let r = try run("fsindex", ["donate", "--index-dir", tree.path("index").string, "--domain", "d\(d)", tree.path("d\(d).jsonl").string])
            #expect(r.status == 0, "\(r.stderr)")
        }
        return tree.path("index").string
    }

    static func publish(_ index: String, _ url: String) throws {
        let p = try run("fsindex", ["publish", "--index-dir", index, "--index-url", url, "--host", "h"])
        #expect(p.status == 0, "\(p.stderr)")
    }



    /// A first publish of many rows leaves `items` vacuumed and analyzed, so the plans right
    /// after it are the settled ones (the name index read without the table); a small pass
    /// after it vacuums nothing.
    @Test("a bulk publish settles items (VACUUM ANALYZE: all-visible pages, fresh statistics); a small one does not")
    func bulkPublishSettles() throws {
        let pg = try ThrowawayPostgres.shared()
        let db = try pg.makeDatabaseNamed()
        let url = pg.url(database: db)
        let tree = try TemporaryTree(prefix: "fsindex-scale-settle")
        var lines = ""
        for i in 0..<12_000 {
            lines += #"{"uniqueIdentifier": "/settle/dir\#(i / 500)/note-\#(i).txt", "attributes": {"name": "note-\#(i).txt", "textContent": "settled rows \#(i)"}}"# + "\n"
        }
        try tree.create("bulk.jsonl", contents: lines)
        let index = tree.path("index").string
        let d = try run("fsindex", ["donate", "--index-dir", index, "--domain", "bulk", tree.path("bulk.jsonl").string])
        #expect(d.status == 0, "\(d.stderr)")
        try Self.publish(index, url)
        let stats = "SELECT vacuum_count || ' ' || analyze_count || ' ' || (SELECT relallvisible FROM pg_class WHERE relname = 'items') FROM pg_stat_user_tables WHERE relname = 'items'"
        // The statistics collector reports a moment later.
        var seen = ""
        _ = try eventually(5, every: .milliseconds(100)) {
            seen = try pg.psql(db, stats).trimmingCharacters(in: .whitespacesAndNewlines)
            return seen.hasPrefix("1 ")
        }
        let f = seen.split(separator: " ").compactMap { Int($0) }
        #expect(f.count == 3 && f[0] == 1 && f[1] >= 1 && f[2] > 0, "after a bulk publish: vacuums, analyzes, all-visible pages = \(seen)")
        // A small change: one more item, published; no second vacuum.
        try tree.create("one.jsonl", contents: #"{"uniqueIdentifier": "/settle/extra.txt", "attributes": {"name": "extra.txt"}}"# + "\n")
        let o = try run("fsindex", ["donate", "--index-dir", index, "--domain", "bulk", tree.path("one.jsonl").string])
        #expect(o.status == 0, "\(o.stderr)")
        try Self.publish(index, url)
        // The server's statistics arrive on their own time: a second vacuum would show within it.
        var after = ""
        let vacuumedAgain = try eventually(0.7, every: .milliseconds(100)) {
            after = try pg.psql(db, stats).trimmingCharacters(in: .whitespacesAndNewlines)
            return !after.hasPrefix("1 ")
        }
        #expect(!vacuumedAgain, "a one-item pass vacuumed again: \(after)")
    }

    @Test("the plans of a word, a name and a kind: query use the RUM index, the name bands' trigram index (items_name_length for a part without a trigram) and items_modified_path",
          .enabled(if: rumAvailable, rumReason))
    func plansUseTheIndexes() throws {
        let pg = try ThrowawayPostgres.shared()
        let db = try pg.makeDatabaseNamed()
        let url = pg.url(database: db)
        let tree = try TemporaryTree(prefix: "fsindex-scale-plans")
        try Self.publish(try Self.makeLocalIndex(tree), url)
        // Ten times the rows (small ones), as the planner chooses an index only past a few pages.
        try pg.psql(db, """
            INSERT INTO items (host, path, domain, name, content_type, kind, attributes, types, title, words, owner, grp, mode, access, version)
            SELECT host, path || convert_to('/copy' || n, 'UTF8'), domain, name, content_type, kind, '{}', types, title,
                   setweight(to_tsvector('simple', name), 'A') || to_tsvector('simple', 'filler words ' || n), owner, grp, mode, access, version
            FROM items, generate_series(1, 10) AS n
            """)
        try pg.psql(db, "VACUUM ANALYZE items")
        // The word query sorts its few candidates; the name query sorts the rows whose path or
        // name is too long for its index (none here) and merges them in; `kind:` sorts nothing.
        for (args, uses, fullSort) in [(["budget"], "Index Scan using items_words_rum", true),
                                       (["--name", "budget"], "Bitmap Index Scan on items_name_trgm_12", true),
                                       (["--name", "it"], "Index Only Scan using items_name_length", true),
                                       (["kind:public.python-script"], "Index Scan using items_modified_path", false)] {
            let r = try run("fsfind", ["--index-url", url, "--limit", "20", "--explain"] + args)
            #expect(r.status == 0, "\(args): \(r.stderr)")
            #expect(r.out.contains(uses), "\(args): the plan does not use \(uses):\n\(r.out)")
            let sorts = r.lines.contains { line in
                var l = line.trimmingCharacters(in: .whitespaces)
                if l.hasPrefix("->  ") { l.removeFirst(4) }
                return l.hasPrefix("Sort  (")
            }
            #expect(!sorts || fullSort, "\(args): the plan sorts every match:\n\(r.out)")
        }
    }
}
