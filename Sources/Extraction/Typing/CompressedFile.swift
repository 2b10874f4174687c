import Attributes
import ExtractionModel

/// How a single compressed file is encoded: the value of its `contentEncoding` attribute.
///
/// Only compressors of one file are here (`cp.1.gz`, `notes.txt.xz`); a compressed tar
/// (`.tar.gz`, `.tgz`) has a MIME type of its own and stays with `ArchiveExtractor`, which lists
/// its members.
package enum ContentEncoding: String, Sendable, Hashable, CaseIterable {
    case gzip, bzip2, xz, zstd, compress

    /// The encoding a detected MIME type stands for, if it is a single-file compressor.
    package init?(mimeType: String) {
        switch mimeType {
        case "application/gzip", "application/x-gzip": self = .gzip
        case "application/x-bzip", "application/x-bzip2", "application/bzip2": self = .bzip2
        case "application/x-xz": self = .xz
        case "application/zstd", "application/x-zstd": self = .zstd
        case "application/x-compress": self = .compress
        default: return nil
        }
    }

    /// The encoding of a detected type that is a single compressed file: a compressor's own
    /// MIME type, or one whose ancestors include a compressor (`application/x-gzpdf` for
    /// `*.pdf.gz`); nil for a compressed tar (`application/x-compressed-tar`), which is an archive.
    package init?(detection: TypeDetection) {
        if detection.mimeType.contains("tar") { return nil }
        if let e = ContentEncoding(mimeType: detection.mimeType) { self = e; return }
        for type in detection.contentTypeTree {
            switch type.rawValue {
            case "org.gnu.gnu-zip-archive": self = .gzip; return
            case "public.bzip2-archive": self = .bzip2; return
            case "org.tukaani.xz-archive": self = .xz; return
            case "com.facebook.zstandard-archive": self = .zstd; return
            default: continue
            }
        }
        return nil
    }

    /// The name suffixes of this encoding, lowercased (`.Z` is matched without case).
    var suffixes: [String] {
        switch self {
        case .gzip: [".gz", ".gzip"]
        case .bzip2: [".bz2", ".bz"]
        case .xz: [".xz"]
        case .zstd: [".zst", ".zstd"]
        case .compress: [".z"]
        }
    }

    /// The name the file had before it was compressed: `name` without this encoding's suffix
    /// (`cp.1.gz` → `cp.1`), or `name` itself when it has none (a gzip file named `data`).
    func innerName(_ name: [UInt8]) -> [UInt8] {
        for suffix in suffixes where name.count > suffix.utf8.count {
            let tail = name.suffix(suffix.utf8.count).map { $0 | 0x20 }   // ASCII lowercase
            if tail.elementsEqual(suffix.utf8) { return Array(name.dropLast(suffix.utf8.count)) }
        }
        return name
    }
}

/// The decompressed bytes of a single compressed file, read through libarchive's `raw` format
/// with the one filter its encoding names, under `ArchiveReader`'s bomb limits.
///
/// A key design decision: the compressed stream is read only as far as the inner file's
/// extractor needs. Text is read to the text cap (a 4 GiB log of zeros gzipped to 4 MiB costs
/// one megabyte, not a bomb error), and other types (a PDF, an OpenDocument file) are read
/// whole, at most `ArchiveReader.Limits.maxEntryBytes` (64 MiB) and at most 200 times the
/// compressed size past 16 MiB, as the members of a zip are. Going past either is
/// `.malformed` naming the limit.
///
/// For example:
/// ```swift
/// let stream = try CompressedFile(outer, encoding: .gzip)      // cp.1.gz
/// let (head, atEnd) = try stream.read(upTo: 64 * 1024)          // the page's first bytes
/// ```
final class CompressedFile {
    static let extractorName = "compressed"
    let encoding: ContentEncoding
    private let reader: ArchiveReader
    private(set) var bytes: [UInt8] = []
    private(set) var atEnd = false

    init(_ outer: ExtractionInput, encoding: ContentEncoding, limits: ArchiveReader.Limits = .init()) throws(ExtractionError) {
        self.encoding = encoding
        do throws(ExtractionError) {
            reader = try ArchiveReader(outer, formats: .singleFile(encoding), extractor: Self.extractorName, limits: limits)
            guard try reader.next() != nil else {
                throw .malformed(extractor: Self.extractorName, reason: "the stream holds no file")
            }
        } catch {
            throw Self.failure(encoding, error)
        }
    }

    /// The error for a stream that cannot be decompressed: what failed, and libarchive's reason.
    static func failure(_ encoding: ContentEncoding, _ error: ExtractionError) -> ExtractionError {
        .malformed(extractor: extractorName, reason: "cannot decompress the \(encoding.rawValue) file: \(error.reason)")
    }

    /// Decompresses until `count` bytes are held or the file ends; returns everything held so
    /// far. Throws `.malformed` with libarchive's reason for a damaged or truncated stream.
    @discardableResult
    func read(upTo count: Int) throws(ExtractionError) -> (bytes: [UInt8], atEnd: Bool) {
        if !atEnd, bytes.count < count {
            do throws(ExtractionError) {
                (bytes, atEnd) = try reader.read(upTo: count, appendingTo: bytes)
            } catch {
                throw Self.failure(encoding, error)
            }
        }
        return (bytes, atEnd)
    }

    /// Reads the rest, up to the per-file limit: for inner types whose extractor needs the whole file.
    func readAll() throws(ExtractionError) -> [UInt8] {
        let limit = reader.limits.maxEntryBytes
        let (all, end) = try read(upTo: limit + 1)
        guard end, all.count <= limit else {
            throw .malformed(extractor: Self.extractorName,
                             reason: "the \(encoding.rawValue) file decompresses to more than \(limit >> 20) MiB (bomb?); only its name is indexed")
        }
        return all
    }
}

extension ExtractionError {
    /// The reason of a `.malformed` error, else the whole description.
    var reason: String {
        if case let .malformed(_, reason) = self { return reason }
        return description
    }
}
