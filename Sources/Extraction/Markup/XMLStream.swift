import ExtractionModel
import CLibXML2

/// A forward-only pass over an XML document through libxml2's `xmlTextReader(3)`, for the parts
/// of zip-based documents (OOXML, OpenDocument, EPUB): memory stays small however large the
/// part is, which a DOM of a 60 MB `sheet1.xml` would not.
///
/// Options are `RECOVER | NONET | NOERROR | NOWARNING | COMPACT`, never `NOENT`, `DTDLOAD` or
/// `HUGE`: no network, no external DTD, entities are reported but not expanded (so a "billion
/// laughs" part stays small), and libxml2's own limits on names and text nodes stay on.
///
/// For example:
/// ```swift
/// try XMLStream.parse(Array("<a><b>hi</b></a>".utf8)) { node in
///     if node.kind == .text { print(node.value ?? "") }   // "hi"
///     return true
/// }
/// ```
enum XMLStream {
    enum Kind: Sendable, Equatable {
        case start, end, text
    }

    /// The reader's current node. Valid only inside the callback.
    struct Node {
        fileprivate let reader: OpaquePointer
        let kind: Kind
        /// The local name of an element (without prefix); empty for text.
        let localName: String
        /// The namespace URI of an element; empty when none.
        let namespace: String
        /// Whether a start tag is also its end (`<w:tab/>`): no `.end` follows for it.
        let isEmpty: Bool

        /// The text of a text, CDATA or white-space node.
        var value: String? { LibXML.string(xmlTextReaderConstValue(reader)) }

        /// An attribute of the current element by local name and namespace URI (nil namespace:
        /// an attribute without prefix).
        func attribute(_ local: String, namespace: String? = nil) -> String? {
            if let namespace { return LibXML.take(xmlTextReaderGetAttributeNs(reader, local, namespace)) }
            return LibXML.take(xmlTextReaderGetAttribute(reader, local))
        }
    }

    /// Why a part could not be parsed.
    struct Failure: Error {
        var reason: String
    }

    static let options = Int32(bitPattern: XML_PARSE_RECOVER.rawValue | XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue
                                | XML_PARSE_NOWARNING.rawValue | XML_PARSE_COMPACT.rawValue)

    /// Visits every element start, element end and text node in document order until `visit`
    /// returns false or the document ends. Throws when libxml2 cannot read the bytes at all, or
    /// stops on an error partway (what was visited before stays visited).
    static func parse(_ bytes: [UInt8], _ visit: (Node) -> Bool) throws(Failure) {
        _ = LibXML.ready
        LibXML.silenceThisThread()
        guard !bytes.isEmpty else { throw Failure(reason: "the part is empty") }
        xmlResetLastError()
        let status: Int32 = bytes.withUnsafeBufferPointer { buf in
            buf.withMemoryRebound(to: CChar.self) { chars -> Int32 in
                guard let reader = xmlReaderForMemory(chars.baseAddress, Int32(clamping: chars.count), nil, nil, options) else {
                    return -2
                }
                defer { xmlFreeTextReader(reader) }
                while true {
                    let r = xmlTextReaderRead(reader)
                    if r != 1 { return r }
                    let type = xmlTextReaderNodeType(reader)
                    let node: Node
                    switch type {
                    case 1:   // XML_READER_TYPE_ELEMENT
                        node = Node(reader: reader, kind: .start, localName: LibXML.string(xmlTextReaderConstLocalName(reader)) ?? "",
                                    namespace: LibXML.string(xmlTextReaderConstNamespaceUri(reader)) ?? "",
                                    isEmpty: xmlTextReaderIsEmptyElement(reader) == 1)
                    case 15:  // XML_READER_TYPE_END_ELEMENT
                        node = Node(reader: reader, kind: .end, localName: LibXML.string(xmlTextReaderConstLocalName(reader)) ?? "",
                                    namespace: LibXML.string(xmlTextReaderConstNamespaceUri(reader)) ?? "", isEmpty: false)
                    case 3, 4, 13, 14:   // text, CDATA, white space, significant white space
                        node = Node(reader: reader, kind: .text, localName: "", namespace: "", isEmpty: false)
                    default:
                        continue
                    }
                    if !visit(node) { return 0 }
                }
            }
        }
        switch status {
        case 0: return
        case -2: throw Failure(reason: "libxml2 could not start reading the part")
        default:
            // A part nested past libxml2's depth limit stops the reader like a syntax error;
            // say which, since the text before it was visited and is kept.
            if let halt = LibXML.Halt.lastError(), halt.depthLimit != nil { throw Failure(reason: halt.reason) }
            throw Failure(reason: "not well-formed XML")
        }
    }
}

/// Collects the text of one element at a time (`<dc:title>…</dc:title>`) during an
/// `XMLStream` pass.
struct ElementText {
    private var depth = 0
    private var parts: [String] = []
    private var length = 0
    /// The most text kept for one element (a title, a keyword).
    let cap: Int

    init(cap: Int = 64 * 1024) { self.cap = cap }

    var isCollecting: Bool { depth > 0 }

    /// Starts collecting at an element's start tag.
    mutating func begin() {
        depth = 1
        parts.removeAll(keepingCapacity: true)
        length = 0
    }

    /// Feeds a node; returns the element's trimmed text (nil when empty) at its end tag.
    mutating func feed(_ node: XMLStream.Node) -> String?? {
        guard depth > 0 else { return nil }
        switch node.kind {
        case .start:
            if !node.isEmpty { depth += 1 }
        case .text:
            if length < cap, let v = node.value {
                parts.append(v)
                length += v.utf8.count
            }
        case .end:
            depth -= 1
            if depth == 0 {
                var t = TextBuffer(cap: cap)
                for p in parts { t.append(p) }
                let text = t.result.text
                return .some(text.isEmpty ? nil : text)
            }
        }
        return nil
    }
}
