/// The name of one attribute, spelled as Core Spotlight spells it (`CSSearchableItemAttributeSet`),
/// in camelCase. These names are the JSON keys everywhere (`fsindex show --json`, `fsfind --json`).
///
/// For example: `AttributeKey.title`, `AttributeKey("pixelWidth")`.
public struct AttributeKey: RawRepresentable, Hashable, Comparable, Sendable, Codable,
    ExpressibleByStringLiteral, CustomStringConvertible
{
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }
    public var description: String { rawValue }
    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(rawValue)
    }
}

extension AttributeKey {
    // File-system facts.
    public static let path: Self = "path"
    public static let name: Self = "name"
    public static let displayName: Self = "displayName"
    public static let fileSize: Self = "fileSize"
    public static let contentModificationDate: Self = "contentModificationDate"
    public static let contentCreationDate: Self = "contentCreationDate"
    public static let attributeChangeDate: Self = "attributeChangeDate"
    /// When a person last used the item: the latest use recorded by `fsindex used` or read from
    /// the desktop's recently-used list (never the file's access time, which any backup or
    /// `grep` moves and `noatime` freezes).
    public static let lastUsedDate: Self = "lastUsedDate"
    /// How many uses were recorded for the item (Spotlight's `kMDItemUseCount`).
    public static let useCount: Self = "useCount"
    public static let ownerName: Self = "ownerName"
    public static let groupName: Self = "groupName"
    public static let fileIdentifier: Self = "fileIdentifier"
    public static let filePermissions: Self = "filePermissions"
    public static let symlinkTarget: Self = "symlinkTarget"
    public static let domainIdentifier: Self = "domainIdentifier"
    /// Where a donated item lives (a web page, a note's URL, a file): what it prints as.
    public static let contentURL: Self = "contentURL"
    // Type.
    public static let contentType: Self = "contentType"
    public static let contentTypeTree: Self = "contentTypeTree"
    public static let mimeType: Self = "mimeType"
    public static let kind: Self = "kind"
    // Content.
    public static let textContent: Self = "textContent"
    /// Two or three sentences of `textContent` that best represent it (Apple Intelligence's
    /// `textContentSummary`), for texts of 200 characters or more. Written after extraction by
    /// the summary pass, so an item may be without it for a while.
    public static let textContentSummary: Self = "textContentSummary"
    public static let title: Self = "title"
    public static let subject: Self = "subject"
    public static let authors: Self = "authors"
    public static let keywords: Self = "keywords"
    public static let contentDescription: Self = "contentDescription"
    /// A document's first heading (an HTML page's first `<h1>`): Core Spotlight's `headline`.
    /// Searched with the other text attributes, so a heading that is the query ranks high.
    public static let headline: Self = "headline"
    /// The document's language (Spotlight's `kMDItemLanguages`): the tag the document declares,
    /// kept whole (`en-US`, `de-CH`: HTML `lang`, PDF XMP / OOXML / ODF / EPUB `dc:language`),
    /// else the ISO 639-1 code the language identifier finds in its text (`en`); the identifier
    /// never replaces a declared tag (issue 28). `lang:en` still finds `en-US` documents, because
    /// the short form matches a value's words by prefix (`en-US` holds the word `en`), as does
    /// `kMDItemLanguages == "en*"w`.
    public static let language: Self = "language"
    public static let encoding: Self = "encoding"
    public static let generator: Self = "creator"
    public static let producer: Self = "producer"
    // The file system's own dates, when a document states its own `contentCreationDate` and
    // `contentModificationDate` (kMDItemFSCreationDate, kMDItemFSContentChangeDate).
    public static let fsCreationDate: Self = "fsCreationDate"
    public static let fsContentChangeDate: Self = "fsContentChangeDate"
    // Documents.
    public static let pageCount: Self = "pageCount"
    public static let pageWidth: Self = "pageWidth"
    public static let pageHeight: Self = "pageHeight"
    public static let securityMethod: Self = "securityMethod"
    public static let encrypted: Self = "encrypted"
    public static let identifier: Self = "identifier"
    public static let publishers: Self = "publishers"
    // Mail.
    public static let authorNames: Self = "authorNames"
    public static let authorEmailAddresses: Self = "authorEmailAddresses"
    public static let recipients: Self = "recipients"
    public static let recipientNames: Self = "recipientNames"
    public static let recipientEmailAddresses: Self = "recipientEmailAddresses"
    public static let attachmentNames: Self = "attachmentNames"
    public static let messageCount: Self = "messageCount"
    // Images.
    public static let pixelWidth: Self = "pixelWidth"
    public static let pixelHeight: Self = "pixelHeight"
    public static let orientation: Self = "orientation"
    public static let acquisitionMake: Self = "acquisitionMake"
    public static let acquisitionModel: Self = "acquisitionModel"
    public static let latitude: Self = "latitude"
    public static let longitude: Self = "longitude"
    public static let altitude: Self = "altitude"
    public static let exposureTime: Self = "exposureTime"
    public static let fNumber: Self = "fNumber"
    public static let focalLength: Self = "focalLength"
    public static let isoSpeed: Self = "isoSpeed"
    // Audio.
    public static let artist: Self = "artist"
    public static let album: Self = "album"
    public static let composer: Self = "composer"
    public static let genre: Self = "genre"
    public static let audioTrackNumber: Self = "audioTrackNumber"
    public static let recordingDate: Self = "recordingDate"
    public static let duration: Self = "duration"
    public static let audioBitRate: Self = "audioBitRate"
    public static let audioSampleRate: Self = "audioSampleRate"
    public static let audioChannelCount: Self = "audioChannelCount"
    // Archives.
    public static let memberCount: Self = "memberCount"
    /// How a single compressed file is encoded (`gzip`, `bzip2`, `xz`, `zstd`, `compress`); its
    /// text and inner type are the decompressed file's. HTTP's `Content-Encoding` values.
    public static let contentEncoding: Self = "contentEncoding"
    // Manual pages.
    /// A manual page's section as its `.TH`/`.Dt` line gives it (`1`, `3p`, `8`); `section:1`.
    public static let manualSection: Self = "manualSection"
    /// The names a manual page documents, from its NAME section (`gzip`, `gunzip`, `zcat`).
    public static let manualNames: Self = "manualNames"
    /// The page a manual page only includes (`.so man1/gunzip.1`): it is another name for that page.
    public static let manualInclude: Self = "manualInclude"
    // What people attach to a file, kept in its extended attributes (see `ExtendedAttributeMetadata`).
    /// The user's tags (`user.xdg.tags`, as Dolphin/Baloo write them): Spotlight's
    /// `kMDItemUserTags`. Matched whole and ignoring case by `tag:`.
    public static let userTags: Self = "userTags"
    /// The user's comment (`user.xdg.comment`): Spotlight's `kMDItemComment`. Its words are searchable.
    public static let comment: Self = "comment"
    /// Where the file came from (`user.xdg.origin.url`, then `user.xdg.referrer.url`):
    /// Spotlight's `kMDItemWhereFroms`.
    public static let whereFroms: Self = "whereFroms"
    /// The user's rating on Baloo's scale, an integer from 0 to 10: two per star, so 10 is five
    /// stars and an odd number ends in a half star (`user.baloo.rating`). Spotlight's
    /// `kMDItemStarRating` counts whole stars from 0 to 5: divide by two to compare.
    public static let rating: Self = "rating"
    // Events (issue 27: `.ics` files, CalendarExtractor), as Core Spotlight names them.
    /// When the event starts (the first occurrence, for a recurring one: see `recurrenceRule`).
    public static let startDate: Self = "startDate"
    /// When the event ends (for an all-day event: the day after its last day, as iCalendar says).
    public static let endDate: Self = "endDate"
    /// Whether the event covers whole days (a `DATE` value rather than a time).
    public static let allDay: Self = "allDay"
    /// Where the event takes place (iCalendar's `LOCATION`).
    public static let namedLocation: Self = "namedLocation"
    /// The people invited: attendees and the organizer, by name and address (Core Spotlight's
    /// `participants`, which its calendar domain searches for attendees).
    public static let participants: Self = "participants"
    /// The event's iCalendar recurrence rule (`FREQ=WEEKLY;BYDAY=MO`), as written: suggestions
    /// compute the next occurrence from it at the time they are asked for.
    public static let recurrenceRule: Self = "recurrenceRule"
    // Bookkeeping.
    /// Which content extractor produced the item (`pdf`, `mail`, ...); absent when none ran.
    public static let extractor: Self = "extractor"
    public static let extractionError: Self = "extractionError"
    public static let textTruncated: Self = "textTruncated"
}

// Priority (issue 27, part 7): Core Spotlight's `isPriority` for mail, with its reasons.
extension AttributeKey {
    /// Whether a mail message deserves attention now (Core Spotlight's `isPriority`): decided
    /// after indexing by the priority pass (in Updating) from the facts below, the mail "me"
    /// sent, and the time. Every decided message has it, true or false; other items have none.
    public static let isPriority: Self = "isPriority"
    /// Why `isPriority` is what it is: one line per piece of evidence that applied, each a
    /// stable code, a colon and a human text (`direct: addressed to you directly`,
    /// `correspondent: from someone you write to (bob@example.org)`, `deadline: mentions a date
    /// in the next 7 days: 2026-11-29`, `bulk: bulk or list mail (List-Unsubscribe)`, `sent:
    /// sent by you`).
    public static let priorityReasons: Self = "priorityReasons"
    /// The headers that mark a message as bulk or list mail, as found (`List-Unsubscribe`,
    /// `List-Id`, `Precedence: bulk`): the negative evidence for `isPriority`.
    public static let mailBulkHeaders: Self = "mailBulkHeaders"
    /// The days a message's text mentions, on or after its date and within a year (`2026-11-29`,
    /// from `29 November`, `Nov 29, 2026`, `2026-11-29` or `tomorrow`): ISO 8601 days.
    public static let mentionedDates: Self = "mentionedDates"
    /// The attributes of this block with their types (merged into `types`).
    static let priorityTypes: [AttributeKey: AttributeValueType] = [
        .isPriority: .bool, .priorityReasons: .strings, .mailBulkHeaders: .strings, .mentionedDates: .strings,
    ]
}

// Video (issue 28): what libavformat reads of movies and of the audio containers TagLib misses
// (VideoExtractor). Beside these, videos carry `duration`, `pixelWidth`/`pixelHeight`, `title`,
// `artist`/`authors`, `contentCreationDate`, `latitude`/`longitude`, `audioBitRate`,
// `audioSampleRate` and `audioChannelCount`.
extension AttributeKey {
    /// The codecs of the streams, in stream order, once each (`h264`, `aac`, `subrip`):
    /// Core Spotlight's `codecs`, named as libavcodec names them.
    public static let codecs: Self = "codecs"
    /// What the streams hold: `Video`, `Sound`, `Subtitle` (Core Spotlight's `mediaTypes`).
    public static let mediaTypes: Self = "mediaTypes"
    /// The first video stream's bit rate in bits per second (Core Spotlight's `videoBitRate`).
    public static let videoBitRate: Self = "videoBitRate"
    /// The whole file's bit rate in bits per second (Core Spotlight's `totalBitRate`).
    public static let totalBitRate: Self = "totalBitRate"
    /// The first video stream's frames per second (25, 29.97): Core Spotlight has no name for it.
    public static let frameRate: Self = "frameRate"
    /// The chapters, each `H:MM:SS title` (`0:01:30 The bridge`), in order: their titles are
    /// searchable and `show` lists them with their start times.
    public static let chapters: Self = "chapters"
    /// The languages of the subtitle tracks as the container tags them (ISO 639-2: `deu`,
    /// `fra`), once each; `und` (undetermined) is left out.
    public static let subtitleLanguages: Self = "subtitleLanguages"
    /// The attributes of this block with their types (merged into `types`).
    static let videoTypes: [AttributeKey: AttributeValueType] = [
        .codecs: .strings, .mediaTypes: .strings, .videoBitRate: .integer, .totalBitRate: .integer,
        .frameRate: .double, .chapters: .strings, .subtitleLanguages: .strings,
    ]
}

/// The kind of value an attribute holds, so that stored JSON decodes back to the right type and
/// queries compare like with like.
public enum AttributeValueType: Sendable, Hashable {
    case string, strings, integer, double, date, bool
}

extension AttributeKey {
    /// The value type of the well-known attributes; `nil` for names we do not know.
    public var valueType: AttributeValueType? { Self.types[self] }

    /// Every attribute FSIndex knows by name, with its type.
    public static let types: [AttributeKey: AttributeValueType] = [
        .path: .string, .name: .string, .displayName: .string, .fileSize: .integer,
        .contentModificationDate: .date, .contentCreationDate: .date, .attributeChangeDate: .date,
        .lastUsedDate: .date, .useCount: .integer, .ownerName: .string, .groupName: .string, .fileIdentifier: .string,
        .filePermissions: .string, .symlinkTarget: .string, .domainIdentifier: .string, .contentURL: .string,
        .contentType: .string, .contentTypeTree: .strings, .mimeType: .string, .kind: .string,
        .textContent: .string, .textContentSummary: .string, .title: .string, .subject: .string, .authors: .strings,
        .keywords: .strings, .contentDescription: .string, .headline: .string, .language: .string, .encoding: .string,
        .generator: .string, .extractionError: .string, .textTruncated: .bool,
        .producer: .string, .fsCreationDate: .date, .fsContentChangeDate: .date,
        .pageCount: .integer, .pageWidth: .double, .pageHeight: .double, .securityMethod: .string,
        .encrypted: .bool, .identifier: .string, .publishers: .strings,
        .authorNames: .strings, .authorEmailAddresses: .strings, .recipients: .strings,
        .recipientNames: .strings, .recipientEmailAddresses: .strings, .attachmentNames: .strings,
        .messageCount: .integer,
        .pixelWidth: .integer, .pixelHeight: .integer, .orientation: .integer,
        .acquisitionMake: .string, .acquisitionModel: .string, .latitude: .double, .longitude: .double,
        .altitude: .double, .exposureTime: .double, .fNumber: .double, .focalLength: .double, .isoSpeed: .integer,
        .artist: .string, .album: .string, .composer: .string, .genre: .string, .audioTrackNumber: .integer,
        .recordingDate: .date, .duration: .double, .audioBitRate: .integer, .audioSampleRate: .integer,
        .audioChannelCount: .integer, .memberCount: .integer, .extractor: .string,
        .contentEncoding: .string, .manualSection: .string, .manualNames: .strings, .manualInclude: .string,
        .userTags: .strings, .comment: .string, .whereFroms: .strings, .rating: .integer,
        // Events (issue 27).
        .startDate: .date, .endDate: .date, .allDay: .bool, .namedLocation: .string, .participants: .strings,
        .recurrenceRule: .string,
    ].merging(priorityTypes) { a, _ in a }.merging(videoTypes) { a, _ in a }.merging(recognitionTypes) { a, _ in a }

    /// Attributes whose words go into the full-text index beside the name, title and text.
    /// (`textContentSummary` is here so that it ranks like `subject`; its words are in the text
    /// too, so this weighs them up rather than making new ones findable.)
    public static let otherTextKeys: [AttributeKey] = [
        .subject, .textContentSummary, .authors, .keywords, .contentDescription, .headline, .generator, .producer,
        .authorNames, .authorEmailAddresses, .recipients, .recipientNames, .recipientEmailAddresses,
        .attachmentNames, .artist, .album, .composer, .genre, .acquisitionMake, .acquisitionModel, .publishers,
        .userTags, .comment, .namedLocation, .participants,
        // Video (issue 28).
        .chapters,
    ]
}

// OCR (issue 28): text read from pictures and scanned PDFs by Tesseract, after extraction.
extension AttributeKey {
    /// Where `textContent` came from when it was not read from the file's own text: `ocr` for
    /// text recognised in a picture or in a PDF's pages without a text layer. Absent otherwise.
    public static let textSource: Self = "textSource"
    /// The OCR recognizer's mean word confidence for `textContent`, 0 to 100 (Tesseract's
    /// `MeanTextConf`): the ranking weighs OCR text by it.
    public static let textConfidence: Self = "textConfidence"
    /// Why a picture or PDF that could hold text was not read by OCR (a photo without text, a
    /// picture too small, a recognizer that failed): it is tried again only when the file changes.
    public static let textRecognitionSkipped: Self = "textRecognitionSkipped"
    /// The attributes of this block with their types (merged into `types`).
    static let recognitionTypes: [AttributeKey: AttributeValueType] = [
        .textSource: .string, .textConfidence: .integer, .textRecognitionSkipped: .string,
    ]
}
