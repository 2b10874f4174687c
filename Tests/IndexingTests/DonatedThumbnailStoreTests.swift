import Attributes
import Foundation
import GRDB
import Indexing
import IndexTestSupport
import Testing
import TestSupport

/// Issue 27: a donated item's `thumbnailData` is stored with it, replaced with it, and goes with it.
@Suite("Index: donated thumbnails")
struct DonatedThumbnailStoreTests {
    func item(_ id: String, thumbnail: [UInt8]?, expires: Date? = nil) -> SearchableItem {
        SearchableItem(uniqueIdentifier: .donated(domain: "notes", id: id), domainIdentifier: "notes",
                       attributes: AttributeSet([.title: .string("Note \(id)")]), expirationDate: expires, thumbnailData: thumbnail)
    }

    @Test("stored and read back byte for byte; a donation without one removes it; forgetting the item removes it")
    func roundTrip() throws {
        let tree = try TemporaryTree()
        defer { tree.remove() }
        let store = try tree.makeIndexStore()
        let picture: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0, 1, 2, 0xFF, 0xFE]
        try store.donate([item("n1", thumbnail: picture), item("n2", thumbnail: nil)], domain: "notes", clientState: nil)
        #expect(try store.donatedThumbnail(.donated(domain: "notes", id: "n1")) == picture)
        #expect(try store.donatedThumbnail(.donated(domain: "notes", id: "n2")) == nil)
        #expect(try store.donatedThumbnail(.donated(domain: "notes", id: "missing")) == nil)

        let other: [UInt8] = [0xFF, 0xD8, 0xFF, 9]
        try store.donate([item("n1", thumbnail: other)], domain: "notes", clientState: nil)
        #expect(try store.donatedThumbnail(.donated(domain: "notes", id: "n1")) == other)
        try store.donate([item("n1", thumbnail: nil)], domain: "notes", clientState: nil)
        #expect(try store.donatedThumbnail(.donated(domain: "notes", id: "n1")) == nil)

        try store.donate([item("n3", thumbnail: picture)], domain: "notes", clientState: nil)
        _ = try store.forget(domain: "notes", ids: ["n3"])
        try store.donate([item("n3", thumbnail: nil)], domain: "notes", clientState: nil)
        #expect(try store.donatedThumbnail(.donated(domain: "notes", id: "n3")) == nil)
        let rows = try store.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM item_thumbnails") }
        #expect(rows == 0)
    }
}
