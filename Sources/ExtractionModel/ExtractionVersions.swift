/// The version of every extraction stage, written once.
///
/// Each item remembers the version of what produced it (`ExtractionResult.extractorVersion`); an
/// item whose stored version differs from `version(of:)` is extracted again in the background.
/// The parent process computes these without linking any parser, and each content extractor
/// (in `Extraction`) reads its own version from `content`, so the two can never disagree.
package enum ExtractionVersions {
    /// The file-system facts every item gets (`FileSystemExtractor`).
    package static let fileSystem = 2
    /// Type detection (`TypeDetector`): bump when types change, so every item is re-typed.
    package static let typeDetection = 2
    /// Language identification: bump when the languages found change, so every text is re-read.
    package static let language = 2

    /// Each content extractor's own version, by its name. Bump one to re-extract only its files.
    ///
    /// `archive` 3 and `plain-text` 3 (issue 24): single compressed files are now read through
    /// their inner file's extractor, and manual pages, which plain text read before, by
    /// `man-page`; so the items those two wrote are read again. A compressed file's item records
    /// its inner file's extractor. `html` 4 (issue 24): a page's first heading as `headline`.
    /// `mail` 2 (issue 27): `mailBulkHeaders` and `mentionedDates`, the priority pass's facts.
    /// `calendar` 1 (issue 27): `.ics` files, which plain text read before; an existing index
    /// reads them again only when they change or are reindexed (`fsindex reindex`), since
    /// raising `plain-text` would read every text file again.
    /// `video` 1 (issue 28): movies and the audio containers TagLib misses, through libavformat;
    /// their items had no content extractor, so the new entry (which raises the version of
    /// items none read) reads them again.
    ///
    /// Issue 28, the text that was lost: `mail` 3: an mbox's own item holds its messages' text,
    /// not only their subjects, and a `multipart/alternative`'s HTML part (and an attached
    /// message's) is read where it says more than the plain part. `pdf` 2: annotations
    /// (comments, highlights' notes, free text) and the XMP `dc:language` as declared.
    /// `audio` 2: an MP4's `contentCreationDate` from `mvhd` or `©day`. `plain-text` 4 and
    /// `man-page` 2: Greek text in windows-1253 is no longer decoded as ISO-8859-7 where the
    /// bytes decide (this re-reads every text file once; no cheaper way finds the Greek ones).
    package static let content: [String: Int] = [
        "ooxml": 1, "opendocument": 1, "epub": 1, "archive": 3, "html": 4, "xml": 3, "pdf": 2,
        "rtf": 2, "ole": 1, "mail": 3, "man-page": 2, "plain-text": 4, "image": 1, "audio": 2,
        "calendar": 1,
        "video": 1,
    ]

    /// The version stored with an item that `extractor` (a content extractor's name, or `nil` for
    /// none) produced: the shared stages times 10,000 plus the extractor's own version.
    ///
    /// Items no content extractor read use the sum of all versions instead, because a new or
    /// changed extractor may now accept them. An unknown name (an extractor that was removed)
    /// gives -1, which matches no stored item, so those are re-extracted too.
    package static func version(of extractor: String?) -> Int {
        let shared = (fileSystem + typeDetection + language) * 10_000
        guard let extractor else { return shared + content.values.reduce(0, +) }
        guard let own = content[extractor] else { return -1 }
        return shared + own
    }

    /// Every (extractor name or `nil`, current version) pair, for the index's staleness sweep.
    package static var all: [(extractor: String?, version: Int)] {
        [(nil, version(of: nil))] + content.keys.sorted().map { ($0, version(of: $0)) }
    }
}
