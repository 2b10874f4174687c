import Attributes
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
public struct OLEExtractor: Extractor {
    public var name: String { "ole" }
    public var version: Int { 1 }

    static let memoryLimit = 128 << 20
    /// The most bytes of one stream read for text.
    static let streamLimit = 64 << 20

    static let types: [ContentType] = ["com.microsoft.word.doc", "com.microsoft.excel.xls", "com.microsoft.powerpoint.ppt"]

    public init() {}

    /// Generic OLE2 containers (libmagic's answer for a damaged `.xls` or `.ppt`, or other
    /// OLE2 formats): their summary information is read the same way.
    static let genericMIMETypes: Set<String> = ["application/x-ole-storage", "application/CDFV2", "application/x-cdf"]

    public func accepts(_ input: ExtractionInput) -> Bool {
        Self.types.contains(where: input.conforms(to:)) || Self.genericMIMETypes.contains(input.mimeType)
    }

    /// `gsf_init` and silenced logging, once per process.
    static let ready: Void = {
        gsf_init()
        cgsf_silence_log()
    }()

    public func extract(_ input: ExtractionInput, into attributes: inout AttributeSet) throws(ExtractionError) {
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
        func string(_ key: String) -> String? { DocumentMetadata.clean(cgsf_string(meta, key).map { String(cString: $0) }) }
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
        if let v = string("dc:creator") { attributes[.authors] = .strings(DocumentMetadata.list(v, separators: [";"])) }
        if let v = string("dc:keywords") {
            let words = DocumentMetadata.list(v)
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

/// Little-endian reads that return nil past the end instead of trapping.
extension Array where Element == UInt8 {
    func u16(_ at: Int) -> Int? {
        guard at >= 0, at + 2 <= count else { return nil }
        return Int(self[at]) | Int(self[at + 1]) << 8
    }

    func u32(_ at: Int) -> Int? {
        guard at >= 0, at + 4 <= count else { return nil }
        return Int(self[at]) | Int(self[at + 1]) << 8 | Int(self[at + 2]) << 16 | Int(self[at + 3]) << 24
    }
}

/// The text of a Word binary document ([MS-DOC]).
enum WordText {
    enum Outcome: Equatable { case done, encrypted, unsupported, damaged(String) }

    /// Pieces read at most (a hostile CLX can declare millions).
    static let maxPieces = 100_000

    static func read(_ word: [UInt8], table: (String) -> [UInt8]?, into text: inout TextBuffer) -> Outcome {
        guard let ident = word.u16(0), ident == 0xA5EC || ident == 0xA5DC, let nFib = word.u16(2),
              let flags = word.u16(0x0A) else {
            return .damaged("the WordDocument stream has no valid file information block")
        }
        if flags & 0x0100 != 0 { return .encrypted }   // fEncrypted (also XOR obfuscation)
        var reader = Reader()
        if nFib < 101 { return .unsupported }          // Word 2 and older
        if nFib < 150 {                                 // Word 6 / 95 (nFib 101–105)
            guard flags & 0x0004 == 0 else { return .unsupported }   // fComplex: fast-saved
            guard let fcMin = word.u32(0x18), let ccpText = word.u32(0x34) else { return .damaged("truncated file information block") }
            let end = min(word.count, fcMin + ccpText)
            guard fcMin < end else { return .done }
            for b in word[fcMin..<end] {
                reader.add(UInt16(TextDecoding.windows1252(b).value), into: &text)
                if text.isFull { break }
            }
            return .done
        }
        // Word 97 and later: the CLX in the table stream holds the piece table.
        let tableName = flags & 0x0200 != 0 ? "1Table" : "0Table"
        guard let fcClx = word.u32(0x01A2), let lcbClx = word.u32(0x01A6), let ccpText = word.u32(0x4C) else {
            return .damaged("truncated file information block")
        }
        guard let tableStream = table(tableName) else { return .damaged("the \(tableName) stream is missing") }
        guard lcbClx > 0, fcClx >= 0, fcClx + lcbClx <= tableStream.count else {
            return .damaged("the piece table lies outside the \(tableName) stream")
        }
        let clx = Array(tableStream[fcClx..<(fcClx + lcbClx)])
        var i = 0
        // Skip the Prc entries (property modifiers), then read the Pcdt.
        while i < clx.count, clx[i] == 0x01 {
            guard let cb = clx.u16(i + 1) else { return .damaged("truncated piece table") }
            i += 3 + cb
        }
        guard i < clx.count, clx[i] == 0x02, let lcb = clx.u32(i + 1), i + 5 + lcb <= clx.count, lcb >= 4 else {
            return .damaged("the piece table is malformed")
        }
        let plc = Array(clx[(i + 5)..<(i + 5 + lcb)])
        let pieces = min((lcb - 4) / 12, maxPieces)
        var cpDone = 0
        for p in 0..<pieces {
            guard let cpStart = plc.u32(p * 4), let cpEnd = plc.u32((p + 1) * 4),
                  let fcRaw = plc.u32((pieces + 1) * 4 + p * 8 + 2) else { break }
            // Main document text only (footnotes, headers, comments follow it).
            guard cpStart < ccpText else { break }
            let count = min(cpEnd, ccpText) - cpStart
            guard count > 0 else { continue }
            let compressed = fcRaw & 0x4000_0000 != 0
            let fc = fcRaw & 0x3FFF_FFFF
            if compressed {
                let start = fc / 2
                guard start < word.count else { continue }
                for b in word[start..<min(word.count, start + count)] {
                    reader.add(UInt16(TextDecoding.windows1252(b).value), into: &text)
                }
            } else {
                var k = fc
                let end = min(word.count - 1, fc + count * 2)
                while k < end {
                    reader.add(UInt16(word[k]) | UInt16(word[k + 1]) << 8, into: &text)
                    k += 2
                }
            }
            cpDone += count
            if text.isFull { break }
        }
        reader.finish(into: &text)
        return .done
    }

    /// Turns Word's control characters into text: paragraph and cell marks become line breaks,
    /// field codes (between 0x13 and 0x14) are dropped and field results kept, and UTF-16
    /// surrogate pairs are joined.
    struct Reader {
        var fieldDepth = 0
        /// For each open field, whether its separator (0x14) was seen.
        var inResult: [Bool] = []
        var high: UInt16?
        var run: String = ""

        mutating func add(_ unit: UInt16, into text: inout TextBuffer) {
            switch unit {
            case 0x13:
                inResult.append(false)
                if inResult.count > 64 { inResult.removeFirst() }
                return
            case 0x14:
                if !inResult.isEmpty { inResult[inResult.count - 1] = true }
                return
            case 0x15:
                _ = inResult.popLast()
                return
            default:
                break
            }
            if inResult.contains(false) { return }   // inside a field's instructions
            switch unit {
            case 0x0D, 0x07, 0x0B, 0x0C, 0x0E:
                flush(into: &text)
                text.breakLine()
            case 0x09:
                run.append(" ")
            case 0x1E:
                run.append("-")
            case 0x00...0x1F:
                break   // pictures, footnote marks, optional hyphens, ...
            case 0xD800...0xDBFF:
                high = unit
                return
            case 0xDC00...0xDFFF:
                if let h = high, let s = Unicode.Scalar(0x10000 + ((UInt32(h) - 0xD800) << 10) + (UInt32(unit) - 0xDC00)) {
                    run.unicodeScalars.append(s)
                }
            default:
                if let s = Unicode.Scalar(UInt32(unit)) { run.unicodeScalars.append(s) }
            }
            high = nil
            if run.utf8.count >= 4096 { flush(into: &text) }
        }

        mutating func flush(into text: inout TextBuffer) {
            if !run.isEmpty { text.append(run) }
            run = ""
        }

        mutating func finish(into text: inout TextBuffer) { flush(into: &text) }
    }
}

/// The text atoms of a PowerPoint 97+ `PowerPoint Document` stream ([MS-PPT] 2.3): a tree of
/// records, each with an 8-byte header (version/instance, type, length); containers have
/// version 0xF. Text lives in `TextCharsAtom` (0x0FA0, UTF-16LE) and `TextBytesAtom` (0x0FA8,
/// Latin-1) records, with `\r` between paragraphs. Master slides and handouts are skipped, and a
/// text block seen before (the slide list and the slide drawing both hold it) is not repeated.
enum PowerPointText {
    static let maxRecords = 1_000_000
    static let maxDepth = 32

    static func read(_ stream: [UInt8], into text: inout TextBuffer) {
        var state = State()
        walk(stream, from: 0, to: stream.count, depth: 0, state: &state, into: &text)
    }

    struct State {
        var visited = 0
        /// Text blocks already added: a slide's text is stored both in the slide list and in the
        /// slide's drawing, so repeats are dropped.
        var seen = Set<String>()
    }

    private static func walk(_ s: [UInt8], from: Int, to end: Int, depth: Int, state: inout State, into text: inout TextBuffer) {
        guard depth < maxDepth else { return }
        var i = from
        while i + 8 <= end, state.visited < maxRecords, !text.isFull {
            guard let verInst = s.u16(i), let type = s.u16(i + 2), let length = s.u32(i + 4) else { return }
            state.visited += 1
            let body = i + 8
            let bodyEnd = min(end, body + length)
            if verInst & 0x000F == 0x000F {
                // Masters and handouts hold placeholder prompts ("Click to edit Master title style").
                guard type != 0x03F8, type != 0x0FC9, type != 0x03F9 else {
                    i = body + length
                    continue
                }
                walk(s, from: body, to: bodyEnd, depth: depth + 1, state: &state, into: &text)
            } else if type == 0x0FA0 {
                var units: [UInt16] = []
                units.reserveCapacity((bodyEnd - body) / 2)
                var k = body
                while k + 1 < bodyEnd {
                    units.append(UInt16(s[k]) | UInt16(s[k + 1]) << 8)
                    k += 2
                }
                add(String(decoding: units, as: UTF16.self), &state, into: &text)
            } else if type == 0x0FA8 {
                var scalars = String.UnicodeScalarView()
                for b in s[body..<bodyEnd] { scalars.append(Unicode.Scalar(b)) }   // Latin-1: UTF-16 with a zero high byte
                add(String(scalars), &state, into: &text)
            }
            guard length >= 0, body + length > i else { return }
            i = body + length
        }
    }

    private static func add(_ s: String, _ state: inout State, into text: inout TextBuffer) {
        guard state.seen.insert(s).inserted else { return }
        if state.seen.count > 100_000 { state.seen.removeAll() }
        // Paragraphs are separated by \r, vertical tabs are soft line breaks.
        for (n, paragraph) in s.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\r" || $0 == "\u{0B}" }).enumerated() {
            if n > 0 { text.breakLine() }
            text.append(paragraph)
        }
        text.breakLine()
    }
}

/// The text of an Excel 97+ `Workbook` stream ([MS-XLS]): BIFF8 records (type, length, data).
/// Sheet names come from `BoundSheet8` (0x0085) and cell text from the shared string table
/// (`SST`, 0x00FC, continued in `CONTINUE` records, 0x003C).
enum ExcelText {
    enum Outcome: Equatable { case done, encrypted }

    static let maxStrings = 1_000_000

    static func read(_ book: [UInt8], into text: inout TextBuffer) -> Outcome {
        var i = 0
        var sheets: [String] = []
        while i + 4 <= book.count, !text.isFull {
            guard let type = book.u16(i), let length = book.u16(i + 2) else { break }
            let body = i + 4
            let end = min(book.count, body + length)
            switch type {
            case 0x002F:   // FILEPASS
                return .encrypted
            case 0x0085:   // BoundSheet8: lbPlyPos(4) hsState(1) dt(1) stName (ShortXLUnicodeString)
                if body + 8 <= end {
                    let cch = Int(book[body + 6]), high = book[body + 7] & 0x01 != 0
                    var segments = Segments([Array(book[(body + 8)..<end])])
                    if let name = segments.characters(cch, high: high), let clean = DocumentMetadata.clean(name) {
                        sheets.append(clean)
                    }
                }
            case 0x00FC:   // SST, then its CONTINUE records
                for name in sheets { text.append(name); text.breakLine() }
                sheets = []
                var parts = [Array(book[body..<end])]
                var j = end
                while j + 4 <= book.count, book.u16(j) == 0x003C, let l = book.u16(j + 2) {
                    parts.append(Array(book[(j + 4)..<min(book.count, j + 4 + l)]))
                    j += 4 + l
                }
                readSST(Segments(parts), into: &text)
                i = j
                continue
            default:
                break
            }
            i = body + length
        }
        for name in sheets { text.append(name); text.breakLine() }
        return .done
    }

    private static func readSST(_ segments: Segments, into text: inout TextBuffer) {
        var s = segments
        guard s.skip(4), let unique = s.u32() else { return }
        for _ in 0..<min(unique, maxStrings) {
            guard let cch = s.u16(), let flags = s.u8() else { return }
            var runs = 0, ext = 0
            if flags & 0x08 != 0 { guard let r = s.u16() else { return }; runs = r }
            if flags & 0x04 != 0 { guard let e = s.u32() else { return }; ext = e }
            guard let value = s.characters(cch, high: flags & 0x01 != 0) else { return }
            guard s.skip(runs * 4 + ext) else {
                text.append(value)
                return
            }
            text.append(value)
            text.breakLine()
            if text.isFull { return }
        }
    }

    /// A record's data split over CONTINUE records. Characters of one string may continue in
    /// the next segment, which then starts with a fresh option byte (8- or 16-bit characters).
    struct Segments {
        var parts: [[UInt8]]
        var part = 0
        var offset = 0

        init(_ parts: [[UInt8]]) { self.parts = parts }

        private mutating func advanceIfAtEnd() -> Bool {
            while part < parts.count, offset >= parts[part].count {
                part += 1
                offset = 0
            }
            return part < parts.count
        }

        mutating func u8() -> Int? {
            guard advanceIfAtEnd() else { return nil }
            defer { offset += 1 }
            return Int(parts[part][offset])
        }

        mutating func u16() -> Int? {
            guard let a = u8(), let b = u8() else { return nil }
            return a | b << 8
        }

        mutating func u32() -> Int? {
            guard let a = u16(), let b = u16() else { return nil }
            return a | b << 16
        }

        mutating func skip(_ n: Int) -> Bool {
            var left = n
            while left > 0 {
                guard advanceIfAtEnd() else { return false }
                let take = min(left, parts[part].count - offset)
                offset += take
                left -= take
            }
            return true
        }

        /// `count` characters, 16-bit when `high`; a segment boundary inside them switches the
        /// width to the new segment's option byte.
        mutating func characters(_ count: Int, high: Bool) -> String? {
            var units: [UInt16] = []
            units.reserveCapacity(count)
            var wide = high
            while units.count < count {
                if part < parts.count, offset >= parts[part].count {
                    part += 1
                    offset = 0
                    guard part < parts.count, !parts[part].isEmpty else { return nil }
                    wide = parts[part][0] & 0x01 != 0
                    offset = 1
                    continue
                }
                guard part < parts.count else { return nil }
                if wide {
                    guard offset + 2 <= parts[part].count else { return nil }
                    units.append(UInt16(parts[part][offset]) | UInt16(parts[part][offset + 1]) << 8)
                    offset += 2
                } else {
                    units.append(UInt16(TextDecoding.windows1252(parts[part][offset]).value))
                    offset += 1
                }
            }
            return String(decoding: units, as: UTF16.self)
        }
    }
}
