import Attributes
import FoundationEssentials

/// The XBEL reader behind `RecentlyUsedList`: one pass over the bytes, elements and attributes
/// only (text, comments, processing instructions, CDATA and the doctype are skipped), with the
/// checks that make a truncated or corrupt file an error rather than a shorter list.
struct XBELScanner {
    let bytes: [UInt8]
    var i = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    private struct Element {
        var name: String
        /// Namespace prefixes this element declares (`xmlns:bookmark="…"`).
        var namespaces: [String: String]
    }

    mutating func read() throws(RecentlyUsedListError) -> (bookmarks: [RecentlyUsedList.Bookmark], skipped: Int) {
        var stack: [Element] = []
        var sawRoot = false
        var bookmarks: [RecentlyUsedList.Bookmark] = []
        var skipped = 0
        /// The bookmark being read (nil inside a bookmark that is skipped) and its depth.
        var current: RecentlyUsedList.Bookmark?
        var bookmarkDepth: Int?
        while let lt = next(UInt8(ascii: "<")) {
            i = lt + 1
            if starts("?") {
                try skip(past: "?>", what: "a processing instruction")
            } else if starts("!--") {
                try skip(past: "-->", what: "a comment")
            } else if starts("![CDATA[") {
                guard !stack.isEmpty else { throw fail("character data outside the root element") }
                try skip(past: "]]>", what: "a CDATA section")
            } else if starts("!") {
                guard !sawRoot else { throw fail("a declaration after the root element") }
                if bytes[i...].prefix(2048).contains(UInt8(ascii: "[")) && starts("!DOCTYPE") && hasInternalSubset() {
                    throw fail("a document type with internal declarations, which a recently-used list never has")
                }
                try skip(past: ">", what: "a declaration")
            } else if starts("/") {
                i += 1
                let name = try readName()
                skipSpace()
                guard i < bytes.count, bytes[i] == UInt8(ascii: ">") else { throw fail("an unclosed end tag </\(name)") }
                i += 1
                guard let open = stack.popLast() else { throw fail("</\(name)> without its start tag") }
                guard open.name == name else { throw fail("</\(name)> closes <\(open.name)>") }
                if let d = bookmarkDepth, stack.count == d {
                    if let b = current { bookmarks.append(b) }
                    current = nil
                    bookmarkDepth = nil
                }
            } else {
                let name = try readName()
                var attributes: [(String, String)] = []
                var selfClosing = false
                while true {
                    let hadSpace = skipSpace()
                    guard i < bytes.count else { throw fail("the file ends inside <\(name)") }
                    if bytes[i] == UInt8(ascii: ">") { i += 1; break }
                    if bytes[i] == UInt8(ascii: "/") {
                        guard i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: ">") else { throw fail("a stray / in <\(name)") }
                        i += 2
                        selfClosing = true
                        break
                    }
                    guard hadSpace else { throw fail("attributes of <\(name)> not separated by a space") }
                    let attribute = try readName()
                    skipSpace()
                    guard i < bytes.count, bytes[i] == UInt8(ascii: "=") else { throw fail("attribute \(attribute) without a value") }
                    i += 1
                    skipSpace()
                    let value = try readValue()
                    guard !attributes.contains(where: { $0.0 == attribute }) else { throw fail("attribute \(attribute) twice in <\(name)>") }
                    attributes.append((attribute, value))
                }
                if stack.isEmpty {
                    guard !sawRoot else { throw fail("a second root element <\(name)>") }
                    guard name == "xbel" else { throw fail("the root element is <\(name)>, not <xbel>") }
                    sawRoot = true
                }
                var namespaces: [String: String] = [:]
                for (k, v) in attributes where k.hasPrefix("xmlns:") { namespaces[String(k.dropFirst(6))] = v }
                let element = Element(name: name, namespaces: namespaces)
                let value = { (key: String) in attributes.first { $0.0 == key }?.1 }
                if name == "bookmark", bookmarkDepth == nil, stack.count == 1 {
                    bookmarkDepth = stack.count
                    if let href = value("href"), let path = Self.filePath(href: href) {
                        current = RecentlyUsedList.Bookmark(path: path, added: value("added").flatMap(Self.date),
                                                            modified: value("modified").flatMap(Self.date),
                                                            visited: value("visited").flatMap(Self.date), applications: [])
                    } else {
                        skipped += 1
                        current = nil
                    }
                } else if bookmarkDepth != nil, isApplication(name, element, in: stack) {
                    if current != nil, let appName = value("name") {
                        let count = value("count").flatMap(Self.count) ?? 1
                        // Older GLib wrote `timestamp` (seconds since 1970) instead of `modified`.
                        let modified = value("modified").flatMap(Self.date)
                            ?? value("timestamp").flatMap(Double.init).map { Date(timeIntervalSince1970: $0) }
                        current!.applications.append(RecentlyUsedList.Application(name: appName, count: count, modified: modified))
                    }
                }
                if selfClosing {
                    if let d = bookmarkDepth, stack.count == d {
                        if let b = current { bookmarks.append(b) }
                        current = nil
                        bookmarkDepth = nil
                    }
                } else {
                    stack.append(element)
                    guard stack.count <= RecentlyUsedList.maximumDepth else { throw fail("elements nested deeper than \(RecentlyUsedList.maximumDepth)") }
                }
            }
        }
        guard sawRoot else { throw fail("no <xbel> element") }
        guard stack.isEmpty else { throw fail("the file ends inside <\(stack.last!.name)> (was it cut short?)") }
        return (bookmarks, skipped)
    }

    /// Whether `name` is freedesktop's `application` element: its prefix is bound to the
    /// bookmark namespace (GTK always writes `bookmark:`; that prefix is taken even undeclared).
    private func isApplication(_ name: String, _ element: Element, in stack: [Element]) -> Bool {
        guard name.hasSuffix(":application"), let colon = name.firstIndex(of: ":") else { return false }
        let prefix = String(name[..<colon])
        if let ns = element.namespaces[prefix] { return ns == RecentlyUsedList.bookmarkNamespace }
        for e in stack.reversed() { if let ns = e.namespaces[prefix] { return ns == RecentlyUsedList.bookmarkNamespace } }
        return prefix == "bookmark"
    }

    // MARK: Lexing

    private func fail(_ reason: String) -> RecentlyUsedListError { .malformed(offset: min(i, bytes.count), reason: reason) }

    private func next(_ byte: UInt8) -> Int? { bytes[i...].firstIndex(of: byte) }

    private func starts(_ s: StaticString) -> Bool {
        let n = s.utf8CodeUnitCount
        guard bytes.count - i >= n else { return false }
        return s.withUTF8Buffer { u in
            for k in 0..<n where bytes[i + k] != u[k] { return false }
            return true
        }
    }

    private mutating func skip(past end: String, what: String) throws(RecentlyUsedListError) {
        let u = Array(end.utf8)
        var j = i
        while j + u.count <= bytes.count {
            if bytes[j] == u[0] && bytes[j..<(j + u.count)].elementsEqual(u) { i = j + u.count; return }
            j += 1
        }
        throw fail("\(what) that never ends")
    }

    private func hasInternalSubset() -> Bool {
        guard let gt = next(UInt8(ascii: ">")) else { return true }
        return bytes[i..<gt].contains(UInt8(ascii: "["))
    }

    @discardableResult
    private mutating func skipSpace() -> Bool {
        let start = i
        while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x09 || bytes[i] == 0x0D { i += 1 }
        return i > start
    }

    private static func isNameByte(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: ":"), UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "."), 0x80...0xFF: true
        default: false
        }
    }

    private mutating func readName() throws(RecentlyUsedListError) -> String {
        let start = i
        while i < bytes.count, Self.isNameByte(bytes[i]), i - start < 256 { i += 1 }
        guard i > start else { throw fail(i < bytes.count ? "a name was expected" : "the file ends inside a tag") }
        guard let name = String(validating: bytes[start..<i], as: UTF8.self) else { throw fail("a name that is not UTF-8") }
        return name
    }

    /// A quoted attribute value with its entities decoded.
    private mutating func readValue() throws(RecentlyUsedListError) -> String {
        guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") || bytes[i] == UInt8(ascii: "'") else {
            throw fail("an attribute value without quotes")
        }
        let quote = bytes[i]
        i += 1
        guard let end = next(quote) else { throw fail("an attribute value that never ends") }
        let raw = bytes[i..<end]
        guard !raw.contains(UInt8(ascii: "<")) else { throw fail("a < inside an attribute value") }
        var out: [UInt8] = []
        out.reserveCapacity(raw.count)
        var j = raw.startIndex
        while j < raw.endIndex {
            let b = raw[j]
            guard b == UInt8(ascii: "&") else {
                // Attribute-value normalization: white space characters become spaces.
                out.append(b == 0x09 || b == 0x0A || b == 0x0D ? 0x20 : b)
                j += 1
                continue
            }
            guard let semi = raw[j...].prefix(12).firstIndex(of: UInt8(ascii: ";")) else {
                i = j
                throw fail("an & that starts no entity")
            }
            let entity = String(decoding: raw[(j + 1)..<semi], as: UTF8.self)
            switch entity {
            case "lt": out.append(UInt8(ascii: "<"))
            case "gt": out.append(UInt8(ascii: ">"))
            case "amp": out.append(UInt8(ascii: "&"))
            case "quot": out.append(UInt8(ascii: "\""))
            case "apos": out.append(UInt8(ascii: "'"))
            default:
                var code: UInt32?
                if entity.hasPrefix("#x") { code = UInt32(entity.dropFirst(2), radix: 16) }
                else if entity.hasPrefix("#") { code = UInt32(entity.dropFirst(), radix: 10) }
                guard let code, code != 0, let scalar = Unicode.Scalar(code) else {
                    i = j
                    throw fail("an unknown entity &\(entity.prefix(10));")
                }
                out.append(contentsOf: Array(String(Character(scalar)).utf8))
            }
            j = semi + 1
        }
        i = end + 1
        guard let text = String(validating: out, as: UTF8.self) else { throw fail("an attribute value that is not UTF-8") }
        return text
    }

    // MARK: Values

    /// The path bytes of a local `file://` URI (`file:///p`, `file://localhost/p`), with its
    /// percent escapes decoded; nil for any other URI, another host, a bad escape, a NUL or a
    /// relative path.
    static func filePath(href: String) -> [UInt8]? {
        guard href.hasPrefix("file://") else { return nil }
        var rest = Array(href.utf8.dropFirst(7))
        if rest.first != UInt8(ascii: "/") {
            guard let slash = rest.firstIndex(of: UInt8(ascii: "/")),
                  String(decoding: rest[..<slash], as: UTF8.self).lowercased() == "localhost" else { return nil }
            rest = Array(rest[slash...])
        }
        if let cut = rest.firstIndex(where: { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) { rest = Array(rest[..<cut]) }
        var out: [UInt8] = []
        out.reserveCapacity(rest.count)
        var j = 0
        while j < rest.count {
            if rest[j] == UInt8(ascii: "%") {
                guard j + 2 < rest.count, let hi = ByteString.hexDigit(rest[j + 1]), let lo = ByteString.hexDigit(rest[j + 2]) else { return nil }
                out.append(hi << 4 | lo)
                j += 3
            } else {
                out.append(rest[j])
                j += 1
            }
        }
        guard out.first == UInt8(ascii: "/"), !out.contains(0), out.count <= 4096 else { return nil }
        return out
    }

    /// An application's `count`: its digits as a number, a negative one as 0, and one past
    /// `Int64.max` as `Int64.max` (a use count only grows; clamping keeps the file's order among
    /// the others). Nil for anything that is not an integer.
    static func count(_ text: String) -> Int64? {
        if let n = Int64(text) { return max(0, n) }
        var digits = Substring(text)
        let negative = digits.first == "-"
        if negative || digits.first == "+" { digits = digits.dropFirst() }
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return negative ? 0 : .max
    }

    /// An XBEL date, `2026-11-24T10:00:00Z` with optional fractional seconds and a `Z` or
    /// `±hh:mm` offset (GLib writes microseconds and `Z`); nil for anything else.
    static func date(_ text: String) -> Date? {
        let b = Array(text.utf8)
        func number(_ from: Int, _ count: Int) -> Int? {
            guard from + count <= b.count else { return nil }
            var n = 0
            for k in from..<(from + count) {
                guard b[k] >= 0x30, b[k] <= 0x39 else { return nil }
                n = n * 10 + Int(b[k] - 0x30)
            }
            return n
        }
        guard b.count >= 20, b[4] == UInt8(ascii: "-"), b[7] == UInt8(ascii: "-"), b[10] == UInt8(ascii: "T") || b[10] == UInt8(ascii: " "),
              b[13] == UInt8(ascii: ":"), b[16] == UInt8(ascii: ":"),
              let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
              let hour = number(11, 2), let minute = number(14, 2), let second = number(17, 2),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61 else { return nil }
        var k = 19
        var fraction = 0.0
        if k < b.count, b[k] == UInt8(ascii: ".") {
            k += 1
            var scale = 0.1
            let start = k
            while k < b.count, b[k] >= 0x30, b[k] <= 0x39 {
                fraction += Double(b[k] - 0x30) * scale
                scale /= 10
                k += 1
            }
            guard k > start else { return nil }
        }
        var offset = 0
        guard k < b.count else { return nil }
        if b[k] == UInt8(ascii: "Z") {
            k += 1
        } else if b[k] == UInt8(ascii: "+") || b[k] == UInt8(ascii: "-") {
            guard let oh = number(k + 1, 2), k + 3 < b.count, b[k + 3] == UInt8(ascii: ":"), let om = number(k + 4, 2) else { return nil }
            offset = (oh * 3600 + om * 60) * (b[k] == UInt8(ascii: "+") ? 1 : -1)
            k += 6
        } else {
            return nil
        }
        guard k == b.count else { return nil }
        // Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil).
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146_097 + doe - 719_468
        let seconds = Double(days * 86400 + hour * 3600 + minute * 60 + second - offset) + fraction
        return Date(timeIntervalSince1970: seconds)
    }
}
