/// What the thumbnail cache needs of a PNG file: its size and its text chunks, read without
/// decoding a pixel; and the smallest PNG there is, for failure entries.
///
/// A key design decision: a thumbnail made by a worker is checked here before it is written to
/// the shared cache (the parent trusts no worker): the signature, every chunk's CRC, an
/// `IHDR` first and an `IEND` last, a size within the cache size's square, and the
/// `Thumb::URI` and `Thumb::MTime` it was asked to carry. Pixels are not decoded: that needs
/// a parser, which only workers run.
///
/// Text is read from `tEXt` chunks and from uncompressed `iTXt` ones (a compressed `zTXt`
/// or `iTXt` is skipped: no writer of the spec's keys compresses them).
package struct PNGFile: Sendable, Hashable {
    package var width: Int
    package var height: Int
    /// The text chunks, keyword to text (Latin-1 text as its Unicode characters).
    package var text: [String: String]

    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// Reads `bytes`; nil when they are not a well-formed PNG.
    package init?(_ bytes: [UInt8]) {
        guard bytes.count >= 8 + 25 + 12, Array(bytes[0..<8]) == Self.signature else { return nil }
        var i = 8
        var width = 0, height = 0
        var text: [String: String] = [:]
        var first = true
        while true {
            guard bytes.count - i >= 12 else { return nil }
            let length = Int(Self.u32(bytes, i))
            guard length <= bytes.count - i - 12 else { return nil }
            let type = Array(bytes[i + 4..<i + 8])
            let data = Array(bytes[i + 8..<i + 8 + length])
            guard Self.u32(bytes, i + 8 + length) == CRC32.checksum(type + data) else { return nil }
            i += 12 + length
            if first {
                guard type == Array("IHDR".utf8), length == 13 else { return nil }
                width = Int(Self.u32(data, 0)); height = Int(Self.u32(data, 4))
                guard width > 0, height > 0 else { return nil }
                first = false
            } else if type == Array("IEND".utf8) {
                break
            } else if type == Array("tEXt".utf8), let nul = data.firstIndex(of: 0) {
                text[Self.latin1(data[..<nul])] = Self.latin1(data[(nul + 1)...])
            } else if type == Array("iTXt".utf8), let nul = data.firstIndex(of: 0), data.count > nul + 2, data[nul + 1] == 0 {
                // keyword NUL, compression flag 0, method, language NUL, translated keyword NUL, text
                var rest = data[(nul + 3)...]
                guard let l = rest.firstIndex(of: 0) else { continue }
                rest = rest[(l + 1)...]
                guard let t = rest.firstIndex(of: 0) else { continue }
                text[Self.latin1(data[..<nul])] = String(decoding: rest[(t + 1)...], as: UTF8.self)
            }
        }
        self.width = width
        self.height = height
        self.text = text
    }

    /// A 1×1 transparent PNG carrying `text` in `tEXt` chunks (the keys and texts must be
    /// Latin-1; URIs and numbers are ASCII): what a failure entry of the cache is.
    package static func placeholder(text: [(String, String)]) -> [UInt8] {
        var out = signature
        func chunk(_ type: String, _ data: [UInt8]) {
            let typed = Array(type.utf8) + data
            out += be32(UInt32(data.count)) + typed + be32(CRC32.checksum(typed))
        }
        chunk("IHDR", be32(1) + be32(1) + [8, 6, 0, 0, 0])   // 8-bit RGBA
        for (key, value) in text {
            chunk("tEXt", Array(key.unicodeScalars.map { UInt8(truncatingIfNeeded: $0.value) })
                  + [0] + Array(value.unicodeScalars.map { UInt8(truncatingIfNeeded: $0.value) }))
        }
        // One row: filter 0, then 4 zero bytes; zlib with one stored deflate block.
        let row: [UInt8] = [0, 0, 0, 0, 0]
        var zlib: [UInt8] = [0x78, 0x01, 0x01, UInt8(row.count), 0, ~UInt8(row.count), 0xFF] + row
        zlib += be32(Adler32.checksum(row))
        chunk("IDAT", zlib)
        chunk("IEND", [])
        return out
    }

    static func u32(_ b: [UInt8], _ i: Int) -> UInt32 {
        UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3])
    }

    static func be32(_ v: UInt32) -> [UInt8] {
        [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]
    }

    static func latin1(_ bytes: ArraySlice<UInt8>) -> String {
        String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
    }
}

/// PNG's chunk checksum (ISO 3309 CRC-32, as zlib's `crc32`).
enum CRC32 {
    static let table: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    static func checksum(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for b in bytes { c = table[Int((c ^ UInt32(b)) & 0xFF)] ^ (c >> 8) }
        return c ^ 0xFFFF_FFFF
    }
}

/// zlib's checksum of the uncompressed data.
enum Adler32 {
    static func checksum(_ bytes: [UInt8]) -> UInt32 {
        var a: UInt32 = 1, b: UInt32 = 0
        for x in bytes { a = (a + UInt32(x)) % 65521; b = (b + a) % 65521 }
        return b << 16 | a
    }
}
