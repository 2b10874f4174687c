import Attributes
import Foundation
import GRDB
@testable import Indexing
import SystemPackage
import TestSupport
import Testing

/// Issue 14: the `attributes` JSON leaves out what the row's columns hold; reading puts back
/// exactly what was there, and nothing that was not.
@Suite("IndexStore: attributes stored once (columns, not the JSON)")
struct StoredAttributesTests {
    /// What the index gave back before: the attributes through the JSON (dates to the
    /// millisecond), with the domain, without the text.
    static func throughJSON(_ a: AttributeSet) throws -> AttributeSet {
        try JSONDecoder().decode(AttributeSet.self, from: JSONEncoder().encode(a))
    }

    static func crawled(_ path: String, size: Int64 = 1234) -> SearchableItem {
        var a = AttributeSet()
        let name = String(path.split(separator: "/").last!)
        a[.name] = .string(name)
        a[.displayName] = .string(name)
        a[.path] = .string(path)
        a.contentType = .plainText
        a.contentTypeTree = ContentType.plainText.tree
        a.kind = "Plain text"
        a[.extractor] = .string("plain-text")
        a.fileSize = size
        let modified = Date(timeIntervalSince1970: 1_778_312_132.123_456_7), created = Date(timeIntervalSince1970: 1_795_541_071.888_9)
        a[.fsContentChangeDate] = .date(modified)
        a[.contentModificationDate] = .date(modified)
        a[.fsCreationDate] = .date(created)
        a[.contentCreationDate] = .date(created)
        a[.attributeChangeDate] = .date(created)
        a[.ownerName] = .string("root")
        a.title = "A title"
        a.textContent = "some text " + String(repeating: "words ", count: 50)
        return SearchableItem(uniqueIdentifier: ItemIdentifier(path), domainIdentifier: "/d", attributes: a)
    }

    static func expected(_ item: SearchableItem) throws -> AttributeSet {
        var a = item.attributes.removing(.textContent)
        a[.domainIdentifier] = .string(item.domainIdentifier)
        var back = try throughJSON(a)
        back.textContent = item.attributes.textContent
        return back
    }

    static func stored(_ store: IndexStore, _ path: String) throws -> (json: String, omitted: Int64?) {
        try store.reader.read { db in
            let row = try #require(try Row.fetchOne(db, sql: "SELECT attributes, omitted FROM items WHERE path = ?",
                                                    arguments: [Data(path.utf8)]))
            return (row["attributes"], row["omitted"])
        }
    }

    @Test("a crawled file's attributes come back exactly, though the JSON holds none of the repeated ones")
    func roundTrip() throws {
        let t = try TestIndex()
        let file = Self.crawled("/d/notes.txt")
        try t.store.index([IndexEntry(item: file, stamp: FileStamp(size: 1234, modificationNanos: 1, changeNanos: 2, inode: 3),
                                      extractor: "plain-text")])
        let got = try #require(try t.store.item(ItemIdentifier("/d/notes.txt")))
        #expect(got.attributes == (try Self.expected(file)))
        let (json, omitted) = try Self.stored(t.store, "/d/notes.txt")
        for key in ["path", "domainIdentifier", "\"name\"", "contentTypeTree", "fileSize", "fsCreationDate", "fsContentChangeDate"] {
            #expect(!json.contains(key), "\(key) in \(json)")
        }
        #expect(json.contains("attributeChangeDate") && json.contains("ownerName") && json.contains("title"))
        // Queried in the JSON, so kept there.
        #expect(json.contains("displayName") && json.contains("contentModificationDate"))
        #expect(omitted != nil)
    }

    @Test("a type tree in the crawl's form (roots last) is left out and comes back in that order")
    func crawledTree() throws {
        let t = try TestIndex()
        var page = Self.crawled("/d/page.html")
        page.attributes.contentType = .html
        let tree: [ContentType] = [.html, "public.text", .content, .data, .item]
        page.attributes.contentTypeTree = tree
        try t.store.index([IndexEntry(item: page, extractor: "plain-text")])
        let got = try #require(try t.store.item(ItemIdentifier("/d/page.html")))
        #expect(got.attributes.contentTypeTree == tree)
        #expect(got.attributes == (try Self.expected(page)))
        #expect(!(try Self.stored(t.store, "/d/page.html").json.contains("contentTypeTree")))
        // Any other order stays in the JSON, as it is.
        var odd = Self.crawled("/d/odd.html")
        odd.attributes.contentType = .html
        odd.attributes.contentTypeTree = [.html, .item]
        try t.store.index([IndexEntry(item: odd, extractor: "plain-text")])
        #expect(try t.store.item(ItemIdentifier("/d/odd.html"))?.attributes.contentTypeTree == [.html, .item])
        #expect(try Self.stored(t.store, "/d/odd.html").json.contains("contentTypeTree"))
    }

    @Test("an attribute the column does not match stays in the JSON; one that is absent does not appear")
    func mismatchesAndAbsences() throws {
        let t = try TestIndex()
        // The stamp's size wins the column; the attribute says otherwise and must survive.
        let file = Self.crawled("/d/a.txt", size: 99)
        try t.store.index([IndexEntry(item: file, stamp: FileStamp(size: 1234, modificationNanos: 1, changeNanos: 2, inode: 3),
                                      extractor: "other-extractor")])
        #expect(try t.store.item(ItemIdentifier("/d/a.txt"))?.attributes == (try Self.expected(file)))
        let (json, _) = try Self.stored(t.store, "/d/a.txt")
        #expect(json.contains("fileSize") && json.contains("plain-text"))
        // A donated-like item: no path, name, kind or dates of its own.
        var a = AttributeSet()
        a.title = "Budget"
        let donated = SearchableItem(uniqueIdentifier: ItemIdentifier("n-42"), domainIdentifier: "notes", attributes: a)
        try t.store.indexSearchableItems([donated])
        #expect(try t.store.item(ItemIdentifier("n-42"))?.attributes == (try Self.expected(donated)))
    }

    @Test("moves, refreshes and summaries keep the attributes right")
    func rewrites() throws {
        let t = try TestIndex()
        try t.store.index([IndexEntry(item: Self.crawled("/d/old/x.txt"), extractor: "plain-text")])
        try t.store.moveItems(from: ItemIdentifier("/d/old"), to: ItemIdentifier("/d/new"))
        let moved = try #require(try t.store.item(ItemIdentifier("/d/new/x.txt")))
        #expect(moved.attributes.string(.path) == "/d/new/x.txt")
        #expect(moved.attributes.string(.name) == "x.txt")
        #expect(moved.attributes.contentTypeTree == ContentType.plainText.tree)
        var fresh = AttributeSet()
        fresh[.ownerName] = .string("alice")
        try t.store.refreshAttributes(of: ItemIdentifier("/d/new/x.txt"),
                                      stamp: FileStamp(size: 777, modificationNanos: 5, changeNanos: 6, inode: 7),
                                      replacing: [.ownerName], with: fresh)
        let refreshed = try #require(try t.store.item(ItemIdentifier("/d/new/x.txt")))
        #expect(refreshed.attributes.string(.ownerName) == "alice")
        #expect(refreshed.attributes.fileSize == 1234)   // the attribute, not the new stamp's size
        var expected = moved.attributes
        expected[.ownerName] = .string("alice")
        #expect(refreshed.attributes == expected)
    }

    @Test("v12 rewrites an older index's JSON without changing what is read")
    func migration() throws {
        let file = Self.crawled("/d/f.txt")
        var stored = file.attributes.removing(.textContent)
        stored[.domainIdentifier] = .string("/d")
        let json = String(decoding: try JSONEncoder().encode(stored), as: UTF8.self)
        let older = try OlderIndex(upTo: "v11-compact") { db in
            try db.execute(sql: """
                INSERT INTO items(id, path, domain, name, content_type, kind, size, modified, created, attributes, indexed_at, extractor)
                VALUES (1, ?, '/d', 'f.txt', 'public.plain-text', 'Plain text', 1234, ?, ?, ?, 0, 'plain-text')
                """, arguments: [Data("/d/f.txt".utf8), file.attributes.date(.fsContentChangeDate)!.timeIntervalSince1970,
                                 file.attributes.date(.fsCreationDate)!.timeIntervalSince1970, json])
            try db.execute(sql: "INSERT INTO item_texts(id, name, title, other, text) VALUES (1, 'f.txt', 'A title', NULL, fsindex_zip(?))",
                           arguments: [file.attributes.textContent])
        }
        let store = try IndexStore(location: older.location)
        #expect(try store.item(ItemIdentifier("/d/f.txt"))?.attributes == (try Self.expected(file)))
        let (after, omitted) = try Self.stored(store, "/d/f.txt")
        #expect(after.count < json.count / 2)
        #expect(omitted != nil)
    }
}
