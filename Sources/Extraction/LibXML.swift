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

    private static func strlen(_ p: UnsafePointer<xmlChar>) -> Int {
        var n = 0
        while p[n] != 0 { n += 1 }
        return n
    }
}
