import Attributes
import Crawling
@testable import Extraction
import ExtractionModel
import FoundationEssentials
import Testing
import TestSupport

@Suite("TypeDetector", .blocking)
struct TypeDetectorTests {
    /// (corpus file, expected UTI, an ancestor its tree must hold)
    static let realCases: [(String, ContentType, ContentType)] = [
        ("pdf/testPDF.pdf", .pdf, .data),
        ("images/testJPEG.jpg", .jpeg, .image),
        ("images/testPNG.png", .png, .image),
        ("office/testWORD.docx", "org.openxmlformats.wordprocessingml.document", "public.zip-archive"),
        ("office/testEXCEL.xlsx", "org.openxmlformats.spreadsheetml.sheet", "public.spreadsheet"),
        ("opendocument/testOpenOffice2.odt", "org.oasis-open.opendocument.text", "public.zip-archive"),
        ("epub/testEPUB.epub", "org.idpf.epub-container", "public.zip-archive"),
        ("html/testHTML.html", .html, .text),
        ("xml/testXML.xml", .xml, .text),
        ("xml/testSVG.svg", "public.svg-image", .xml),
        ("xml/testKML.kml", "com.google.earth.kml", .xml),
        ("xml/test.fb2", "org.gnu.gnu-zip-archive.fb2", .xml),
        ("audio/testMP3id3v1.mp3", "public.mp3", .audio),
        ("audio/testOPUS.opus", "org.xiph.opus", .audio),
        ("archives/test-documents.zip", "public.zip-archive", .archive),
        ("archives/test-documents.tar", "public.tar-archive", .archive),
        ("code/testC.c", "public.c-source", .sourceCode),
        ("code/testCPP.cpp", "public.c-plus-plus-source", .sourceCode),
        ("code/testJAVA.java", "com.sun.java-source", .sourceCode),
        ("misc/testMARKDOWN.md", "net.daringfireball.markdown", .plainText),
        ("misc/testCSV.csv", "public.comma-separated-values-text", .text),
        ("opendocument/testODTnotaZipFile.odt", .plainText, .text),   // the bytes win over the name
    ]

    @Test("real files get the right type and tree", .realCorpus, arguments: realCases)
    func realFile(_ file: String, _ expected: ContentType, _ ancestor: ContentType) throws {
        let a = try extractReal(file).attributes
        #expect(a.contentType == expected)
        let tree = a.contentTypeTree
        #expect(tree.first == expected)
        #expect(tree.contains(ancestor))
        #expect(Array(tree.suffix(2)) == [.data, .item])
        #expect(Set(tree).count == tree.count)
        #expect(a.kind == expected.wellKnown?.kind)
    }

    let detector = TypeDetector()

    @Test("a generic libmagic answer yields to the name's glob")
    func genericMagicYields() {
        #expect(detector.chooseMIMEType(name: Array("a.docx".utf8), magic: "application/zip", isEmpty: false)
                == "application/vnd.openxmlformats-officedocument.wordprocessingml.document")
        #expect(detector.chooseMIMEType(name: Array("notes.md".utf8), magic: "text/plain", isEmpty: false) == "text/markdown")
        #expect(detector.chooseMIMEType(name: Array("map.svg".utf8), magic: "text/xml", isEmpty: false) == "image/svg+xml")
        #expect(detector.chooseMIMEType(name: Array("song.mp3".utf8), magic: "application/octet-stream", isEmpty: false) == "audio/mpeg")
    }

    @Test("a specific libmagic answer beats a misleading name")
    func specificMagicWins() {
        #expect(detector.chooseMIMEType(name: Array("photo.txt".utf8), magic: "image/png", isEmpty: false) == "image/png")
        // Text bytes named like a zip container stay text.
        #expect(detector.chooseMIMEType(name: Array("letter.odt".utf8), magic: "text/plain", isEmpty: false) == "text/plain")
        #expect(detector.chooseMIMEType(name: Array("noext".utf8), magic: "application/pdf", isEmpty: false) == "application/pdf")
    }

    @Test("aliases resolve to the canonical type")
    func aliases() {
        #expect(detector.database.canonical("text/x-c") == "text/x-csrc")
        #expect(detector.describe(mimeType: "text/x-c").contentType == "public.c-source")
        #expect(detector.describe(mimeType: "audio/x-m4a").contentType == "com.apple.m4a-audio")
    }

    @Test("an empty file takes its name's type, else public.empty")
    func emptyFiles() {
        let bare = detector.detect(name: Array("empty".utf8), magic: ("inode/x-empty", "binary"), isEmpty: true)
        #expect(bare.contentType == .emptyFile)
        #expect(bare.contentTypeTree == [.emptyFile, .data, .item])
        let txt = detector.detect(name: Array("empty.txt".utf8), magic: ("inode/x-empty", "binary"), isEmpty: true)
        #expect(txt.contentType == .plainText)
    }

    @Test("a type without a well-known UTI is dynamic, with its MIME parents' UTIs in its tree")
    func dynamicTypes() {
        let d = detector.detect(name: Array("backup.tgz".utf8), magic: ("application/gzip", "binary"), isEmpty: false)
        #expect(d.mimeType == "application/x-compressed-tar")
        #expect(d.contentType == .dynamic(mimeType: "application/x-compressed-tar"))
        #expect(d.contentTypeTree.contains("org.gnu.gnu-zip-archive"))
        #expect(d.contentTypeTree.contains(.archive))
        #expect(d.kind.lowercased().contains("tar"))   // from the MIME database's comment
        let img = detector.describe(mimeType: "image/x-made-up")
        #expect(img.contentTypeTree.contains(.image))   // the image/* wildcard
        let unknown = detector.describe(mimeType: "application/x-made-up")
        #expect(unknown.contentTypeTree == [.dynamic(mimeType: "application/x-made-up"), .data, .item])
        #expect(unknown.kind == "Document")
    }

    @Test("the name alone decides when there are no bytes")
    func nameOnly() {
        #expect(detector.detect(name: Array("x.pdf".utf8), magic: nil, isEmpty: false).contentType == .pdf)
        #expect(detector.detect(name: Array("blob".utf8), magic: nil, isEmpty: false).contentType == .data)
        // A non-UTF-8 name still has an ASCII extension.
        #expect(detector.detect(name: [0x66, 0xFF, 0x2E, 0x6A, 0x70, 0x67], magic: nil, isEmpty: false).contentType == .jpeg)
    }

    @Test("non-regular files are typed from the file type")
    func nonRegular() {
        #expect(TypeDetector.nonRegular(.directory).contentTypeTree == [.folder, .directory, .item])
        #expect(TypeDetector.nonRegular(.directory).kind == "Folder")
        #expect(TypeDetector.nonRegular(.symlink).contentType == .symlink)
        #expect(TypeDetector.nonRegular(.fifo).contentType == .fifo)
        #expect(TypeDetector.nonRegular(.socket).contentType == .socket)
        #expect(TypeDetector.nonRegular(.blockDevice).contentType == .device)
        #expect(!TypeDetector.nonRegular(.fifo).contentTypeTree.contains(.data))
    }

    @Test("a missing MIME database is reported, and the built-in table still types files")
    func missingDatabase() {
        let empty = MIMEDatabase(searchPath: "/nonexistent-\(UInt32.random(in: 0...UInt32.max))")
        #expect(empty.isEmpty)
        #expect(empty.diagnostic?.contains("shared-mime-info") == true)
        let d = TypeDetector(database: empty)
        #expect(d.detect(name: Array("a.pdf".utf8), magic: ("application/pdf", "binary"), isEmpty: false).contentType == .pdf)
        #expect(d.detect(name: Array("a.md".utf8), magic: ("text/plain", "utf-8"), isEmpty: false).contentType
                == "net.daringfireball.markdown")
    }

    @Test("a generated MIME database: globs (weights, case, literal names), aliases, sub-classes, comments with entities")
    func generatedDatabase() throws {
        let tree = try TemporaryTree()
        try tree.create("share/mime/globs2", contents: """
            # generated
            80:application/x-wombat:*.wmb
            50:application/x-wombat-lite:*.wmb
            50:text/x-quoll:*.QL:cs
            50:text/x-quoll-lower:*.ql
            50:application/x-build:Buildfile:cs
            50:text/x-credits:credits
            50:application/x-gone:__NOGLOBS__

            """)
        try tree.create("share/mime/aliases", contents: "application/x-wombat-old application/x-wombat\n")
        try tree.create("share/mime/subclasses", contents: "application/x-wombat application/zip\n")
        try tree.create("share/mime/application/x-wombat.xml", contents: """
            <?xml version="1.0" encoding="utf-8"?>
            <mime-type xmlns="http://www.freedesktop.org/standards/shared-mime-info" type="application/x-wombat">
              <comment xml:lang="de">Wombat-Archiv</comment>
              <comment>Wombat &amp; friends &lt;archive&gt;</comment>
            </mime-type>
            """)
        let db = MIMEDatabase(searchPath: tree.path("share").string + ":/nonexistent")
        #expect(db.diagnostic == nil)
        #expect(db.globType(forName: Array("a.wmb".utf8)) == "application/x-wombat")   // the higher weight
        #expect(db.globType(forName: Array("a.QL".utf8)) == "text/x-quoll")            // case-sensitive first
        #expect(db.globType(forName: Array("a.ql".utf8)) == "text/x-quoll-lower")
        #expect(db.globType(forName: Array("Buildfile".utf8)) == "application/x-build")
        #expect(db.globType(forName: Array("buildfile".utf8)) == nil)                    // case-sensitive literal
        #expect(db.globType(forName: Array("CREDITS".utf8)) == "text/x-credits")         // globs2 writes it lower-cased
        #expect(db.canonical("application/x-wombat-old") == "application/x-wombat")
        #expect(db.isSubtype("application/x-wombat", of: "application/zip"))
        #expect(db.comment(for: "application/x-wombat-old") == "Wombat & friends <archive>")
        #expect(db.comment(for: "application/x-none") == nil)
        #expect(db.comment(for: "../../etc/passwd") == nil)
    }

    @Test("the MIME database loads quickly and completely")
    func databaseLoad() {
        let clock = ContinuousClock()
        var db: MIMEDatabase?
        let elapsed = clock.measure { db = MIMEDatabase(searchPath: nil) }
        print("MIMEDatabase load: \(elapsed)")
        #expect(db?.diagnostic == nil)
        #expect(db?.comment(for: "application/pdf") == "PDF document")
        // Literal names, which globs2 writes lower-cased, match whatever their case.
        #expect(db?.globType(forName: Array("AUTHORS".utf8)) == "text/x-authors")
        #expect(db?.globType(forName: Array("CMakeLists.txt".utf8)) == "text/x-cmake")
        #expect(db?.isSubtype("application/vnd.oasis.opendocument.text", of: "application/zip") == true)
        #expect(elapsed < .seconds(2))
    }

    @Test("libmagic identifies bytes in memory")
    func magicBuffer() throws {
        let magic = try MagicDatabase()
        #expect(magic.identify(Array("%PDF-1.4\n%âãÏÓ\n1 0 obj\n".utf8))?.mimeType == "application/pdf")
        #expect(magic.identify(Array("plain words here\n".utf8))?.mimeType == "text/plain")
        #expect(MagicDatabase.parse("text/plain; charset=utf-8")! == ("text/plain", "utf-8"))
    }
}

@Suite("TextSniffer", .blocking)
struct TextSnifferTests {
    @Test("kinds of text without a telling name", arguments: [
        ("<?xml version=\"1.0\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\"/>", "image/svg+xml"),
        ("<?xml version=\"1.0\"?><catalog/>", "application/xml"),
        ("\u{FEFF}<!DOCTYPE html><p>x", "text/html"),
        ("<!-- licence -->\n<html><body>x</body></html>", "text/html"),
        ("{\\rtf1\\ansi hello}", "text/rtf"),
        ("Received: from mx\nSubject: hello\n\nbody", "message/rfc822"),
        ("From ada@example.com Mon Jun 01 10:00:00 2009\nReturn-Path: <ada@example.com>\n", "application/mbox"),
        ("BEGIN:VCALENDAR\nVERSION:2.0\n", "text/calendar"),
        ("Copyright: 2024 Ada\nLicense: MIT\n", "text/plain"),
        ("just some words < and > signs\n", "text/plain"),
    ])
    func sniff(_ text: String, _ expected: String) {
        #expect(TextSniffer.mimeType(Array(text.utf8)) == expected)
    }

    @Test("mail without an extension in the corpus is typed as mail", .realCorpus)
    func realMail() throws {
        for file in ["email/testRFC822", "email/testRFC822_i18nheaders", "email/testRFC822_quoted"] {
            #expect(try extractReal(file).attributes.contentType == "public.email-message", "\(file)")
        }
    }
}
