/// The 18-byte header of a Truevision TGA image, checked field by field.
///
/// A key design decision: TGA has no signature. libmagic's rule for it only looks at a few small
/// numbers (a colour-map type of 0 or 1, an image type of 1–3 or 9–11), so a file of control
/// characters (`\x01\x01\x01…`) or many other binary files "are" TGA images to libmagic, and a
/// `notes.txt` full of such bytes was typed `image/x-tga`. `MagicDatabase.identify(_:fileSize:)`
/// (through `SignaturelessMagic`) believes libmagic's TGA answer only when this header is a real one: every field in its range
/// and the file long enough for the pixels the header announces. Otherwise the file is what its
/// bytes are without the TGA rule: text when libmagic finds a text charset, else
/// `application/octet-stream` (and then the name's type, as for any generic answer).
///
/// For example, 18 bytes `00 00 02 00…00 02 00 02 00 18 00` (true colour, 2 × 2, 24 bits)
/// followed by 12 bytes of pixels is a TGA image; the same header with 3 bytes of pixels is not.
///
/// The layout (little-endian), from the Truevision TGA File Format Specification 2.0:
///
/// | offset | field |
/// |---|---|
/// | 0 | length of the image ID that follows the header |
/// | 1 | colour-map type: 0 none, 1 present |
/// | 2 | image type: 1 colour-mapped, 2 true colour, 3 grey; 9, 10, 11 the same run-length encoded |
/// | 3–7 | colour map: first index (16 bits), entries (16 bits), bits per entry (15, 16, 24, 32) |
/// | 8–15 | x and y origin, width, height (16 bits each) |
/// | 16 | bits per pixel |
/// | 17 | descriptor: alpha bits (0–3), origin (4–5), bits 6–7 zero |
///
/// The TGA 2.0 footer (`TRUEVISION-XFILE.`) is at the end of the file, which type detection
/// does not read; TGA 1.0 files have none, so the header alone decides.
struct TGAHeader: Equatable {
    var idLength: Int
    var colorMapType: UInt8
    var imageType: UInt8
    var colorMapLength: Int
    var colorMapEntryBits: Int
    var width: Int
    var height: Int
    var pixelBits: Int
    var descriptor: UInt8

    /// The MIME type libmagic gives TGA images (canonical in the shared MIME database).
    static let mimeType = "image/x-tga"

    /// Parses and checks the header at the start of `bytes`, the first bytes of a file of
    /// `fileSize` bytes. Nil when the bytes are not a plausible TGA image.
    init?(_ bytes: [UInt8], fileSize: Int64) {
        guard bytes.count >= 18 else { return nil }
        func u16(_ i: Int) -> Int { Int(bytes[i]) | Int(bytes[i + 1]) << 8 }
        idLength = Int(bytes[0])
        colorMapType = bytes[1]
        imageType = bytes[2]
        colorMapLength = u16(5)
        colorMapEntryBits = Int(bytes[7])
        width = u16(12)
        height = u16(14)
        pixelBits = Int(bytes[16])
        descriptor = bytes[17]
        guard isConsistent, Int64(minimumFileSize) <= fileSize else { return nil }
    }

    /// Whether the fields agree with each other and with the specification.
    var isConsistent: Bool {
        let mapped: Set<UInt8> = [1, 9], trueColor: Set<UInt8> = [2, 10], grey: Set<UInt8> = [3, 11]
        guard mapped.contains(imageType) || trueColor.contains(imageType) || grey.contains(imageType) else { return false }
        switch colorMapType {
        case 0:
            // No colour map: a colour-mapped image needs one, and its fields must be empty.
            guard !mapped.contains(imageType), colorMapLength == 0, [0, 15, 16, 24, 32].contains(colorMapEntryBits) else { return false }
        case 1:
            guard colorMapLength > 0, [15, 16, 24, 32].contains(colorMapEntryBits) else { return false }
        default:
            return false
        }
        let depths: Set<Int> = mapped.contains(imageType) ? [8, 16] : trueColor.contains(imageType) ? [15, 16, 24, 32] : [8, 16]
        return width > 0 && height > 0 && depths.contains(pixelBits)
            && descriptor & 0xC0 == 0 && Int(descriptor & 0x0F) <= pixelBits
    }

    /// The fewest bytes a file with this header can have: header, image ID, colour map and the
    /// pixels (uncompressed), or for run-length data one run packet per 128 pixels at best.
    var minimumFileSize: Int {
        let pixelBytes = (pixelBits + 7) / 8
        let start = 18 + idLength + colorMapLength * ((colorMapEntryBits + 7) / 8)
        let pixels = width * height
        let data = imageType >= 9 ? (pixels + 127) / 128 * (1 + pixelBytes) : pixels * pixelBytes
        return start + data
    }
}
