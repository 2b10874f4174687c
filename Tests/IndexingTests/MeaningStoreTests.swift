import Attributes
import Foundation
import GRDB
@testable import Indexing
import TestSupport
import Testing

/// The index's side of the semantic pass (issue 43): which items wait for it
/// (`meaning_pending`), how a vector is stored, and how both follow the items' texts.
@Suite("Vectors of meaning in the index")
struct MeaningStoreTests {
    func pending(_ t: TestIndex) throws -> [String] {
        try t.store.pendingMeanings(limit: 100).map(\.name).sorted()
    }

    func vectors(_ t: TestIndex) throws -> [String: Int] {
        try t.store.read { db in
            let rows = try Row.fetchAll(db, sql: "SELECT t.name, length(v.vector) AS n FROM item_vectors v JOIN item_texts t ON t.id = v.id")
            return Dictionary(uniqueKeysWithValues: rows.map { ($0["name"] as String, $0["n"] as Int) })
        }
    }

    @Test("every item written waits, with its name, title and other text; a stored vector ends the wait; a rewrite, a new summary or a deletion takes the vector away")
    func followsTheTexts() throws {
        let t = try TestIndex()
        var described = item("/d/sleep.html", title: "sleep in std::thread", text: "Puts the current thread to sleep.")
        described.attributes[.contentDescription] = .string("Puts the current thread to sleep for at least the given time.")
        try t.store.indexSearchableItems([described, item("/d/data.csv", text: "1,2,3"), item("/d/gone.txt", title: "Gone", text: "x")])
        #expect(try pending(t) == ["data.csv", "gone.txt", "sleep.html"])
        #expect(try t.store.pendingMeaningCount() == 3)
        let waiting = try t.store.pendingMeanings(limit: 100)
        let sleep = try #require(waiting.first { $0.name == "sleep.html" })
        #expect(sleep.title == "sleep in std::thread")
        #expect(sleep.other.contains("Puts the current thread to sleep for at least the given time."))
        #expect(sleep.passage.isEmpty, "an item with a title or other text is read by those")
        #expect(waiting.first { $0.name == "data.csv" }?.passage == "1,2,3", "one without is read by its text")
        // Paged by rowid.
        let first = try t.store.pendingMeanings(limit: 1)
        #expect(try t.store.pendingMeanings(limit: 100, after: first[0].rowID).count == 2)

        try t.store.storeMeanings(waiting.map { ($0, $0.name == "data.csv" ? [] : [UInt8](repeating: 7, count: 388)) })
        #expect(try pending(t).isEmpty)
        #expect(try vectors(t) == ["sleep.html": 388, "gone.txt": 388, "data.csv": 0])
        #expect(try t.store.status().meanings == 2)

        // The file changed: its texts are written again, its vector goes, it waits again.
        try t.store.indexSearchableItems([item("/d/sleep.html", title: "sleep, new edition", text: "Sleeps.")])
        #expect(try pending(t) == ["sleep.html"])
        #expect(try vectors(t)["sleep.html"] == nil)
        // A summary made later (`other` rewritten) makes it wait too.
        try t.store.write { db in try db.execute(sql: "UPDATE item_texts SET other = 'a summary' WHERE name = 'data.csv'") }
        #expect(try pending(t) == ["data.csv", "sleep.html"])
        // Deleted: nothing is left of it.
        try t.store.deleteItems(identifiers: [ItemIdentifier("/d/gone.txt"), ItemIdentifier("/d/data.csv")])
        #expect(try pending(t) == ["sleep.html"])
        #expect(try vectors(t).keys.sorted() == [])
    }

    @Test("a vector read from texts that changed meanwhile is not stored, and the item still waits")
    func staleVectorsAreDropped() throws {
        let t = try TestIndex()
        try t.store.indexSearchableItems([item("/d/a.txt", title: "Old title", text: "x")])
        let read = try t.store.pendingMeanings(limit: 10)
        try t.store.indexSearchableItems([item("/d/a.txt", title: "New title", text: "x")])
        try t.store.storeMeanings(read.map { ($0, [UInt8](repeating: 1, count: 388)) })
        #expect(try vectors(t).isEmpty)
        #expect(try t.store.pendingMeanings(limit: 10).map(\.title) == ["New title"])
    }

    @Test("an index of v22 gets every item waiting for the pass when it is opened")
    func olderIndexWaits() throws {
        let older = try OlderIndex(upTo: "v22-type-trees") { db in
            try db.execute(sql: "INSERT INTO items(id, path, domain, name, attributes, indexed_at) VALUES (5, x'2f642f612e747874', '/d', 'a.txt', '{}', 0)")
            try db.execute(sql: "INSERT INTO item_texts(id, name, title, other, text) VALUES (5, 'a.txt', 'A title', NULL, NULL)")
        }
        let store = try IndexStore(location: older.location)
        #expect(try store.pendingMeanings(limit: 10).map(\.rowID) == [5])
    }
}
