import Foundation
import SystemPackage
import TestSupport
import Testing

/// The shared PostgreSQL index end to end, with the built binaries and a real server: watchers
/// on two roots as two hosts, fsfind over the shared index, a server that goes away, and two
/// users who may read different files.
@Suite("Shared index on PostgreSQL", .blocking, .postgres)
struct SharedIndexCommandTests {
    static func status(_ url: String) throws -> [String: Int] {
        let r = try run("fsindex", ["status", "--index-url", url, "--json"])
        guard r.status == 0, let obj = try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any],
              let hosts = obj["hosts"] as? [[String: Any]] else { return [:] }
        var out: [String: Int] = [:]
        for h in hosts { out[h["host"] as? String ?? ""] = h["items"] as? Int ?? -1 }
        return out
    }

    static func find(_ url: String, _ args: String...) throws -> Set<String> {
        let r = try run("fsfind", ["--index-url", url] + args)
        #expect(r.status == 0 || r.status == 1, "\(args): \(r.stderr)")
        return Set(r.lines)
    }

    @Test("two fsindexd on two roots, as two hosts, feed one PostgreSQL; fsfind there equals SQLite; changes follow; forget --host")
    func twoWatchers() async throws {
        try await offPool {
            let pg = try ThrowawayPostgres.shared()
            let url = try pg.makeDatabase()
            let a = try DaemonFixture(), b = try DaemonFixture()
            try a.tree.create("root/report.txt", contents: "the quarterly budget of alpha")
            try a.tree.create("root/notes/plan.md", contents: "# Plan\nno money words here")
            try b.tree.create("root/budget-beta.txt", contents: "beta keeps its budget too")
            try b.tree.create("root/東京.txt", contents: "東京都は日本の首都です")
            try a.start(["--root", a.root, "--index-url", url, "--host", "alpha"])
            try b.start(["--root", b.root, "--index-url", url, "--host", "beta"])
            try a.waitFor("both hosts in the shared index", seconds: 60) {
                let s = try Self.status(url)
                return (s["alpha"] ?? 0) >= 4 && (s["beta"] ?? 0) >= 3
            }
            // The same answers as the two SQLite indexes together.
            for query in ["budget", "kind:text", "name:*.md", "首都", "budget -beta"] {
                let local = try a.find(query).union(try b.find(query))
                #expect(!local.isEmpty, "\(query)")
                let shared = try Self.find(url, query)
                #expect(shared == local, "\(query): shared \(shared.sorted()), local \(local.sorted())")
            }
            // A new file and a removed one reach the shared index through the watcher.
            try a.tree.create("root/fresh.txt", contents: "a fresh budget line")
            try a.waitFor("the new file in the shared index", seconds: 30) {
                try Self.find(url, "fresh").contains(a.tree.path("root/fresh.txt").string)
            }
            try FileManager.default.removeItem(atPath: a.tree.path("root/report.txt").string)
            try a.waitFor("the removed file gone from the shared index", seconds: 30) {
                !(try Self.find(url, "quarterly").contains(a.tree.path("root/report.txt").string))
            }
            // Forgetting a host drops its items and its record, and nothing of the other's.
            b.stop()
            let forget = try run("fsindex", ["forget", "--host", "beta", "--index-url", url])
            #expect(forget.status == 0, "\(forget.stderr)")
            let after = try Self.status(url)
            #expect(after["beta"] == nil && (after["alpha"] ?? 0) >= 4, "\(after)")
            #expect(try Self.find(url, "budget") == [a.tree.path("root/fresh.txt").string])
            a.stop()
        }
    }

    @Test("[index] url and host in the config choose the shared index and the host name; --index-dir reads the local one")
    func fromConfig() throws {
        let pg = try ThrowawayPostgres.shared()
        let url = try pg.makeDatabase()
        let tree = try TemporaryTree(prefix: "fsindex-shared-config")
        try tree.create("root/a.txt", contents: "configured walrus")
        let local = tree.path("local").string
        let config = tree.path("config.toml").string
        try "[index]\nurl = \"\(url)\"\nhost = \"cfg-host\"\n".write(toFile: config, atomically: true, encoding: .utf8)
        let env = ["FSINDEX_INDEX_DIR": local]
        #expect(try run("fsindex", ["index", tree.path("root").string], env: env).status == 0)
        let publish = try run("fsindex", ["publish", "--config", config], env: env)
        #expect(publish.status == 0, "\(publish.stderr)")
        #expect(try Self.status(url) == ["cfg-host": 2])
        // The file leaves the local index only: fsfind with the config reads the shared one,
        // and with --index-dir the local one.
        #expect(try run("fsindex", ["erase"], env: env).status == 0)
        try tree.createDirectory("empty")
        #expect(try run("fsindex", ["index", tree.path("empty").string], env: env).status == 0)
        let shared = try run("fsfind", ["--config", config, "walrus"], env: env)
        #expect(shared.lines == [tree.path("root/a.txt").string], "\(shared.stderr)")
        let direct = try run("fsfind", ["--config", config, "--index-dir", local, "walrus"], env: env)
        #expect(direct.status == 1 && direct.lines.isEmpty, "\(direct.out) \(direct.stderr)")
    }

    @Test("a second watcher cannot publish a domain another watcher of the same host owns")
    func noClobbering() throws {
        let pg = try ThrowawayPostgres.shared()
        let url = try pg.makeDatabase()
        let tree = try TemporaryTree(prefix: "fsindex-shared-own")
        try tree.create("root/a.txt", contents: "owned")
        for index in ["one", "two"] {
            let r = try run("fsindex", ["index", "--index-dir", tree.path(index).string, tree.path("root").string])
            #expect(r.status == 0, "\(r.stderr)")
        }
        let first = try run("fsindex", ["publish", "--index-dir", tree.path("one").string, "--index-url", url, "--host", "h"])
        #expect(first.status == 0, "\(first.stderr)")
        let second = try run("fsindex", ["publish", "--index-dir", tree.path("two").string, "--index-url", url, "--host", "h"])
        #expect(second.status == 2)
        #expect(second.stderr.contains("is published by another watcher"), "\(second.stderr)")
        // As another host it is a domain of its own.
        let other = try run("fsindex", ["publish", "--index-dir", tree.path("two").string, "--index-url", url, "--host", "h2"])
        #expect(other.status == 0, "\(other.stderr)")
        #expect(try Self.status(url) == ["h": 2, "h2": 2])
        // Run again with nothing changed: the client state says so, and nothing is sent.
        let again = try run("fsindex", ["publish", "--index-dir", tree.path("one").string, "--index-url", url, "--host", "h"])
        #expect(again.out.contains("published 0 items") && again.out.contains("1 unchanged"), "\(again.out)")
    }

    @Test("the server goes away in the middle of publishing and comes back: every batch commits once and nothing is lost")
    func serverGoesAway() async throws {
        try await offPool {
            let pg = try ThrowawayPostgres.dedicated()
            let db = try pg.makeDatabaseNamed()
            let url = pg.url(database: db)
            let tree = try TemporaryTree(prefix: "fsindex-shared-fail")
            let count = 3000
            var lines = ""
            for i in 0..<count {
                lines += "{\"uniqueIdentifier\": \"n\(i)\", \"attributes\": {\"title\": \"Note \(i)\", \"textContent\": \"item \(i) budget words for the shared index\"}}\n"
            }
            try tree.create("items.jsonl", contents: lines)
            let donate = try run("fsindex", ["donate", "--index-dir", tree.path("index").string, "--domain", "notes", tree.path("items.jsonl").string])
            #expect(donate.status == 0, "\(donate.stderr)")

            let p = Process()
            p.executableURL = Binaries.directory.appendingPathComponent("fsindex")
            p.arguments = ["publish", "--index-dir", tree.path("index").string, "--index-url", url, "--host", "h", "--batch-size", "10", "--retry-for", "120"]
            let err = Pipe(), out = Pipe()
            p.standardError = err
            p.standardOutput = out
            try p.run()
            // Wait for some batches to commit, then cut the server off in the middle.
            var committed = 0
            _ = eventually(60, every: .milliseconds(20)) {
                committed = Int((try? pg.psql(db, "SELECT count(*) FROM items"))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 0
                return committed > 0
            }
            #expect(committed > 0 && committed < count, "committed \(committed) before the stop")
            pg.stop(immediate: true)
            sleep(2)
            try pg.start()
            p.waitUntilExit()
            let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(p.terminationStatus == 0, "\(stderr)")
            #expect(stderr.contains("trying again"), "the publisher never saw the server go: \(stderr)")
            let rows = try pg.psql(db, "SELECT count(*), count(DISTINCT path) FROM items").trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(rows == "\(count)|\(count)", "\(rows)")
            // And the shared index answers like the local one.
            #expect(try Self.find(url, "--count", "budget") == ["\(count)"])
        }
    }

    @Test("a query made as another user returns only what that user could read on the host", .needsRoot)
    func twoUsers() throws {
        let pg = try ThrowawayPostgres.shared()
        let db = try pg.makeDatabaseNamed()
        let url = pg.url(database: db)
        try? pg.psql("postgres", "CREATE ROLE nobody LOGIN")
        try? pg.psql("postgres", "CREATE ROLE daemon LOGIN")
        let tree = try TemporaryTree(prefix: "fsindex-shared-users")
        try tree.create("root/public.txt", contents: "zebra for everyone")
        try tree.create("root/private.txt", contents: "zebra for root alone")
        try tree.create("root/closed/inner.txt", contents: "zebra behind a closed folder")
        SharedIndexFaultTests.openUpwards(tree.path("root"))
        chmod(tree.path("root/public.txt").string, 0o644)
        chmod(tree.path("root/private.txt").string, 0o600)
        chmod(tree.path("root/closed").string, 0o700)
        chmod(tree.path("root/closed/inner.txt").string, 0o644)
        let r = try run("fsindex", ["index", "--index-dir", tree.path("index").string, tree.path("root").string])
        #expect(r.status == 0, "\(r.stderr)")
        let p = try run("fsindex", ["publish", "--index-dir", tree.path("index").string, "--index-url", url, "--host", "h"])
        #expect(p.status == 0, "\(p.stderr)")
        // The watchers' role sees every row.
        #expect(try Self.find(url, "zebra").count == 3)
        // nobody connects as the role nobody (peer authentication checks that it is).
        let asNobody = try run("fsfind", ["--index-url", pg.url(database: db, user: "nobody"), "zebra"], asUser: "65534")
        #expect(asNobody.status == 0, "\(asNobody.stderr)")
        #expect(asNobody.stderr.isEmpty, "\(asNobody.stderr)")
        #expect(asNobody.lines == [tree.path("root/public.txt").string], "\(asNobody.out) \(asNobody.stderr)")
        // And nobody cannot claim another user's role: peer authentication refuses it.
        let claimed = try run("fsfind", ["--index-url", pg.url(database: db, user: "daemon"), "zebra"], asUser: "65534")
        #expect(claimed.status == 2 && claimed.lines.isEmpty, "\(claimed.out)")
    }
}
