import Attributes
import Crawling
@testable import Extraction
import ExtractionModel
import Testing
import TestSupport

@Suite("XMLExtractor", .blocking)
struct XMLExtractorTests {
    @Test("Dublin Core title, creator, subjects and text of a real file", .realCorpus)
    func dublinCore() throws {
        let a = try extractReal("xml/testXML.xml").attributes
        #expect(a.title == "Tika test document")
        #expect(a.strings(.authors) == ["Rida Benjelloun"])
        #expect(a.strings(.keywords).contains("XSLT"))
        #expect(a.string(.language) == "Fr")
        #expect(a.textContent?.contains("Archimède et Lius à Châteauneuf") == true)
        #expect(a.textContent?.contains("Licensed to the Apache") == false)   // an XML comment
    }

    @Test("FictionBook title, SVG and KML text", .realCorpus)
    func others() throws {
        let fb2 = try extractReal("xml/test.fb2").attributes
        #expect(fb2.title == "Война и мир")
        #expect(fb2.textContent?.contains("Толстой") == true)
        #expect(fb2.textContent?.contains("font-family") == false)   // <stylesheet>
        let svg = try extractReal("xml/testSVG.svg").attributes
        #expect(svg.textContent == "Test SVG image")
        let kml = try extractReal("xml/testKML.kml").attributes
        #expect(kml.textContent?.contains("Unleash your creativity") == true)
    }

    @Test("malformed XML is a recorded problem, not a crash")
    func malformed() throws {
        let tree = try TemporaryTree()
        let r = try extract(try tree.create("bad.xml", contents: "<?xml version=\"1.0\"?>\n<<<>>>&&&"))
        #expect(r.attributes.contentType == .xml)
        #expect(r.problems.contains { if case .malformed(extractor: "xml", _) = $0 { true } else { false } })
        #expect(r.attributes.string(.extractionError)?.contains("xml") == true)
    }

    @Test("entities are not expanded")
    func entities() throws {
        let tree = try TemporaryTree()
        let xml = "<?xml version=\"1.0\"?><!DOCTYPE d [<!ENTITY a \"AAAAAAAAAA\"><!ENTITY b \"&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;\">]><d>x &b; y</d>"
        let a = try extract(try tree.create("lol.xml", contents: xml)).attributes
        #expect(a.textContent?.contains("AAAAAAAAAA") == false)
        #expect(a.textContent?.contains("x") == true)
    }
}
