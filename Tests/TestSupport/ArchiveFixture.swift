import CArchive
import SystemPackage
import Glibc

/// Writes archives for tests with libarchive's writer (zip, tar, 7-Zip or a lone compressed
/// file), so that generated fixtures need no external tool.
package enum ArchiveFixture {
    package enum Format: Sendable { case zip, tar, sevenZip, raw }
    package enum Filter: Sendable { case none, gzip, bzip2, xz, zstd, compress }

    package struct Member: Sendable {
        package var name: String
        package var data: [UInt8]
        /// The data is written this many times (a large member without a large array).
        package var repeats: Int = 1

        package init(_ name: String, _ text: String, repeats: Int = 1) {
            self.name = name
            data = Array(text.utf8)
            self.repeats = repeats
        }

        package init(_ name: String, bytes: [UInt8], repeats: Int = 1) {
            self.name = name
            data = bytes
            self.repeats = repeats
        }
    }

    package struct Failure: Error, CustomStringConvertible { public var description: String }

    package static func write(_ path: FilePath, format: Format, filter: Filter = .none, members: [Member]) throws {
        // libarchive converts names through the thread's locale: make it UTF-8, as a user's is.
        let previous = uselocale(newlocale(Int32(1 << LC_CTYPE), "C.UTF-8", nil))
        defer { uselocale(previous) }
        guard let a = archive_write_new() else { throw Failure(description: "archive_write_new") }
        defer { archive_write_free(a) }
        switch format {
        case .zip: archive_write_set_format_zip(a)
        case .tar: archive_write_set_format_pax_restricted(a)
        case .sevenZip: archive_write_set_format_7zip(a)
        case .raw: archive_write_set_format_raw(a)
        }
        switch filter {
        case .none: break
        case .gzip: archive_write_add_filter_gzip(a)
        case .bzip2: archive_write_add_filter_bzip2(a)
        case .xz: archive_write_add_filter_xz(a)
        case .zstd: archive_write_add_filter_zstd(a)
        case .compress: archive_write_add_filter_compress(a)
        }
        func check(_ r: Int32, _ what: String) throws {
            if r != ARCHIVE_OK && r != ARCHIVE_WARN {
                let message = archive_error_string(a).map { String(cString: $0) } ?? "?"
                throw Failure(description: "\(what): \(message)")
            }
        }
        try check(archive_write_open_filename(a, path.string), "open")
        for m in members {
            guard let e = archive_entry_new() else { throw Failure(description: "archive_entry_new") }
            defer { archive_entry_free(e) }
            archive_entry_set_pathname_utf8(e, m.name)
            archive_entry_set_filetype(e, 0o100000)
            archive_entry_set_perm(e, 0o644)
            archive_entry_set_size(e, Int64(m.data.count * m.repeats))
            try check(archive_write_header(a, e), "header")
            for _ in 0..<m.repeats {
                let n = m.data.withUnsafeBytes { archive_write_data(a, $0.baseAddress, $0.count) }
                guard n == m.data.count else { throw Failure(description: "data") }
            }
        }
        try check(archive_write_close(a), "close")
    }

    /// `bytes` compressed as one file with `filter` (libarchive's `raw` format), in memory.
    package static func compressed(_ bytes: [UInt8], filter: Filter) throws -> [UInt8] {
        let tree = try TemporaryTree(prefix: "fixture")
        let path = tree.path("data")
        try write(path, format: .raw, filter: filter, members: [Member("data", bytes: bytes)])
        let fd = path.withPlatformString { open($0, O_RDONLY) }
        guard fd >= 0 else { throw Failure(description: "reopen") }
        defer { close(fd) }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            out += chunk[..<n]
        }
        return out
    }

    /// A minimal Word document: properties and a body of paragraphs.
    package static func docx(title: String, paragraphs: [String]) -> [Member] {
        let body = paragraphs.map { "<w:p><w:r><w:t>\($0)</w:t></w:r></w:p>" }.joined()
        return [
            Member("[Content_Types].xml", #"<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>"#),
            Member("_rels/.rels", #"<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>"#),
            Member("docProps/core.xml", #"<?xml version="1.0"?><cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>\#(title)</dc:title></cp:coreProperties>"#),
            Member("word/document.xml", #"<?xml version="1.0"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>\#(body)</w:body></w:document>"#),
        ]
    }
}
