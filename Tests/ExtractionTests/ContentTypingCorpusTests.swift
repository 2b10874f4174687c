import Attributes
import Crawling
@testable import Extraction
import ExtractionModel
import SystemPackage
import Testing
import Glibc

/// Types every regular file below `FSINDEX_TYPING_CORPUS` (the bench corpus,
/// `/work/bench/corpus`, 111,174 files) both ways, shared-mime-info first and libmagic alone,
/// and lists each difference in `FSINDEX_TYPING_REPORT` (default `/tmp/content-typing.tsv`):
/// path, then `contentType`, `kind` and charset by libmagic and by the new path.
///
/// On the bench corpus (issue 23): 32 differences in 111,174 files, none in the charset;
/// libmagic's rules ran for 13,822 files. Each is a file whose name's type shared-mime-info's
/// magic confirms while libmagic named it otherwise:
/// - 22 `.ttf` fonts: `font/sfnt` (kind "Document") became `font/ttf` ("Font");
/// - 4 `.aifc` files: `audio/x-aiff` became `audio/x-aifc` (they are AIFF-C);
/// - 2 `.pgm` images: libmagic's spelling `image/x-portable-greymap` became shared-mime-info's
///   `image/x-portable-graymap` ("PGM image");
/// - a `.class` file: libmagic's `application/x-java-applet` became `application/x-java`;
/// - a `.tar`: libmagic's `application/x-ustar` became `application/x-tar` (same kind);
/// - a PEM `.crl`: `text/plain` became `application/pkix-crl`;
/// - `cp949.txt`, Korean text that starts with `MZ`: libmagic's `application/x-dosexec` became
///   `text/plain`.
/// The test fails when more than 1 file in 1,000 differs or any charset differs.
@Suite("ContentTyping on a corpus")
struct ContentTypingCorpusTests {
    static let root = getenv("FSINDEX_TYPING_CORPUS").flatMap { String(validatingCString: $0) }

    @Test("shared-mime-info first gives the types and charsets libmagic gave",
          .enabled(if: root != nil, "set FSINDEX_TYPING_CORPUS to a folder to compare on"))
    func corpus() throws {
        let typing = try ContentTyping()
        let files = regularFiles(below: FilePath(Self.root!))
        var report = "path\told type\told kind\told charset\tnew type\tnew kind\tnew charset\tnew used libmagic\n"
        var differences = 0
        var charsetDifferences = 0
        var skipped = 0
        var askedLibmagic = 0
        for path in files {
            let fd = path.withPlatformString { open($0, O_RDONLY | O_CLOEXEC) }
            guard fd >= 0 else { skipped += 1; continue }
            var bytes = [UInt8](repeating: 0, count: MagicDatabase.bytesMax)
            let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            close(fd)
            guard n >= 0 else { skipped += 1; continue }
            bytes.removeLast(bytes.count - n)
            let nameBytes = path.lastComponent.map(\.bytes) ?? []
            let size = Int64(n)
            let old = typing.typeByLibmagic(name: nameBytes, bytes: bytes, fileSize: size, isEmpty: bytes.isEmpty)
            let new = typing.type(name: nameBytes, bytes: bytes, fileSize: size, isEmpty: bytes.isEmpty)
            if new.usedLibmagic { askedLibmagic += 1 }
            // Only the text extractors read the charset: elsewhere it was never used.
            let charsetMatters = old.detection.contentTypeTree.contains(.text) || new.detection.contentTypeTree.contains(.text)
            let sameCharset = !charsetMatters || old.charset == new.charset
            if old.detection != new.detection || !sameCharset {
                differences += 1
                if !sameCharset { charsetDifferences += 1 }
                report += [path.string, old.detection.mimeType, old.detection.kind, old.charset ?? "-",
                           new.detection.mimeType, new.detection.kind, new.charset ?? "-", String(new.usedLibmagic)]
                    .joined(separator: "\t") + "\n"
            }
        }
        let out = getenv("FSINDEX_TYPING_REPORT").flatMap { String(validatingCString: $0) } ?? "/tmp/content-typing.tsv"
        out.withCString { p in report.withCString { r in
            let f = fopen(p, "w")
            fputs(r, f)
            fclose(f)
        } }
        print("content typing: \(files.count) files, \(skipped) unreadable, \(differences) differences (\(charsetDifferences) in the charset), libmagic asked for \(askedLibmagic); report in \(out)")
        #expect(charsetDifferences == 0)
        #expect(differences * 1000 <= files.count)
    }
}
