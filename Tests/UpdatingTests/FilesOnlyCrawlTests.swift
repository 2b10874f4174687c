import Configuration
import Crawling
import Foundation
import IndexTestSupport
import Indexing
import SystemPackage
import TestSupport
import Testing
@testable import Updating

/// A files-only root in the index: its files in its domain, a nested root's in its own, and the
/// depth kept by rescans and reindexes (issue 26).
@Suite("Files-only crawl")
struct FilesOnlyCrawlTests {
    static func ids(_ store: IndexStore, _ root: FilePath, relativeTo base: FilePath) throws -> Set<String> {
        Set(try store.stamps(domain: IndexUpdater.domainName(root)).keys.map {
            String(String(decoding: $0, as: UTF8.self).dropFirst(base.string.count))
        })
    }

    @Test("issue 26: a files-only home and a recursive Documents inside it: each domain holds its own, the home's subfolders nothing")
    func shallowAndNested() throws {
        let f = try CrawlFixture()
        let home = f.root
        try f.tree.create("root/notes.txt", contents: "kittiwake notes")
        try f.tree.create("root/Projects/plan.txt", contents: "kittiwake plan")
        try f.tree.create("root/Documents/letter.txt", contents: "kittiwake letter")
        try f.tree.create("root/Documents/old/deep.txt", contents: "kittiwake deep")
        let updater = IndexUpdater(store: f.store, settings: f.settings, problem: { _ in })
        let documents = try IndexUpdater.resolveRoots([home.string + "/Documents"])[0]
        let resolvedHome = try IndexUpdater.resolveRoots([home.string])[0]
        _ = try updater.crawl(roots: [IndexRoot(resolvedHome, depth: .filesOnly), IndexRoot(documents)])
        #expect(try Self.ids(f.store, resolvedHome, relativeTo: resolvedHome) == ["", "/notes.txt"])
        #expect(try Self.ids(f.store, documents, relativeTo: resolvedHome)
            == ["/Documents", "/Documents/letter.txt", "/Documents/old", "/Documents/old/deep.txt"])
        #expect(try f.find("kittiwake") == ["notes.txt", "Documents/letter.txt", "Documents/old/deep.txt"])

        // A rescan of the home (an overflow, a polled folder) stays shallow; so does a folder
        // moved into it.
        try f.tree.create("root/later.txt", contents: "kittiwake later")
        _ = try updater.reconcile(directory: resolvedHome, recursive: true, domain: IndexUpdater.domainName(resolvedHome))
        #expect(try Self.ids(f.store, resolvedHome, relativeTo: resolvedHome) == ["", "/notes.txt", "/later.txt"])
        let moved = try updater.reconcile(directory: resolvedHome.appending("Projects"), recursive: true,
                                          domain: IndexUpdater.domainName(resolvedHome))
        #expect(moved.indexed == 0)
        #expect(try f.find("plan") == [])

        // A reindex of everything (and a crawl by path alone) keeps the recorded depth.
        let reindexer = Reindexer(updater: updater)
        try reindexer.reindexAllSearchableItems(acknowledgementHandler: {})
        _ = try updater.crawl(roots: [resolvedHome])
        #expect(try Self.ids(f.store, resolvedHome, relativeTo: resolvedHome) == ["", "/notes.txt", "/later.txt"])
        #expect(try Self.ids(f.store, documents, relativeTo: resolvedHome).count == 4)
        #expect(try IndexCheck(store: f.store, settings: f.settings).check().inStep)

        // The same root made recursive again: everything below it comes in.
        _ = try updater.crawl(roots: [IndexRoot(resolvedHome)])
        #expect(try Self.ids(f.store, resolvedHome, relativeTo: resolvedHome).contains("/Projects/plan.txt"))
    }

    @Test("issue 26: without PATH or configured roots, the roots are the XDG folders and HOME files-only")
    func defaultsWhenUnconfigured() throws {
        let tree = try TemporaryTree()
        try tree.createDirectory("home/Documents")
        try tree.createDirectory("home/Musik")
        try tree.create("config/user-dirs.dirs", contents: "XDG_DOCUMENTS_DIR=\"$HOME/Documents\"\nXDG_MUSIC_DIR=\"$HOME/Musik\"\nXDG_VIDEOS_DIR=\"$HOME/Videos\"\n")
        let home = try IndexUpdater.resolveRoots([tree.path("home").string])[0]
        let env = ["HOME": tree.path("home").string, "XDG_CONFIG_HOME": tree.path("config").string]
        let roots = try IndexUpdater.roots(given: [], settings: Settings(), environment: env)
        #expect(roots == [IndexRoot(home.appending("Documents")), IndexRoot(home.appending("Musik")), IndexRoot(home, depth: .filesOnly)])
        // Given paths, or configured roots, replace the defaults; a folder in both lists is indexed whole.
        #expect(try IndexUpdater.roots(given: [tree.path("home/Musik").string], settings: Settings(), environment: env)
            == [IndexRoot(home.appending("Musik"))])
        var configured = Settings()
        configured.roots = [tree.path("home").string]
        configured.shallowRoots = [tree.path("home").string, tree.path("home/Documents").string]
        #expect(try IndexUpdater.roots(given: [], settings: configured, environment: env)
            == [IndexRoot(home), IndexRoot(home.appending("Documents"), depth: .filesOnly)])
        var none = Settings()
        none.roots = []
        #expect(throws: UpdateError.self) { try IndexUpdater.roots(given: [], settings: none, environment: env) }
    }
}
