import Attributes
import Crawling
@testable import Extraction
import ExtractionModel
import Foundation
import Testing
import TestSupport

@Suite("OpenDocumentExtractor", .blocking)
struct OpenDocumentExtractorTests {
    @Test("text document: every meta.xml field and the body text", .realCorpus)
    func text() throws {
        let r = try extractReal("opendocument/testODFwithOOo3.odt")
        #expect(r.extractor == "opendocument")
        #expect(r.problems.isEmpty)
        let a = r.attributes
        #expect(a.title == "Apache Tika")
        #expect(a.string(.subject) == "Test document")
        #expect(a.strings(.keywords) == ["Apache", "Lucene", "Tika"])
        #expect(a.string(.contentDescription) == "A rather complex document")
        #expect(a.strings(.authors) == ["Bart Hanssens"])
        #expect(a.date(.contentCreationDate) == iso("2009-10-05T19:04:01Z"))
        #expect(a.date(.contentModificationDate) == iso("2009-10-05T21:22:38Z"))
        #expect(a.integer(.pageCount) == 2)
        #expect(a.string(.generator) == "OpenOffice.org/3.1$Unix OpenOffice.org_project/310m19$Build-9420")
        let body = try #require(a.textContent)
        #expect(body.contains("Tika is part of the Lucene project."))
        #expect(body.contains("This is of course a simple footnote"))
        #expect(body.contains("\nFirst item\nSecond item\nThird item\n"))
        #expect(!body.contains("2009-10-05T19:09:00"))   // annotation / change dates are not text
    }

    @Test("language, page count and the one paragraph of a NeoOffice document", .realCorpus)
    func neoOffice() throws {
        let a = try extractReal("opendocument/testOpenOffice2.odt").attributes
        #expect(a.string(.language) == "en-US")
        #expect(a.integer(.pageCount) == 1)
        #expect(a.date(.contentCreationDate) == iso("2007-09-14T11:06:08Z"))
        #expect(a.textContent == "This is a sample Open Office document, written in NeoOffice 2.2.1 for the Mac.")
        #expect(a.string(.generator)?.hasPrefix("NeoOffice/2.2") == true)
    }

    @Test("spreadsheet cells and the footer of its master page; presentation master footer", .realCorpus)
    func footers() throws {
        let ods = try extractReal("opendocument/testFooter.ods").attributes
        #expect(ods.strings(.authors) == ["Michael McCandless"])
        let text = try #require(ods.textContent)
        #expect(text.hasPrefix("Data 1\nData 2\nData 3\nData 4"))
        #expect(text.contains("Here is a footer in the center area"))
        #expect(!text.contains("???"))   // placeholder text of page fields
        let odp = try extractReal("opendocument/testMasterFooter.odp").attributes
        #expect(odp.textContent?.contains("Master footer is here") == true)
        #expect(odp.date(.contentModificationDate) == iso("2011-10-01T06:20:11Z"))
    }

    @Test("a formula: metadata and the words of its MathML", .realCorpus)
    func formula() throws {
        let r = try extractReal("opendocument/testOpenOffice2.odf")
        #expect(r.extractor == "opendocument")
        let a = r.attributes
        #expect(a.title == "The quick brown fox jumps over the lazy dog")
        #expect(a.string(.subject) == "Gym class featuring a brown fox and lazy dog")
        #expect(a.strings(.keywords) == ["Pangram", "fox", "dog"])
        #expect(a.textContent?.contains("quick brown fox jumps") == true)
        #expect(a.textContent?.contains("StarMath") == false)
    }

    @Test("an encrypted document is recorded as encrypted, with no garbage text", .realCorpus)
    func encrypted() throws {
        let r = try extractReal("opendocument/testODTEncrypted.odt")
        #expect(r.extractor == "opendocument")
        #expect(r.attributes[.encrypted] == .bool(true))
        #expect(hasProblem(r, "opendocument", "encrypted; needs a password"))
        #expect(r.attributes.textContent == nil)
    }

    @Test("a .odt that is not a zip: plain text by type detection; a clear error if given to the extractor", .realCorpus)
    func notAZip() throws {
        let r = try extractReal("opendocument/testODTnotaZipFile.odt")
        #expect(r.extractor == "plain-text")
        #expect(r.attributes.textContent?.contains("This is not a zip file!") == true)

        let facts = try FileFacts.read(RealCorpus.file("opendocument/testODTnotaZipFile.odt"))
        let input = ExtractionInput(facts: facts, bytes: Array("This is not a zip file!\n".utf8), isComplete: true,
                                    contentType: "org.oasis-open.opendocument.text",
                                    contentTypeTree: ["org.oasis-open.opendocument.text", "public.zip-archive", "public.archive"],
                                    mimeType: "application/vnd.oasis.opendocument.text", magicCharset: nil)
        #expect(OpenDocumentExtractor().accepts(input))
        var attributes = AttributeSet()
        #expect {
            try OpenDocumentExtractor().extract(input, into: &attributes)
        } throws: { error in
            guard case let ExtractionError.malformed(extractor, reason) = error else { return false }
            return extractor == "opendocument" && reason.contains("not a readable zip file")
        }
    }

    @Test("truncated copies of every real OpenDocument file: problems, never a crash", .realCorpus,
          arguments: ["opendocument/testFooter.ods", "opendocument/testMasterFooter.odp", "opendocument/testODFwithOOo3.odt",
                      "opendocument/testODTEncrypted.odt", "opendocument/testOpenOffice2.odf", "opendocument/testOpenOffice2.odt"])
    func truncatedCopies(_ file: String) throws {
        let tree = try TemporaryTree()
        for fraction in [0.1, 0.5, 0.9] {
            let r = try extract(try truncatedCopy(file, in: tree, fraction: fraction))
            #expect(r.extractor == "opendocument")
            #expect(!r.problems.isEmpty, "\(file) cut at \(fraction)")
        }
    }

    @Test("a truncated text document still gives the metadata read before the cut", .realCorpus)
    func partial() throws {
        // meta.xml comes before the cut in this file's member order.
        let tree = try TemporaryTree()
        let r = try extract(try truncatedCopy("opendocument/testODFwithOOo3.odt", in: tree, fraction: 0.9))
        #expect(r.attributes.title == "Apache Tika")
        #expect(hasProblem(r, "opendocument", "truncated") || hasProblem(r, "opendocument", "Truncated"))
    }
}
