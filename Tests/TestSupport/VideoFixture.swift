import Foundation

/// Short videos and audio files made by Debian's ffmpeg (issue 28), each with metadata that the
/// video tests expect back exactly: 2-second 320×240 25 fps test pictures with a 440 Hz tone
/// (mono, 44.1 kHz), a Matroska file with chapters and German and French subtitles, and an
/// 11-minute 16×16 one-frame-a-second clip for `duration:>10m` (10 KB).
package enum VideoFixture {
    /// Debian's ffmpeg, if installed.
    package static let ffmpeg: String? = ["/usr/bin/ffmpeg", "/usr/local/bin/ffmpeg"].first { FileManager.default.isExecutableFile(atPath: $0) }
    package static var isAvailable: Bool { ffmpeg != nil }
    package static let skipReason = "needs ffmpeg (Debian: ffmpeg) to make the test videos"

    /// A file to make: its name and ffmpeg's arguments (inputs, codecs, metadata).
    package struct Recipe: Sendable {
        package var name: String
        package var arguments: [String]
    }

    static let picture = ["-f", "lavfi", "-i", "testsrc=duration=2:size=320x240:rate=25"]
    static let tone = ["-f", "lavfi", "-i", "sine=duration=2"]
    static let h264 = ["-c:v", "libx264", "-preset", "ultrafast"]

    /// H.264 and AAC with a title, an artist, a creation time and a place (the Eiffel Tower).
    package static let mp4 = Recipe(name: "harbour.mp4", arguments: picture + tone + h264 + ["-c:a", "aac",
        "-metadata", "title=Harbour at dawn", "-metadata", "artist=Ada Lovelace",
        "-metadata", "creation_time=2024-05-01T10:00:00Z", "-metadata", "location=+48.8577+002.2950/"])
    /// QuickTime, H.264 and AAC.
    package static let mov = Recipe(name: "ferry.mov", arguments: picture + tone + h264 + ["-c:a", "aac",
        "-metadata", "title=Ferry crossing", "-metadata", "creation_time=2023-02-03T04:05:06Z"])
    /// AVI, MPEG-4 part 2 and MP3.
    package static let avi = Recipe(name: "lighthouse.avi", arguments: picture + tone + ["-c:v", "mpeg4", "-c:a", "libmp3lame",
        "-metadata", "title=Lighthouse keeper", "-metadata", "artist=Alan Turing"])
    /// WebM, VP8 and Opus (64×48, one second: VP8 is the slow encoder here).
    package static let webm = Recipe(name: "gulls.webm", arguments: ["-f", "lavfi", "-i", "testsrc=duration=1:size=64x48:rate=25", "-f", "lavfi", "-i", "sine=duration=1",
        "-c:v", "libvpx", "-deadline", "realtime", "-cpu-used", "8", "-c:a", "libopus", "-metadata", "title=Gulls over the pier"])
    /// Eleven minutes of one 16×16 colour, one frame a second.
    package static let long = Recipe(name: "tide.mp4", arguments: ["-f", "lavfi", "-i", "color=c=blue:s=16x16:r=1:d=660"] + h264
        + ["-metadata", "title=Eleven minutes of tide"])
    /// Audio containers TagLib misses: Matroska audio, raw AAC (ADTS), AC-3, AIFF.
    package static let audio: [Recipe] = [
        Recipe(name: "tone.mka", arguments: tone + ["-c:a", "libvorbis", "-metadata", "title=Tone in Matroska"]),
        Recipe(name: "tone.aac", arguments: tone + ["-c:a", "aac"]),
        Recipe(name: "tone.ac3", arguments: tone + ["-c:a", "ac3"]),
        Recipe(name: "tone.aiff", arguments: tone + ["-metadata", "title=Tone in AIFF"]),
    ]

    /// Makes `recipe` in `directory`; returns its path.
    @discardableResult
    package static func make(_ recipe: Recipe, in directory: String) throws -> String {
        let out = directory + "/" + recipe.name
        try run(recipe.arguments + [out])
        return out
    }

    /// Matroska with H.264 and Opus, a title and an artist, two chapters ("Opening" at 0 s and
    /// "The bridge" at 1 s, from an ffmetadata file) and two SubRip tracks tagged `deu` and `fra`.
    @discardableResult
    package static func makeMatroska(in directory: String, name: String = "bridge.mkv") throws -> String {
        let meta = directory + "/.chapters.txt", de = directory + "/.de.srt", fr = directory + "/.fr.srt"
        try ";FFMETADATA1\ntitle=Bridge chapters\nartist=Grace Hopper\n\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=0\nEND=1000\ntitle=Opening\n\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=1000\nEND=2000\ntitle=The bridge\n"
            .write(toFile: meta, atomically: true, encoding: .utf8)
        try "1\n00:00:00,000 --> 00:00:01,000\nHallo\n".write(toFile: de, atomically: true, encoding: .utf8)
        try "1\n00:00:00,000 --> 00:00:01,000\nBonjour\n".write(toFile: fr, atomically: true, encoding: .utf8)
        defer { for f in [meta, de, fr] { try? FileManager.default.removeItem(atPath: f) } }
        let out = directory + "/" + name
        try run(picture + tone + ["-i", meta, "-i", de, "-i", fr, "-map", "0:v", "-map", "1:a", "-map", "3", "-map", "4",
                                  "-map_metadata", "2", "-map_chapters", "2"] + h264
                + ["-c:a", "libopus", "-c:s", "srt", "-metadata:s:s:0", "language=deu", "-metadata:s:s:1", "language=fra", out])
        return out
    }

    /// Runs ffmpeg quietly, overwriting; throws with what it printed when it fails.
    static func run(_ arguments: [String]) throws {
        guard let ffmpeg else { throw Failure(message: skipReason) }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: ffmpeg)
        p.arguments = ["-nostdin", "-hide_banner", "-loglevel", "error", "-y", "-threads", "1"] + arguments
        let err = Pipe()
        p.standardError = err
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        let said = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else {
            throw Failure(message: "ffmpeg \(arguments.joined(separator: " ")) failed: " + String(decoding: said, as: UTF8.self))
        }
    }

    package struct Failure: Error, CustomStringConvertible {
        package var message: String
        package var description: String { message }
        package init(message: String) { self.message = message }
    }
}

#if canImport(Testing)
import Testing

extension Trait where Self == ConditionTrait {
    /// For a test that makes videos with ffmpeg: skipped, with the reason, where it is missing.
    package static var needsFFmpeg: Self {
        .enabled(if: VideoFixture.isAvailable, Comment(rawValue: VideoFixture.skipReason))
    }
}
#endif
