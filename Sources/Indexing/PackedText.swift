import Attributes
import CFTS5CJK
import Glibc

/// An item's text as `item_texts` stores it (see `Schema`): compressed by zstd with the length in
/// front, or as it is when short or incompressible; the same bytes `fsindex_zip` makes in SQL.
///
/// Why it can be made beforehand (issue 23): compressing 1.3 GB of text at zlib's level 6 was a
/// twentieth of a whole first index's CPU, all of it on the one thread that writes. The crawl's
/// extraction threads, which otherwise wait for their workers, pack each entry's text before
/// handing the batch to the writer (`IndexEntry.packText()`).
package enum PackedText: Sendable, Hashable {
    /// The `fsindex_zip` BLOB.
    case compressed([UInt8])
    /// Stored as the text itself.
    case plain

    /// The packing of `text` (whose NULs are already spaces, as the index stores it).
    package init(_ text: String) {
        var text = text
        let packed: [UInt8]? = text.withUTF8 { bytes in
            guard let base = bytes.baseAddress else { return nil }
            var length = 0
            guard let out = fsindex_zip_bytes(base, bytes.count, &length) else { return nil }
            defer { free(out) }
            return Array(UnsafeBufferPointer(start: out, count: length))
        }
        self = packed.map(PackedText.compressed) ?? .plain
    }
}

extension IndexEntry {
    /// Packs the text now, on the caller's thread, so that the writer stores it as it is.
    ///
    /// A compressed text leaves the attributes (issue 41): the writer indexes its words from the
    /// packed bytes (`fsindex_unzip`, about 1 GB/s), so a batch waiting for the writer holds a
    /// quarter of the text's bytes. The crawl holds up to a dozen batches between its workers and
    /// its writer: their texts were half of `fsindex index`'s heap at its peak (52 of 111 MB on
    /// the bench corpus, heaptrack). What the writer would have read from the text is decided
    /// here: whether it waits for OCR (a PDF with too little text). A text not yet summarized
    /// stays, for the writer to mark it for the summary pass.
    package mutating func packText() {
        guard let text = item.attributes.textContent else { return }
        let packed = PackedText(AttributeValue.replacingNUL(text))
        packedText = packed
        if case .compressed = packed, summarized {
            recognitionWanted = IndexStore.wantsRecognition(item.attributes)
            item.attributes[.textContent] = nil
        }
    }
}
