import Attributes
import Foundation
import GRDB
import Indexing
import TestSupport
import Testing

/// The index's side of OCR (issue 28): which items wait for it (`ocr_pending`), and how a
/// result is stored.
@Suite("OCR candidates and results in the index")
struct RecognitionStoreTests {
    func picture(_ path: String, width: Int64, height: Int64, type: ContentType = "public.png") -> SearchableItem {
        var i = item(path, type: type)
        i.attributes[.pixelWidth] = .integer(width)
        i.attributes[.pixelHeight] = .integer(height)
        return i
    }

    func pdf(_ path: String, pages: Int64, text: String?) -> SearchableItem {
        var i = item(path, text: text, type: .pdf)
        i.attributes[.pageCount] = .integer(pages)
        return i
    }

    func pending(_ t: TestIndex) throws -> [String] {
        try t.store.pendingRecognitions(limit: 100).map(\.identifier.description).sorted()
    }

    func matches(_ t: TestIndex, _ word: String) throws -> [String] {
        try t.store.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM items WHERE id IN (SELECT rowid FROM items_fts WHERE items_fts MATCH ?)",
                                arguments: [word])
        }.sorted()
    }

    @Test("pictures large enough and PDFs without text wait for OCR; icons, SVG, texts and PDFs with text do not")
    func candidates() throws {
        let t = try TestIndex()
        try t.store.indexSearchableItems([
            picture("/d/scan.png", width: 1600, height: 900),
            picture("/d/icon.png", width: 32, height: 32),
            picture("/d/logo.svg", width: 800, height: 600, type: "public.svg-image"),
            pdf("/d/scanned.pdf", pages: 3, text: "1\n2\n3"),
            pdf("/d/paper.pdf", pages: 1, text: "A paper with a real text layer, long enough to count."),
            item("/d/notes.txt", text: "plain text"),
        ])
        #expect(try pending(t) == ["/d/scan.png", "/d/scanned.pdf"])
        // A candidate rewritten as something else no longer waits.
        try t.store.indexSearchableItems([item("/d/scan.png", text: "now a text")])
        #expect(try pending(t) == ["/d/scanned.pdf"])
    }

    @Test("a packed text (issue 41: it leaves the entry before the writer) decides the same: a 20-page PDF with a page's worth of text waits, one with text on every page does not")
    func packedAway() throws {
        let t = try TestIndex()
        let little = String(repeating: "Page header 1 2 3 ", count: 12)       // 216 bytes over 20 pages
        let full = String(repeating: "A page of a real text layer, with words on it. ", count: 20 * 12)
        var entries = [pdf("/d/thin.pdf", pages: 20, text: little), pdf("/d/full.pdf", pages: 20, text: full)]
            .map { IndexEntry(item: $0, summarized: true) }
        for i in entries.indices { entries[i].packText() }
        #expect(entries.allSatisfy { $0.item.attributes.textContent == nil }, "both texts compress, so both left the entries")
        try t.store.index(entries)
        #expect(try pending(t) == ["/d/thin.pdf"])
        #expect(try t.store.item(ItemIdentifier("/d/full.pdf"))?.attributes.textContent == full)
        #expect(try matches(t, "layer") == ["full.pdf"])
    }

    @Test("text read is stored as textContent with its source and confidence, searchable; a skip is recorded; neither waits again")
    func results() throws {
        let t = try TestIndex()
        try t.store.indexSearchableItems([picture("/d/scan.png", width: 1600, height: 900), picture("/d/photo.jpg", width: 4000, height: 3000),
                                          pdf("/d/scanned.pdf", pages: 1, text: "7")])
        let waiting = try t.store.pendingRecognitions(limit: 10)
        let made = waiting.map { p -> MadeRecognition in
            switch p.identifier.description {
            case "/d/photo.jpg": MadeRecognition(rowID: p.rowID, version: p.version, outcome: .skipped("the picture looks like a photo without text"))
            case "/d/scanned.pdf": MadeRecognition(rowID: p.rowID, version: p.version, outcome: .text("Minutes of the chrysanthemum society", confidence: 88))
            default: MadeRecognition(rowID: p.rowID, version: p.version, outcome: .text("Reference: harpsichord voucher", confidence: 91))
            }
        }
        let stored = try t.store.storeRecognitions(made)
        #expect(stored.map(\.description).sorted() == ["/d/scan.png", "/d/scanned.pdf"])
        #expect(try matches(t, "harpsichord") == ["scan.png"])
        #expect(try matches(t, "chrysanthemum") == ["scanned.pdf"])
        let scan = try #require(try t.store.item(ItemIdentifier("/d/scan.png"))).attributes
        #expect(scan.string(.textSource) == "ocr" && scan.integer(.textConfidence) == 91)
        #expect(scan.textContent == "Reference: harpsichord voucher")
        // The scanned PDF keeps its own little text before the OCR's.
        #expect(try t.store.item(ItemIdentifier("/d/scanned.pdf"))?.attributes.textContent == "7\nMinutes of the chrysanthemum society")
        let photo = try #require(try t.store.item(ItemIdentifier("/d/photo.jpg"))).attributes
        #expect(photo.string(.textRecognitionSkipped)?.contains("photo") == true && photo.string(.textSource) == nil)
        #expect(try pending(t).isEmpty)
        let confidence = try t.store.read { db in try Double.fetchOne(db, sql: "SELECT ocr_confidence FROM items WHERE name = 'scan.png'") }
        #expect(confidence == 91)
    }

    @Test("a result for an item written again meanwhile is dropped; the new version waits")
    func rewrittenMeanwhile() throws {
        let t = try TestIndex()
        try t.store.indexSearchableItems([picture("/d/scan.png", width: 1600, height: 900)])
        let first = try #require(try t.store.pendingRecognitions(limit: 1).first)
        // An item's version is its write's time: the second write comes a moment later.
        let firstWrite = Date()
        #expect(eventually { Date().timeIntervalSince(firstWrite) > 0.002 })
        try t.store.indexSearchableItems([picture("/d/scan.png", width: 1700, height: 900)])
        let stored = try t.store.storeRecognitions([MadeRecognition(rowID: first.rowID, version: first.version, outcome: .text("stale words", confidence: 90))])
        #expect(stored.isEmpty)
        #expect(try matches(t, "stale").isEmpty)
        #expect(try pending(t) == ["/d/scan.png"])
    }
}
