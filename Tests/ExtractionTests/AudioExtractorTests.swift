import Attributes
import Crawling
@testable import Extraction
import ExtractionModel
import Foundation
import Testing
import TestSupport

@Suite("AudioExtractor", .blocking)
struct AudioExtractorTests {
    /// What mutagen 1.48 (and a look at the bytes) shows for each real file.
    struct Expected: Sendable, CustomStringConvertible {
        var file: String
        var type: ContentType
        var title: String?
        var artist: String?
        var album: String?
        var track: Int64?
        /// The recording date, seconds since 1970 (UTC).
        var recorded: Double?
        var duration: Double
        var sampleRate: Int64
        var channels: Int64
        var description: String { file }
    }

    static let files: [Expected] = [
        .init(file: "audio/testMP3id3v1.mp3", type: "public.mp3", title: "Test Title", artist: "Test Artist",
              album: "Test Album", track: 1, recorded: 1_199_145_600, duration: 2.4555, sampleRate: 44100, channels: 1),
        .init(file: "audio/testMP3id3v2.mp3", type: "public.mp3", title: "Test Title", artist: "Test Artist",
              album: "Test Album", track: 1, recorded: 1_199_145_600, duration: 2.4555, sampleRate: 44100, channels: 1),
        .init(file: "audio/testMP3id3v24.mp3", type: "public.mp3", title: "Test Title", artist: "Test Artist",
              album: "Test Album", track: 3, recorded: 1_199_145_600, duration: 2.4555, sampleRate: 44100, channels: 1),
        .init(file: "audio/testMP3i18n.mp3", type: "public.mp3", title: "Une chason en Français", artist: "Test Artist ⑨①",
              album: "Test Album ①⑨", track: 1, recorded: 1_199_145_600, duration: 2.4555, sampleRate: 44100, channels: 1),
        .init(file: "audio/testMP3noid3.mp3", type: "public.mp3", title: nil, artist: nil, album: nil, track: nil, recorded: nil,
              duration: 2.4555, sampleRate: 44100, channels: 1),
        .init(file: "audio/testFLAC.flac", type: "org.xiph.flac", title: "Test Title", artist: "Test Artist",
              album: "Test Album", track: 1, recorded: 1_264_464_000, duration: 0.021769, sampleRate: 44100, channels: 2),
        .init(file: "audio/testVORBIS.ogg", type: "org.xiph.ogg-vorbis", title: "Test Title", artist: "Test Artist",
              album: "Test Album", track: 1, recorded: 1_264_464_000, duration: 0.021769, sampleRate: 44100, channels: 2),
        .init(file: "audio/testOPUS.opus", type: "org.xiph.opus", title: "Test Title", artist: "Test Artist",
              album: nil, track: nil, recorded: nil, duration: 0.021771, sampleRate: 48000, channels: 2),
        .init(file: "audio/testMP4.m4a", type: "com.apple.m4a-audio", title: "Test Title", artist: "Test Artist",
              album: "Test Album", track: 1, recorded: 1_199_145_600, duration: 0.069660, sampleRate: 44100, channels: 2),
        .init(file: "audio/testWAV.wav", type: "com.microsoft.waveform-audio", title: nil, artist: nil, album: nil,
              track: nil, recorded: nil, duration: 0.021769, sampleRate: 44100, channels: 2),
    ]

    @Test("tags and stream properties of each real file", .realCorpus, arguments: files)
    func realFiles(_ e: Expected) throws {
        let r = try extractReal(e.file)
        let a = r.attributes
        #expect(r.extractor == "audio")
        #expect(a.contentType == e.type)
        #expect(a.contentTypeTree.contains(.audio))
        #expect(r.problems.isEmpty, "\(r.problems)")
        #expect(a.title == e.title)
        #expect(a.string(.artist) == e.artist)
        #expect(a.strings(.authors) == (e.artist.map { [$0] } ?? []))
        #expect(a.string(.album) == e.album)
        #expect(a.integer(.audioTrackNumber) == e.track)
        #expect(a.date(.recordingDate) == e.recorded.map(Date.init(timeIntervalSince1970:)))
        #expect(near(doubleValue(a, .duration), e.duration, e.duration * 0.01), "\(String(describing: a[.duration]))")
        #expect(a.integer(.audioSampleRate) == e.sampleRate)
        #expect(a.integer(.audioChannelCount) == e.channels)
        #expect((a.integer(.audioBitRate) ?? 0) > 0)
    }

    @Test("genre, bit rate and the recording year as a date", .realCorpus)
    func details() throws {
        let mp3 = try extractReal("audio/testMP3id3v2.mp3").attributes
        #expect(mp3.string(.genre) == "Rock")
        #expect(mp3.integer(.audioBitRate) == 128_000)
        #expect(mp3.date(.recordingDate) == Date(timeIntervalSince1970: 1_199_145_600))   // 2008-01-01 UTC
        let flac = try extractReal("audio/testFLAC.flac").attributes
        #expect(flac.string(.genre) == "Test Genre")
        #expect(flac.date(.recordingDate) == Date(timeIntervalSince1970: 1_264_464_000))  // DATE=2010-01-26, UTC
        #expect(AudioExtractor.recordingDate(year: 2011, stated: "2010-01-26") == Date(timeIntervalSince1970: 1_293_840_000))
        #expect(AudioExtractor.recordingDate(year: nil, stated: "2010-13-01") == nil)
        let wav = try extractReal("audio/testWAV.wav").attributes
        #expect(wav.integer(.audioBitRate) == 1_411_200)
    }

    @Test("the real m4a's creation date is its movie header's, not the file's (issue 28)", .realCorpus)
    func realMP4Created() throws {
        let a = try extractReal("audio/testMP4.m4a").attributes
        #expect(a.date(.contentCreationDate) == Date(timeIntervalSince1970: 1_327_775_958))   // mvhd: 2012-01-28 18:39:18 UTC
    }

    @Test("composer: MP4 ©wrt, ID3v2.3/2.4 TCOM and a FLAC Vorbis comment (TagLib's C API has none)", .realCorpus)
    func composer() throws {
        #expect(try extractReal("audio/testMP4.m4a").attributes.string(.composer) == "Test Composer")

        let mp3 = try Data(contentsOf: URL(fileURLWithPath: RealCorpus.file("audio/testMP3noid3.mp3").string))
        func id3(version: UInt8, frames: [UInt8]) -> [UInt8] {
            let n = frames.count
            return Array("ID3".utf8) + [version, 0, 0] + [UInt8(n >> 21 & 0x7F), UInt8(n >> 14 & 0x7F), UInt8(n >> 7 & 0x7F), UInt8(n & 0x7F)] + frames
        }
        func frame(_ id: String, _ body: [UInt8], syncsafe: Bool) -> [UInt8] {
            let n = body.count
            let size = syncsafe ? [UInt8(n >> 21 & 0x7F), UInt8(n >> 14 & 0x7F), UInt8(n >> 7 & 0x7F), UInt8(n & 0x7F)]
                : [UInt8(n >> 24), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)]
            return Array(id.utf8) + size + [0, 0] + body
        }
        let utf16: [UInt8] = [1, 0xFF, 0xFE] + "Erik Satie".utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] } + [0, 0]
        let v23 = id3(version: 3, frames: frame("TIT2", [0] + Array("Gymnopedie".utf8), syncsafe: false)
                      + frame("TCOM", utf16, syncsafe: false))
        let v24 = id3(version: 4, frames: frame("TCOM", [3] + Array("Éric Satie".utf8), syncsafe: true))
        let tree = try TemporaryTree()
        let a = try extract(try tree.create("v23.mp3", bytes: v23 + Array(mp3))).attributes
        #expect(a.title == "Gymnopedie")
        #expect(a.string(.composer) == "Erik Satie")
        let b = try extract(try tree.create("v24.mp3", bytes: v24 + Array(mp3))).attributes
        #expect(b.string(.composer) == "Éric Satie")
        #expect(near(doubleValue(b, .duration), 2.4555, 0.03))

        // The real FLAC's STREAMINFO, then a VORBIS_COMMENT block of our own, then its frames.
        let flac = Array(try Data(contentsOf: URL(fileURLWithPath: RealCorpus.file("audio/testFLAC.flac").string)))
        var pos = 4
        while true {
            let last = flac[pos] & 0x80 != 0
            pos += 4 + (Int(flac[pos + 1]) << 16 | Int(flac[pos + 2]) << 8 | Int(flac[pos + 3]))
            if last { break }
        }
        func le(_ n: Int) -> [UInt8] { [UInt8(n & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n >> 16 & 0xFF), UInt8(n >> 24)] }
        let fields = ["TITLE=Vexations", "COMPOSER=Erik Satie"].map { le($0.utf8.count) + Array($0.utf8) }
        let comment = le(3) + Array("fsi".utf8) + le(fields.count) + fields.flatMap { $0 }
        let streamInfo = [flac[4] & 0x7F] + flac[5..<42]
        let rebuilt = Array("fLaC".utf8) + streamInfo + [0x84, 0, UInt8(comment.count >> 8), UInt8(comment.count & 0xFF)] + comment
            + flac[pos...]
        let c = try extract(try tree.create("satie.flac", bytes: rebuilt)).attributes
        #expect(c.string(.composer) == "Erik Satie")
        #expect(c.title == "Vexations")
        #expect(c.integer(.audioSampleRate) == 44100)
    }

    @Test("WAV LIST/INFO tags", .realCorpus)
    func wavInfo() throws {
        var wav = Array(try Data(contentsOf: URL(fileURLWithPath: RealCorpus.file("audio/testWAV.wav").string)))
        func le(_ n: Int) -> [UInt8] { [UInt8(n & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n >> 16 & 0xFF), UInt8(n >> 24)] }
        func sub(_ id: String, _ text: String) -> [UInt8] {
            let v = Array(text.utf8) + [0]
            return Array(id.utf8) + le(v.count) + v + (v.count % 2 == 1 ? [0] : [])
        }
        let info = Array("INFO".utf8) + sub("INAM", "Gnossienne") + sub("IART", "Erik Satie") + sub("ICRD", "1890-05-01")
            + sub("ITRK", "4")
        wav += Array("LIST".utf8) + le(info.count) + info
        wav.replaceSubrange(4..<8, with: le(wav.count - 8))
        let tree = try TemporaryTree()
        let r = try extract(try tree.create("info.wav", bytes: wav))
        #expect(r.problems.isEmpty, "\(r.problems)")
        #expect(r.attributes.title == "Gnossienne")
        #expect(r.attributes.string(.artist) == "Erik Satie")
        #expect(r.attributes.integer(.audioTrackNumber) == 4)
        #expect(r.attributes.date(.recordingDate) == AudioExtractor.recordingDate(year: 1890, stated: "1890-05-01"))
        #expect(r.attributes.integer(.audioSampleRate) == 44100)
    }

    @Test("a truncated MP3 (the corpus's own): its ID3 tag, and a problem for the missing audio", .realCorpus)
    func truncatedMP3() throws {
        let r = try extractReal("audio/testMP3truncated.mp3")
        #expect(r.extractor == "audio")
        #expect(r.attributes.title == "Girl you have no faith in medicine")
        #expect(r.attributes.string(.artist) == "The White Stripes")
        #expect(r.attributes.string(.album) == "Elephant")
        #expect(r.attributes.integer(.audioTrackNumber) == 13)
        #expect(r.problems.contains { "\($0)".hasPrefix("audio: truncated") }, "\(r.problems)")
    }

    @Test("the first half of each real file: a clear problem or partial attributes, never a crash", .realCorpus,
          arguments: files.map(\.file))
    func truncated(_ file: String) throws {
        let whole = try Data(contentsOf: URL(fileURLWithPath: RealCorpus.file(file).string))
        let tree = try TemporaryTree()
        let name = String(file.split(separator: "/").last!)
        let r = try extract(try tree.create(name, bytes: Array(whole.prefix(whole.count / 2))))
        #expect(r.extractor == "audio")
        let flagged = r.problems.contains { "\($0)".hasPrefix("audio: ") }
        #expect(flagged || r.attributes.integer(.audioSampleRate) != nil, "\(r.problems)")
    }

    @Test("a file named .mp3 that is not audio gets a clear problem")
    func notAudio() throws {
        let tree = try TemporaryTree()
        let noise = (0..<4096).map { UInt8(truncatingIfNeeded: $0 * 7919 + 13) }
        let r = try extract(try tree.create("noise.mp3", bytes: noise))
        if r.extractor == "audio" {
            #expect(r.problems.contains { "\($0)".contains("not a readable") }, "\(r.problems) \(r.attributes)")
            #expect(r.attributes[.duration] == nil)
        }
        let empty = try extract(try tree.create("short.flac", bytes: Array("fLaC".utf8)))
        #expect(empty.extractor == nil || !empty.problems.isEmpty)
    }

    @Test("an audio format it does not read (AIFF) is left to libavformat (VideoExtractor), not reported as damaged")
    func unsupported() throws {
        let tree = try TemporaryTree()
        let aiff = Array("FORM".utf8) + [0, 0, 0, 30] + Array("AIFFCOMM".utf8) + [0, 0, 0, 18, 0, 2, 0, 0, 0, 0, 0, 16]
            + [0x40, 0x0E, 0xAC, 0x44, 0, 0, 0, 0, 0, 0]
        let r = try extract(try tree.create("tone.aiff", bytes: aiff))
        #expect(r.attributes.contentTypeTree.contains(.audio))
        #expect(r.extractor == "video")   // issue 28; AudioExtractor does not claim it
        #expect(r.problems.isEmpty, "\(r.problems)")
        #expect(r.attributes.integer(.audioChannelCount) == 2)
        #expect(r.attributes.integer(.audioSampleRate) == 44100)
    }

    @Test("mutated and cut copies of every real file never trap the header parser", .realCorpus, arguments: files.map(\.file))
    func mutations(_ file: String) throws {
        let original = Array(try Data(contentsOf: URL(fileURLWithPath: RealCorpus.file(file).string)))
        var rng = SplitMix64(seed: UInt64(original.count))
        for round in 0..<300 {
            var bytes = original
            for _ in 0..<(1 + round % 8) {
                // Mostly in the headers, where the parser looks.
                let i = Int(rng.next() % UInt64(round % 2 == 0 ? min(bytes.count, 4096) : bytes.count))
                bytes[i] = round % 3 == 0 ? 0xFF : UInt8(truncatingIfNeeded: rng.next())
            }
            if round % 5 == 0 { bytes = Array(bytes.prefix(Int(rng.next() % UInt64(bytes.count)))) }
            let h = AudioHeader(MediaSource(head: bytes, size: bytes.count, file: nil))
            #expect((h.duration ?? 0) >= 0)
        }
    }

    @Test("Ogg pages, Vorbis comments and RIFF chunks are read within bounds")
    func hostileHeaders() {
        let inputs: [[UInt8]] = [
            Array("OggS".utf8) + [0, 2] + [UInt8](repeating: 0xFF, count: 21),                // lacing past the end
            Array("RIFF".utf8) + [0xFF, 0xFF, 0xFF, 0xFF] + Array("WAVEfmt ".utf8) + [0xFF, 0xFF, 0xFF, 0x7F],
            Array("fLaC".utf8) + [0, 0, 0, 34] + [UInt8](repeating: 0, count: 34),            // sample rate 0
            [0, 0, 0, 1] + Array("ftyp".utf8) + [UInt8](repeating: 0xFF, count: 8),
            Array("ID3".utf8) + [4, 0, 0, 0x7F, 0x7F, 0x7F, 0x7F],
        ]
        for bytes in inputs {
            let h = AudioHeader(MediaSource(head: bytes, size: bytes.count, file: nil))
            #expect(h.duration == nil)
        }
        var header = AudioHeader(MediaSource(head: [], size: 0, file: nil))
        // Vendor length and a comment length that overrun the packet.
        header.readComments(Array("OpusTags".utf8) + [3, 0, 0, 0] + Array("abc".utf8) + [2, 0, 0, 0] + [6, 0, 0, 0] + Array("TITLE=x".utf8)
                            + [0xFF, 0xFF, 0xFF, 0x7F], from: 8)
        #expect(header.tags["TITLE"] == nil)   // "TITLE=x" is 7 bytes, not 6: cut to "TITLE="
    }

    // MARK: Issue 28: an MP4's own creation date

    static let ffmpeg = "/usr/bin/ffmpeg"

    /// Runs ffmpeg with `arguments`, quietly; its exit status.
    static func runFFmpeg(_ arguments: [String]) throws -> Int32 {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: ffmpeg)
        p.arguments = ["-nostdin", "-loglevel", "error", "-y"] + arguments
        try p.run()
        p.waitUntilExit()
        return p.terminationStatus
    }

    @Test("an m4a's creation date from its mvhd creation time, else its ©day",
          .enabled(if: FileManager.default.isExecutableFile(atPath: ffmpeg), "needs ffmpeg (Debian package ffmpeg)"))
    func mp4CreationDate() throws {
        let tree = try TemporaryTree()
        // mvhd creation time 2019-04-02 10:20:30 UTC (ffmpeg's creation_time), ©day "2019".
        let made = tree.path("made.m4a")
        #expect(try Self.runFFmpeg(["-f", "lavfi", "-i", "sine=duration=1", "-metadata", "date=2019",
                                    "-metadata", "creation_time=2019-04-02T10:20:30Z", made.string]) == 0)
        let a = try extract(made).attributes
        #expect(a.contentType == "com.apple.m4a-audio")
        #expect(a.date(.contentCreationDate) == Date(timeIntervalSince1970: 1_554_200_430))
        #expect(a[.contentCreationDate] != a[.fsCreationDate])

        // Without creation_time ffmpeg writes 0 (1904): the ©day date is used, a whole day here.
        let tagged = tree.path("tagged.m4a")
        #expect(try Self.runFFmpeg(["-f", "lavfi", "-i", "sine=duration=1", "-metadata", "date=2017-06-05", tagged.string]) == 0)
        #expect(try extract(tagged).attributes.date(.contentCreationDate) == Date(timeIntervalSince1970: 1_496_620_800))

        // Neither: the file's own date stays.
        let bare = tree.path("bare.m4a")
        #expect(try Self.runFFmpeg(["-f", "lavfi", "-i", "sine=duration=1", "-map_metadata", "-1", bare.string]) == 0)
        let b = try extract(bare).attributes
        #expect(b[.contentCreationDate] == b[.fsCreationDate])
    }

    @Test("the movie header's creation time, version 0 and 1, and ©day forms")
    func mp4DateParsing() {
        var h = AudioHeader(MediaSource(head: [], size: 0, file: nil))
        h.mp4CreationTime = 0xD8C8_E7EE   // 2019-04-02 10:20:30 UTC
        #expect(h.mp4CreationDate == Date(timeIntervalSince1970: 1_554_200_430))
        h.mp4CreationTime = 0             // unset: 1904
        h.mp4Day = "2008"
        #expect(h.mp4CreationDate == Date(timeIntervalSince1970: 1_199_145_600))
        h.mp4Day = "2019-04-02T10:20:30Z"
        #expect(h.mp4CreationDate == Date(timeIntervalSince1970: 1_554_200_430))
        h.mp4Day = "sometime"
        #expect(h.mp4CreationDate == nil)
    }
}
