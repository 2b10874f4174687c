import Attributes
import ExtractionModel

/// OpenDocument files (`.odt`, `.ods`, `.odp`, `.odg`, `.odf` and their templates), read as
/// zip files through libarchive (`ArchiveReader`, with its zip-bomb limits) and parsed with
/// libxml2's streaming reader.
///
/// Gives, from `meta.xml`: `title`, `subject`, `keywords` (each `meta:keyword`),
/// `contentDescription`, `language`, `authors` (`meta:initial-creator`, then `dc:creator` when
/// different), `contentCreationDate` (`meta:creation-date`), `contentModificationDate`
/// (`dc:date`), `pageCount` (`meta:document-statistic/@meta:page-count`) and `generator`.
/// The text is the body of `content.xml` (paragraphs and headings as lines, table rows as lines
/// with cells separated by spaces, `text:s` and `text:tab` as spaces; tracked deletions and
/// annotation authors and dates are skipped; a formula's MathML gives its identifiers, numbers,
/// operators and text), then the headers and footers of `styles.xml`'s
/// master pages.
///
/// An encrypted document (its `META-INF/manifest.xml` has `manifest:encryption-data` for a
/// part) keeps whatever plain parts say, gets `encrypted` = true and the error "encrypted; needs
/// a password". A file that is not a zip gives a clear error.
///
/// For example, Tika's `testOpenOffice2.odt` gives `language` "en-US", `pageCount` 1 and text
/// starting "This is a sample Open Office document".
///
/// Cost: one pass over the zip, decompressing four parts at most, each parsed as a stream.
package struct OpenDocumentExtractor: Extractor {
    package var name: String { "opendocument" }

    package init() {}

    static let types: [ContentType] = [
        "org.oasis-open.opendocument.text", "org.oasis-open.opendocument.spreadsheet",
        "org.oasis-open.opendocument.presentation", "org.oasis-open.opendocument.formula",
    ]

    package func accepts(_ input: ExtractionInput) -> Bool {
        Self.types.contains(where: input.conforms(to:)) || input.mimeType.hasPrefix("application/vnd.oasis.opendocument.")
    }

    static let wanted: Set<String> = ["meta.xml", "content.xml", "styles.xml", "META-INF/manifest.xml"]

    package func extract(_ input: ExtractionInput, into attributes: inout AttributeSet) throws(ExtractionError) {
        let zip = try ZipContainer.read(input, extractor: name) { Self.wanted.contains($0) }
        var encrypted = zip.encrypted
        if let manifest = zip.parts["META-INF/manifest.xml"] { encrypted.formUnion(Self.encryptedParts(manifest)) }

        if let meta = zip.parts["meta.xml"], !encrypted.contains("meta.xml") { Self.metadata(meta, into: &attributes) }

        var text = TextBuffer(cap: input.textCap)
        var problem: String?
        if let content = zip.parts["content.xml"], !encrypted.contains("content.xml") {
            // A formula's content is MathML, not text:p.
            var math = false
            try? XMLStream.parse(content) { node in
                math = node.kind == .start && node.localName == "math"
                return node.kind != .start   // stop at the root element
            }
            do { try XMLText.collect(content, rules: math ? Self.mathRules : Self.contentRules, into: &text) } catch {
                problem = "content.xml: \(error.reason)"
            }
        }
        if let styles = zip.parts["styles.xml"], !encrypted.contains("styles.xml"), !text.isFull {
            text.breakLine()
            try? Self.masterPageText(styles, into: &text)
        }
        try zip.finish(text, encrypted: !encrypted.isEmpty, into: &attributes, extractor: name)
        if zip.parts["content.xml"] == nil && zip.parts["meta.xml"] == nil {
            throw .malformed(extractor: name, reason: "neither content.xml nor meta.xml is present; not an OpenDocument file?")
        }
        if let problem { throw .malformed(extractor: name, reason: problem) }
    }

    /// The parts the manifest lists with `manifest:encryption-data`.
    static func encryptedParts(_ manifest: [UInt8]) -> Set<String> {
        var out: Set<String> = []
        var current: String?
        try? XMLStream.parse(manifest) { node in
            if node.kind == .start {
                if node.localName == "file-entry" {
                    current = node.attribute("full-path", namespace: "urn:oasis:names:tc:opendocument:xmlns:manifest:1.0")
                        ?? node.attribute("manifest:full-path")
                } else if node.localName == "encryption-data", let c = current {
                    out.insert(c)
                }
            }
            return true
        }
        return out
    }

    static let metaNamespace = "urn:oasis:names:tc:opendocument:xmlns:meta:1.0"

    static func metadata(_ bytes: [UInt8], into attributes: inout AttributeSet) {
        var field = ElementText()
        var current = ""
        var values: [String: String] = [:]
        var keywords: [String] = []
        var pageCount: Int64?
        try? XMLStream.parse(bytes) { node in
            if field.isCollecting {
                if case let .some(value) = field.feed(node), let value {
                    if current == "keyword" { keywords.append(value) } else if values[current] == nil { values[current] = value }
                }
                return true
            }
            guard node.kind == .start else { return true }
            let local = node.localName
            if local == "document-statistic" {
                if let p = node.attribute("page-count", namespace: metaNamespace), let n = Int64(p), n > 0 { pageCount = n }
                return true
            }
            let key: String? = switch (node.namespace, local) {
            case ("http://purl.org/dc/elements/1.1/", "title"), ("http://purl.org/dc/elements/1.1/", "subject"),
                 ("http://purl.org/dc/elements/1.1/", "description"), ("http://purl.org/dc/elements/1.1/", "language"),
                 ("http://purl.org/dc/elements/1.1/", "creator"), ("http://purl.org/dc/elements/1.1/", "date"):
                local
            case (metaNamespace, "keyword"), (metaNamespace, "initial-creator"), (metaNamespace, "creation-date"),
                 (metaNamespace, "generator"):
                local
            default:
                nil
            }
            if let key, !node.isEmpty {
                current = key
                field.begin()
            }
            return true
        }
        if let v = values["title"] { attributes[.title] = .string(v) }
        if let v = values["subject"] { attributes[.subject] = .string(v) }
        if !keywords.isEmpty { attributes[.keywords] = .strings(keywords) }
        if let v = values["description"] { attributes[.contentDescription] = .string(v) }
        if let v = values["language"] { attributes[.language] = .string(v) }
        var authors: [String] = []
        for k in ["initial-creator", "creator"] { if let v = values[k], !authors.contains(v) { authors.append(v) } }
        if !authors.isEmpty { attributes[.authors] = .strings(authors) }
        if let v = values["creation-date"], let d = DocumentFields.iso8601(v) { attributes[.contentCreationDate] = .date(d) }
        if let v = values["date"], let d = DocumentFields.iso8601(v) { attributes[.contentModificationDate] = .date(d) }
        if let pageCount { attributes[.pageCount] = .integer(pageCount) }
        if let v = values["generator"] { attributes[.generator] = .string(v) }
    }

    static let contentRules = XMLTextRules(
        text: ["p", "h"], space: ["s", "tab", "table-cell", "covered-table-cell", "note-citation", "note-body", "title", "desc", "frame"],
        line: ["line-break"],
        block: ["p", "h", "table-row", "list-item", "frame", "title", "desc", "custom-shape"],
        skip: ["tracked-changes", "creator", "date", "sequence-decls", "forms", "scripts", "font-face-decls",
               "automatic-styles"])

    static let mathRules = XMLTextRules(
        text: ["mi", "mn", "mo", "mtext", "ms"], space: ["mi", "mn", "mo", "mtext", "ms"], skip: ["annotation"])

    /// The text of the headers and footers in `<office:master-styles>` (page fields such as the
    /// sheet name or the page number are skipped: they hold placeholder text).
    static func masterPageText(_ bytes: [UInt8], into text: inout TextBuffer) throws(XMLStream.Failure) {
        var buffer = text
        defer { text = buffer }
        var inMaster = false, inText = 0, skipping = 0
        var paragraph = ""
        let fields: Set<String> = ["sheet-name", "title", "page-number", "page-count", "date", "time", "file-name", "chapter",
                                   "page-continuation"]
        try XMLStream.parse(bytes) { node in
            switch node.kind {
            case .start:
                if node.localName == "master-styles" { inMaster = !node.isEmpty; return true }
                guard inMaster else { return true }
                if skipping > 0 { if !node.isEmpty { skipping += 1 }; return true }
                if fields.contains(node.localName) { if !node.isEmpty { skipping = 1 }; return true }
                if node.localName == "p" || node.localName == "h", !node.isEmpty { inText += 1 }
                if node.localName == "s" || node.localName == "tab" { paragraph += " " }
            case .end:
                if node.localName == "master-styles" { inMaster = false; return false }
                guard inMaster else { return true }
                if skipping > 0 { skipping -= 1; return true }
                if node.localName == "p" || node.localName == "h" {
                    inText = max(0, inText - 1)
                    // Only paragraphs with words: the rest is punctuation around skipped fields.
                    if paragraph.unicodeScalars.contains(where: { $0.properties.isAlphabetic || ("0"..."9").contains($0) }) {
                        buffer.append(paragraph)
                        buffer.breakLine()
                    }
                    paragraph = ""
                }
            case .text:
                if inMaster, skipping == 0, inText > 0, let v = node.value, paragraph.utf8.count < 64 * 1024 { paragraph += v }
            }
            return !buffer.isFull
        }
    }
}
