import Attributes
import ExtractionModel
import CLibXML2
import FoundationEssentials

/// XML documents that are not XHTML (plain XML, SVG, KML, FictionBook ...): the text nodes as
/// `textContent`, and metadata where the vocabulary has it:
///
/// - Dublin Core anywhere (namespace `http://purl.org/dc/elements/1.1/`): `dc:title` → `title`,
///   `dc:creator` → `authors`, `dc:subject` → `keywords`, `dc:description` →
///   `contentDescription`, `dc:date` → `contentCreationDate`, `dc:language` → `language`.
/// - FictionBook (`<FictionBook>`): `title-info`'s `book-title` → `title`, its `author`s
///   (first, middle and last name) → `authors`, `keywords` → `keywords`, `lang` → `language`,
///   `date value=` → `contentCreationDate`; `publish-info`'s `publisher` → `publishers`.
/// - KML (`<kml>`): the first `<name>` → `title`, the first `<description>` →
///   `contentDescription`, the first `Point`'s `coordinates` (`lon,lat[,alt]`) → `longitude`,
///   `latitude`, `altitude`.
/// - SVG (`<svg>`): `<title>` → `title`, `<desc>` → `contentDescription`.
/// - Any other document: the first `<title>` → `title`.
///
/// Single values: the first occurrence wins.
///
/// The parse is `xmlCtxtReadMemory(3)` with `RECOVER | NONET` and without `NOENT`, `DTDLOAD` or
/// `HUGE`: no network, no external DTD, and entities are not expanded (so a "billion laughs"
/// file stays small). A document nested deeper than libxml2's limit (256 elements) keeps the
/// text before the point where libxml2 stopped and records why (`LibXML.Halt`).
///
/// For example, `<doc><dc:title>Q3</dc:title><p>Sales rose</p></doc>` (with the DC namespace)
/// gives `title` `"Q3"` and `textContent` `"Q3 Sales rose"`.
package struct XMLExtractor: Extractor {
    package var name: String { "xml" }

    package init() {}

    package func accepts(_ input: ExtractionInput) -> Bool {
        input.conforms(to: .xml) && !input.conforms(to: .html)
    }

    static let skipped: Set<String> = ["script", "style", "stylesheet", "binary"]

    package func extract(_ input: ExtractionInput, into attributes: inout AttributeSet) throws(ExtractionError) {
        _ = LibXML.ready
        guard !input.bytes.isEmpty else { return }
        let flags = Int32(bitPattern: XML_PARSE_RECOVER.rawValue | XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue
                          | XML_PARSE_NOWARNING.rawValue | XML_PARSE_COMPACT.rawValue)
        let (parsed, halt) = LibXML.readXML(input.bytes, options: flags)
        guard let doc = parsed, let root = xmlDocGetRootElement(doc) else {
            if let parsed { xmlFreeDoc(parsed) }
            throw .malformed(extractor: name, reason: halt?.reason ?? "not well-formed XML; libxml2 found no root element")
        }
        defer { xmlFreeDoc(doc) }

        var text = TextBuffer(cap: input.textCap)
        var found = Found()
        let rootName = LibXML.name(root)
        // Depth-first without recursion.
        var stack: [xmlNodePtr] = [root]
        while let n = stack.popLast(), !text.isFull {
            switch n.pointee.type {
            case XML_ELEMENT_NODE:
                let local = LibXML.name(n)
                if Self.skipped.contains(local) { continue }
                found.element(n, local: local, root: rootName)
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
        if let title = found.title { attributes[.title] = .string(title) }
        if !found.authors.isEmpty { attributes[.authors] = .strings(found.authors) }
        if !found.keywords.isEmpty { attributes[.keywords] = .strings(found.keywords) }
        if !found.publishers.isEmpty { attributes[.publishers] = .strings(found.publishers) }
        if let description = found.description { attributes[.contentDescription] = .string(description) }
        if let language = found.language { attributes[.language] = .string(language) }
        if let date = found.date { attributes[.contentCreationDate] = .date(date) }
        if let (lat, lon, alt) = found.position {
            attributes[.latitude] = .double(lat)
            attributes[.longitude] = .double(lon)
            if let alt { attributes[.altitude] = .double(alt) }
        }
        let (body, full) = text.result
        if !body.isEmpty { attributes[.textContent] = .string(body) }
        if full || !input.isComplete || halt != nil { attributes[.textTruncated] = .bool(true) }
        // What was read is kept (above); what libxml2 never reached is reported.
        if let halt { throw .malformed(extractor: name, reason: halt.reason) }
    }
}

/// The metadata collected while walking an XML document (see `XMLExtractor`).
private struct Found {
    var title: String?
    var authors: [String] = [], keywords: [String] = [], publishers: [String] = []
    var description: String?, language: String?
    var date: Date?
    var position: (Double, Double, Double?)?

    static let dublinCore = "http://purl.org/dc/elements/1.1/"

    mutating func element(_ n: xmlNodePtr, local: String, root: String) {
        let content = { LibXML.take(xmlNodeGetContent(n)).map { $0.trimmingSpaces() }.flatMap { $0.isEmpty ? nil : $0 } }
        let ns = n.pointee.ns.flatMap { LibXML.string($0.pointee.href) }
        let parent = n.pointee.parent.map { LibXML.name($0) }
        if ns == Self.dublinCore {
            switch local {
            case "title": if title == nil { title = content() }
            case "creator": content().map { authors.append($0) }
            case "subject": content().map { keywords.append($0) }
            case "description": if description == nil { description = content() }
            case "language": if language == nil { language = content() }
            case "date": if date == nil { date = content().flatMap(DocumentFields.iso8601) }
            default: break
            }
            return
        }
        switch (root, local) {
        case ("fictionbook", "book-title") where parent == "title-info":
            if title == nil { title = content() }
        case ("fictionbook", "author") where parent == "title-info":
            let parts = ["first-name", "middle-name", "last-name"].compactMap { part in
                Self.child(n, named: part).flatMap { LibXML.take(xmlNodeGetContent($0)) }?.trimmingSpaces()
            }.filter { !$0.isEmpty }
            if let nick = Self.child(n, named: "nickname").flatMap({ LibXML.take(xmlNodeGetContent($0)) }), parts.isEmpty {
                if !nick.trimmingSpaces().isEmpty { authors.append(nick.trimmingSpaces()) }
            } else if !parts.isEmpty {
                authors.append(parts.joined(separator: " "))
            }
        case ("fictionbook", "keywords") where parent == "title-info":
            keywords += content().map(MetadataValues.list) ?? []
        case ("fictionbook", "lang") where parent == "title-info":
            if language == nil { language = content() }
        case ("fictionbook", "date") where parent == "title-info":
            if date == nil { date = (LibXML.attribute(n, "value") ?? content()).flatMap(DocumentFields.iso8601) }
        case ("fictionbook", "publisher") where parent == "publish-info":
            content().map { publishers.append($0) }
        case ("kml", "name"):
            if title == nil { title = content() }
        case ("kml", "description"):
            if description == nil { description = content() }
        case ("kml", "coordinates") where parent == "point":
            if position == nil, let c = content() {
                let v = c.split(separator: ",").map { Double(String($0).trimmingSpaces()) }
                if v.count >= 2, let lon = v[0], let lat = v[1], (-90...90).contains(lat), (-180...180).contains(lon) {
                    position = (lat, lon, v.count >= 3 ? v[2] : nil)
                }
            }
        case ("svg", "desc"):
            if description == nil { description = content() }
        case (_, "title"), ("fictionbook", "book-title"):
            if title == nil, root != "fictionbook" || local == "book-title" { title = content() }
        default:
            break
        }
    }

    /// The first child element of `n` with this local name.
    static func child(_ n: xmlNodePtr, named name: String) -> xmlNodePtr? {
        var c = n.pointee.children
        while let node = c {
            if node.pointee.type == XML_ELEMENT_NODE, LibXML.name(node) == name { return node }
            c = node.pointee.next
        }
        return nil
    }
}
