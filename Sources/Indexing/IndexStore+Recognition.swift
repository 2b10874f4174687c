import Attributes
import FoundationEssentials
import GRDB
import MemberwiseInit

/// An item waiting for OCR (`ocr_pending`): what the OCR pass reads.
package struct PendingRecognition: Sendable, Hashable {
    package var rowID: Int64
    package var identifier: ItemIdentifier
    /// The item's write stamp when it was read: a result is stored only if the item was not
    /// written again since (see `IndexStore.storeRecognitions`).
    package var version: Double
}

/// What OCR made of a `PendingRecognition`.
@MemberwiseInit
package struct MadeRecognition: Sendable, Hashable {
    package enum Outcome: Sendable, Hashable {
        /// Text read, with the mean word confidence (0 to 100).
        case text(String, confidence: Int)
        /// Not read, and why (kept in `textRecognitionSkipped`).
        case skipped(String)
    }
    package var rowID: Int64
    package var version: Double
    package var outcome: Outcome
}

extension IndexStore {
    /// Pictures whose sides are shorter than this (icons) are not OCR candidates: skipped by
    /// their stored size, without decoding (the worker checks again what it decodes).
    package static let recognitionMinimumSide = 48
    /// A PDF with fewer characters of text than this per page has no real text layer (a scan,
    /// maybe with a page number or a stamp): a candidate for OCR.
    package static let recognitionTextPerPage = 16

    /// Whether an item with these attributes is an OCR candidate: a picture (not SVG, which is
    /// text already) large enough to hold text, without text of its own; or a PDF with pages
    /// whose text is missing or almost empty.
    static func wantsRecognition(_ a: AttributeSet) -> Bool {
        let type = a.string(.contentType)
        if type == ContentType.pdf.rawValue {
            guard let pages = a.integer(.pageCount), pages > 0, a.string(.textSource) == nil else { return false }
            let text = a.textContent ?? ""
            return text.unicodeScalars.count { !$0.properties.isWhitespace } < recognitionTextPerPage * Int(pages)
        }
        guard type != "public.svg-image", a.contentTypeTree.contains(.image) || type == ContentType.image.rawValue,
              a.textContent == nil, a.string(.textSource) == nil else { return false }
        let side = Int64(recognitionMinimumSide)
        return (a.integer(.pixelWidth) ?? side) >= side && (a.integer(.pixelHeight) ?? side) >= side
    }

    /// `text` without white space at either end.
    static func trimmed(_ text: String) -> String {
        String(text.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }

    /// Up to `limit` items waiting for OCR after rowid `after`, in rowid order (through the
    /// partial index `items_ocr_pending`: cheap when none waits).
    package func pendingRecognitions(limit: Int, after: Int64 = 0) throws(IndexError) -> [PendingRecognition] {
        try read { db in
            try Row.fetchAll(db.cachedStatement(sql: """
                SELECT id, path, indexed_at FROM items WHERE ocr_pending AND id > ? ORDER BY id LIMIT ?
                """), arguments: [after, limit]).map { row in
                PendingRecognition(rowID: row["id"], identifier: ItemIdentifier(bytes: Array(row["path"] as Data)),
                                   version: row["indexed_at"])
            }
        }
    }

    /// How many items wait for OCR (for `fsindex status` and tests).
    package func pendingRecognitionCount() throws(IndexError) -> Int {
        try read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM items WHERE ocr_pending") ?? 0 }
    }

    /// Stores OCR results in one transaction and returns the identifiers of the items that got
    /// text, for subscribers. Text goes into `textContent` (after the little text a scanned PDF
    /// had of its own, if any), with `textSource = ocr` and `textConfidence`; a skip goes into
    /// `textRecognitionSkipped`. Either way the item no longer waits. An item written again
    /// since it was read (a new version of the file), deleted, or no longer waiting is left
    /// alone: the result would describe a file it no longer is.
    package func storeRecognitions(_ results: [MadeRecognition]) throws(IndexError) -> [ItemIdentifier] {
        try storePassResults(results, pending: "ocr_pending") { db, made, attributes in
            var gotText = false
            switch made.outcome {
            case .skipped(let why):
                attributes[.textRecognitionSkipped] = .string(why)
            case let .text(text, confidence):
                attributes[.textRecognitionSkipped] = nil
                let trimmed = Self.trimmed(text)
                if !trimmed.isEmpty {
                    attributes[.textSource] = .string("ocr")
                    attributes[.textConfidence] = .integer(Int64(confidence))
                    let own = try String.fetchOne(db.cachedStatement(sql: "SELECT fsindex_unzip(text) FROM item_texts WHERE id = ?"),
                                                  arguments: [made.rowID]) ?? ""
                    let whole = Self.trimmed(own).isEmpty ? trimmed : own + "\n" + trimmed
                    // The update trigger takes the old words out of the full-text index and puts these in.
                    try db.cachedStatement(sql: "UPDATE item_texts SET text = fsindex_zip(?) WHERE id = ?")
                        .execute(arguments: [whole, made.rowID])
                    gotText = true
                }
            }
            let confidence: Double? = attributes.string(.textSource) == "ocr" ? attributes.integer(.textConfidence).map(Double.init) : nil
            try db.cachedStatement(sql: "UPDATE items SET attributes = ?, ocr_pending = NULL, ocr_confidence = ? WHERE id = ?")
                .execute(arguments: [try Self.json(attributes), confidence, made.rowID])
            return gotText
        }
    }
}
