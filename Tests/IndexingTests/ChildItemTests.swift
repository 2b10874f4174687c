import Attributes
import Foundation
import Indexing
import Testing
import TestSupport

/// Items inside a file (the messages of an mbox): identifier = file path, NUL, key.
@Suite("Items inside files")
struct ChildItemTests {
    func child(_ file: String, _ key: String, text: String) -> IndexEntry {
        var a = AttributeSet()
        a[.name] = .string(key)
        a.textContent = text
        a[.path] = .string(file)
        return IndexEntry(item: SearchableItem(uniqueIdentifier: ItemIdentifier(bytes: Array(file.utf8) + [0] + Array(key.utf8)),
                                               domainIdentifier: "/d", attributes: a))
    }

    func paths(_ store: IndexStore) throws -> Set<[UInt8]> {
        Set(try store.stamps(domain: "/d").keys)
    }

    func childCount(_ store: IndexStore, _ words: String) throws -> Int {
        try store.count() - (try paths(store).count)
    }

    @Test("children go with their file: deleted, moved, replaced on re-extraction, and hidden from stamps")
    func lifecycle() throws {
        let t = try TestIndex()
        try t.store.index([IndexEntry(item: item("/d/box.mbox", text: "box")),
                           child("/d/box.mbox", "message/1", text: "first"), child("/d/box.mbox", "message/2", text: "second"),
                           IndexEntry(item: item("/d/box.mbox2", text: "neighbour")),
                           child("/d/box.mbox2", "message/1", text: "other")])
        #expect(try t.store.count() == 5)
        // Stamps list files only: a crawl never mistakes a message for a vanished file.
        #expect(try paths(t.store) == [Array("/d/box.mbox".utf8), Array("/d/box.mbox2".utf8)])

        // Re-extraction writes the file again with fewer messages: the old ones go.
        try t.store.index([IndexEntry(item: item("/d/box.mbox", text: "box")), child("/d/box.mbox", "message/1", text: "only")])
        #expect(try t.store.count() == 4)

        // A rename moves the messages with the file.
        _ = try t.store.moveItems(from: ItemIdentifier("/d/box.mbox"), to: ItemIdentifier("/d/renamed.mbox"))
        let moved = try #require(try t.store.item(ItemIdentifier(bytes: Array("/d/renamed.mbox".utf8) + [0] + Array("message/1".utf8))))
        #expect(moved.attributes.string(.path) == "/d/renamed.mbox")
        #expect(moved.attributes.string(.name) == "message/1")

        // Deleting the file deletes its messages, not the neighbour's (whose name shares the prefix).
        #expect(try t.store.deleteItems(identifiers: [ItemIdentifier("/d/renamed.mbox")]) == 1)
        #expect(try t.store.count() == 2)
        _ = try t.store.deleteItems(under: ItemIdentifier("/d"))
        #expect(try t.store.count() == 0)
    }
}
