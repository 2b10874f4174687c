import Attributes
import Crawling
@testable import Extraction
import ExtractionModel
import FoundationEssentials
import SystemPackage
import Testing
import TestSupport
import Glibc

/// Real files and damaged copies of them for the document extractors' tests.
enum DocumentFixtures {
    /// The bytes of a file of the real corpus.
    static func bytes(_ relative: String) throws -> [UInt8] {
        let fd = RealCorpus.file(relative).withPlatformString { open($0, O_RDONLY) }
        try #require(fd >= 0, "cannot open \(relative)")
        defer { close(fd) }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            out += chunk[0..<n]
        }
        return out
    }

    /// Extracts the first half of a real file, written under the same name into `tree`.
    static func firstHalf(_ relative: String, in tree: TemporaryTree) throws -> ExtractionResult {
        let all = try bytes(relative)
        let name = String(relative.split(separator: "/").last!)
        let path = try tree.create("half/" + name, bytes: Array(all.prefix(all.count / 2)))
        return try extract(path)
    }

    /// Whether `result` records a problem of `extractor` whose reason contains `text`.
    static func hasProblem(_ result: ExtractionResult, _ extractor: String, containing text: String = "") -> Bool {
        result.problems.contains {
            if case let .malformed(name, reason) = $0 { return name == extractor && (text.isEmpty || reason.contains(text)) }
            return false
        }
    }

    static func date(_ seconds: Int) -> Date { Date(timeIntervalSince1970: Double(seconds)) }

    /// Extracts `count` damaged copies of a real file (bytes overwritten, some cut short), the
    /// same copies on every run, and returns how many gave a problem. A crash, a trap or a
    /// hang fails the test run itself.
    static func mutations(of relative: String, count: Int, in tree: TemporaryTree) throws -> Int {
        let original = try bytes(relative)
        let name = String(relative.split(separator: "/").last!)
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(original.count)
        func random(_ n: Int) -> Int {   // xorshift64*: fixed seed, so a failure can be replayed
            state ^= state >> 12
            state ^= state << 25
            state ^= state >> 27
            return Int((state &* 0x2545_F491_4F6C_DD1D) >> 33) % max(n, 1)
        }
        var problems = 0
        for k in 0..<count {
            var b = original
            for _ in 0...random(40) { b[random(b.count)] = [0xFF, 0x00, UInt8(random(256))][k % 3] }
            if k % 5 == 4 { b = Array(b.prefix(random(b.count))) }
            let r = try extract(try tree.create("mutated/\(k)-\(name)", bytes: b))
            if !r.problems.isEmpty { problems += 1 }
        }
        return problems
    }

    /// An input built from bytes alone (no descriptor), as a test or a caller without a file has.
    static func input(_ bytes: [UInt8], mimeType: String, textCap: Int = 1 << 20) -> ExtractionInput {
        let facts = FileFacts(path: "/x", type: .regular, size: Int64(bytes.count), permissions: 0o644, uid: 0, gid: 0, device: 1,
                              inode: 1, linkCount: 1, accessNanos: 0, modificationNanos: 0, changeNanos: 0, birthNanos: nil,
                              allocatedSize: 0)
        return ExtractionInput(facts: facts, bytes: bytes, isComplete: true, detection: TypeDetector().describe(mimeType: mimeType),
                               magicCharset: nil, textCap: textCap)
    }
}

@Suite("PDFExtractor", .blocking)
struct PDFExtractorTests {
    @Test("information dictionary, page size and text of a simple PDF", .realCorpus)
    func basic() throws {
        let r = try extractReal("pdf/testPDF.pdf")
        let a = r.attributes
        #expect(r.extractor == "pdf")
        #expect(r.problems.isEmpty)
        #expect(a.title == "Apache Tika - Apache Tika")
        #expect(a.strings(.authors) == ["Bertrand Delacrétaz"])
        #expect(a.string(.generator) == "Firefox")
        #expect(a.string(.producer) == "Mac OS X 10.4.10 Quartz PDFContext")
        #expect(a.date(.contentCreationDate) == DocumentFixtures.date(1_189_846_951))   // 2007-09-15T11:02:31+02
        #expect(a.date(.contentModificationDate) == DocumentFixtures.date(1_189_846_951))
        #expect(a.integer(.pageCount) == 1)
        #expect(a[.pageWidth] == .double(595))
        #expect(a[.pageHeight] == .double(842))
        #expect(a[.encrypted] == .bool(false))
        #expect(a[.securityMethod] == nil)
        #expect(a.textContent?.hasPrefix("Apache Tika - Apache Tika http://incubator.apache.org/tika/") == true)
        #expect(a.textContent?.contains("Apache Tika is a toolkit for detecting and extracting metadata") == true)
        #expect(a[.textTruncated] == nil)
    }

    @Test("both authors of the PDFXMP dc:creator list, where Info names only the first", .realCorpus)
    func twoAuthors() throws {
        let a = try extractReal("pdf/testPDF_twoAuthors.pdf").attributes
        #expect(a.strings(.authors) == ["Sample Author 1", "Sample Author 2"])
        #expect(a.title == "Sample Title")
        #expect(a.string(.generator) == "Adobe Acrobat 10.0")
        #expect(a.string(.producer) == "Acrobat Web Capture 10.0")
        #expect(a.date(.contentCreationDate) == DocumentFixtures.date(1_393_920_357))
        #expect(a.date(.contentModificationDate) == DocumentFixtures.date(1_393_920_511))
        #expect(a[.keywords] == nil)   // an empty Keywords entry
    }

    @Test("the x-default title of an PDFXMP packet with no Info title", .realCorpus)
    func xmpTitle() throws {
        let a = try extractReal("pdf/testPDFTripleLangTitle.pdf").attributes
        #expect(a.title == "Hello World")
        #expect(a.textContent == "Hello World")
        #expect(a[.authors] == nil)   // dc:creator there is an rdf:resource, not a name
    }

    @Test("subject, keywords, creator and multi-page text with Japanese", .realCorpus)
    func various() throws {
        let a = try extractReal("pdf/testPDFVarious.pdf").attributes
        #expect(a.string(.subject) == "Subject is here")
        #expect(a.strings(.keywords) == ["Keyword1 Keyword2"])
        #expect(a.strings(.authors) == ["Michael McCandless"])
        #expect(a.string(.generator) == "Microsoft® Office Word 2007")
        #expect(a.integer(.pageCount) == 2)
        #expect(a[.pageWidth] == .double(612))
        let text = try #require(a.textContent)
        #expect(text.contains("Suddenly some Japanese text: ゾルゲと尾崎、淡々と最期"))
        #expect(text.contains("\nThis is the header text. Here is a citation: (Kramer)"))   // page 2 on a new line
    }

    @Test("custom metadata: Info values win over XMP, missing dates stay the file's", .realCorpus)
    func customMetadata() throws {
        let a = try extractReal("pdf/testPDF-custommetadata.pdf").attributes
        #expect(a.title == "Document title")
        #expect(a.string(.subject) == "Document subject")
        #expect(a.strings(.authors) == ["Document author"])
        #expect(a.string(.generator) == "Tool used to make the PDF")
        #expect(a.string(.producer) == "Apache FOP Version svn-trunk")
        #expect(a.date(.contentCreationDate) == DocumentFixtures.date(1_277_899_314))
        #expect(a.textContent == "Hello World!")
    }

    @Test("an owner-password PDF opens: metadata, text, and encrypted with its method", .realCorpus)
    func ownerPassword() throws {
        let r = try extractReal("pdf/testPDF_protected.pdf")
        let a = r.attributes
        #expect(r.problems.isEmpty)
        #expect(a[.encrypted] == .bool(true))
        #expect(a.string(.securityMethod) == "Standard")
        #expect(a.title?.hasPrefix("Rethinking the Financial Network, Speech by Andrew G Haldane") == true)
        #expect(a.strings(.authors) == ["The Bank of England"])
        #expect(a.integer(.pageCount) == 41)
        #expect(a.date(.contentCreationDate) == DocumentFixtures.date(1_240_909_616))
        #expect(a.textContent?.hasPrefix("RETHINKING THE FINANCIAL NETWORK Speech by Andrew G Haldane") == true)
    }

    @Test("a user-password PDF: encrypted, its method, and a clear problem", .realCorpus)
    func userPassword() throws {
        let r = try extractReal("pdf/testPDF_no_extract_no_accessibility_owner_user.pdf")
        #expect(r.extractor == "pdf")
        #expect(r.problems == [.malformed(extractor: "pdf", reason: "encrypted; needs a password to read")])
        #expect(r.attributes[.encrypted] == .bool(true))
        #expect(r.attributes.string(.securityMethod) == "Standard")
        #expect(r.attributes[.textContent] == nil)
        #expect(r.attributes[.pageCount] == nil)
    }

    @Test("a PDF with a broken page keeps the text of the others", .realCorpus)
    func badPage() throws {
        let r = try extractReal("pdf/testPDF_bad_page_303226.pdf")
        #expect(r.problems.isEmpty)
        #expect(r.attributes.integer(.pageCount) == 19)
        #expect(r.attributes.string(.subject) == "Extracted Pages")
        #expect(r.attributes.textContent?.hasPrefix("Drug Enforcement Administration, Justice Pt. 1308") == true)
    }

    @Test("text stops at the cap and is marked truncated", .realCorpus)
    func textCap() throws {
        let a = try extractReal("pdf/testPDF-TIKA-4444.pdf", textCap: 2000).attributes
        let text = try #require(a.textContent)
        #expect(text.utf8.count <= 2000)
        #expect(text.utf8.count > 1900)
        #expect(text.hasPrefix("Lorem ipsum dolor sit amet"))
        #expect(a[.textTruncated] == .bool(true))
        #expect(a.integer(.pageCount) == 13)   // metadata is complete anyway
    }

    @Test("the first half of every real PDF: a problem or partial attributes, never a crash", .realCorpus,
          .timeLimit(.minutes(2)))
    func truncated() throws {
        let tree = try TemporaryTree()
        defer { tree.remove() }
        let files = regularFiles(below: RealCorpus.file("pdf")).map { "pdf/" + $0.lastComponent!.string }
        #expect(files.count == 11)
        for file in files {
            let r = try DocumentFixtures.firstHalf(file, in: tree)
            #expect(r.extractor == "pdf", "\(file)")
            let partial = r.attributes[.pageCount] != nil || r.attributes[.title] != nil
            #expect(DocumentFixtures.hasProblem(r, "pdf") || partial, "\(file): \(r.problems)")
        }
        let r = try DocumentFixtures.firstHalf("pdf/testPDF.pdf", in: tree)
        #expect(r.problems == [.malformed(extractor: "pdf", reason: "poppler: PDF document is damaged")])
        // The linearized first page survives, but its page tree does not.
        let p = try DocumentFixtures.firstHalf("pdf/testPDF_protected.pdf", in: tree)
        #expect(DocumentFixtures.hasProblem(p, "pdf", containing: "no pages"))
        #expect(p.attributes[.encrypted] == .bool(true))
    }

    @Test("an input of bytes without a descriptor is read from memory", .realCorpus)
    func fromMemory() throws {
        let input = DocumentFixtures.input(try DocumentFixtures.bytes("pdf/testPDF_protected.pdf"), mimeType: "application/pdf")
        #expect(input.file == nil)
        var a = AttributeSet()
        try PDFExtractor().extract(input, into: &a)
        #expect(a.integer(.pageCount) == 41)
        #expect(a.string(.securityMethod) == "Standard")
        #expect(a.textContent?.hasPrefix("RETHINKING THE FINANCIAL NETWORK") == true)
    }

    @Test("damaged copies of real PDFs never crash or hang", .realCorpus, .timeLimit(.minutes(2)))
    func mutated() throws {
        let tree = try TemporaryTree()
        defer { tree.remove() }
        var problems = 0
        for file in ["pdf/testPDF.pdf", "pdf/testPDF_protected.pdf", "pdf/testPDF_twoAuthors.pdf"] {
            problems += try DocumentFixtures.mutations(of: file, count: 15, in: tree)
        }
        #expect(problems > 0)   // the cut copies at least
    }

    @Test("a .pdf that is not a PDF gives poppler's reason")
    func garbage() throws {
        let tree = try TemporaryTree()
        defer { tree.remove() }
        let path = try tree.create("fake.pdf", contents: "%PDF-1.4\nnothing else here\n")
        let r = try extract(path)
        #expect(r.extractor == "pdf")
        #expect(DocumentFixtures.hasProblem(r, "pdf", containing: "poppler"))
    }

    @Test("the /Encrypt entry and its /Filter are found in the raw bytes")
    func encryptionScan() {
        let inline = Array("trailer\n<< /Size 9 /Encrypt << /Filter /Adobe.PubSec /V 4 >> >>".utf8)
        guard case let .inline(dict)? = PDFExtractor.encryptReference(in: inline) else {
            Issue.record("no inline /Encrypt found")
            return
        }
        #expect(PDFExtractor.filter(in: dict) == "Adobe.PubSec")
        let indirect = Array("<< /EncryptMetadata false >> trailer << /Encrypt 12 0 R >>".utf8)
        guard case let .object(n, g)? = PDFExtractor.encryptReference(in: indirect) else {
            Issue.record("no indirect /Encrypt found")
            return
        }
        #expect(n == 12 && g == 0)
        #expect(PDFExtractor.encryptReference(in: Array("<< /EncryptMetadata true >>".utf8)) == nil)
        let object = PDFExtractor.object(Array("12 0 obj".utf8), in: Array("112 0 obj<<>> 12 0 obj<</Filter/Standard/V 2>>".utf8))
        #expect(object.flatMap { PDFExtractor.filter(in: $0) } == "Standard")
    }

    @Test("ISO 8601 dates of XMP, with and without zones and parts")
    func isoDates() {
        #expect(DocumentFields.iso8601("2010-06-30T14:01:54+02:00") == DocumentFixtures.date(1_277_899_314))
        #expect(DocumentFields.iso8601("2010-06-30T12:01:54Z") == DocumentFixtures.date(1_277_899_314))
        #expect(DocumentFields.iso8601("2010-06-30T12:01:54.5Z") == Date(timeIntervalSince1970: 1_277_899_314.5))
        #expect(DocumentFields.iso8601("2010-07-11") == DocumentFixtures.date(1_278_806_400))
        #expect(DocumentFields.iso8601("2024") == DocumentFixtures.date(1_704_067_200))
        #expect(DocumentFields.iso8601("2024-13-01") == nil)
        #expect(DocumentFields.iso8601("yesterday") == nil)
    }

    @Test("XMP: rdf:Alt prefers x-default, rdf:Bag gives every item, attributes count too")
    func xmp() {
        let packet = """
        <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
        <rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:xmp="http://ns.adobe.com/xap/1.0/"
          xmp:CreatorTool="Writer" xmp:CreateDate="2020-01-02T03:04:05Z">
        <dc:title><rdf:Alt><rdf:li xml:lang="fr">Bonjour</rdf:li><rdf:li xml:lang="x-default">Hello</rdf:li></rdf:Alt></dc:title>
        <dc:creator><rdf:Seq><rdf:li>Ann</rdf:li><rdf:li>Bob</rdf:li></rdf:Seq></dc:creator>
        <dc:subject><rdf:Bag><rdf:li>red</rdf:li><rdf:li>green</rdf:li></rdf:Bag></dc:subject>
        </rdf:Description></rdf:RDF></x:xmpmeta>
        """
        let x = PDFXMP.parse(packet)
        #expect(x.title == "Hello")
        #expect(x.creators == ["Ann", "Bob"])
        #expect(x.creatorTool == "Writer")
        #expect(x.subjects == ["red", "green"])
        #expect(x.created == DocumentFixtures.date(1_577_934_245))
        #expect(PDFXMP.parse("<not xml").title == nil)
    }
}
