import Attributes
import ExtractionModel
import CGsf
import FoundationEssentials

/// Legacy Microsoft Office files (Word `.doc`, Excel `.xls`, PowerPoint `.ppt`): OLE2 compound
/// documents, opened from memory with libgsf.
///
/// Gives, from the `\005SummaryInformation` and `\005DocumentSummaryInformation` property
/// streams: `title`, `subject`, `authors` (the author), `keywords` (split on commas and
/// semicolons), `contentDescription` (comments), `contentCreationDate`,
/// `contentModificationDate` (last saved), `pageCount` (Word's page count, PowerPoint's slide
/// count) and `creator` (the application name).
///
/// Text (`textContent`):
/// - Word 97 and later: the document text through the piece table (the CLX in the table
///   stream), which also covers fast-saved files; field instructions are dropped and their
///   results kept. Encrypted or obfuscated documents give `encrypted` and the error
///   "encrypted; needs a password to read" after the metadata.
/// - Word 6 and 95 (non-complex files): the text between `fcMin` and `fcMin + ccpText`, read as
///   Windows-1252.
/// - PowerPoint 97 and later: the `TextCharsAtom` / `TextBytesAtom` records of the
///   `PowerPoint Document` stream (slide text, notes, masters), in stream order.
/// - Excel 97 and later (BIFF8): the sheet names and the shared string table (every distinct
///   text cell value, in first-use order); numbers and formulas are not text. An encrypted
///   workbook (`FILEPASS`) gives `encrypted` and "encrypted; needs a password to read".
///
/// Other OLE2 files (`application/x-ole-storage`, which libmagic also says for a damaged `.xls`)
/// get the same metadata. A file libgsf cannot open as OLE2 gives libgsf's message.
///
/// For example, `testWORD.doc` gives `title` "Sample Word Document", `authors` ["Keith
/// Bennett"] and `pageCount` 2.
///
/// Cost: the whole file is read into memory (at most `memoryLimit`); streams are read once.
package struct OLEExtractor: Extractor {
    package var name: String { "ole" }

    static let memoryLimit = 128 << 20
    /// The most bytes of one stream read for text.
    static let streamLimit = 64 << 20

    static let types: [ContentType] = ["com.microsoft.word.doc", "com.microsoft.excel.xls", "com.microsoft.powerpoint.ppt"]

    package init() {}

    /// Generic OLE2 containers (libmagic's answer for a damaged `.xls` or `.ppt`, or other
    /// OLE2 formats): their summary information is read the same way.
    static let genericMIMETypes: Set<String> = ["application/x-ole-storage", "application/CDFV2", "application/x-cdf"]

    package func accepts(_ input: ExtractionInput) -> Bool {
        Self.types.contains(where: input.conforms(to:)) || Self.genericMIMETypes.contains(input.mimeType)
    }

    /// `gsf_init` and silenced logging, once per process.
    static let ready: Void = {
        gsf_init()
        cgsf_silence_log()
    }()

    package func extract(_ input: ExtractionInput, into attributes: inout AttributeSet) throws(ExtractionError) {
        _ = Self.ready
        let bytes = try input.wholeFile(limit: Self.memoryLimit, extractor: name)
        try bytes.withUnsafeBufferPointer { (buffer) throws(ExtractionError) in
            guard let base = buffer.baseAddress, !buffer.isEmpty else {
                throw .malformed(extractor: name, reason: "the file is empty")
            }
            guard let memory = gsf_input_memory_new(base, gsf_off_t(buffer.count), 0) else {
                throw .malformed(extractor: name, reason: "libgsf could not read the file")
            }
            defer { g_object_unref(gpointer(memory)) }
            var error: UnsafeMutablePointer<GError>?
            guard let ole = gsf_infile_msole_new(memory, &error) else {
                let message = cgsf_error_message(error).map { String(cString: $0) }
                if let error { g_error_free(error) }
                throw .malformed(extractor: name, reason: "not a readable OLE2 document" + (message.map { ": \($0)" } ?? ""))
            }
            defer { g_object_unref(gpointer(ole)) }
            let damage = Damage()
            readMetadata(ole, damage, into: &attributes)
            try readText(ole, input, damage, into: &attributes)
            if let reason = damage.reason { throw .malformed(extractor: name, reason: reason) }
        }
    }

    // MARK: Metadata

    /// The first sign of damage met while reading (a stream cut short, unreadable properties);
    /// reported after everything readable was stored.
    final class Damage {
        var reason: String?
        func note(_ r: String) { if reason == nil { reason = r } }
    }

    private func readMetadata(_ ole: OpaquePointer, _ damage: Damage, into attributes: inout AttributeSet) {
        guard let meta = gsf_doc_meta_data_new() else { return }
        defer { g_object_unref(gpointer(meta)) }
        for stream in ["\u{5}SummaryInformation", "\u{5}DocumentSummaryInformation"] {
            guard let input = gsf_infile_child_by_name(ole, stream) else { continue }
            if let e = gsf_doc_meta_data_read_from_msole(meta, input) {
                let message = cgsf_error_message(e).map { String(cString: $0) } ?? "unreadable"
                damage.note("the \(stream.dropFirst()) stream is damaged: \(message)")
                g_error_free(e)
            }
            g_object_unref(gpointer(input))
        }
        func string(_ key: String) -> String? { DocumentFields.clean(cgsf_string(meta, key).map { String(cString: $0) }) }
        func integer(_ key: String) -> Int64? {
            var v: gint64 = 0
            return cgsf_integer(meta, key, &v) != 0 ? Int64(v) : nil
        }
        func date(_ key: String) -> Date? {
            var t: gint64 = 0
            // A zero FILETIME (1601) or the 1900 epoch of an unset field is not a date.
            guard cgsf_time(meta, key, &t) != 0, t > 0 else { return nil }
            return Date(timeIntervalSince1970: Double(t))
        }
        if let v = string("dc:title") { attributes[.title] = .string(v) }
        if let v = string("dc:subject") { attributes[.subject] = .string(v) }
        if let v = string("dc:creator") { attributes[.authors] = .strings(DocumentFields.list(v, separators: [";"])) }
        if let v = string("dc:keywords") {
            let words = DocumentFields.list(v)
            if !words.isEmpty { attributes[.keywords] = .strings(words) }
        }
        if let v = string("dc:description") { attributes[.contentDescription] = .string(v) }
        if let v = string("meta:generator") { attributes[.generator] = .string(v) }
        if let v = date("meta:creation-date") { attributes[.contentCreationDate] = .date(v) }
        if let v = date("dc:date") { attributes[.contentModificationDate] = .date(v) }
        if let v = integer("gsf:slide-count") ?? integer("gsf:page-count"), v > 0 { attributes[.pageCount] = .integer(v) }
    }

    // MARK: Text

    private func readText(_ ole: OpaquePointer, _ input: ExtractionInput, _ damage: Damage,
                          into attributes: inout AttributeSet) throws(ExtractionError) {
        let stream = { (name: String) in self.stream(ole, name, damage) }
        var text = TextBuffer(cap: input.textCap)
        if let word = stream("WordDocument") {
            let table = stream
            switch WordText.read(word, table: table, into: &text) {
            case .encrypted:
                attributes[.encrypted] = .bool(true)
                throw .malformed(extractor: name, reason: "encrypted; needs a password to read")
            case .unsupported, .done:
                break
            case let .damaged(reason):
                store(text, into: &attributes)
                throw .malformed(extractor: name, reason: reason)
            }
        } else if let ppt = stream("PowerPoint Document") {
            PowerPointText.read(ppt, into: &text)
        } else if let book = stream("Workbook") {
            if ExcelText.read(book, into: &text) == .encrypted {
                attributes[.encrypted] = .bool(true)
                throw .malformed(extractor: name, reason: "encrypted; needs a password to read")
            }
        }
        store(text, into: &attributes)
    }

    private func store(_ text: TextBuffer, into attributes: inout AttributeSet) {
        let (body, full) = text.result
        if !body.isEmpty { attributes[.textContent] = .string(body) }
        if full { attributes[.textTruncated] = .bool(true) }
    }

    /// The bytes of one stream of the container, at most `streamLimit`.
    private func stream(_ ole: OpaquePointer, _ name: String, _ damage: Damage) -> [UInt8]? {
        guard let child = gsf_infile_child_by_name(ole, name) else { return nil }
        defer { g_object_unref(gpointer(child)) }
        let size = Int(min(gsf_input_size(child), gsf_off_t(Self.streamLimit)))
        guard size > 0 else { return [] }
        var out = [UInt8](repeating: 0, count: size)
        var done = 0
        while done < size {
            let n = min(size - done, 4096)
            let ok = out.withUnsafeMutableBufferPointer { gsf_input_read(child, n, $0.baseAddress! + done) != nil }
            guard ok else {
                damage.note("truncated: the \(name) stream ends after \(done) of its \(size) bytes")
                break
            }
            done += n
        }
        return Array(out.prefix(done))
    }
}
