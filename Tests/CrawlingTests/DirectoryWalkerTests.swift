import Crawling
import Foundation
import SystemPackage
import TestSupport
import Testing

/// Walks `root` and returns the paths seen (relative, as bytes) and the problems.
func walk(_ root: FilePath, _ options: WalkOptions = WalkOptions()) throws -> (seen: [[UInt8]: FileFacts], problems: [WalkProblem]) {
    var seen: [[UInt8]: FileFacts] = [:]
    var problems: [WalkProblem] = []
    let prefix = root.bytes.count + 1
    try DirectoryWalker(root: root, options: options).walk({ f in
        seen[Array(f.pathBytes.dropFirst(min(prefix, f.pathBytes.count)))] = f
    }, problem: { problems.append($0) })
    return (seen, problems)
}

func rel(_ s: String) -> [UInt8] { Array(s.utf8) }

@Suite("DirectoryWalker")
struct DirectoryWalkerTests {
    @Test("every entry is reported once, with names kept as bytes")
    func bytesEndToEnd() throws {
        let tree = try TemporaryTree()
        try tree.create("a/b/c.txt", contents: "x")
        try tree.create("top.txt")
        let bad: [UInt8] = Array("bad".utf8) + [0xFF, 0xFE] + Array(".txt".utf8)
        try tree.createBytes(directory: "a", name: bad, contents: Array("payload".utf8))
        try tree.create("caf\u{E9}.txt", contents: "nfc")
        try tree.create("cafe\u{301}.txt", contents: "nfd")
        let (seen, problems) = try walk(tree.root)
        #expect(problems.isEmpty)
        #expect(seen[rel("a/b/c.txt")]?.type == .regular)
        #expect(seen[rel("a/b")]?.type == .directory)
        let badRel = rel("a/") + bad
        let badFacts = try #require(seen[badRel])
        #expect(badFacts.size == 7)   // statx on the exact bytes worked
        #expect(seen[rel("caf\u{E9}.txt")] != nil && seen[rel("cafe\u{301}.txt")] != nil)
        #expect(seen.count == 8)      // root, a, a/b, c.txt, top.txt, bad, nfc, nfd
    }

    @Test("symlinks are reported as links and never followed, so a loop cannot hang")
    func symlinks() throws {
        let tree = try TemporaryTree()
        try tree.create("real/file.txt", contents: "x")
        try tree.symlink("real/loop", to: "..")
        try tree.symlink("link-to-real", to: "real")
        try tree.symlink("dangling", to: "/nonexistent/target")
        let (seen, problems) = try walk(tree.root)
        #expect(problems.isEmpty)
        #expect(seen[rel("real/loop")]?.type == .symlink)
        #expect(seen[rel("link-to-real")]?.type == .symlink)
        #expect(seen[rel("dangling")]?.type == .symlink)
        #expect(seen[rel("link-to-real/file.txt")] == nil)
        #expect(seen[rel("real/loop/real")] == nil)
    }

    @Test("a FIFO is reported from its facts and never opened")
    func fifo() throws {
        let tree = try TemporaryTree()
        try tree.mkfifo("pipe")
        let (seen, _) = try walk(tree.root)
        #expect(seen[rel("pipe")]?.type == .fifo)
    }

    @Test("hidden entries, glob patterns and .noindex folders are left out")
    func exclusions() throws {
        let tree = try TemporaryTree()
        try tree.create(".hidden/secret.txt")
        try tree.create(".dotfile")
        try tree.create("keep.txt")
        try tree.create("drop.tmp")
        try tree.create("node_modules/pkg/index.js")
        try tree.create("private/stuff/a.txt")
        try tree.create("skipme/.noindex")
        try tree.create("skipme/inner.txt")
        let rules = ExclusionRules(includeHidden: false, patterns: ["*.tmp", "node_modules", tree.root.string + "/private/*"])
        let (seen, _) = try walk(tree.root, WalkOptions(exclusions: rules))
        let names = Set(seen.keys.map { String(decoding: $0, as: UTF8.self) })
        #expect(names.contains("keep.txt"))
        #expect(names.contains("private"))
        for gone in [".hidden", ".hidden/secret.txt", ".dotfile", "drop.tmp", "node_modules", "private/stuff", "private/stuff/a.txt", "skipme/inner.txt"] {
            #expect(!names.contains(gone), "\(gone) should be excluded")
        }
        let withHidden = try walk(tree.root, WalkOptions(exclusions: ExclusionRules(includeHidden: true)))
        #expect(withHidden.seen[rel(".hidden/secret.txt")] != nil)
        #expect(withHidden.seen[rel("skipme/inner.txt")] == nil)
    }

    @Test("an unreadable folder is reported, its own facts kept, the rest walked", .needsNonRoot)
    func unreadableFolder() throws {
        let tree = try TemporaryTree()
        try tree.create("locked/inside.txt")
        try tree.create("open/visible.txt")
        try tree.chmod("locked", 0o000)
        let (seen, problems) = try walk(tree.root)
        #expect(seen[rel("locked")]?.type == .directory)
        #expect(seen[rel("open/visible.txt")] != nil)
        #expect(problems.count == 1)
        #expect(problems.first?.errno == .permissionDenied)
    }

    @Test("a missing root throws a problem naming the path")
    func missingRoot() throws {
        let tree = try TemporaryTree()
        #expect(throws: WalkProblem.self) { try walk(tree.path("nope")) }
    }

    @Test("issue 11: a 10,000-deep tree (20,000-byte paths) is walked whole, without a crash or a problem")
    func deepTree() throws {
        let tree = try TemporaryTree()
        // Build it with *at calls: the full path soon passes PATH_MAX.
        var fd = open(tree.root.string, O_RDONLY | O_DIRECTORY)
        for _ in 0..<10_000 {
            #expect(mkdirat(fd, "d", 0o755) == 0)
            let next = openat(fd, "d", O_RDONLY | O_DIRECTORY)
            close(fd)
            fd = next
        }
        close(fd)
        let (seen, problems) = try walk(tree.root)
        #expect(seen.count == 10_001)
        #expect(problems.isEmpty, "\(problems.prefix(3))")
        // clean up bottom-up with *at calls too (rm -rf also copes, but be explicit)
    }
}
