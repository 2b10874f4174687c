import Attributes
@testable import Extraction
import ExtractionModel
import Testing
import TestSupport

@Suite("OLEExtractor", .blocking)
struct OLEExtractorTests {
    @Test("Word 97: summary information and the text through the piece table", .realCorpus)
    func word97() throws {
        let r = try extractReal("office/testWORD.doc")
        let a = r.attributes
        #expect(r.extractor == "ole")
        #expect(r.problems.isEmpty)
        #expect(a.contentType == "com.microsoft.word.doc")
        #expect(a.title == "Sample Word Document")
        #expect(a.strings(.authors) == ["Keith Bennett"])
        #expect(a.string(.generator) == "Microsoft Office Word")
        #expect(a.integer(.pageCount) == 2)
        #expect(a.date(.contentCreationDate) == DocumentFixtures.date(1_289_578_920))   // 2010-11-12T16:22Z
        #expect(a.date(.contentModificationDate) == DocumentFixtures.date(1_289_578_920))
        let text = try #require(a.textContent)
        #expect(text.hasPrefix("Sample Word Document Title\nAnd now for a subtitle\nMain Heading"))
        #expect(text.contains("This is a sample Microsoft Word Document."))
        #expect(text.contains("Apache Tika: http://tika.apache.org/ Tika\n"))   // field results, not codes
        #expect(!text.contains("HYPERLINK"))
        #expect(text.hasSuffix("That\u{2019}s it!"))
    }

    @Test("Word 6: summary information and the plain text run", .realCorpus)
    func word6() throws {
        let r = try extractReal("office/testWORD6.doc")
        let a = r.attributes
        #expect(r.extractor == "ole")
        #expect(r.problems.isEmpty)
        #expect(a.title == "The quick brown fox jumps over the lazy dog")
        #expect(a.string(.subject) == "Gym class featuring a brown fox and lazy dog")
        #expect(a.strings(.authors) == ["Nevin Nollop"])
        #expect(a.date(.contentCreationDate) == DocumentFixtures.date(1_117_112_220))
        #expect(a.date(.contentModificationDate) == DocumentFixtures.date(1_127_237_100))
        #expect(a.textContent == "The quick brown fox jumps over the lazy dog")
    }

    @Test("Excel: summary information, sheet names and shared strings", .realCorpus)
    func excel() throws {
        let r = try extractReal("office/testEXCEL.xls")
        let a = r.attributes
        #expect(r.extractor == "ole")
        #expect(a.contentType == "com.microsoft.excel.xls")
        #expect(a.title == "Simple Excel document")
        #expect(a.strings(.authors) == ["Keith Bennett"])
        #expect(a.string(.generator) == "Microsoft Excel")
        #expect(a.date(.contentCreationDate) == DocumentFixtures.date(1_191_255_236))
        #expect(a.date(.contentModificationDate) == DocumentFixtures.date(1_191_256_303))
        #expect(a.textContent == "Feuil1\nFeuil2\nFeuil3\nSample Excel Worksheet - Numbers and their Squares\nNumber\nSquare\n"
            + "Written and saved in Microsoft Excel X for Mac Service Release 1.")
    }

    @Test("PowerPoint: slide count and slide text once, without master prompts", .realCorpus)
    func powerPoint() throws {
        let r = try extractReal("office/testPPT.ppt")
        let a = r.attributes
        #expect(r.extractor == "ole")
        #expect(a.contentType == "com.microsoft.powerpoint.ppt")
        #expect(a.title == "Sample Powerpoint Slide")
        #expect(a.integer(.pageCount) == 1)
        #expect(a.string(.generator) == "Microsoft PowerPoint")
        #expect(a.date(.contentCreationDate) == DocumentFixtures.date(1_189_791_192))
        #expect(a.date(.contentModificationDate) == DocumentFixtures.date(1_189_797_399))
        #expect(a.textContent == "Sample Powerpoint Slide\nCreated with Microsoft\nPowerpoint X for Mac\nService Release 1")
    }

    @Test("the first half of every real OLE file gives a clear problem", .realCorpus, .timeLimit(.minutes(1)))
    func truncated() throws {
        let tree = try TemporaryTree()
        defer { tree.remove() }
        for file in ["office/testWORD.doc", "office/testWORD6.doc", "office/testEXCEL.xls", "office/testPPT.ppt"] {
            let r = try DocumentFixtures.firstHalf(file, in: tree)
            #expect(r.extractor == "ole", "\(file): \(r.attributes.contentType?.rawValue ?? "-")")
            #expect(DocumentFixtures.hasProblem(r, "ole"), "\(file): \(r.problems)")
        }
        // The summary stream of the presentation lies in the first half: its title is kept.
        let ppt = try DocumentFixtures.firstHalf("office/testPPT.ppt", in: tree)
        #expect(ppt.attributes.title == "Sample Powerpoint Slide")
        #expect(DocumentFixtures.hasProblem(ppt, "ole", containing: "truncated: the PowerPoint Document stream"))
    }

    @Test("an input of bytes without a descriptor is read from memory", .realCorpus)
    func fromMemory() throws {
        let input = DocumentFixtures.input(try DocumentFixtures.bytes("office/testWORD6.doc"), mimeType: "application/msword")
        var a = AttributeSet()
        try OLEExtractor().extract(input, into: &a)
        #expect(a.title == "The quick brown fox jumps over the lazy dog")
        #expect(a.textContent == "The quick brown fox jumps over the lazy dog")
    }

    @Test("damaged copies of the real OLE2 files never crash or hang", .realCorpus, .timeLimit(.minutes(1)))
    func mutated() throws {
        let tree = try TemporaryTree()
        defer { tree.remove() }
        var problems = 0
        for file in ["office/testWORD.doc", "office/testWORD6.doc", "office/testEXCEL.xls", "office/testPPT.ppt"] {
            problems += try DocumentFixtures.mutations(of: file, count: 25, in: tree)
        }
        #expect(problems > 0)
    }

    @Test("a .doc that is not an OLE2 file")
    func notOLE() throws {
        let tree = try TemporaryTree()
        defer { tree.remove() }
        let path = try tree.create("fake.doc", bytes: [0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1] + [UInt8](repeating: 0x41, count: 600))
        let r = try extract(path)
        #expect(r.extractor == "ole")
        #expect(DocumentFixtures.hasProblem(r, "ole", containing: "not a readable OLE2 document"))
    }

    @Test("Word control characters: fields, paragraph marks, surrogate pairs")
    func wordReader() {
        var reader = WordText.Reader()
        var text = TextBuffer(cap: 1000)
        let units: [UInt16] = Array("See ".utf16) + [0x13] + Array("HYPERLINK \"x\"".utf16) + [0x14] + Array("link".utf16) + [0x15]
            + [0x0D] + [0xD83D, 0xDE00] + [0x07] + Array("end".utf16)
        for u in units { reader.add(u, into: &text) }
        reader.finish(into: &text)
        #expect(text.result.text == "See link\n😀\nend")
    }
}
