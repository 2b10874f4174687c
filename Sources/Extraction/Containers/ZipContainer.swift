import Attributes
import ExtractionModel
/// The parts of a zip-based document (OOXML, OpenDocument, EPUB) read in one pass through
/// `ArchiveReader`, with its bomb limits.
///
/// For example:
/// ```swift
/// let zip = try ZipContainer.read(input, extractor: "opendocument") { $0 == "meta.xml" }
/// zip.parts["meta.xml"]      // its bytes, if present and readable
/// zip.error                  // what stopped the pass early (truncated file, zip bomb), if anything
/// ```
package struct ZipContainer {
    /// The bytes of the wanted parts that could be read, by exact member name.
    var parts: [String: [UInt8]] = [:]
    /// Every member name seen, in archive order.
    package var names: [String] = []
    /// Wanted parts whose data is encrypted (not read).
    var encrypted: Set<String> = []
    /// Why the pass stopped before the end (damaged or truncated file, a limit), if it did. The
    /// parts read before stay in `parts`.
    var error: ExtractionError?

    /// Reads every member `wanted` accepts. Throws only when the file is not a zip at all (or
    /// cannot be read); later damage is recorded in `error`.
    package static func read(_ input: ExtractionInput, extractor: String, limits: ArchiveReader.Limits = .init(),
                     wanted: (String) -> Bool) throws(ExtractionError) -> ZipContainer {
        var out = try read(input, formats: .zip, extractor: extractor, limits: limits, wanted: wanted)
        if out.names.isEmpty, out.error == nil, input.bytes.starts(with: [0x50, 0x4B, 0x03, 0x04]) {
            // A central directory that lists nothing although entries are there: read the
            // local headers instead.
            out = try read(input, formats: .zipStreaming, extractor: extractor, limits: limits, wanted: wanted)
            if !out.names.isEmpty, out.error == nil {
                out.error = .malformed(extractor: extractor, reason: "the zip's central directory is damaged; entries were read from their local headers")
            }
        }
        if out.names.isEmpty, let error = out.error {
            if case let .malformed(_, reason) = error {
                throw .malformed(extractor: extractor, reason: "not a readable zip file (\(reason))")
            }
            throw error
        }
        if out.error == nil, !hasEndRecord(input) {
            out.error = .malformed(extractor: extractor, reason: "truncated: the zip's central directory is missing")
        }
        return out
    }

    /// Whether the last 64 KiB (plus the record's 22 bytes) hold an end-of-central-directory
    /// record (`PK\u{5}\u{6}`). When a zip is cut short libarchive still reads the entries
    /// before the cut, so this is how a truncated file is noticed.
    static func hasEndRecord(_ input: ExtractionInput) -> Bool {
        let window = 65_535 + 22
        let tail: [UInt8]
        if input.isComplete {
            tail = Array(input.bytes.suffix(window))
        } else if let file = input.file {
            let start = max(0, file.size - Int64(window))
            guard let t = try? file.read(at: start, count: Int(file.size - start)) else { return true }
            tail = t
        } else {
            return true
        }
        return tail.firstRange(of: [0x50, 0x4B, 0x05, 0x06]) != nil
    }

    private static func read(_ input: ExtractionInput, formats: ArchiveReader.Formats, extractor: String,
                             limits: ArchiveReader.Limits, wanted: (String) -> Bool) throws(ExtractionError) -> ZipContainer {
        let reader: ArchiveReader
        do {
            reader = try ArchiveReader(input, formats: formats, extractor: extractor, limits: limits)
        } catch {
            if case let .malformed(_, reason) = error {
                throw .malformed(extractor: extractor, reason: "not a readable zip file (\(reason))")
            }
            throw error
        }
        var out = ZipContainer()
        do {
            while let entry = try reader.next() {
                out.names.append(entry.name)
                guard !entry.isDirectory, wanted(entry.name) else { continue }
                if entry.isEncrypted {
                    out.encrypted.insert(entry.name)
                    continue
                }
                out.parts[entry.name] = try reader.data()
            }
        } catch {
            out.error = error
        }
        return out
    }

    /// A part's path relative to the folder of `base` (a relationship or `href` target):
    /// `resolve("word/document.xml", "media/a.png")` is `word/media/a.png`, `../x` climbs, and
    /// a leading `/` is from the root. Percent escapes are decoded; fragments are dropped.
    package static func resolve(_ target: String, against base: String) -> String {
        var t = target
        if let hash = t.firstIndex(of: "#") { t = String(t[..<hash]) }
        t = percentDecoded(t)
        var components: [Substring]
        if t.hasPrefix("/") {
            components = []
        } else {
            components = base.split(separator: "/", omittingEmptySubsequences: false)
            components.removeLast()   // the base file's own name (or "" for the root)
        }
        for c in t.split(separator: "/", omittingEmptySubsequences: true) {
            if c == "." { continue }
            if c == ".." {
                if !components.isEmpty { components.removeLast() }
                continue
            }
            components.append(c)
        }
        return components.filter { !$0.isEmpty }.joined(separator: "/")
    }

    static func percentDecoded(_ s: String) -> String {
        guard s.contains("%") else { return s }
        var out: [UInt8] = []
        var bytes = Array(s.utf8)[...]
        while let b = bytes.popFirst() {
            if b == UInt8(ascii: "%"), bytes.count >= 2,
               let v = UInt8(String(decoding: bytes.prefix(2), as: UTF8.self), radix: 16) {
                out.append(v)
                bytes = bytes.dropFirst(2)
            } else {
                out.append(b)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// Which elements of an XML part carry text and how they break it, for `XMLText.collect`.
struct XMLTextRules: Sendable {
    /// Text nodes count only inside one of these (empty: everywhere outside `skip`).
    var text: Set<String> = []
    /// Start tags that stand for a space (`<w:tab/>`, `<text:s/>`).
    var space: Set<String> = []
    /// Start tags that stand for a line break (`<w:br/>`).
    var line: Set<String> = []
    /// Elements whose end is a block boundary (paragraphs, rows).
    var block: Set<String> = []
    /// Elements whose whole subtree is skipped (deleted text, field codes, fallbacks).
    var skip: Set<String> = []
}

enum XMLText {
    /// Appends the text of an XML part to `text` by local element names (prefixes and
    /// namespaces are ignored). Throws when the part is not XML; text before the fault is kept.
    static func collect(_ bytes: [UInt8], rules: XMLTextRules, into text: inout TextBuffer) throws(XMLStream.Failure) {
        var inText = 0
        var skipping = 0
        var buffer = text
        defer { text = buffer }
        try XMLStream.parse(bytes) { node in
            switch node.kind {
            case .start:
                if skipping > 0 {
                    if !node.isEmpty { skipping += 1 }
                    return true
                }
                let name = node.localName
                if rules.skip.contains(name) {
                    if !node.isEmpty { skipping = 1 }
                    return true
                }
                if rules.space.contains(name) {
                    buffer.space()
                } else if rules.line.contains(name) {
                    buffer.breakLine()
                }
                if rules.text.contains(name), !node.isEmpty { inText += 1 }
                if node.isEmpty, rules.block.contains(name) { buffer.breakLine() }
            case .end:
                if skipping > 0 {
                    skipping -= 1
                    return true
                }
                let name = node.localName
                if rules.text.contains(name), inText > 0 { inText -= 1 }
                if rules.block.contains(name) { buffer.breakLine() }
            case .text:
                if skipping == 0, rules.text.isEmpty || inText > 0, let v = node.value { buffer.append(v) }
            }
            return !buffer.isFull
        }
    }
}

extension ZipContainer {
    /// What a reader of a zip-based document (OOXML, OpenDocument) does once its parts are read:
    /// the text is kept, then an encrypted or damaged package is named. The text comes first, so
    /// that what could be read of a damaged file is indexed with the error beside it.
    func finish(_ text: TextBuffer, encrypted: Bool, into attributes: inout AttributeSet, extractor name: String) throws(ExtractionError) {
        let (body, full) = text.result
        if !body.isEmpty { attributes[.textContent] = .string(body) }
        if full { attributes[.textTruncated] = .bool(true) }
        if encrypted {
            attributes[.encrypted] = .bool(true)
            throw .malformed(extractor: name, reason: "encrypted; needs a password")
        }
        if let error {
            if case let .malformed(_, reason) = error {
                throw .malformed(extractor: name, reason: "damaged or truncated zip: \(reason)")
            }
            throw error
        }
    }
}
