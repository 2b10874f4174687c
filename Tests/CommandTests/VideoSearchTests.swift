import Foundation
import SystemPackage
import TestSupport
import Testing

/// Issue 28's "done when" for video: `fsindex index` then `fsfind` finds a generated video by
/// its title, its duration (`duration:>10m kind:video`, `kMDItemDurationSeconds > 600`) and its
/// dimensions, and `kind:video` results carry the attributes.
@Suite("Videos through fsindex and fsfind", .blocking, .needsFFmpeg)
struct VideoSearchTests {
    static func fixture() throws -> CLIFixture {
        let f = try CLIFixture()
        try f.tree.createDirectory("root/videos")
        let dir = f.root + "/videos"
        try VideoFixture.make(VideoFixture.mp4, in: dir)
        try VideoFixture.make(VideoFixture.long, in: dir)
        try VideoFixture.make(VideoFixture.audio[0], in: dir)
        try VideoFixture.makeMatroska(in: dir)
        try f.tree.create("root/notes.txt", contents: "Harbour notes: eleven minutes of tide, filmed at dawn.\n")
        let r = try f.fsindex("index", f.root)
        #expect(r.status == 0, "\(r.stderr)")
        return f
    }

    func names(_ r: CommandResult) -> [String] { r.lines.map { String($0.split(separator: "/").last ?? "") }.sorted() }

    @Test("found by title, by duration in both query forms, and by dimensions")
    func found() throws {
        let f = try Self.fixture()
        #expect(names(try f.fsfind("title:harbour")) == ["harbour.mp4"])
        #expect(names(try f.fsfind("Harbour at dawn", "kind:video")) == ["harbour.mp4"])
        #expect(names(try f.fsfind("duration:>10m kind:video")) == ["tide.mp4"])
        #expect(names(try f.fsfind("kMDItemDurationSeconds > 600")) == ["tide.mp4"])
        #expect(names(try f.fsfind("duration:<90s")) == ["bridge.mkv", "harbour.mp4", "tone.mka"])
        #expect(names(try f.fsfind("duration:10m..12m")) == ["tide.mp4"])
        #expect(names(try f.fsfind("kMDItemPixelWidth == 320")) == ["bridge.mkv", "harbour.mp4"])
        #expect(names(try f.fsfind("kind:video width:16")) == ["tide.mp4"])
        #expect(names(try f.fsfind("kMDItemCodecs == \"aac\"")) == ["harbour.mp4"])
        #expect(names(try f.fsfind("kind:video")) == ["bridge.mkv", "harbour.mp4", "tide.mp4"])
        // Matroska audio (libmagic says video/x-matroska; the name's audio/x-matroska wins).
        #expect(names(try f.fsfind("kind:audio")) == ["tone.mka"])
        // A chapter's title is searchable; subtitle languages are a field.
        #expect(names(try f.fsfind("opening")) == ["bridge.mkv"])
        #expect(names(try f.fsfind("subtitleLanguages:fra")) == ["bridge.mkv"])
        let bad = try f.fsfind("duration:>10q")
        #expect(bad.status != 0)
        #expect(bad.stderr.contains("is not a length of time"), "\(bad.stderr)")
    }

    @Test("kind:video results carry the attributes; fsindex show lists them")
    func attributes() throws {
        let f = try Self.fixture()
        let r = try f.fsfind("--json", "--attr", "pixelWidth", "--attr", "pixelHeight", "--attr", "duration", "--attr", "codecs",
                             "--attr", "artist", "kind:video", "title:harbour")
        #expect(r.status == 0, "\(r.stderr)")
        let line = try #require(r.lines.first)
        let o = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let json = o
        #expect(json["pixelWidth"] as? Int == 320, "\(line)")
        #expect(json["pixelHeight"] as? Int == 240, "\(line)")
        #expect((json["duration"] as? Double).map { abs($0 - 2) < 0.05 } == true, "\(line)")
        #expect(json["codecs"] as? [String] == ["h264", "aac"], "\(line)")
        #expect(json["artist"] as? String == "Ada Lovelace", "\(line)")
        let show = try f.fsindex("show", f.root + "/videos/harbour.mp4")
        #expect(show.status == 0, "\(show.stderr)")
        #expect(show.out.contains("frameRate"), "\(show.out)")
        #expect(show.out.contains("latitude"), "\(show.out)")
        #expect(show.out.contains("extractor") && show.out.contains("\"video\""), "\(show.out)")
    }
}
