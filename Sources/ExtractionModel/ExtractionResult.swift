import Attributes
import MemberwiseInit

// What extraction produces, as the parent process sees it: these values cross the pipe from a
// worker as JSON and are stored by the index. Nothing here parses a file.

/// Settings of the extraction stage.
package struct ExtractionOptions: Sendable, Hashable {
    /// Bytes of text kept per file (and the most bytes read from it, plus one to know whether
    /// there was more). Default 1 MiB.
    package var textCap: Int

    package init(textCap: Int = 1 << 20) { self.textCap = max(0, textCap) }
}

/// Everything extraction found out about one item.
@MemberwiseInit
package struct ExtractionResult: Sendable, Hashable, Codable {
    package var attributes: AttributeSet
    /// What went wrong (also summarised in the `extractionError` attribute); the attributes that
    /// could be found are there regardless.
    package var problems: [ExtractionError]
    /// The content extractor that read the file (`pdf`, `mail`, ...), if one did.
    package var extractor: String? = nil
    /// `ExtractionVersions.version(of: extractor)` at the time of extraction; 0 for a names-only
    /// pass, so that the content pass extracts the file again.
    package var extractorVersion: Int
    /// Items inside the file (the messages of an mbox).
    package var children: [ChildItem] = []
    /// What ran and how long it took, for `fsindex extract`.
    package var trace: [ExtractorRun] = []
}

/// One stage of one extraction: its name (`filesystem`, `type`, `pdf`, ...), its wall-clock time
/// and the attributes it set.
@MemberwiseInit
package struct ExtractorRun: Sendable, Hashable, Codable {
    package var name: String
    package var seconds: Double
    package var keys: [AttributeKey]
}

/// An item inside a file, such as one message of an mbox. Its identifier is the file's path
/// followed by a NUL byte and `key` (a path never holds a NUL), so it is deleted, moved and
/// re-extracted with its file.
@MemberwiseInit
package struct ChildItem: Sendable, Hashable, Codable {
    /// Unique within the file and stable across extractions of the same content (`message/3`).
    package var key: String
    package var attributes: AttributeSet
}

/// Why a file's content could not be (fully) extracted. The file keeps its file-system
/// attributes either way; this is recorded in `extractionError`.
package enum ExtractionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file could not be opened or read (permissions, vanished, I/O error).
    case unreadable(errno: Int32, message: String)
    /// The file changed identity between the crawl and the open (replaced or turned into a link).
    case changedDuringRead
    /// The extractor rejected the content (malformed input).
    case malformed(extractor: String, reason: String)
    /// A C library could not be set up (libmagic database missing, ...).
    case library(String)
    /// The worker process extracting the file died, hung or hit a limit (see `WorkerFailure`).
    /// Not retried until the file or the extractor's version changes.
    case worker(extractor: String, reason: String)

    package var description: String {
        switch self {
        case let .unreadable(_, message): "cannot read: \(message)"
        case .changedDuringRead: "the file changed while it was being read; it will be read again on the next crawl"
        case let .malformed(extractor, reason): "\(extractor): \(reason)"
        case let .library(message): message
        case let .worker(extractor, reason): "\(extractor): \(reason)"
        }
    }
}

/// Results and errors cross the pipe from a worker process as JSON.
extension ExtractionError: Codable {}
