import Attributes
import ExtractionModel
import FoundationEssentials

/// Rich Text Format documents, by a small hand-written tokenizer (there is no maintained C
/// library for RTF on Debian).
///
/// Gives the body text as `textContent` (`\par`, `\line`, `\page`, `\sect` and `\row` become line
/// breaks), and from the `\info` group `title`, `subject`, `authors` (every `\author`),
/// `keywords` (split on commas and semicolons, else on spaces), `contentDescription`
/// (`\doccomm`), `contentCreationDate` (`\creatim`) and `contentModificationDate` (`\revtim`);
/// RTF dates carry no time zone and are read as UTC.
///
/// Characters: `\uN` (with the `\ucN` count of fallback characters after it skipped, and
/// UTF-16 surrogate pairs joined), and `\'hh` bytes and raw 8-bit bytes decoded in the code page
/// of the current font's `\fcharset` (Shift-JIS for `\fcharset128`, ...) or else the
/// document's `\ansicpg` (Windows-1252 by default). In `\upr` groups the Unicode `\ud` version
/// is read, not the ANSI one.
///
/// Skipped: the font, color, style, list and revision tables, pictures (`\pict`), embedded
/// object data, field instructions (`\fldinst`; the field result is kept), `\bin` data, and any
/// unknown `\*` destination. Groups nested deeper than `maxDepth` are skipped, without recursion
/// (a document of 100,000 nested groups costs no more than a flat one), and the item records it
/// in `extractionError` with the depth met; the text around them is kept.
///
/// A file that does not start with `{\rtf` gives "not an RTF document"; a file that ends inside
/// open groups keeps what was read and gives "truncated: ...".
///
/// For example, `{\rtf1\ansi{\info{\title Notes}}Caf\'e9\par Bye}` gives `title` "Notes" and
/// `textContent` "Café\nBye".
///
/// Cost: linear in the bytes read; reading stops once the text cap is reached or after
/// `maxBytes` (RTF with embedded pictures can be large).
package struct RTFExtractor: Extractor {
    package var name: String { "rtf" }

    static let maxDepth = 256
    static let maxBytes: Int64 = 256 << 20

    package init() {}

    package func accepts(_ input: ExtractionInput) -> Bool { input.conforms(to: "public.rtf") }

    package func extract(_ input: ExtractionInput, into attributes: inout AttributeSet) throws(ExtractionError) {
        var start = 0
        if input.bytes.starts(with: [0xEF, 0xBB, 0xBF]) { start = 3 }
        while start < input.bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(input.bytes[start]) { start += 1 }
        guard input.bytes[start...].starts(with: Array("{\\rtf".utf8)) else {
            throw .malformed(extractor: name, reason: "not an RTF document (it does not start with {\\rtf)")
        }
        var source = RTFSource(input: input, start: start, limit: Self.maxBytes)
        let parser = RTFParser(cap: input.textCap)
        parser.run(&source)

        let info = parser.info
        if let t = DocumentFields.clean(info.title) { attributes[.title] = .string(t) }
        if let s = DocumentFields.clean(info.subject) { attributes[.subject] = .string(s) }
        var seen = Set<String>()
        let authors = info.authors.compactMap { DocumentFields.clean($0) }.filter { seen.insert($0).inserted }
        if !authors.isEmpty { attributes[.authors] = .strings(authors) }
        if let k = DocumentFields.clean(info.keywords) {
            let words = k.contains(",") || k.contains(";") ? DocumentFields.list(k) : DocumentFields.list(k, separators: [" "])
            if !words.isEmpty { attributes[.keywords] = .strings(words) }
        }
        if let c = DocumentFields.clean(info.comment) { attributes[.contentDescription] = .string(c) }
        if let d = info.created.date { attributes[.contentCreationDate] = .date(d) }
        if let d = info.revised.date { attributes[.contentModificationDate] = .date(d) }

        let (text, full) = parser.text.result
        if !text.isEmpty { attributes[.textContent] = .string(text) }
        if full || source.hitLimit || parser.skippedGroups > 0 { attributes[.textTruncated] = .bool(true) }
        var reasons: [String] = []
        if parser.skippedGroups > 0 {
            // The text around the deep groups is kept; only what is inside them is not.
            reasons.append("the document nests groups \(parser.deepestGroup) deep; the text inside the \(parser.skippedGroups) "
                           + "group(s) deeper than \(Self.maxDepth) was skipped, the rest is indexed")
        }
        if parser.openGroups > 0, source.atEnd, !full {
            reasons.append("truncated: the file ends inside \(parser.openGroups) open group(s)")
        }
        if !reasons.isEmpty { throw .malformed(extractor: name, reason: reasons.joined(separator: "; ")) }
    }
}
