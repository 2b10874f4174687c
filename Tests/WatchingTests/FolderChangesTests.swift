import Configuration
import Attributes
import Controlling
import Crawling
import Foundation
import IndexTestSupport
import Indexing
import Logging
import SystemPackage
import TestSupport
import Testing
import Updating
@testable import Watching

/// What live-query subscribers hear when a whole folder changes: each item inside it, not just
/// the folder (issue 10, part 3).
@Suite("IndexDaemon on real inotify: folder changes reach subscribers item by item", .blocking, .serialized)
struct FolderChangesTests {
    /// A daemon over one root with a real inotify source, and everything it published.
    final class Watched: @unchecked Sendable {
        let tree: TemporaryTree
        let root: FilePath
        let outside: FilePath
        let store: IndexStore
        let daemon: IndexDaemon
        let published = Mutex<[ItemChanges]>([])
        var running: Task<Void, Never>?

        init(settings: Settings = Settings()) throws {
            tree = try TemporaryTree(prefix: "fsindex-folder-changes")
            try tree.createDirectory("root")
            root = tree.path("root")
            outside = tree.path("outside")
            store = try tree.makeIndexStore()
            let source = try InotifyEventSource(pollInterval: .seconds(30))
            daemon = IndexDaemon(store: store, settings: settings, roots: [root], source: source,
                                 logger: Logger(label: "test"))
            daemon.setPublisher { [published] c in published.withLock { $0.append(c) } }
        }

        func start() async throws {
            running = Task(executorPreference: ThreadPerJobExecutor()) { [daemon] in await daemon.run() }
            try await waitFor("the first crawl") { daemon.status.state == .watching }
        }

        func stop() async {
            daemon.submit(.shutdown)
            await running?.value
        }

        /// Forgets what was published so far.
        func reset() { published.withLock { $0 = [] } }

        /// Waits (up to 60 s) until the changes published since the last `reset()` list every
        /// one of `updated` as updated and every one of `removed` as removed; records what is
        /// missing. The last look comes after the deadline: in the full suite this task can be
        /// woken long after its sleep (long synchronous tests hold the cooperative pool), and a
        /// loop that stopped at the deadline without looking failed with everything published.
        func expectPublished(updated: [[UInt8]] = [], removed: [[UInt8]] = [], _ step: String) async throws {
            var missing: (updated: [[UInt8]], removed: [[UInt8]]) = (updated, removed)
            let done = await eventually(60, every: .milliseconds(25)) {
                let all = published.withLock { $0 }
                let u = Set(all.flatMap(\.updated)), r = Set(all.flatMap(\.removed))
                missing = (updated.filter { !u.contains($0) }, removed.filter { !r.contains($0) })
                return missing.updated.isEmpty && missing.removed.isEmpty
            }
            if done { return }
            let show = { (paths: [[UInt8]]) in paths.map { ByteString.escaped($0) } }
            Issue.record("""
                \(step): not published as updated: \(show(missing.updated)); not published as removed: \(show(missing.removed))
                published: \(published.withLock { $0 }.map { "updated \(show($0.updated)) removed \(show($0.removed))" })
                """)
        }

        func has(_ path: FilePath) throws -> Bool { try store.item(ItemIdentifier(bytes: path.bytes)) != nil }
    }

    static let mbox = """
        From a@example.org Mon Jun 01 10:00:00 2009
        From: a@example.org
        Subject: First

        first body

        From b@example.org Mon Jun 01 10:00:00 2009
        From: b@example.org
        Subject: Second

        second body

        """

    /// The identifiers of a folder made by `fill` and everything the index holds inside it.
    static func items(in folder: FilePath) -> [[UInt8]] {
        let box = folder.appending("mail.mbox").bytes
        return [folder.bytes, folder.appending("note.txt").bytes, folder.appending("sub").bytes,
                folder.appending("sub/deep.txt").bytes, box,
                box + [0] + Array("message/1".utf8), box + [0] + Array("message/2".utf8)]
    }

    @Test("a folder created, renamed, moved out, moved in and deleted: each item inside it is published")
    func folderLifecycle() async throws {
        let w = try Watched()
        try await w.start()
        defer { Task { [w] in await w.stop() } }

        // Created: the folder, then its files (some written before the watch on it exists).
        let made = w.root.appending("box")
        try w.tree.createDirectory("root/box")
        try w.tree.create("root/box/note.txt", contents: "kestrel note")
        try w.tree.create("root/box/sub/deep.txt", contents: "kestrel deep")
        try w.tree.create("root/box/mail.mbox", contents: Self.mbox)
        try await w.expectPublished(updated: Self.items(in: made), "created")
        #expect(try Self.items(in: made).allSatisfy { try w.store.item(ItemIdentifier(bytes: $0)) != nil })

        // Renamed inside the root: every old identifier goes, every new one comes.
        w.reset()
        let renamed = w.root.appending("renamed")
        #expect(rename(made.string, renamed.string) == 0)
        try await w.expectPublished(updated: Self.items(in: renamed), removed: Self.items(in: made), "renamed")
        #expect(try !w.has(made.appending("note.txt")) && w.has(renamed.appending("note.txt")))

        // Moved out of the root: every item inside it goes.
        w.reset()
        #expect(rename(renamed.string, w.outside.string) == 0)
        try await w.expectPublished(removed: Self.items(in: renamed), "moved out")
        #expect(try !w.has(renamed) && !w.has(renamed.appending("sub/deep.txt")))

        // Moved back in: every item inside it comes.
        w.reset()
        let back = w.root.appending("back")
        #expect(rename(w.outside.string, back.string) == 0)
        try await w.expectPublished(updated: Self.items(in: back), "moved in")
        #expect(try w.has(back.appending("sub/deep.txt")))

        // Deleted: every item inside it goes.
        w.reset()
        let rm = Process()
        rm.executableURL = URL(fileURLWithPath: "/bin/rm")
        rm.arguments = ["-rf", back.string]
        try rm.run()
        rm.waitUntilExit()
        try await w.expectPublished(removed: Self.items(in: back), "deleted")
        #expect(try w.store.count() == 1)   // the root alone
        await w.stop()
    }

    @Test("a folder moved away in one step (no rm -rf events for its files): each item inside it is published")
    func folderMovedAwayThenDeleted() async throws {
        // A missing root loses its items at once only without a grace period.
        var settings = Settings()
        settings.daemon.missingRootGrace = 0
        let w = try Watched(settings: settings)
        let folder = w.root.appending("box")
        try w.tree.create("root/box/note.txt", contents: "kestrel note")
        try w.tree.create("root/box/sub/deep.txt", contents: "kestrel deep")
        try w.tree.create("root/box/mail.mbox", contents: Self.mbox)
        try await w.start()
        defer { Task { [w] in await w.stop() } }
        #expect(try w.has(folder.appending("mail.mbox")))
        // The root itself goes: with no grace period, its items go with it.
        #expect(rename(w.root.string, w.outside.string) == 0)
        try await w.expectPublished(removed: Self.items(in: folder) + [w.root.bytes], "root moved away")
        #expect(try w.store.count() == 0)
        await w.stop()
    }
}

@Suite("LiveIndexer: what a rename publishes", .blocking)
struct LiveIndexerRenameTests {
    @Test("a save by rename over an existing file publishes the file as updated, not removed")
    func renameOverFile() throws {
        let f = try LiveFixture()
        try f.tree.create("root/doc.txt", contents: "first")
        _ = try f.live.apply([.created(f.p("doc.txt"), isDirectory: false)])
        try f.tree.create("root/doc.txt.new", contents: "second")
        _ = try f.live.apply([.created(f.p("doc.txt.new"), isDirectory: false)])
        #expect(rename(f.p("doc.txt.new").string, f.p("doc.txt").string) == 0)
        let changes = try f.live.apply([.moved(from: f.p("doc.txt.new"), to: f.p("doc.txt"), isDirectory: false)])
        #expect(changes.removed.map(\.description) == [f.p("doc.txt.new").string])
        #expect(changes.updated.map(\.description).contains(f.p("doc.txt").string))
        #expect(try f.text("doc.txt") == "second")
    }

    @Test("a folder renamed over an empty one, and one that was excluded coming into view, publish every item")
    func renameOverFolderAndIntoView() throws {
        let f = try LiveFixture()
        try f.tree.create("root/a/x.txt", contents: "x")
        try f.tree.createDirectory("root/b")
        _ = try f.live.apply([.rescan(f.root, recursive: true)])
        #expect(rename(f.p("a").string, f.p("b").string) == 0)
        let changes = try f.live.apply([.moved(from: f.p("a"), to: f.p("b"), isDirectory: true)])
        #expect(Set(changes.removed.map(\.description)) == [f.p("a").string, f.p("a/x.txt").string])
        #expect(Set(changes.updated.map(\.description)).isSuperset(of: [f.p("b").string, f.p("b/x.txt").string]))

        // A hidden folder (not indexed) renamed to a visible name: its contents come into view.
        try f.tree.create("root/.hidden/y.txt", contents: "y")
        #expect(rename(f.p(".hidden").string, f.p("shown").string) == 0)
        let shown = try f.live.apply([.moved(from: f.p(".hidden"), to: f.p("shown"), isDirectory: true)])
        #expect(Set(shown.updated.map(\.description)).isSuperset(of: [f.p("shown").string, f.p("shown/y.txt").string]))
        #expect(try f.has("shown/y.txt"))
    }
}
