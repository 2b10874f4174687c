import Attributes
import Crawling
@testable import Extraction
import ExtractionModel
import Foundation
import Testing
import TestSupport

@Suite("EPUBExtractor", .blocking)
struct EPUBExtractorTests {
    @Test("EPUB 2: OPF metadata and the spine's chapters in order", .realCorpus)
    func epub2() throws {
        let r = try extractReal("epub/testEPUB.epub")
        #expect(r.extractor == "epub")
        #expect(r.problems.isEmpty)
        let a = r.attributes
        #expect(a.title == "An ePub for Tika")   // "An ePub  for Tika", white space collapsed
        #expect(a.strings(.authors) == ["Bart Hanssens"])
        #expect(a.strings(.keywords) == ["Tika ePub test"])
        #expect(a.string(.contentDescription) == "This is an ePub test publication for Tika.")
        #expect(a.string(.language) == "en")
        #expect(a.strings(.publishers) == ["Apache"])
        #expect(a.string(.identifier) == "1234567890")
        #expect(a.date(.contentCreationDate) == iso("2009-10-07T00:00:00Z"))
        let text = try #require(a.textContent)
        #expect(text.hasPrefix("Table of Contents\n"))
        let one = try #require(text.range(of: "This is the text for chapter One"))
        let two = try #require(text.range(of: "This is the text for chapter Two"))
        #expect(one.lowerBound < two.lowerBound)
        #expect(text.contains("Subchapter 2.1\nSubchapter 2.2"))
        #expect(!text.contains("Cover Page"))   // <title> in <head> is not body text
    }

    @Test("EPUB 3 with repeated metadata: all creators and publishers, the unique identifier, the first title", .realCorpus)
    func epub3() throws {
        let r = try extractReal("epub/testEPUB_multi-metadata-vals.epub")
        #expect(r.extractor == "epub")
        #expect(r.problems.isEmpty)
        let a = r.attributes
        #expect(a.title == "The Inheritors")
        #expect(a.strings(.authors) == ["Joseph Conrad", "Ford Madox Ford"])
        #expect(a.strings(.publishers) == ["Standard Ebooks", "Guternberg"])
        #expect(a.string(.identifier) == "https://standardebooks.org/ebooks/joseph-conrad_ford-madox-ford/the-inheritors")
        #expect(a.string(.language) == "en-GB")
        #expect(a.strings(.keywords) == ["Science fiction"])
        #expect(a.string(.contentDescription)?.hasPrefix("A young writer dabbling in journalism") == true)
        #expect(a.date(.contentCreationDate) == iso("2025-08-09T17:34:00Z"))
        #expect(a.date(.contentModificationDate) == iso("2025-08-09T17:34:01Z"))
        let text = try #require(a.textContent)
        #expect(text.hasPrefix("The Inheritors\nBy Joseph Conrad and Ford Madox Ford."))
        let first = try #require(text.range(of: "“Ideas,” she said."))
        let last = try #require(text.range(of: "am not on terms with my brother-in-law."))
        #expect(first.lowerBound < last.lowerBound)
        #expect(a[.textTruncated] == nil)
    }

    @Test("the text cap cuts the book and marks it truncated", .realCorpus)
    func capped() throws {
        let a = try extractReal("epub/testEPUB_multi-metadata-vals.epub", textCap: 4096).attributes
        let text = try #require(a.textContent)
        #expect(text.utf8.count <= 4096)
        #expect(text.utf8.count > 3000)
        #expect(a[.textTruncated] == .bool(true))
        #expect(a.title == "The Inheritors")
    }

    @Test("truncated copies of the real books: problems, never a crash", .realCorpus,
          arguments: ["epub/testEPUB.epub", "epub/testEPUB_multi-metadata-vals.epub"])
    func truncatedCopies(_ file: String) throws {
        let tree = try TemporaryTree()
        for fraction in [0.05, 0.5, 0.95] {
            let r = try extract(try truncatedCopy(file, in: tree, fraction: fraction))
            #expect(r.extractor == "epub")
            #expect(!r.problems.isEmpty, "\(file) cut at \(fraction)")
        }
    }

    @Test("a generated book: container, relative hrefs, an HTML chapter that is not well-formed XML")
    func generated() throws {
        let tree = try TemporaryTree()
        let path = tree.path("book.epub")
        let opf = """
        <?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" unique-identifier="id" version="3.0">
        <metadata xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:opf="http://www.idpf.org/2007/opf">
        <dc:date opf:event="modification">2011-03-04</dc:date><dc:date opf:event="publication">2010-01-02</dc:date>
        <dc:identifier id="x">other</dc:identifier>
        <dc:identifier id="id">urn:isbn:123</dc:identifier><dc:title>Generated Book</dc:title></metadata>
        <manifest><item id="b" href="../text/b.html" media-type="application/xhtml+xml"/>
        <item id="a" href="a%20one.xhtml" media-type="application/xhtml+xml"/>
        <item id="img" href="cover.png" media-type="image/png"/></manifest>
        <spine><itemref idref="a"/><itemref idref="img"/><itemref idref="b"/></spine></package>
        """
        try ArchiveFixture.write(path, format: .zip, members: [
            .init("mimetype", "application/epub+zip"),
            .init("OPS/a one.xhtml", #"<html xmlns="http://www.w3.org/1999/xhtml"><head><title>No</title><style>p{}</style></head><body><h1>Alpha</h1><p>First chapter</p></body></html>"#),
            .init("text/b.html", "<html><body><p>Second<br>chapter &amp; more<p>unclosed</body>"),
            .init("OPS/package.opf", opf),
            .init("META-INF/container.xml", #"<?xml version="1.0"?><container xmlns="urn:oasis:names:tc:opendocument:xmlns:container" version="1.0"><rootfiles><rootfile full-path="OPS/package.opf" media-type="application/oebps-package+xml"/></rootfiles></container>"#),
        ])
        let r = try extract(path)
        #expect(r.extractor == "epub")
        #expect(r.problems.isEmpty)
        #expect(r.attributes.title == "Generated Book")
        #expect(r.attributes.string(.identifier) == "urn:isbn:123")
        #expect(r.attributes.date(.contentCreationDate) == iso("2010-01-02T00:00:00Z"))
        #expect(r.attributes.date(.contentModificationDate) == iso("2011-03-04T00:00:00Z"))
        let text = try #require(r.attributes.textContent)
        #expect(text.hasPrefix("Alpha\nFirst chapter\nSecond"))
        #expect(text.contains("chapter & more"))
        #expect(text.contains("unclosed"))
        #expect(!text.contains("No") && !text.contains("p{}"))
    }
}
