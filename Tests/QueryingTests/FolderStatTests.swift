import Foundation
@testable import Querying
import TestSupport
import Testing
import Glibc

/// Issue 23: fsindexd checks a query's results through their folders (`FolderStat`); the
/// answer must be `lstat`'s for every kind of path.
@Suite("Results checked through their folders answer as lstat does (issue 23)")
struct FolderStatTests {
    @Test("files, links, missing files and folders, a file as a folder, a removed file, a name not UTF-8")
    func sameAsLstat() throws {
        let t = try TemporaryTree(prefix: "fsindex-folderstat")
        for i in 0..<5 { _ = try t.create("a/f\(i)", contents: "x") }
        _ = try t.create("plain", contents: "x")
        try t.symlink("link", to: t.path("a").string)
        try t.symlink("a/dangling", to: t.path("nowhere").string)
        _ = try t.createDirectory("a/sub")
        _ = try t.createBytes(directory: "a", name: [0x66, 0xFF, 0x2E], contents: [1])
        let root = t.rootBytes
        func p(_ s: String) -> [UInt8] { root + Array(("/" + s).utf8) }
        let folders = FolderStat()
        for round in 0..<3 {
            var paths: [[UInt8]] = []
            for i in 0..<6 { paths.append(p("a/f\(i)")) }                 // f5 is missing
            paths += [p("link/f1"), p("link/f9"), p("plain/x"), p("nope/x"), p("nope/y"), p("a/dangling"),
                      p("a/sub"), p("a/sub/"), p("a"), root + Array("/a/".utf8) + [0x66, 0xFF, 0x2E],
                      p("a/../a/f2"), p("a//f3"), Array("/".utf8)]
            for path in paths {
                let got = folders.state(of: path)
                let expected = FolderStat.lstat(path)
                #expect(got == expected, "round \(round), \(String(decoding: path, as: UTF8.self)): \(got), lstat: \(expected)")
            }
            // Removed once its folder is open: gone from then on.
            if round == 0 { try t.remove("a/f4") }
        }
        #expect(folders.openFolders >= 2, "folders met again should be opened")
        #expect(FolderStat.lstat(p("a/f1")) == .exists && FolderStat.lstat(p("a/f4")) == .gone
                && FolderStat.lstat(p("plain/x")) == .gone && FolderStat.lstat(p("a/dangling")) == .exists)
    }

    @Test("a folder that may not be searched: its files cannot be looked at, as with lstat", .enabled(if: geteuid() != 0))
    func unsearchableFolder() throws {
        let t = try TemporaryTree(prefix: "fsindex-folderstat")
        _ = try t.create("locked/f", contents: "x")
        _ = try t.create("locked/g", contents: "x")
        try t.chmod("locked", 0o600)
        defer { try? t.chmod("locked", 0o700) }
        let folders = FolderStat()
        for name in ["f", "g", "f", "h"] {
            let path = t.rootBytes + Array("/locked/\(name)".utf8)
            #expect(folders.state(of: path) == FolderStat.lstat(path))
            #expect(folders.state(of: path) == .inaccessible)
        }
    }
}
