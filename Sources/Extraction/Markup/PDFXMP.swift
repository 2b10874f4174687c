import ExtractionModel
import CLibXML2
import FoundationEssentials

/// The few XMP properties a PDF's metadata stream adds to its information dictionary.
struct PDFXMP {
    var title: String?
    var creators: [String] = []
    var description: String?
    var keywords: String?
    /// `dc:subject`: XMP's keyword bag.
    var subjects: [String] = []
    var creatorTool: String?
    var producer: String?
    var created: Date?
    var modified: Date?
    /// `dc:language`: the bag of the document's languages, as declared (`de-CH`, `en-US`; RFC 3066
    /// tags, kept whole so that the region is not lost).
    var languages: [String] = []

    static let dc = "http://purl.org/dc/elements/1.1/"
    static let xmp = "http://ns.adobe.com/xap/1.0/"
    static let pdf = "http://ns.adobe.com/pdf/1.3/"
    static let rdf = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"

    /// Reads an XMP packet; an unreadable one gives no properties.
    static func parse(_ packet: String) -> PDFXMP {
        LibXML.silenceThisThread()
        var out = PDFXMP()
        let options = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue
            | XML_PARSE_RECOVER.rawValue)
        var bytes = Array(packet.utf8)
        guard !bytes.isEmpty else { return out }
        let parsed = bytes.withUnsafeMutableBufferPointer { buf in
            buf.withMemoryRebound(to: CChar.self) { xmlReadMemory($0.baseAddress, Int32(clamping: $0.count), nil, "UTF-8", options) }
        }
        guard let doc = parsed else { return out }
        defer { xmlFreeDoc(doc) }
        out.walk(xmlDocGetRootElement(doc), depth: 0)
        return out
    }

    private mutating func walk(_ first: xmlNodePtr?, depth: Int) {
        guard depth < 32 else { return }
        var node = first
        while let n = node {
            if n.pointee.type == XML_ELEMENT_NODE {
                let ns = n.pointee.ns.flatMap { LibXML.string($0.pointee.href) } ?? ""
                let local = LibXML.string(n.pointee.name) ?? ""
                if ns == PDFXMP.rdf, local == "Description" {
                    // Simple properties may be written as attributes of rdf:Description.
                    var a = n.pointee.properties
                    while let attr = a {
                        let ans = attr.pointee.ns.flatMap { LibXML.string($0.pointee.href) } ?? ""
                        let aname = LibXML.string(attr.pointee.name) ?? ""
                        if let value = LibXML.take(xmlNodeGetContent(UnsafeMutableRawPointer(attr).assumingMemoryBound(to: xmlNode.self))) {
                            set(ns: ans, name: aname, values: [value])
                        }
                        a = attr.pointee.next
                    }
                    walk(n.pointee.children, depth: depth + 1)
                } else if ns == PDFXMP.dc || ns == PDFXMP.xmp || ns == PDFXMP.pdf {
                    set(ns: ns, name: local, values: PDFXMP.values(n))
                } else {
                    walk(n.pointee.children, depth: depth + 1)
                }
            }
            node = n.pointee.next
        }
    }

    /// The values of one property: the items of an `rdf:Alt` (x-default first), `rdf:Seq` or
    /// `rdf:Bag`, else its text.
    static func values(_ property: xmlNodePtr) -> [String] {
        var child = property.pointee.children
        while let c = child {
            if c.pointee.type == XML_ELEMENT_NODE, let ns = c.pointee.ns.flatMap({ LibXML.string($0.pointee.href) }), ns == rdf {
                var items: [String] = []
                var li = c.pointee.children
                while let l = li {
                    if l.pointee.type == XML_ELEMENT_NODE, let v = DocumentFields.clean(LibXML.take(xmlNodeGetContent(l))) {
                        let lang = LibXML.take(xmlNodeGetLang(l))
                        if lang == "x-default" { items.insert(v, at: 0) } else { items.append(v) }
                    }
                    li = l.pointee.next
                }
                return items
            }
            child = c.pointee.next
        }
        return DocumentFields.clean(LibXML.take(xmlNodeGetContent(property))).map { [$0] } ?? []
    }

    private mutating func set(ns: String, name: String, values: [String]) {
        guard let first = values.first.flatMap(DocumentFields.clean) else { return }
        switch (ns, name) {
        case (PDFXMP.dc, "title"): title = title ?? first
        case (PDFXMP.dc, "creator"): if creators.isEmpty { creators = values.compactMap(DocumentFields.clean) }
        case (PDFXMP.dc, "description"): description = description ?? first
        case (PDFXMP.dc, "subject"): if subjects.isEmpty { subjects = values.compactMap(DocumentFields.clean) }
        case (PDFXMP.dc, "language"):
            if languages.isEmpty { languages = values.compactMap(DocumentFields.clean).filter { $0.lowercased() != "x-unknown" } }
        case (PDFXMP.pdf, "Keywords"): keywords = keywords ?? first
        case (PDFXMP.pdf, "Producer"): producer = producer ?? first
        case (PDFXMP.xmp, "CreatorTool"): creatorTool = creatorTool ?? first
        case (PDFXMP.xmp, "CreateDate"): created = created ?? DocumentFields.iso8601(first)
        case (PDFXMP.xmp, "ModifyDate"): modified = modified ?? DocumentFields.iso8601(first)
        default: break
        }
    }
}
