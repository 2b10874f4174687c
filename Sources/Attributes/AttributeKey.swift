/// The name of one attribute, spelled as Core Spotlight spells it (`CSSearchableItemAttributeSet`),
/// in camelCase. These names are the JSON keys everywhere (`fsindex show --json`, `fsfind --json`).
///
/// For example: `AttributeKey.title`, `AttributeKey("pixelWidth")`.
package struct AttributeKey: StringName {
    package let rawValue: String
    package init(rawValue: String) { self.rawValue = rawValue }
    package init(_ rawValue: String) { self.rawValue = rawValue }
}

extension AttributeKey {
    // File-system facts.
    package static let path: Self = "path"
    package static let name: Self = "name"
    package static let displayName: Self = "displayName"
    package static let fileSize: Self = "fileSize"
    package static let contentModificationDate: Self = "contentModificationDate"
    package static let contentCreationDate: Self = "contentCreationDate"
    package static let attributeChangeDate: Self = "attributeChangeDate"
    /// When a person last used the item: the latest use recorded by `fsindex used` or read from
    /// the desktop's recently-used list (never the file's access time, which any backup or
    /// `grep` moves and `noatime` freezes).
    package static let lastUsedDate: Self = "lastUsedDate"
    /// How many uses were recorded for the item (Spotlight's `kMDItemUseCount`).
    package static let useCount: Self = "useCount"
    package static let ownerName: Self = "ownerName"
    package static let groupName: Self = "groupName"
    package static let fileIdentifier: Self = "fileIdentifier"
    package static let filePermissions: Self = "filePermissions"
    package static let symlinkTarget: Self = "symlinkTarget"
    package static let domainIdentifier: Self = "domainIdentifier"
    /// Where a donated item lives (a web page, a note's URL, a file): what it prints as.
    package static let contentURL: Self = "contentURL"
    // Type.
    package static let contentType: Self = "contentType"
    package static let contentTypeTree: Self = "contentTypeTree"
    package static let mimeType: Self = "mimeType"
    package static let kind: Self = "kind"
    // Content.
    package static let textContent: Self = "textContent"
    /// Two or three sentences of `textContent` that best represent it (Apple Intelligence's
    /// `textContentSummary`), for texts of 200 characters or more. Written after extraction by
    /// the summary pass, so an item may be without it for a while.
    package static let textContentSummary: Self = "textContentSummary"
    package static let title: Self = "title"
    package static let subject: Self = "subject"
    package static let authors: Self = "authors"
    package static let keywords: Self = "keywords"
    package static let contentDescription: Self = "contentDescription"
    /// A document's first heading (an HTML page's first `<h1>`): Core Spotlight's `headline`.
    /// Searched with the other text attributes, so a heading that is the query ranks high.
    package static let headline: Self = "headline"
    /// The document's language (Spotlight's `kMDItemLanguages`): the tag the document declares,
    /// kept whole (`en-US`, `de-CH`: HTML `lang`, PDF XMP / OOXML / ODF / EPUB `dc:language`),
    /// else the ISO 639-1 code the language identifier finds in its text (`en`); the identifier
    /// never replaces a declared tag (issue 28). `lang:en` still finds `en-US` documents, because
    /// the short form matches a value's words by prefix (`en-US` holds the word `en`), as does
    /// `kMDItemLanguages == "en*"w`.
    package static let language: Self = "language"
    package static let encoding: Self = "encoding"
    package static let generator: Self = "creator"
    package static let producer: Self = "producer"
    // The file system's own dates, when a document states its own `contentCreationDate` and
    // `contentModificationDate` (kMDItemFSCreationDate, kMDItemFSContentChangeDate).
    package static let fsCreationDate: Self = "fsCreationDate"
    package static let fsContentChangeDate: Self = "fsContentChangeDate"
    // Documents.
    package static let pageCount: Self = "pageCount"
    package static let pageWidth: Self = "pageWidth"
    package static let pageHeight: Self = "pageHeight"
    package static let securityMethod: Self = "securityMethod"
    package static let encrypted: Self = "encrypted"
    package static let identifier: Self = "identifier"
    package static let publishers: Self = "publishers"
    // Mail.
    package static let authorNames: Self = "authorNames"
    package static let authorEmailAddresses: Self = "authorEmailAddresses"
    package static let recipients: Self = "recipients"
    package static let recipientNames: Self = "recipientNames"
    package static let recipientEmailAddresses: Self = "recipientEmailAddresses"
    package static let attachmentNames: Self = "attachmentNames"
    package static let messageCount: Self = "messageCount"
    // Images.
    package static let pixelWidth: Self = "pixelWidth"
    package static let pixelHeight: Self = "pixelHeight"
    package static let orientation: Self = "orientation"
    package static let acquisitionMake: Self = "acquisitionMake"
    package static let acquisitionModel: Self = "acquisitionModel"
    package static let latitude: Self = "latitude"
    package static let longitude: Self = "longitude"
    package static let altitude: Self = "altitude"
    package static let exposureTime: Self = "exposureTime"
    package static let fNumber: Self = "fNumber"
    package static let focalLength: Self = "focalLength"
    package static let isoSpeed: Self = "isoSpeed"
    // Audio.
    package static let artist: Self = "artist"
    package static let album: Self = "album"
    package static let composer: Self = "composer"
    package static let genre: Self = "genre"
    package static let audioTrackNumber: Self = "audioTrackNumber"
    package static let recordingDate: Self = "recordingDate"
    package static let duration: Self = "duration"
    package static let audioBitRate: Self = "audioBitRate"
    package static let audioSampleRate: Self = "audioSampleRate"
    package static let audioChannelCount: Self = "audioChannelCount"
    // Archives.
    package static let memberCount: Self = "memberCount"
    /// How a single compressed file is encoded (`gzip`, `bzip2`, `xz`, `zstd`, `compress`); its
    /// text and inner type are the decompressed file's. HTTP's `Content-Encoding` values.
    package static let contentEncoding: Self = "contentEncoding"
    // Manual pages.
    /// A manual page's section as its `.TH`/`.Dt` line gives it (`1`, `3p`, `8`); `section:1`.
    package static let manualSection: Self = "manualSection"
    /// The names a manual page documents, from its NAME section (`gzip`, `gunzip`, `zcat`).
    package static let manualNames: Self = "manualNames"
    /// The page a manual page only includes (`.so man1/gunzip.1`): it is another name for that page.
    package static let manualInclude: Self = "manualInclude"
    // What people attach to a file, kept in its extended attributes (see `ExtendedAttributeMetadata`).
    /// The user's tags (`user.xdg.tags`, as Dolphin/Baloo write them): Spotlight's
    /// `kMDItemUserTags`. Matched whole and ignoring case by `tag:`.
    package static let userTags: Self = "userTags"
    /// The user's comment (`user.xdg.comment`): Spotlight's `kMDItemComment`. Its words are searchable.
    package static let comment: Self = "comment"
    /// Where the file came from (`user.xdg.origin.url`, then `user.xdg.referrer.url`):
    /// Spotlight's `kMDItemWhereFroms`.
    package static let whereFroms: Self = "whereFroms"
    /// The user's rating on Baloo's scale, an integer from 0 to 10: two per star, so 10 is five
    /// stars and an odd number ends in a half star (`user.baloo.rating`). Spotlight's
    /// `kMDItemStarRating` counts whole stars from 0 to 5: divide by two to compare.
    package static let rating: Self = "rating"
    // Events (issue 27: `.ics` files, CalendarExtractor), as Core Spotlight names them.
    /// When the event starts (the first occurrence, for a recurring one: see `recurrenceRule`).
    package static let startDate: Self = "startDate"
    /// When the event ends (for an all-day event: the day after its last day, as iCalendar says).
    package static let endDate: Self = "endDate"
    /// Whether the event covers whole days (a `DATE` value rather than a time).
    package static let allDay: Self = "allDay"
    /// Where the event takes place (iCalendar's `LOCATION`).
    package static let namedLocation: Self = "namedLocation"
    /// The people invited: attendees and the organizer, by name and address (Core Spotlight's
    /// `participants`, which its calendar domain searches for attendees).
    package static let participants: Self = "participants"
    /// The event's iCalendar recurrence rule (`FREQ=WEEKLY;BYDAY=MO`), as written: suggestions
    /// compute the next occurrence from it at the time they are asked for.
    package static let recurrenceRule: Self = "recurrenceRule"
    // Bookkeeping.
    /// Which content extractor produced the item (`pdf`, `mail`, ...); absent when none ran.
    package static let extractor: Self = "extractor"
    package static let extractionError: Self = "extractionError"
    package static let textTruncated: Self = "textTruncated"
}

// Priority (issue 27, part 7): Core Spotlight's `isPriority` for mail, with its reasons.
extension AttributeKey {
    /// Whether a mail message deserves attention now (Core Spotlight's `isPriority`): decided
    /// after indexing by the priority pass (in Updating) from the facts below, the mail "me"
    /// sent, and the time. Every decided message has it, true or false; other items have none.
    package static let isPriority: Self = "isPriority"
    /// Why `isPriority` is what it is: one line per piece of evidence that applied, each a
    /// stable code, a colon and a human text (`direct: addressed to you directly`,
    /// `correspondent: from someone you write to (bob@example.org)`, `deadline: mentions a date
    /// in the next 7 days: 2026-11-29`, `bulk: bulk or list mail (List-Unsubscribe)`, `sent:
    /// sent by you`).
    package static let priorityReasons: Self = "priorityReasons"
    /// The headers that mark a message as bulk or list mail, as found (`List-Unsubscribe`,
    /// `List-Id`, `Precedence: bulk`): the negative evidence for `isPriority`.
    package static let mailBulkHeaders: Self = "mailBulkHeaders"
    /// The days a message's text mentions, on or after its date and within a year (`2026-11-29`,
    /// from `29 November`, `Nov 29, 2026`, `2026-11-29` or `tomorrow`): ISO 8601 days.
    package static let mentionedDates: Self = "mentionedDates"
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
    package static let codecs: Self = "codecs"
    /// What the streams hold: `Video`, `Sound`, `Subtitle` (Core Spotlight's `mediaTypes`).
    package static let mediaTypes: Self = "mediaTypes"
    /// The first video stream's bit rate in bits per second (Core Spotlight's `videoBitRate`).
    package static let videoBitRate: Self = "videoBitRate"
    /// The whole file's bit rate in bits per second (Core Spotlight's `totalBitRate`).
    package static let totalBitRate: Self = "totalBitRate"
    /// The first video stream's frames per second (25, 29.97): Core Spotlight has no name for it.
    package static let frameRate: Self = "frameRate"
    /// The chapters, each `H:MM:SS title` (`0:01:30 The bridge`), in order: their titles are
    /// searchable and `show` lists them with their start times.
    package static let chapters: Self = "chapters"
    /// The languages of the subtitle tracks as the container tags them (ISO 639-2: `deu`,
    /// `fra`), once each; `und` (undetermined) is left out.
    package static let subtitleLanguages: Self = "subtitleLanguages"
    /// The attributes of this block with their types (merged into `types`).
    static let videoTypes: [AttributeKey: AttributeValueType] = [
        .codecs: .strings, .mediaTypes: .strings, .videoBitRate: .integer, .totalBitRate: .integer,
        .frameRate: .double, .chapters: .strings, .subtitleLanguages: .strings,
    ]
}

/// The kind of value an attribute holds, so that stored JSON decodes back to the right type and
/// queries compare like with like.
package enum AttributeValueType: Sendable, Hashable {
    case string, strings, integer, double, date, bool
}

extension AttributeKey {
    /// The value type of the well-known attributes; `nil` for names we do not know.
    package var valueType: AttributeValueType? { Self.types[self] }

    /// Every attribute FSIndex knows by name, with its type.
    package static let types: [AttributeKey: AttributeValueType] = [
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
    package static let otherTextKeys: [AttributeKey] = [
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
    package static let textSource: Self = "textSource"
    /// The OCR recognizer's mean word confidence for `textContent`, 0 to 100 (Tesseract's
    /// `MeanTextConf`): the ranking weighs OCR text by it.
    package static let textConfidence: Self = "textConfidence"
    /// Why a picture or PDF that could hold text was not read by OCR (a photo without text, a
    /// picture too small, a recognizer that failed): it is tried again only when the file changes.
    package static let textRecognitionSkipped: Self = "textRecognitionSkipped"
    /// The attributes of this block with their types (merged into `types`).
    static let recognitionTypes: [AttributeKey: AttributeValueType] = [
        .textSource: .string, .textConfidence: .integer, .textRecognitionSkipped: .string,
    ]
}
