import Attributes
import ExtractionModel
import Crawling

/// Office Open XML documents: Word (`.docx`), Excel (`.xlsx`) and PowerPoint (`.pptx`),
/// including their template and macro-enabled variants, read as zip files through libarchive
/// (`ArchiveReader`, with its zip-bomb limits) and parsed with libxml2's streaming reader.
///
/// Gives, from `docProps/core.xml`: `title`, `authors` (`dc:creator`, split on `;`),
/// `subject`, `keywords` (`cp:keywords` split on `,` and `;`), `contentDescription`,
/// `language`, `contentCreationDate` and `contentModificationDate`; from `docProps/app.xml`:
/// `pageCount` (`Pages`, else `Slides`) and `generator` (`Application`). The text is:
/// - Word: the main document (found through `_rels/.rels`), then footnotes, endnotes, comments,
///   headers and footers; paragraphs become lines, tabs spaces; deleted text and field codes
///   are skipped.
/// - Excel: each sheet in workbook order (its name, then its rows, cells separated by spaces),
///   shared strings resolved.
/// - PowerPoint: each slide in presentation order.
///
/// A password-protected OOXML file is not a zip but an OLE2 "encrypted package" (libmagic:
/// `CDFV2 Encrypted`, `application/encrypted`): it gets `encrypted` = true and the error
/// "encrypted; needs a password". A damaged or truncated zip keeps what could be read and
/// records libarchive's reason.
///
/// For example, Tika's `testWORD.docx` gives `title` "Sample Word Document", `authors`
/// ["Keith Bennett"], `pageCount` 2 and text starting "Sample Word Document".
///
/// Cost: one pass over the zip, decompressing only the properties, relationships and text parts
/// (at most 64 MiB each, 256 MiB in all), each parsed as a stream; memory stays near the size
/// of the largest part.
package struct OfficeOpenXMLExtractor: Extractor {
    package var name: String { "ooxml" }

    package init() {}

    static let types: [ContentType] = [
        "org.openxmlformats.wordprocessingml.document", "org.openxmlformats.spreadsheetml.sheet",
        "org.openxmlformats.presentationml.presentation",
    ]

    package func accepts(_ input: ExtractionInput) -> Bool {
        if Self.types.contains(where: input.conforms(to:)) { return true }
        let mime = input.mimeType
        let lower = mime.lowercased()
        return lower.hasPrefix("application/vnd.openxmlformats-officedocument.")
            // docm, xlsm, pptm, dotm, ... but not the binary workbook (xlsb), whose parts are not XML
            || (lower.hasPrefix("application/vnd.ms-") && lower.hasSuffix(".macroenabled.12") && !lower.contains("binary"))
            || ((mime == "application/encrypted" || mime == "application/x-ole-storage") && Self.hasOOXMLExtension(input))
    }

    static let extensions: Set<String> = ["docx", "docm", "dotx", "dotm", "xlsx", "xlsm", "xltx", "xltm", "xlsb", "pptx", "pptm",
                                          "potx", "potm", "ppsx", "ppsm"]

    /// Whether the file's name ends in an OOXML extension (for the OLE2 "encrypted package",
    /// which libmagic cannot tell from other OLE2 files).
    static func hasOOXMLExtension(_ input: ExtractionInput) -> Bool {
        let path = input.facts.pathBytes
        guard let dot = path.lastIndex(of: UInt8(ascii: ".")) else { return false }
        let ext = String(decoding: path[(dot + 1)...], as: UTF8.self).lowercased()
        return extensions.contains(ext)
    }

    /// `EncryptedPackage`, the stream name of an encrypted OOXML file, as OLE2 directories
    /// store it (UTF-16LE).
    static let encryptedPackageName: [UInt8] = Array("EncryptedPackage".utf8).flatMap { [$0, 0] }

    /// Whether an OLE2 file holds an `EncryptedPackage` stream: looked for in the bytes already
    /// read and in the last MiB of the file (where writers usually put the directory).
    static func isEncryptedPackage(_ input: ExtractionInput) -> Bool {
        if input.bytes.firstRange(of: encryptedPackageName) != nil { return true }
        guard !input.isComplete, let file = input.file else { return false }
        let start = max(0, file.size - (1 << 20))
        guard let tail = try? file.read(at: start, count: Int(file.size - start)) else { return false }
        return tail.firstRange(of: encryptedPackageName) != nil
    }

    package func extract(_ input: ExtractionInput, into attributes: inout AttributeSet) throws(ExtractionError) {
        if input.bytes.starts(with: [0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1]) {
            // ECMA-376 agile/standard encryption wraps the zip in an OLE2 file.
            guard Self.isEncryptedPackage(input) else {
                throw .malformed(extractor: name, reason: "an OLE2 (Office 97-2003) file with an Office Open XML name, not a zip package")
            }
            attributes[.encrypted] = .bool(true)
            throw .malformed(extractor: name, reason: "encrypted; needs a password")
        }
        let zip = try ZipContainer.read(input, extractor: name, wanted: Self.wanted)
        var package = Package(zip: zip)

        if let core = zip.parts["docProps/core.xml"] { Self.coreProperties(core, into: &attributes) }
        if let app = zip.parts["docProps/app.xml"] { Self.appProperties(app, into: &attributes) }

        var text = TextBuffer(cap: input.textCap)
        var problem: String?
        let main = package.mainPart()
        if main.hasPrefix("xl/") {
            problem = package.spreadsheetText(workbook: main, into: &text)
        } else if main.hasPrefix("ppt/") {
            problem = package.presentationText(presentation: main, into: &text)
        } else {
            problem = package.wordText(document: main, into: &text)
        }
        try zip.finish(text, encrypted: !zip.encrypted.isEmpty, into: &attributes, extractor: name)
        if zip.parts[main] == nil {
            throw .malformed(extractor: name, reason: "the main part \(main) is missing; not an Office Open XML package?")
        }
        if let problem { throw .malformed(extractor: name, reason: problem) }
    }

    /// The members read: properties, relationships and the text-bearing parts.
    static func wanted(_ name: String) -> Bool {
        if name == "_rels/.rels" || name == "docProps/core.xml" || name == "docProps/app.xml" { return true }
        guard name.hasSuffix(".xml") || name.hasSuffix(".rels") else { return false }
        let parts = name.split(separator: "/")
        switch parts.first {
        case "word":
            if parts.count == 3, parts[1] == "_rels" { return true }
            guard parts.count == 2 else { return false }
            let file = parts[1]
            return !["styles.xml", "stylesWithEffects.xml", "fontTable.xml", "settings.xml", "webSettings.xml",
                     "numbering.xml"].contains(file)
        case "xl":
            if parts.count == 2 { return parts[1] == "workbook.xml" || parts[1] == "sharedStrings.xml" }
            if parts.count == 3 { return parts[1] == "_rels" || parts[1] == "worksheets" }
            return false
        case "ppt":
            if parts.count == 2 { return parts[1] == "presentation.xml" }
            if parts.count == 3 { return parts[1] == "_rels" || parts[1] == "slides" }
            return false
        default:
            return false
        }
    }

    static func coreProperties(_ bytes: [UInt8], into attributes: inout AttributeSet) {
        var field = ElementText()
        var current = ""
        var values: [String: String] = [:]
        try? XMLStream.parse(bytes) { node in
            if field.isCollecting {
                if case let .some(value) = field.feed(node) {
                    if let value, values[current] == nil { values[current] = value }
                }
                return true
            }
            if node.kind == .start, !node.isEmpty,
               ["title", "creator", "subject", "keywords", "description", "language", "created", "modified"].contains(node.localName) {
                current = node.localName
                field.begin()
            }
            return true
        }
        if let v = values["title"] { attributes[.title] = .string(v) }
        if let v = values["subject"] { attributes[.subject] = .string(v) }
        if let v = values["creator"] {
            let names = v.split(separator: ";").map { String($0).trimmingSpaces() }.filter { !$0.isEmpty }
            if !names.isEmpty { attributes[.authors] = .strings(names) }
        }
        if let v = values["keywords"] {
            let words = v.split(whereSeparator: { $0 == "," || $0 == ";" }).map { String($0).trimmingSpaces() }.filter { !$0.isEmpty }
            if !words.isEmpty { attributes[.keywords] = .strings(words) }
        }
        if let v = values["description"] { attributes[.contentDescription] = .string(v) }
        if let v = values["language"] { attributes[.language] = .string(v) }
        if let v = values["created"], let d = DocumentFields.iso8601(v) { attributes[.contentCreationDate] = .date(d) }
        if let v = values["modified"], let d = DocumentFields.iso8601(v) { attributes[.contentModificationDate] = .date(d) }
    }

    static func appProperties(_ bytes: [UInt8], into attributes: inout AttributeSet) {
        var field = ElementText()
        var current = ""
        var values: [String: String] = [:]
        var depth = 0
        try? XMLStream.parse(bytes) { node in
            if field.isCollecting {
                if case let .some(value) = field.feed(node) {
                    if let value, values[current] == nil { values[current] = value }
                }
                return true
            }
            switch node.kind {
            case .start:
                // Only the children of <Properties>, not the vectors inside HeadingPairs.
                if depth == 1, !node.isEmpty, ["Pages", "Slides", "Application"].contains(node.localName) {
                    current = node.localName
                    field.begin()
                    return true
                }
                if !node.isEmpty { depth += 1 }
            case .end:
                depth -= 1
            case .text:
                break
            }
            return true
        }
        if let v = values["Pages"] ?? values["Slides"], let n = Int64(v), n > 0 { attributes[.pageCount] = .integer(n) }
        if let v = values["Application"] { attributes[.generator] = .string(v) }
    }

    /// The parts read from one package, and the text walks over them.
    struct Package {
        var zip: ZipContainer

        /// The main part's name from `_rels/.rels` (`officeDocument` relationship), else the
        /// conventional name of whichever kind of package is present.
        func mainPart() -> String {
            if let rels = zip.parts["_rels/.rels"] {
                for r in Self.relationships(rels, of: "") where r.type.hasSuffix("/officeDocument") {
                    return r.target
                }
            }
            for name in ["word/document.xml", "xl/workbook.xml", "ppt/presentation.xml"] where zip.names.contains(name) {
                return name
            }
            return "word/document.xml"
        }

        struct Relationship {
            var id: String
            var type: String
            var target: String
        }

        /// The relationships in a `.rels` part, targets resolved against the part they belong to.
        static func relationships(_ bytes: [UInt8], of source: String) -> [Relationship] {
            var out: [Relationship] = []
            try? XMLStream.parse(bytes) { node in
                if node.kind == .start, node.localName == "Relationship",
                   let id = node.attribute("Id"), let target = node.attribute("Target") {
                    if node.attribute("TargetMode") == "External" { return true }
                    out.append(Relationship(id: id, type: node.attribute("Type") ?? "",
                                            target: ZipContainer.resolve(target, against: source)))
                }
                return true
            }
            return out
        }

        /// `word/_rels/document.xml.rels` for `word/document.xml`.
        static func relsName(of part: String) -> String {
            var components = part.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
            let file = components.removeLast()
            return (components + ["_rels", file + ".rels"]).joined(separator: "/")
        }

        func relationships(of part: String) -> [Relationship] {
            zip.parts[Self.relsName(of: part)].map { Self.relationships($0, of: part) } ?? []
        }

        static let wordRules = XMLTextRules(
            text: ["t"], space: ["tab", "ptab"], line: ["br", "cr"], block: ["p", "tr"],
            skip: ["Fallback", "instrText", "delText", "rPr", "pPr"])

        mutating func wordText(document: String, into text: inout TextBuffer) -> String? {
            var problem: String?
            var order = [document]
            let related = relationships(of: document)
            for kind in ["/footnotes", "/endnotes", "/comments", "/header", "/footer"] {
                for r in related where r.type.hasSuffix(kind) && !order.contains(r.target) { order.append(r.target) }
            }
            for part in order {
                guard let bytes = zip.parts[part] else { continue }
                do { try XMLText.collect(bytes, rules: Self.wordRules, into: &text) } catch {
                    problem = problem ?? "\(part): \(error.reason)"
                }
                text.breakLine()
                if text.isFull { break }
            }
            return problem
        }

        static let slideRules = XMLTextRules(text: ["t"], line: ["br"], block: ["p"], skip: ["Fallback"])

        mutating func presentationText(presentation: String, into text: inout TextBuffer) -> String? {
            var slides: [String] = []
            let related = relationships(of: presentation)
            if let bytes = zip.parts[presentation] {
                var ids: [String] = []
                try? XMLStream.parse(bytes) { node in
                    if node.kind == .start, node.localName == "sldId",
                       let rid = node.attribute("id", namespace: "http://schemas.openxmlformats.org/officeDocument/2006/relationships") {
                        ids.append(rid)
                    }
                    return true
                }
                for id in ids { if let r = related.first(where: { $0.id == id }) { slides.append(r.target) } }
            }
            if slides.isEmpty {
                slides = zip.names.filter { $0.hasPrefix("ppt/slides/slide") && $0.hasSuffix(".xml") }
                    .sorted { Self.number(in: $0) < Self.number(in: $1) }
            }
            var problem: String?
            for part in slides {
                guard let bytes = zip.parts[part] else { continue }
                do { try XMLText.collect(bytes, rules: Self.slideRules, into: &text) } catch {
                    problem = problem ?? "\(part): \(error.reason)"
                }
                text.breakLine()
                if text.isFull { break }
            }
            return problem
        }

        /// The number in `sheet12.xml` / `slide3.xml`, for ordering without relationships.
        static func number(in name: String) -> Int {
            Int(String(name.reversed().drop { !$0.isNumber }.prefix { $0.isNumber }.reversed())) ?? Int.max
        }

        mutating func spreadsheetText(workbook: String, into text: inout TextBuffer) -> String? {
            var problem: String?
            let related = relationships(of: workbook)
            // Shared strings, kept up to a budget of a few times the text cap.
            var shared: [String] = []
            let sharedName = related.first { $0.type.hasSuffix("/sharedStrings") }?.target ?? "xl/sharedStrings.xml"
            if let bytes = zip.parts[sharedName] {
                var current = ""
                var inT = 0, skipping = 0, budget = max(text.cap * 4, 1 << 20)
                do {
                    try XMLStream.parse(bytes) { node in
                        switch node.kind {
                        case .start:
                            if skipping > 0 { if !node.isEmpty { skipping += 1 }; return true }
                            if node.localName == "rPh" && !node.isEmpty { skipping = 1 }
                            else if node.localName == "t" && !node.isEmpty { inT += 1 }
                            else if node.localName == "si" && node.isEmpty { shared.append("") }
                        case .end:
                            if skipping > 0 { skipping -= 1; return true }
                            if node.localName == "t" { inT = max(0, inT - 1) }
                            if node.localName == "si" {
                                shared.append(current)
                                budget -= current.utf8.count
                                current = ""
                            }
                        case .text:
                            if skipping == 0, inT > 0, let v = node.value { current += v }
                        }
                        return budget > 0
                    }
                } catch {
                    problem = "\(sharedName): \(error.reason)"
                }
            }
            // Sheets in workbook order, with their names.
            var sheets: [(name: String?, part: String)] = []
            if let bytes = zip.parts[workbook] {
                try? XMLStream.parse(bytes) { node in
                    if node.kind == .start, node.localName == "sheet",
                       let rid = node.attribute("id", namespace: "http://schemas.openxmlformats.org/officeDocument/2006/relationships"),
                       let r = related.first(where: { $0.id == rid }) {
                        sheets.append((node.attribute("name"), r.target))
                    }
                    return true
                }
            }
            if sheets.isEmpty {
                sheets = zip.names.filter { $0.hasPrefix("xl/worksheets/") && $0.hasSuffix(".xml") }
                    .sorted { Self.number(in: $0) < Self.number(in: $1) }.map { (nil, $0) }
            }
            for sheet in sheets {
                guard let bytes = zip.parts[sheet.part] else { continue }
                if let name = sheet.name {
                    text.append(name)
                    text.breakLine()
                }
                do { try Self.sheetText(bytes, shared: shared, into: &text) } catch {
                    problem = problem ?? "\(sheet.part): \(error.reason)"
                }
                text.breakLine()
                if text.isFull { break }
            }
            return problem
        }

        /// The cells of one worksheet: shared strings looked up, inline strings and values as
        /// written (numbers as stored, formulas skipped).
        static func sheetText(_ bytes: [UInt8], shared: [String], into text: inout TextBuffer) throws(XMLStream.Failure) {
            var buffer = text
            defer { text = buffer }
            var cellType: String?
            var inValue = false, inInline = 0
            var value = ""
            try XMLStream.parse(bytes) { node in
                switch node.kind {
                case .start:
                    switch node.localName {
                    case "c":
                        cellType = node.attribute("t")
                        value = ""
                    case "v":
                        inValue = !node.isEmpty
                    case "t":
                        if !node.isEmpty { inInline += 1 }
                    default: break
                    }
                case .end:
                    switch node.localName {
                    case "v": inValue = false
                    case "t": inInline = max(0, inInline - 1)
                    case "c":
                        let v = value.trimmingSpaces()
                        if cellType == "s" {
                            if let i = Int(v), shared.indices.contains(i) { buffer.append(shared[i]) }
                        } else if !v.isEmpty {
                            buffer.append(v)
                        }
                        buffer.space()
                        cellType = nil
                    case "row":
                        buffer.breakLine()
                    default: break
                    }
                case .text:
                    if inValue || inInline > 0, let v = node.value { value += v }
                }
                return !buffer.isFull
            }
        }
    }
}
