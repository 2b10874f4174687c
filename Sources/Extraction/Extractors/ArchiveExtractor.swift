import Attributes
import ExtractionModel
import Crawling

/// Archives and compressed files through libarchive: zip, tar (plain, `.tgz`, `.tar.bz2`,
/// `.tar.xz`, `.tar.zst`), 7-Zip, cpio, ar/deb, RAR, ISO 9660, cab, and a lone `.gz`, `.bz2`,
/// `.xz` or `.zst` file (libarchive's `raw` format).
///
/// Gives `memberCount` (the number of files and folders listed) and `textContent`, the member
/// names one per line (up to the text cap and 20,000 entries), so that a search for a file name
/// finds the archive holding it. Members are not opened (no recursion); only their headers are
/// read. A single compressed file has one member, named after the file without its compression
/// suffix (`notes.txt.gz` → `notes.txt`).
///
/// Member names are taken as UTF-8 where the archive says so, else decoded as Shift-JIS (zip
/// files from Japanese Windows) when valid, else Latin-1. When members are encrypted (a zip with
/// a password) the names are still listed and `encrypted` is true. A damaged archive keeps the
/// names read before the damage and records libarchive's reason.
///
/// Zip-based documents (Office Open XML, OpenDocument, EPUB) are left to their own extractors:
/// types that conform to `public.content` are not accepted.
///
/// For example, Tika's `test-documents.tar` gives `memberCount` 10 and text starting
/// "test-documents/\ntest-documents/testEXCEL.xls".
///
/// Cost: headers only for zip, 7-Zip and plain tar (data is seeked over); a compressed tar is
/// decompressed to reach each header, so listing stops past 2 GiB of decompressed stream.
package struct ArchiveExtractor: Extractor {
    package var name: String { "archive" }

    /// Bytes of decompressed archive stream gone through while listing, at most: in a
    /// `.tar.gz` every member's data is decompressed to reach the next header, so a small file
    /// of gigabytes of zeros would otherwise keep a worker busy for minutes.
    let maxStreamBytes: Int64

    package init() { maxStreamBytes = 2 << 30 }

    init(maxStreamBytes: Int64) { self.maxStreamBytes = maxStreamBytes }

    /// Archive MIME types libarchive reads that have no well-known UTI here.
    static let extraMIMETypes: Set<String> = [
        "application/x-cpio", "application/x-archive", "application/x-rar", "application/vnd.rar",
        "application/x-rar-compressed", "application/x-iso9660-image", "application/vnd.ms-cab-compressed",
        "application/x-lzma", "application/x-lzip", "application/x-compress", "application/x-lz4",
        "application/x-xar", "application/x-lha", "application/x-lzh-compressed", "application/java-archive",
        "application/x-compressed-tar", "application/x-bzip-compressed-tar", "application/x-xz-compressed-tar",
        "application/x-zstd-compressed-tar", "application/x-bzip2-compressed-tar",
    ]

    /// Compressors of one file (no archive inside unless its name says tar).
    static let singleFileMIMETypes: Set<String> = [
        "application/gzip", "application/x-gzip", "application/x-bzip2", "application/x-bzip", "application/x-xz",
        "application/x-lzma", "application/x-lzip", "application/x-compress", "application/zstd", "application/x-zstd",
    ]

    package func accepts(_ input: ExtractionInput) -> Bool {
        if input.conforms(to: "public.content") { return false }
        return input.conforms(to: .archive) || Self.extraMIMETypes.contains(input.mimeType)
    }

    package func extract(_ input: ExtractionInput, into attributes: inout AttributeSet) throws(ExtractionError) {
        var listing = try list(input, formats: .any)
        if listing.failure != nil, Self.singleFileMIMETypes.contains(input.mimeType) {
            // A compressed text whose lines looked like an archive format (a changelog.gz that
            // libarchive took for an mtree spec): it is one compressed file.
            let lone = try list(input, formats: .compressedFile)
            if lone.failure == nil { listing = lone }
        }
        if listing.count == 0, listing.failure == nil, input.bytes.starts(with: [0x50, 0x4B, 0x03, 0x04]) {
            // A zip whose central directory lists nothing although entries are there: read
            // the local headers instead.
            let streamed = try list(input, formats: .zipStreaming)
            if streamed.count > 0 {
                listing = streamed
                listing.failure = listing.failure ?? .malformed(
                    extractor: name, reason: "the zip's central directory is damaged; names were read from the local headers")
            }
        }
        if listing.failure == nil, listing.format?.hasPrefix("ZIP") == true, !ZipContainer.hasEndRecord(input) {
            listing.failure = .malformed(extractor: name, reason: "truncated: the zip's central directory is missing")
        }
        attributes[.memberCount] = .integer(listing.count)
        let (body, full) = listing.text.result
        if !body.isEmpty { attributes[.textContent] = .string(body) }
        if full { attributes[.textTruncated] = .bool(true) }
        if listing.encrypted { attributes[.encrypted] = .bool(true) }
        if let failure = listing.failure {
            if listing.count == 0, case let .malformed(_, reason) = failure {
                throw .malformed(extractor: name, reason: "cannot list the archive: \(reason)")
            }
            throw failure
        }
    }

    struct Listing {
        var text: TextBuffer
        var count: Int64 = 0
        var encrypted = false
        var failure: ExtractionError?
        var format: String?
    }

    /// Lists the members' names (headers only; data is skipped, not decompressed, where the
    /// format allows).
    func list(_ input: ExtractionInput, formats: ArchiveReader.Formats) throws(ExtractionError) -> Listing {
        let reader = try ArchiveReader(input, formats: formats, extractor: name)
        var out = Listing(text: TextBuffer(cap: input.textCap))
        var declared: Int64 = 0
        do {
            while let entry = try reader.next() {
                out.count += 1
                if entry.isEncrypted { out.encrypted = true }
                let memberName = reader.formatName == "raw" ? Self.innerName(input) : entry.name
                if !memberName.isEmpty, !out.text.isFull {
                    out.text.append(memberName)
                    out.text.breakLine()
                }
                // Reaching the next header would decompress this member: stop before a stream
                // that (by the sizes declared so far) goes past the limit.
                if reader.isFiltered { declared += max(0, entry.declaredSize ?? 0) }
                if declared > maxStreamBytes || reader.streamBytesRead > maxStreamBytes {
                    out.failure = .malformed(extractor: name, reason: "listing stopped: the members so far decompress to more than \(maxStreamBytes >> 20) MiB")
                    break
                }
            }
        } catch {
            out.failure = error
        }
        if reader.hasEncryptedEntries { out.encrypted = true }
        out.format = reader.formatName
        return out
    }

    /// The name a single compressed file had: its own name without the compression suffix.
    static func innerName(_ input: ExtractionInput) -> String {
        let path = input.facts.pathBytes
        let base = path.lastIndex(of: UInt8(ascii: "/")).map { path[($0 + 1)...] } ?? path[...]
        let name = ArchiveReader.decodeName(Array(base))
        let lower = name.lowercased()
        for suffix in [".gz", ".bz2", ".xz", ".zst", ".lzma", ".lz", ".lz4", ".z", ".bz", ".gzip"] where lower.hasSuffix(suffix) {
            let stem = String(name.dropLast(suffix.count))
            return stem.isEmpty ? name : stem
        }
        return name
    }
}
