import Attributes
import Crawling
import ExtractionModel
import MemberwiseInit
import SystemCalls
import SystemPackage
import Glibc

/// Reads one kind of file and fills in the attributes it knows about.
///
/// Extractors are values with no state of their own between files, so a registry can hand the
/// same one to every worker thread. Anything that needs a per-thread C handle (libmagic) lives in
/// `ExtractionContext`, not in the extractor.
package protocol Extractor: Sendable {
    /// A short stable name, used in `extractionError` and in `fsindex extract` output.
    var name: String { get }
    /// Bumped (in `ExtractionVersions.content`) whenever the extractor's output changes, so its
    /// items are re-extracted.
    var version: Int { get }
    /// Whether this extractor wants the file, given its detected type.
    func accepts(_ input: ExtractionInput) -> Bool
    /// Adds what it finds to `attributes`. Throws only for a file it accepted but cannot read;
    /// the error is recorded on the item and the rest of the attributes are kept.
    func extract(_ input: ExtractionInput, into attributes: inout AttributeSet) throws(ExtractionError)
    /// The full form, for containers whose parts are items of their own (the messages of an
    /// mbox). The default calls `extract(_:into:)` with the file's attributes.
    func extract(_ input: ExtractionInput, into output: inout ExtractionOutput) throws(ExtractionError)
}

extension Extractor {
    /// The version written once, in `ExtractionVersions`, where the parent reads it too.
    package var version: Int { ExtractionVersions.content[name] ?? 0 }

    package func extract(_ input: ExtractionInput, into output: inout ExtractionOutput) throws(ExtractionError) {
        try extract(input, into: &output.attributes)
    }
}

/// What a content extractor adds: the file's own attributes, and the items inside it.
package struct ExtractionOutput: Sendable {
    package var attributes: AttributeSet
    /// Items inside the file, each found by its own search (one per message of an mbox).
    package var children: [ChildItem] = []

    package init(attributes: AttributeSet) { self.attributes = attributes }
}

/// What an extractor gets: the file's facts, the bytes already read (never a second open), and
/// the type found by `TypeDetector`.
package struct ExtractionInput: Sendable {
    package var facts: FileFacts
    /// The first bytes of the file, at most the configured text cap.
    package var bytes: [UInt8]
    /// Whether `bytes` holds the whole file (false when the cap cut it short).
    package var isComplete: Bool
    package var contentType: ContentType
    package var contentTypeTree: [ContentType]
    package var mimeType: String
    /// The charset libmagic reported (`utf-8`, `iso-8859-1`, `binary`, ...), if any.
    package var magicCharset: String?
    /// At most this many bytes of UTF-8 text are kept (`ExtractionOptions.textCap`).
    package var textCap: Int = 1 << 20
    /// The open file, for formats that need all of it or random access (PDF, zip, audio). Read
    /// through it rather than opening the path again: it is the file the crawl saw, and inside
    /// a worker only read-only opens are allowed anyway. `nil` in tests built from bytes alone.
    package var file: ExtractionFile?
    /// The inner file's name when `bytes` are a decompressed file's (`cp.1` for `cp.1.gz`; see
    /// `ExtractionContext+Compressed`), else nil: `facts` stay the outer file's.
    package var decompressedName: [UInt8]?

    /// The name the content had: the decompressed file's, else the file's own (last component).
    package var contentName: [UInt8] {
        if let decompressedName { return decompressedName }
        let path = facts.pathBytes
        return path.lastIndex(of: UInt8(ascii: "/")).map { Array(path[($0 + 1)...]) } ?? path
    }

    package init(facts: FileFacts, bytes: [UInt8], isComplete: Bool, contentType: ContentType,
                contentTypeTree: [ContentType], mimeType: String, magicCharset: String?) {
        self.facts = facts
        self.bytes = bytes
        self.isComplete = isComplete
        self.contentType = contentType
        self.contentTypeTree = contentTypeTree
        self.mimeType = mimeType
        self.magicCharset = magicCharset
    }

    package init(facts: FileFacts, bytes: [UInt8], isComplete: Bool, detection: TypeDetection,
                magicCharset: String?, textCap: Int) {
        self.init(facts: facts, bytes: bytes, isComplete: isComplete, contentType: detection.contentType,
                  contentTypeTree: detection.contentTypeTree, mimeType: detection.mimeType, magicCharset: magicCharset)
        self.textCap = textCap
    }

    package func conforms(to type: ContentType) -> Bool { contentTypeTree.contains(type) }

    /// The whole file, at most `limit` bytes: `bytes` when that already holds all of it, else read
    /// through `file`. Throws `.malformed` (naming `extractor`) when the file is larger than
    /// `limit`, so a huge file is recorded, not read into memory.
    package func wholeFile(limit: Int, extractor: String) throws(ExtractionError) -> [UInt8] {
        if isComplete { return bytes }
        guard let file else {
            throw .malformed(extractor: extractor, reason: "only the first \(bytes.count) bytes are available")
        }
        return try file.readAll(limit: limit, extractor: extractor)
    }
}

/// A read-only view of the open file being extracted. Valid only during `extract`. Its
/// initializer is `package` for the fuzzer, which hands `VideoExtractor` a temporary file of its
/// bytes.
@MemberwiseInit
package final class ExtractionFile: @unchecked Sendable {
    /// The open descriptor (read-only, close-on-exec). Do not close it.
    package let descriptor: Int32
    /// The size `fstat` saw when the file was opened.
    package let size: Int64

    /// Up to `count` bytes from `offset`; fewer at the end of the file.
    package func read(at offset: Int64, count: Int) throws(ExtractionError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: max(0, count))
        var done = 0
        while done < count {
            let read = out.withUnsafeMutableBytes {
                SystemCall.pread(descriptor, into: UnsafeMutableRawBufferPointer(rebasing: $0[done..<count]), at: offset + Int64(done))
            }
            let n: Int
            switch read {
            case .success(let got): n = got
            case .failure(let e): throw .unreadable(errno: e.rawValue, message: String(cString: strerror(e.rawValue)).lowercased())
            }
            if n == 0 { break }
            done += n
        }
        out.removeLast(count - done)
        return out
    }

    /// The whole file, if it holds at most `limit` bytes.
    package func readAll(limit: Int, extractor: String) throws(ExtractionError) -> [UInt8] {
        guard size <= Int64(limit) else {
            throw .malformed(extractor: extractor, reason: "the file is \(size) bytes, more than the \(limit) this extractor reads")
        }
        let bytes = try read(at: 0, count: Int(size) + 1)
        guard bytes.count <= limit else {
            throw .malformed(extractor: extractor, reason: "the file grew past \(limit) bytes while being read")
        }
        return bytes
    }
}

