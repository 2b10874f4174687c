import Attributes
import Crawling

/// Reads one kind of file and fills in the attributes it knows about.
///
/// Extractors are values with no state of their own between files, so a registry can hand the
/// same one to every worker thread. Anything that needs a per-thread C handle (libmagic) lives in
/// `ExtractionContext`, not in the extractor.
public protocol Extractor: Sendable {
    /// A short stable name, used in `extractionError` and in `fsindex extract` output.
    var name: String { get }
    /// Bumped whenever the extractor's output changes, so items can be re-extracted.
    var version: Int { get }
    /// Whether this extractor wants the file, given its detected type.
    func accepts(_ input: ExtractionInput) -> Bool
    /// Adds what it finds to `attributes`. Throws only for a file it accepted but cannot read;
    /// the error is recorded on the item and the rest of the attributes are kept.
    func extract(_ input: ExtractionInput, into attributes: inout AttributeSet) throws(ExtractionError)
}

/// What an extractor gets: the file's facts, the bytes already read (never a second open), and
/// the type found by `TypeDetector`.
public struct ExtractionInput: Sendable {
    public var facts: FileFacts
    /// The first bytes of the file, at most the configured text cap.
    public var bytes: [UInt8]
    /// Whether `bytes` holds the whole file (false when the cap cut it short).
    public var isComplete: Bool
    public var contentType: ContentType
    public var contentTypeTree: [ContentType]
    public var mimeType: String
    /// The charset libmagic reported (`utf-8`, `iso-8859-1`, `binary`, ...), if any.
    public var magicCharset: String?
    /// At most this many bytes of UTF-8 text are kept (`ExtractionOptions.textCap`).
    public var textCap: Int = 1 << 20

    public init(facts: FileFacts, bytes: [UInt8], isComplete: Bool, contentType: ContentType,
                contentTypeTree: [ContentType], mimeType: String, magicCharset: String?) {
        self.facts = facts
        self.bytes = bytes
        self.isComplete = isComplete
        self.contentType = contentType
        self.contentTypeTree = contentTypeTree
        self.mimeType = mimeType
        self.magicCharset = magicCharset
    }

    public init(facts: FileFacts, bytes: [UInt8], isComplete: Bool, detection: TypeDetection,
                magicCharset: String?, textCap: Int) {
        self.init(facts: facts, bytes: bytes, isComplete: isComplete, contentType: detection.contentType,
                  contentTypeTree: detection.contentTypeTree, mimeType: detection.mimeType, magicCharset: magicCharset)
        self.textCap = textCap
    }

    public func conforms(to type: ContentType) -> Bool { contentTypeTree.contains(type) }
}

/// Why a file's content could not be (fully) extracted. The file keeps its file-system
/// attributes either way; this is recorded in `extractionError`.
public enum ExtractionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file could not be opened or read (permissions, vanished, I/O error).
    case unreadable(errno: Int32, message: String)
    /// The file changed identity between the crawl and the open (replaced or turned into a link).
    case changedDuringRead
    /// The extractor rejected the content (malformed input).
    case malformed(extractor: String, reason: String)
    /// A C library could not be set up (libmagic database missing, ...).
    case library(String)

    public var description: String {
        switch self {
        case let .unreadable(_, message): "cannot read: \(message)"
        case .changedDuringRead: "the file changed while it was being read; it will be read again on the next crawl"
        case let .malformed(extractor, reason): "\(extractor): \(reason)"
        case let .library(message): message
        }
    }
}
