import Attributes
import Crawling
@testable import Extraction
import ExtractionModel
import FoundationEssentials
import Testing
import TestSupport

/// Issue 28's PDF misses, on PDFs written here byte by byte: annotations (comments, notes of
/// highlights, free text) were not read, and the XMP `dc:language` was lost.
@Suite("PDFExtractor annotations and language")
struct PDFAnnotationTests {
    /// A one-page PDF whose page holds `lines` of Helvetica text and the annotation
    /// dictionaries `annotations` (without `/Type /Annot`, which is added), with an XMP
    /// metadata stream declaring `language` as `dc:language` when given. Offsets in the
    /// cross-reference table are computed.
    static func pdf(lines: [String], annotations: [String], language: String?) -> [UInt8] {
        var content = "BT /F1 12 Tf 72 720 Td 14 TL\n"
        for line in lines { content += "(\(line)) Tj T*\n" }
        content += "ET\n"
        let xmp = """
            <?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?>
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
            <rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/">
            <dc:title><rdf:Alt><rdf:li xml:lang="x-default">Jahresbericht</rdf:li></rdf:Alt></dc:title>
            <dc:language><rdf:Bag><rdf:li>\(language ?? "")</rdf:li></rdf:Bag></dc:language>
            </rdf:Description></rdf:RDF></x:xmpmeta>
            <?xpacket end="w"?>
            """
        let firstAnnot = 7
        let annotRefs = annotations.indices.map { "\(firstAnnot + $0) 0 R" }.joined(separator: " ")
        var objects = [
            "<< /Type /Catalog /Pages 2 0 R" + (language != nil ? " /Metadata 6 0 R" : "") + " >>",
            "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >>"
                + (annotations.isEmpty ? "" : " /Annots [\(annotRefs)]") + " >>",
            "<< /Length \(content.utf8.count) >>\nstream\n\(content)endstream",
            "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
            "<< /Type /Metadata /Subtype /XML /Length \(xmp.utf8.count) >>\nstream\n\(xmp)\nendstream",
        ]
        objects += annotations.map { "<< /Type /Annot \($0) /P 3 0 R >>" }
        return GeneratedFixture.pdfFile(version: "1.5", objects: objects, trailer: "/Root 1 0 R")
    }

    static let germanLines = [
        "Der Jahresbericht der Genossenschaft fasst die Arbeit",
        "des vergangenen Jahres zusammen. Die Mitglieder haben",
        "im Fruehling beschlossen, die Werkstatt zu erweitern",
        "und neue Maschinen zu kaufen. Im Herbst wurde die",
        "Rechnung von der Revisionsstelle geprueft und ohne",
        "Vorbehalt genehmigt.",
    ]

    @Test("comments, a highlight's note and a free text box are searchable text, after the page's text")
    func annotations() throws {
        let tree = try TemporaryTree()
        let bytes = Self.pdf(lines: Self.germanLines, annotations: [
            "/Subtype /Text /Rect [400 700 420 720] /Contents (Bitte die Zahl zum Harpsichord pruefen) /T (Ada Lovelace) /Open false",
            "/Subtype /Highlight /Rect [72 700 300 716] /QuadPoints [72 716 300 716 72 700 300 700] /Contents (Quokka statt Kaenguru?)"
                + " /T (Grace Hopper) /Subj (Highlight) /C [1 1 0]",
            "/Subtype /FreeText /Rect [72 500 300 540] /Contents (Theorbo im Anhang) /DA (/Helv 12 Tf 0 g)",
            "/Subtype /Link /Rect [72 400 200 420] /Contents (linkonlyword) /A << /S /URI /URI (https://example.org/) >>",
        ], language: "de-CH")
        let r = try extract(try tree.create("bericht.pdf", bytes: bytes))
        #expect(r.extractor == "pdf")
        #expect(r.problems.isEmpty)
        let text = try #require(r.attributes.textContent)
        #expect(text.contains("Jahresbericht der Genossenschaft"))
        #expect(text.contains("Bitte die Zahl zum Harpsichord pruefen"))   // a sticky note
        #expect(text.contains("Ada Lovelace"))                            // its label (author)
        #expect(text.contains("Quokka statt Kaenguru?"))                  // a highlight's note
        #expect(text.contains("Grace Hopper"))
        #expect(!text.contains("Highlight"))                              // a subject that only names the type
        #expect(text.contains("Theorbo im Anhang"))                       // free text
        #expect(!text.contains("linkonlyword"))                           // links are skipped
        // The notes follow the page's own text.
        let page = try #require(text.range(of: "Vorbehalt genehmigt")), note = try #require(text.range(of: "Harpsichord"))
        #expect(page.upperBound <= note.lowerBound)
    }

    @Test("the XMP dc:language is kept whole (de-CH), not replaced by the identifier's de")
    func xmpLanguage() throws {
        let tree = try TemporaryTree()
        let declared = try extract(try tree.create("ch.pdf", bytes: Self.pdf(lines: Self.germanLines, annotations: [], language: "de-CH")))
        #expect(declared.attributes.string(.language) == "de-CH")
        #expect(declared.attributes.title == "Jahresbericht")
        // Without a declaration, the identifier's ISO 639-1 code.
        let found = try extract(try tree.create("plain.pdf", bytes: Self.pdf(lines: Self.germanLines, annotations: [], language: nil)))
        #expect(found.attributes.string(.language) == "de")
    }

    @Test("the parser reads a dc:language bag and drops x-unknown")
    func xmpLanguageParse() {
        let bag = PDFXMP.parse("""
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
            <rdf:Description xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:language><rdf:Bag>
            <rdf:li>x-unknown</rdf:li><rdf:li>en-US</rdf:li><rdf:li>fr</rdf:li></rdf:Bag></dc:language></rdf:Description></rdf:RDF></x:xmpmeta>
            """)
        #expect(bag.languages == ["en-US", "fr"])
    }
}
