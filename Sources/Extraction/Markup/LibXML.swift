import ExtractionModel
import CLibXML2

/// Process-wide libxml2 set-up and small helpers shared by the XML-based code.
///
/// `xmlInitParser()` must run once before several threads parse; a `static let` is initialised
/// exactly once under Swift's lazy-global lock, so every parser entry point touches `ready` first.
enum LibXML {
    static let ready: Void = {
        xmlInitParser()
        cxml_silence_errors()
    }()

    /// libxml2's error handlers are per thread: a context silences the thread it is made on, so
    /// malformed files never write to our stderr (they are recorded as problems instead).
    static func silenceThisThread() {
        _ = ready
        cxml_silence_errors()
    }

    /// Copies a libxml2 string (`const xmlChar *`) that we do not own.
    static func string(_ p: UnsafePointer<xmlChar>?) -> String? {
        guard let p else { return nil }
        return String(decoding: UnsafeBufferPointer(start: p, count: strlen(p)), as: UTF8.self)
    }

    /// Copies and frees a libxml2 string we own (`xmlGetProp`, `xmlNodeGetContent`, ...).
    static func take(_ p: UnsafeMutablePointer<xmlChar>?) -> String? {
        guard let p else { return nil }
        defer { cxml_free(p) }
        return string(p)
    }

    /// The value of attribute `name` of element `node`, if present.
    static func attribute(_ node: xmlNodePtr, _ name: String) -> String? {
        take(xmlGetProp(node, name))
    }

    /// The lower-cased local name of an element.
    static func name(_ node: xmlNodePtr) -> String {
        string(node.pointee.name)?.lowercased() ?? ""
    }

    /// Why libxml2 stopped reading a document before its end, so that what was read is kept
    /// and the rest is reported, never silently dropped.
    ///
    /// A key design decision: libxml2 (2.9) refuses to nest elements deeper than 256 without
    /// `XML_PARSE_HUGE`, and we never pass `HUGE` (it also lifts the limits on names, text nodes
    /// and entity amplification that protect us from hostile files). Even with `RECOVER` it then
    /// halts: the DOM holds the document up to that element and nothing after it, at any depth.
    /// An HTML or XML page nested 200,000 deep therefore gave its first 256 levels of text and no
    /// sign that the rest was skipped; now the item says so in `extractionError`.
    struct Halt: Error, Equatable {
        /// libxml2's message, without its trailing newline.
        var message: String
        /// The line libxml2 was reading when it stopped (1-based; 0 when unknown).
        var line: Int
        /// The nesting limit that was hit, when that is why it stopped.
        var depthLimit: Int?

        init(message: String, line: Int) {
            self.message = message.trimmingSpaces()
            self.line = line
            // "Excessive depth in document: 256 use XML_PARSE_HUGE option" (2.9 to 2.13).
            if self.message.hasPrefix("Excessive depth in document") {
                depthLimit = Int(String(self.message.drop { !$0.isNumber }.prefix { $0.isNumber }))
            }
        }

        /// The error an extractor records: what was kept, what was skipped, and why.
        var reason: String {
            let place = line > 0 ? "at line \(line)" : "partway"
            if let depthLimit {
                return "the document nests elements more than \(depthLimit) deep, libxml2's limit: it stopped reading \(place), "
                    + "so only the text before that point is indexed"
            }
            return "libxml2 stopped reading \(place) (\(message)), so only the text before that point is indexed"
        }

        /// The halt recorded in a parser context after a parse, if the parser stopped early: a
        /// halted parser turns its SAX callbacks off (`disableSAX`), which `RECOVER` never does
        /// for an ordinary error.
        static func of(_ context: xmlParserCtxtPtr) -> Halt? {
            guard context.pointee.disableSAX != 0 else { return nil }
            let error = context.pointee.lastError
            return Halt(message: LibXML.cString(error.message) ?? "an unrecoverable error", line: Int(error.line))
        }

        /// The thread's last libxml2 error as a halt (for `xmlTextReader`, whose context is
        /// private), if one was raised since `xmlResetLastError()`.
        static func lastError() -> Halt? {
            guard let error = xmlGetLastError(), error.pointee.code != 0 else { return nil }
            return Halt(message: LibXML.cString(error.pointee.message) ?? "an unrecoverable error", line: Int(error.pointee.line))
        }
    }

    /// Parses an XML document with a parser context of its own (`xmlCtxtReadMemory(3)`), to
    /// learn afterwards whether libxml2 halted (see `Halt`). The caller frees the document.
    static func readXML(_ bytes: [UInt8], options: Int32) -> (document: xmlDocPtr?, halt: Halt?) {
        _ = ready
        guard let context = xmlNewParserCtxt() else { return (nil, nil) }
        defer { xmlFreeParserCtxt(context) }
        let doc = bytes.withUnsafeBufferPointer { buf in
            buf.withMemoryRebound(to: CChar.self) {
                xmlCtxtReadMemory(context, $0.baseAddress, Int32(clamping: $0.count), nil, nil, options)
            }
        }
        return (doc, Halt.of(context))
    }

    /// Parses an HTML page with a parser context of its own (`htmlCtxtReadMemory(3)`); see
    /// `readXML`. `encoding` nil: libxml2 reads it from the page.
    static func readHTML(_ bytes: [UInt8], encoding: String?, options: Int32) -> (document: htmlDocPtr?, halt: Halt?) {
        _ = ready
        guard let context = htmlNewParserCtxt() else { return (nil, nil) }
        defer { htmlFreeParserCtxt(context) }
        let doc = bytes.withUnsafeBufferPointer { buf in
            buf.withMemoryRebound(to: CChar.self) {
                htmlCtxtReadMemory(context, $0.baseAddress, Int32(clamping: $0.count), nil, encoding, options)
            }
        }
        return (doc, Halt.of(context))
    }

    /// Copies a C string libxml2 owns.
    static func cString(_ p: UnsafeMutablePointer<CChar>?) -> String? {
        p.map { String(cString: $0) }
    }

    private static func strlen(_ p: UnsafePointer<xmlChar>) -> Int {
        var n = 0
        while p[n] != 0 { n += 1 }
        return n
    }
}
