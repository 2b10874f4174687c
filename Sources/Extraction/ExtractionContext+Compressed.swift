import Attributes
import ExtractionModel

/// Single compressed files (`.gz`, `.bz2`, `.xz`, `.zst`, `.Z` holding one file): the inner
/// file is typed from its name without the suffix and its decompressed bytes, the way
/// `ContentTyping` types any file, and read by the extractor of that type. The item keeps the
/// outer file's name, path, type and kind; it gets `contentEncoding` (`gzip`, ...) and the inner
/// type's tree beside the outer one, so that `cp.1.gz` is both a gzip archive and a manual page.
///
/// A key design decision: this is done here, not in an extractor, because typing the inner file
/// needs the context's per-thread libmagic handle, and because the inner file's extractor must
/// be the one recorded on the item (its version decides when the item is read again).
///
/// When the inner type has no extractor, or is itself an archive or a compressed file, the
/// outer file goes to `ArchiveExtractor` as before (which lists the inner name), still with
/// `contentEncoding` and the inner type. A stream that cannot be decompressed (damaged,
/// truncated, past a bomb limit) is an extraction error naming the reason; the file is then
/// listed as an archive too.
extension ExtractionContext {
    /// The decompressed file, typed, with the extractor that reads it (nil: the archive
    /// extractor lists the outer file instead).
    struct InnerFile {
        var encoding: ContentEncoding
        var detection: TypeDetection
        var input: ExtractionInput
        var extractor: (any Extractor)?
    }

    /// Decompresses as much of `outer` (whose `file` is set) as its inner file's extractor needs.
    func openCompressed(_ outer: ExtractionInput, encoding: ContentEncoding, name: [UInt8]) throws(ExtractionError) -> InnerFile {
        let stream = try CompressedFile(outer, encoding: encoding)
        let textCap = options.textCap
        let (head, headEnd) = try stream.read(upTo: min(textCap + 1, Self.sniffBytes))
        let innerName = encoding.innerName(name)
        let typed = typing.type(name: innerName, bytes: head, fileSize: Int64(head.count), isEmpty: headEnd && head.isEmpty)
        var input = ExtractionInput(facts: outer.facts, bytes: head, isComplete: headEnd && head.count <= textCap,
                                    detection: typed.detection, magicCharset: typed.charset, textCap: textCap)
        input.decompressedName = innerName
        var inner = InnerFile(encoding: encoding, detection: typed.detection, input: input, extractor: nil)
        let nested = input.conforms(to: .archive) || ContentEncoding(detection: typed.detection) != nil
        guard !nested, !(headEnd && head.isEmpty), let extractor = ExtractorRegistry.extractor(for: input) else { return inner }
        if input.conforms(to: .text) {
            let (bytes, end) = try stream.read(upTo: textCap + 1)
            inner.input.bytes = bytes
            inner.input.isComplete = end && bytes.count <= textCap
        } else {
            // PDF, OpenDocument, images: their extractors want the whole file.
            inner.input.bytes = try stream.readAll()
            inner.input.isComplete = true
        }
        inner.extractor = extractor
        return inner
    }

    /// The outer type's tree with the inner type's beside it: the outer types first, then the
    /// inner ones, then the roots (`public.content`, `public.data`, `public.item`) once, last.
    static func merged(_ outer: [ContentType], _ inner: [ContentType]) -> [ContentType] {
        let roots: [ContentType] = [.content, .data, .item]
        var out: [ContentType] = []
        for t in outer + inner where !roots.contains(t) && !out.contains(t) { out.append(t) }
        for r in roots where outer.contains(r) || inner.contains(r) { out.append(r) }
        return out
    }
}
