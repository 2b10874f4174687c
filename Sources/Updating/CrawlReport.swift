import Attributes
import FoundationEssentials
import MemberwiseInit

/// What a crawl did, for the summary line and `--json`.
package struct CrawlReport: Sendable, Hashable, Codable {
    package var roots: [String] = []
    /// Entries found on disk (files, folders, links...).
    package var seen = 0
    /// Entries whose content was (re-)extracted and written.
    package var indexed = 0
    /// Entries skipped because size, mtime, ctime and inode were unchanged.
    package var unchanged = 0
    /// Items removed because their files are gone.
    package var removed = 0
    /// Bytes of the files that were read.
    package var bytes: Int64 = 0
    package var seconds: Double = 0
    package var problems = 0
    /// Items written with a `textContentSummary` (made by the extraction workers) or given one by
    /// the summary pass after the crawl (the texts apps donated, an older index's), and how long
    /// that pass took (`fsindex index` only; fsindexd summarizes donations in the background).
    package var summarized = 0
    package var summarySeconds: Double = 0
    /// The OCR pass after everything else (issue 28, `fsindex index` only): pictures and
    /// scanned PDFs that got text, those skipped (photos without text, ...), and its time,
    /// reported apart from the crawl's.
    package var recognized = 0
    package var recognitionSkipped = 0
    package var recognitionSeconds: Double = 0
    /// The semantic pass after OCR (issue 43, `fsindex index` only): items that got a vector of
    /// what they are about, and its time, reported apart from the crawl's.
    package var embedded = 0
    package var meaningSeconds: Double = 0
    /// What changed, for live-query subscribers (not part of the JSON summary).
    package var updatedIdentifiers: [ItemIdentifier] = []
    package var removedIdentifiers: [ItemIdentifier] = []

    package init() {}

    enum CodingKeys: String, CodingKey { case roots, seen, indexed, unchanged, removed, bytes, seconds, problems, summarized, summarySeconds,
        recognized, recognitionSkipped, recognitionSeconds, embedded, meaningSeconds }
}

/// A file-level problem met during a crawl; the crawl goes on. `path` is printable (non-UTF-8
/// bytes escaped as `\xNN`).
@MemberwiseInit
package struct CrawlProblem: Sendable, Hashable, CustomStringConvertible {
    package var path: String
    package var message: String
    package var description: String { "\(path): \(message)" }
}

/// A snapshot of a running crawl, for the progress line on a terminal.
package struct CrawlProgress: Sendable, Hashable {
    package var root: String
    package var phase: Phase
    package var seen: Int
    package var indexed: Int
    package var toIndex: Int
    package var elapsed: Double

    package enum Phase: String, Sendable, Hashable { case scanning, indexing, cleaning }
}
