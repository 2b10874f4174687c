import Foundation
import SystemPackage
import TestSupport
import Testing

private func object(_ r: CommandResult) -> [String: Any] {
    (try? JSONSerialization.jsonObject(with: r.stdout) as? [String: Any]) ?? [:]
}

/// Donated values are taken exactly or refused by name, at the door (`DonationReader`), so the
/// same holds through fsindexd and without it (issue 22, F15 and F18).
@Suite("Donated values: ranges, exact integers, sizes, forget (issue 22, F15 and F18)", .blocking)
struct DonationValueTests {
    func donate(_ f: CLIFixture, _ lines: [String], domain: String = "notes", env: [String: String]? = nil) throws -> CommandResult {
        let file = try f.tree.create("batch-\(UUID().uuidString).jsonl", contents: lines.joined(separator: "\n") + "\n")
        return try run("fsindex", ["donate", "--domain", domain, file.string], env: env ?? ["FSINDEX_INDEX_DIR": f.index])
    }

    static func item(_ id: String, _ attributes: String) -> String {
        "{\"uniqueIdentifier\": \"\(id)\", \"attributes\": {\"title\": \"Item \(id)\", \(attributes)}}"
    }

    @Test("F15: dates outside the years 0001 to 9999 are refused by name and range; the ends are taken and read back")
    func dateRange() throws {
        let f = try CLIFixture()
        for bad in ["-7e10", "1e13", "1e15", "-62135769601", "253402300800", "\"0000-06-01T00:00:00Z\""] {
            let r = try donate(f, [Self.item("bad", "\"contentCreationDate\": \(bad)")])
            #expect(r.status == 2, "\(bad) was taken")
            #expect(r.stderr.contains("line 1: contentCreationDate is out of range: dates are from 0001-01-01T00:00:00Z up to 9999-12-31T23:59:59.999Z"), "\(bad): \(r.stderr)")
        }
        let expiring = try donate(f, ["{\"uniqueIdentifier\": \"e\", \"expirationDate\": 1e13, \"attributes\": {}}"])
        #expect(expiring.status == 2 && expiring.stderr.contains("expirationDate is out of range"), "\(expiring.stderr)")
        #expect(try f.fsfind("--domain", "notes").lines.isEmpty)

        let good: [(String, String, String)] = [
            ("a", "\"0001-01-01T00:00:00Z\"", "0001-01-01T00:00:00.000Z"),
            ("b", "\"9999-12-31T23:59:59.999Z\"", "9999-12-31T23:59:59.999Z"),
            ("c", "253402300799", "9999-12-31T23:59:59.000Z"),
            ("d", "1780000000", "2026-05-28T20:26:40.000Z"),
            ("e", "\"2300-01-01T00:00:00Z\"", "2300-01-01T00:00:00.000Z"),
        ]
        let r = try donate(f, good.map { Self.item($0.0, "\"contentCreationDate\": \($0.1)") })
        #expect(r.status == 0, "\(r.stderr)")
        for (id, _, text) in good {
            let shown = try f.fsindex("show", "--json", "notes:\(id)")
            #expect(shown.status == 0, "\(shown.stderr)")
            #expect(object(shown)["contentCreationDate"] as? String == text, "\(id): \(shown.out)")
        }
        let stats = try f.fsfind("--domain", "notes", "--stats", "contentCreationDate", "--json")
        #expect(stats.status == 0 && stats.out.contains("\"count\":5"), "\(stats.out)\(stats.stderr)")
    }

    @Test("F15: a date stored out of range by an older build is shown as its text; the item's other attributes stay readable")
    func storedBadDate() throws {
        let f = try CLIFixture()
        #expect(try donate(f, [Self.item("n1", "\"contentCreationDate\": \"2026-01-01T00:00:00Z\", \"keywords\": [\"kept\"]")]).status == 0)
        // What an older build stored for contentCreationDate: -7e10 (it wrote the year as −249).
        let sql = "UPDATE items SET attributes = json_set(attributes, '$.contentCreationDate', '-0249-12-05T08:53:20.000Z') WHERE domain = 'notes';"
        let db = f.tree.path("index/index.sqlite").string
        #expect(FileManager.default.fileExists(atPath: db), "no \(db)")
        #expect(try run(executable: "/usr/bin/sqlite3", [db, sql], timeout: 60).status == 0)
        let shown = try f.fsindex("show", "--json", "notes:n1")
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(object(shown)["title"] as? String == "Item n1")
        #expect(object(shown)["keywords"] as? [String] == ["kept"])
        #expect(object(shown)["contentCreationDate"] as? String == "-0249-12-05T08:53:20.000Z")
        let plain = try f.fsindex("show", "notes:n1")
        #expect(plain.status == 0 && plain.out.contains("Item n1"), "\(plain.stderr)")
        let found = try f.fsfind("--domain", "notes", "--json", "--attr", "title")
        #expect(found.out.contains("\"title\":\"Item n1\""), "\(found.out)")
    }

    @Test("F18: whole numbers are taken exactly to Int64.max and Int64.min; past them, or inexact, they are refused by name")
    func exactIntegers() throws {
        let f = try CLIFixture()
        let good: [(String, String, Int64)] = [
            ("a", "9007199254740993", 9_007_199_254_740_993), ("b", "9223372036854775807", .max),
            ("c", "-9223372036854775808", .min), ("d", "1", 1), ("e", "0", 0), ("f", "1e3", 1000),
            ("g", "9007199254740993.0", 9_007_199_254_740_993),
        ]
        let r = try donate(f, good.map { Self.item($0.0, "\"pageCount\": \($0.1)") })
        #expect(r.status == 0, "\(r.stderr)")
        for (id, _, value) in good {
            let shown = object(try f.fsindex("show", "--json", "notes:\(id)"))
            #expect((shown["pageCount"] as? NSNumber)?.int64Value == value, "\(id): \(shown)")
        }
        for bad in ["9223372036854775808", "-9223372036854775809", "1e19", "9.007199254740993e15", "1.5", "true", "\"7\""] {
            let refused = try donate(f, [Self.item("x", "\"pageCount\": \(bad)")])
            #expect(refused.status == 2 && refused.stderr.contains("line 1: pageCount must be a whole number from -9223372036854775808 to 9223372036854775807"),
                    "\(bad): \(refused.stderr)")
        }
        let flag = try donate(f, [Self.item("y", "\"pageCount\": 2, \"encrypted\": 1")])
        #expect(flag.status == 2 && flag.stderr.contains("encrypted must be true or false"), "\(flag.stderr)")
    }

    @Test("F18: a title past 16 KiB, a list past 1,000 strings or 64 KiB, and an identifier with a line break are refused, naming the limit")
    func sizes() throws {
        let f = try CLIFixture()
        let long = String(repeating: "t", count: 16 * 1024 + 1)
        let title = try donate(f, ["{\"uniqueIdentifier\": \"t\", \"attributes\": {\"title\": \"\(long)\"}}"])
        #expect(title.status == 2 && title.stderr.contains("line 1: title is 16385 bytes; a string attribute holds at most 16384"), "\(title.stderr)")
        let many = (0...1000).map { "\"k\($0)\"" }.joined(separator: ",")
        let keywords = try donate(f, [Self.item("k", "\"keywords\": [\(many)]")])
        #expect(keywords.status == 2 && keywords.stderr.contains("line 1: keywords has 1001 strings; a list attribute holds at most 1000"), "\(keywords.stderr)")
        let big = (0..<10).map { _ in "\"" + String(repeating: "w", count: 7000) + "\"" }.joined(separator: ",")
        let bytes = try donate(f, [Self.item("b", "\"authors\": [\(big)]")])
        #expect(bytes.status == 2 && bytes.stderr.contains("line 1: authors is 70000 bytes in all; a list attribute holds at most 65536"), "\(bytes.stderr)")
        let newline = try donate(f, ["{\"uniqueIdentifier\": \"a\\nb\", \"attributes\": {\"title\": \"x\"}}"])
        #expect(newline.status == 2 && newline.stderr.contains("holds a NUL or a line break"), "\(newline.stderr)")
        let reindex = try f.fsindex("reindex", "--domain", "notes", "--id", "a\nb")
        #expect(reindex.status != 0 && reindex.stderr.contains("line break"), "\(reindex.stderr)")
        // At the limits, taken.
        let edge = (0..<1000).map { "\"k\($0)\"" }.joined(separator: ",")
        let ok = try donate(f, ["{\"uniqueIdentifier\": \"ok\", \"attributes\": {\"title\": \"\(String(repeating: "t", count: 16 * 1024))\", \"keywords\": [\(edge)]}}"])
        #expect(ok.status == 0, "\(ok.stderr)")
    }

    @Test("F15/F18 through fsindexd: the same refusals and exact values, and forget with ids [] forgets nothing, null is refused")
    func throughDaemon() async throws {
        try await offPool {
            let d = try DaemonFixture()
            try d.start()
            defer { d.stop() }
            // fsindexd hands the reader the app's own bytes: the same exact numbers as without it.
            for (id, text, value) in [("n1", "9223372036854775807", Int64.max), ("n2", "9007199254740993", 9_007_199_254_740_993)] {
                let file = try d.tree.create("batch-\(id).jsonl", contents: Self.item(id, "\"pageCount\": \(text)") + "\n")
                let r = try run("fsindex", ["donate", "--domain", "notes", file.string], env: d.env)
                #expect(r.status == 0 && r.out.contains("fsindexd: donated 1 items"), "\(r.out)\(r.stderr)")
                #expect((object(try d.fsindex("show", "--json", "notes:\(id)"))["pageCount"] as? NSNumber)?.int64Value == value, "\(text)")
            }
            let badFile = try d.tree.create("bad.jsonl", contents: Self.item("n3", "\"contentCreationDate\": -7e10") + "\n")
            let bad = try run("fsindex", ["donate", "--domain", "notes", badFile.string], env: d.env)
            #expect(bad.status == 2 && bad.stderr.contains("contentCreationDate is out of range"), "\(bad.stderr)")

            let status = try d.fsindex("status", "--json")
            let socket = (object(status)["socket"] as? String) ?? ""
            let script = """
                import json, socket, sys
                def ask(msg):
                    s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
                    s.sendall((json.dumps(msg) + "\\n").encode()); print(s.makefile().readline().strip())
                ask({"request": "forget", "domain": "notes", "ids": []})
                ask({"request": "forget", "domain": "notes", "ids": None})
                ask({"request": "donate", "domain": "notes", "items": [{"uniqueIdentifier": "n4", "attributes": {"title": "x", "contentCreationDate": 1e13}}]})
                """
            let py = try run(executable: "/usr/bin/env", ["python3", "-c", script, socket], timeout: 60)
            #expect(py.status == 0, "\(py.stderr)")
            #expect(py.lines.first?.contains("forgot 0 items") == true, "\(py.out)")
            #expect(py.lines.dropFirst().first?.contains("ids is null") == true, "\(py.out)")
            #expect(py.lines.last?.contains("item 1: contentCreationDate is out of range") == true, "\(py.out)")
            #expect(Set(try d.find("--domain", "notes")) == ["notes:n1", "notes:n2"])
            // Left out, ids still means the whole domain.
            #expect(try d.fsindex("forget", "--domain", "notes").out.contains("forgot 2 items"))
            #expect(try d.find("--domain", "notes").isEmpty)
        }
    }
}
