import Foundation
import SystemPackage
import TestSupport
import Testing

@Suite("fsindex and fsfind, as users run them", .blocking)
struct CommandLineTests {
    @Test("index a folder, find files by word, name and prefix; exit codes 0 and 1")
    func indexAndFind() throws {
        let f = try CLIFixture()
        try f.tree.create("root/docs/report.txt", contents: "The quarterly marzipan forecast")
        try f.tree.create("root/docs/holiday-photos.txt", contents: "beach")
        try f.tree.create("root/other.md", contents: "# Heading\nmarzipan recipe")
        let index = try f.fsindex("index", f.root)
        #expect(index.status == 0, "\(index.stderr)")
        #expect(index.out.contains("indexed \(f.root): 5 entries"))
        let words = try f.fsfind("marzipan")
        #expect(words.status == 0)
        #expect(Set(words.lines) == [f.root + "/docs/report.txt", f.root + "/other.md"])
        #expect(try f.fsfind("quarterly", "marzi").lines == [f.root + "/docs/report.txt"])
        #expect(try f.fsfind("--name", "holi").lines == [f.root + "/docs/holiday-photos.txt"])
        let none = try f.fsfind("nosuchwordanywhere")
        #expect(none.status == 1 && none.out.isEmpty)
        #expect(try f.fsfind("--count", "marzipan").out == "2\n")
        #expect(try f.fsfind("--limit", "1", "marzipan").lines.count == 1)
        #expect(try f.fsfind("--onlyin", f.root + "/docs", "marzipan").lines == [f.root + "/docs/report.txt"])
    }

    @Test("-0 separates with NUL and keeps non-UTF-8 and newline names byte for byte")
    func nulAndBytes() throws {
        let f = try CLIFixture()
        let bad: [UInt8] = Array("caf".utf8) + [0xE9] + Array(".txt".utf8)   // Latin-1 name
        try f.tree.createBytes(directory: "root", name: bad, contents: Array("flibbertigibbet".utf8))
        try f.tree.create("root/a\nb.txt", contents: "flibbertigibbet")
        try f.fsindex("index", f.root)
        let r = try f.fsfind("-0", "flibbertigibbet")
        #expect(r.status == 0)
        let parts = r.stdout.split(separator: 0, omittingEmptySubsequences: true).map { Array($0) }
        #expect(Set(parts) == [Array((f.root + "/").utf8) + bad, Array((f.root + "/a\nb.txt").utf8)])
    }

    @Test("--json prints one object per line with path and the chosen attributes")
    func json() throws {
        let f = try CLIFixture()
        try f.tree.create("root/page.html", contents: "<title>Kestrel notes</title><p>kestrel hover</p>")
        try f.fsindex("index", f.root)
        let r = try f.fsfind("--json", "--attr", "kind", "--attr", "title", "--attr", "fileSize", "kestrel")
        #expect(r.lines.count == 1)
        let obj = try #require(try JSONSerialization.jsonObject(with: Data(r.lines[0].utf8)) as? [String: Any])
        #expect(obj["path"] as? String == f.root + "/page.html")
        #expect(obj["kind"] as? String == "HTML document")
        #expect(obj["title"] as? String == "Kestrel notes")
        #expect((obj["fileSize"] as? NSNumber)?.intValue == 48)
        #expect(obj["pathBase64"] == nil)
        // A name that is not UTF-8: printable path plus the exact bytes in base64.
        let name: [UInt8] = Array("kes".utf8) + [0xFF] + Array(".txt".utf8)
        try f.tree.createBytes(directory: "root", name: name, contents: Array("kestrel again".utf8))
        try f.fsindex("index", f.root)
        let odd = try f.fsfind("--json", "--name", "kes")
        let line = try #require(odd.lines.first)
        let o = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(o["path"] as? String == f.root + "/kes\\xFF.txt")
        #expect((o["pathBase64"] as? String).flatMap { Data(base64Encoded: $0) } == Data(Array((f.root + "/").utf8) + name))
    }

    @Test("show, status and erase")
    func showStatusErase() throws {
        let f = try CLIFixture()
        try f.tree.create("root/a.txt", contents: "alpha")
        try f.fsindex("index", f.root)
        let show = try f.fsindex("show", "--json", f.root + "/a.txt")
        #expect(show.status == 0)
        let obj = try #require(try JSONSerialization.jsonObject(with: show.stdout) as? [String: Any])
        #expect(obj["contentType"] as? String == "public.plain-text")
        #expect(obj["textContent"] as? String == "alpha")
        #expect(obj["domainIdentifier"] as? String == f.root)
        let text = try f.fsindex("show", f.root + "/a.txt")
        #expect(text.out.contains("kind") && text.out.contains("\"Plain text document\""))
        #expect(try f.fsindex("show", f.root + "/missing.txt").status == 1)
        let status = try f.fsindex("status", "--json")
        let s = try #require(try JSONSerialization.jsonObject(with: status.stdout) as? [String: Any])
        #expect(s["items"] as? Int == 2)
        let erase = try f.fsindex("erase")
        #expect(erase.out.contains("removed the index at \(f.index)"))
        let after = try f.fsfind("alpha")
        #expect(after.status == 2)
        #expect(after.stderr.contains("no index at"))
    }

    @Test("a missing or unreadable root: clear error, exit 2, the index unchanged")
    func badRoot() throws {
        let f = try CLIFixture()
        try f.tree.create("root/a.txt", contents: "alpha")
        try f.fsindex("index", f.root)
        let r = try f.fsindex("index", f.root, f.tree.path("does-not-exist").string)
        #expect(r.status == 2)
        #expect(r.stderr.contains("does-not-exist: No such file or directory"))
        #expect(try f.fsfind("--count", "alpha").out == "1\n")
        let status = try f.fsindex("status", "--json")
        #expect(status.out.contains("\"items\":2"))
        // No folder named, none in the config, and no default folder (the home folder does not exist).
        let noHome = ["FSINDEX_INDEX_DIR": f.index, "XDG_CONFIG_HOME": f.tree.path("no-config").string, "HOME": f.tree.path("no-home").string]
        let none = try run("fsindex", ["index"], env: noHome)
        #expect(none.status == 2 && none.stderr.contains("no folder to index"))
        let noDaemonRoots = try run("fsindexd", ["--foreground"], env: noHome)
        #expect(noDaemonRoots.status == 2 && noDaemonRoots.stderr.contains("no folder to index"))
        // `roots = []` set on purpose: nothing to index, not the defaults.
        try f.tree.create("empty-roots/fsindex/config.toml", contents: "roots = []\n")
        let emptyRoots = try run("fsindex", ["index"], env: ["FSINDEX_INDEX_DIR": f.index, "XDG_CONFIG_HOME": f.tree.path("empty-roots").string])
        #expect(emptyRoots.status == 2 && emptyRoots.stderr.contains("no folder to index"))
    }

    @Test("a bad config names the file, line and key; exit 2")
    func badConfig() throws {
        let f = try CLIFixture()
        let config = try f.tree.create("bad.toml", contents: "[crawl]\nexclude = 3\n")
        let r = try f.fsindex("index", "--config", config.string, f.root)
        #expect(r.status == 2)
        #expect(r.stderr.contains("bad.toml:2: crawl.exclude: expected an array of strings"))
    }

    @Test("usage errors exit 64 and no words exit with a message")
    func usage() throws {
        let f = try CLIFixture()
        #expect(try f.fsfind().status == 64)
        #expect(try f.fsfind("--limit", "0", "x").status == 64)
        try f.fsindex("index", f.root)
        let punct = try f.fsfind("!!!")
        #expect(punct.status == 2 && punct.stderr.contains("no letters or digits"))
    }

    @Test("a question through fsfind: --json names the stage of each result, --count counts its list, --literal asks the words as typed")
    func question() throws {
        let f = try CLIFixture()
        try f.tree.create("root/howto.txt", contents: "To pause the program for a few seconds, call sleep.")
        try f.tree.create("root/sleep.txt", contents: "sleep pauses the calling thread; the program resumes after the seconds given")
        try f.tree.create("root/other.txt", contents: "nothing about it here")
        try f.fsindex("index", f.root)
        let asked = "pause the program for a few seconds"
        let json = try f.fsfind("--json", asked)
        #expect(json.status == 0, "\(json.stderr)")
        let rows = json.lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(rows.map { $0["path"] as? String } == [f.root + "/howto.txt", f.root + "/sleep.txt"], "\(json.lines)")
        #expect(rows.map { $0["stage"] as? String } == ["the words in order", "any content word, by how many"], "\(json.lines)")
        #expect(try f.fsfind("--count", asked).out == "2\n")
        let literal = try f.fsfind("--json", "--literal", asked)
        #expect(literal.lines.count == 1 && !literal.out.contains("\"stage\""), "\(literal.lines)")
        #expect(try f.fsfind("--count", "--literal", asked).out == "1\n")
    }

    @Test("unreadable files and folders inside a root are reported, the rest indexed, metadata kept")
    func unreadableInside() throws {
        let f = try CLIFixture()
        try f.tree.create("root/open.txt", contents: "visible aardvark")
        try f.tree.create("root/secret.txt", contents: "hidden aardvark")
        try f.tree.create("root/locked/inner.txt", contents: "inner aardvark")
        try f.tree.chmod("root/secret.txt", 0o000)
        try f.tree.chmod("root/locked", 0o000)
        // As root nothing is unreadable: run the indexer as nobody.
        let asUser: String? = geteuid() == 0 ? "65534" : nil
        if asUser != nil {
            _ = Foundation.chmod(f.tree.root.string, 0o777)
            _ = Foundation.chmod(f.root, 0o777)
            for p in ["root/open.txt"] { _ = Foundation.chmod(f.tree.path(p).string, 0o644) }
        }
        let r = try run("fsindex", ["index", f.root], env: ["FSINDEX_INDEX_DIR": f.index], asUser: asUser)
        #expect(r.status == 2)
        #expect(r.stderr.contains("secret.txt: cannot read"))
        #expect(r.stderr.contains("locked: cannot list folder: Permission denied"))
        let found = try run("fsfind", ["aardvark"], env: ["FSINDEX_INDEX_DIR": f.index], asUser: asUser)
        #expect(found.lines == [f.root + "/open.txt"])
        let show = try run("fsindex", ["show", "--json", f.root + "/secret.txt"], env: ["FSINDEX_INDEX_DIR": f.index], asUser: asUser)
        #expect(show.out.contains("\"fileSize\":15"))
        #expect(show.out.contains("extractionError"))
    }

    @Test("a damaged index is moved aside and rebuilt from the files by the next `fsindex index`")
    func damagedIndex() throws {
        let f = try CLIFixture()
        try f.tree.create("root/a.txt", contents: "phoenix rises")
        try f.fsindex("index", f.root)
        let db = f.index + "/index.sqlite"
        let fd = open(db, O_WRONLY)
        let garbage = [UInt8](repeating: 0x5A, count: 100)
        _ = pwrite(fd, garbage, garbage.count, 0)
        close(fd)
        #expect(try f.fsfind("phoenix").status == 2)      // a clear error for the reader meanwhile
        let r = try f.fsindex("index", f.root)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("was damaged; it was moved aside and is rebuilt from the files"))
        #expect(try f.fsfind("phoenix").lines == [f.root + "/a.txt"])
    }

    @Test("reindex without a daemon runs the handler itself; pause needs a daemon")
    func reindexWithoutDaemon() throws {
        let f = try CLIFixture()
        try f.tree.create("root/a.txt", contents: "alpha")
        try f.tree.create("root/sub/b.txt", contents: "beta")
        try f.fsindex("index", f.root)
        let all = try f.fsindex("reindex", "--json")
        #expect(all.status == 0, "\(all.stderr)")
        let obj = try #require(try JSONSerialization.jsonObject(with: all.stdout) as? [String: Any])
        #expect(obj["indexed"] as? Int == 4)
        let one = try f.fsindex("reindex", f.root + "/sub")
        #expect(one.out.hasPrefix("reindexed: 2 read"))
        let outside = try f.fsindex("reindex", "/etc/hostname")
        #expect(outside.status == 2 && outside.stderr.contains("not inside an indexed root"))
        let pause = try f.fsindex("pause")
        #expect(pause.status == 2 && pause.stderr.contains("fsindexd is not running"))
    }

    @Test("a crawl killed with SIGKILL resumes and ends with exactly the files on disk")
    func killAndResume() throws {
        let f = try CLIFixture()
        for d in 0..<20 {
            for i in 0..<150 {
                try f.tree.create("root/d\(d)/f\(i).txt", contents: "file \(d) \(i) " + String(repeating: "filler text ", count: 200))
            }
        }
        let config = try f.tree.create("small-batches.toml", contents: "[index]\nbatch_size = 20\nthreads = 1\n")
        let p = Process()
        p.executableURL = Binaries.directory.appendingPathComponent("fsindex")
        p.arguments = ["index", "--config", config.string, f.root]
        p.environment = ["FSINDEX_INDEX_DIR": f.index, "HOME": f.tree.root.string]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        // Wait until some batches are committed, then kill. A real process: on a loaded machine
        // its first 200 items took more than 10 s (a loaded run of the suite).
        var partial = 0
        _ = eventually(60, every: .milliseconds(25)) {
            guard let s = try? run("fsindex", ["status", "--json"], env: ["FSINDEX_INDEX_DIR": f.index]),
                  let obj = try? JSONSerialization.jsonObject(with: s.stdout) as? [String: Any], let n = obj["items"] as? Int, n > 200 else { return false }
            partial = n
            return true
        }
        kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
        #expect(partial > 0)
        // Change the disk meanwhile: one file gone, one new.
        try f.tree.remove("root/d0/f0.txt")
        try f.tree.create("root/d0/new.txt", contents: "newcomer")
        let resumed = try f.fsindex("index", "--config", config.string, f.root)
        #expect(resumed.status == 0, "\(resumed.stderr)")
        let status = try f.fsindex("status", "--json")
        let obj = try #require(try JSONSerialization.jsonObject(with: status.stdout) as? [String: Any])
        #expect(obj["items"] as? Int == 1 + 20 + 20 * 150)   // root + folders + files (one removed, one added)
        #expect(try f.fsfind("--count", "filler").out == "\(20 * 150 - 1)\n")
        #expect(try f.fsfind("newcomer").lines == [f.root + "/d0/new.txt"])
        let again = try f.fsindex("index", "--json", f.root)
        #expect(again.out.contains("\"indexed\":0"))
    }
}
