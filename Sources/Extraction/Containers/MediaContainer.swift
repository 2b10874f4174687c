import CMediaProbe
import ExtractionModel

/// One media file's container as libavformat reads it (`CMediaProbe`): format, duration, bit
/// rate, tags, streams and chapters. It reads through the open descriptor with `pread`, never by
/// a name (a sandboxed worker may open none), and owns the C handle, freed in `deinit`.
///
/// libavformat is loaded on the first file (see `media_probe.c` for why it is not linked);
/// when it cannot be, every file says so as `ExtractionError.library`.
final class MediaContainer {
    private let handle: OpaquePointer

    /// Reads `file`'s container. Throws `.library` when libavformat cannot be loaded and
    /// `.malformed` (naming `extractor`) when it cannot read the file.
    init(_ file: ExtractionFile, extractor: String) throws(ExtractionError) {
        if let why = fsx_media_load() {
            throw .library("\(extractor): libavformat cannot be loaded (install libavformat59): \(String(cString: why))")
        }
        var error = [CChar](repeating: 0, count: 512)
        guard let h = fsx_media_open(file.descriptor, file.size, &error, error.count) else {
            throw .malformed(extractor: extractor, reason: String(decoding: error.prefix { $0 != 0 }.map(UInt8.init(bitPattern:)), as: UTF8.self))
        }
        handle = h
    }

    deinit { fsx_media_close(handle) }

    /// The demuxer's names (`mov,mp4,m4a,3gp,3g2,mj2`, `matroska,webm`, `avi`).
    var format: String? { fsx_media_format(handle).map { String(cString: $0) } }

    /// Seconds, when the container states or libavformat estimates it.
    var duration: Double? {
        let d = fsx_media_duration(handle)
        return d > 0 && d.isFinite ? d : nil
    }

    /// The whole file's bits per second.
    var bitRate: Int? {
        let r = fsx_media_bit_rate(handle)
        return r > 0 ? Int(r) : nil
    }

    /// The container's tag `key` (any case), else nil; with `stream`, that stream's.
    func tag(_ key: String, stream: Int = -1) -> String? {
        guard let c = fsx_media_tag(handle, Int32(stream), key) else { return nil }
        let s = String(cString: c).trimmingSpaces()
        return s.isEmpty ? nil : s
    }

    struct Stream {
        enum Kind { case video, audio, subtitle, other }
        var kind: Kind
        var codec: String?
        var width: Int, height: Int
        var frameRate: Double?
        var bitRate: Int?
        var sampleRate: Int, channels: Int
        var language: String?
        /// A picture attached as cover art (an MP4's or Matroska's), not a video track.
        var isCoverArt: Bool
    }

    var streams: [Stream] {
        (0..<Int(fsx_media_stream_count(handle))).map { i in
            var s = fsx_stream_info()
            fsx_media_stream(handle, Int32(i), &s)
            let kind: Stream.Kind = switch s.kind {
            case 0: .video
            case 1: .audio
            case 2: .subtitle
            default: .other
            }
            return Stream(kind: kind, codec: s.codec.map { String(cString: $0) }, width: Int(s.width), height: Int(s.height),
                          frameRate: s.fps_den > 0 && s.fps_num > 0 ? Double(s.fps_num) / Double(s.fps_den) : nil,
                          bitRate: s.bit_rate > 0 ? Int(s.bit_rate) : nil, sampleRate: Int(s.sample_rate), channels: Int(s.channels),
                          language: s.language.map { String(cString: $0) }, isCoverArt: s.attached_picture != 0)
        }
    }

    struct Chapter {
        var start: Double, end: Double
        var title: String?
    }

    var chapters: [Chapter] {
        (0..<Int(fsx_media_chapter_count(handle))).map { i in
            var end = 0.0
            var title: UnsafePointer<CChar>?
            let start = fsx_media_chapter(handle, Int32(i), &end, &title)
            let text = title.map { String(cString: $0).trimmingSpaces() }
            return Chapter(start: start, end: end, title: text?.isEmpty == false ? text : nil)
        }
    }
}
