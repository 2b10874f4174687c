import Attributes
@testable import Extraction
import ExtractionModel
import Testing
import TestSupport

/// Issue 11: TGA has no signature, and libmagic's rule for it matched files of control
/// characters, so text files were typed `image/x-tga`. A TGA answer now needs a real header.
@Suite("TGA typing")
struct TGATypingTests {
    /// A valid uncompressed TGA: `type` 2 (true colour, 24 bits) or 3 (grey, 8 bits), `width` ×
    /// `height` pixels, an image ID of `id` bytes; `pixels` overrides the pixel byte count.
    static func tga(type: UInt8 = 2, width: UInt16 = 4, height: UInt16 = 3, id: [UInt8] = [], pixels: Int? = nil) -> [UInt8] {
        let depth: UInt8 = type == 3 ? 8 : 24
        var h: [UInt8] = [UInt8(id.count), 0, type, 0, 0, 0, 0, 0, 0, 0, 0, 0]
        h += [UInt8(width & 0xFF), UInt8(width >> 8), UInt8(height & 0xFF), UInt8(height >> 8), depth, 0x20]
        let count = pixels ?? Int(width) * Int(height) * Int(depth / 8)
        return h + id + (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 37) }
    }

    /// Control characters only (no NUL, no white space), as in the report.
    static let controls: [UInt8] = (0..<600).map { [1, 2, 3, 4, 5, 6, 7, 8, 11, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31][$0 % 27] }
    /// The byte libmagic's TGA rule liked best: a file of `\x01`.
    static let ones = [UInt8](repeating: 1, count: 300) + [0x0A]

    static func typed(_ name: String, _ bytes: [UInt8]) throws -> ExtractionResult {
        let tree = try TemporaryTree()
        defer { tree.remove() }
        return try extract(try tree.create(name, bytes: bytes))
    }

    @Test("issue 11: libmagic's TGA answer for control characters is not passed on")
    func identify() throws {
        let magic = try MagicDatabase()
        #expect(TGAHeader(Self.ones, fileSize: Int64(Self.ones.count)) == nil)
        #expect(magic.identify(Self.ones, fileSize: Int64(Self.ones.count))?.mimeType == "application/octet-stream")
        #expect(magic.identify(Self.tga(), fileSize: Int64(Self.tga().count))?.mimeType == "image/x-tga")
    }

    @Test("issue 11: control characters are not a TGA image", arguments: [
        ("noise", "application/octet-stream"), ("noise.txt", "text/plain"), ("noise.log", "text/x-log"),
    ])
    func controlCharacters(name: String, expected: String) throws {
        for bytes in [Self.ones, Self.controls, Array("\u{1}\u{1}\u{1} some words after control characters\n".utf8)] {
            let r = try Self.typed(name, bytes)
            #expect(r.attributes.string(.mimeType) == expected, "\(name): \(bytes.prefix(8))")
            #expect(!r.attributes.contentTypeTree.contains(.image), "\(name)")
        }
    }

    @Test("issue 11: real TGA headers are still TGA images, with or without the .tga name",
          arguments: ["pic.tga", "pic", "pic.bin"])
    func realTGA(name: String) throws {
        for bytes in [Self.tga(), Self.tga(type: 3, width: 300, height: 2), Self.tga(id: Array("made by a test".utf8))] {
            let r = try Self.typed(name, bytes)
            #expect(r.attributes.string(.mimeType) == "image/x-tga", "\(name): \(bytes.prefix(18))")
            #expect(r.attributes.contentTypeTree.contains(.image))
        }
    }

    @Test("a TGA header with too few pixel bytes, or fields out of range, is not believed without the name")
    func implausibleHeaders() throws {
        let short = Self.tga(pixels: 10)                              // 4 × 3 × 3 bytes announced
        var badDepth = Self.tga(); badDepth[16] = 7                   // 7 bits per pixel
        var badDescriptor = Self.tga(); badDescriptor[17] = 0xC0      // reserved bits set
        var noMap = Self.tga(); noMap[2] = 1                          // colour-mapped without a map
        for bytes in [short, badDepth, badDescriptor, noMap] {
            #expect(TGAHeader(bytes, fileSize: Int64(bytes.count)) == nil)
            #expect(try Self.typed("pic", bytes).attributes.string(.mimeType) != "image/x-tga")
            // The name still types it, as for any file libmagic cannot place.
            #expect(try Self.typed("pic.tga", bytes).attributes.string(.mimeType) == "image/x-tga")
        }
    }

    @Test("the header's fields", arguments: [(UInt8(2), 24), (UInt8(3), 8)])
    func parsedFields(type: UInt8, depth: Int) throws {
        let bytes = Self.tga(type: type, width: 5, height: 7)
        let h = try #require(TGAHeader(bytes, fileSize: Int64(bytes.count)))
        #expect(h.width == 5 && h.height == 7 && h.pixelBits == depth && h.imageType == type)
        #expect(h.minimumFileSize == bytes.count)
        #expect(TGAHeader(bytes, fileSize: Int64(bytes.count - 1)) == nil)
    }
}
