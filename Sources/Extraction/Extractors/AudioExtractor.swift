import Attributes
import ExtractionModel
import CTagLib
import CTagLibStream
import FoundationEssentials

/// Audio files: MP3 (ID3v1, ID3v2.2–2.4), FLAC, Ogg Vorbis, Ogg Opus, MPEG-4 audio (M4A),
/// WAV and WMA, through TagLib's C API plus `AudioHeader` for what that API lacks.
///
/// Gives `title`, `artist` (also as `authors`, as Spotlight does), `album`, `genre`,
/// `audioTrackNumber`, `recordingDate` (the day a Vorbis-comment DATE gives, else January 1 of the
/// tag's year; UTC), `duration` (seconds),
/// `audioBitRate` (bits per second), `audioSampleRate` (Hz) and `audioChannelCount`; for MP4,
/// `contentCreationDate` from the movie header or `©day` (`applyContainerDates`).
/// `composer` comes from the tags `AudioHeader` reads itself (ID3v2 TCOM, MP4 ©wrt, Vorbis
/// comments of FLAC and Ogg, WAV INFO): TagLib 1.13's C API has no property map.
///
/// TagLib reads the open descriptor itself (`CTagLibStream`, a `TagLib::FileStream`): a
/// sandboxed worker may not open the file by any name, `/proc/self/fd/N` included (Landlock
/// checks the real file, and a worker started by root runs as `nobody`). Without a name there is
/// no extension to pick the format from, so it is chosen here from the leading bytes. WAV and Opus have no type in that
/// API; `AudioHeader` reads them whole. TagLib's whole-second length is replaced by the exact
/// duration where the container states it (FLAC, Ogg, MP4, WAV) or the audio bytes over the bit
/// rate give it (MP3).
///
/// For example, `testMP3id3v24.mp3` gives `title` "Test Title", `audioTrackNumber` 3,
/// `recordingDate` 2008-01-01 and `audioSampleRate` 44100.
package struct AudioExtractor: Extractor {
    package var name: String { "audio" }

    package init() {}

    /// The types read; other `public.audio` files (AIFF, MIDI, ...) only when their first bytes
    /// show one of these containers, so that an unsupported format is not reported as damaged.
    static let types: Set<ContentType> = [
        "public.mp3", "org.xiph.flac", "org.xiph.ogg-vorbis", "org.xiph.opus", "com.microsoft.waveform-audio",
        "com.apple.m4a-audio", "public.mpeg-4-audio", "com.microsoft.windows-media-wma",
    ]

    package func accepts(_ input: ExtractionInput) -> Bool {
        guard input.conforms(to: .audio) else { return false }
        return input.contentTypeTree.contains(where: Self.types.contains) || AudioHeader.sniff(input.bytes) != .unknown
    }

    /// TagLib's global string settings, once per process: UTF-8 strings, freed by the caller.
    static let tagLibReady: Bool = {
        taglib_set_strings_unicode(1)
        taglib_set_string_management_enabled(0)
        return true
    }()

    package func extract(_ input: ExtractionInput, into attributes: inout AttributeSet) throws(ExtractionError) {
        let size = Int(input.file?.size ?? Int64(input.bytes.count))
        let header = AudioHeader(MediaSource(head: input.bytes, size: size, file: input.file))
        var tags = Tags()
        var opened = false
        if let type = Self.tagLibType(header.container, input), let file = input.file, Self.tagLibReady {
            opened = tags.read(descriptor: file.descriptor, type: type)
        }
        // Tags the header parser read itself (all of Opus and WAV, the composer of the others)
        // fill what TagLib did not give.
        let own = header.tags
        tags.title = tags.title ?? own["TITLE"]
        tags.artist = tags.artist ?? own["ARTIST"]
        tags.album = tags.album ?? own["ALBUM"]
        tags.genre = tags.genre ?? own["GENRE"]
        tags.composer = own["COMPOSER"]
        if tags.track == nil, let t = own["TRACKNUMBER"].flatMap(Self.leadingNumber), t > 0 { tags.track = t }
        if tags.year == nil, let y = own["DATE"].flatMap(Self.leadingNumber), (1000...9999).contains(y) { tags.year = y }

        if let v = tags.title { attributes[.title] = .string(v) }
        if let v = tags.artist {
            attributes[.artist] = .string(v)
            attributes[.authors] = .strings([v])
        }
        if let v = tags.album { attributes[.album] = .string(v) }
        if let v = tags.composer { attributes[.composer] = .string(v) }
        if let v = tags.genre { attributes[.genre] = .string(v) }
        if let v = tags.track { attributes[.audioTrackNumber] = .integer(Int64(v)) }
        if let date = Self.recordingDate(year: tags.year, stated: own["DATE"]) { attributes[.recordingDate] = .date(date) }
        Self.applyContainerDates(header, to: &attributes)

        let bitRate = header.bitRate ?? tags.bitRate
        var duration = header.duration
        if duration == nil, header.container == .mpeg, let bytes = header.mpegAudioBytes, let rate = tags.bitRate, rate > 0 {
            let estimate = Double(bytes) * 8 / Double(rate)
            // Trust the estimate only where it agrees with TagLib's own whole seconds.
            if tags.seconds.map({ abs(Double($0) - estimate) < 1.5 }) ?? true { duration = estimate }
        }
        if duration == nil, let s = tags.seconds, s > 0 { duration = Double(s) }
        if let v = duration, v > 0 { attributes[.duration] = .double(v) }
        if let v = bitRate, v > 0 { attributes[.audioBitRate] = .integer(Int64(v)) }
        if let v = header.sampleRate ?? tags.sampleRate, v > 0 { attributes[.audioSampleRate] = .integer(Int64(v)) }
        if let v = header.channels ?? tags.channels, v > 0 { attributes[.audioChannelCount] = .integer(Int64(v)) }

        let readable = opened || header.container == .wav || header.container == .oggOpus
        guard readable, duration != nil || tags.sampleRate != nil || header.sampleRate != nil else {
            let kind = Self.kind(header.container) ?? input.contentType.rawValue
            let tagged = tags.title != nil || tags.artist != nil || tags.album != nil
            throw .malformed(extractor: name, reason: tagged
                ? "truncated or damaged: its tags are readable but no \(kind) audio stream was found"
                : "not a readable \(kind) file: no tags and no audio stream found")
        }
    }

    /// A name for error messages.
    static func kind(_ container: AudioHeader.Container) -> String? {
        switch container {
        case .mpeg: "MP3"
        case .flac: "FLAC"
        case .oggVorbis: "Ogg Vorbis"
        case .oggOpus: "Ogg Opus"
        case .mp4: "MPEG-4 audio"
        case .wav: "WAV"
        case .asf: "WMA"
        case .oggOther, .unknown: nil
        }
    }

    /// The TagLib type to open, from the container the bytes show (the detected type decides
    /// for MPEG audio whose first frame is not at the start).
    static func tagLibType(_ container: AudioHeader.Container, _ input: ExtractionInput) -> TagLib_File_Type? {
        switch container {
        case .mpeg: TagLib_File_MPEG
        case .flac: TagLib_File_FLAC
        case .oggVorbis: TagLib_File_OggVorbis
        case .mp4: TagLib_File_MP4
        case .asf: TagLib_File_ASF
        case .unknown where input.conforms(to: "public.mp3"): TagLib_File_MPEG
        default: nil
        }
    }

    /// The day a Vorbis comment DATE states ("2010-01-26"), if it agrees with the year; else
    /// January 1 of the year. UTC either way.
    static func recordingDate(year: Int?, stated: String?) -> Date? {
        let digits = Array((stated ?? "").utf8.prefix(10))
        if digits.count == 10, digits[4] == UInt8(ascii: "-"), digits[7] == UInt8(ascii: "-"),
           let y = Int(String(decoding: digits[0..<4], as: UTF8.self)), let m = Int(String(decoding: digits[5..<7], as: UTF8.self)),
           let d = Int(String(decoding: digits[8..<10], as: UTF8.self)),
           year == nil || year == y, (1000...9999).contains(y), (1...12).contains(m), (1...31).contains(d) {
            return Date(timeIntervalSince1970: Double(daysFromCivil(year: y, month: m, day: d) * 86_400))
        }
        return year.map { Date(timeIntervalSince1970: Double(daysFromCivil(year: $0, month: 1, day: 1) * 86_400)) }
    }

    /// "2010-01-26" → 2010, "3/12" → 3.
    static func leadingNumber(_ s: String) -> Int? {
        Int(String(s.trimmingSpaces().prefix { $0.isASCII && $0.isNumber }.prefix(9)))
    }

    /// What TagLib read.
    struct Tags {
        var title: String?, artist: String?, album: String?, genre: String?, composer: String?
        var track: Int?, year: Int?
        var seconds: Int?, bitRate: Int?, sampleRate: Int?, channels: Int?

        /// Reads the open file `descriptor` as `type`; false when TagLib cannot read it.
        mutating func read(descriptor: Int32, type: TagLib_File_Type) -> Bool {
            guard let handle = taglib_stream_open(descriptor, Int32(bitPattern: type.rawValue)) else { return false }
            defer { taglib_stream_close(handle) }
            let file = taglib_stream_file(handle).assumingMemoryBound(to: TagLib_File.self)
            guard taglib_file_is_valid(file) != 0 else { return false }
            if let tag = taglib_file_tag(file) {
                func text(_ c: UnsafeMutablePointer<CChar>?) -> String? {
                    guard let c else { return nil }
                    defer { taglib_free(c) }
                    let s = String(cString: c).trimmingSpaces()
                    return s.isEmpty ? nil : s
                }
                title = text(taglib_tag_title(tag))
                artist = text(taglib_tag_artist(tag))
                album = text(taglib_tag_album(tag))
                genre = text(taglib_tag_genre(tag))
                let t = taglib_tag_track(tag), y = taglib_tag_year(tag)
                if t > 0 { track = Int(t) }
                if (1000...9999).contains(y) { year = Int(y) }
            }
            if let p = taglib_file_audioproperties(file) {
                let length = Int(taglib_audioproperties_length(p)), rate = Int(taglib_audioproperties_bitrate(p))
                let hz = Int(taglib_audioproperties_samplerate(p)), ch = Int(taglib_audioproperties_channels(p))
                if length > 0 { seconds = length }
                if rate > 0 { bitRate = rate * 1000 }
                if hz > 0 { sampleRate = hz }
                if ch > 0 { channels = ch }
            }
            return true
        }
    }
}
