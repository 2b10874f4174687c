import Attributes
@testable import Extraction
import ExtractionModel
import Testing
import TestSupport

/// Issue 11, beyond TGA: libmagic's other rules without a signature (ARC archive, Award BIOS
/// logo) also matched files of control characters (found by a survey of random control bytes).
@Suite("Signature-less libmagic answers")
struct SignaturelessMagicTests {
    /// `head` followed by control characters, `count` bytes in all.
    static func controls(_ head: [UInt8], count: Int = 176) -> [UInt8] {
        head + (0..<(count - head.count)).map { [5, 17, 3, 23, 2, 30, 7, 25][$0 % 8] }
    }

    /// Byte patterns from the survey: libmagic calls the first an ARC archive ("dynamic LZW"),
    /// the second an Award BIOS logo (136 × 84).
    static let arcLike = controls([0x1A, 0x08, 0x0D, 0x1B, 0x12, 0x0A, 0x10, 0x0B, 0x0C, 0x1C, 0x0A, 0x13, 0x09, 0x04, 0x0D, 0x09])
    static let biosLike = controls([0x11, 0x06, 0x1F, 0x12, 0x1B, 0x1A, 0x1C, 0x01, 0x01, 0x17, 0x01, 0x1B, 0x1E, 0x12, 0x03, 0x0B])

    /// A one-entry ARC archive holding `HELLO.TXT` stored uncompressed, and its end marker.
    static var realARC: [UInt8] {
        let data = Array("hello, arc\n".utf8)
        var name = Array("HELLO.TXT".utf8)
        name += [UInt8](repeating: 0, count: 13 - name.count)
        let size = [UInt8(data.count), 0, 0, 0]
        return [0x1A, 0x02] + name + size + [0x21, 0x5A, 0x00, 0x60, 0x00, 0x00] + size + data + [0x1A, 0x00]
    }

    static func mimeType(_ name: String, _ bytes: [UInt8]) throws -> String? {
        let tree = try TemporaryTree()
        defer { tree.remove() }
        return try extract(try tree.create(name, bytes: bytes)).attributes.string(.mimeType)
    }

    @Test("issue 11: control characters libmagic calls an ARC archive or a BIOS logo are data, or text by name")
    func controlCharacters() throws {
        for bytes in [Self.arcLike, Self.biosLike] {
            #expect(try Self.mimeType("blob", bytes) == "application/octet-stream", "\(bytes.prefix(4))")
            #expect(try Self.mimeType("blob.txt", bytes) == "text/plain", "\(bytes.prefix(4))")
        }
    }

    @Test("a real ARC archive is still one")
    func realArchive() throws {
        #expect(SignaturelessMagic.isARCEntry(Self.realARC, fileSize: Int64(Self.realARC.count)))
        #expect(try Self.mimeType("archive", Self.realARC) == "application/x-arc")
        // Cut short, its entry no longer fits: data.
        let cut = Array(Self.realARC.prefix(32))
        #expect(!SignaturelessMagic.isARCEntry(cut, fileSize: Int64(cut.count)))
    }

    @Test("types with a signature are left alone")
    func others() {
        #expect(SignaturelessMagic.confirms("application/pdf", [], fileSize: 0))
        #expect(SignaturelessMagic.confirms("image/png", [1, 2, 3], fileSize: 3))
        #expect(!SignaturelessMagic.confirms("image/x-award-bioslogo", Self.biosLike, fileSize: Int64(Self.biosLike.count)))
    }
}
