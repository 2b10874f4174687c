import Foundation
import SystemPackage
import TestSupport
import Testing

/// Two files with the same words and the same dates, so that only a use can tell them apart
/// (without one, the path decides: `a` before `b`).
private func equalPair(_ tree: TemporaryTree, _ a: String = "root/a.txt", _ b: String = "root/b.txt") throws {
    try tree.create(a, contents: "kestrel report")
    try tree.create(b, contents: "kestrel report")
    let when = Date(timeIntervalSince1970: 1_780_000_000)
    for p in [a, b] { try FileManager.default.setAttributes([.modificationDate: when], ofItemAtPath: tree.path(p).string) }
}

private func json(_ r: CommandResult) -> [String: Any] {
    (try? JSONSerialization.jsonObject(with: r.stdout) as? [String: Any]) ?? [:]
}

@Suite("fsindex used and --sort used (issue 13)", .blocking, .serialized)
struct UsageCLITests {
    @Test("fsindex used raises useCount and puts the used file first; --sort used and used: read it")
    func usedChangesRanking() throws {
        let f = try CLIFixture()
        try equalPair(f.tree)
        try f.tree.create("root/kestrel.txt", contents: "kestrel")
        #expect(try f.fsindex("index", f.root).status == 0)
        let a = f.root + "/a.txt", b = f.root + "/b.txt", named = f.root + "/kestrel.txt"
        #expect(try f.fsfind("kestrel", "report").lines == [a, b])
        #expect(try f.fsfind("used:>2000-01-01").lines.isEmpty)   // no access time taken for a use

        let used = try f.fsindex("used", b)
        #expect(used.status == 0, "\(used.stderr)")
        #expect(used.out == b + ": used once\n")
        #expect(try f.fsfind("kestrel", "report").lines == [b, a])
        #expect(try f.fsindex("used", "--title", "Reviewing", b).out == b + ": used 2 times\n")
        let shown = json(try f.fsindex("show", "--json", b))
        #expect(shown["useCount"] as? Int == 2)
        #expect(shown["lastUsedDate"] is String)
        #expect(json(try f.fsindex("show", "--json", a))["useCount"] == nil)

        // The name match ranks first by relevance; by last use, the used file does, the rest after.
        #expect(try f.fsfind("kestrel").lines.first == named)
        let byUse = try f.fsfind("--sort", "used", "kestrel").lines
        #expect(byUse.first == b)
        #expect(Set(byUse.dropFirst()) == [a, named])
        #expect(try f.fsfind("used:>2000-01-01").lines == [b])
        #expect(try f.fsfind("uses:>=2").lines == [b])
    }

    @Test("uses survive `fsindex index` after the file changed, and a use of a file not yet indexed applies once it is")
    func survivesReindex() throws {
        let f = try CLIFixture()
        try equalPair(f.tree)
        #expect(try f.fsindex("index", f.root).status == 0)
        let b = f.root + "/b.txt", later = f.root + "/later.txt"
        #expect(try f.fsindex("used", b).status == 0)
        try f.tree.create("root/b.txt", contents: "kestrel report, rewritten with more words")
        try f.tree.create("root/later.txt", contents: "kestrel")
        #expect(try f.fsindex("used", later).out == later + ": used once (not in the index yet; the use applies when it is indexed)\n")
        let indexed = try f.fsindex("index", f.root)
        #expect(indexed.status == 0)
        let shown = json(try f.fsindex("show", "--json", b))
        #expect(shown["useCount"] as? Int == 1)
        #expect((shown["textContent"] as? String)?.contains("rewritten") == true)
        #expect(json(try f.fsindex("show", "--json", later))["useCount"] as? Int == 1)
        #expect(Set(try f.fsfind("used:>2000-01-01").lines) == [b, later])
        // A reindex of everything (every file read again) keeps them too.
        #expect(try f.fsindex("reindex").status == 0)
        #expect(json(try f.fsindex("show", "--json", b))["useCount"] as? Int == 1)
    }

    @Test("anything but an existing file is refused by name, and nothing is recorded")
    func refusesNonPaths() throws {
        let f = try CLIFixture()
        try f.tree.create("root/a.txt", contents: "kestrel")
        #expect(try f.fsindex("index", f.root).status == 0)
        let missing = try f.fsindex("used", f.root + "/a.txt", f.root + "/missing.txt")
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("missing.txt: no such file or directory"))
        let donated = try f.fsindex("used", "com.example.notes:42")
        #expect(donated.status == 2)
        #expect(donated.stderr.contains("com.example.notes:42"))
        #expect(try f.fsfind("used:>2000-01-01").lines.isEmpty)
    }
}

@Suite("fsindexd: uses through the socket and the recently-used list (issue 13)", .blocking, .serialized)
struct UsageDaemonTests {
    @Test("fsindex used goes through fsindexd's single writer while it runs")
    func usedThroughDaemon() async throws {
        try await offPool {
            let d = try DaemonFixture()
            try equalPair(d.tree)
            try d.start()
            let a = d.root + "/a.txt", b = d.root + "/b.txt"
            #expect(try d.fsindex("used").status != 0)
            #expect(try run("fsfind", ["kestrel"], env: d.env).lines == [a, b])
            let used = try d.fsindex("used", b)
            #expect(used.status == 0, "\(used.stderr)")
            #expect(used.out == b + ": used once\n")
            #expect(d.log.contains("recorded a use of 1 items"))
            #expect(try run("fsfind", ["kestrel"], env: d.env).lines == [b, a])
            #expect(d.stop() == 0)
        }
    }

    @Test("a recently-used.xbel in GTK's format changes the ranking while fsindexd runs; the same visits again (or after a restart) count nothing, a new one counts")
    func followsRecentlyUsed() async throws {
        try await offPool {
            let d = try DaemonFixture()
            try d.tree.createDirectory("data")
            try equalPair(d.tree, "root/a plain.txt", "root/b café.txt")
            try d.start()
            let a = d.root + "/a plain.txt", b = d.root + "/b café.txt"
            let list = d.tree.path("data/recently-used.xbel").string
            #expect(try run("fsfind", ["kestrel"], env: d.env).lines == [a, b])
            func useCount() throws -> Int? { json(try d.fsindex("show", "--json", b))["useCount"] as? Int }
            func reads() -> Int { d.log.components(separatedBy: "recently used files read").count - 1 }

            let visit = RecentlyUsedFixture.Entry(path: b, visited: "2026-11-24T10:00:00.123456Z",
                                                  applications: [("org.gnome.TextEditor", 2)])
            let elsewhere = RecentlyUsedFixture.Entry(path: d.tree.path("outside.txt").string, visited: "2026-11-24T10:00:00Z")
            try RecentlyUsedFixture.write(RecentlyUsedFixture.xbel([visit, elsewhere]), to: list)
            try d.waitFor("the visits") { try run("fsfind", ["kestrel"], env: d.env).lines == [b, a] }
            #expect(try useCount() == 2)

            var before = reads()
            try RecentlyUsedFixture.write(RecentlyUsedFixture.xbel([visit, elsewhere]), to: list)
            try d.waitFor("the list read again") { reads() > before }
            #expect(try useCount() == 2)

            before = reads()
            try RecentlyUsedFixture.write("<xbel><bookmark href=\"file://", to: list)
            try d.waitFor("the malformed list logged") { d.log.contains("not valid XBEL") }
            #expect(try useCount() == 2)

            var next = visit
            next.visited = "2026-11-25T08:00:00Z"
            try RecentlyUsedFixture.write(RecentlyUsedFixture.xbel([next, elsewhere]), to: list)
            try d.waitFor("the new visit") { try useCount() == 3 }
            #expect(d.daemonState() == "watching")
            #expect(d.stop() == 0)

            // A restart reads the list again and counts none of its visits twice.
            try d.start()   // (a new log)
            try d.waitFor("the list read after the restart") { reads() > 0 }
            #expect(try useCount() == 3)
            #expect(try run("fsfind", ["kestrel"], env: d.env).lines == [b, a])
            #expect(d.stop() == 0)
        }
    }
}
