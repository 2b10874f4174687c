import Attributes
import Crawling
@testable import Extraction
import ExtractionModel
import Testing
import TestSupport

/// Files that made our own header readers trap, kept in `Tests/Fuzz/corpus` and extracted here
/// as real files through the in-process extraction context (issue 11).
@Suite("Extraction fuzz findings")
struct ExtractionFuzzFindingTests {
    @Test("issue 11: a HEIF file with two 4294967295 × 4294967295 ispe boxes gives that size, not an overflow trap")
    func heifAreaOverflow() throws {
        let bytes = try FuzzCorpus.input("image/crash-heif-area-overflow")
        let header = ImageHeader(MediaSource(head: bytes, size: bytes.count, file: nil))
        #expect(header.format == "heif")
        #expect(header.width == 4_294_967_295 && header.height == 4_294_967_295)

        let tree = try TemporaryTree()
        let a = try extract(try tree.create("huge.heic", bytes: bytes)).attributes
        #expect(a.integer(.pixelWidth) == 4_294_967_295)
        #expect(a.integer(.pixelHeight) == 4_294_967_295)
    }
}
