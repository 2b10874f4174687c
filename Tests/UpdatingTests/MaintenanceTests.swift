import Configuration
import Attributes
import ExtractionModel
import Foundation
import GRDB
import Indexing
import SystemPackage
import TestSupport
import Testing
@testable import Updating

/// The index asks for reindexing by itself, through the same handler `fsindex reindex` uses.
@Suite("Reindex-on-demand handlers")
struct MaintenanceTests {
    func raw(_ f: CrawlFixture) throws -> DatabaseQueue {
        try DatabaseQueue(path: f.store.location.databasePath.string)
    }

    @Test("items written by an older extractor are read again")
    func olderExtractor() throws {
        let f = try CrawlFixture()
        try f.tree.create("root/a.txt", contents: "current words")
        _ = try f.crawl()
        try raw(f).write { try $0.execute(sql: "UPDATE items SET extractor_version = 0 WHERE name = 'a.txt'") }
        let requests = try f.store.maintenanceRequests(extractorVersions: ExtractionVersions.forIndex)
        #expect(requests.count == 1)
        let handler = Reindexer(updater: IndexUpdater(store: f.store, settings: f.settings, problem: { _ in }))
        _ = try f.store.performMaintenance(extractorVersions: ExtractionVersions.forIndex, handler: handler)
        #expect(handler.lastReport.indexed == 1)
        #expect(try f.store.identifiers(staleAgainst: ExtractionVersions.forIndex).isEmpty)
    }

    @Test("expired items are purged and read again from their files; a gone file stays gone")
    func expired() throws {
        let f = try CrawlFixture()
        try f.tree.create("root/stays.txt", contents: "evergreen")
        _ = try f.crawl()
        var a = AttributeSet()
        a[.name] = .string("ghost.txt")
        try f.store.index([
            IndexEntry(item: SearchableItem(uniqueIdentifier: ItemIdentifier(f.root.string + "/stays.txt"), domainIdentifier: IndexUpdater.domainName(f.root),
                                            attributes: a, expirationDate: Date(timeIntervalSinceNow: -1))),
            IndexEntry(item: SearchableItem(uniqueIdentifier: ItemIdentifier(f.root.string + "/ghost.txt"), domainIdentifier: IndexUpdater.domainName(f.root),
                                            attributes: a, expirationDate: Date(timeIntervalSinceNow: -1))),
        ])
        #expect(try f.find("evergreen").isEmpty)    // the expired copy hides it until reindexed
        let handler = Reindexer(updater: IndexUpdater(store: f.store, settings: f.settings, problem: { _ in }))
        _ = try f.store.performMaintenance(extractorVersions: ExtractionVersions.forIndex, handler: handler)
        #expect(try f.find("evergreen") == ["stays.txt"])
        #expect(try f.store.item(ItemIdentifier(f.root.string + "/ghost.txt")) == nil)
    }

    @Test("a schema change that needs a rebuild reindexes everything once")
    func rebuildFlag() throws {
        let f = try CrawlFixture()
        try f.tree.create("root/a.txt", contents: "alpha")
        try f.tree.create("root/b.txt", contents: "beta")
        _ = try f.crawl()
        try f.store.setMeta("rebuild_required", "test migration")
        let handler = Reindexer(updater: IndexUpdater(store: f.store, settings: f.settings, problem: { _ in }))
        let done = try f.store.performMaintenance(extractorVersions: ExtractionVersions.forIndex, handler: handler)
        #expect(done == [.rebuildAll(reason: "test migration")])
        #expect(handler.lastReport.indexed == 3)     // forced: unchanged files are read again
        #expect(try f.store.meta("rebuild_required") == nil)
        #expect(try f.store.maintenanceRequests(extractorVersions: ExtractionVersions.forIndex).isEmpty)
    }

    @Test("a damaged database is moved aside and rebuilt from the files")
    func corruption() throws {
        let tree = try TemporaryTree()
        try tree.create("root/a.txt", contents: "phoenix")
        let root = tree.path("root")
        let location = IndexLocation(directory: tree.path("index"))
        do {
            let store = try IndexStore(location: location)
            _ = try IndexUpdater(store: store, settings: Settings(), problem: { _ in }).crawl(roots: [root])
        }
        // Overwrite the middle of the database with garbage.
        let fd = open(location.databasePath.string, O_WRONLY)
        let garbage = [UInt8](repeating: 0xA5, count: 16384)
        _ = pwrite(fd, garbage, garbage.count, 4096)
        _ = pwrite(fd, garbage, 100, 0)
        close(fd)
        let (store, rebuilt) = try IndexStore.openRecovering(location: location)
        #expect(rebuilt)
        let updater = IndexUpdater(store: store, settings: Settings(), problem: { _ in })
        _ = try store.performMaintenance(extractorVersions: ExtractionVersions.forIndex, handler: Reindexer(updater: updater, roots: [root]))
        #expect(try store.item(ItemIdentifier(root.string + "/a.txt"))?.attributes.textContent == "phoenix")
        let aside = try FileManager.default.contentsOfDirectory(atPath: location.directory.string)
        #expect(aside.contains { $0.hasPrefix("index.sqlite.damaged-") })
    }

    @Test("reindexing named items: a file re-read, a folder's subtree re-read, a vanished file removed")
    func namedItems() throws {
        let f = try CrawlFixture()
        try f.tree.create("root/one.txt", contents: "first")
        try f.tree.create("root/sub/two.txt", contents: "second")
        try f.tree.create("root/three.txt", contents: "third")
        _ = try f.crawl()
        try f.tree.remove("root/three.txt")
        let handler = Reindexer(updater: IndexUpdater(store: f.store, settings: f.settings, problem: { _ in }))
        try handler.reindexSearchableItems(withIdentifiers: [ItemIdentifier(f.root.string + "/one.txt"), ItemIdentifier(f.root.string + "/sub"),
                                                             ItemIdentifier(f.root.string + "/three.txt")], acknowledgementHandler: {})
        #expect(handler.lastReport.indexed == 3)      // one.txt, sub, sub/two.txt
        #expect(try f.find("third").isEmpty)
    }
}
