import Attributes
import Crawling
@testable import Extraction
import ExtractionModel
import Foundation
import SystemPackage
import Testing
import TestSupport

/// Videos and audio made by ffmpeg in the test (issue 28, part 4), read back through
/// libavformat: every value is one the file was made with.
@Suite("VideoExtractor", .needsFFmpeg)
struct VideoExtractorTests {
    /// The generated files, made once for the suite.
    static let made: Result<TemporaryTree, VideoFixture.Failure> = {
        do {
            let tree = try TemporaryTree(prefix: "fsindex-video")
            let dir = tree.root.string
            for r in [VideoFixture.mp4, VideoFixture.mov, VideoFixture.avi, VideoFixture.webm] + VideoFixture.audio {
                try VideoFixture.make(r, in: dir)
            }
            try VideoFixture.makeMatroska(in: dir)
            return .success(tree)
        } catch let e as VideoFixture.Failure {
            return .failure(e)
        } catch {
            return .failure(VideoFixture.Failure(message: "\(error)"))
        }
    }()

    static func extracted(_ name: String) throws -> (ExtractionResult, AttributeSet) {
        let tree = try made.get()
        let r = try extract(tree.path(name))
        return (r, r.attributes)
    }

    @Test("MP4: duration, dimensions, frame rate, codecs, bit rates, title, artist, creation date, place")
    func mp4() throws {
        let (r, a) = try Self.extracted("harbour.mp4")
        #expect(r.extractor == "video")
        #expect(r.problems.isEmpty, "\(r.problems)")
        #expect(a.contentTypeTree.contains(.movie))
        #expect(near(doubleValue(a, .duration), 2.0, 0.05), "\(String(describing: a[.duration]))")
        #expect(a.integer(.pixelWidth) == 320)
        #expect(a.integer(.pixelHeight) == 240)
        #expect(doubleValue(a, .frameRate) == 25)
        #expect(a.strings(.codecs) == ["h264", "aac"])
        #expect(a.strings(.mediaTypes) == ["Video", "Sound"])
        #expect((a.integer(.totalBitRate) ?? 0) > 0)
        #expect((a.integer(.videoBitRate) ?? 0) > 0)
        #expect((a.integer(.audioBitRate) ?? 0) > 0)
        #expect(a.integer(.audioSampleRate) == 44100)
        #expect(a.integer(.audioChannelCount) == 1)
        #expect(a.title == "Harbour at dawn")
        #expect(a.string(.artist) == "Ada Lovelace")
        #expect(a.strings(.authors) == ["Ada Lovelace"])
        #expect(a.date(.contentCreationDate) == Date(timeIntervalSince1970: 1_714_557_600))   // 2024-05-01T10:00:00Z
        #expect(doubleValue(a, .latitude) == 48.8577)
        #expect(doubleValue(a, .longitude) == 2.2950)
    }

    @Test("Matroska: chapters with their times, subtitle languages, tags from an ffmetadata file")
    func matroska() throws {
        let (r, a) = try Self.extracted("bridge.mkv")
        #expect(r.extractor == "video")
        #expect(r.problems.isEmpty, "\(r.problems)")
        #expect(a.title == "Bridge chapters")
        #expect(a.string(.artist) == "Grace Hopper")
        #expect(a.strings(.chapters) == ["0:00:00 Opening", "0:00:01 The bridge"])
        #expect(a.strings(.subtitleLanguages) == ["deu", "fra"])
        #expect(a.strings(.codecs) == ["h264", "opus", "subrip"])
        #expect(a.strings(.mediaTypes) == ["Video", "Sound", "Subtitle"])
        #expect(a.integer(.pixelWidth) == 320)
        #expect(a.integer(.audioSampleRate) == 48000)
        #expect(near(doubleValue(a, .duration), 2.0, 0.05))
    }

    @Test("MOV, AVI and WebM: each container's dimensions, codecs, duration and title",
          arguments: [("ferry.mov", 320, 240, ["h264", "aac"], 2.0, "Ferry crossing"),
                      ("lighthouse.avi", 320, 240, ["mpeg4", "mp3"], 2.0, "Lighthouse keeper"),
                      ("gulls.webm", 64, 48, ["vp8", "opus"], 1.0, "Gulls over the pier")])
    func containers(_ name: String, _ width: Int, _ height: Int, _ codecs: [String], _ seconds: Double, _ title: String) throws {
        let (r, a) = try Self.extracted(name)
        #expect(r.extractor == "video")
        #expect(r.problems.isEmpty, "\(r.problems)")
        #expect(a.contentTypeTree.contains(.movie), "\(a.contentTypeTree)")
        #expect(a.integer(.pixelWidth) == Int64(width))
        #expect(a.integer(.pixelHeight) == Int64(height))
        #expect(a.strings(.codecs) == codecs)
        #expect(near(doubleValue(a, .duration), seconds, 0.1), "\(String(describing: a[.duration]))")
        #expect(doubleValue(a, .frameRate) == 25)
        #expect(a.title == title)
        if name.hasSuffix(".mov") { #expect(a.date(.contentCreationDate) == Date(timeIntervalSince1970: 1_675_397_106)) } // 2023-02-03T04:05:06Z
        if name.hasSuffix(".avi") { #expect(a.string(.artist) == "Alan Turing") }
    }

    @Test("audio TagLib misses: Matroska audio, raw AAC (ADTS), AC-3, AIFF",
          arguments: [("tone.mka", "vorbis", "Tone in Matroska"), ("tone.aac", "aac", nil), ("tone.ac3", "ac3", nil),
                      ("tone.aiff", "pcm_s16be", "Tone in AIFF")] as [(String, String, String?)])
    func audio(_ name: String, _ codec: String, _ title: String?) throws {
        let (r, a) = try Self.extracted(name)
        #expect(r.extractor == "video")
        #expect(r.problems.isEmpty, "\(r.problems)")
        // Typed by their names (`.mka` is audio/x-matroska, though libmagic says video/x-matroska).
        #expect(a.contentTypeTree.contains(.audio) && !a.contentTypeTree.contains(.movie), "\(a.contentTypeTree)")
        #expect(a.strings(.codecs) == [codec])
        #expect(a.strings(.mediaTypes) == ["Sound"])
        #expect(near(doubleValue(a, .duration), 2.0, 0.05), "\(String(describing: a[.duration]))")
        #expect(a.integer(.audioSampleRate) == 44100)
        #expect(a.integer(.audioChannelCount) == 1)
        #expect(a[.pixelWidth] == nil)
        #expect(a.title == title)
    }

    @Test("a truncated MP4 and random bytes named .mp4 are recorded as errors, not crashes")
    func damaged() throws {
        let tree = try Self.made.get()
        let whole = try Data(contentsOf: URL(fileURLWithPath: tree.path("harbour.mp4").string))
        let cut = try tree.create("cut.mp4", bytes: Array(whole.prefix(4000)))
        var generator = SplitMix64(seed: 28)
        let noise = try tree.create("noise.mp4", bytes: (0..<6000).map { _ in UInt8(truncatingIfNeeded: generator.next()) })
        let r = try extract(cut)
        #expect(r.extractor == "video")
        #expect(r.problems.map(\.description) == ["video: not a container libavformat reads: moov atom not found"])
        #expect(r.attributes.string(.extractionError)?.hasPrefix("video: ") == true)
        let n = try extract(noise)
        #expect(n.problems.count == 1 && n.problems[0].description.hasPrefix("video: "), "\(n.problems)")
    }

    @Test("ISO 6709 places and container dates")
    func values() {
        let paris = VideoExtractor.iso6709("+48.8577+002.2950/")
        #expect(paris?.latitude == 48.8577 && paris?.longitude == 2.295 && paris?.altitude == nil)
        let sydney = VideoExtractor.iso6709("-33.8568+151.2153+004.500/")
        #expect(sydney?.latitude == -33.8568 && sydney?.longitude == 151.2153 && sydney?.altitude == 4.5)
        #expect(VideoExtractor.iso6709("+91.0+000.0/") == nil)
        #expect(VideoExtractor.iso6709("Paris") == nil)
        #expect(VideoExtractor.date("2024-05-01T10:00:00.000000Z") == Date(timeIntervalSince1970: 1_714_557_600))
        #expect(VideoExtractor.date("2024-05-01") == Date(timeIntervalSince1970: 1_714_521_600))
        #expect(VideoExtractor.date("1904-01-01T00:00:00Z") == nil)
        #expect(VideoExtractor.clock(3725.9) == "1:02:05")
    }
}
