import Attributes
import ExtractionModel

/// Photos and other raster images: JPEG, PNG, GIF, TIFF, WebP, HEIC/HEIF and BMP.
///
/// No pixel is decoded. `ImageHeader` reads the pixel size from the container (JPEG SOFn, PNG
/// IHDR, GIF screen, BMP info header, WebP VP8/VP8L/VP8X, TIFF IFD0, HEIF `ispe` of the primary
/// item) and finds the metadata blocks; `PhotoMetadata` reads them:
/// - EXIF (libexif), from JPEG APP1, PNG `eXIf`, WebP `EXIF`, the HEIF `Exif` item or the TIFF
///   itself: `orientation`, `acquisitionMake`, `acquisitionModel`, `contentCreationDate`
///   (DateTimeOriginal, else DateTime; UTC unless an EXIF offset tag says otherwise),
///   `exposureTime` (s), `fNumber`, `focalLength` (mm), `isoSpeed`, `latitude`/`longitude`
///   (signed degrees), `altitude` (m, negative below sea level), and the pixel size when the
///   header gave none.
/// - XMP (exempi), from JPEG APP1, PNG `iTXt`, WebP `XMP `, TIFF tag 700, else any
///   `<x:xmpmeta>` packet in the first bytes: `title`, `authors`, `keywords`,
///   `contentDescription` (Dublin Core).
/// - IPTC (libiptcdata), from the JPEG APP13 Photoshop block or TIFF tag 33723: the same four,
///   used where XMP has none.
///
/// For example, a Canon JPEG gives `pixelWidth` 100, `acquisitionModel` "Canon EOS 40D",
/// `exposureTime` 0.000625 and `keywords` ["canon-55-250", ...].
///
/// A file whose structure runs past its end gets what was read and a `truncated: ...` problem.
/// Cost: a few small reads near the start of the file (plus the whole of a TIFF up to 16 MiB,
/// since libexif reads its IFDs wherever they are).
package struct ImageExtractor: Extractor {
    package var name: String { "image" }

    package init() {}

    static let types: [ContentType] = [
        .jpeg, .png, "com.compuserve.gif", "public.tiff", "com.microsoft.bmp", "org.webmproject.webp", "public.heic",
    ]

    package func accepts(_ input: ExtractionInput) -> Bool {
        Self.types.contains { input.conforms(to: $0) }
    }

    package func extract(_ input: ExtractionInput, into attributes: inout AttributeSet) throws(ExtractionError) {
        let size = Int(input.file?.size ?? Int64(input.bytes.count))
        let header = ImageHeader(MediaSource(head: input.bytes, size: size, file: input.file))
        guard header.format != nil else {
            throw .malformed(extractor: name, reason: "not a JPEG, PNG, GIF, TIFF, WebP, HEIF or BMP file (unknown header)")
        }
        var meta = PhotoMetadata()
        if let exif = header.exif { meta.readEXIF(exif) }
        if let block = header.photoshop { meta.readPhotoshop(block) }
        if let iptc = header.iptc { meta.readIPTC(iptc) }
        if let xmp = header.xmp { meta.readXMP(xmp) }

        if let w = header.width ?? meta.pixelWidth, let h = header.height ?? meta.pixelHeight {
            attributes[.pixelWidth] = .integer(Int64(w))
            attributes[.pixelHeight] = .integer(Int64(h))
        }
        if let v = meta.orientation { attributes[.orientation] = .integer(Int64(v)) }
        if let v = meta.make { attributes[.acquisitionMake] = .string(v) }
        if let v = meta.model { attributes[.acquisitionModel] = .string(v) }
        if let v = meta.created { attributes[.contentCreationDate] = .date(v) }
        if let v = meta.exposureTime { attributes[.exposureTime] = .double(v) }
        if let v = meta.fNumber { attributes[.fNumber] = .double(v) }
        if let v = meta.focalLength { attributes[.focalLength] = .double(v) }
        if let v = meta.isoSpeed { attributes[.isoSpeed] = .integer(Int64(v)) }
        if let v = meta.latitude { attributes[.latitude] = .double(v) }
        if let v = meta.longitude { attributes[.longitude] = .double(v) }
        if let v = meta.altitude { attributes[.altitude] = .double(v) }
        if let v = meta.title { attributes[.title] = .string(v) }
        if !meta.authors.isEmpty { attributes[.authors] = .strings(meta.authors) }
        if !meta.keywords.isEmpty { attributes[.keywords] = .strings(meta.keywords) }
        if let v = meta.description { attributes[.contentDescription] = .string(v) }

        if let reason = header.truncated {
            throw .malformed(extractor: name, reason: "truncated: \(reason)")
        }
        if header.exif != nil, meta.exifDamaged, meta.exifEntries == 0 {
            throw .malformed(extractor: name, reason: "the EXIF block is damaged; camera data could not be read")
        }
        if header.width == nil, meta.pixelWidth == nil {
            throw .malformed(extractor: name, reason: "no pixel size found in the \(header.format ?? "image") header")
        }
    }
}
