import CArchive
import ExtractionModel
import MemberwiseInit
import SystemCalls
import SystemPackage
import Glibc

/// Sequential reading of archives and zip-based documents through libarchive, with guards
/// against decompression bombs.
///
/// libarchive reads through callbacks over `pread(2)` on the extraction's descriptor (or over
/// the bytes already in memory), so a large archive is never loaded whole, and seeking works:
/// zip files are read through their central directory (`zip_seekable`), and a zip whose central
/// directory is missing (a truncated download) is still read entry by entry from its local
/// headers.
///
/// Limits, counted on bytes actually decompressed (declared sizes can be forged): at most
/// `maxEntries` entries are visited, at most `maxEntryBytes` are read from one entry and
/// `maxTotalBytes` from all, and once more than `ratioFloor` bytes were decompressed they may be
/// at most `maxRatio` times the archive's size. Going past one throws `.malformed` naming the
/// limit.
///
/// For example:
/// ```swift
/// let reader = try ArchiveReader(input, formats: .zip, extractor: "ooxml")
/// while let entry = try reader.next() {
///     if entry.name == "docProps/core.xml" { let xml = try reader.data() }
/// }
/// ```
package final class ArchiveReader {
    @MemberwiseInit
    package struct Limits: Sendable {
        var maxEntries: Int = 20_000
        var maxEntryBytes: Int = 64 << 20
        var maxTotalBytes: Int = 256 << 20
        var maxRatio: Int = 200
        var ratioFloor: Int = 16 << 20
    }

    enum Formats {
        /// Zip only (documents built on zip).
        case zip
        /// Zip read from its local headers only, front to back (for a zip whose central
        /// directory is damaged).
        case zipStreaming
        /// Every format and filter libarchive knows, plus `raw` for a lone compressed file.
        case any
        /// A lone compressed file only (every filter, the `raw` format): for a `.gz` of a text
        /// that another format's reader (mtree) would claim and then fail on.
        case compressedFile
        /// A lone file compressed with `encoding` only (its one filter, the `raw` format): a
        /// `.gz` whose decompressed bytes are read (`ExtractionContext`), not listed.
        case singleFile(ContentEncoding)
    }

    struct Entry {
        /// The member's path, decoded (UTF-8 where the archive says so, else Shift-JIS or
        /// Latin-1, see `ArchiveReader.decodeName`).
        var name: String
        var isDirectory: Bool
        /// Whether the member's data (or its header) is encrypted.
        var isEncrypted: Bool
        /// The size the header declares, if any (not trusted for limits).
        var declaredSize: Int64?
    }

    let extractor: String
    let limits: Limits
    private let handle: OpaquePointer
    private let source: Source
    private(set) var entryCount = 0
    private(set) var totalBytes = 0
    /// The format libarchive chose (`"ZIP 2.0 (deflation)"`, `"raw"`, `"GNU tar format"`), once
    /// the first header was read.
    private(set) var formatName: String?
    private(set) var formatCode: Int32 = 0

    init(_ input: ExtractionInput, formats: Formats, extractor: String, limits: Limits = Limits()) throws(ExtractionError) {
        self.extractor = extractor
        self.limits = limits
        if let file = input.file {
            source = Source(file: file)
        } else if input.isComplete {
            source = Source(bytes: input.bytes)
        } else {
            throw .malformed(extractor: extractor, reason: "only the first \(input.bytes.count) bytes are available")
        }
        guard let a = archive_read_new() else { throw .library("libarchive: out of memory") }
        handle = a
        switch formats {
        case .zip:
            archive_read_support_format_zip(a)
        case .zipStreaming:
            archive_read_support_format_zip_streamable(a)
        case .any:
            archive_read_support_filter_all(a)
            archive_read_support_format_all(a)
            archive_read_support_format_raw(a)
        case .compressedFile:
            archive_read_support_filter_all(a)
            archive_read_support_format_raw(a)
        case .singleFile(let encoding):
            switch encoding {
            case .gzip: archive_read_support_filter_gzip(a)
            case .bzip2: archive_read_support_filter_bzip2(a)
            case .xz: archive_read_support_filter_xz(a)
            case .zstd: archive_read_support_filter_zstd(a)
            case .compress: archive_read_support_filter_compress(a)
            }
            archive_read_support_format_raw(a)
        }
        let data = Unmanaged.passUnretained(source).toOpaque()
        archive_read_set_callback_data(a, data)
        archive_read_set_read_callback(a) { _, client, out in
            let s = Unmanaged<Source>.fromOpaque(client!).takeUnretainedValue()
            let n = s.fill()
            out?.pointee = UnsafeRawPointer(s.buffer)
            return la_ssize_t(n)
        }
        archive_read_set_seek_callback(a) { _, client, offset, whence in
            let s = Unmanaged<Source>.fromOpaque(client!).takeUnretainedValue()
            return s.seek(offset, whence: whence)
        }
        archive_read_set_skip_callback(a) { _, client, request in
            let s = Unmanaged<Source>.fromOpaque(client!).takeUnretainedValue()
            return s.skip(request)
        }
        if UTF8Locale.run({ archive_read_open1(a) }) != ARCHIVE_OK {
            let message = Self.message(a)
            // All stored properties are set, so `deinit` runs and frees the handle.
            throw .malformed(extractor: extractor, reason: source.error ?? message)
        }
    }

    deinit { archive_read_free(handle) }

    /// libarchive's last error message for this handle.
    var errorMessage: String { source.error ?? Self.message(handle) }

    private static func message(_ a: OpaquePointer) -> String {
        guard let p = archive_error_string(a) else { return "libarchive cannot read the data" }
        let text = String(decoding: UnsafeRawBufferPointer(start: p, count: strlen(p)), as: UTF8.self)
        return text.isEmpty ? "libarchive cannot read the data" : text
    }

    /// The next entry, or nil at the end. Throws `.malformed` with libarchive's reason for a
    /// damaged archive, or when more than `maxEntries` entries were visited.
    func next() throws(ExtractionError) -> Entry? {
        guard entryCount < limits.maxEntries else {
            throw .malformed(extractor: extractor, reason: "more than \(limits.maxEntries) entries; only the first were read")
        }
        var entry: OpaquePointer?
        let r = UTF8Locale.run { archive_read_next_header(handle, &entry) }
        if r == ARCHIVE_EOF { return nil }
        guard r == ARCHIVE_OK || r == ARCHIVE_WARN, let e = entry else {
            throw .malformed(extractor: extractor, reason: errorMessage)
        }
        entryCount += 1
        if formatName == nil, let f = archive_format_name(handle) {
            formatName = String(cString: f)
            formatCode = archive_format(handle)
        }
        let name: String = UTF8Locale.run {
            if let u = archive_entry_pathname_utf8(e) {
                return String(cString: u)
            } else if let raw = archive_entry_pathname(e) {
                return Self.decodeName(Array(UnsafeRawBufferPointer(start: raw, count: strlen(raw))))
            }
            return ""
        }
        let type = archive_entry_filetype(e)
        return Entry(name: name, isDirectory: type == 0o040000 || name.hasSuffix("/"),
                     isEncrypted: archive_entry_is_encrypted(e) != 0,
                     declaredSize: archive_entry_size_is_set(e) != 0 ? archive_entry_size(e) : nil)
    }

    /// The current entry's bytes, at most `maxEntryBytes` (or `limit`, if smaller). Throws when
    /// the entry is larger than that, when the total or the ratio limit is passed, or when
    /// libarchive cannot decompress it (encrypted, damaged).
    func data(limit: Int? = nil) throws(ExtractionError) -> [UInt8] {
        let cap = min(limit ?? limits.maxEntryBytes, limits.maxEntryBytes)
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = chunk.withUnsafeMutableBytes { archive_read_data(handle, $0.baseAddress, $0.count) }
            if n == 0 { return out }
            if n < 0 {
                throw .malformed(extractor: extractor, reason: errorMessage)
            }
            try account(n)
            guard out.count + n <= cap else {
                throw .malformed(extractor: extractor, reason: "a part decompresses to more than \(cap >> 20) MiB (zip bomb?); not read")
            }
            out.append(contentsOf: chunk[..<n])
        }
    }

    /// More of the current entry's bytes, appended to `start` until it holds `count` bytes or the
    /// entry ends, counted against the limits like `data(limit:)`; returns the bytes and whether
    /// the entry ended. Unlike `data(limit:)`, reaching `count` is not an error: the caller wanted
    /// a prefix (the first `textCap + 1` bytes of a compressed text).
    func read(upTo count: Int, appendingTo start: [UInt8] = []) throws(ExtractionError) -> (bytes: [UInt8], atEnd: Bool) {
        var out = start
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while out.count < count {
            let want = min(chunk.count, count - out.count)
            let n = chunk.withUnsafeMutableBytes { archive_read_data(handle, $0.baseAddress, want) }
            if n == 0 { return (out, true) }
            if n < 0 { throw .malformed(extractor: extractor, reason: errorMessage) }
            try account(n)
            out.append(contentsOf: chunk[..<n])
        }
        return (out, false)
    }

    /// Reads the current entry through, counting its bytes against the limits without keeping
    /// them. Returns how many bytes it held.
    func drain() throws(ExtractionError) -> Int {
        var count = 0
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = chunk.withUnsafeMutableBytes { archive_read_data(handle, $0.baseAddress, $0.count) }
            if n == 0 { return count }
            if n < 0 { throw .malformed(extractor: extractor, reason: errorMessage) }
            try account(n)
            count += n
        }
    }

    private func account(_ n: Int) throws(ExtractionError) {
        totalBytes += n
        if totalBytes > limits.maxTotalBytes {
            throw .malformed(extractor: extractor, reason: "the parts decompress to more than \(limits.maxTotalBytes >> 20) MiB (zip bomb?); stopped")
        }
        if totalBytes > limits.ratioFloor, Int64(totalBytes) > Int64(limits.maxRatio) * max(source.size, 1) {
            throw .malformed(extractor: extractor,
                             reason: "the parts decompress to more than \(limits.maxRatio) times the file's size (zip bomb?); stopped")
        }
    }

    /// Whether libarchive saw encrypted entries (1), none (0), or cannot tell (negative).
    var hasEncryptedEntries: Bool { archive_read_has_encrypted_entries(handle) > 0 }

    /// Bytes of the decompressed stream libarchive went through so far (for a `.tar.gz`, the
    /// position in the tar stream).
    var streamBytesRead: Int64 { archive_filter_bytes(handle, 0) }

    /// Whether a compression filter sits in front of the format (`.tar.gz`, `.tar.xz`): skipping
    /// a member then means decompressing it.
    var isFiltered: Bool { archive_filter_count(handle) > 1 }

    /// Decodes a member name that libarchive could not convert to UTF-8: valid UTF-8 as is,
    /// else Shift-JIS (CP932, common in zip files from Japanese Windows) when every byte fits,
    /// else Latin-1.
    static func decodeName(_ bytes: [UInt8]) -> String {
        if let s = String(validating: bytes, as: UTF8.self) { return s }
        if let s = Iconv.decode(bytes, from: "CP932") { return s }
        return String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
    }

    /// Where libarchive's callbacks read from: the open file through `pread`, or bytes in memory.
    final class Source {
        let file: ExtractionFile?
        let bytes: [UInt8]
        let size: Int64
        var offset: Int64 = 0
        let buffer: UnsafeMutableRawPointer
        let capacity = 64 * 1024
        var error: String?

        init(file: ExtractionFile) {
            self.file = file
            bytes = []
            size = file.size
            buffer = .allocate(byteCount: capacity, alignment: 16)
        }

        init(bytes: [UInt8]) {
            file = nil
            self.bytes = bytes
            size = Int64(bytes.count)
            buffer = .allocate(byteCount: capacity, alignment: 16)
        }

        deinit { buffer.deallocate() }

        /// Reads the next block into `buffer`; returns its length, 0 at the end, -1 on error.
        func fill() -> Int {
            if let file {
                switch SystemCall.pread(file.descriptor, into: UnsafeMutableRawBufferPointer(start: buffer, count: capacity), at: offset) {
                case .success(let n):
                    offset += Int64(n)
                    return n
                case .failure(let e):
                    error = "cannot read the file: " + String(cString: strerror(e.rawValue)).lowercased()
                    return -1
                }
            }
            guard offset < size else { return 0 }
            let n = Int(min(Int64(capacity), size - offset))
            bytes.withUnsafeBytes { raw in
                buffer.copyMemory(from: raw.baseAddress! + Int(offset), byteCount: n)
            }
            offset += Int64(n)
            return n
        }

        func seek(_ to: Int64, whence: Int32) -> Int64 {
            let base: Int64 = switch whence {
            case SEEK_SET: 0
            case SEEK_CUR: offset
            case SEEK_END: size
            default: -1
            }
            guard base >= 0 else { return Int64(ARCHIVE_FATAL) }
            let target = base + to
            guard target >= 0 else { return Int64(ARCHIVE_FATAL) }
            offset = target
            return target
        }

        func skip(_ request: Int64) -> Int64 {
            guard request > 0 else { return 0 }
            let step = min(request, max(0, size - offset))
            offset += step
            return step
        }
    }
}

/// Runs libarchive calls with the calling thread's character type set to UTF-8
/// (`uselocale(3)`, per thread, so nothing else in the process is affected). libarchive converts
/// names to and from "the current locale"; in the C locale every non-ASCII name (7-Zip's
/// UTF-16, a pax `path` record) would fail to convert and come back empty.
enum UTF8Locale {
    private struct Handle: @unchecked Sendable { let locale: locale_t? }
    private static let utf8: Handle = Handle(locale: newlocale(Int32(1 << LC_CTYPE), "C.UTF-8", nil))

    static func run<T>(_ body: () -> T) -> T {
        guard let locale = utf8.locale else { return body() }
        let previous = uselocale(locale)
        defer { uselocale(previous) }
        return body()
    }
}

/// Conversion of legacy-encoded bytes to UTF-8 through glibc's iconv.
enum Iconv {
    /// `bytes` decoded from `charset`, or nil when a byte sequence is invalid in it (or the
    /// converter is unavailable).
    static func decode(_ bytes: [UInt8], from charset: String) -> String? {
        let cd = iconv_open("UTF-8", charset)
        guard let cd, cd != iconv_t(bitPattern: -1) else { return nil }
        defer { iconv_close(cd) }
        var input = bytes.map { CChar(bitPattern: $0) }
        var output = [CChar](repeating: 0, count: bytes.count * 4 + 4)
        let written: Int? = input.withUnsafeMutableBufferPointer { inBuf in
            output.withUnsafeMutableBufferPointer { outBuf in
                var inPtr: UnsafeMutablePointer<CChar>? = inBuf.baseAddress
                var inLeft = inBuf.count
                var outPtr: UnsafeMutablePointer<CChar>? = outBuf.baseAddress
                var outLeft = outBuf.count
                let r = iconv(cd, &inPtr, &inLeft, &outPtr, &outLeft)
                if r == -1 || inLeft != 0 { return nil }
                return outBuf.count - outLeft
            }
        }
        guard let written else { return nil }
        return String(validating: output[..<written].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
