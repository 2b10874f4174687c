import Foundation
import SystemPackage
import TestSupport
import Testing

extension DaemonFixture {
    /// The daemon's part of `fsindex status --json`.
    func daemonStatus() -> [String: Any]? {
        guard let r = try? fsindex("status", "--json"),
              let obj = try? JSONSerialization.jsonObject(with: r.stdout) as? [String: Any] else { return nil }
        return obj["daemon"] as? [String: Any]
    }

    /// The printable paths of the roots the daemon reports missing.
    func missingRoots() -> [String] {
        ((daemonStatus()?["missingRoots"] as? [[String: Any]]) ?? []).compactMap { $0["path"] as? String }
    }

    /// Items in the index (`fsindex status --json`).
    func itemCount() -> Int? {
        guard let r = try? fsindex("status", "--json"),
              let obj = try? JSONSerialization.jsonObject(with: r.stdout) as? [String: Any] else { return nil }
        return obj["items"] as? Int
    }

    /// Waits until the daemon's queue is empty and `fsindex check` says the index equals the disk.
    func waitInStep(seconds: Double = 60) throws {
        try waitFor("the index to equal the disk", seconds: seconds) {
            guard (daemonStatus()?["queueLength"] as? Int) == 0 else { return false }
            return try fsindex("check").status == 0
        }
    }

    func mv(_ from: String, _ to: String) {
        #expect(rename(from, to) == 0, "rename \(from) -> \(to): \(String(cString: strerror(errno)))")
    }
}

@Suite("fsindexd: a root that disappears and comes back (issue 11)", .blocking, .serialized)
struct DaemonRootFaultTests {
    @Test("a root moved away and back: its items are kept meanwhile, status says it is missing, and it is watched again")
    func movedAwayAndBack() async throws {
        try await offPool {
            let d = try DaemonFixture()
            try d.tree.create("root/a.txt", contents: "kestrel")
            try d.tree.create("root/sub/b.txt", contents: "merlin")
            try d.start()
            let items = try #require(d.itemCount())
            d.mv(d.root, d.root + ".away")
            try d.waitFor("the root to be reported missing") { d.missingRoots() == [d.root] }
            let text = try d.fsindex("status").out
            #expect(text.contains("missing root: \(d.root) (gone for"), "\(text)")
            #expect(text.contains("waiting for it to come back; its items are kept for"))
            #expect(d.itemCount() == items)
            d.mv(d.root + ".away", d.root)
            try d.waitFor("the root to be back") { d.missingRoots().isEmpty }
            try d.tree.create("root/sub/new.txt", contents: "hobby")
            try d.waitFor("a file created after the return") { try d.find("hobby") == [d.root + "/sub/new.txt"] }
            #expect(try d.find("kestrel") == [d.root + "/a.txt"])
            #expect((d.daemonStatus()?["watched"] as? Int) == 2)
            try d.waitInStep()
            #expect(d.log.contains("is back after"))
        }
    }

    @Test("a root deleted and created again with new files: the new files are indexed, the old ones go")
    func deletedAndRecreated() async throws {
        try await offPool {
            let d = try DaemonFixture()
            try d.tree.create("root/old/one.txt", contents: "plover")
            try d.start()
            try FileManager.default.removeItem(atPath: d.root)
            try d.waitFor("the root to be reported missing") { d.missingRoots() == [d.root] }
            #expect((d.daemonStatus()?["watched"] as? Int) == 0)
            try d.tree.create("root/fresh/two.txt", contents: "dunlin")
            try d.waitFor("the re-created root's files") { try d.find("dunlin") == [d.root + "/fresh/two.txt"] }
            #expect(try d.find("plover").isEmpty)
            try d.tree.create("root/fresh/three.txt", contents: "sanderling")
            try d.waitFor("a file created afterwards") { try d.find("sanderling") == [d.root + "/fresh/three.txt"] }
            #expect(d.missingRoots().isEmpty)
            try d.waitInStep()
        }
    }

    @Test("the root's parent renamed away and back: changes made meanwhile and afterwards are found")
    func parentRenamed() async throws {
        try await offPool {
            let d = try DaemonFixture()
            let parent = d.tree.path("parent").string
            let root = parent + "/root"
            try d.tree.create("parent/root/a.txt", contents: "curlew")
            try d.start(["--root", root])
            d.mv(parent, parent + ".renamed")
            try d.waitFor("the root to be reported missing") { d.missingRoots() == [root] }
            try d.tree.create("parent.renamed/root/while-away.txt", contents: "whimbrel")
            d.mv(parent + ".renamed", parent)
            try d.waitFor("the file written while away") { try d.find("whimbrel") == [root + "/while-away.txt"] }
            try d.tree.create("parent/root/after.txt", contents: "godwit")
            try d.waitFor("a file created after the return") { try d.find("godwit") == [root + "/after.txt"] }
            #expect(try d.find("curlew") == [root + "/a.txt"])
            try d.waitInStep()
        }
    }

    @Test("missing_root_grace = 0: a missing root's items are removed at once, and indexed again when it returns")
    func graceZero() async throws {
        try await offPool {
            let d = try DaemonFixture()
            try d.tree.create("config/fsindex/config.toml", contents: DaemonFixture.baseConfig + "missing_root_grace = 0\n")
            try d.tree.create("root/a.txt", contents: "turnstone")
            try d.start()
            #expect(d.itemCount() == 2)
            d.mv(d.root, d.root + ".away")
            try d.waitFor("the items to be removed") { d.itemCount() == 0 }
            let missing = try #require((d.daemonStatus()?["missingRoots"] as? [[String: Any]])?.first)
            #expect(missing["itemsKeptForSeconds"] == nil)
            #expect(try d.fsindex("status").out.contains("its items were removed"))
            d.mv(d.root + ".away", d.root)
            try d.waitFor("the items to come back") { try d.find("turnstone") == [d.root + "/a.txt"] }
            try d.waitInStep()
        }
    }
}
