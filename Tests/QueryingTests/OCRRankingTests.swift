import Attributes
import Foundation
import Indexing
import Querying
import TestSupport
import Testing

/// Text read by OCR ranks by the recognizer's confidence (issue 28): the same words count less
/// in a noisy scan than in a clean one, and a clean one a little less than a file's own text.
@Suite("Ranking of OCR text")
struct OCRRankingTests {
    @Test("the same text ranks: a file's own, then OCR at 95 %, then OCR at 30 %")
    func confidence() throws {
        func picture(_ path: String) -> SearchableItem {
            var i = doc(path, type: "public.png")
            i.attributes[.pixelWidth] = .integer(1600)
            i.attributes[.pixelHeight] = .integer(900)
            return i
        }
        let text = "Reference harpsichord voucher for the quarterly maintenance"
        let f = try QueryFixture([picture("/r/a.png"), picture("/r/b.png"), doc("/r/c.txt", text: text)])
        let waiting = try f.store.pendingRecognitions(limit: 10)
        #expect(waiting.count == 2)
        _ = try f.store.storeRecognitions(waiting.map { p in
            MadeRecognition(rowID: p.rowID, version: p.version,
                            outcome: .text(text, confidence: p.identifier.description == "/r/a.png" ? 30 : 95))
        })
        #expect(try f.paths(["harpsichord"]) == ["/r/c.txt", "/r/b.png", "/r/a.png"])
        #expect(try f.paths(["harpsichord"], limit: 2) == ["/r/c.txt", "/r/b.png"])
    }
}
