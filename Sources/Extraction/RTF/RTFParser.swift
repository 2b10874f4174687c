import Attributes
import ExtractionModel
import FoundationEssentials

/// The bytes of the file: `input.bytes` first, then the rest read through the descriptor.
struct RTFSource {
    private var buffer: [UInt8]
    private var position: Int
    private var offset: Int64
    private let file: ExtractionFile?
    private let limit: Int64
    private enum State { case reading, end, limit }
    private var state: State

    /// Whether reading stopped at `limit` (or for want of a descriptor) before the file's end.
    var hitLimit: Bool { state == .limit }
    /// Whether the whole file was read.
    var atEnd: Bool { state == .end }

    init(input: ExtractionInput, start: Int, limit: Int64) {
        buffer = input.bytes
        position = start
        offset = Int64(input.bytes.count)
        file = input.isComplete ? nil : input.file
        self.limit = limit
        // Without a descriptor the rest of an incomplete input is unknown, not missing.
        state = input.isComplete ? .end : input.file == nil ? .limit : .reading
    }

    mutating func next() -> UInt8? {
        if position < buffer.count || refill() {
            defer { position += 1 }
            return buffer[position]
        }
        return nil
    }

    mutating func peek() -> UInt8? {
        if position < buffer.count || refill() { return buffer[position] }
        return nil
    }

    private mutating func refill() -> Bool {
        guard state == .reading, let file else { return false }
        guard offset < limit else {
            state = .limit
            return false
        }
        let chunk = (try? file.read(at: offset, count: 1 << 20)) ?? []
        guard !chunk.isEmpty else {
            state = .end
            return false
        }
        offset += Int64(chunk.count)
        buffer = chunk
        position = 0
        return true
    }
}

/// The RTF state machine. A class so that the group stack and the outputs can be updated in
/// place from small helper methods.
final class RTFParser {
    enum Field { case title, subject, author, keywords, comment }
    enum Destination: Equatable { case body, skip, fonts, info, field(Field), created, revised }

    struct Group {
        var destination: Destination
        var unicodeSkip = 1
        var font: Int?
        /// The destination an `\upr` group hides (its `\ud` part restores it).
        var beforeUpr: Destination?
    }

    struct Stamp {
        var year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0
        var date: Date? {
            guard year > 0 else { return nil }
            return DocumentFields.date(year: year, month: max(month, 1), day: max(day, 1), hour: hour,
                                       minute: minute, second: Double(second))
        }
    }

    struct Info {
        var title: String?, subject: String?, keywords: String?, comment: String?
        var authors: [String] = []
        var created = Stamp(), revised = Stamp()
    }

    /// Destinations whose content is never text.
    static let skipped: Set<String> = [
        "colortbl", "stylesheet", "listtable", "listoverridetable", "revtbl", "rsidtbl", "generator", "pict",
        "objdata", "themedata", "colorschememapping", "latentstyles", "datastore", "xmlnstbl", "fldinst",
        "filetbl", "nonshppict", "sp", "bkmkstart", "bkmkend", "mmathPr", "pgdsctbl", "protusertbl",
        "wgrffmtfilter", "passwordhash", "template", "userprops", "docvar", "fchars", "lchars", "falt",
        "panose", "xe", "tc", "background", "printim", "buptim", "operator", "company", "manager", "category",
        "comment", "hlinkbase", "password",
    ]
    /// Destinations that hold text worth indexing even when marked `\*`.
    static let kept: Set<String> = ["shptxt", "fldrslt", "footnote", "annotation", "ud", "listtext", "pntext"]
    static let symbols: [String: String] = [
        "lquote": "\u{2018}", "rquote": "\u{2019}", "ldblquote": "\u{201C}", "rdblquote": "\u{201D}",
        "emdash": "\u{2014}", "endash": "\u{2013}", "bullet": "\u{2022}", "emspace": " ", "enspace": " ",
        "qmspace": " ", "tab": " ", "cell": " ", "nestcell": " ", "zwj": "", "zwnj": "",
    ]
    static let breaks: Set<String> = ["par", "line", "sect", "page", "row", "nestrow", "column"]

    private(set) var text: TextBuffer
    private(set) var info = Info()
    private var stack: [Group] = []
    private var overflow = 0
    private var group = Group(destination: .body)
    private var ansiCodePage = 1252
    private var defaultFont: Int?
    private var fontCodePages: [Int: Int] = [:]
    private var skipCount = 0
    private var ignorable = false
    private var pending: [UInt8] = []
    private var pendingCodePage = 1252
    private var highSurrogate: UInt16?
    private let codePages = WindowsCodePages()

    /// Groups still open when the input ended (0 for a complete document).
    var openGroups: Int { stack.count + overflow }
    /// The deepest nesting of groups met, counting the document's own group as 1.
    private(set) var deepestGroup = 0
    /// Groups deeper than `RTFExtractor.maxDepth` whose content was skipped, nested ones included.
    private(set) var skippedGroups = 0

    init(cap: Int) { text = TextBuffer(cap: cap) }

    func run(_ source: inout RTFSource) {
        while let b = source.next() {
            switch b {
            case UInt8(ascii: "{"):
                flush()
                if closedTop { return }   // bytes after the document's closing brace
                if stack.count + overflow >= RTFExtractor.maxDepth {
                    overflow += 1
                    skippedGroups += 1
                } else {
                    stack.append(group)
                }
                deepestGroup = max(deepestGroup, stack.count + overflow)
                skipCount = 0
            case UInt8(ascii: "}"):
                flush()
                if overflow > 0 {
                    overflow -= 1
                } else if let previous = stack.popLast() {
                    endGroup()
                    group = previous
                    if stack.isEmpty {
                        closedTop = true
                        return
                    }
                } else {
                    return
                }
                skipCount = 0
                ignorable = false
            case UInt8(ascii: "\\"):
                controlWord(&source)
            case 0x0D, 0x0A:
                break
            default:
                if overflow > 0 { continue }
                if skipCount > 0 {
                    skipCount -= 1
                    continue
                }
                literal(b)
            }
            if text.isFull { return }
        }
        flush()
    }

    private var closedTop = false

    private func literal(_ b: UInt8) {
        switch group.destination {
        case .body, .field: break
        default: return   // table entries, picture data ...: never text
        }
        let cp = currentCodePage
        if !pending.isEmpty && cp != pendingCodePage { flush() }
        pendingCodePage = cp
        pending.append(b)
    }

    private var currentCodePage: Int {
        if let f = group.font ?? defaultFont, let cp = fontCodePages[f] { return cp }
        return ansiCodePage
    }

    /// Decodes the pending bytes into the current destination.
    private func flush() {
        guard !pending.isEmpty else { return }
        let s = codePages.decode(pending, codePage: pendingCodePage)
        pending.removeAll(keepingCapacity: true)
        emit(s)
    }

    private func emit(_ s: String) {
        switch group.destination {
        case .body:
            text.append(s)
        case let .field(f):
            switch f {
            case .title: info.title = (info.title ?? "") + s
            case .subject: info.subject = (info.subject ?? "") + s
            case .keywords: info.keywords = (info.keywords ?? "") + s
            case .comment: info.comment = (info.comment ?? "") + s
            case .author:
                if info.authors.isEmpty { info.authors.append("") }
                info.authors[info.authors.count - 1] += s
            }
        default:
            break
        }
    }

    private func endGroup() {
        highSurrogate = nil   // an unpaired high surrogate is dropped
    }

    private func lineBreak() {
        flush()
        if group.destination == .body { text.breakLine() }
    }

    private func controlWord(_ source: inout RTFSource) {
        guard let c = source.next() else { return }
        let isLetter = (c >= 0x61 && c <= 0x7A) || (c >= 0x41 && c <= 0x5A)
        guard isLetter else {
            controlSymbol(c, &source)
            return
        }
        var word: [UInt8] = [c]
        while let n = source.peek(), (n >= 0x61 && n <= 0x7A) || (n >= 0x41 && n <= 0x5A), word.count < 32 {
            word.append(n)
            _ = source.next()
        }
        var parameter: Int?
        var negative = false
        if source.peek() == UInt8(ascii: "-") {
            negative = true
            _ = source.next()
        }
        var digits = 0
        var value = 0
        while let n = source.peek(), n >= 0x30 && n <= 0x39 {
            _ = source.next()
            if digits < 10 { value = value * 10 + Int(n - 0x30) }
            digits += 1
        }
        if digits > 0 { parameter = negative ? -value : value }
        if source.peek() == 0x20 { _ = source.next() }   // the delimiting space belongs to the word
        guard overflow == 0 else { return }
        handle(String(decoding: word, as: UTF8.self), parameter, &source)
    }

    private func controlSymbol(_ c: UInt8, _ source: inout RTFSource) {
        guard overflow == 0 else { return }
        switch c {
        case UInt8(ascii: "'"):
            guard let h = source.next(), let l = source.next(), let hi = ByteString.hexDigit(h), let lo = ByteString.hexDigit(l) else { return }
            if skipCount > 0 {
                skipCount -= 1
                return
            }
            literal(hi << 4 | lo)
        case UInt8(ascii: "*"):
            ignorable = true
        case UInt8(ascii: "\\"), UInt8(ascii: "{"), UInt8(ascii: "}"):
            if skipCount > 0 {
                skipCount -= 1
                return
            }
            literal(c)
        case UInt8(ascii: "~"):
            flush()
            emit(" ")
        case UInt8(ascii: "_"):
            flush()
            emit("-")
        case 0x0A, 0x0D:
            lineBreak()
        case UInt8(ascii: "\t"):
            flush()
            emit(" ")
        default:
            break   // \- optional hyphen, \: subentry, \| formula
        }
    }

    private func handle(_ word: String, _ parameter: Int?, _ source: inout RTFSource) {
        let wasIgnorable = ignorable
        ignorable = false
        if word == "bin" {
            // Raw binary data: skip it without reading it as RTF.
            var n = max(0, parameter ?? 0)
            while n > 0, source.next() != nil { n -= 1 }
            return
        }
        if word == "u" {
            flush()
            if let p = parameter { unicode(p) }
            skipCount = group.unicodeSkip
            return
        }
        if skipCount > 0 {   // a control word stands for one fallback character too
            skipCount -= 1
            return
        }
        switch word {
        case "uc": group.unicodeSkip = max(0, min(parameter ?? 1, 10))
        case "ansicpg": if let p = parameter, p > 0 { ansiCodePage = p }
        case "mac": ansiCodePage = 10000
        case "pc": ansiCodePage = 437
        case "pca": ansiCodePage = 850
        case "deff": defaultFont = parameter
        case "f":
            flush()
            group.font = parameter
        case "fcharset":
            if group.destination == .fonts, let f = group.font, let p = parameter,
               let cp = WindowsCodePages.codePage(forCharset: p), fontCodePages[f] == nil {
                fontCodePages[f] = cp
            }
        case "cpg":
            if group.destination == .fonts, let f = group.font, let p = parameter, p > 0 { fontCodePages[f] = p }
        case "plain":
            flush()
            group.font = nil
        case "fonttbl": enter(.fonts)
        case "info": enter(.info)
        case "title": field(.title)
        case "subject": field(.subject)
        case "keywords": field(.keywords)
        case "doccomm": field(.comment)
        case "author":
            if group.destination == .info {
                info.authors.append("")
                enter(.field(.author))
            } else {
                enter(.skip)
            }
        case "creatim": if group.destination == .info { enter(.created) } else { enter(.skip) }
        case "revtim": if group.destination == .info { enter(.revised) } else { enter(.skip) }
        case "yr", "mo", "dy", "hr", "min", "sec":
            if let p = parameter, group.destination == .created || group.destination == .revised {
                var stamp = group.destination == .created ? info.created : info.revised
                switch word {
                case "yr": stamp.year = p
                case "mo": stamp.month = p
                case "dy": stamp.day = p
                case "hr": stamp.hour = p
                case "min": stamp.minute = p
                default: stamp.second = p
                }
                if group.destination == .created { info.created = stamp } else { info.revised = stamp }
            }
        case "upr":
            group.beforeUpr = group.destination
            enter(.skip)
        case "ud":
            if let outer = stack.last?.beforeUpr { group.destination = outer }
        default:
            if RTFParser.breaks.contains(word) {
                lineBreak()
            } else if let s = RTFParser.symbols[word] {
                flush()
                emit(s)
            } else if RTFParser.skipped.contains(word) {
                enter(.skip)
            } else if wasIgnorable && !RTFParser.kept.contains(word) {
                enter(.skip)
            }
        }
    }

    private func field(_ f: Field) {
        if group.destination == .info { enter(.field(f)) } else { enter(.skip) }
    }

    /// Switches the current group to `destination`, unless it is already skipped.
    private func enter(_ destination: Destination) {
        flush()
        if group.destination == .skip { return }
        group.destination = destination
    }

    private func unicode(_ parameter: Int) {
        let unit = UInt16(truncatingIfNeeded: parameter < 0 ? parameter + 65536 : parameter)
        if (0xD800...0xDBFF).contains(unit) {
            highSurrogate = unit
            return
        }
        var scalar: Unicode.Scalar?
        if (0xDC00...0xDFFF).contains(unit) {
            if let high = highSurrogate {
                let v = 0x10000 + ((UInt32(high) - 0xD800) << 10) + (UInt32(unit) - 0xDC00)
                scalar = Unicode.Scalar(v)
            }
        } else {
            scalar = Unicode.Scalar(UInt32(unit))
        }
        highSurrogate = nil
        if let scalar { emit(String(Character(scalar))) }
    }
}
