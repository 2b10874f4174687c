import Attributes
import CLibXML2

/// XML documents that are not XHTML (plain XML, SVG, KML, FictionBook ...): the text nodes as
/// `textContent`, the first `<title>` (or FictionBook's `<book-title>`) as `title`, and Dublin
/// Core `dc:creator`, `dc:subject`, `dc:description` and `dc:language` where present.
///
/// The parse is `xmlReadMemory(3)` with `RECOVER | NONET` and without `NOENT` or `DTDLOAD`: no
/// network, no external DTD, and entities are not expanded (so a "billion laughs" file stays
/// small).
///
/// For example, `<doc><dc:title>Q3</dc:title><p>Sales rose</p></doc>` (with the DC namespace)
/// gives `title` `"Q3"` and `textContent` `"Q3 Sales rose"`.
public struct XMLExtractor: Extractor {
    public var name: String { "xml" }
    public var version: Int { 1 }

    public init() {}

    public func accepts(_ input: ExtractionInput) -> Bool {
        input.conforms(to: .xml) && !input.conforms(to: .html)
    }

    static let dublinCore = "http://purl.org/dc/elements/1.1/"
    static let skipped: Set<String> = ["script", "style", "stylesheet", "binary"]

    public func extract(_ input: ExtractionInput, into attributes: inout AttributeSet) throws(ExtractionError) {
        _ = LibXML.ready
        guard !input.bytes.isEmpty else { return }
        let flags = Int32(bitPattern: XML_PARSE_RECOVER.rawValue | XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue
                          | XML_PARSE_NOWARNING.rawValue | XML_PARSE_COMPACT.rawValue)
        let parsed: xmlDocPtr? = input.bytes.withUnsafeBufferPointer { buf in
            buf.withMemoryRebound(to: CChar.self) { xmlReadMemory($0.baseAddress, Int32(clamping: $0.count), nil, nil, flags) }
        }
        guard let doc = parsed, let root = xmlDocGetRootElement(doc) else {
            if let parsed { xmlFreeDoc(parsed) }
            throw .malformed(extractor: name, reason: "not well-formed XML; libxml2 found no root element")
        }
        defer { xmlFreeDoc(doc) }

        var text = TextBuffer(cap: input.textCap)
        var title: String?
        var authors: [String] = [], subjects: [String] = []
        var description: String?, language: String?
        // Depth-first without recursion.
        var stack: [xmlNodePtr] = [root]
        while let n = stack.popLast(), !text.isFull {
            switch n.pointee.type {
            case XML_ELEMENT_NODE:
                let local = LibXML.name(n)
                if Self.skipped.contains(local) { continue }
                let ns = n.pointee.ns.flatMap { LibXML.string($0.pointee.href) }
                let content = { LibXML.take(xmlNodeGetContent(n)).map { $0.trimmingSpaces() }.flatMap { $0.isEmpty ? nil : $0 } }
                if title == nil, local == "title" || local == "book-title" { title = content() }
                if ns == Self.dublinCore {
                    switch local {
                    case "creator": content().map { authors.append($0) }
                    case "subject": content().map { subjects.append($0) }
                    case "description": if description == nil { description = content() }
                    case "language": if language == nil { language = content() }
                    default: break
                    }
                }
                var child = n.pointee.last
                while let c = child {
                    stack.append(c)
                    child = c.pointee.prev
                }
            case XML_TEXT_NODE, XML_CDATA_SECTION_NODE:
                if let c = LibXML.string(n.pointee.content) {
                    text.space()
                    text.append(c)
                }
            default:
                break
            }
        }
        attributes[.encoding] = .string(LibXML.string(doc.pointee.encoding)?.lowercased() ?? "utf-8")
        if let title { attributes[.title] = .string(title) }
        if !authors.isEmpty { attributes[.authors] = .strings(authors) }
        if !subjects.isEmpty { attributes[.keywords] = .strings(subjects) }
        if let description { attributes[.contentDescription] = .string(description) }
        if let language { attributes[.language] = .string(language) }
        let (body, full) = text.result
        if !body.isEmpty { attributes[.textContent] = .string(body) }
        if full || !input.isComplete { attributes[.textTruncated] = .bool(true) }
    }
}
