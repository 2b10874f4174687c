/// Real, decodable pictures written byte by byte (the header-only stand-ins of
/// `GeneratedFixture` carry metadata but no image a decoder accepts): for the thumbnail tests.
package enum ImageFixture {
    /// An 8-bit RGB PNG of `width` × `height`, a gradient, compressed with stored deflate
    /// blocks (valid zlib, no compression needed).
    package static func png(width: Int, height: Int) -> [UInt8] {
        var raw: [UInt8] = []
        raw.reserveCapacity((width * 3 + 1) * height)
        for y in 0..<height {
            raw.append(0)
            for x in 0..<width { raw += [UInt8(x * 255 / max(1, width - 1)), UInt8(y * 255 / max(1, height - 1)), 0x80] }
        }
        var zlib: [UInt8] = [0x78, 0x01]
        var i = 0
        repeat {
            let n = min(65535, raw.count - i)
            let last: UInt8 = i + n == raw.count ? 1 : 0
            zlib += [last, UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8((~n >> 8) & 0xFF)] + raw[i..<i + n]
            i += n
        } while i < raw.count
        var a: UInt32 = 1, b: UInt32 = 0
        for x in raw { a = (a + UInt32(x)) % 65521; b = (b + a) % 65521 }
        zlib += GeneratedFixture.be32(b << 16 | a)
        func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
            let typed = Array(type.utf8) + data
            return GeneratedFixture.be32(UInt32(data.count)) + typed + GeneratedFixture.be32(GeneratedFixture.crc32(typed))
        }
        var out: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        out += chunk("IHDR", GeneratedFixture.be32(UInt32(width)) + GeneratedFixture.be32(UInt32(height)) + [8, 2, 0, 0, 0])
        out += chunk("IDAT", zlib)
        out += chunk("IEND", [])
        return out
    }

    /// A baseline JPEG of `width` × `height`, one grey component, every 8×8 block mid-grey:
    /// Huffman tables of one 1-bit code each (DC difference 0, end of block), so each block is
    /// two 0 bits. Small and decodable by libjpeg.
    package static func jpeg(width: Int, height: Int) -> [UInt8] {
        var out: [UInt8] = [0xFF, 0xD8]
        out += [0xFF, 0xDB, 0x00, 0x43, 0x00] + [UInt8](repeating: 1, count: 64)                       // DQT 0
        out += [0xFF, 0xC0, 0x00, 0x0B, 0x08] + GeneratedFixture.be16(UInt16(height)) + GeneratedFixture.be16(UInt16(width))
            + [0x01, 0x01, 0x11, 0x00]                                                                    // SOF0: grey
        let oneCode: [UInt8] = [0x01] + [UInt8](repeating: 0, count: 15) + [0x00]
        out += [0xFF, 0xC4, 0x00, 0x14, 0x00] + oneCode                                                  // DHT DC 0
        out += [0xFF, 0xC4, 0x00, 0x14, 0x10] + oneCode                                                  // DHT AC 0
        out += [0xFF, 0xDA, 0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x3F, 0x00]                               // SOS
        let blocks = ((width + 7) / 8) * ((height + 7) / 8)
        let bits = 2 * blocks
        out += [UInt8](repeating: 0, count: bits / 8)
        if bits % 8 != 0 { out.append(UInt8(0xFF >> (bits % 8))) }   // padded with 1 bits
        out += [0xFF, 0xD9]
        return out
    }
}
