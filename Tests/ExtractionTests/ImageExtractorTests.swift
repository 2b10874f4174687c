import Attributes
import Crawling
@testable import Extraction
import ExtractionModel
import Foundation
import Testing
import TestSupport

/// A `.double` attribute (the shared helpers have no typed accessor for it).
func doubleValue(_ a: AttributeSet, _ key: AttributeKey) -> Double? {
    if case .double(let v)? = a[key] { return v }
    return nil
}

/// Whether `value` is within `tolerance` of `expected`.
func near(_ value: Double?, _ expected: Double, _ tolerance: Double) -> Bool {
    value.map { abs($0 - expected) <= tolerance } ?? false
}

@Suite("ImageExtractor", .blocking)
struct ImageExtractorTests {
    static let sizes: [(String, Int64, Int64, ContentType)] = [
        ("images/testJPEG.jpg", 100, 75, .jpeg),
        ("images/testJPEG_EXIF.jpg", 100, 68, .jpeg),
        ("images/testJPEG_GEO.jpg", 100, 68, .jpeg),
        ("images/testJPEG_GEO_2.jpg", 100, 75, .jpeg),
        ("images/testPNG.png", 100, 75, .png),
        ("images/testGIF.gif", 100, 75, "com.compuserve.gif"),
        ("images/testBMP.bmp", 100, 75, "com.microsoft.bmp"),
        ("images/testTIFF.tif", 100, 75, "public.tiff"),
        ("images/testWEBP.webp", 150, 150, "org.webmproject.webp"),
        ("images/testWebp_Alpha_Lossy.webp", 400, 301, "org.webmproject.webp"),
        ("images/IMG_1034.heic", 4032, 3024, "public.heic"),
    ]

    @Test("pixel size of every real image, from its header", .realCorpus, arguments: sizes)
    func pixelSize(_ file: String, _ width: Int64, _ height: Int64, _ type: ContentType) throws {
        let r = try extractReal(file)
        #expect(r.extractor == "image")
        #expect(r.attributes.contentType == type)
        #expect(r.problems.isEmpty, "\(r.problems)")
        #expect(r.attributes.integer(.pixelWidth) == width)
        #expect(r.attributes.integer(.pixelHeight) == height)
    }

    @Test("EXIF camera data of a Canon JPEG, and its XMP keywords", .realCorpus)
    func canonEXIF() throws {
        let a = try extractReal("images/testJPEG_EXIF.jpg").attributes
        #expect(a.string(.acquisitionMake) == "Canon")
        #expect(a.string(.acquisitionModel) == "Canon EOS 40D")
        // DateTimeOriginal 2009:08:11 09:09:45 (not DateTime 2009:10:02), read as UTC.
        #expect(a.date(.contentCreationDate) == Date(timeIntervalSince1970: 1_249_981_785))
        #expect(near(doubleValue(a, .exposureTime), 1.0 / 1600, 1e-9))
        #expect(near(doubleValue(a, .fNumber), 5.6, 1e-9))
        #expect(near(doubleValue(a, .focalLength), 194, 1e-9))
        #expect(a.integer(.isoSpeed) == 400)
        #expect(a.strings(.keywords) == ["canon-55-250", "moscow-birds", "serbor"])
        #expect(a[.latitude] == nil)
    }

    @Test("GPS position of geotagged JPEGs, signed by their N/S/E/W references", .realCorpus)
    func gps() throws {
        let a = try extractReal("images/testJPEG_GEO.jpg").attributes
        #expect(near(doubleValue(a, .latitude), 12.5432, 0.00005))     // 12° 32' 35.556" N
        #expect(near(doubleValue(a, .longitude), -54.1234, 0.00005))   // 54° 7' 24.24" W
        let b = try extractReal("images/testJPEG_GEO_2.jpg").attributes
        #expect(near(doubleValue(b, .latitude), 51.5758, 0.00005))
        #expect(near(doubleValue(b, .longitude), -1.5679, 0.00005))
        #expect(near(doubleValue(b, .altitude), 295, 1e-9))
        #expect(b.string(.acquisitionMake) == "google")
        #expect(b.string(.acquisitionModel) == "Nexus S")
        #expect(b.integer(.orientation) == 1)
        #expect(b.date(.contentCreationDate) == Date(timeIntervalSince1970: 1_329_669_809))
        #expect(near(doubleValue(b, .exposureTime), 1.0 / 338, 1e-9))
    }

    @Test("HEIC: the primary item's size (not a tile's) and the EXIF item", .realCorpus)
    func heic() throws {
        let a = try extractReal("images/IMG_1034.heic").attributes
        #expect(a.string(.acquisitionMake) == "Apple")
        #expect(a.string(.acquisitionModel) == "iPhone 8")
        #expect(a.integer(.isoSpeed) == 80)
        #expect(near(doubleValue(a, .fNumber), 1.8, 1e-9))
        #expect(near(doubleValue(a, .focalLength), 3.99, 1e-9))
        #expect(near(doubleValue(a, .latitude), 23.1779, 0.00005))
        #expect(near(doubleValue(a, .longitude), 113.3943, 0.00005))
        #expect(near(doubleValue(a, .altitude), 42.81, 0.005))
        #expect(a.date(.contentCreationDate) == Date(timeIntervalSince1970: 1_517_843_504))
    }

    @Test("XMP keywords in a TIFF (tag 700)", .realCorpus)
    func tiffXMP() throws {
        let a = try extractReal("images/testTIFF.tif").attributes
        #expect(a.strings(.keywords) == ["cat", "garden"])
        #expect(a.integer(.orientation) == 1)
    }

    @Test("IPTC title, keywords, by-line and caption from a JPEG APP13 block; XMP wins where both exist", .realCorpus)
    func iptc() throws {
        let plain = try Data(contentsOf: URL(fileURLWithPath: RealCorpus.file("images/testJPEG.jpg").string))
        func dataset(_ tag: UInt8, _ value: String) -> [UInt8] {
            let v = Array(value.utf8)
            return [0x1C, 2, tag, UInt8(v.count >> 8), UInt8(v.count & 0xFF)] + v
        }
        let records = [0x1C, 1, 90, 0, 3, 0x1B, 0x25, 0x47] + dataset(5, "Mésange") + dataset(25, "birds")
            + dataset(25, "winter") + dataset(80, "Ada Lovelace") + dataset(120, "A tit on a branch")
        var irb = Array("Photoshop 3.0".utf8) + [0] + Array("8BIM".utf8) + [0x04, 0x04, 0, 0]
        irb += [UInt8(records.count >> 24), UInt8((records.count >> 16) & 0xFF), UInt8((records.count >> 8) & 0xFF), UInt8(records.count & 0xFF)]
        irb += records + (records.count % 2 == 1 ? [0] : [])
        let app13 = [0xFF, 0xED, UInt8((irb.count + 2) >> 8), UInt8((irb.count + 2) & 0xFF)] + irb
        let tree = try TemporaryTree()
        let iptcOnly = try tree.create("iptc.jpg", bytes: [0xFF, 0xD8] + app13 + Array(plain.dropFirst(2)))
        let a = try extract(iptcOnly).attributes
        #expect(a.title == "Mésange")
        #expect(a.strings(.keywords) == ["birds", "winter"])
        #expect(a.strings(.authors) == ["Ada Lovelace"])
        #expect(a.string(.contentDescription) == "A tit on a branch")
        #expect(a.integer(.pixelWidth) == 100)

        let packet = """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
            <rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/">
            <dc:title><rdf:Alt><rdf:li xml:lang="x-default">Blue tit</rdf:li></rdf:Alt></dc:title>
            <dc:subject><rdf:Bag><rdf:li>nature</rdf:li></rdf:Bag></dc:subject>
            </rdf:Description></rdf:RDF></x:xmpmeta>
            """
        let xmp = Array("http://ns.adobe.com/xap/1.0/".utf8) + [0] + Array(packet.utf8)
        let app1 = [0xFF, 0xE1, UInt8((xmp.count + 2) >> 8), UInt8((xmp.count + 2) & 0xFF)] + xmp
        let both = try tree.create("both.jpg", bytes: [0xFF, 0xD8] + app1 + app13 + Array(plain.dropFirst(2)))
        let b = try extract(both).attributes
        #expect(b.title == "Blue tit")
        #expect(b.strings(.keywords) == ["nature"])
        #expect(b.strings(.authors) == ["Ada Lovelace"])   // only IPTC has one
    }

    /// The TIFF stream of the EXIF block of a real JPEG (its APP1 after "Exif\0\0").
    static func exifTIFF(_ file: String) throws -> [UInt8] {
        let jpeg = Array(try Data(contentsOf: URL(fileURLWithPath: RealCorpus.file(file).string)))
        let start = try #require(jpeg.firstRange(of: Array("Exif".utf8) + [0, 0]))
        let length = Int(jpeg[start.lowerBound - 2]) << 8 | Int(jpeg[start.lowerBound - 1])
        return Array(jpeg[start.upperBound..<(start.lowerBound + length - 2)])
    }

    @Test("EXIF and XMP in a PNG (eXIf, iTXt) and in a WebP (EXIF chunk)", .realCorpus)
    func pngAndWebPMetadata() throws {
        let tiff = try Self.exifTIFF("images/testJPEG_GEO_2.jpg")
        func be(_ n: Int) -> [UInt8] { [UInt8(n >> 24), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)] }
        func le(_ n: Int) -> [UInt8] { [UInt8(n & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n >> 16 & 0xFF), UInt8(n >> 24)] }
        let png = Array(try Data(contentsOf: URL(fileURLWithPath: RealCorpus.file("images/testPNG.png").string)))
        let packet = Array(#"<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:description><rdf:Alt><rdf:li xml:lang="x-default">Oxford, from the air</rdf:li></rdf:Alt></dc:description></rdf:Description></rdf:RDF></x:xmpmeta>"#.utf8)
        let itxt = Array("XML:com.adobe.xmp".utf8) + [0, 0, 0, 0, 0] + packet
        let chunks = be(tiff.count) + Array("eXIf".utf8) + tiff + [0, 0, 0, 0] + be(itxt.count) + Array("iTXt".utf8) + itxt + [0, 0, 0, 0]
        let ihdrEnd = 8 + 8 + 13 + 4
        let tree = try TemporaryTree()
        let a = try extract(try tree.create("meta.png", bytes: Array(png[..<ihdrEnd]) + chunks + Array(png[ihdrEnd...]))).attributes
        #expect(a.integer(.pixelWidth) == 100)
        #expect(a.string(.acquisitionModel) == "Nexus S")
        #expect(near(doubleValue(a, .latitude), 51.5758, 0.00005))
        #expect(a.string(.contentDescription) == "Oxford, from the air")

        var webp = Array(try Data(contentsOf: URL(fileURLWithPath: RealCorpus.file("images/testWEBP.webp").string)))
        webp += Array("EXIF".utf8) + le(tiff.count) + tiff + (tiff.count % 2 == 1 ? [0] : [])
        webp.replaceSubrange(4..<8, with: le(webp.count - 8))
        let b = try extract(try tree.create("meta.webp", bytes: webp)).attributes
        #expect(b.integer(.pixelWidth) == 150)
        #expect(b.string(.acquisitionMake) == "google")
        #expect(near(doubleValue(b, .altitude), 295, 1e-9))
    }

    @Test("a WebP whose XMP chunk lies past the first MiB is read through the open file", .realCorpus)
    func farMetadata() throws {
        var webp = Array(try Data(contentsOf: URL(fileURLWithPath: RealCorpus.file("images/testWEBP.webp").string)))
        func le(_ n: Int) -> [UInt8] { [UInt8(n & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n >> 16 & 0xFF), UInt8(n >> 24)] }
        let packet = Array("""
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
            <rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:creator><rdf:Seq>
            <rdf:li>Ada</rdf:li><rdf:li>Grace</rdf:li></rdf:Seq></dc:creator></rdf:Description></rdf:RDF></x:xmpmeta>
            """.utf8)
        let junk = 3 << 20
        webp += Array("JUNK".utf8) + le(junk) + [UInt8](repeating: 0x20, count: junk)
        webp += Array("XMP ".utf8) + le(packet.count) + packet + (packet.count % 2 == 1 ? [0] : [])
        webp.replaceSubrange(4..<8, with: le(webp.count - 8))
        let tree = try TemporaryTree()
        let r = try extract(try tree.create("far.webp", bytes: webp))
        #expect(r.problems.isEmpty, "\(r.problems)")
        #expect(r.attributes.integer(.pixelWidth) == 150)
        #expect(r.attributes.strings(.authors) == ["Ada", "Grace"])
    }

    @Test("a JPEG with a corrupt EXIF block keeps its size and says what is wrong", .realCorpus)
    func corruptEXIF() throws {
        let plain = try Data(contentsOf: URL(fileURLWithPath: RealCorpus.file("images/testJPEG.jpg").string))
        // A TIFF header whose first IFD lies far outside the block, then noise.
        let exif = Array("Exif".utf8) + [0, 0, 0x49, 0x49, 0x2A, 0x00, 0x00, 0xFF, 0xFF, 0x7F] + (0..<40).map { UInt8(truncatingIfNeeded: $0 * 37 + 11) }
        let app1 = [0xFF, 0xE1, 0, UInt8(exif.count + 2)] + exif
        let tree = try TemporaryTree()
        let r = try extract(try tree.create("bad-exif.jpg", bytes: [0xFF, 0xD8] + app1 + Array(plain.dropFirst(2))))
        #expect(r.extractor == "image")
        #expect(r.attributes.integer(.pixelWidth) == 100)
        #expect(r.attributes.integer(.pixelHeight) == 75)
        #expect(r.attributes[.acquisitionMake] == nil)
        #expect(r.problems.contains { "\($0)".contains("EXIF block is damaged") }, "\(r.problems)")
    }

    @Test("a PNG header claiming 2^31 × 2^31 pixels is recorded as given, without allocating")
    func hugePNG() throws {
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        png += [0, 0, 0, 13] + Array("IHDR".utf8) + [0x80, 0, 0, 0, 0x80, 0, 0, 0, 8, 6, 0, 0, 0] + [0, 0, 0, 0]
        png += [0, 0, 0, 0] + Array("IEND".utf8) + [0xAE, 0x42, 0x60, 0x82]
        let tree = try TemporaryTree()
        let r = try extract(try tree.create("huge.png", bytes: png))
        #expect(r.extractor == "image")
        #expect(r.attributes.integer(.pixelWidth) == 1 << 31)
        #expect(r.attributes.integer(.pixelHeight) == 1 << 31)
        #expect(r.problems.isEmpty, "\(r.problems)")
    }

    @Test("the first half of each real image: a clear problem or partial attributes, never a crash", .realCorpus,
          arguments: sizes.map(\.0))
    func truncated(_ file: String) throws {
        let whole = try Data(contentsOf: URL(fileURLWithPath: RealCorpus.file(file).string))
        let tree = try TemporaryTree()
        let name = String(file.split(separator: "/").last!)
        let r = try extract(try tree.create(name, bytes: Array(whole.prefix(whole.count / 2))))
        #expect(r.extractor == "image")
        let flagged = r.problems.contains { "\($0)".hasPrefix("image: ") }
        #expect(flagged || r.attributes.integer(.pixelWidth) != nil, "\(r.problems)")
    }

    @Test("mutated and cut copies of every real image never trap the parsers", .realCorpus, arguments: sizes.map(\.0))
    func mutations(_ file: String) throws {
        let original = Array(try Data(contentsOf: URL(fileURLWithPath: RealCorpus.file(file).string)).prefix(256 * 1024))
        var rng = SplitMix64(seed: UInt64(original.count))
        for round in 0..<150 {
            var bytes = original
            for _ in 0..<(1 + round % 8) {
                let i = Int(rng.next() % UInt64(bytes.count))
                bytes[i] = round % 3 == 0 ? 0xFF : UInt8(truncatingIfNeeded: rng.next())
            }
            if round % 5 == 0 { bytes = Array(bytes.prefix(Int(rng.next() % UInt64(bytes.count)))) }
            let header = ImageHeader(MediaSource(head: bytes, size: bytes.count, file: nil))
            var meta = PhotoMetadata()
            if let exif = header.exif { meta.readEXIF(exif) }
            if let block = header.photoshop { meta.readPhotoshop(block) }
            if let iptc = header.iptc { meta.readIPTC(iptc) }
            if let xmp = header.xmp { meta.readXMP(xmp) }
            #expect((header.width ?? 0) >= 0 && (header.height ?? 0) >= 0)
        }
    }

    @Test("header parsers stop at the end of tiny and hostile inputs")
    func hostileHeaders() throws {
        let inputs: [[UInt8]] = [
            [0xFF, 0xD8, 0xFF],                                     // JPEG: a lone marker byte
            [0xFF, 0xD8, 0xFF, 0xE1, 0x00, 0x01],                   // JPEG: segment length 1
            [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0xFF, 0xFF, 0xFF, 0xFF] + Array("IHDR".utf8),
            Array("RIFF".utf8) + [0xFF, 0xFF, 0xFF, 0xFF] + Array("WEBPVP8X".utf8) + [0xFF, 0xFF, 0xFF, 0xFF],
            [0x4D, 0x4D, 0x00, 0x2A, 0xFF, 0xFF, 0xFF, 0xF0],       // TIFF: IFD past the end
            [0, 0, 0, 1] + Array("ftyp".utf8) + [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF],   // 64-bit box size
            [0, 0, 0, 16] + Array("ftypheic".utf8) + [0, 0, 0, 0] + [0, 0, 0, 0] + Array("meta".utf8),  // box size 0
        ]
        for bytes in inputs {
            let header = ImageHeader(MediaSource(head: bytes, size: bytes.count, file: nil))
            #expect(header.format != nil)
            #expect(header.width == nil || header.truncated != nil || header.format == "webp")
        }
    }
}
