import Foundation
import Glibc

/// Files of the formats the corpus covers, written byte by byte by the tests, so that every
/// extractor has tests that run on a clean clone (no corpus, no external tool). The zipped
/// formats (OOXML, OpenDocument) are in ExtractionTests, beside the zip writer.
package enum GeneratedFixture {
    // MARK: PDF

    /// A one-page PDF 1.4 with an information dictionary and one line of text per entry of
    /// `lines` in Helvetica (a standard font: nothing embedded); the cross-reference table is
    /// computed from the objects' offsets.
    package static func pdf(title: String, author: String, subject: String, keywords: String, created: String,
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
        return pdfFile(version: "1.4", objects: objects, trailer: "/Root 1 0 R /Info 6 0 R")
    }

    /// A PDF file of `objects` (numbered from 1, in order) with its cross-reference table and a
    /// trailer holding `trailer` (`/Root 1 0 R ...`): the frame every hand-written test PDF needs.
    package static func pdfFile(version: String, objects: [String], trailer: String) -> [UInt8] {
        var out = Array("%PDF-\(version)\n%\u{E2}\u{E3}\u{CF}\u{D3}\n".unicodeScalars.map { UInt8($0.value) })
        var offsets: [Int] = []
        for (i, body) in objects.enumerated() {
            offsets.append(out.count)
            out += Array("\(i + 1) 0 obj\n\(body)\nendobj\n".utf8)
        }
        let xref = out.count
        var table = "xref\n0 \(objects.count + 1)\n0000000000 65535 f \n"
        for o in offsets { table += String(repeating: "0", count: 10 - String(o).count) + "\(o) 00000 n \n" }
        table += "trailer\n<< /Size \(objects.count + 1) \(trailer) >>\nstartxref\n\(xref)\n%%EOF\n"
        return out + Array(table.utf8)
    }

    // MARK: JPEG with EXIF and GPS

    /// One TIFF field: tag, type (2 ASCII, 3 SHORT, 4 LONG, 5 RATIONAL), count and value bytes
    /// (big-endian); a `pointer` field gets the offset of the IFD of that index.
    package struct Field {
        package var tag: UInt16, type: UInt16, count: UInt32, value: [UInt8]
        package var pointer: Int? = nil

        package init(tag: UInt16, type: UInt16, count: UInt32, value: [UInt8], pointer: Int? = nil) {
            self.tag = tag
            self.type = type
            self.count = count
            self.value = value
            self.pointer = pointer
        }

        package static func ascii(_ tag: UInt16, _ s: String) -> Field {
            Field(tag: tag, type: 2, count: UInt32(s.utf8.count + 1), value: Array(s.utf8) + [0])
        }
        package static func short(_ tag: UInt16, _ v: UInt16) -> Field { Field(tag: tag, type: 3, count: 1, value: be16(v) + [0, 0]) }
        package static func byte(_ tag: UInt16, _ v: UInt8) -> Field { Field(tag: tag, type: 1, count: 1, value: [v, 0, 0, 0]) }
        package static func rational(_ tag: UInt16, _ parts: [(UInt32, UInt32)]) -> Field {
            Field(tag: tag, type: 5, count: UInt32(parts.count), value: parts.flatMap { be32($0.0) + be32($0.1) })
        }
        package static func ifd(_ tag: UInt16, _ index: Int) -> Field { Field(tag: tag, type: 4, count: 1, value: [0, 0, 0, 0], pointer: index) }
    }

    package static func be16(_ v: UInt16) -> [UInt8] { [UInt8(v >> 8), UInt8(v & 0xFF)] }
    package static func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
    package static func le32(_ v: UInt32) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24)] }

    /// A big-endian TIFF stream of the given IFDs, one after the other, each followed by the
    /// values longer than four bytes.
    package static func tiff(_ ifds: [[Field]]) -> [UInt8] {
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
    package static func jpeg(width: UInt16, height: UInt16, exif tiff: [UInt8]) -> [UInt8] {
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
    package static func id3v23(_ frames: [(String, String)]) -> [UInt8] {
        let body = frames.flatMap { id, text -> [UInt8] in
            let payload = [0] + text.unicodeScalars.map { UInt8($0.value) }
            return Array(id.utf8) + be32(UInt32(payload.count)) + [0, 0] + payload
        }
        let n = body.count
        return Array("ID3".utf8) + [3, 0, 0] + [UInt8(n >> 21 & 0x7F), UInt8(n >> 14 & 0x7F), UInt8(n >> 7 & 0x7F), UInt8(n & 0x7F)] + body
    }

    /// `count` silent MPEG-1 Layer III frames, 128 kbit/s, 44.1 kHz, mono (417 bytes each).
    package static func mpegFrames(_ count: Int) -> [UInt8] {
        let frame: [UInt8] = [0xFF, 0xFB, 0x90, 0xC4] + [UInt8](repeating: 0, count: 413)
        return Array([[UInt8]](repeating: frame, count: count).joined())
    }

    /// A Vorbis comment block (no framing bit): vendor, then NAME=value fields.
    package static func vorbisComment(_ fields: [String]) -> [UInt8] {
        let vendor = "FSIndex tests"
        return le32(UInt32(vendor.utf8.count)) + Array(vendor.utf8) + le32(UInt32(fields.count))
            + fields.flatMap { le32(UInt32($0.utf8.count)) + Array($0.utf8) }
    }

    /// A FLAC stream: STREAMINFO (44.1 kHz, stereo, 16 bits, `samples` samples) and a
    /// VORBIS_COMMENT block, then a few bytes standing for the frames.
    package static func flac(samples: UInt64, comments: [String]) -> [UInt8] {
        let packed: UInt64 = 44100 << 44 | 1 << 41 | 15 << 36 | samples
        let info: [UInt8] = [0x10, 0x00, 0x10, 0x00, 0, 0, 0, 0, 0, 0] + (0..<8).map { UInt8(packed >> (56 - 8 * UInt64($0)) & 0xFF) }
            + [UInt8](repeating: 0, count: 16)
        let comment = vorbisComment(comments)
        return Array("fLaC".utf8) + [0x00, 0, 0, UInt8(info.count)] + info
            + [0x84, UInt8(comment.count >> 16), UInt8(comment.count >> 8 & 0xFF), UInt8(comment.count & 0xFF)] + comment
            + [0xFF, 0xF8, 0x69, 0x08] + [UInt8](repeating: 0, count: 60)
    }

    /// The Ogg CRC-32 (polynomial 0x04C11DB7, not reflected, initial value 0).
    package static func oggCRC(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0
        for b in bytes {
            crc ^= UInt32(b) << 24
            for _ in 0..<8 { crc = crc & 0x8000_0000 != 0 ? (crc << 1) ^ 0x04C1_1DB7 : crc << 1 }
        }
        return crc
    }

    /// One Ogg page holding whole packets.
    package static func oggPage(_ packets: [[UInt8]], type: UInt8, granule: UInt64, serial: UInt32, sequence: UInt32) -> [UInt8] {
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
    package static func oggVorbis(samples: UInt64, comments: [String]) -> [UInt8] {
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
    package static func encode(_ text: String, as charset: String) -> [UInt8]? {
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

extension GeneratedFixture {
    // MARK: More audio: WAV and Ogg Opus

    static func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }

    /// A RIFF/WAVE file of silent 16-bit PCM (44.1 kHz, stereo, `frames` sample frames) with a
    /// LIST/INFO chunk of the given (id, text) pairs.
    package static func wav(frames: Int, info: [(String, String)]) -> [UInt8] {
        func chunk(_ id: String, _ body: [UInt8]) -> [UInt8] {
            Array(id.utf8) + le32(UInt32(body.count)) + body + (body.count % 2 == 1 ? [0] : [])
        }
        var fmt: [UInt8] = le16(1) + le16(2)               // PCM, two channels
        fmt += le32(44100) + le32(44100 * 4)               // sample rate, bytes per second
        fmt += le16(4) + le16(16)                          // block align, bits per sample
        var list: [UInt8] = Array("INFO".utf8)
        for (id, text) in info { list += chunk(id, Array(text.utf8) + [0]) }
        var body: [UInt8] = Array("WAVE".utf8)
        body += chunk("fmt ", fmt)
        body += chunk("LIST", list)
        body += chunk("data", [UInt8](repeating: 0, count: frames * 4))
        return Array("RIFF".utf8) + le32(UInt32(body.count)) + body
    }

    /// An Ogg Opus stream (stereo, pre-skip 312): OpusHead, OpusTags, and one last page whose
    /// granule position is `samples` + 312 (at 48 kHz).
    package static func oggOpus(samples: UInt64, comments: [String]) -> [UInt8] {
        var head: [UInt8] = Array("OpusHead".utf8)
        head += [1, 2] + le16(312) + le32(44100) + le16(0) + [0]
        let tags = Array("OpusTags".utf8) + vorbisComment(comments)
        let serial: UInt32 = 0x0905
        return oggPage([head], type: 2, granule: 0, serial: serial, sequence: 0)
            + oggPage([tags], type: 0, granule: 0, serial: serial, sequence: 1)
            + oggPage([[0xFC, 0xFF, 0xFE]], type: 4, granule: samples + 312, serial: serial, sequence: 2)
    }

    // MARK: More images: TIFF, PNG, WebP

    /// An XMP packet with a description and keywords.
    package static func xmp(description: String, keywords: [String]) -> [UInt8] {
        let bag = keywords.map { "<rdf:li>\($0)</rdf:li>" }.joined()
        return Array(#"<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:description><rdf:Alt><rdf:li xml:lang="x-default">\#(description)</rdf:li></rdf:Alt></dc:description><dc:subject><rdf:Bag>\#(bag)</rdf:Bag></dc:subject></rdf:Description></rdf:RDF></x:xmpmeta><?xpacket end="w"?>"#.utf8)
    }

    /// A grey 8-bit TIFF of `width` × `height` in one uncompressed strip, with extra IFD0 fields.
    package static func tiffImage(width: UInt16, height: UInt16, extra: [Field]) -> [UInt8] {
        func fields(strip: UInt32) -> [Field] {
            [.short(256, width), .short(257, height), .short(258, 8), .short(259, 1), .short(262, 1),
             Field(tag: 273, type: 4, count: 1, value: be32(strip)), .short(277, 1), .short(278, height),
             Field(tag: 279, type: 4, count: 1, value: be32(UInt32(width) * UInt32(height)))] + extra
        }
        let offset = UInt32(tiff([fields(strip: 0)]).count)
        return tiff([fields(strip: offset)]) + [UInt8](repeating: 0x80, count: Int(width) * Int(height))
    }

    /// The CRC-32 of PNG chunks (and zip, gzip): reflected polynomial 0xEDB88320.
    package static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for b in bytes {
            crc ^= UInt32(b)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    /// A grey PNG header of `width` × `height` with an eXIf chunk (`exif`, a TIFF stream) and an
    /// iTXt XMP chunk, then a stand-in IDAT and IEND.
    package static func png(width: UInt32, height: UInt32, exif: [UInt8], xmp: [UInt8]) -> [UInt8] {
        func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
            let typed = Array(type.utf8) + data
            return be32(UInt32(data.count)) + typed + be32(crc32(typed))
        }
        var out: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        out += chunk("IHDR", be32(width) + be32(height) + [8, 0, 0, 0, 0])
        out += chunk("eXIf", exif)
        out += chunk("iTXt", Array("XML:com.adobe.xmp".utf8) + [0, 0, 0, 0, 0] + xmp)
        out += chunk("IDAT", [0x78, 0x9C, 0x63, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01])
        out += chunk("IEND", [])
        return out
    }

    /// A WebP of `width` × `height`: VP8X (with the EXIF flag), a lossless VP8L header, and an
    /// EXIF chunk holding `exif`.
    package static func webp(width: UInt32, height: UInt32, exif: [UInt8]) -> [UInt8] {
        func chunk(_ id: String, _ body: [UInt8]) -> [UInt8] {
            Array(id.utf8) + le32(UInt32(body.count)) + body + (body.count % 2 == 1 ? [0] : [])
        }
        func le24(_ v: UInt32) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF)] }
        let vp8x: [UInt8] = [0x08, 0, 0, 0] + le24(width - 1) + le24(height - 1)
        let bits = (width - 1) | (height - 1) << 14
        let vp8l: [UInt8] = [0x2F] + le32(bits) + [0, 0, 0]
        var body: [UInt8] = Array("WEBP".utf8)
        body += chunk("VP8X", vp8x)
        body += chunk("VP8L", vp8l)
        body += chunk("EXIF", exif)
        return Array("RIFF".utf8) + le32(UInt32(body.count)) + body
    }
}

extension GeneratedFixture {
    // MARK: OLE2 compound file: a Word 97 document

    /// An OLE2 property set stream (`\u{5}SummaryInformation`) of code page 1252 and the given
    /// string properties (PID 2 title, 3 subject, 4 author, 5 keywords, 18 application).
    package static func summaryInformation(_ strings: [(id: UInt32, value: String)]) -> [UInt8] {
        var values: [[UInt8]] = [le32(2) + le16(1252) + [0, 0]]   // PID 1: VT_I2 code page
        var ids: [UInt32] = [1]
        for (id, value) in strings {
            var v = le32(0x1E) + le32(UInt32(value.utf8.count + 1)) + Array(value.utf8) + [0]   // VT_LPSTR
            while v.count % 4 != 0 { v.append(0) }
            values.append(v)
            ids.append(id)
        }
        var offset = 8 + 8 * ids.count
        var table: [UInt8] = []
        for (id, v) in zip(ids, values) {
            table += le32(id) + le32(UInt32(offset))
            offset += v.count
        }
        let section = le32(UInt32(offset)) + le32(UInt32(ids.count)) + table + values.joined()
        let fmtid: [UInt8] = [0xE0, 0x85, 0x9F, 0xF2, 0xF9, 0x4F, 0x68, 0x10, 0xAB, 0x91, 0x08, 0x00, 0x2B, 0x27, 0xB3, 0xD9]
        var out: [UInt8] = [0xFE, 0xFF, 0, 0] + le32(0x0002_0006) + [UInt8](repeating: 0, count: 16) + le32(1)
        out += fmtid + le32(48)
        return out + section
    }

    /// The WordDocument and 1Table streams of a Word 97 document (nFib 193) whose text (`\r`
    /// ends a paragraph) is one 8-bit piece at offset 0x800.
    package static func word97Streams(text: String) -> (word: [UInt8], table: [UInt8]) {
        let chars = text.unicodeScalars.map { UInt8(truncatingIfNeeded: $0.value) }
        var word = [UInt8](repeating: 0, count: 0x800)
        func put16(_ at: Int, _ v: UInt16) { word.replaceSubrange(at..<(at + 2), with: le16(v)) }
        func put32(_ at: Int, _ v: UInt32) { word.replaceSubrange(at..<(at + 4), with: le32(v)) }
        put16(0x00, 0xA5EC)                  // wIdent
        put16(0x02, 193)                     // nFib: Word 97
        put16(0x0A, 0x0200)                  // fWhichTblStm: 1Table
        put32(0x4C, UInt32(chars.count))     // ccpText
        let pcd: [UInt8] = le16(0) + le32(0x4000_0000 | 0x800 * 2) + le16(0)   // compressed (8-bit) at 0x800
        let plc = le32(0) + le32(UInt32(chars.count)) + pcd
        let clx: [UInt8] = [0x02] + le32(UInt32(plc.count)) + plc
        put32(0x01A2, 0)                     // fcClx
        put32(0x01A6, UInt32(clx.count))     // lcbClx
        word += chars
        return (word, clx)
    }

    /// An OLE2 compound file (version 3, 512-byte sectors) holding the given streams, each
    /// padded to 4096 bytes so that none lives in the mini stream; at most four directory
    /// entries (the root and three streams).
    package static func compoundFile(_ streams: [(name: String, data: [UInt8])]) -> [UInt8] {
        precondition(streams.count <= 3 && streams.allSatisfy { $0.data.count <= 8 * 4096 })
        let endOfChain: UInt32 = 0xFFFF_FFFE, free: UInt32 = 0xFFFF_FFFF, none: UInt32 = 0xFFFF_FFFF
        var fat: [UInt32] = [0xFFFF_FFFD, endOfChain]   // sector 0: the FAT; sector 1: the directory
        var data: [UInt8] = []
        var starts: [UInt32] = []
        var sizes: [Int] = []
        for s in streams {
            var bytes = s.data
            let padded = max(4096, (bytes.count + 511) / 512 * 512)
            bytes += [UInt8](repeating: 0, count: padded - bytes.count)
            let first = UInt32(fat.count)
            let n = padded / 512
            for k in 0..<n { fat.append(k == n - 1 ? endOfChain : first + UInt32(k) + 1) }
            starts.append(first)
            sizes.append(padded)
            data += bytes
        }
        precondition(fat.count <= 128)
        fat += [UInt32](repeating: free, count: 128 - fat.count)

        func entry(_ name: String, type: UInt8, left: UInt32 = none, right: UInt32 = none, child: UInt32 = none,
                   start: UInt32 = 0, size: Int = 0) -> [UInt8] {
            var e = [UInt8](repeating: 0, count: 128)
            if !name.isEmpty {
                let units = Array(name.utf16) + [0]
                let encoded = units.flatMap { le16($0) }
                e.replaceSubrange(0..<encoded.count, with: encoded)
                e.replaceSubrange(64..<66, with: le16(UInt16(encoded.count)))
            }
            e[66] = type
            e[67] = 1   // black
            e.replaceSubrange(68..<72, with: le32(left))
            e.replaceSubrange(72..<76, with: le32(right))
            e.replaceSubrange(76..<80, with: le32(child))
            e.replaceSubrange(116..<120, with: le32(start))
            e.replaceSubrange(120..<124, with: le32(UInt32(size)))
            return e
        }
        // The siblings form a tree ordered by name length, then name: a chain to the right.
        let order = streams.indices.sorted {
            let (a, b) = (streams[$0].name.utf16.count, streams[$1].name.utf16.count)
            return a != b ? a < b : streams[$0].name.uppercased() < streams[$1].name.uppercased()
        }
        var directory = entry("Root Entry", type: 5, child: order.isEmpty ? none : UInt32(order[0] + 1), start: endOfChain)
        var entries = [[UInt8]](repeating: [], count: streams.count)
        for (rank, i) in order.enumerated() {
            let right = rank + 1 < order.count ? UInt32(order[rank + 1] + 1) : none
            entries[i] = entry(streams[i].name, type: 2, right: right, start: starts[i], size: sizes[i])
        }
        directory += entries.joined()
        while directory.count < 512 { directory += entry("", type: 0) }

        var header: [UInt8] = [0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1] + [UInt8](repeating: 0, count: 16)
        header += le16(0x003E) + le16(0x0003) + le16(0xFFFE) + le16(9) + le16(6) + [UInt8](repeating: 0, count: 6)
        header += le32(0) + le32(1) + le32(1) + le32(0) + le32(4096)   // dir sectors, FAT sectors, first dir sector, transaction, cutoff
        header += le32(endOfChain) + le32(0) + le32(endOfChain) + le32(0)   // mini FAT, DIFAT
        header += le32(0) + [UInt32](repeating: free, count: 108).flatMap { le32($0) }
        return header + fat.flatMap { le32($0) } + directory + data
    }
}
