import Foundation
import GRDB
import Indexing
import SystemPackage
import TestSupport
import Testing

/// A tree of real files with chosen words, sizes and modification times (and a PDF and a JPEG
/// the test writes), indexed with `fsindex index --index-dir`, then searched with `fsfind`
/// as a user runs it.
struct FindTree {
    let fixture: CLIFixture
    var root: String { fixture.root }

    static let marzipan = ["docs/alpha.txt", "docs/beta.md", "docs/gamma.html", "notes/epsilon.txt"]
    static let pages = (1...12).map { String(format: "paging/page-%02d.txt", $0) }

    init() throws {
        fixture = try CLIFixture()
        let t = fixture.tree
        func file(_ path: String, _ text: String, _ modified: String) throws {
            try t.create("root/" + path, contents: text)
            try setModified(path, modified)
        }
        try file("docs/alpha.txt", "marzipan budget quarterly zeppelin", "2026-01-15T12:00:00Z")
        try file("docs/beta.md", "# Beta\n\nmarzipan overview of the plan\n", "2026-02-10T12:00:00Z")
        try file("docs/gamma.html", "<html><head><title>Gamma page</title></head><body><p>marzipan gamma notes</p></body></html>",
                 "2026-02-20T12:00:00Z")
        try file("notes/delta.txt", "zeppelin notes only", "2025-12-01T12:00:00Z")
        try file("notes/epsilon.txt", "marzipan " + String(repeating: "lorem ipsum dolor ", count: 40), "2026-03-01T12:00:00Z")
        try file("literal.txt", "the kind pdf viewer manual", "2026-03-02T12:00:00Z")
        for (n, path) in Self.pages.enumerated() {
            // Sizes grow and dates fall with the number, so the three orders differ.
            let day = String(format: "%02d", 28 - n * 2)
            try file(path, "pagingword item \(n + 1) " + String(repeating: "x", count: (n * 37) % 200 + n), "2025-06-\(day)T12:00:00Z")
        }
        try t.create("root/media/report.pdf", bytes: GeneratedFixture.pdf(title: "Annual figures", author: "Ada Lovelace", subject: "Figures",
                                                                        keywords: "figures", created: "D:20260120120000Z",
                                                                        lines: ["Aardwolf xylophone figures"]))
        try setModified("media/report.pdf", "2026-01-20T12:00:00Z")
        let exif = GeneratedFixture.tiff([[.ascii(0x010F, "FSIndex"), .ascii(0x0110, "Test Camera 1")]])
        try t.create("root/media/photo.jpg", bytes: GeneratedFixture.jpeg(width: 100, height: 75, exif: exif))
        try setModified("media/photo.jpg", "2026-01-25T12:00:00Z")
        let r = try run("fsindex", ["index", "--index-dir", fixture.index, root])
        #expect(r.status == 0, "\(r.stderr)")
    }

    func setModified(_ path: String, _ iso: String) throws {
        let date = try Date(iso, strategy: .iso8601)
        try FileManager.default.setAttributes([.modificationDate: date], ofItemAtPath: root + "/" + path)
    }

    func path(_ relative: String) -> String { root + "/" + relative }

    func size(_ relative: String) throws -> Int {
        try #require((try FileManager.default.attributesOfItem(atPath: path(relative))[.size] as? NSNumber)?.intValue)
    }

    func modified(_ relative: String) throws -> Date {
        try #require(try FileManager.default.attributesOfItem(atPath: path(relative))[.modificationDate] as? Date)
    }

    @discardableResult
    func find(_ args: String...) throws -> CommandResult { try find(Array(args)) }

    func find(_ args: [String]) throws -> CommandResult {
        try run("fsfind", ["--index-dir", fixture.index] + args, env: ["TZ": "UTC"])
    }

    /// The paths printed, relative to the root.
    func found(_ args: String...) throws -> [String] { try found(Array(args)) }

    func found(_ args: [String]) throws -> [String] {
        let r = try find(args)
        #expect(r.status == 0 || r.status == 1, "\(args): \(r.stderr)")
        return r.lines.map { $0.hasPrefix(root + "/") ? String($0.dropFirst(root.count + 1)) : $0 }
    }

    func objects(_ r: CommandResult) throws -> [[String: Any]] {
        try r.lines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
    }
}

@Suite("fsfind on a generated tree, through the real binaries", .blocking)
struct FSFindCLITests {
    @Test("words, kinds, attributes and dates find the right files; --count; exit codes 0 and 1")
    func findsAndCounts() throws {
        let t = try FindTree()
        #expect(Set(try t.found("marzipan")) == Set(FindTree.marzipan))
        let count = try t.find("--count", "marzipan")
        #expect(count.status == 0 && count.out == "4\n")
        #expect(try t.find("--count", "zeppelin").out == "2\n")
        #expect(try t.find("--count", "pagingword").out == "12\n")
        let none = try t.find("--count", "nosuchwordanywhere")
        #expect(none.status == 1 && none.out == "0\n")
        let nothing = try t.find("nosuchwordanywhere")
        #expect(nothing.status == 1 && nothing.out.isEmpty && nothing.stderr.isEmpty)
        #expect(try t.found("kind:pdf") == ["media/report.pdf"])
        #expect(try t.found("kind:image") == ["media/photo.jpg"])
        #expect(try t.found("width:>50") == ["media/photo.jpg"])
        #expect(try t.found("kMDItemPixelWidth == 100") == ["media/photo.jpg"])
        #expect(try t.found("kind:pdf kMDItemNumberOfPages >= 1") == ["media/report.pdf"])
        #expect(Set(try t.found("modified:2026-02")) == ["docs/beta.md", "docs/gamma.html"])
        #expect(Set(try t.found("modified:2026-01")) == ["docs/alpha.txt", "media/report.pdf", "media/photo.jpg"])
        #expect(Set(try t.found("marzipan", "modified:>2026-02-15")) == ["docs/gamma.html", "notes/epsilon.txt"])
        #expect(Set(try t.found("dir:notes")) == ["notes/delta.txt", "notes/epsilon.txt"])
        #expect(try t.found("title:gamma") == ["docs/gamma.html"])
        #expect(Set(try t.found("zeppelin -marzipan")) == ["notes/delta.txt"])
        #expect(Set(try t.found("ext:md,html")) == ["docs/beta.md", "docs/gamma.html"])
    }

    @Test("--limit and --offset page through the results without overlap or gaps")
    func paging() throws {
        let t = try FindTree()
        for order in [["--sort", "name"], ["--sort", "size"], ["--sort", "modified"], []] {
            let all = try t.found(order + ["pagingword"])
            #expect(all.count == 12, "\(order)")
            var pages: [[String]] = []
            for offset in stride(from: 0, to: 15, by: 5) {
                pages.append(try t.found(order + ["--limit", "5", "--offset", String(offset), "pagingword"]))
            }
            #expect(pages.map(\.count) == [5, 5, 2], "\(order)")
            #expect(pages.flatMap { $0 } == all, "\(order): pages in order make the whole list")
            #expect(Set(pages.flatMap { $0 }).count == 12, "\(order): no page overlaps another")
            let past = try t.find(order + ["--limit", "5", "--offset", "12", "pagingword"])
            #expect(past.status == 1 && past.out.isEmpty)
        }
    }

    @Test("--sort name, size and modified, and --reverse")
    func sorting() throws {
        let t = try FindTree()
        let byName = FindTree.pages.sorted { $0.lowercased() < $1.lowercased() }
        #expect(try t.found("--sort", "name", "pagingword") == byName)
        #expect(try t.found("--sort", "name", "--reverse", "pagingword") == byName.reversed())
        let sizes = try FindTree.pages.map { ($0, try t.size($0)) }
        let bySize = sizes.sorted { $0.1 != $1.1 ? $0.1 > $1.1 : $0.0 < $1.0 }.map(\.0)
        let gotBySize = try t.found("--sort", "size", "pagingword")
        #expect(try gotBySize.map { try t.size($0) } == bySize.map { try t.size($0) })
        #expect(try gotBySize.map { try t.size($0) } == sizes.map(\.1).sorted(by: >))
        let smallFirst = try t.found("--sort", "size", "--reverse", "pagingword")
        #expect(try smallFirst.map { try t.size($0) } == sizes.map(\.1).sorted())
        let byDate = try t.found("--sort", "modified", "pagingword")
        #expect(byDate == FindTree.pages)                  // page-01 is the newest
        #expect(try byDate.map { try t.modified($0) } == FindTree.pages.map { try t.modified($0) }.sorted(by: >))
        #expect(try t.found("--sort", "modified", "--reverse", "pagingword") == FindTree.pages.reversed())
        // Mixed kinds and names: newest first.
        #expect(try t.found("--sort", "modified", "marzipan")
                == ["notes/epsilon.txt", "docs/gamma.html", "docs/beta.md", "docs/alpha.txt"])
        let bad = try t.find("--sort", "colour", "marzipan")
        // A usage error that lists the orders there are.
        #expect(bad.status == 64 && bad.stderr.contains("colour") && ["relevance", "name", "size", "modified", "created", "used"].allSatisfy(bad.stderr.contains), "\(bad.stderr)")
    }

    @Test("-0 ends each path with NUL, the same paths as newline output")
    func nul() throws {
        let t = try FindTree()
        let lines = try t.find("--sort", "name", "pagingword").lines
        let r = try t.find("-0", "--sort", "name", "pagingword")
        #expect(r.status == 0)
        #expect(r.stdout.last == 0)
        #expect(!r.stdout.contains(0x0A))
        let parts = r.stdout.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
        #expect(parts == lines)
    }

    @Test("--json: default fields, and --attr choosing them")
    func json() throws {
        let t = try FindTree()
        let objects = try t.objects(try t.find("--json", "marzipan"))
        #expect(objects.count == 4)
        for o in objects {
            #expect(Set(o.keys) == ["path", "name", "kind", "fileSize", "contentModificationDate", "score"], "\(o)")
            let path = try #require(o["path"] as? String)
            let relative = String(path.dropFirst(t.root.count + 1))
            #expect(FindTree.marzipan.contains(relative))
            #expect(o["name"] as? String == String(path.split(separator: "/").last!))
            #expect((o["fileSize"] as? NSNumber)?.intValue == (try t.size(relative)))
            #expect(((o["score"] as? NSNumber)?.doubleValue ?? -1) > 0, "\(o)")
            #expect(o["kind"] is String)
            #expect((o["contentModificationDate"] as? String)?.hasPrefix("20") == true)
        }
        #expect(objects.first { ($0["path"] as? String)?.hasSuffix("beta.md") == true }?["kind"] as? String == "Markdown document")
        let chosen = try t.objects(try t.find("--json", "--attr", "name", "--attr", "fileSize", "marzipan"))
        #expect(chosen.count == 4)
        for o in chosen { #expect(Set(o.keys) == ["path", "name", "fileSize"], "\(o)") }
        let withScore = try t.objects(try t.find("--json", "--attr", "title", "--attr", "score", "title:gamma"))
        #expect(withScore.count == 1)
        #expect(withScore.first.map { Set($0.keys) } == ["path", "title", "score"])
        #expect(withScore.first?["title"] as? String == "Gamma page")
        let photo = try t.objects(try t.find("--json", "--attr", "pixelWidth", "--attr", "pixelHeight", "kind:image"))
        #expect((photo.first?["pixelWidth"] as? NSNumber)?.intValue == 100)
        #expect(photo.first?["pixelHeight"] != nil)
    }

    @Test("--snippet: the matched word between ** in JSON and in text")
    func snippet() throws {
        let t = try FindTree()
        let objects = try t.objects(try t.find("--json", "--snippet", "zeppelin"))
        #expect(objects.count == 2)
        for o in objects {
            let s = try #require(o["snippet"] as? String, "\(o)")
            #expect(s.contains("**zeppelin**"), "\(s)")
        }
        let text = try t.find("--snippet", "quarterly")
        #expect(text.lines.count == 2)
        #expect(text.lines.first == t.path("docs/alpha.txt"))
        #expect(text.lines.last?.hasPrefix("    ") == true && text.lines.last?.contains("**quarterly**") == true)
        // Without --snippet there is none.
        #expect(try t.objects(try t.find("--json", "zeppelin")).allSatisfy { $0["snippet"] == nil })
    }

    @Test("--group-by kind sums to --count; --group-by modified:month; --stats fileSize sums the sizes")
    func answers() throws {
        let t = try FindTree()
        for query in ["marzipan", "size:>0", "kind:text", "zeppelin OR pagingword"] {
            let groups = try t.objects(try t.find("--json", "--group-by", "kind", query))
            let sum = groups.compactMap { ($0["count"] as? NSNumber)?.intValue }.reduce(0, +)
            let count = try t.find("--count", query)
            #expect("\(sum)\n" == count.out, "\(query): \(groups)")
            #expect(groups.allSatisfy { $0["value"] != nil })
        }
        let kinds = try t.objects(try t.find("--json", "--group-by", "kind", "marzipan"))
        let byKind = Dictionary(uniqueKeysWithValues: kinds.map { ($0["value"] as? String ?? "-", ($0["count"] as? NSNumber)?.intValue ?? 0) })
        #expect(byKind["Plain text document"] == 2)
        #expect(byKind["Markdown document"] == 1)
        let months = try t.objects(try t.find("--json", "--group-by", "modified:month", "marzipan"))
        let byMonth = Dictionary(uniqueKeysWithValues: months.map { ($0["value"] as? String ?? "-", ($0["count"] as? NSNumber)?.intValue ?? 0) })
        #expect(byMonth == ["2026-01": 1, "2026-02": 2, "2026-03": 1])
        #expect(try t.find("--group-by", "month", "marzipan").out == (try t.find("--group-by", "modified:month", "marzipan")).out)
        let table = try t.find("--group-by", "modified:year", "pagingword")
        #expect(table.status == 0 && table.lines == ["   12  2025"])
        let stats = try t.find("--json", "--stats", "fileSize", "marzipan")
        #expect(stats.status == 0)
        let s = try #require(try t.objects(stats).first)
        let sizes = try FindTree.marzipan.map { try t.size($0) }
        #expect((s["sum"] as? NSNumber)?.intValue == sizes.reduce(0, +))
        #expect((s["count"] as? NSNumber)?.intValue == 4 && (s["matches"] as? NSNumber)?.intValue == 4)
        #expect((s["min"] as? NSNumber)?.intValue == sizes.min() && (s["max"] as? NSNumber)?.intValue == sizes.max())
        let plain = try t.find("--stats", "fileSize", "marzipan")
        #expect(plain.out.contains("sum        \(sizes.reduce(0, +))"))
        let noStats = try t.find("--stats", "title", "marzipan")
        #expect(noStats.status == 2 && noStats.stderr.contains("--stats needs a number or a date"))
        let textGroups = try t.find("--group-by", "textContent", "marzipan")
        #expect(textGroups.status == 2 && textGroups.stderr.contains("cannot be grouped"))
        let badPeriod = try t.find("--group-by", "kind:month", "marzipan")
        #expect(badPeriod.status == 2 && badPeriod.stderr.contains("only after a date attribute"))
        let noGroup = try t.find("--group-by", "kind", "nosuchwordanywhere")
        #expect(noGroup.status == 1 && noGroup.out.isEmpty)
    }

    @Test("--explain prints the parsed query and exits 0; --literal searches field syntax as words")
    func explainAndLiteral() throws {
        let t = try FindTree()
        let explain = try t.find("--explain", "kind:pdf budget")
        #expect(explain.status == 0, "\(explain.stderr)")
        #expect(explain.out.contains("parsed:"))
        #expect(explain.out.contains("query: kind:pdf budget"))
        let spotlight = try t.find("--explain", #"kMDItemFSSize > 10 && kMDItemFSName == "*.pdf"c"#)
        #expect(spotlight.status == 0 && spotlight.out.contains("parsed:"))
        #expect(try t.found("kind:pdf") == ["media/report.pdf"])
        #expect(try t.found("--literal", "kind:pdf") == ["literal.txt"])
        #expect(try t.found("--literal", "kMDItemFSSize", ">", "10") == [])
        let quoted = try t.find("--literal", "\"kind")
        #expect(quoted.status == 0 && quoted.stderr.isEmpty)
    }

    @Test("exit 2 for a bad query with the caret line, and for a missing index")
    func errors() throws {
        let t = try FindTree()
        let bad = try t.find("budget \"unclosed")
        #expect(bad.status == 2 && bad.out.isEmpty)
        #expect(bad.stderr.contains("never closed"))
        #expect(bad.stderr.contains("budget \"unclosed\n"))
        #expect(bad.stderr.contains("\n  " + String(repeating: " ", count: 7) + "^"), "\(bad.stderr)")
        let unknown = try t.find("kMDItemPixelWidht > 3")
        #expect(unknown.status == 2 && unknown.stderr.contains("did you mean kMDItemPixelWidth"))
        let value = try t.find("size:>abc")
        #expect(value.status == 2 && value.stderr.contains("size: \"abc\" is not a size"))
        let missing = try run("fsfind", ["--index-dir", t.fixture.tree.path("no-index-here").string, "marzipan"])
        #expect(missing.status == 2 && missing.out.isEmpty)
        #expect(missing.stderr.contains("no index at"), "\(missing.stderr)")
        let missingCount = try run("fsfind", ["--index-dir", t.fixture.tree.path("no-index-here").string, "--count", "marzipan"])
        #expect(missingCount.status == 2 && missingCount.stderr.contains("no index at"))
    }

    @Test("a deleted file is never printed, and is then removed from the index")
    func deleted() throws {
        let t = try FindTree()
        #expect(try t.find("--count", "marzipan").out == "4\n")
        try t.fixture.tree.remove("root/notes/epsilon.txt")
        let json = try t.objects(try t.find("--json", "marzipan"))
        #expect(json.count == 3)
        #expect(!json.contains { ($0["path"] as? String)?.hasSuffix("epsilon.txt") == true })
        #expect(try t.find("--count", "marzipan").out == "3\n")
        #expect(Set(try t.found("marzipan")) == Set(FindTree.marzipan.filter { $0 != "notes/epsilon.txt" }))
        // Deleting the only match: nothing printed, exit 1.
        try t.fixture.tree.remove("root/notes/delta.txt")
        let zeppelin = try t.find("zeppelin -marzipan")
        #expect(zeppelin.status == 1 && zeppelin.out.isEmpty, "\(zeppelin.status) \(zeppelin.out) \(zeppelin.stderr)")
        #expect(try t.find("--count", "zeppelin").out == "1\n")
    }

    @Test("malformed queries never show SQLite's words; each exits 0, 1 or 2")
    func noSQLite() throws {
        let t = try FindTree()
        let queries = [
            "\"", "(", ")", "((", "a)", "\"a", "kMDItemFSName ==", "kMDItemFSName == ", "* == \"*\"", "* == \"?\"",
            "name:%", "name:_", "name:\\", "'; DROP TABLE items; --", "NEAR(a b)", "AND", "OR", "NOT", "a OR", "-",
            "size:>", "size:..", "modified:..", "modified:>", "kind:", "kind:,", "ext:", "dir:", "*:*", "\" OR \"",
            "{x}", "a:b:c", "InRange(", "InRange(kMDItemFSSize, 1", "$time.now", "kMDItemFSSize > $time.", "x == \"\\\"",
            "kMDItemTitle == \"*\"cdw", "kMDItemTitle < \"\"", "kMDItemAuthors != \"\"", "kMDItemTextContent == \"a*b\"",
            "pagingword kMDItemFSSize > 1e999", "kMDItemFSSize > -", "width:1e309", "size:99999999999999999999TB",
            "modified:9999-12-31", "modified:0000-01-01", "created:<99999d", "title:\"\"", "author:%_%",
            "budget \u{7}", "é:é", "kMDItemPath == \"*\"", "path:/",
            "kMDItemContentTypeTree < \"z\"", "kMDItemContentModificationDate != $time.today(-99999)",
        ]
        for q in queries {
            let r = try t.find(["--", q])
            #expect([0, 1, 2].contains(r.status), "\(q): exit \(r.status) \(r.stderr)")
            #expect(!r.stderr.lowercased().contains("sqlite"), "\(q): \(r.stderr)")
            let c = try t.find(["--count", "--", q])
            #expect(!c.stderr.lowercased().contains("sqlite"), "--count \(q): \(c.stderr)")
            if r.status == 2 { #expect(!r.stderr.isEmpty, "\(q): exit 2 without a message") }
        }
    }
}

/// What fsfind does with its own command line, its config, and an index it should not trust.
@Suite("fsfind: arguments, config and index state", .blocking)
struct FSFindStateTests {
    @Test("-word excludes without quotes; an unknown --option is still an error; -- passes text through")
    func arguments() throws {
        let t = try FindTree()
        #expect(try t.found("zeppelin", "-marzipan") == ["notes/delta.txt"])
        let typo = try t.find("--lmit", "3", "zeppelin")
        #expect(typo.status == 64 && typo.stderr.contains("Unknown option '--lmit'"))
        let literal = try t.find("--literal", "--", "--zeppelin")
        #expect(literal.status == 0 && Set(literal.lines.map { String($0.dropFirst(t.root.count + 1)) }) == ["docs/alpha.txt", "notes/delta.txt"])
    }

    @Test("[query] comes from --config; a bad value names the key, exit 2")
    func config() throws {
        let t = try FindTree()
        let good = t.fixture.tree.path("good.toml").string
        let bad = t.fixture.tree.path("bad.toml").string
        try "[query]\nrecency_weight = 0\nusage_weight = 0\ndecay_days = 7\n".write(toFile: good, atomically: true, encoding: .utf8)
        try "[query]\nrecency_weight = \"high\"\n".write(toFile: bad, atomically: true, encoding: .utf8)
        #expect(try t.find("--config", good, "zeppelin").status == 0)
        let r = try t.find("--config", bad, "zeppelin")
        #expect(r.status == 2 && r.stderr.contains("query.recency_weight") && r.stdout.isEmpty)
        let missing = try t.find("--config", t.fixture.tree.path("nope.toml").string, "zeppelin")
        #expect(missing.status == 2 && missing.stderr.contains("cannot read config file") && missing.stderr.contains("nope.toml"))
    }

    @Test("an index that must be rebuilt, or that an older fsindex wrote, is refused with the fix; fsindex index mends it")
    func staleIndex() throws {
        let t = try FindTree()
        let location = IndexLocation(directory: FilePath(t.fixture.index))
        try IndexStore(location: location).setMeta("rebuild_required", "the database was damaged")
        let rebuild = try t.find("zeppelin")
        #expect(rebuild.status == 2 && rebuild.stderr.contains("must be rebuilt") && rebuild.stderr.contains("the database was damaged"))
        try IndexStore(location: location).setMeta("rebuild_required", nil)
        #expect(try t.find("zeppelin").status == 0)

        // What an index of the previous version looks like: without the last migration.
        let db = try DatabaseQueue(path: location.databasePath.string)
        try db.write { db in
            try db.execute(sql: """
                DROP INDEX items_modified; DROP INDEX items_size;
                DELETE FROM grdb_migrations WHERE identifier = 'v5-query-indexes'
                """)
        }
        try db.close()
        let old = try t.find("zeppelin")
        #expect(old.status == 2 && old.stderr.contains("written by an older fsindex") && old.stderr.contains("fsindex index"))
        let upgrade = try run("fsindex", ["index", "--index-dir", t.fixture.index, t.root])
        #expect(upgrade.status == 0, "\(upgrade.stderr)")
        #expect(try t.find("zeppelin").status == 0)
    }
}
