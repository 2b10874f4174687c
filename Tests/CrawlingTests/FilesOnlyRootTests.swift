@testable import Crawling
import Foundation
import SystemPackage
import TestSupport
import Testing

/// Files-only roots (`shallow_roots`, the home folder of the defaults): the root and the entries
/// directly in it that are not folders, and nothing below (issue 26).
@Suite("Files-only roots")
struct FilesOnlyRootWalkTests {
    @Test("issue 26: a files-only root's walk reports the root and its direct files, no subfolder and nothing in one")
    func walkIsShallow() throws {
        let tree = try TemporaryTree()
        try tree.create("notes.txt", contents: "kittiwake")
        try tree.create("todo.md", contents: "x")
        try tree.symlink("link", to: "notes.txt")
        try tree.create("Projects/deep/plan.txt", contents: "y")
        try tree.create("Documents/letter.txt", contents: "z")
        let (seen, problems) = try walk(tree.root, WalkOptions(filesOnly: true))
        #expect(problems.isEmpty)
        #expect(Set(seen.keys) == [rel(""), rel("notes.txt"), rel("todo.md"), rel("link")], "\(seen.keys.map { String(decoding: $0, as: UTF8.self) })")
        // The same tree walked as an ordinary root: everything, as before.
        let (all, _) = try walk(tree.root)
        #expect(all.count == 9)
        #expect(all[rel("Projects/deep/plan.txt")] != nil && all[rel("Documents")]?.type == .directory)
    }
}

@Suite("Files-only roots on real inotify", .serialized)
struct FilesOnlyRootWatchTests {
    @Test("issue 26: a new file directly in a files-only root is seen, one in its subfolder is not, while a nested recursive root sees its own")
    func watchIsShallow() async throws {
        let watched = try WatchedTree(options: WalkOptions(filesOnly: true)) { tree in
            try tree.create("Projects/old.txt", contents: "x")
            try tree.createDirectory("Documents/inner")
        }
        // ~/Documents under a files-only ~: a root of its own, at every depth.
        try watched.source.add(root: watched.path("Documents"), options: WalkOptions())
        #expect(watched.source.counts.watched == 3)   // the root, Documents, Documents/inner; not Projects
        try watched.sh("echo a > top.txt && echo b > Projects/new.txt && mkdir Fresh && echo c > Fresh/inside.txt "
                       + "&& echo d > Documents/doc.txt && echo e > Documents/inner/deep.txt")
        let events = await watched.collector.quiesce()
        #expect(covered(watched.path("top.txt"), by: events), "\(events)")
        #expect(covered(watched.path("Documents/doc.txt"), by: events), "\(events)")
        #expect(covered(watched.path("Documents/inner/deep.txt"), by: events), "\(events)")
        for outside in ["Projects/new.txt", "Fresh", "Fresh/inside.txt"] {
            #expect(!covered(watched.path(outside), by: events), "\(outside): \(events)")
        }
        #expect(!events.contains { if case .created(let p, true) = $0 { p == watched.path("Fresh") } else { false } })
        // The new folder got no watch either.
        #expect(watched.source.counts.watched == 3)
        // The nested root removed: the files-only root does not take its folders over.
        watched.source.remove(root: watched.path("Documents"))
        #expect(await watched.collector.wait { _ in watched.source.counts.watched == 1 }, "\(watched.source.counts)")
    }
}
