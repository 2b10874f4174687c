import Attributes
@testable import Extraction
import ExtractionModel
import Testing
import TestSupport

/// Issue 11: documents nested deeper than a parser's limit keep the text read before the limit
/// and say, in `extractionError`, what was skipped and why; they were silently cut short.
@Suite("Nesting limits")
struct NestingLimitTests {
    /// `<doc>top <b>level0 <b>level1 … <b>levelN-1 bottom</b>…</b> after</doc>`, one level per
    /// line, so that libxml2's line number says where it stopped.
    static func nestedMarkup(depth: Int, html: Bool) -> String {
        var s = html ? "<html><body><p>top " : "<?xml version=\"1.0\"?>\n<doc>top "
        s.reserveCapacity(depth * 20)
        for i in 0..<depth { s += "<b>level\(i)\n" }
        s += "bottom"
        s += String(repeating: "</b>", count: depth)
        s += html ? " after</p></body></html>\n" : " after</doc>\n"
        return s
    }

    static func extractFile(_ name: String, _ contents: String) throws -> ExtractionResult {
        let tree = try TemporaryTree()
        defer { tree.remove() }
        return try extract(try tree.create(name, contents: contents))
    }

    @Test("issue 11: XML nested 200,000 deep keeps its first levels and names libxml2's depth limit",
          arguments: ["deep.xml", "deep.svg"])
    func deepXML(name: String) throws {
        let r = try Self.extractFile(name, Self.nestedMarkup(depth: 200_000, html: false))
        let text = try #require(r.attributes.textContent, "no text at all: \(r.problems)")
        #expect(text.hasPrefix("top level0 level1"))
        #expect(text.contains("level200"))
        #expect(!text.contains("bottom") && !text.contains("after"))   // libxml2 never read them
        let error = try #require(r.attributes.string(.extractionError), "the cut was silent")
        #expect(error.contains("more than 256 deep"), "\(error)")
        #expect(error.contains("only the text before that point is indexed"), "\(error)")
        #expect(r.attributes[.textTruncated] == .bool(true))
        #expect(r.problems.contains { if case .malformed(extractor: "xml", _) = $0 { true } else { false } })
    }

    @Test("issue 11: HTML nested 200,000 deep keeps its first levels and names libxml2's depth limit")
    func deepHTML() throws {
        let r = try Self.extractFile("deep.html", Self.nestedMarkup(depth: 200_000, html: true))
        let text = try #require(r.attributes.textContent, "no text at all: \(r.problems)")
        #expect(text.hasPrefix("top level0 level1"))
        #expect(text.contains("level200"))
        #expect(!text.contains("bottom"))
        let error = try #require(r.attributes.string(.extractionError), "the cut was silent")
        #expect(error.hasPrefix("html: the document nests elements more than 256 deep"), "\(error)")
        #expect(r.attributes[.textTruncated] == .bool(true))
    }

    @Test("documents within the limit give all their text and no error", arguments: [false, true])
    func shallow(html: Bool) throws {
        let r = try Self.extractFile(html ? "ok.html" : "ok.xml", Self.nestedMarkup(depth: 200, html: html))
        #expect(r.problems.isEmpty, "\(r.problems)")
        #expect(r.attributes.textContent?.contains("level199") == true)
        #expect(r.attributes.textContent?.contains("bottom") == true)
        #expect(r.attributes.textContent?.contains("after") == true)
        #expect(r.attributes[.textTruncated] == nil)
    }

    @Test("issue 11: a zipped document's part nested too deep is reported as such, not as malformed XML")
    func deepStream() throws {
        var visited: [String] = []
        let xml = Array(Self.nestedMarkup(depth: 1_000, html: false).utf8)
        #expect {
            try XMLStream.parse(xml) { node in
                if node.kind == .text, let v = node.value { visited.append(v) }
                return true
            }
        } throws: { error in
            (error as? XMLStream.Failure)?.reason.contains("more than 256 deep") == true
        }
        #expect(visited.first?.hasPrefix("top") == true)
        #expect(visited.contains { $0.hasPrefix("level200") })
    }

    @Test("issue 11: RTF nested 100,000 deep keeps the text around the deep groups and names the limit")
    func deepRTF() throws {
        let source = "{\\rtf1 start " + String(repeating: "{", count: 100_000) + "deep"
            + String(repeating: "}", count: 100_000) + " end}"
        let r = try Self.extractFile("deep.rtf", source)
        #expect(r.attributes.textContent == "start end")
        let error = try #require(r.attributes.string(.extractionError), "the skip was silent")
        #expect(error == "rtf: the document nests groups 100001 deep; the text inside the 99745 group(s) deeper than 256 was skipped, the rest is indexed",
                "\(error)")
        #expect(r.attributes[.textTruncated] == .bool(true))
    }

    @Test("RTF only deep inside: no text, but the error says why")
    func deepOnlyRTF() throws {
        let source = "{\\rtf1" + String(repeating: "{", count: 300) + "hidden" + String(repeating: "}", count: 300) + "}"
        let r = try Self.extractFile("inner.rtf", source)
        #expect(r.attributes.textContent == nil)
        #expect(r.attributes.string(.extractionError)?.contains("deeper than 256 was skipped") == true)
    }

    @Test("RTF within the limit: no error")
    func shallowRTF() throws {
        let source = "{\\rtf1 a" + String(repeating: "{", count: 250) + "b" + String(repeating: "}", count: 250) + " c}"
        let r = try Self.extractFile("ok.rtf", source)
        #expect(r.problems.isEmpty, "\(r.problems)")
        #expect(r.attributes.textContent == "ab c")
    }
}
