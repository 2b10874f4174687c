import Attributes
import FoundationEssentials

/// An MPEG-4 audio file's own creation date, for `contentCreationDate` (issue 28: an `.m4a`
/// showed its file-system date instead). The movie header (`moov`/`mvhd`) states when the file
/// was made, in seconds since 1904-01-01 UTC; the iTunes `©day` tag states a date or a year
/// (`2019`, `2019-04-02`, `2019-04-02T10:20:30Z`). Both are read by `parseMP4` through the
/// descriptor, with the other atoms.
///
/// The movie header wins when it is set: it is the file's own making (ffmpeg writes
/// `creation_time` there, a phone or recorder its clock), while `©day` is often the release
/// year of the music. A time of 0 (muxers that leave it unset write 0, which is 1904) or one
/// outside 1970–2100 is taken as unset, and `©day` is used instead.
///
/// For example, `ffmpeg … -metadata creation_time=2019-04-02T10:20:30Z x.m4a` gives
/// 2019-04-02 10:20:30 UTC; a file with an unset `mvhd` time and `©day` `2008` gives
/// 2008-01-01 00:00 UTC.
extension AudioHeader {
    /// Seconds from 1904-01-01 (the MP4 epoch) to 1970-01-01.
    static let mp4EpochOffset: Int64 = 2_082_844_800

    /// The file's creation date from `mvhd` or `©day`, nil when neither gives a plausible one.
    var mp4CreationDate: Date? {
        if let t = mp4CreationTime, t > UInt64(Self.mp4EpochOffset), t < UInt64(Int64.max / 2) {
            let unix = Int64(t) - Self.mp4EpochOffset
            if unix < 4_102_444_800 { return Date(timeIntervalSince1970: Double(unix)) }   // before 2100
        }
        guard let day = mp4Day, let date = DocumentFields.iso8601(day),
              date.timeIntervalSince1970 >= 0, date.timeIntervalSince1970 < 4_102_444_800 else { return nil }
        return date
    }
}

extension AudioExtractor {
    /// Sets `contentCreationDate` from an MP4 container's own dates (see `mp4CreationDate`).
    static func applyContainerDates(_ header: AudioHeader, to attributes: inout AttributeSet) {
        if header.container == .mp4, let created = header.mp4CreationDate {
            attributes[.contentCreationDate] = .date(created)
        }
    }
}
