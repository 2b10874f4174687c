/// libmagic answers that rest on no signature, checked against the file's structure before they
/// are believed.
///
/// A key design decision: a few of libmagic's rules recognise a format by a handful of small
/// numbers, and files of control characters (`\x01\x1a\x11…`) satisfy them. Surveyed on 300
/// files of random bytes 0x01–0x1F (file 5.44): 295 were data, 3 "ARC archive" and 2 "Award BIOS
/// Logo"; files of `\x01` alone are "Targa image". Each such answer is confirmed here; when it is
/// not, `MagicDatabase` answers as libmagic would without the rule (text for a text charset,
/// else `application/octet-stream`), and a telling name still types the file.
///
/// | libmagic's type | believed when |
/// |---|---|
/// | `image/x-tga` | `TGAHeader` finds a consistent header and enough bytes for its pixels |
/// | `application/x-arc` | the first entry has a known method, a printable NUL-terminated name and fits in the file |
/// | `image/x-award-bioslogo` | never: the format has no structure to check, and no name to type it by |
///
/// For example, `SignaturelessMagic.confirms("application/x-arc", [0x1A, 0x08, 0x0D, …], fileSize: 200)`
/// is false: byte 2 starts the entry's name, and 0x0D is no name character.
enum SignaturelessMagic {
    /// Whether libmagic's `mimeType` for `bytes` (the start of a file of `fileSize` bytes) holds;
    /// true for every type with a signature of its own.
    static func confirms(_ mimeType: String, _ bytes: [UInt8], fileSize: Int64) -> Bool {
        switch mimeType {
        case TGAHeader.mimeType: TGAHeader(bytes, fileSize: fileSize) != nil
        case "application/x-arc": isARCEntry(bytes, fileSize: fileSize)
        case "image/x-award-bioslogo": false
        default: true
        }
    }

    /// An ARC archive's first entry header: 0x1A, a compression method (1–9 in SEA's ARC, up
    /// to 0x13 in later variants), a file name of 1–12 printable characters ended by NUL within
    /// 13 bytes, and a compressed size that fits in the file after the 29-byte header.
    static func isARCEntry(_ bytes: [UInt8], fileSize: Int64) -> Bool {
        guard bytes.count >= 29, bytes[0] == 0x1A, (1...0x13).contains(bytes[1]) else { return false }
        let name = bytes[2..<15]
        guard let end = name.firstIndex(of: 0), end > 2,
              name[..<end].allSatisfy({ (0x21...0x7E).contains($0) }) else { return false }
        let size = Int64(bytes[15]) | Int64(bytes[16]) << 8 | Int64(bytes[17]) << 16 | Int64(bytes[18]) << 24
        return size <= fileSize - 29
    }
}
