import Attributes
import FoundationEssentials

/// What a crawl did, for the summary line and `--json`.
public struct CrawlReport: Sendable, Hashable, Codable {
    public var roots: [String] = []
    /// Entries found on disk (files, folders, links...).
    public var seen = 0
    /// Entries whose content was (re-)extracted and written.
    public var indexed = 0
    /// Entries skipped because size, mtime, ctime and inode were unchanged.
    public var unchanged = 0
    /// Items removed because their files are gone.
    public var removed = 0
    /// Bytes of the files that were read.
    public var bytes: Int64 = 0
    public var seconds: Double = 0
    public var problems = 0
    /// Items written with a `textContentSummary` (made by the extraction workers) or given one by
    /// the summary pass after the crawl (the texts apps donated, an older index's), and how long
    /// that pass took (`fsindex index` only; fsindexd summarizes donations in the background).
    public var summarized = 0
    public var summarySeconds: Double = 0
    /// The OCR pass after everything else (issue 28, `fsindex index` only): pictures and
    /// scanned PDFs that got text, those skipped (photos without text, ...), and its time,
    /// reported apart from the crawl's.
    public var recognized = 0
    public var recognitionSkipped = 0
    public var recognitionSeconds: Double = 0
    /// What changed, for live-query subscribers (not part of the JSON summary).
    public var updatedIdentifiers: [ItemIdentifier] = []
    public var removedIdentifiers: [ItemIdentifier] = []

    public init() {}

    enum CodingKeys: String, CodingKey { case roots, seen, indexed, unchanged, removed, bytes, seconds, problems, summarized, summarySeconds,
        recognized, recognitionSkipped, recognitionSeconds }
}

/// A file-level problem met during a crawl; the crawl goes on. `path` is printable (non-UTF-8
/// bytes escaped as `\xNN`).
public struct CrawlProblem: Sendable, Hashable, CustomStringConvertible {
    public var path: String
    public var message: String
    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }
    public var description: String { "\(path): \(message)" }
}

/// A snapshot of a running crawl, for the progress line on a terminal.
public struct CrawlProgress: Sendable, Hashable {
    public var root: String
    public var phase: Phase
    public var seen: Int
    public var indexed: Int
    public var toIndex: Int
    public var elapsed: Double

    public enum Phase: String, Sendable, Hashable { case scanning, indexing, cleaning }
}
