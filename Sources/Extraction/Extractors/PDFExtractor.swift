import Attributes
import ExtractionModel
import CLibXML2
import CPoppler
import FoundationEssentials
import Glibc

/// PDF documents, through poppler-glib, reading the open file descriptor (a `dup` of it, which
/// poppler owns and closes) so that a large PDF is not copied into memory.
///
/// Gives, from the document information dictionary with the XMP metadata packet as a fallback
/// (`dc:title` in the `x-default` language, `dc:creator`, `dc:description`, `pdf:Keywords` or
/// the `dc:subject` bag, `xmp:CreatorTool`, `pdf:Producer`, `xmp:CreateDate`, `xmp:ModifyDate`):
/// `title`, `authors`,
/// `subject`, `keywords` (split on commas and semicolons), `creator` (the authoring
/// application), `producer`, `contentCreationDate`, `contentModificationDate`; and `pageCount`,
/// `pageWidth` / `pageHeight` (first page, in points), `encrypted` and `securityMethod` (the
/// `/Filter` of the encryption dictionary, such as `Standard`), and the text of the pages as
/// `textContent`, one line break between pages, each page's annotations (comments, the notes of
/// highlights, free text; see `annotationTexts(_:)`) after its text; `language` from the XMP
/// `dc:language`, the full tag as declared (`de-CH`).
///
/// Authors: the Info `Author` string is split on semicolons; when the XMP `dc:creator` list
/// names more people, that list is used instead (Acrobat writes only the first author into Info).
///
/// A PDF that needs a user password to open gives `encrypted` (and `securityMethod`) and the
/// error "encrypted; needs a password to read". A PDF with only an owner password (printing or
/// copying restricted) opens and is read normally. A file poppler cannot repair gives poppler's
/// message. Poppler's own warnings go nowhere (they are normal for damaged files).
///
/// For example, `testPDF.pdf` gives `title` "Apache Tika - Apache Tika", `pageCount` 1,
/// `pageWidth` 595 and its text.
///
/// The encryption facts come from the raw bytes (poppler-glib does not expose them): the last
/// `/Encrypt` entry in the first read or the last 256 KiB, then its object's `/Filter`.
///
/// Cost: poppler parses lazily, so metadata alone is cheap; the text costs roughly 1–10 ms a
/// page. Text stops at `textCap` bytes or after `maxTextPages` pages, whichever comes first.
package struct PDFExtractor: Extractor {
    package var name: String { "pdf" }

    /// Pages whose text is read at most (a PDF can declare millions of empty pages).
    static let maxTextPages = 5000
    /// The most bytes read into memory when there is no descriptor (inputs built from bytes).
    static let memoryLimit = 256 << 20

    package init() {}

    package func accepts(_ input: ExtractionInput) -> Bool { input.conforms(to: .pdf) }

    /// Silences poppler's log domain, once per process.
    static let quiet: Void = { cpoppler_silence_log() }()

    package func extract(_ input: ExtractionInput, into attributes: inout AttributeSet) throws(ExtractionError) {
        _ = Self.quiet
        let security = Self.encryption(input)
        if let security {
            attributes[.encrypted] = .bool(true)
            if let method = security.method { attributes[.securityMethod] = .string(method) }
        }

        var error: UnsafeMutablePointer<GError>?
        let document: OpaquePointer?
        if let file = input.file {
            let fd = fcntl(file.descriptor, F_DUPFD_CLOEXEC, 0)
            guard fd >= 0 else {
                throw .unreadable(errno: errno, message: String(cString: strerror(errno)).lowercased())
            }
            document = poppler_document_new_from_fd(fd, nil, &error)   // owns fd, even on failure
        } else {
            let bytes = try input.wholeFile(limit: Self.memoryLimit, extractor: name)
            let gbytes = bytes.withUnsafeBytes { g_bytes_new($0.baseAddress, gsize($0.count)) }
            document = poppler_document_new_from_bytes(gbytes, nil, &error)
            g_bytes_unref(gbytes)
        }
        guard let document else {
            let encrypted = cpoppler_is_encrypted_error(error) != 0
            let message = cpoppler_error_message(error).map { String(cString: $0) } ?? "poppler could not open the file"
            if let error { g_error_free(error) }
            if encrypted {
                attributes[.encrypted] = .bool(true)
                throw .malformed(extractor: name, reason: "encrypted; needs a password to read")
            }
            throw .malformed(extractor: name, reason: Self.reason(message))
        }
        if let error { g_error_free(error) }
        let doc = document
        defer { g_object_unref(gpointer(doc)) }

        if security == nil { attributes[.encrypted] = .bool(false) }
        readMetadata(doc, into: &attributes)

        let pages = Int(poppler_document_get_n_pages(doc))
        guard pages > 0 else {
            throw .malformed(extractor: name, reason: "no pages: the file is truncated or damaged")
        }
        attributes[.pageCount] = .integer(Int64(pages))
        if let first = poppler_document_get_page(doc, 0) {
            var width = 0.0, height = 0.0
            poppler_page_get_size(first, &width, &height)
            g_object_unref(gpointer(first))
            if width > 0, height > 0, width.isFinite, height.isFinite {
                attributes[.pageWidth] = .double(width)
                attributes[.pageHeight] = .double(height)
            }
        }

        var text = TextBuffer(cap: input.textCap)
        let limit = min(pages, Self.maxTextPages)
        for index in 0..<limit {
            guard let page = poppler_document_get_page(doc, Int32(index)) else { continue }
            if let raw = poppler_page_get_text(page) {
                text.append(String(cString: raw))
                g_free(raw)
            }
            for note in Self.annotationTexts(page) {   // comments and notes (issue 28)
                text.breakLine()
                text.append(note)
            }
            g_object_unref(gpointer(page))
            text.breakLine()
            if text.isFull { break }
        }
        let (body, full) = text.result
        if !body.isEmpty { attributes[.textContent] = .string(body) }
        if full || limit < pages { attributes[.textTruncated] = .bool(true) }
    }

    /// Document information, with the XMP packet filling the gaps.
    private func readMetadata(_ doc: OpaquePointer, into attributes: inout AttributeSet) {
        let xmp = Self.take(poppler_document_get_metadata(doc)).map { PDFXMP.parse($0) } ?? PDFXMP()
        if let title = DocumentFields.clean(Self.take(poppler_document_get_title(doc))) ?? xmp.title {
            attributes[.title] = .string(title)
        }
        var authors = DocumentFields.clean(Self.take(poppler_document_get_author(doc)))
            .map { DocumentFields.list($0, separators: [";"]) } ?? []
        if xmp.creators.count > authors.count { authors = xmp.creators }
        if !authors.isEmpty { attributes[.authors] = .strings(authors) }
        if let subject = DocumentFields.clean(Self.take(poppler_document_get_subject(doc))) ?? xmp.description {
            attributes[.subject] = .string(subject)
        }
        var keywords = DocumentFields.list(Self.take(poppler_document_get_keywords(doc)) ?? xmp.keywords ?? "")
        if keywords.isEmpty { keywords = xmp.subjects }
        if !keywords.isEmpty { attributes[.keywords] = .strings(keywords) }
        if let creator = DocumentFields.clean(Self.take(poppler_document_get_creator(doc))) ?? xmp.creatorTool {
            attributes[.generator] = .string(creator)
        }
        if let producer = DocumentFields.clean(Self.take(poppler_document_get_producer(doc))) ?? xmp.producer {
            attributes[.producer] = .string(producer)
        }
        if let created = Self.date(poppler_document_get_creation_date_time(doc)) ?? xmp.created {
            attributes[.contentCreationDate] = .date(created)
        }
        if let modified = Self.date(poppler_document_get_modification_date_time(doc)) ?? xmp.modified {
            attributes[.contentModificationDate] = .date(modified)
        }
        if let language = xmp.languages.first { attributes[.language] = .string(language) }
    }

    /// Copies and frees a string poppler hands over.
    static func take(_ p: UnsafeMutablePointer<gchar>?) -> String? {
        guard let p else { return nil }
        defer { g_free(p) }
        return String(cString: p)
    }

    /// Converts and releases a `GDateTime`.
    static func date(_ dt: OpaquePointer?) -> Date? {
        guard let dt else { return nil }
        defer { g_date_time_unref(dt) }
        let seconds = Double(g_date_time_to_unix(dt)) + Double(g_date_time_get_microsecond(dt)) / 1_000_000
        return Date(timeIntervalSince1970: seconds)
    }

    /// A user-facing reason for poppler's open error ("PDF document is damaged").
    static func reason(_ message: String) -> String {
        let m = message.trimmingSpaces()
        return m.isEmpty ? "poppler could not open the file" : "poppler: " + m
    }

    // MARK: Encryption dictionary

    /// Whether the trailer names an `/Encrypt` dictionary, and that dictionary's `/Filter`
    /// (`Standard`, `Adobe.PubSec`, ...). poppler-glib does not tell, so the raw bytes are
    /// searched: the trailer (or cross-reference stream dictionary) near the start (linearized
    /// files) or the end, then the encryption object itself, which the PDF specification keeps
    /// out of object streams. `nil` when the file is not encrypted.
    static func encryption(_ input: ExtractionInput) -> Encryption? {
        let head = input.bytes
        var tail: [UInt8] = []
        if !input.isComplete, let file = input.file, file.size > Int64(head.count) {
            let count = Int(min(Int64(256 << 10), file.size - Int64(head.count)))
            tail = (try? file.read(at: file.size - Int64(count), count: count)) ?? []
        }
        // The last trailer wins (incremental updates append a new one).
        guard let found = encryptReference(in: tail) ?? encryptReference(in: head) else { return nil }
        switch found {
        case let .inline(dict):
            return Encryption(method: filter(in: dict))
        case let .object(number, generation):
            let marker = Array("\(number) \(generation) obj".utf8)
            if let body = object(marker, in: tail) ?? object(marker, in: head) {
                return Encryption(method: filter(in: body))
            }
            // Elsewhere in the file: scan it in windows, up to 64 MiB.
            guard let file = input.file else { return Encryption(method: nil) }
            var offset = Int64(0)
            let window = 1 << 20
            while offset < min(file.size, 64 << 20) {
                guard let chunk = try? file.read(at: offset, count: window + 4096), !chunk.isEmpty else { break }
                if let body = object(marker, in: chunk) { return Encryption(method: filter(in: body)) }
                offset += Int64(window)
            }
            return Encryption(method: nil)
        }
    }

    struct Encryption { var method: String? }

    enum EncryptRef { case inline([UInt8]), object(Int, Int) }

    /// The last `/Encrypt` entry in `bytes`: an indirect reference (`/Encrypt 12 0 R`) or an inline
    /// dictionary. `/EncryptMetadata` and other longer names are not matches.
    static func encryptReference(in bytes: [UInt8]) -> EncryptRef? {
        let key = Array("/Encrypt".utf8)
        var result: EncryptRef?
        var from = bytes.startIndex
        while let r = bytes[from...].firstRange(of: key) {
            from = r.upperBound
            var i = r.upperBound
            while i < bytes.count, isSpace(bytes[i]) { i += 1 }
            guard i < bytes.count else { break }
            if bytes[i] == UInt8(ascii: "<"), i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "<") {
                result = .inline(Array(bytes[i..<min(bytes.count, i + 4096)]))
            } else if let (n, after) = integer(bytes, i), let (g, after2) = integer(bytes, skipSpace(bytes, after)) {
                let j = skipSpace(bytes, after2)
                if j < bytes.count, bytes[j] == UInt8(ascii: "R") { result = .object(n, g) }
            }
        }
        return result
    }

    /// The bytes following `marker` ("12 0 obj") when it starts a line or follows white space.
    static func object(_ marker: [UInt8], in bytes: [UInt8]) -> [UInt8]? {
        var from = bytes.startIndex
        while let r = bytes[from...].firstRange(of: marker) {
            from = r.upperBound
            if r.lowerBound == 0 || isSpace(bytes[r.lowerBound - 1]) {
                return Array(bytes[r.upperBound..<min(bytes.count, r.upperBound + 4096)])
            }
        }
        return nil
    }

    /// The name after the first `/Filter` in `dict`.
    static func filter(in dict: [UInt8]) -> String? {
        guard let r = dict.firstRange(of: Array("/Filter".utf8)) else { return nil }
        var i = skipSpace(dict, r.upperBound)
        guard i < dict.count, dict[i] == UInt8(ascii: "/") else { return nil }
        i += 1
        var name: [UInt8] = []
        while i < dict.count, !isSpace(dict[i]), !"/<>[]()%".utf8.contains(dict[i]) {
            name.append(dict[i])
            i += 1
        }
        return name.isEmpty ? nil : String(decoding: name, as: UTF8.self)
    }

    static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 || b == 0x0C || b == 0 }

    static func skipSpace(_ b: [UInt8], _ i: Int) -> Int {
        var i = i
        while i < b.count, isSpace(b[i]) { i += 1 }
        return i
    }

    static func integer(_ b: [UInt8], _ i: Int) -> (Int, Int)? {
        var j = i, n = 0
        while j < b.count, b[j] >= 0x30 && b[j] <= 0x39, j - i < 10 {
            n = n * 10 + Int(b[j] - 0x30)
            j += 1
        }
        return j > i ? (n, j) : nil
    }
}
