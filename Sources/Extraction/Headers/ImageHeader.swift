import ExtractionModel
/// What the container of an image says, without decoding pixels: the pixel size, and where its
/// metadata blocks are (EXIF as a TIFF stream, an XMP packet, IPTC records).
///
/// Each format has a tiny hand-written parser with bounds checks: JPEG markers up to the first
/// scan (SOFn, APP1 Exif/XMP, APP13 Photoshop), PNG chunks (IHDR, eXIf, iTXt XMP), the GIF
/// logical screen, the BMP info header, WebP chunks (VP8, VP8L, VP8X, EXIF, XMP), TIFF IFD0
/// (ImageWidth, ImageLength, XMP, IPTC) and the HEIF box tree (`meta` → `pitm`, `iinf`, `iloc`,
/// `iprp` → `ipco` `ispe` + `ipma`). Loops stop after `maxBlocks` blocks, and boxes nest at most
/// `maxDepth` deep.
///
/// For example, a PNG whose IHDR says 100 × 75 gives `width` 100 and `height` 75; the size is
/// taken as written, never used to allocate anything.
package struct ImageHeader {
    var format: String?
    package var width: Int?
    package var height: Int?
    /// A TIFF stream (from "II*\0" or "MM\0*") holding EXIF IFDs.
    var exif: [UInt8]?
    var xmp: [UInt8]?
    /// A Photoshop image resource block (JPEG APP13, "Photoshop 3.0\0" first).
    var photoshop: [UInt8]?
    /// Raw IPTC-IIM records (TIFF tag 33723).
    var iptc: [UInt8]?
    /// Set when the structure runs past the end of the file.
    var truncated: String?

    static let maxBlocks = 4096
    static let maxDepth = 6

    package init(_ s: MediaSource) {
        let h = s.bytes(0, 32)
        func starts(_ magic: [UInt8], at offset: Int = 0) -> Bool {
            h.count >= offset + magic.count && Array(h[offset..<(offset + magic.count)]) == magic
        }
        if starts([0xFF, 0xD8, 0xFF]) {
            format = "jpeg"; parseJPEG(s)
        } else if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            format = "png"; parsePNG(s)
        } else if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) {
            format = "gif"
            if h.count >= 10 { width = Int(le16(h, 6)); height = Int(le16(h, 8)) } else { truncated = "the GIF header is cut short" }
        } else if starts(Array("BM".utf8)) {
            format = "bmp"; parseBMP(h)
        } else if starts(Array("RIFF".utf8)), starts(Array("WEBP".utf8), at: 8) {
            format = "webp"; parseWebP(s)
        } else if starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A]) {
            format = "tiff"; parseTIFF(s)
        } else if starts(Array("ftyp".utf8), at: 4) {
            format = "heif"; parseHEIF(s)
        }
        if xmp == nil { xmp = Self.scanXMP(s.head) }
    }

    // MARK: JPEG

    mutating func parseJPEG(_ s: MediaSource) {
        var pos = 2
        for _ in 0..<Self.maxBlocks {
            let m = s.bytes(pos, 4)
            guard m.count >= 2 else { truncated = "the JPEG ends before its image data"; return }
            guard m[0] == 0xFF else { return }   // lost sync: keep what was found
            let marker = m[1]
            if marker == 0xFF { pos += 1; continue }   // fill byte
            if marker == 0xD8 || marker == 0x01 || (0xD0...0xD7).contains(marker) { pos += 2; continue }
            if marker == 0xD9 || marker == 0xDA { return }   // end of image, start of scan
            guard m.count == 4 else { truncated = "the JPEG ends inside a marker"; return }
            let length = Int(be16(m, 2))
            guard length >= 2 else { return }
            let body = pos + 4, bodyLength = length - 2
            if body + bodyLength > s.size { truncated = "the JPEG ends inside a segment" }
            switch marker {
            case 0xC0...0xC3, 0xC5...0xC7, 0xC9...0xCB, 0xCD...0xCF:
                let sof = s.bytes(body, 5)
                if sof.count == 5, width == nil { height = Int(be16(sof, 1)); width = Int(be16(sof, 3)) }
            case 0xE1 where exif == nil || xmp == nil:
                let seg = s.bytes(body, bodyLength)
                let exifMark = Array("Exif".utf8) + [0, 0], xmpMark = Array("http://ns.adobe.com/xap/1.0/".utf8) + [0]
                if exif == nil, seg.starts(with: exifMark) { exif = Array(seg.dropFirst(6)) }
                else if xmp == nil, seg.starts(with: xmpMark) { xmp = Array(seg.dropFirst(xmpMark.count)) }
            case 0xED where photoshop == nil:
                let seg = s.bytes(body, bodyLength)
                if seg.starts(with: Array("Photoshop 3.0".utf8) + [0]) { photoshop = seg }
            default:
                break
            }
            if truncated != nil { return }
            pos = body + bodyLength
        }
    }

    // MARK: PNG

    mutating func parsePNG(_ s: MediaSource) {
        var pos = 8
        for _ in 0..<Self.maxBlocks {
            let c = s.bytes(pos, 8)
            guard c.count == 8 else { truncated = "the PNG ends before its IEND chunk"; return }
            let length = Int(be32(c, 0)), type = String(decoding: c[4..<8], as: UTF8.self)
            let body = pos + 8
            guard length <= Int(Int32.max) else { truncated = "a PNG chunk has an impossible length"; return }
            if body + length + 4 > s.size { truncated = "the PNG ends inside its \(type) chunk" }
            switch type {
            case "IHDR":
                let d = s.bytes(body, 8)
                if d.count == 8 { width = Int(be32(d, 0)); height = Int(be32(d, 4)) }
            case "eXIf" where exif == nil:
                exif = Self.tiffStream(s.bytes(body, length))
            case "iTXt" where xmp == nil:
                let d = s.bytes(body, min(length, MediaSource.maxRead))
                let key = Array("XML:com.adobe.xmp".utf8) + [0]
                // keyword NUL, compression flag, method, language NUL, translated keyword NUL, text
                if d.starts(with: key), d.count > key.count + 2, d[key.count] == 0 {
                    var i = key.count + 2
                    for _ in 0..<2 { while i < d.count, d[i] != 0 { i += 1 }; i += 1 }
                    if i <= d.count { xmp = Array(d[i...]) }
                }
            case "IEND":
                return
            default:
                break
            }
            if truncated != nil { return }
            pos = body + length + 4
        }
    }

    // MARK: BMP

    mutating func parseBMP(_ h: [UInt8]) {
        guard h.count >= 26 else { truncated = "the BMP header is cut short"; return }
        let infoSize = le32(h, 14)
        if infoSize == 12 {
            width = Int(le16(h, 18)); height = Int(le16(h, 20))
        } else {
            width = Int(Int32(bitPattern: le32(h, 18)).magnitude)
            height = Int(Int32(bitPattern: le32(h, 22)).magnitude)   // negative: stored top-down
        }
    }

    // MARK: WebP

    mutating func parseWebP(_ s: MediaSource) {
        let riff = s.bytes(4, 4)
        let end = riff.count == 4 ? 8 + Int(le32(riff, 0)) : s.size
        if end > s.size { truncated = "the WebP file is shorter than its RIFF header says" }
        var pos = 12
        for _ in 0..<Self.maxBlocks {
            guard pos + 8 <= min(end, s.size) else { return }
            let c = s.bytes(pos, 8)
            guard c.count == 8 else { return }
            let type = String(decoding: c[0..<4], as: UTF8.self), length = Int(le32(c, 4))
            let body = pos + 8
            switch type {
            case "VP8X":
                let d = s.bytes(body, 10)
                if d.count == 10 { width = Int(le24(d, 4)) + 1; height = Int(le24(d, 7)) + 1 }
            case "VP8 " where width == nil:
                let d = s.bytes(body, 10)
                if d.count == 10, d[3] == 0x9D, d[4] == 0x01, d[5] == 0x2A {
                    width = Int(le16(d, 6) & 0x3FFF); height = Int(le16(d, 8) & 0x3FFF)
                }
            case "VP8L" where width == nil:
                let d = s.bytes(body, 5)
                if d.count == 5, d[0] == 0x2F {
                    let bits = le32(d, 1)
                    width = Int(bits & 0x3FFF) + 1; height = Int((bits >> 14) & 0x3FFF) + 1
                }
            case "EXIF" where exif == nil:
                var d = s.bytes(body, length)
                if d.starts(with: Array("Exif".utf8) + [0, 0]) { d.removeFirst(6) }
                exif = Self.tiffStream(d)
            case "XMP " where xmp == nil:
                xmp = s.bytes(body, length)
            default:
                break
            }
            pos = body + length + (length & 1)
        }
    }

    // MARK: TIFF

    mutating func parseTIFF(_ s: MediaSource) {
        let h = s.bytes(0, 8)
        guard h.count == 8 else { truncated = "the TIFF header is cut short"; return }
        let big = h[0] == 0x4D
        let ifd = Int(big ? be32(h, 4) : le32(h, 4))
        let countBytes = s.bytes(ifd, 2)
        guard countBytes.count == 2 else { truncated = "the TIFF ends before its first directory"; return }
        let count = min(Int(big ? be16(countBytes, 0) : le16(countBytes, 0)), 1024)
        let entries = s.bytes(ifd + 2, count * 12)
        if entries.count < count * 12 { truncated = "the TIFF ends inside its first directory" }
        for i in 0..<(entries.count / 12) {
            let e = Array(entries[(i * 12)..<(i * 12 + 12)])
            let tag = big ? be16(e, 0) : le16(e, 0), type = big ? be16(e, 2) : le16(e, 2)
            let n = Int(big ? be32(e, 4) : le32(e, 4))
            // SHORT values sit left-justified in the 4-byte value field.
            let value = type == 3 ? Int(big ? be16(e, 8) : le16(e, 8)) : Int(big ? be32(e, 8) : le32(e, 8))
            switch (tag, type) {
            case (256, 3), (256, 4): width = value
            case (257, 3), (257, 4): height = value
            case (700, 1), (700, 7):
                if n > 4 { xmp = s.bytes(value, n) }
            case (33723, 4), (33723, 7):
                let bytes = type == 4 ? n * 4 : n
                if bytes > 4 { iptc = s.bytes(value, bytes) }
            default: break
            }
        }
        // libexif reads the whole stream; of a TIFF larger than one read, only the first part is
        // given, and only when IFD0 lies inside it.
        if ifd + 2 + count * 12 <= MediaSource.maxRead { exif = s.bytes(0, s.size) }
    }

    // MARK: HEIF

    /// One ISO base media box: its type and where its payload is.
    struct Box { var type: String; var body: Int; var end: Int }

    /// The boxes in `start..<end`, at most `maxBlocks`.
    func boxes(_ s: MediaSource, from start: Int, to end: Int) -> [Box] {
        var out: [Box] = []
        var pos = start
        while pos + 8 <= end, out.count < Self.maxBlocks {
            let h = s.bytes(pos, 16)
            guard h.count >= 8 else { break }
            var size = Int(be32(h, 0)), header = 8
            if size == 1 {
                guard h.count == 16 else { break }
                let large = be64(h, 8)
                guard large <= UInt64(Int.max / 2) else { break }
                size = Int(large); header = 16
            } else if size == 0 {
                size = end - pos
            }
            guard size >= header else { break }
            out.append(Box(type: String(decoding: h[4..<8], as: UTF8.self), body: pos + header, end: pos + size))
            pos += size
        }
        return out
    }

    mutating func parseHEIF(_ s: MediaSource) {
        let top = boxes(s, from: 0, to: s.size)
        guard let meta = top.first(where: { $0.type == "meta" }) else {
            truncated = top.isEmpty ? "the HEIF file has no boxes" : "the HEIF file has no meta box"; return
        }
        if meta.end > s.size { truncated = "the HEIF file ends inside its meta box" }
        let children = boxes(s, from: meta.body + 4, to: min(meta.end, s.size))   // full box: version + flags
        var primary: UInt32?
        var exifItem: UInt32?
        var properties: [(width: Int, height: Int)?] = []
        var associations: [UInt32: [Int]] = [:]
        var locations: [UInt32: (offset: Int, length: Int)] = [:]
        for box in children {
            let d = s.bytes(box.body, min(box.end, s.size) - box.body)
            guard d.count >= 4 else { continue }
            let version = d[0]
            switch box.type {
            case "pitm":
                if version == 0, d.count >= 6 { primary = UInt32(be16(d, 4)) } else if d.count >= 8 { primary = be32(d, 4) }
            case "iinf":
                var r = Reader(d, at: 4)
                _ = version == 0 ? r.u16().map(UInt32.init) : r.u32()
                for infe in boxes(s, from: box.body + r.pos, to: box.end) where infe.type == "infe" {
                    var e = Reader(s.bytes(infe.body, 24), at: 0)
                    guard let v = e.u8() else { continue }
                    e.pos = 4
                    guard v >= 2, let id = v == 2 ? e.u16().map(UInt32.init) : e.u32(), e.u16() != nil,
                          let kind = e.take(4) else { continue }
                    if kind == Array("Exif".utf8), exifItem == nil { exifItem = id }
                }
            case "iloc":
                locations = Self.itemLocations(d)
            case "iprp":
                for sub in boxes(s, from: box.body, to: box.end) {
                    if sub.type == "ipco" {
                        for p in boxes(s, from: sub.body, to: sub.end) {
                            let pd = s.bytes(p.body, 12)
                            properties.append(p.type == "ispe" && pd.count == 12 ? (Int(be32(pd, 4)), Int(be32(pd, 8))) : nil)
                        }
                    } else if sub.type == "ipma" {
                        associations = Self.itemAssociations(s.bytes(sub.body, sub.end - sub.body))
                    }
                }
            default:
                break
            }
        }
        // The primary item's ispe; else the largest one (the grid, not a tile). Areas in UInt64:
        // two 32-bit sides overflow Int (a trap, found with fsindex-fuzz image).
        let own = primary.flatMap { associations[$0] }?.compactMap { $0 >= 1 && $0 <= properties.count ? properties[$0 - 1] : nil }.first
        func area(_ p: (width: Int, height: Int)) -> UInt64 { UInt64(p.width) * UInt64(p.height) }
        if let size = own ?? properties.compactMap({ $0 }).max(by: { area($0) < area($1) }) {
            width = size.width; height = size.height
        }
        if let exifItem, let loc = locations[exifItem] {
            let d = s.bytes(loc.offset, loc.length)
            if d.count >= 4 {
                let skip = 4 + Int(be32(d, 0))
                if skip < d.count { exif = Self.tiffStream(Array(d[skip...])) }
            }
        }
    }

    /// `iloc`: item → first extent (file offset, length), for construction method 0 only.
    static func itemLocations(_ d: [UInt8]) -> [UInt32: (offset: Int, length: Int)] {
        var r = Reader(d, at: 0)
        guard let version = r.u8() else { return [:] }
        r.pos = 4
        guard let a = r.u8(), let b = r.u8() else { return [:] }
        let offsetSize = Int(a >> 4), lengthSize = Int(a & 15), baseSize = Int(b >> 4)
        let indexSize = version >= 1 ? Int(b & 15) : 0
        guard let count = version < 2 ? r.u16().map(UInt32.init) : r.u32() else { return [:] }
        var out: [UInt32: (offset: Int, length: Int)] = [:]
        for _ in 0..<min(Int(count), maxBlocks) {
            guard let id = version < 2 ? r.u16().map(UInt32.init) : r.u32() else { break }
            var method = 0
            if version >= 1 { guard let m = r.u16() else { break }; method = Int(m & 15) }
            guard r.u16() != nil, let base = r.sized(baseSize), let extents = r.u16() else { break }
            for k in 0..<Int(extents) {
                if indexSize > 0 { guard r.sized(indexSize) != nil else { return out } }
                guard let off = r.sized(offsetSize), let len = r.sized(lengthSize) else { return out }
                if k == 0, method == 0, out[id] == nil, base <= UInt64(Int32.max) * 16, off <= UInt64(Int32.max) * 16,
                   len <= UInt64(MediaSource.maxRead) {
                    out[id] = (Int(base + off), Int(len))
                }
            }
        }
        return out
    }

    /// `ipma`: item → 1-based property indexes.
    static func itemAssociations(_ d: [UInt8]) -> [UInt32: [Int]] {
        var r = Reader(d, at: 0)
        guard let version = r.u8(), let flags = r.take(3), let count = r.u32() else { return [:] }
        let wide = flags[2] & 1 == 1
        var out: [UInt32: [Int]] = [:]
        for _ in 0..<min(Int(count), maxBlocks) {
            guard let id = version < 1 ? r.u16().map(UInt32.init) : r.u32(), let n = r.u8() else { break }
            var list: [Int] = []
            for _ in 0..<Int(n) {
                if wide { guard let v = r.u16() else { return out }; list.append(Int(v & 0x7FFF)) }
                else { guard let v = r.u8() else { return out }; list.append(Int(v & 0x7F)) }
            }
            out[id] = list
        }
        return out
    }

    // MARK: Helpers

    /// `bytes` if it starts like a TIFF stream.
    static func tiffStream(_ bytes: [UInt8]) -> [UInt8]? {
        bytes.count >= 8 && (bytes.starts(with: [0x49, 0x49, 0x2A, 0x00]) || bytes.starts(with: [0x4D, 0x4D, 0x00, 0x2A])) ? bytes : nil
    }

    /// An XMP packet (`<x:xmpmeta` … `</x:xmpmeta>`) anywhere in `bytes`.
    /// (A plain scan: the standard library's `firstRange(of:)` trapped with "Index out of range"
    /// on a mutated JPEG in `ImageExtractorTests.mutations`.)
    static func scanXMP(_ bytes: [UInt8]) -> [UInt8]? {
        let open = Array("<x:xmpmeta".utf8), close = Array("</x:xmpmeta>".utf8)
        guard let start = find(open, in: bytes, from: 0),
              let end = find(close, in: bytes, from: start + open.count) else { return nil }
        return Array(bytes[start..<(end + close.count)])
    }

    /// The first index at or after `from` where `pattern` occurs in `bytes`.
    static func find(_ pattern: [UInt8], in bytes: [UInt8], from: Int) -> Int? {
        guard let first = pattern.first, bytes.count >= pattern.count else { return nil }
        var i = from
        while i + pattern.count <= bytes.count {
            if bytes[i] == first && bytes[i..<(i + pattern.count)].elementsEqual(pattern) { return i }
            i += 1
        }
        return nil
    }

    /// A cursor over bytes that returns nil instead of reading past the end.
    struct Reader {
        let d: [UInt8]
        var pos: Int
        init(_ d: [UInt8], at pos: Int) { self.d = d; self.pos = pos }
        mutating func take(_ n: Int) -> [UInt8]? {
            guard n >= 0, pos >= 0, pos + n <= d.count else { return nil }
            defer { pos += n }
            return Array(d[pos..<(pos + n)])
        }
        mutating func u8() -> UInt8? { take(1)?[0] }
        mutating func u16() -> UInt16? { take(2).map { be16($0, 0) } }
        mutating func u32() -> UInt32? { take(4).map { be32($0, 0) } }
        /// A big-endian integer of 0, 4 or 8 bytes (as `iloc` sizes them).
        mutating func sized(_ n: Int) -> UInt64? {
            guard n == 0 || n == 4 || n == 8, let b = take(n) else { return nil }
            return b.reduce(0) { $0 << 8 | UInt64($1) }
        }
    }
}

fileprivate func be16(_ b: [UInt8], _ i: Int) -> UInt16 { UInt16(b[i]) << 8 | UInt16(b[i + 1]) }
fileprivate func be32(_ b: [UInt8], _ i: Int) -> UInt32 { UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3]) }
fileprivate func be64(_ b: [UInt8], _ i: Int) -> UInt64 { UInt64(be32(b, i)) << 32 | UInt64(be32(b, i + 4)) }
fileprivate func le16(_ b: [UInt8], _ i: Int) -> UInt16 { UInt16(b[i]) | UInt16(b[i + 1]) << 8 }
fileprivate func le24(_ b: [UInt8], _ i: Int) -> UInt32 { UInt32(b[i]) | UInt32(b[i + 1]) << 8 | UInt32(b[i + 2]) << 16 }
fileprivate func le32(_ b: [UInt8], _ i: Int) -> UInt32 { UInt32(le16(b, i)) | UInt32(le16(b, i + 2)) << 16 }
