import Foundation
import SystemPackage
import TestSupport
import Testing

@Suite("fsindex check: the index against the disk", .blocking)
struct CheckCommandTests {
    @Test("in step after a crawl; missing, extra and stale entries are named, non-UTF-8 names byte for byte")
    func differences() throws {
        let f = try CLIFixture()
        try f.tree.create("root/a.txt", contents: "alpha")
        try f.tree.create("root/sub/b.txt", contents: "beta")
        try f.tree.create("root/gone.txt", contents: "gone")
        try f.fsindex("index", f.root)
        let clean = try f.fsindex("check")
        #expect(clean.status == 0, "\(clean.out)\(clean.stderr)")
        #expect(clean.out.isEmpty)
        #expect(clean.stderr.contains("in step"))

        let odd: [UInt8] = Array("kes".utf8) + [0xFF] + Array(".txt".utf8)
        try f.tree.createBytes(directory: "root/sub", name: odd, contents: Array("new".utf8))
        try f.tree.remove("root/gone.txt")
        try f.tree.create("root/a.txt", contents: "alpha, longer now")
        let r = try f.fsindex("check")
        #expect(r.status == 1)
        // The root's and sub's times changed with the entries removed and added in them.
        var expected = Data("stale\t\(f.root)\n".utf8)
        expected += Data("stale\t\(f.root)/a.txt\n".utf8)
        expected += Data("extra\t\(f.root)/gone.txt\n".utf8)
        expected += Data("stale\t\(f.root)/sub\n".utf8)
        expected += Data("missing\t".utf8) + Data(Array("\(f.root)/sub/".utf8) + odd) + Data("\n".utf8)
        #expect(r.stdout == expected, "\(r.out)")
        #expect(r.stderr.contains("5 differences"))

        // The next crawl brings it back in step; a root named on the command line is checked alone.
        try f.fsindex("index", f.root)
        #expect(try f.fsindex("check", f.root).status == 0)
        // A root that went away: its items are extra, with the reason on stderr.
        try FileManager.default.removeItem(atPath: f.root)
        let gone = try f.fsindex("check")
        #expect(gone.status == 1)
        #expect(gone.lines.count == 5 && gone.lines.allSatisfy { $0.hasPrefix("extra\t") })
        #expect(gone.stderr.contains("No such file or directory"))
        let noIndex = try run("fsindex", ["check"], env: ["FSINDEX_INDEX_DIR": f.tree.path("none").string])
        #expect(noIndex.status == 2 && noIndex.stderr.contains("no index at"))
    }
}
