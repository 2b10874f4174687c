import Attributes
import Crawling
@testable import Extraction
import ExtractionModel
import Foundation
import SystemPackage
import Testing
import TestSupport

/// An ISO 8601 instant, for expected document dates.
func iso(_ text: String) -> Date { AttributeValue.parseISO8601(text)! }

/// Whether `result` recorded a `.malformed` problem from `extractor` whose reason contains `text`.
func hasProblem(_ result: ExtractionResult, _ extractor: String, _ text: String) -> Bool {
    result.problems.contains {
        if case let .malformed(e, reason) = $0 { e == extractor && reason.contains(text) } else { false }
    }
}

/// Copies the first `fraction` of a real corpus file into `tree` under the same name.
func truncatedCopy(_ relative: String, in tree: TemporaryTree, fraction: Double = 0.5) throws -> FilePath {
    let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: RealCorpus.file(relative).string)))
    let name = String(relative.split(separator: "/").last!)
    return try tree.create("cut/" + name, bytes: Array(bytes.prefix(Int(Double(bytes.count) * fraction))))
}

@Suite("OfficeOpenXMLExtractor", .blocking)
struct OfficeExtractorTests {
    @Test("Word: core and app properties, body, header and footer of a real file", .realCorpus)
    func word() throws {
        let r = try extractReal("office/testWORD.docx")
        #expect(r.extractor == "ooxml")
        #expect(r.problems.isEmpty)
        let a = r.attributes
        #expect(a.title == "Sample Word Document")
        #expect(a.strings(.authors) == ["Keith Bennett"])
        #expect(a.date(.contentCreationDate) == iso("2008-12-11T16:04:00Z"))
        #expect(a.date(.contentModificationDate) == iso("2010-11-12T16:21:00Z"))
        #expect(a.integer(.pageCount) == 2)
        #expect(a.string(.generator) == "Microsoft Office Word")
        let text = try #require(a.textContent)
        #expect(text.hasPrefix("Sample Word Document Title\nAnd now for a subtitle\n"))
        #expect(text.contains("This document includes text that is BOLD and ITALIC."))
        #expect(text.contains("Apache Tika: http://tika.apache.org/ Tika"))   // a run holding one space
        #expect(text.contains("This is the header for our document"))
        #expect(text.contains("This is the footer for our document"))
        #expect(a[.encrypted] == nil)
    }

    @Test("Word: subject, keywords, description and several authors", .realCorpus)
    func wordProperties() throws {
        let a = try extractReal("office/testWORD_custom_props.docx").attributes
        #expect(a.title == "My Title")
        #expect(a.string(.subject) == "My subject")
        #expect(a.strings(.keywords) == ["My Keyword"])
        #expect(a.string(.contentDescription) == "My Comments")
        #expect(a.strings(.authors) == ["EJ04325S"])
        #expect(a.textContent == "Document content")
        let m = try extractReal("office/testWORD_multi_authors.docx").attributes
        #expect(m.strings(.authors) == ["Allison, Timothy B.", "author2", "author3"])
        #expect(m.title == nil)   // <dc:title></dc:title>
        #expect(m.strings(.keywords) == ["tag"])
    }

    @Test("Excel: sheets in order with their names, shared strings and numbers", .realCorpus)
    func excel() throws {
        let r = try extractReal("office/testEXCEL.xlsx")
        #expect(r.extractor == "ooxml")
        let a = r.attributes
        #expect(a.title == "Simple Excel document")
        #expect(a.strings(.authors) == ["Keith Bennett"])
        #expect(a.string(.generator) == "Microsoft Excel")
        #expect(a.date(.contentCreationDate) == iso("2007-10-01T16:13:56Z"))
        let text = try #require(a.textContent)
        #expect(text.hasPrefix("Feuil1\nSample Excel Worksheet - Numbers and their Squares\nNumber Square\n1 1\n2 4\n"))
        #expect(text.contains("\n15 225\n"))
        #expect(text.hasSuffix("Feuil2\nFeuil3"))
        let c = try extractReal("office/testEXCEL_custom_props.xlsx").attributes
        #expect(c.textContent?.contains("Fichier test pour propriétés sur xlsx") == true)
    }

    @Test("PowerPoint: slides in presentation order, slide count as page count", .realCorpus)
    func powerPoint() throws {
        let a = try extractReal("office/testPPT.pptx").attributes
        #expect(a.title == "Attachment Test")
        #expect(a.strings(.authors) == ["Rajiv"])
        #expect(a.integer(.pageCount) == 3)
        #expect(a.string(.generator) == "Microsoft Office PowerPoint")
        let text = try #require(a.textContent)
        #expect(text.hasPrefix("Attachment Test\nRajiv\nThis is a test file data"))
        let second = try #require(text.range(of: "developed by Rajiv Kumar Nistala."))
        let third = try #require(text.range(of: "Different words to test against"))
        #expect(second.lowerBound < third.lowerBound)
        #expect(text.hasSuffix("Banking\nInvestment"))
    }

    @Test("a password-protected file (OLE2 encrypted package) is recorded as encrypted", .realCorpus)
    func encrypted() throws {
        let r = try extractReal("office/testWORD_protected_passtika.docx")
        #expect(r.extractor == "ooxml")
        #expect(r.attributes[.encrypted] == .bool(true))
        #expect(hasProblem(r, "ooxml", "encrypted; needs a password"))
    }

    @Test("a truncated real file gives a clear problem", .realCorpus)
    func truncatedReal() throws {
        let r = try extractReal("office/testWORD_truncated.docx")
        #expect(r.extractor == "ooxml")
        #expect(hasProblem(r, "ooxml", "truncated") || hasProblem(r, "ooxml", "Truncated"))
    }

    @Test("truncated copies of every real OOXML file: problems or partial attributes, never a crash", .realCorpus,
          arguments: ["office/testWORD.docx", "office/testWORD_custom_props.docx", "office/testWORD_multi_authors.docx",
                      "office/testEXCEL.xlsx", "office/testEXCEL_custom_props.xlsx", "office/testPPT.pptx",
                      "office/testPPT_custom_props.pptx"])
    func truncatedCopies(_ file: String) throws {
        let tree = try TemporaryTree()
        for fraction in [0.1, 0.5, 0.9] {
            let r = try extract(try truncatedCopy(file, in: tree, fraction: fraction))
            #expect(r.extractor == "ooxml")
            #expect(!r.problems.isEmpty, "\(file) cut at \(fraction)")
        }
    }

    @Test("a zip bomb (document.xml of 300 MB of spaces) is rejected quickly; parts before it are kept")
    func zipBomb() throws {
        let tree = try TemporaryTree()
        let path = tree.path("bomb.docx")
        var members = ArchiveFixture.docx(title: "Bomb", paragraphs: [])
        members[3] = .init("word/document.xml", bytes: [UInt8](repeating: 0x20, count: 1 << 20), repeats: 300)
        try ArchiveFixture.write(path, format: .zip, members: members)
        let size = try FileFacts.read(path).size
        #expect(size < 2 << 20)   // the whole point: small on disk
        let start = ContinuousClock.now
        let r = try extract(path)
        let elapsed = ContinuousClock.now - start
        #expect(r.extractor == "ooxml")
        #expect(hasProblem(r, "ooxml", "zip bomb"))
        #expect(r.attributes.title == "Bomb")
        #expect(r.attributes.textContent == nil)
        #expect(elapsed < .seconds(10))
    }

    @Test("a generated document: text cap and paragraph lines")
    func generated() throws {
        let tree = try TemporaryTree()
        let path = tree.path("gen.docx")
        let paragraphs = (1...200).map { "Paragraph number \($0) with some words" }
        try ArchiveFixture.write(path, format: .zip, members: ArchiveFixture.docx(title: "Generated", paragraphs: paragraphs))
        let full = try extract(path)
        #expect(full.problems.isEmpty)
        #expect(full.attributes.textContent?.split(separator: "\n").count == 200)
        let capped = try extract(path, textCap: 500)
        let text = try #require(capped.attributes.textContent)
        #expect(text.utf8.count <= 500)
        #expect(text.hasPrefix("Paragraph number 1 with some words\nParagraph number 2"))
        #expect(capped.attributes[.textTruncated] == .bool(true))
    }

    @Test("the archive extractor leaves Office documents alone", .realCorpus)
    func notAnArchive() throws {
        for f in ["office/testWORD.docx", "office/testEXCEL.xlsx", "office/testPPT.pptx"] {
            let r = try extractReal(f)
            #expect(r.extractor == "ooxml")
            #expect(r.attributes[.memberCount] == nil)
        }
    }
}

@Suite("Zip document helpers", .blocking)
struct ZipDocumentHelperTests {
    @Test("document dates: W3CDTF forms, zones, and rejects")
    func dates() {
        #expect(DocumentFields.iso8601("2008-12-11T16:04:00Z") == iso("2008-12-11T16:04:00Z"))
        #expect(DocumentFields.iso8601("2009-10-05T19:04:01") == iso("2009-10-05T19:04:01Z"))   // no zone: UTC
        #expect(DocumentFields.iso8601("2009-10-05T21:22:38.25+02:00") == iso("2009-10-05T19:22:38.25Z"))
        #expect(DocumentFields.iso8601(" 2009-10-07 ") == iso("2009-10-07T00:00:00Z"))
        #expect(DocumentFields.iso8601("2009-10") == iso("2009-10-01T00:00:00Z"))
        #expect(DocumentFields.iso8601("1999") == iso("1999-01-01T00:00:00Z"))
        #expect(DocumentFields.iso8601("2000-02-29T00:00:00-05:00") == iso("2000-02-29T05:00:00Z"))
        for bad in ["", "yesterday", "2009-13-01", "2009-10-07T25", "2009-10-07Tjunk", "20091007"] {
            #expect(DocumentFields.iso8601(bad) == nil, "\(bad)")
        }
    }

    @Test("relationship and href targets resolve against their part")
    func resolve() {
        #expect(ZipContainer.resolve("word/document.xml", against: "") == "word/document.xml")
        #expect(ZipContainer.resolve("header1.xml", against: "word/document.xml") == "word/header1.xml")
        #expect(ZipContainer.resolve("../text/b.html", against: "OPS/content.opf") == "text/b.html")
        #expect(ZipContainer.resolve("/xl/worksheets/sheet1.xml", against: "xl/workbook.xml") == "xl/worksheets/sheet1.xml")
        #expect(ZipContainer.resolve("./a%20one.xhtml#part2", against: "OPS/content.opf") == "OPS/a one.xhtml")
    }
}
