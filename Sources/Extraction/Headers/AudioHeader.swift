import ExtractionModel
/// What the container of an audio file says, read by hand where TagLib's C API falls short:
/// the exact duration (TagLib 1.13's C API gives whole seconds only), and all of WAV and Ogg
/// Opus, which its C API cannot open by type (only by file-name extension, and a descriptor path
/// `/proc/self/fd/N` has none).
///
/// - FLAC: STREAMINFO (sample rate, channels, total samples) and the VORBIS_COMMENT block.
/// - WAV: `fmt ` (channels, rate, byte rate), `data` size, `LIST`/`INFO` tags (INAM, IART,
///   IPRD, IGNR, ICRD, ITRK).
/// - Ogg: the first stream's identification header (`OpusHead` or Vorbis), its comment header
///   (Vorbis comments: TITLE, ARTIST, ALBUM, COMPOSER, GENRE, DATE, TRACKNUMBER), and the
///   granule position of the last page for the duration.
/// - MP4: `moov`/`mvhd` timescale, duration and creation time, the composer (`ilst`/`©wrt`)
///   and the date (`©day`).
/// - MP3: the size of a leading ID3v2 tag and whether an ID3v1 tag ends the file, so that the
///   duration follows from the audio bytes and the bit rate; the composer (TCOM/TCM).
///
/// Every read is bounded by `MediaSource.maxRead`, loops by `maxBlocks`.
package struct AudioHeader {
    package enum Container: Equatable { case mpeg, flac, oggVorbis, oggOpus, oggOther, mp4, wav, asf, unknown }

    var container: Container = .unknown
    package var duration: Double?
    var sampleRate: Int?
    var channels: Int?
    /// Bits per second.
    var bitRate: Int?
    /// Tags read here (WAV INFO, Ogg comments), by upper-case Vorbis-comment name.
    var tags: [String: String] = [:]
    /// Bytes of MPEG audio: the file minus its ID3v2 and ID3v1 tags.
    package var mpegAudioBytes: Int?
    /// MP4: `mvhd`'s creation time (seconds since 1904-01-01, UTC; 0 when the muxer left it
    /// unset) and the iTunes `©day` text (see `AudioHeader+MP4Dates.swift`).
    var mp4CreationTime: UInt64?
    var mp4Day: String?

    static let maxBlocks = 4096

    /// The container the first bytes show, without parsing further.
    package static func sniff(_ bytes: [UInt8]) -> Container {
        let h = Array(bytes.prefix(12))
        func starts(_ text: String, at offset: Int = 0) -> Bool {
            let m = Array(text.utf8)
            return h.count >= offset + m.count && Array(h[offset..<(offset + m.count)]) == m
        }
        if starts("fLaC") { return .flac }
        if starts("OggS") { return .oggOther }
        if starts("RIFF"), starts("WAVE", at: 8) { return .wav }
        if starts("ftyp", at: 4) { return .mp4 }
        if h.starts(with: [0x30, 0x26, 0xB2, 0x75, 0x8E, 0x66, 0xCF, 0x11]) { return .asf }
        if starts("ID3") || isMPEGFrameSync(h) { return .mpeg }
        return .unknown
    }

    /// An MPEG audio frame's sync word (11 bits set) with a layer: the layer bits 00 are
    /// reserved, and are what an ADTS AAC header has there (`FF F1`), which is for libavformat
    /// (`VideoExtractor`), not TagLib's MPEG reader.
    static func isMPEGFrameSync(_ h: [UInt8]) -> Bool {
        h.count >= 2 && h[0] == 0xFF && h[1] & 0xE0 == 0xE0 && h[1] & 0x06 != 0
    }

    package init(_ s: MediaSource) {
        let h = s.bytes(0, 64)
        func starts(_ text: String, at offset: Int = 0) -> Bool {
            let m = Array(text.utf8)
            return h.count >= offset + m.count && Array(h[offset..<(offset + m.count)]) == m
        }
        if starts("fLaC") {
            container = .flac; parseFLAC(s, at: 4)
        } else if starts("OggS") {
            parseOgg(s)
        } else if starts("RIFF"), starts("WAVE", at: 8) {
            container = .wav; parseWAV(s)
        } else if starts("ftyp", at: 4) {
            container = .mp4; parseMP4(s)
        } else if h.starts(with: [0x30, 0x26, 0xB2, 0x75, 0x8E, 0x66, 0xCF, 0x11]) {
            container = .asf
        } else if starts("ID3") || Self.isMPEGFrameSync(h) {
            var tagEnd = 0
            if starts("ID3"), h.count >= 10 {
                // Syncsafe size, plus the 10-byte header (and a 10-byte footer when flagged).
                let size = h[6...9].reduce(0) { $0 << 7 | Int($1 & 0x7F) }
                tagEnd = 10 + size + (h[5] & 0x10 != 0 ? 10 : 0)
            }
            if s.bytes(tagEnd, 4).starts(with: Array("fLaC".utf8)) {
                container = .flac; parseFLAC(s, at: tagEnd + 4)
            } else {
                container = .mpeg
                let v1 = s.size >= 128 && s.bytes(s.size - 128, 3) == Array("TAG".utf8)
                mpegAudioBytes = max(0, s.size - tagEnd - (v1 ? 128 : 0))
                if tagEnd > 10 { readID3(s.bytes(0, min(tagEnd, 1 << 20))) }
            }
        }
    }

    // MARK: FLAC

    mutating func parseFLAC(_ s: MediaSource, at start: Int) {
        let b = s.bytes(start, 4 + 34)
        guard b.count == 38, b[0] & 0x7F == 0 else { return }   // STREAMINFO comes first
        let i = 4 + 10
        let rate = Int(b[i]) << 12 | Int(b[i + 1]) << 4 | Int(b[i + 2] >> 4)
        let ch = Int((b[i + 2] >> 1) & 7) + 1
        let total = Int(b[i + 3] & 0x0F) << 32 | Int(b[i + 4]) << 24 | Int(b[i + 5]) << 16 | Int(b[i + 6]) << 8 | Int(b[i + 7])
        guard rate > 0 else { return }
        sampleRate = rate
        channels = ch
        if total > 0 { duration = Double(total) / Double(rate) }
        // The other metadata blocks: VORBIS_COMMENT (type 4) holds the tags.
        var pos = start
        for _ in 0..<64 {
            let block = s.bytes(pos, 4)
            guard block.count == 4 else { return }
            let length = Int(block[1]) << 16 | Int(block[2]) << 8 | Int(block[3])
            if block[0] & 0x7F == 4 { readComments(s.bytes(pos + 4, min(length, 1 << 20)), from: 0) }
            if block[0] & 0x80 != 0 { return }   // the last block
            pos += 4 + length
        }
    }

    // MARK: ID3v2

    /// The composer frame (TCOM, or TCM in ID3v2.2) of an ID3v2 tag, which TagLib's C API does
    /// not expose. `tag` starts with the 10-byte tag header.
    mutating func readID3(_ tag: [UInt8]) {
        guard tag.count > 10 else { return }
        let version = tag[3], flags = tag[5]
        var d = Array(tag[10...])
        if flags & 0x80 != 0, version < 4 {   // whole-tag unsynchronisation: FF 00 → FF
            var out: [UInt8] = []
            out.reserveCapacity(d.count)
            var i = 0
            while i < d.count { out.append(d[i]); i += d[i] == 0xFF && i + 1 < d.count && d[i + 1] == 0 ? 2 : 1 }
            d = out
        }
        var pos = 0
        if flags & 0x40 != 0, version >= 3, d.count >= 4 {   // extended header
            let size = version == 3 ? Int(be32(d, 0)) + 4 : d[0..<4].reduce(0) { $0 << 7 | Int($1 & 0x7F) }
            pos = size
        }
        let idLength = version == 2 ? 3 : 4, headerLength = version == 2 ? 6 : 10
        for _ in 0..<Self.maxBlocks {
            guard pos >= 0, pos + headerLength <= d.count, d[pos] != 0 else { return }
            let id = String(decoding: d[pos..<(pos + idLength)], as: UTF8.self)
            let size: Int
            switch version {
            case 2: size = Int(d[pos + 3]) << 16 | Int(d[pos + 4]) << 8 | Int(d[pos + 5])
            case 3: size = Int(be32(d, pos + 4))
            default: size = d[(pos + 4)..<(pos + 8)].reduce(0) { $0 << 7 | Int($1 & 0x7F) }
            }
            let body = pos + headerLength
            guard size > 0, body + size <= d.count else { return }
            if id == "TCOM" || id == "TCM", tags["COMPOSER"] == nil, let text = Self.id3Text(d[body..<(body + size)]) {
                tags["COMPOSER"] = text
            }
            pos = body + size
        }
    }

    /// An ID3v2 text frame: an encoding byte (Latin-1, UTF-16 with BOM, UTF-16BE, UTF-8), then
    /// NUL-separated values, joined here with ", ".
    static func id3Text(_ frame: ArraySlice<UInt8>) -> String? {
        guard let encoding = frame.first else { return nil }
        let raw = frame.dropFirst()
        let text: String
        switch encoding {
        case 0: text = String(String.UnicodeScalarView(raw.map { Unicode.Scalar($0) }))
        case 1, 2:
            var units: [UInt16] = []
            var bigEndian = encoding == 2
            var i = raw.startIndex
            while i + 1 < raw.endIndex {
                let (a, b) = (raw[i], raw[i + 1])
                i += 2
                if a == 0xFF, b == 0xFE { bigEndian = false; continue }
                if a == 0xFE, b == 0xFF { bigEndian = true; continue }
                units.append(bigEndian ? UInt16(a) << 8 | UInt16(b) : UInt16(b) << 8 | UInt16(a))
            }
            text = String(decoding: units, as: UTF16.self)
        default: text = String(decoding: raw, as: UTF8.self)
        }
        let values = text.split(separator: "\u{0}").map { $0.trimmingSpaces() }.filter { !$0.isEmpty }
        return values.isEmpty ? nil : values.joined(separator: ", ")
    }

    // MARK: WAV

    mutating func parseWAV(_ s: MediaSource) {
        var pos = 12
        var byteRate = 0
        for _ in 0..<Self.maxBlocks {
            let c = s.bytes(pos, 8)
            guard c.count == 8 else { break }
            let id = String(decoding: c[0..<4], as: UTF8.self), length = Int(le32(c, 4))
            let body = pos + 8
            switch id {
            case "fmt ":
                let f = s.bytes(body, 16)
                if f.count == 16 {
                    channels = Int(le16(f, 2)); sampleRate = Int(le32(f, 4)); byteRate = Int(le32(f, 8))
                    bitRate = byteRate * 8
                }
            case "data":
                if byteRate > 0 { duration = Double(max(0, min(length, s.size - body))) / Double(byteRate) }
            case "LIST":
                let d = s.bytes(body, min(length, 1 << 20))
                if d.starts(with: Array("INFO".utf8)) { readINFO(d) }
            default:
                break
            }
            pos = body + length + (length & 1)
        }
    }

    /// RIFF INFO subchunks, mapped to Vorbis-comment names.
    mutating func readINFO(_ d: [UInt8]) {
        let names = ["INAM": "TITLE", "IART": "ARTIST", "IPRD": "ALBUM", "IGNR": "GENRE", "ICRD": "DATE",
                     "ITRK": "TRACKNUMBER", "IPRT": "TRACKNUMBER", "IMUS": "COMPOSER"]
        var pos = 4
        while pos + 8 <= d.count {
            let id = String(decoding: d[pos..<(pos + 4)], as: UTF8.self), length = Int(le32(d, pos + 4))
            let end = min(d.count, pos + 8 + length)
            if let key = names[id], tags[key] == nil {
                let raw = d[(pos + 8)..<end].prefix { $0 != 0 }
                let value = (String(validating: raw, as: UTF8.self) ?? String(String.UnicodeScalarView(raw.map { Unicode.Scalar($0) })))
                    .trimmingSpaces()
                if !value.isEmpty { tags[key] = value }
            }
            pos += 8 + length + (length & 1)
        }
    }

    // MARK: Ogg

    /// The first packets of the first logical stream (at most `count`, each at most 1 MiB).
    static func oggPackets(_ s: MediaSource, count: Int) -> (serial: UInt32, packets: [[UInt8]])? {
        var pos = 0, serial: UInt32?
        var packets: [[UInt8]] = [], current: [UInt8] = []
        for _ in 0..<64 {
            let h = s.bytes(pos, 27)
            guard h.count == 27, h.starts(with: Array("OggS".utf8)) else { break }
            let segments = Int(h[26])
            let lacing = s.bytes(pos + 27, segments)
            guard lacing.count == segments else { break }
            let pageSerial = le32(h, 14)
            let bodyStart = pos + 27 + segments, bodyLength = lacing.reduce(0) { $0 + Int($1) }
            if serial == nil { serial = pageSerial }
            if pageSerial == serial {
                let body = s.bytes(bodyStart, bodyLength)
                var i = 0
                for l in lacing {
                    let n = Int(l)
                    if i + n <= body.count, current.count < 1 << 20 { current += body[i..<(i + n)] }
                    i += n
                    if l < 255 {
                        packets.append(current); current = []
                        if packets.count == count { return (serial!, packets) }
                    }
                }
            }
            pos = bodyStart + bodyLength
        }
        return serial.map { ($0, packets) }
    }

    mutating func parseOgg(_ s: MediaSource) {
        container = .oggOther
        guard let (serial, packets) = Self.oggPackets(s, count: 2), let id = packets.first else { return }
        var preSkip = 0, rate = 0
        if id.starts(with: Array("OpusHead".utf8)), id.count >= 19 {
            container = .oggOpus
            channels = Int(id[9]); preSkip = Int(le16(id, 10)); rate = 48_000
            sampleRate = 48_000   // Opus always decodes at 48 kHz; the header's "input rate" is informational
            if packets.count > 1, packets[1].starts(with: Array("OpusTags".utf8)) { readComments(packets[1], from: 8) }
        } else if id.starts(with: [1] + Array("vorbis".utf8)), id.count >= 30 {
            container = .oggVorbis
            channels = Int(id[11]); rate = Int(le32(id, 12)); sampleRate = rate
            let nominal = Int(Int32(bitPattern: le32(id, 20)))
            if nominal > 0 { bitRate = nominal }
            if packets.count > 1, packets[1].starts(with: [3] + Array("vorbis".utf8)) { readComments(packets[1], from: 7) }
        } else {
            return
        }
        // The last page of the stream: its granule position counts samples (48 kHz for Opus).
        let tailStart = max(0, s.size - 65_536)
        let tail = s.bytes(tailStart, s.size - tailStart)
        var i = tail.count - 27
        while i >= 0 {
            if tail[i] == 0x4F, tail[i + 1] == 0x67, tail[i + 2] == 0x67, tail[i + 3] == 0x53, le32(tail, i + 14) == serial {
                let granule = Int64(bitPattern: UInt64(le32(tail, i + 6)) | UInt64(le32(tail, i + 10)) << 32)
                if granule > 0, rate > 0 {
                    duration = max(0, Double(granule - Int64(preSkip)) / Double(rate))
                    if let d = duration, d > 0, container == .oggOpus { bitRate = Int(Double(s.size) * 8 / d) }
                }
                break
            }
            i -= 1
        }
    }

    /// Vorbis comments: vendor string, then count × "NAME=value".
    mutating func readComments(_ p: [UInt8], from start: Int) {
        var pos = start
        func u32() -> Int? {
            guard pos + 4 <= p.count else { return nil }
            defer { pos += 4 }
            return Int(le32(p, pos))
        }
        guard let vendor = u32(), vendor <= p.count - pos else { return }
        pos += vendor
        guard let count = u32() else { return }
        for _ in 0..<min(count, Self.maxBlocks) {
            guard let n = u32(), n <= p.count - pos else { return }
            let field = p[pos..<(pos + n)]
            pos += n
            guard let eq = field.firstIndex(of: UInt8(ascii: "=")) else { continue }
            let key = String(decoding: field[..<eq], as: UTF8.self).uppercased()
            let value = String(decoding: field[(eq + 1)...], as: UTF8.self).trimmingSpaces()
            if tags[key] == nil, !value.isEmpty { tags[key] = value }
        }
    }

    // MARK: MP4

    mutating func parseMP4(_ s: MediaSource) {
        // A linear walk that steps into the containers on the way to mvhd and the iTunes tags
        // (moov/udta/meta/ilst/©wrt/data); children lie inside their parent, so stepping over a
        // box lands on its next sibling or its parent's.
        let containers: Set<String> = ["moov", "udta", "meta", "ilst"]
        let composer: [UInt8] = [0xA9, 0x77, 0x72, 0x74]   // ©wrt
        let day: [UInt8] = [0xA9, 0x64, 0x61, 0x79]        // ©day
        var pos = 0
        for _ in 0..<Self.maxBlocks {
            let h = s.bytes(pos, 16)
            guard h.count >= 8 else { return }
            var size = Int(be32(h, 0)), header = 8
            if size == 1, h.count == 16 { size = Int(clamping: be64(h, 8)); header = 16 } else if size == 0 { size = s.size - pos }
            guard size >= header else { return }
            let type = String(decoding: h[4..<8], as: UTF8.self)
            if containers.contains(type) {
                pos += header + (type == "meta" ? 4 : 0)   // meta is a full box
                continue
            }
            if type == "mvhd" {
                let d = s.bytes(pos + header, 32)
                if d.count >= 20 {
                    let (scale, length) = d[0] == 1 && d.count == 32 ? (be32(d, 20), be64(d, 24)) : (be32(d, 12), UInt64(be32(d, 16)))
                    if scale > 0, length > 0, length < UInt64.max / 2 { duration = Double(length) / Double(scale) }
                    mp4CreationTime = d[0] == 1 ? (d.count >= 12 ? be64(d, 4) : nil) : UInt64(be32(d, 4))
                }
            } else if Array(h[4..<8]) == composer || Array(h[4..<8]) == day {
                // data box: size, "data", type, locale, UTF-8 text
                let d = s.bytes(pos + header, min(size - header, 1 << 16))
                if d.count > 16, Array(d[4..<8]) == Array("data".utf8) {
                    let text = String(decoding: d[16..<min(d.count, max(16, Int(be32(d, 0))))], as: UTF8.self).trimmingSpaces()
                    if !text.isEmpty {
                        if Array(h[4..<8]) == composer { tags["COMPOSER"] = text } else { mp4Day = text }
                    }
                }
            }
            guard size <= s.size - pos else { return }
            pos += size
        }
    }
}

fileprivate func be32(_ b: [UInt8], _ i: Int) -> UInt32 { UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3]) }
fileprivate func be64(_ b: [UInt8], _ i: Int) -> UInt64 { UInt64(be32(b, i)) << 32 | UInt64(be32(b, i + 4)) }
fileprivate func le16(_ b: [UInt8], _ i: Int) -> UInt16 { UInt16(b[i]) | UInt16(b[i + 1]) << 8 }
fileprivate func le32(_ b: [UInt8], _ i: Int) -> UInt32 { UInt32(le16(b, i)) | UInt32(le16(b, i + 2)) << 16 }
