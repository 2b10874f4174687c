import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Files of the formats the corpus covers, written byte by byte by the tests, so that every
/// extractor has tests that run on a clean clone (no corpus, no external tool). The zipped
/// formats (OOXML, OpenDocument) are in ExtractionTests, beside the zip writer.
public enum GeneratedFixture {
    // MARK: PDF

    /// A one-page PDF 1.4 with an information dictionary and one line of text per entry of
    /// `lines` in Helvetica (a standard font: nothing embedded); the cross-reference table is
    /// computed from the objects' offsets.
    public static func pdf(title: String, author: String, subject: String, keywords: String, created: String,
                    lines: [String]) -> [UInt8] {
        func escaped(_ s: String) -> String {
            s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "(", with: "\\(").replacingOccurrences(of: ")", with: "\\)")
        }
        var content = "BT /F1 12 Tf 72 720 Td 14 TL\n"
        for line in lines { content += "(\(escaped(line))) Tj T*\n" }
        content += "ET\n"
        let objects = [
            "<< /Type /Catalog /Pages 2 0 R >>",
            "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
            "<< /Length \(content.utf8.count) >>\nstream\n\(content)endstream",
            "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
            "<< /Title (\(escaped(title))) /Author (\(escaped(author))) /Subject (\(escaped(subject))) /Keywords (\(escaped(keywords)))"
                + " /Creator (FSIndex tests) /Producer (GeneratedFixture.pdf) /CreationDate (\(created)) /ModDate (\(created)) >>",
        ]
        var out = Array("%PDF-1.4\n%\u{E2}\u{E3}\u{CF}\u{D3}\n".unicodeScalars.map { UInt8($0.value) })
        var offsets: [Int] = []
        for (i, body) in objects.enumerated() {
            offsets.append(out.count)
            out += Array("\(i + 1) 0 obj\n\(body)\nendobj\n".utf8)
        }
        let xref = out.count
        var table = "xref\n0 \(objects.count + 1)\n0000000000 65535 f \n"
        for o in offsets { table += String(repeating: "0", count: 10 - String(o).count) + "\(o) 00000 n \n" }
        table += "trailer\n<< /Size \(objects.count + 1) /Root 1 0 R /Info 6 0 R >>\nstartxref\n\(xref)\n%%EOF\n"
        return out + Array(table.utf8)
    }

    // MARK: JPEG with EXIF and GPS

    /// One TIFF field: tag, type (2 ASCII, 3 SHORT, 4 LONG, 5 RATIONAL), count and value bytes
    /// (big-endian); a `pointer` field gets the offset of the IFD of that index.
    public struct Field {
        public var tag: UInt16, type: UInt16, count: UInt32, value: [UInt8]
        public var pointer: Int? = nil

        public init(tag: UInt16, type: UInt16, count: UInt32, value: [UInt8], pointer: Int? = nil) {
            self.tag = tag
            self.type = type
            self.count = count
            self.value = value
            self.pointer = pointer
        }

        public static func ascii(_ tag: UInt16, _ s: String) -> Field {
            Field(tag: tag, type: 2, count: UInt32(s.utf8.count + 1), value: Array(s.utf8) + [0])
        }
        public static func short(_ tag: UInt16, _ v: UInt16) -> Field { Field(tag: tag, type: 3, count: 1, value: be16(v) + [0, 0]) }
        public static func byte(_ tag: UInt16, _ v: UInt8) -> Field { Field(tag: tag, type: 1, count: 1, value: [v, 0, 0, 0]) }
        public static func rational(_ tag: UInt16, _ parts: [(UInt32, UInt32)]) -> Field {
            Field(tag: tag, type: 5, count: UInt32(parts.count), value: parts.flatMap { be32($0.0) + be32($0.1) })
        }
        public static func ifd(_ tag: UInt16, _ index: Int) -> Field { Field(tag: tag, type: 4, count: 1, value: [0, 0, 0, 0], pointer: index) }
    }

    public static func be16(_ v: UInt16) -> [UInt8] { [UInt8(v >> 8), UInt8(v & 0xFF)] }
    public static func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
    public static func le32(_ v: UInt32) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24)] }

    /// A big-endian TIFF stream of the given IFDs, one after the other, each followed by the
    /// values longer than four bytes.
    public static func tiff(_ ifds: [[Field]]) -> [UInt8] {
        func size(_ fields: [Field]) -> Int {
            2 + 12 * fields.count + 4 + fields.reduce(0) { $0 + ($1.value.count > 4 ? ($1.value.count + 1) & ~1 : 0) }
        }
        var starts: [Int] = []
        var at = 8
        for f in ifds { starts.append(at); at += size(f) }
        var out: [UInt8] = Array("MM".utf8) + [0, 42] + be32(8)
        for (i, fields) in ifds.enumerated() {
            let sorted = fields.sorted { $0.tag < $1.tag }
            var data: [UInt8] = []
            let dataStart = starts[i] + 2 + 12 * sorted.count + 4
            out += be16(UInt16(sorted.count))
            for f in sorted {
                out += be16(f.tag) + be16(f.type) + be32(f.count)
                if let p = f.pointer {
                    out += be32(UInt32(starts[p]))
                } else if f.value.count <= 4 {
                    out += f.value + [UInt8](repeating: 0, count: 4 - f.value.count)
                } else {
                    out += be32(UInt32(dataStart + data.count))
                    data += f.value
                    if data.count % 2 == 1 { data.append(0) }
                }
            }
            out += be32(0)   // no next IFD (the sub-IFDs are reached through their pointers)
            out += data
        }
        return out
    }

    /// A baseline JPEG header of `width` × `height` (one grey component) whose APP1 holds `tiff`
    /// as its EXIF block; the scan is a few bytes, enough for header parsers.
    public static func jpeg(width: UInt16, height: UInt16, exif tiff: [UInt8]) -> [UInt8] {
        let app1 = Array("Exif".utf8) + [0, 0] + tiff
        var out: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE1] + be16(UInt16(app1.count + 2)) + app1
        out += [0xFF, 0xDB, 0x00, 0x43, 0x00] + [UInt8](repeating: 1, count: 64)             // DQT
        out += [0xFF, 0xC0, 0x00, 0x0B, 0x08] + be16(height) + be16(width) + [0x01, 0x01, 0x11, 0x00]   // SOF0
        out += [0xFF, 0xC4, 0x00, 0x14, 0x00, 0x01] + [UInt8](repeating: 0, count: 15) + [0x00]        // DHT: one 1-bit code
        out += [0xFF, 0xDA, 0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x3F, 0x00]                            // SOS
        out += [0x00, 0x00, 0xFF, 0xD9]
        return out
    }

    // MARK: Audio

    /// An ID3v2.3 tag of text frames (ISO-8859-1).
    public static func id3v23(_ frames: [(String, String)]) -> [UInt8] {
        let body = frames.flatMap { id, text -> [UInt8] in
            let payload = [0] + text.unicodeScalars.map { UInt8($0.value) }
            return Array(id.utf8) + be32(UInt32(payload.count)) + [0, 0] + payload
        }
        let n = body.count
        return Array("ID3".utf8) + [3, 0, 0] + [UInt8(n >> 21 & 0x7F), UInt8(n >> 14 & 0x7F), UInt8(n >> 7 & 0x7F), UInt8(n & 0x7F)] + body
    }

    /// `count` silent MPEG-1 Layer III frames, 128 kbit/s, 44.1 kHz, mono (417 bytes each).
    public static func mpegFrames(_ count: Int) -> [UInt8] {
        let frame: [UInt8] = [0xFF, 0xFB, 0x90, 0xC4] + [UInt8](repeating: 0, count: 413)
        return Array([[UInt8]](repeating: frame, count: count).joined())
    }

    /// A Vorbis comment block (no framing bit): vendor, then NAME=value fields.
    public static func vorbisComment(_ fields: [String]) -> [UInt8] {
        let vendor = "FSIndex tests"
        return le32(UInt32(vendor.utf8.count)) + Array(vendor.utf8) + le32(UInt32(fields.count))
            + fields.flatMap { le32(UInt32($0.utf8.count)) + Array($0.utf8) }
    }

    /// A FLAC stream: STREAMINFO (44.1 kHz, stereo, 16 bits, `samples` samples) and a
    /// VORBIS_COMMENT block, then a few bytes standing for the frames.
    public static func flac(samples: UInt64, comments: [String]) -> [UInt8] {
        let packed: UInt64 = 44100 << 44 | 1 << 41 | 15 << 36 | samples
        let info: [UInt8] = [0x10, 0x00, 0x10, 0x00, 0, 0, 0, 0, 0, 0] + (0..<8).map { UInt8(packed >> (56 - 8 * UInt64($0)) & 0xFF) }
            + [UInt8](repeating: 0, count: 16)
        let comment = vorbisComment(comments)
        return Array("fLaC".utf8) + [0x00, 0, 0, UInt8(info.count)] + info
            + [0x84, UInt8(comment.count >> 16), UInt8(comment.count >> 8 & 0xFF), UInt8(comment.count & 0xFF)] + comment
            + [0xFF, 0xF8, 0x69, 0x08] + [UInt8](repeating: 0, count: 60)
    }

    /// The Ogg CRC-32 (polynomial 0x04C11DB7, not reflected, initial value 0).
    public static func oggCRC(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0
        for b in bytes {
            crc ^= UInt32(b) << 24
            for _ in 0..<8 { crc = crc & 0x8000_0000 != 0 ? (crc << 1) ^ 0x04C1_1DB7 : crc << 1 }
        }
        return crc
    }

    /// One Ogg page holding whole packets.
    public static func oggPage(_ packets: [[UInt8]], type: UInt8, granule: UInt64, serial: UInt32, sequence: UInt32) -> [UInt8] {
        var lacing: [UInt8] = []
        for p in packets {
            lacing += [UInt8](repeating: 255, count: p.count / 255) + [UInt8(p.count % 255)]
        }
        let granuleBytes: [UInt8] = (0..<8).map { (i: UInt64) -> UInt8 in UInt8(granule >> (8 * i) & 0xFF) }
        var page: [UInt8] = Array("OggS".utf8)
        page += [0, type]
        page += granuleBytes
        page += le32(serial)
        page += le32(sequence)
        page += [0, 0, 0, 0]   // the CRC, computed over the page with these zero
        page.append(UInt8(lacing.count))
        page += lacing
        for p in packets { page += p }
        let crc = le32(oggCRC(page))
        page.replaceSubrange(22..<26, with: crc)
        return page
    }

    /// An Ogg Vorbis stream (44.1 kHz, stereo): identification, comment and setup headers, and
    /// one last page whose granule position is `samples`.
    public static func oggVorbis(samples: UInt64, comments: [String]) -> [UInt8] {
        let magic = Array("vorbis".utf8)
        let identification = [1] + magic + le32(0) + [2] + le32(44100) + le32(0) + le32(128_000) + le32(0) + [0xB8, 1]
        let comment = [3] + magic + vorbisComment(comments) + [1]
        let setup = [5] + magic + [UInt8](repeating: 0, count: 32)
        let serial: UInt32 = 0x5EED
        return oggPage([identification], type: 2, granule: 0, serial: serial, sequence: 0)
            + oggPage([comment, setup], type: 0, granule: 0, serial: serial, sequence: 1)
            + oggPage([[0x00, 0x11, 0x22, 0x33]], type: 4, granule: samples, serial: serial, sequence: 2)
    }

    // MARK: Text in legacy encodings

    /// `text` converted from UTF-8 to `charset` with iconv.
    public static func encode(_ text: String, as charset: String) -> [UInt8]? {
        let cd = iconv_open(charset, "UTF-8")
        guard let cd, cd != iconv_t(bitPattern: -1) else { return nil }
        defer { iconv_close(cd) }
        var input = Array(text.utf8).map { CChar(bitPattern: $0) }
        var output = [CChar](repeating: 0, count: input.count * 4 + 16)
        let inCount = input.count, outCapacity = output.count
        let written: Int? = input.withUnsafeMutableBufferPointer { inBuf in
            output.withUnsafeMutableBufferPointer { outBuf in
                var inPtr: UnsafeMutablePointer<CChar>? = inBuf.baseAddress
                var outPtr: UnsafeMutablePointer<CChar>? = outBuf.baseAddress
                var inLeft = inCount, outLeft = outCapacity
                guard iconv(cd, &inPtr, &inLeft, &outPtr, &outLeft) != -1 && inLeft == 0 else { return nil }
                return outCapacity - outLeft
            }
        }
        guard let written else { return nil }
        return output.prefix(written).map { UInt8(bitPattern: $0) }
    }
}
