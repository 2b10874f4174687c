import Attributes
import Foundation
import GRDB
import Indexing
import SystemPackage
import TestSupport
import Testing

@Suite("IndexStore: recorded uses (issue 13)")
struct UsageTests {
    let day = 86400.0

    @Test("a use sets lastUsedDate, raises useCount and the used column; the item's attributes carry both")
    func recordUse() throws {
        let t = try TestIndex()
        try t.store.indexSearchableItems([item("/d/a.txt", text: "alpha")])
        let first = Date(timeIntervalSince1970: 1_790_000_000)
        let records = try t.store.recordUses([ItemUse(identifier: ItemIdentifier("/d/a.txt"), date: first, title: "Reading")])
        #expect(records == [UsageRecord(identifier: ItemIdentifier("/d/a.txt"), lastUsed: first, useCount: 1, title: "Reading", indexed: true)])
        try t.store.recordUses([ItemUse(identifier: ItemIdentifier("/d/a.txt"), date: first.addingTimeInterval(day))])
        // An older use raises the count only.
        try t.store.recordUses([ItemUse(identifier: ItemIdentifier("/d/a.txt"), date: first.addingTimeInterval(-day), count: 2)])
        let a = try #require(try t.store.item(ItemIdentifier("/d/a.txt"))).attributes
        #expect(a.integer(.useCount) == 4)
        #expect(a.date(.lastUsedDate) == first.addingTimeInterval(day))
        #expect(a.textContent == "alpha")
        let column = try t.store.read { db in try Double.fetchOne(db, sql: "SELECT used FROM items WHERE path = ?", arguments: [Data("/d/a.txt".utf8)]) }
        #expect(column == first.addingTimeInterval(day).timeIntervalSince1970)
        #expect(try t.store.usage(ItemIdentifier("/d/a.txt"))?.title == "Reading")
    }

    @Test("uses survive the item being written again, and wait for an item not yet indexed")
    func survivesRewrite() throws {
        let t = try TestIndex()
        try t.store.indexSearchableItems([item("/d/a.txt", text: "first version")])
        let when = Date(timeIntervalSince1970: 1_790_000_000)
        try t.store.recordUses([ItemUse(identifier: ItemIdentifier("/d/a.txt"), date: when)])
        try t.store.indexSearchableItems([item("/d/a.txt", text: "second version")])
        var a = try #require(try t.store.item(ItemIdentifier("/d/a.txt"))).attributes
        #expect(a.textContent == "second version")
        #expect(a.integer(.useCount) == 1)
        #expect(a.date(.lastUsedDate) == when)

        let early = try t.store.recordUses([ItemUse(identifier: ItemIdentifier("/d/later.txt"), date: when, count: 3)])
        #expect(early.map(\.indexed) == [false])
        #expect(try t.store.usage(ItemIdentifier("/d/later.txt"))?.indexed == false)
        try t.store.indexSearchableItems([item("/d/later.txt", text: "arrives")])
        a = try #require(try t.store.item(ItemIdentifier("/d/later.txt"))).attributes
        #expect(a.integer(.useCount) == 3)
        #expect(try t.store.usage(ItemIdentifier("/d/later.txt"))?.indexed == true)

        // A rebuild (every item deleted, then written again) keeps them too.
        try t.store.deleteAllItems()
        try t.store.indexSearchableItems([item("/d/a.txt", text: "third")])
        #expect(try t.store.item(ItemIdentifier("/d/a.txt"))?.attributes.integer(.useCount) == 1)
    }

    @Test("a rename carries the uses to the new identifier")
    func moves() throws {
        let t = try TestIndex()
        try t.store.indexSearchableItems([item("/d/dir", text: nil), item("/d/dir/a.txt", text: "x")])
        try t.store.recordUses([ItemUse(identifier: ItemIdentifier("/d/dir/a.txt"))])
        try t.store.moveItems(from: ItemIdentifier("/d/dir"), to: ItemIdentifier("/d/renamed"))
        #expect(try t.store.usage(ItemIdentifier("/d/renamed/a.txt"))?.useCount == 1)
        #expect(try t.store.usage(ItemIdentifier("/d/dir/a.txt")) == nil)
        #expect(try t.store.item(ItemIdentifier("/d/renamed/a.txt"))?.attributes.integer(.useCount) == 1)
    }

    @Test("a feed's marks are stored with its uses, replaced whole")
    func feedMarks() throws {
        let t = try TestIndex()
        let mark = FeedMark(visited: Date(timeIntervalSince1970: 1_790_000_000), counts: ["gedit": 3])
        try t.store.recordUses([ItemUse(identifier: ItemIdentifier("/d/a"))], feed: "f", marks: [ItemIdentifier("/d/a"): mark])
        #expect(try t.store.feedMarks("f") == [ItemIdentifier("/d/a"): mark])
        #expect(try t.store.feedMarks("other").isEmpty)
        try t.store.recordUses([], feed: "f", marks: [ItemIdentifier("/d/b"): mark])
        #expect(try t.store.feedMarks("f") == [ItemIdentifier("/d/b"): mark])
    }

    @Test("v7-usage drops the access times an older index stored as uses")
    func migrationDropsAccessTimes() throws {
        let t = try TestIndex()
        try t.store.indexSearchableItems([item("/d/a.txt", text: "x")])
        // Back to the state of an index written before v7, with an access time as `lastUsedDate`.
        let path = t.tree.path("index").appending("index.sqlite")
        let queue = try DatabaseQueue(path: path.string)
        try queue.write { db in
            try db.execute(sql: """
                DROP TABLE usage; DROP TABLE usage_feeds; DROP INDEX items_used;
                DELETE FROM grdb_migrations WHERE identifier = 'v7-usage';
                UPDATE items SET used = 1700000000, attributes = json_set(attributes, '$.lastUsedDate', '2023-11-14T22:13:20.000Z');
                """)
        }
        try queue.close()
        let reopened = try IndexStore(location: IndexLocation(directory: t.tree.path("index")))
        #expect(try reopened.item(ItemIdentifier("/d/a.txt"))?.attributes.date(.lastUsedDate) == nil)
        #expect(try reopened.read { db in try Double.fetchOne(db, sql: "SELECT used FROM items") } == nil)
        try reopened.recordUses([ItemUse(identifier: ItemIdentifier("/d/a.txt"))])
        #expect(try reopened.item(ItemIdentifier("/d/a.txt"))?.attributes.integer(.useCount) == 1)
    }
}
