import Attributes
import ExtractionModel
import CLibXML2

/// HTML and XHTML pages, through libxml2's forgiving HTML parser (`htmlCtxtReadMemory(3)` with
/// `RECOVER | NOERROR | NOWARNING | NONET`): broken markup is normal input, not an error. A page
/// nested deeper than libxml2's limit (256 elements) keeps the text before the point where
/// libxml2 stopped, and records why in `extractionError` (`LibXML.Halt`).
///
/// Gives `title` (`<title>`, else `<meta name=title>`), `contentDescription` (meta
/// description), `keywords` (meta keywords split on commas), `authors` (meta author), `language`
/// (`<html lang>`, else `Content-Language`), `headline` (the first `<h1>`), `encoding`, Dublin Core meta tags where the plain
/// ones are missing (`DC.title`, `DC.creator`, `DC.subject`, `DC.description`, `DC.language`;
/// `DC.date`/`DCTERMS.created` → `contentCreationDate`, `DCTERMS.modified` →
/// `contentModificationDate`), `latitude`/`longitude` from `<meta name="geo.position"
/// content="lat;lon">` or `<meta name="ICBM" content="lat, lon">`, and the visible text as `textContent`:
/// the text of `<script>`, `<style>`, `<noscript>` and `<template>` is skipped, and block
/// elements are separated by newlines.
///
/// The charset comes from a byte-order mark (UTF-16 pages are decoded to UTF-8 here, since their
/// `<meta charset>` is often wrong, such as `charset=unicode`), else from `<meta charset>` /
/// `http-equiv` as libxml2 reads it, else UTF-8 with a Latin-1 fallback.
///
/// For example, `<html lang=fr><title>Bonjour</title><p>Salut <script>x()</script>tout</p>`
/// gives `title` `"Bonjour"`, `language` `"fr"` and `textContent` `"Salut tout"`.
///
/// Cost: one DOM parse of at most `textCap + 1` bytes; about 0.1 ms for a 10 KB page.
package struct HTMLExtractor: Extractor {
    package var name: String { "html" }

    package init() {}

    package func accepts(_ input: ExtractionInput) -> Bool { input.conforms(to: .html) }

    static let skipped: Set<String> = ["script", "style", "noscript", "template"]
    static let blocks: Set<String> = [
        "p", "div", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "li", "ul", "ol", "dl", "dt", "dd",
        "table", "tr", "td", "th", "caption", "thead", "tbody", "tfoot", "blockquote", "pre", "section",
        "article", "header", "footer", "nav", "aside", "main", "address", "figure", "figcaption", "form",
        "fieldset", "legend", "details", "summary", "option", "body", "center", "frame", "iframe",
    ]

    package func extract(_ input: ExtractionInput, into attributes: inout AttributeSet) throws(ExtractionError) {
        _ = LibXML.ready
        var bytes = input.bytes
        var declared: String?
        var options = HTML_PARSE_RECOVER.rawValue | HTML_PARSE_NOERROR.rawValue | HTML_PARSE_NOWARNING.rawValue
            | HTML_PARSE_NONET.rawValue | HTML_PARSE_COMPACT.rawValue
        var bomEncoding: String?
        if let bom = TextDecoding.byteOrderMark(bytes[...]) {
            bomEncoding = bom.encoding
            bytes = bom.encoding == "utf-8" ? Array(bytes.dropFirst(bom.length))
                : Array(TextDecoding.decode(bytes.dropFirst(bom.length), as: bom.encoding).utf8)
            declared = "UTF-8"
            options |= HTML_PARSE_IGNORE_ENC.rawValue
        } else if let charset = Self.metaCharset(bytes) {
            // Told up front, because libxml2 2.9 falls back on Latin-1 for good at the first
            // non-UTF-8 byte and then ignores a <meta charset> that comes later.
            declared = charset
            options |= HTML_PARSE_IGNORE_ENC.rawValue
        }
        guard !bytes.isEmpty else { return }
        let flags = Int32(bitPattern: UInt32(truncatingIfNeeded: options))
        let (parsed, halt) = LibXML.readHTML(bytes, encoding: declared, options: flags)
        guard let doc = parsed else {
            throw .malformed(extractor: name, reason: halt?.reason ?? "libxml2 found no HTML document in the file")
        }
        defer { xmlFreeDoc(doc) }

        var page = Page(cap: input.textCap)
        page.walk(doc)

        let encoding = bomEncoding ?? LibXML.string(doc.pointee.encoding)?.lowercased()
            ?? input.magicCharset.flatMap { ["binary", "unknown-8bit"].contains($0) ? nil : $0 } ?? "utf-8"
        attributes[.encoding] = .string(encoding)
        let meta = page.meta
        if let title = page.title ?? meta["title"] ?? meta["dc.title"] { attributes[.title] = .string(title) }
        if let d = meta["description"] ?? meta["dc.description"] { attributes[.contentDescription] = .string(d) }
        if let h = page.heading { attributes[.headline] = .string(h) }
        if let k = meta["keywords"] ?? meta["dc.subject"] {
            let words = k.split(whereSeparator: { $0 == "," || $0 == ";" }).map { $0.trimmingSpaces() }.filter { !$0.isEmpty }
            if !words.isEmpty { attributes[.keywords] = .strings(words) }
        }
        if let a = meta["author"] ?? meta["dc.creator"] { attributes[.authors] = .strings([a]) }
        if let lang = page.language ?? meta["content-language"] ?? meta["dc.language"] { attributes[.language] = .string(lang) }
        if let d = (meta["dc.date"] ?? meta["dcterms.created"] ?? meta["dcterms.date"]).flatMap(DocumentFields.iso8601) {
            attributes[.contentCreationDate] = .date(d)
        }
        if let d = meta["dcterms.modified"].flatMap(DocumentFields.iso8601) { attributes[.contentModificationDate] = .date(d) }
        if let (lat, lon) = (meta["geo.position"] ?? meta["icbm"]).flatMap(MetadataValues.coordinates) {
            attributes[.latitude] = .double(lat)
            attributes[.longitude] = .double(lon)
        }
        let (text, full) = page.text.result
        if !text.isEmpty { attributes[.textContent] = .string(text) }
        if full || !input.isComplete || halt != nil { attributes[.textTruncated] = .bool(true) }
        // What was read is kept (above); what libxml2 never reached is reported.
        if let halt { throw .malformed(extractor: name, reason: halt.reason) }
    }

    /// The charset a `<meta charset=…>` or `<meta http-equiv=Content-Type content="…; charset=…">`
    /// in the first 64 KiB declares, if libxml2 (through iconv) knows it. UTF-16 and UTF-32
    /// declarations are ignored without a BOM, as browsers do (the bytes are ASCII-compatible).
    static func metaCharset(_ bytes: [UInt8]) -> String? {
        let head = bytes.prefix(64 * 1024)
        let lower = head.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
        let meta = Array("<meta".utf8), key = Array("charset".utf8)
        var i = lower.startIndex
        while let start = lower[i...].firstRange(of: meta)?.upperBound {
            let end = lower[start...].firstIndex(of: UInt8(ascii: ">")) ?? lower.endIndex
            i = end
            guard let k = lower[start..<end].firstRange(of: key)?.upperBound else { continue }
            var j = k
            let skip: Set<UInt8> = [0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: "="), UInt8(ascii: "\""), UInt8(ascii: "'")]
            while j < end, skip.contains(lower[j]) { j += 1 }
            var name: [UInt8] = []
            while j < end, lower[j] < 0x80, lower[j] == UInt8(ascii: "-") || lower[j] == UInt8(ascii: "_") || lower[j] == UInt8(ascii: ":")
                    || lower[j] == UInt8(ascii: ".") || (lower[j] >= 0x30 && lower[j] <= 0x39) || (lower[j] >= 0x61 && lower[j] <= 0x7A) {
                name.append(lower[j])
                j += 1
            }
            let charset = String(decoding: name, as: UTF8.self)
            if charset.isEmpty || charset.hasPrefix("utf-16") || charset.hasPrefix("utf-32") || charset == "unicode" { return nil }
            guard let handler = xmlFindCharEncodingHandler(charset) else { return nil }
            xmlCharEncCloseFunc(handler)
            return charset
        }
        return nil
    }

    /// What one walk over the DOM collects.
    struct Page {
        var text: TextBuffer
        var title: String?
        /// The first `<h1>`'s text.
        var heading: String?
        var meta: [String: String] = [:]
        var language: String?

        init(cap: Int) { text = TextBuffer(cap: cap) }

        /// Visits the tree depth first without recursion (hostile pages nest deeply).
        mutating func walk(_ doc: htmlDocPtr) {
            let top = UnsafeMutableRawPointer(doc).assumingMemoryBound(to: xmlNode.self)
            var node = doc.pointee.children
            while let n = node {
                var descend = false
                switch n.pointee.type {
                case XML_ELEMENT_NODE:
                    descend = element(n)
                case XML_TEXT_NODE, XML_CDATA_SECTION_NODE:
                    if let c = LibXML.string(n.pointee.content) { text.append(c) }
                default:
                    break
                }
                if text.isFull { return }
                if descend, let child = n.pointee.children {
                    node = child
                    continue
                }
                // Climb until a next sibling, closing blocks on the way up.
                var cur: xmlNodePtr? = n
                while let c = cur, c.pointee.next == nil {
                    cur = c.pointee.parent
                    if let p = cur, p != top, p.pointee.type == XML_ELEMENT_NODE, HTMLExtractor.blocks.contains(LibXML.name(p)) {
                        text.breakLine()
                    }
                    if cur == nil || cur == top { return }
                }
                if let c = cur, c.pointee.type == XML_ELEMENT_NODE, HTMLExtractor.blocks.contains(LibXML.name(c)) {
                    text.breakLine()
                }
                node = cur?.pointee.next
            }
        }

        /// Handles one element; returns whether to visit its children.
        mutating func element(_ n: xmlNodePtr) -> Bool {
            let name = LibXML.name(n)
            if name == "h1", heading == nil { heading = clean(LibXML.take(xmlNodeGetContent(n))) }
            switch name {
            case "html":
                if language == nil { language = clean(LibXML.attribute(n, "lang") ?? LibXML.take(xmlNodeGetLang(n))) }
            case "title":
                if title == nil { title = clean(LibXML.take(xmlNodeGetContent(n))) }
                return false
            case "meta":
                let key = (LibXML.attribute(n, "name") ?? LibXML.attribute(n, "http-equiv"))?.lowercased()
                if let key, meta[key] == nil, let value = clean(LibXML.attribute(n, "content")) { meta[key] = value }
                return false
            case "head":
                return true   // for <title> and <meta>; its text nodes are white space
            default:
                break
            }
            if HTMLExtractor.skipped.contains(name) { return false }
            if HTMLExtractor.blocks.contains(name) { text.breakLine() }
            return true
        }

        private func clean(_ s: String?) -> String? {
            guard let s else { return nil }
            var t = TextBuffer(cap: 4096)
            t.append(s)
            return t.result.text.isEmpty ? nil : t.result.text
        }
    }
}
