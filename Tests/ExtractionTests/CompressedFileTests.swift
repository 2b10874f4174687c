import Attributes
import Crawling
@testable import Extraction
import ExtractionModel
import Foundation
import Testing
import TestSupport

/// Single compressed files are read (issue 24): the inner file's type picks the extractor, the
/// item keeps the outer name and type and adds `contentEncoding` and the inner type.
@Suite("Compressed single files")
struct CompressedFileTests {
    @Test("a manual page compressed five ways is read as a manual page", arguments: [
        ("cp.1.gz", ArchiveFixture.Filter.gzip, "gzip", "org.gnu.gnu-zip-archive"),
        ("cp.1.bz2", .bzip2, "bzip2", "public.bzip2-archive"),
        ("cp.1.xz", .xz, "xz", "org.tukaani.xz-archive"),
        ("cp.1.zst", .zstd, "zstd", "com.facebook.zstandard-archive"),
        ("cp.1.Z", .compress, "compress", "org.freedesktop.mime.application.x-compress"),
    ])
    func manPage(_ name: String, _ filter: ArchiveFixture.Filter, _ encoding: String, _ outerType: String) throws {
        let tree = try TemporaryTree()
        let path = tree.path(name)
        try ArchiveFixture.write(path, format: .raw, filter: filter, members: [.init("data", ManPageExtractorTests.cp)])
        let r = try extract(path)
        #expect(r.extractor == "man-page", "\(name): \(r.attributes.string(.mimeType) ?? "?") \(r.problems)")
        #expect(r.problems.isEmpty, "\(r.problems)")
        #expect(r.attributes.string(.contentEncoding) == encoding)
        #expect(r.attributes.contentType?.rawValue == outerType)
        #expect(r.attributes.string(.name) == name)
        let tree2 = r.attributes.contentTypeTree
        #expect(tree2.first?.rawValue == outerType)
        #expect(tree2.contains(.manualPage) && tree2.contains(.troff) && tree2.contains(.text), "\(tree2)")
        #expect(tree2.suffix(2) == [.data, .item], "\(tree2)")
        #expect(r.attributes.title == "cp(1)")
        #expect(r.attributes.string(.contentDescription) == "copy files and directories")
        #expect(r.attributes.textContent?.hasPrefix("SYNOPSIS\ncp [OPTION]") == true)
    }

    @Test("a compressed text is plain text, read to the text cap only")
    func text() throws {
        let tree = try TemporaryTree()
        let path = tree.path("notes.txt.gz")
        try ArchiveFixture.write(path, format: .raw, filter: .gzip, members: [.init("data", "some notes\n", repeats: 100)])
        let r = try extract(path)
        #expect(r.extractor == "plain-text")
        #expect(r.problems.isEmpty)
        #expect(r.attributes.string(.contentEncoding) == "gzip")
        #expect(r.attributes.textContent?.hasPrefix("some notes\nsome notes") == true)
        #expect(r.attributes.contentTypeTree.contains(.plainText))

        // 48 MiB of text in a small file: only the cap is decompressed, which is no bomb.
        let big = tree.path("big.log.xz")
        try ArchiveFixture.write(big, format: .raw, filter: .xz, members: [.init("data", String(repeating: "log line\n", count: 1 << 16), repeats: 84)])
        let b = try extract(big, textCap: 100_000)
        #expect(b.extractor == "plain-text")
        #expect(b.problems.isEmpty, "\(b.problems)")
        #expect(b.attributes[.textTruncated] == .bool(true))
        #expect((b.attributes.textContent?.utf8.count ?? 0) <= 100_000)
    }

    @Test("a compressed tar named without .tar, and a binary with no extractor, are listed as before")
    func listedAsBefore() throws {
        let tree = try TemporaryTree()
        let tarBytes: [UInt8] = try {
            let t = tree.path("inner.tar")
            try ArchiveFixture.write(t, format: .tar, members: [.init("a.txt", "x"), .init("b.txt", "y")])
            return Array(try Data(contentsOf: URL(fileURLWithPath: t.string)))
        }()
        let path = try tree.create("bundle.gz", bytes: try ArchiveFixture.compressed(tarBytes, filter: .gzip))
        let r = try extract(path)
        #expect(r.extractor == "archive")
        #expect(r.attributes.textContent == "a.txt\nb.txt")
        #expect(r.attributes.string(.contentEncoding) == "gzip")
        #expect(r.attributes.contentTypeTree.contains("public.tar-archive"), "\(r.attributes.contentTypeTree)")

        let elf: [UInt8] = [0x7F, 0x45, 0x4C, 0x46, 2, 1, 1, 0] + [UInt8](repeating: 0, count: 200)
        let binary = try tree.create("prog.gz", bytes: try ArchiveFixture.compressed(elf, filter: .gzip))
        let e = try extract(binary)
        #expect(e.extractor == "archive")
        #expect(e.attributes.textContent == "prog")
        #expect(e.attributes.string(.contentEncoding) == "gzip")
    }

    @Test("truncated and damaged streams are one extraction error that says so",
          arguments: [ArchiveFixture.Filter.gzip, .bzip2, .xz, .zstd, .compress])
    func damaged(_ filter: ArchiveFixture.Filter) throws {
        let tree = try TemporaryTree()
        // Text that does not compress to nothing, so that a cut loses data.
        var rng = SystemRandomNumberGenerator()
        let words = (0..<40_000).map { _ in ["alpha", "beta", "gamma", "delta", "page", "copy"][Int.random(in: 0..<6, using: &rng)] }
        let whole = try ArchiveFixture.compressed(Array(words.joined(separator: " ").utf8), filter: filter)
        let suffix = [ArchiveFixture.Filter.gzip: "gz", .bzip2: "bz2", .xz: "xz", .zstd: "zst", .compress: "Z"][filter]!
        for fraction in [0.5, 0.9] {
            let cut = try tree.create("words-\(fraction).txt.\(suffix)", bytes: Array(whole.prefix(Int(Double(whole.count) * fraction))))
            let r = try extract(cut)
            if filter == .compress {
                // LZW has no end mark or checksum: a cut .Z is a shorter text, not an error.
                #expect(r.attributes.textContent?.isEmpty == false, "\(suffix) \(fraction): \(r.problems)")
                continue
            }
            #expect(r.problems.count == 1, "\(suffix) \(fraction): \(r.problems)")
            #expect(r.problems.first?.description.hasPrefix("compressed: cannot decompress the \(suffix == "gz" ? "gzip" : suffix == "bz2" ? "bzip2" : suffix == "zst" ? "zstd" : suffix) file: ") == true,
                    "\(suffix) \(fraction): \(r.problems)")
            #expect(r.extractor == "archive")
            #expect(r.attributes.string(.contentEncoding) == nil)
        }
        var damaged = whole
        for i in stride(from: min(20, damaged.count - 1), to: damaged.count, by: 97) { damaged[i] ^= 0x5A }
        let bad = try tree.create("damaged.txt.\(suffix)", bytes: damaged)
        let d = try extract(bad)
        #expect(!d.problems.isEmpty || d.attributes.textContent != nil, "\(suffix): neither text nor an error")
    }

    @Test("a bomb: a compressed PDF that decompresses past the limits is stopped with an error")
    func bomb() throws {
        let tree = try TemporaryTree()
        let path = tree.path("report.pdf.gz")
        try ArchiveFixture.write(path, format: .raw, filter: .gzip, members: [
            .init("data", bytes: Array("%PDF-1.4\n".utf8) + [UInt8](repeating: 0x20, count: 1 << 20), repeats: 40),
        ])
        let r = try extract(path)
        #expect(r.attributes.string(.mimeType) == "application/x-gzpdf")   // shared-mime-info's type of *.pdf.gz
        #expect(r.problems.contains { $0.description.contains("200 times") || $0.description.contains("bomb") }, "\(r.problems)")
        #expect(r.problems.count == 1, "\(r.problems)")
        #expect(r.extractor == "archive")
    }

    @Test("the inner name and tree merge")
    func helpers() {
        #expect(ContentEncoding.gzip.innerName(Array("cp.1.gz".utf8)) == Array("cp.1".utf8))
        #expect(ContentEncoding.compress.innerName(Array("old.tar.Z".utf8)) == Array("old.tar".utf8))
        #expect(ContentEncoding.gzip.innerName(Array("data".utf8)) == Array("data".utf8))
        #expect(ContentEncoding(mimeType: "application/x-compressed-tar") == nil)
        let detector = TypeDetector()
        #expect(ContentEncoding(detection: detector.describe(mimeType: "application/x-compressed-tar")) == nil)
        #expect(ContentEncoding(detection: detector.describe(mimeType: "application/x-gzpdf")) == .gzip)
        #expect(ContentEncoding(detection: detector.describe(mimeType: "application/x-xz")) == .xz)
        let merged = ExtractionContext.merged(["org.gnu.gnu-zip-archive", .archive, .data, .item],
                                              [.manualPage, .troff, .plainText, .text, .content, .data, .item])
        #expect(merged == ["org.gnu.gnu-zip-archive", .archive, .manualPage, .troff, .plainText, .text, .content, .data, .item])
    }
}
