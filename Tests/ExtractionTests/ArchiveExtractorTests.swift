import Attributes
import Crawling
@testable import Extraction
import ExtractionModel
import Foundation
import SystemPackage
import Testing
import TestSupport

@Suite("ArchiveExtractor", .blocking)
struct ArchiveExtractorTests {
    static let documents = ["testEXCEL.xls", "testHTML.html", "testOpenOffice2.odt", "testPDF.pdf", "testPPT.ppt", "testRTF.rtf",
                            "testTXT.txt", "testWORD.doc", "testXML.xml"]

    @Test("zip, tar, tgz and 7z of the same documents list the same members", .realCorpus, arguments: [
        ("archives/test-documents.zip", "", false, "public.zip-archive"),
        ("archives/test-documents.tar", "test-documents/", true, "public.tar-archive"),
        ("archives/test-documents.tgz", "test-documents/", true, "org.freedesktop.mime.application.x-compressed-tar"),
        ("archives/test-documents.7z", "test-documents/", false, "org.7-zip.7-zip-archive"),
    ])
    func realArchives(_ file: String, _ prefix: String, _ hasFolder: Bool, _ type: String) throws {
        let r = try extractReal(file)
        #expect(r.extractor == "archive")
        #expect(r.problems.isEmpty)
        #expect(r.attributes.contentType?.rawValue == type)
        let expected = (hasFolder ? ["test-documents/"] : []) + Self.documents.map { prefix + $0 }
        #expect(r.attributes.textContent == expected.joined(separator: "\n"))
        #expect(r.attributes.integer(.memberCount) == Int64(expected.count))
        #expect(r.attributes[.encrypted] == nil)
    }

    @Test("a lone bzip2 file is read as the text inside (issue 24)", .realCorpus)
    func bzip2() throws {
        let r = try extractReal("archives/test-bz2.txt.bz2")
        #expect(r.extractor == "plain-text")
        #expect(r.problems.isEmpty)
        #expect(r.attributes.string(.contentEncoding) == "bzip2")
        #expect(r.attributes.contentType?.rawValue == "public.bzip2-archive")
        #expect(r.attributes.textContent?.isEmpty == false)
        // The archive extractor itself still lists it as one member named after the file.
        let input = try archiveInput(RealCorpus.file("archives/test-bz2.txt.bz2"), mimeType: "application/x-bzip")
        var attributes = AttributeSet()
        try ArchiveExtractor().extract(input, into: &attributes)
        #expect(attributes.textContent == "test-bz2.txt")
        #expect(attributes.integer(.memberCount) == 1)
    }

    /// The whole file as the archive extractor's input (as the context gives it when the
    /// decompressed file has no extractor of its own).
    func archiveInput(_ path: FilePath, mimeType: String) throws -> ExtractionInput {
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path.string)))
        return ExtractionInput(facts: try FileFacts.read(path), bytes: bytes, isComplete: true,
                               contentType: "org.gnu.gnu-zip-archive", contentTypeTree: ["org.gnu.gnu-zip-archive", "public.archive"],
                               mimeType: mimeType, magicCharset: nil)
    }

    @Test("an encrypted zip: names listed, marked encrypted", .realCorpus)
    func encrypted() throws {
        let r = try extractReal("archives/testZipEncrypted.zip")
        #expect(r.extractor == "archive")
        #expect(r.attributes.textContent == "unencrypted.txt\nencrypted.txt")
        #expect(r.attributes.integer(.memberCount) == 2)
        #expect(r.attributes[.encrypted] == .bool(true))
    }

    @Test("Shift-JIS member names are decoded", .realCorpus)
    func shiftJIS() throws {
        let r = try extractReal("archives/testZipEntryNameCharsetShiftSJIS.zip")
        #expect(r.problems.isEmpty)
        #expect(r.attributes.textContent == "文章1.txt\n文章2.txt")
        #expect(ArchiveReader.decodeName([0x95, 0xB6, 0x8F, 0xCD]) == "文章")
        #expect(ArchiveReader.decodeName(Array("café".utf8)) == "café")
        #expect(ArchiveReader.decodeName([0x63, 0x61, 0x66, 0xE9]) == "café")   // not Shift-JIS: Latin-1
    }

    @Test("a corrupt zip keeps the name it could read and records libarchive's reason", .realCorpus)
    func corrupt() throws {
        let r = try extractReal("archives/testZIP_corrupted_oom.zip")
        #expect(r.extractor == "archive")
        #expect(r.attributes.textContent == "hello.txt")
        #expect(r.attributes.integer(.memberCount) == 1)
        #expect(r.problems.contains { if case .malformed("archive", _) = $0 { true } else { false } })
    }

    @Test("truncated copies of every real archive: problems, never a crash", .realCorpus, arguments: [
        "archives/test-documents.zip", "archives/test-documents.tar", "archives/test-documents.tgz",
        "archives/test-documents.7z", "archives/test-bz2.txt.bz2", "archives/testZipEncrypted.zip",
        "archives/testZipEntryNameCharsetShiftSJIS.zip",
    ])
    func truncatedCopies(_ file: String) throws {
        let tree = try TemporaryTree()
        for fraction in [0.3, 0.6, 0.9] {
            let r = try extract(try truncatedCopy(file, in: tree, fraction: fraction))
            #expect(r.extractor == "archive", "\(file) cut at \(fraction)")
            #expect(!r.problems.isEmpty, "\(file) cut at \(fraction)")
        }
    }

    @Test("generated tar.xz, tar.bz2, tar.gz, 7z, zip, .gz and .xz files", arguments: [
        ("a.tar.xz", ArchiveFixture.Format.tar, ArchiveFixture.Filter.xz),
        ("a.tar.bz2", .tar, .bzip2),
        ("a.tar.gz", .tar, .gzip),
        ("a.7z", .sevenZip, .none),
        ("a.zip", .zip, .none),
    ])
    func generated(_ name: String, _ format: ArchiveFixture.Format, _ filter: ArchiveFixture.Filter) throws {
        let tree = try TemporaryTree()
        let path = tree.path(name)
        try ArchiveFixture.write(path, format: format, filter: filter, members: [
            .init("docs/Überblick.txt", "hello"), .init("docs/report 2024.pdf", "%PDF-1.4"), .init("日本語.md", "# x"),
        ])
        let r = try extract(path)
        #expect(r.extractor == "archive", "\(name): \(r.attributes.string(.mimeType) ?? "?")")
        #expect(r.problems.isEmpty)
        #expect(r.attributes.textContent == "docs/Überblick.txt\ndocs/report 2024.pdf\n日本語.md")
        #expect(r.attributes.integer(.memberCount) == 3)
    }

    @Test("single compressed files: listed by the archive extractor as one member", arguments: [("notes.txt.gz", ArchiveFixture.Filter.gzip), ("notes.txt.xz", .xz)])
    func single(_ name: String, _ filter: ArchiveFixture.Filter) throws {
        let tree = try TemporaryTree()
        let path = tree.path(name)
        try ArchiveFixture.write(path, format: .raw, filter: filter, members: [.init("data", "some notes\n", repeats: 100)])
        var attributes = AttributeSet()
        try ArchiveExtractor().extract(try archiveInput(path, mimeType: filter == .gzip ? "application/gzip" : "application/x-xz"), into: &attributes)
        #expect(attributes.textContent == "notes.txt")
        #expect(attributes.integer(.memberCount) == 1)
    }

    @Test("a compressed changelog that libarchive's mtree reader claims is one compressed file")
    func compressedTextNotMtree() throws {
        let tree = try TemporaryTree()
        let path = tree.path("changelog.gz")
        // The shape of setuptools' changelog, which /usr/share/doc ships gzipped: ASCII lines
        // that pass for mtree entries, then one that does not (a non-ASCII apostrophe).
        let block = "v1.0.1\n-------\n\n\nMisc\n^^^^\n* #1: Fixed a problem with the parser\n  when a value is a string.\n\n\n"
        let text = String(repeating: block, count: 12) + "* #2: Updated the project\u{2019}s name\n"
        try ArchiveFixture.write(path, format: .raw, filter: .gzip, members: [.init("data", text)])
        var attributes = AttributeSet()
        try ArchiveExtractor().extract(try archiveInput(path, mimeType: "application/gzip"), into: &attributes)
        #expect(attributes.textContent == "changelog")
        #expect(attributes.integer(.memberCount) == 1)
        // Through the context it is the text itself (issue 24).
        let r = try extract(path)
        #expect(r.extractor == "plain-text")
        #expect(r.problems.isEmpty, "\(r.problems)")
        #expect(r.attributes.textContent == text)
    }

    @Test("member names are capped at the text cap")
    func cap() throws {
        let tree = try TemporaryTree()
        let path = tree.path("many.tar")
        try ArchiveFixture.write(path, format: .tar, members: (0..<500).map { .init("folder/file-\($0).txt", "") })
        let r = try extract(path, textCap: 1000)
        #expect(r.attributes.integer(.memberCount) == 500)
        #expect((r.attributes.textContent?.utf8.count ?? 0) <= 1000)
        #expect(r.attributes.textContent?.hasPrefix("folder/file-0.txt\nfolder/file-1.txt\n") == true)
        #expect(r.attributes[.textTruncated] == .bool(true))
    }

    @Test("zip-based documents are not archives to this extractor", .realCorpus)
    func documentsLeftAlone() throws {
        for f in ["office/testWORD.docx", "opendocument/testOpenOffice2.odt", "epub/testEPUB.epub"] {
            let r = try extractReal(f)
            #expect(r.extractor != "archive")
            #expect(r.attributes.contentTypeTree.contains("public.zip-archive"))
        }
        let facts = try FileFacts.read(RealCorpus.file("office/testWORD.docx"))
        let input = ExtractionInput(facts: facts, bytes: [], isComplete: true,
                                    contentType: "org.openxmlformats.wordprocessingml.document",
                                    contentTypeTree: ["org.openxmlformats.wordprocessingml.document", "public.zip-archive",
                                                      "public.archive", "public.content", "public.data", "public.item"],
                                    mimeType: "application/vnd.openxmlformats-officedocument.wordprocessingml.document", magicCharset: nil)
        #expect(!ArchiveExtractor().accepts(input))
    }

    @Test("a compressed tar whose members decompress past the limit stops listing before decompressing them")
    func streamLimit() throws {
        let tree = try TemporaryTree()
        let path = tree.path("bomb.tar.gz")
        try ArchiveFixture.write(path, format: .tar, filter: .gzip, members: [
            .init("small.txt", "x"), .init("big.bin", bytes: [UInt8](repeating: 0, count: 1 << 20), repeats: 20), .init("after.txt", "y"),
        ])
        let everything = try extract(path)
        #expect(everything.attributes.textContent == "small.txt\nbig.bin\nafter.txt")

        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path.string)))
        let input = ExtractionInput(facts: try FileFacts.read(path), bytes: bytes, isComplete: true,
                                    contentType: "org.gnu.gnu-zip-archive", contentTypeTree: ["org.gnu.gnu-zip-archive", "public.archive"],
                                    mimeType: "application/x-compressed-tar", magicCharset: nil)
        let limited = ArchiveExtractor(maxStreamBytes: 10 << 20)
        #expect(limited.accepts(input))
        var attributes = AttributeSet()
        #expect {
            try limited.extract(input, into: &attributes)
        } throws: { error in
            guard case let ExtractionError.malformed(_, reason) = error else { return false }
            return reason.contains("listing stopped")
        }
        #expect(attributes.textContent == "small.txt\nbig.bin")
        #expect(attributes.integer(.memberCount) == 2)
    }
}
