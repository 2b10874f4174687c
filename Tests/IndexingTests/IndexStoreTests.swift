import Attributes
import Foundation
import GRDB
import Indexing
import SystemPackage
import TestSupport
import Testing

@Suite("IndexStore: Core Spotlight's contract")
struct IndexStoreTests {
    @Test("index, fetch back with text, and replace by identifier")
    func indexAndReplace() throws {
        let t = try TestIndex()
        try t.store.indexSearchableItems([item("/d/a.txt", title: "First", text: "alpha words")])
        var got = try #require(try t.store.item(ItemIdentifier("/d/a.txt")))
        #expect(got.attributes.title == "First")
        #expect(got.attributes.textContent == "alpha words")
        #expect(got.domainIdentifier == "/d")
        try t.store.indexSearchableItems([item("/d/a.txt", title: "Second", text: "beta")])
        got = try #require(try t.store.item(ItemIdentifier("/d/a.txt")))
        #expect(got.attributes.title == "Second")
        #expect(try t.store.count() == 1)
    }

    @Test("a batch and its client state commit together")
    func clientState() throws {
        let t = try TestIndex()
        #expect(try t.store.fetchLastClientState() == nil)
        try t.store.indexSearchableItems([item("/d/1"), item("/d/2")], clientState: Array("step-1".utf8))
        #expect(try t.store.fetchLastClientState() == Array("step-1".utf8))
        try t.store.indexSearchableItems([item("/d/3")], clientState: Array("step-2".utf8))
        #expect(try t.store.fetchLastClientState() == Array("step-2".utf8))
        #expect(try t.store.count() == 3)
    }

    @Test("a client state over 250 bytes is refused and nothing of the batch is stored")
    func clientStateLimit() throws {
        let t = try TestIndex()
        #expect(throws: IndexError.self) {
            try t.store.indexSearchableItems([item("/d/1")], clientState: [UInt8](repeating: 65, count: 251))
        }
        #expect(try t.store.count() == 0)
        try t.store.indexSearchableItems([item("/d/1")], clientState: [UInt8](repeating: 65, count: 250))
        #expect(try t.store.count() == 1)
    }

    @Test("delete by identifiers, by domain, and all")
    func deletion() throws {
        let t = try TestIndex()
        try t.store.indexSearchableItems([item("/a/1", domain: "/a"), item("/a/2", domain: "/a"),
                                          item("/b/1", domain: "/b"), item("/b/2", domain: "/b")])
        #expect(try t.store.deleteItems(identifiers: [ItemIdentifier("/a/1"), ItemIdentifier("/nope")]) == 1)
        #expect(try t.store.item(ItemIdentifier("/a/1")) == nil)
        #expect(try t.store.deleteItems(domains: ["/b"]) == 2)
        #expect(try t.store.count() == 1)
        try t.store.deleteAllItems()
        #expect(try t.store.count() == 0)
        #expect(try t.store.fetchLastClientState() == nil)
    }

    @Test("expired items are never returned and are purged")
    func expiration() throws {
        let t = try TestIndex()
        let now = Date()
        try t.store.indexSearchableItems([item("/d/old", expires: now.addingTimeInterval(-1)),
                                          item("/d/new", expires: now.addingTimeInterval(3600)),
                                          item("/d/forever")])
        #expect(try t.store.item(ItemIdentifier("/d/old")) == nil)
        #expect(try t.store.item(ItemIdentifier("/d/new")) != nil)
        #expect(try t.store.purgeExpiredItems(now: now) == 1)
        #expect(try t.store.count() == 2)
        #expect(try t.store.purgeExpiredItems(now: now.addingTimeInterval(7200)) == 1)
        #expect(try t.store.count() == 1)
    }

    @Test("identifiers are bytes: a non-UTF-8 path and NFC/NFD spellings stay distinct")
    func byteIdentifiers() throws {
        let t = try TestIndex()
        let bad = ItemIdentifier(bytes: Array("/d/bad".utf8) + [0xFF, 0xFE])
        var i1 = item("/d/x"); i1.uniqueIdentifier = bad
        try t.store.indexSearchableItems([i1, item("/d/caf\u{E9}"), item("/d/cafe\u{301}")])
        #expect(try t.store.count() == 3)
        #expect(try t.store.item(bad)?.uniqueIdentifier.bytes == bad.bytes)
        #expect(try t.store.item(ItemIdentifier(bytes: Array("/d/bad".utf8) + [0xFF])) == nil)
        #expect(try t.store.item(ItemIdentifier("/d/cafe\u{301}")) != nil)
    }

    @Test("stamps are kept for incremental crawls")
    func stamps() throws {
        let t = try TestIndex()
        let stamp = FileStamp(size: 10, modificationNanos: 1_000_000_123, changeNanos: 2_000_000_456, inode: 77)
        try t.store.index([IndexEntry(item: item("/d/s"), stamp: stamp, extractorVersion: 3)])
        let s = try t.store.stamps(domain: "/d")
        #expect(s[Array("/d/s".utf8)]?.stamp == stamp)
        #expect(s[Array("/d/s".utf8)]?.extractorVersion == 3)
    }
}

@Suite("IndexStore: files, schema and failures")
struct IndexFilesTests {
    @Test("the folder is 0700, the database 0600, and a CACHEDIR.TAG is there")
    func permissions() throws {
        let t = try TestIndex()
        try t.store.indexSearchableItems([item("/d/a")])
        var st = stat()
        #expect(stat(t.tree.path("index").string, &st) == 0)
        #expect(st.st_mode & 0o777 == 0o700)
        #expect(stat(t.tree.path("index/index.sqlite").string, &st) == 0)
        #expect(st.st_mode & 0o777 == 0o600)
        let tag = try String(contentsOfFile: t.tree.path("index/CACHEDIR.TAG").string, encoding: .utf8)
        #expect(tag.hasPrefix("Signature: 8a477f597d28d172789f06886806bc55"))
    }

    @Test("an index written by a newer build is refused with the fix named")
    func schemaTooNew() throws {
        let tree = try TemporaryTree()
        let location = IndexLocation(directory: tree.path("index"))
        do {
            let store = try IndexStore(location: location)
            try store.indexSearchableItems([item("/d/a")])
        }
        let db = try DatabaseQueue(path: location.databasePath.string)
        try db.write { try $0.execute(sql: "INSERT INTO grdb_migrations(identifier) VALUES ('v99-future')") }
        do {
            _ = try IndexStore(location: location)
            Issue.record("opening should fail")
        } catch {
            guard case .schemaTooNew(_, let unknown) = error else { Issue.record("wrong error \(error)"); return }
            #expect(unknown == ["v99-future"])
            #expect(error.description.contains("fsindex erase"))
        }
    }

    @Test("a missing index is reported for readers")
    func missing() throws {
        let tree = try TemporaryTree()
        #expect(throws: IndexError.self) { try IndexStore(location: IndexLocation(directory: tree.path("none")), readOnly: true) }
    }

    @Test("a full disk during a batch rolls it back and the index stays usable")
    func diskFull() throws {
        let t = try TestIndex(maxPageCount: 60)
        try t.store.indexSearchableItems([item("/d/small", text: "tiny")], clientState: Array("before".utf8))
        let big = (0..<50).map { i in item("/d/big\(i)", text: String(repeating: "word\(i) ", count: 2000)) }
        do {
            try t.store.indexSearchableItems(big, clientState: Array("after".utf8))
            Issue.record("the batch should not fit")
        } catch {
            guard case .diskFull = error else { Issue.record("expected diskFull, got \(error)"); return }
            #expect(error.description.contains("rolled back"))
        }
        #expect(try t.store.count() == 1)
        #expect(try t.store.fetchLastClientState() == Array("before".utf8))
        try t.store.indexSearchableItems([item("/d/more", text: "still works")])
        #expect(try t.store.count() == 2)
    }

    @Test("erase removes the files and the folder")
    func erase() throws {
        let t = try TestIndex()
        try t.store.indexSearchableItems([item("/d/a")])
        let location = t.store.location
        #expect(try location.erase())
        #expect(!location.exists)
        #expect(access(location.directory.string, F_OK) != 0)
    }

    @Test("the location follows --index-dir, then FSINDEX_INDEX_DIR, then XDG_DATA_HOME")
    func location() {
        #expect(IndexLocation.resolve(explicit: "/tmp/x", environment: [:]).directory == "/tmp/x")
        #expect(IndexLocation.resolve(explicit: nil, environment: ["FSINDEX_INDEX_DIR": "/e"]).directory == "/e")
        #expect(IndexLocation.resolve(explicit: nil, environment: ["XDG_DATA_HOME": "/x"]).directory == "/x/fsindex/default")
        #expect(IndexLocation.resolve(explicit: nil, environment: ["HOME": "/h"]).directory == "/h/.local/share/fsindex/default")
    }
}

@Suite("IndexStore: moves and subtrees")
struct IndexMovesTests {
    @Test("moving a folder moves its subtree with attributes and text, and the name is searchable")
    func moveFolder() throws {
        let t = try TestIndex()
        try t.store.indexSearchableItems([item("/r/a"), item("/r/a/x.txt", text: "xylophone"), item("/r/a/sub/y.txt", text: "yodel"),
                                          item("/r/ab/z.txt", text: "zebra")])
        #expect(try t.store.moveItems(from: ItemIdentifier("/r/a"), to: ItemIdentifier("/r/renamed")) == 3)
        let moved = try #require(try t.store.item(ItemIdentifier("/r/renamed/sub/y.txt")))
        #expect(moved.attributes.textContent == "yodel")
        #expect(moved.attributes.string(.path) == "/r/renamed/sub/y.txt")
        #expect(try t.store.item(ItemIdentifier("/r/a/x.txt")) == nil)
        #expect(try t.store.item(ItemIdentifier("/r/ab/z.txt")) != nil)     // a sibling with the same prefix stays
        let renamed = try #require(try t.store.item(ItemIdentifier("/r/renamed")))
        #expect(renamed.attributes.string(.name) == "renamed")
    }

    @Test("a rename over an existing file replaces it")
    func renameOver() throws {
        let t = try TestIndex()
        try t.store.indexSearchableItems([item("/r/new.tmp", text: "fresh"), item("/r/doc.txt", text: "stale")])
        try t.store.moveItems(from: ItemIdentifier("/r/new.tmp"), to: ItemIdentifier("/r/doc.txt"))
        #expect(try t.store.count() == 1)
        #expect(try t.store.item(ItemIdentifier("/r/doc.txt"))?.attributes.textContent == "fresh")
    }

    @Test("subtree deletion and folder stamps keep to the folder")
    func subtrees() throws {
        let t = try TestIndex()
        try t.store.indexSearchableItems([item("/r/d"), item("/r/d/1"), item("/r/d/e/2"), item("/r/d2/3")])
        #expect(Set(try t.store.stamps(under: ItemIdentifier("/r/d"), recursive: false).keys) == [Array("/r/d/1".utf8)])
        #expect(try t.store.stamps(under: ItemIdentifier("/r/d"), recursive: true).count == 2)
        #expect(try t.store.deleteItems(under: ItemIdentifier("/r/d")) == 3)
        #expect(try t.store.count() == 1)
    }
}
