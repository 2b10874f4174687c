import Attributes
import ExtractionModel
import CLibXML2

/// EPUB books (2 and 3), read as zip files through libarchive (`ArchiveReader`, with its
/// zip-bomb limits).
///
/// `META-INF/container.xml` names the package document (OPF). From its metadata: `title` (the
/// first `dc:title`), `authors` (every `dc:creator`), `keywords` (every `dc:subject`),
/// `contentDescription` (the first `dc:description`), `language` (the first `dc:language`),
/// `publishers` (every `dc:publisher`), `identifier` (the `dc:identifier` the package's
/// `unique-identifier` points at, else the first), `contentCreationDate` (`dc:date`) and
/// `contentModificationDate` (EPUB 3's `dcterms:modified`, or EPUB 2's
/// `<dc:date opf:event="modification">`). The text is the spine's XHTML
/// documents in reading order (parsed as XML, or with libxml2's HTML parser when they are not
/// well-formed), with `<script>`, `<style>` and `<head>` skipped, up to the text cap.
///
/// For example, Tika's `testEPUB.epub` gives `title` "An ePub  for Tika" collapsed to
/// "An ePub for Tika", `publishers` ["Apache"] and `identifier` "1234567890".
///
/// Cost: two passes over the zip (container and OPF, then the spine's documents, at most 256 MiB
/// decompressed in all); text stops at the cap.
package struct EPUBExtractor: Extractor {
    package var name: String { "epub" }

    package init() {}

    package func accepts(_ input: ExtractionInput) -> Bool {
        input.conforms(to: "org.idpf.epub-container") || input.mimeType == "application/epub+zip"
    }

    /// Spine documents larger than this are skipped (the text cap is reached long before).
    static let maxDocumentBytes = 16 << 20

    package func extract(_ input: ExtractionInput, into attributes: inout AttributeSet) throws(ExtractionError) {
        // Pass 1: the container and every package document (the container may come last).
        let first = try ZipContainer.read(input, extractor: name) { $0 == "META-INF/container.xml" || $0.hasSuffix(".opf") }
        var opfPath: String?
        if let container = first.parts["META-INF/container.xml"] {
            try? XMLStream.parse(container) { node in
                if node.kind == .start, node.localName == "rootfile", let p = node.attribute("full-path") {
                    if opfPath == nil || node.attribute("media-type") == "application/oebps-package+xml" { opfPath = p }
                    return false
                }
                return true
            }
        }
        if opfPath == nil || first.parts[opfPath!] == nil {
            opfPath = first.names.first { $0.hasSuffix(".opf") && first.parts[$0] != nil }
        }
        guard let opfPath, let opf = first.parts[opfPath] else {
            if let error = first.error { throw Self.damaged(error, name) }
            throw .malformed(extractor: name, reason: "no package document (OPF) found; not an EPUB book?")
        }
        let package = Self.package(opf, path: opfPath, into: &attributes)
        if let error = first.error { throw Self.damaged(error, name) }

        // Pass 2: the spine's documents.
        let spine = Set(package.spine)
        let second = try ZipContainer.read(input, extractor: name) { spine.contains($0) }
        var text = TextBuffer(cap: input.textCap)
        for path in package.spine {
            guard let bytes = second.parts[path], bytes.count <= Self.maxDocumentBytes else { continue }
            Self.documentText(bytes, into: &text)
            text.breakLine()
            if text.isFull { break }
        }
        let (body, full) = text.result
        if !body.isEmpty { attributes[.textContent] = .string(body) }
        if full { attributes[.textTruncated] = .bool(true) }

        if !second.encrypted.isEmpty || !first.encrypted.isEmpty {
            attributes[.encrypted] = .bool(true)
            throw .malformed(extractor: name, reason: "encrypted; needs a password")
        }
        if let error = second.error { throw Self.damaged(error, name) }
    }

    static func damaged(_ error: ExtractionError, _ name: String) -> ExtractionError {
        if case let .malformed(_, reason) = error { return .malformed(extractor: name, reason: "damaged or truncated zip: \(reason)") }
        return error
    }

    struct Package {
        /// Member names of the spine's documents, in reading order.
        var spine: [String] = []
    }

    static let dc = "http://purl.org/dc/elements/1.1/"

    /// Reads the OPF's metadata into `attributes` and returns its spine.
    static func package(_ bytes: [UInt8], path: String, into attributes: inout AttributeSet) -> Package {
        var field = ElementText()
        var current = ""
        var currentID: String?
        var currentEvent: String?
        var values: [String: [String]] = [:]
        var identifiers: [(id: String?, value: String)] = []
        var uniqueID: String?
        var manifest: [String: (href: String, type: String)] = [:]
        var itemrefs: [String] = []
        try? XMLStream.parse(bytes) { node in
            if field.isCollecting {
                if case let .some(value) = field.feed(node), let value {
                    if current == "identifier" {
                        identifiers.append((currentID, value))
                    } else if current == "date", currentEvent?.lowercased().contains("modif") == true {
                        values["modified", default: []].append(value)   // EPUB 2 <dc:date opf:event="modification">
                    } else {
                        values[current, default: []].append(value)
                    }
                }
                return true
            }
            guard node.kind == .start else { return true }
            switch (node.namespace, node.localName) {
            case (_, "package"):
                uniqueID = node.attribute("unique-identifier")
            case (dc, let local) where ["title", "creator", "subject", "description", "language", "publisher", "identifier", "date"].contains(local):
                if !node.isEmpty {
                    current = local
                    currentID = node.attribute("id")
                    currentEvent = node.attribute("event", namespace: "http://www.idpf.org/2007/opf")
                    field.begin()
                }
            case (_, "meta"):
                if node.attribute("property") == "dcterms:modified", !node.isEmpty, values["modified"] == nil {
                    current = "modified"
                    field.begin()
                }
            case (_, "item"):
                if let id = node.attribute("id"), let href = node.attribute("href") {
                    manifest[id] = (ZipContainer.resolve(href, against: path), node.attribute("media-type") ?? "")
                }
            case (_, "itemref"):
                if let id = node.attribute("idref") { itemrefs.append(id) }
            default:
                break
            }
            return true
        }
        if let v = values["title"]?.first { attributes[.title] = .string(v) }
        if let v = values["creator"] { attributes[.authors] = .strings(v) }
        if let v = values["subject"] { attributes[.keywords] = .strings(v) }
        if let v = values["description"]?.first { attributes[.contentDescription] = .string(v) }
        if let v = values["language"]?.first { attributes[.language] = .string(v) }
        if let v = values["publisher"] { attributes[.publishers] = .strings(v) }
        if let v = identifiers.first(where: { $0.id != nil && $0.id == uniqueID })?.value ?? identifiers.first?.value {
            attributes[.identifier] = .string(v)
        }
        if let v = values["date"]?.first, let d = DocumentFields.iso8601(v) { attributes[.contentCreationDate] = .date(d) }
        if let v = values["modified"]?.first, let d = DocumentFields.iso8601(v) { attributes[.contentModificationDate] = .date(d) }

        var out = Package()
        for id in itemrefs {
            guard let item = manifest[id], !out.spine.contains(item.href) else { continue }
            if item.type.isEmpty || item.type.contains("html") || item.type.contains("xml") { out.spine.append(item.href) }
        }
        return out
    }

    static let xhtmlBlocks = XMLTextRules(block: HTMLExtractor.blocks, skip: ["head", "script", "style", "noscript", "template"])

    /// Appends one spine document's visible text: as XML, else through the HTML parser.
    static func documentText(_ bytes: [UInt8], into text: inout TextBuffer) {
        var attempt = text
        do {
            try XMLText.collect(bytes, rules: xhtmlBlocks, into: &attempt)
            text = attempt
            return
        } catch {}
        _ = LibXML.ready
        let options = HTML_PARSE_RECOVER.rawValue | HTML_PARSE_NOERROR.rawValue | HTML_PARSE_NOWARNING.rawValue
            | HTML_PARSE_NONET.rawValue | HTML_PARSE_COMPACT.rawValue
        let flags = Int32(bitPattern: UInt32(truncatingIfNeeded: options))
        let parsed: htmlDocPtr? = bytes.withUnsafeBufferPointer { buf in
            buf.withMemoryRebound(to: CChar.self) { htmlReadMemory($0.baseAddress, Int32(clamping: $0.count), nil, "UTF-8", flags) }
        }
        guard let doc = parsed else { return }
        defer { xmlFreeDoc(doc) }
        var page = HTMLExtractor.Page(cap: max(0, text.cap))
        page.walk(doc)
        for (i, line) in page.text.result.text.split(separator: "\n", omittingEmptySubsequences: true).enumerated() {
            if i > 0 { text.breakLine() }
            text.append(line)
            if text.isFull { return }
        }
    }
}
