import Attributes
import ExtractionModel
import FoundationEssentials

/// Movies (MP4, MOV, Matroska, WebM, AVI, ASF/WMV, MPEG-TS, Ogg video, ...) and the audio
/// containers TagLib misses (Matroska audio, raw AAC and AC-3, AMR, AIFF, ...), through
/// libavformat (`MediaContainer`).
///
/// Gives `duration` (seconds), `pixelWidth`/`pixelHeight` and `frameRate` of the first video
/// stream that is not cover art, `codecs`, `mediaTypes`, `totalBitRate`, `videoBitRate` and
/// `audioBitRate` (bits per second), `audioSampleRate`, `audioChannelCount`, `title`, `artist`
/// (also as `authors`, as Spotlight does), `album`, `genre`, `composer`, `contentDescription`,
/// `contentCreationDate` (the container's `creation_time`, UTC), `latitude`/`longitude`
/// (`altitude`) from an ISO 6709 `location` (an MP4's `©xyz`), `chapters` and
/// `subtitleLanguages`.
///
/// It comes after `AudioExtractor`, which keeps the formats TagLib reads; it takes the movie
/// types and the audio types in `audioTypes` (by MIME type, since most of them have no UTI of
/// their own), so that a format libavformat is not asked to read (MIDI, a tracker module) is
/// not reported as damaged.
///
/// For example, a 2-second 320×240 H.264 MP4 made with `-metadata title="Harbour at dawn"`
/// gives `duration` 2, `pixelWidth` 320, `codecs` ["h264", "aac"] and `title` "Harbour at dawn".
package struct VideoExtractor: Extractor {
    package var name: String { "video" }

    package init() {}

    /// Audio MIME types read here: the containers and raw streams TagLib 1.13's C API cannot
    /// open. (MP3, FLAC, Ogg, M4A, WAV and WMA are `AudioExtractor`'s, which comes first.)
    static let audioTypes: Set<String> = [
        "audio/x-matroska", "audio/webm", "audio/aac", "audio/x-aac", "audio/x-hx-aac-adts", "audio/ac3",
        "audio/vnd.dolby.dd-raw", "audio/eac3", "audio/amr", "audio/amr-wb", "audio/3gpp", "audio/3gpp2",
        "audio/x-aiff", "audio/aiff", "audio/x-aifc", "audio/x-ape", "audio/x-wavpack",
        "audio/x-tta", "audio/x-musepack", "audio/x-caf", "audio/basic", "audio/x-dts", "audio/vnd.dts", "audio/x-voc",
        "audio/x-flac+ogg", "audio/x-speex+ogg",
    ]

    /// Movie MIME types libavformat's listed demuxers read (not image-like ones: MNG, FLIC).
    static let movieTypes: Set<String> = [
        "video/mp4", "video/quicktime", "video/x-matroska", "video/webm", "video/x-msvideo", "video/avi",
        "video/x-ms-asf", "video/x-ms-wmv", "video/x-flv", "video/mp2t", "video/mpeg", "video/ogg", "video/x-ogm+ogg",
        "video/3gpp", "video/3gpp2", "video/x-m4v", "video/dv", "video/mj2",
        "application/vnd.rn-realmedia", "application/mxf",
    ]

    package func accepts(_ input: ExtractionInput) -> Bool {
        // The open file comes with `extract`, not here; a decompressed inner file has none.
        guard input.decompressedName == nil else { return false }
        let mime = input.mimeType.lowercased()
        if input.conforms(to: .movie) || mime.hasPrefix("video/") { return Self.movieTypes.contains(mime) }
        return input.conforms(to: .audio) && Self.audioTypes.contains(mime)
    }

    package func extract(_ input: ExtractionInput, into attributes: inout AttributeSet) throws(ExtractionError) {
        guard let file = input.file else { throw .malformed(extractor: name, reason: "the file is not open") }
        let media = try MediaContainer(file, extractor: name)
        let streams = media.streams
        let video = streams.first { $0.kind == .video && !$0.isCoverArt && $0.width > 0 && $0.height > 0 }
        let audio = streams.first { $0.kind == .audio }
        guard video != nil || audio != nil else {
            throw .malformed(extractor: name, reason: "no video or audio stream found in this \(media.format ?? "container")")
        }

        if let d = media.duration { attributes[.duration] = .double(d) }
        if let v = video {
            attributes[.pixelWidth] = .integer(Int64(v.width))
            attributes[.pixelHeight] = .integer(Int64(v.height))
            if let r = v.frameRate, r > 0, r < 1000 { attributes[.frameRate] = .double((r * 1000).rounded() / 1000) }
            if let b = v.bitRate { attributes[.videoBitRate] = .integer(Int64(b)) }
        }
        if let a = audio {
            if let b = a.bitRate { attributes[.audioBitRate] = .integer(Int64(b)) }
            if a.sampleRate > 0 { attributes[.audioSampleRate] = .integer(Int64(a.sampleRate)) }
            if a.channels > 0 { attributes[.audioChannelCount] = .integer(Int64(a.channels)) }
        }
        if let b = media.bitRate { attributes[.totalBitRate] = .integer(Int64(b)) }
        let codecs = Self.unique(streams.filter { !$0.isCoverArt }.compactMap(\.codec))
        if !codecs.isEmpty { attributes[.codecs] = .strings(codecs) }
        var types: [String] = []
        if video != nil { types.append("Video") }
        if audio != nil { types.append("Sound") }
        if streams.contains(where: { $0.kind == .subtitle }) { types.append("Subtitle") }
        attributes[.mediaTypes] = .strings(types)
        let subtitles = Self.unique(streams.filter { $0.kind == .subtitle }.compactMap(\.language).filter { $0 != "und" })
        if !subtitles.isEmpty { attributes[.subtitleLanguages] = .strings(subtitles) }

        // Tags: the container's, else the first stream's (Ogg and some Matroska files keep
        // them on the stream).
        let first = streams.firstIndex { $0.kind == .video || $0.kind == .audio } ?? 0
        func tag(_ keys: String...) -> String? {
            for k in keys { if let v = media.tag(k) { return v } }
            for k in keys { if let v = media.tag(k, stream: first) { return v } }
            return nil
        }
        if let v = tag("title") { attributes[.title] = .string(v) }
        if let v = tag("artist", "author", "album_artist") {
            attributes[.artist] = .string(v)
            attributes[.authors] = .strings([v])
        }
        if let v = tag("album") { attributes[.album] = .string(v) }
        if let v = tag("genre") { attributes[.genre] = .string(v) }
        if let v = tag("composer") { attributes[.composer] = .string(v) }
        if let v = tag("description", "comment", "synopsis") { attributes[.contentDescription] = .string(v) }
        if let v = tag("creation_time", "date"), let d = Self.date(v) { attributes[.contentCreationDate] = .date(d) }
        if let v = tag("location", "location-eng"), let p = Self.iso6709(v) {
            attributes[.latitude] = .double(p.latitude)
            attributes[.longitude] = .double(p.longitude)
            if let a = p.altitude { attributes[.altitude] = .double(a) }
        }
        let chapters = media.chapters.map { c in Self.clock(c.start) + (c.title.map { " " + $0 } ?? "") }
        if !chapters.isEmpty { attributes[.chapters] = .strings(chapters) }
    }

    static func unique(_ values: [String]) -> [String] {
        var seen = Set<String>()
        return values.filter { seen.insert($0).inserted }
    }

    /// `H:MM:SS` of `seconds` (whole seconds, rounded down).
    static func clock(_ seconds: Double) -> String {
        let s = seconds.isFinite ? max(0, Int(seconds)) : 0
        let m = s / 60 % 60, sec = s % 60
        return "\(s / 3600):" + (m < 10 ? "0" : "") + "\(m):" + (sec < 10 ? "0" : "") + "\(sec)"
    }

    /// `2024-05-01T10:00:00.000000Z`, `2024-05-01 10:00:00` or `2024-05-01` as UTC; nil for
    /// anything else, and for the zero dates of containers that were never given one (1904, 1970).
    static func date(_ text: String) -> Date? {
        let b = Array(text.utf8)
        func number(_ r: Range<Int>) -> Int? {
            guard r.upperBound <= b.count, b[r].allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
            return b[r].reduce(0) { $0 * 10 + Int($1 - 0x30) }
        }
        guard b.count >= 10, b[4] == UInt8(ascii: "-"), b[7] == UInt8(ascii: "-"),
              let y = number(0..<4), let mo = number(5..<7), let d = number(8..<10),
              (1971...9999).contains(y), (1...12).contains(mo), (1...31).contains(d) else { return nil }
        var seconds = 0
        if b.count >= 19, b[10] == UInt8(ascii: "T") || b[10] == UInt8(ascii: " "), b[13] == UInt8(ascii: ":"), b[16] == UInt8(ascii: ":") {
            guard let h = number(11..<13), let mi = number(14..<16), let s = number(17..<19), h < 24, mi < 60, s < 61 else { return nil }
            seconds = h * 3600 + mi * 60 + s
        }
        return Date(timeIntervalSince1970: Double(daysFromCivil(year: y, month: mo, day: d) * 86_400 + seconds))
    }

    /// ISO 6709 as MP4 and QuickTime store a place: `+48.8577+002.2950/`, with an optional
    /// altitude (`+48.8577+002.2950+035.000/`); decimal degrees only.
    static func iso6709(_ text: String) -> (latitude: Double, longitude: Double, altitude: Double?)? {
        var numbers: [Double] = []
        var current = ""
        for c in text {
            if c == "+" || c == "-" || c == "/" {
                if !current.isEmpty {
                    guard let n = Double(current) else { return nil }
                    numbers.append(n)
                }
                current = c == "/" ? "" : String(c)
                if c == "/" { break }
            } else if c.isASCII && (c.isNumber || c == ".") {
                guard !current.isEmpty else { return nil }
                current.append(c)
            } else {
                return nil
            }
        }
        if !current.isEmpty, let n = Double(current) { numbers.append(n) }
        guard numbers.count >= 2, abs(numbers[0]) <= 90, abs(numbers[1]) <= 180 else { return nil }
        return (numbers[0], numbers[1], numbers.count >= 3 ? numbers[2] : nil)
    }
}
