import MemberwiseInit
/// A JSON text's shape, checked in one linear pass before anything parses it: the syntax of
/// RFC 8259, a bound on nesting, and no name twice in one object.
///
/// Why a pass of our own in front of Foundation's parsers:
/// - Cost. Decoding a deeply nested value through `Codable` (as `JSONValue` did) was quadratic
///   in the depth: a 21 KB line nested 500 deep held fsindexd's socket thread for 12 s. This pass
///   stops at ``maximumDepth`` after reading at most that many bytes past the limit.
/// - One meaning. RFC 8259 leaves duplicate names to the parser; Foundation's `JSONDecoder` kept
///   the first value and `JSONSerialization` the last, so the same donation meant two things
///   through the daemon and without it. A name given twice is refused on every path instead.
/// - Raw items. The daemon hands an app's items on as the bytes the app wrote (``members(of:)``
///   and ``elements(of:in:)`` give their ranges), so that numbers, dates and strings are read
///   once, by `DonationReader`, exactly as without a daemon.
package enum JSONShape {
    /// Deep enough for any request or donated item (a request, its items, an item's attributes,
    /// a list inside: 4 levels), far from where parsing costs anything.
    package static let maximumDepth = 32

    /// Why a text is refused, with the byte offset where it went wrong.
    @MemberwiseInit
    package struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        package var offset: Int
        package var reason: String
        package var description: String { "\(reason) (at byte \(offset))" }
    }

    /// Checks the whole of `text` (one JSON value, with white space around it allowed).
    package static func check(_ text: [UInt8], maximumDepth: Int = maximumDepth) throws(Failure) {
        var scanner = Scanner(bytes: text, maximumDepth: maximumDepth)
        try scanner.document()
    }

    /// Checks `text`, which must be one JSON object, and returns each member's name (unescaped)
    /// and the byte range of its value.
    package static func members(of text: [UInt8], maximumDepth: Int = maximumDepth) throws(Failure) -> [(name: [UInt8], value: Range<Int>)] {
        var scanner = Scanner(bytes: text, maximumDepth: maximumDepth)
        scanner.collectMembers = true
        try scanner.document()
        guard scanner.topIsObject else { throw Failure(offset: 0, reason: "not a JSON object") }
        return scanner.members
    }

    /// The byte ranges of the elements of the array at `range` of `text` (a range that
    /// ``members(of:maximumDepth:)`` or ``check(_:maximumDepth:)`` has already checked);
    /// nil when that value is not an array.
    package static func elements(of text: [UInt8], in range: Range<Int>) -> [Range<Int>]? {
        var scanner = Scanner(bytes: text, maximumDepth: Int.max)
        scanner.at = range.lowerBound
        scanner.end = range.upperBound
        scanner.skipSpace()
        guard scanner.at < scanner.end, text[scanner.at] == UInt8(ascii: "[") else { return nil }
        scanner.at += 1
        var out: [Range<Int>] = []
        scanner.skipSpace()
        if scanner.at < scanner.end, text[scanner.at] == UInt8(ascii: "]") { return out }
        while scanner.at < scanner.end {
            scanner.skipSpace()
            let start = scanner.at
            guard (try? scanner.value(depth: 1)) != nil else { return nil }
            out.append(start..<scanner.at)
            scanner.skipSpace()
            guard scanner.at < scanner.end else { return nil }
            if text[scanner.at] == UInt8(ascii: ",") { scanner.at += 1; continue }
            return text[scanner.at] == UInt8(ascii: "]") ? out : nil
        }
        return nil
    }

    struct Scanner {
        let bytes: [UInt8]
        let maximumDepth: Int
        var at = 0
        var end: Int
        var collectMembers = false
        var topIsObject = false
        var members: [(name: [UInt8], value: Range<Int>)] = []

        init(bytes: [UInt8], maximumDepth: Int) {
            self.bytes = bytes
            self.maximumDepth = maximumDepth
            self.end = bytes.count
        }

        func fail(_ reason: String) -> Failure { Failure(offset: at, reason: reason) }

        mutating func document() throws(Failure) {
            skipSpace()
            topIsObject = at < end && bytes[at] == UInt8(ascii: "{")
            try value(depth: 1)
            skipSpace()
            guard at == end else { throw fail("text after the JSON value") }
        }

        mutating func skipSpace() {
            while at < end, bytes[at] == 0x20 || bytes[at] == 0x0A || bytes[at] == 0x0D || bytes[at] == 0x09 { at += 1 }
        }

        mutating func value(depth: Int) throws(Failure) {
            guard at < end else { throw fail("the text ends where a value should be") }
            switch bytes[at] {
            case UInt8(ascii: "{"): try object(depth: depth)
            case UInt8(ascii: "["): try array(depth: depth)
            case UInt8(ascii: "\""): _ = try string(keep: false)
            case UInt8(ascii: "t"): try literal("true")
            case UInt8(ascii: "f"): try literal("false")
            case UInt8(ascii: "n"): try literal("null")
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try number()
            default: throw fail("not a JSON value")
            }
        }

        mutating func literal(_ word: String) throws(Failure) {
            let n = word.utf8.count
            guard at + n <= end, bytes[at..<at + n].elementsEqual(word.utf8) else { throw fail("not a JSON value") }
            at += n
        }

        mutating func number() throws(Failure) {
            func digits() -> Int {
                let start = at
                while at < end, bytes[at] >= 0x30, bytes[at] <= 0x39 { at += 1 }
                return at - start
            }
            if bytes[at] == UInt8(ascii: "-") { at += 1 }
            guard at < end else { throw fail("a number without digits") }
            if bytes[at] == UInt8(ascii: "0") { at += 1 } else if digits() == 0 { throw fail("a number without digits") }
            if at < end, bytes[at] == UInt8(ascii: ".") {
                at += 1
                guard digits() > 0 else { throw fail("a number without digits after the point") }
            }
            if at < end, bytes[at] == UInt8(ascii: "e") || bytes[at] == UInt8(ascii: "E") {
                at += 1
                if at < end, bytes[at] == UInt8(ascii: "+") || bytes[at] == UInt8(ascii: "-") { at += 1 }
                guard digits() > 0 else { throw fail("a number without digits in its exponent") }
            }
        }

        /// A string; its unescaped bytes when `keep` (names, to compare them).
        mutating func string(keep: Bool) throws(Failure) -> [UInt8] {
            at += 1   // the opening quote
            var out: [UInt8] = []
            while at < end {
                let b = bytes[at]
                switch b {
                case UInt8(ascii: "\""):
                    at += 1
                    return out
                case UInt8(ascii: "\\"):
                    guard at + 1 < end else { throw fail("the text ends inside a string") }
                    let e = bytes[at + 1]
                    at += 2
                    let decoded: UInt8?
                    switch e {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): decoded = e
                    case UInt8(ascii: "b"): decoded = 0x08
                    case UInt8(ascii: "f"): decoded = 0x0C
                    case UInt8(ascii: "n"): decoded = 0x0A
                    case UInt8(ascii: "r"): decoded = 0x0D
                    case UInt8(ascii: "t"): decoded = 0x09
                    case UInt8(ascii: "u"):
                        guard at + 4 <= end, let unit = Self.hex(bytes[at..<at + 4]) else { throw fail("a \\u escape without four hex digits") }
                        at += 4
                        // Names are compared as UTF-16 units: "a" and "\u0061" are one name.
                        if unit < 0x80 { decoded = UInt8(unit) } else {
                            decoded = nil
                            if keep { out += [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(unit >> 8), UInt8(unit & 0xFF)] }
                        }
                    default: throw fail("an unknown escape in a string")
                    }
                    if keep, let decoded { out += Self.units(of: decoded, at: 0, in: [decoded]) }
                case 0..<0x20:
                    throw fail("a control character inside a string (escape it)")
                default:
                    if keep {
                        // Plain characters compare as their UTF-16 units too, so "é" and "\u00e9" are one name.
                        out += Self.units(of: b, at: at, in: bytes)
                    }
                    at += 1
                }
            }
            throw fail("the text ends inside a string")
        }

        /// The comparison form of the plain byte at `i`: an ASCII byte as itself; the first byte
        /// of a UTF-8 sequence as the `\u` form of its UTF-16 units; continuation bytes as nothing.
        static func units(of b: UInt8, at i: Int, in bytes: [UInt8]) -> [UInt8] {
            if b < 0x80 {
                if b == UInt8(ascii: "\\") { return [b, b] }
                return [b]
            }
            if b & 0xC0 == 0x80 { return [] }
            let length = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : 2
            guard i + length <= bytes.count else { return [b] }
            var scalar = UInt32(b) & (length == 4 ? 0x07 : length == 3 ? 0x0F : 0x1F)
            for k in 1..<length { scalar = scalar << 6 | UInt32(bytes[i + k] & 0x3F) }
            let utf16: [UInt32] = scalar > 0xFFFF
                ? [0xD800 + ((scalar - 0x10000) >> 10), 0xDC00 + ((scalar - 0x10000) & 0x3FF)] : [scalar]
            return utf16.flatMap { [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8($0 >> 8 & 0xFF), UInt8($0 & 0xFF)] }
        }

        static func hex(_ digits: ArraySlice<UInt8>) -> UInt16? {
            var v: UInt16 = 0
            for d in digits {
                let n: UInt8
                switch d {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): n = d - 0x30
                case UInt8(ascii: "a")...UInt8(ascii: "f"): n = d - 0x61 + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): n = d - 0x41 + 10
                default: return nil
                }
                v = v << 4 | UInt16(n)
            }
            return v
        }

        mutating func array(depth: Int) throws(Failure) {
            guard depth <= maximumDepth else { throw fail("nested deeper than \(maximumDepth) levels") }
            at += 1
            skipSpace()
            if at < end, bytes[at] == UInt8(ascii: "]") { at += 1; return }
            while true {
                skipSpace()
                try value(depth: depth + 1)
                skipSpace()
                guard at < end else { throw fail("the text ends inside an array") }
                if bytes[at] == UInt8(ascii: ",") { at += 1; continue }
                guard bytes[at] == UInt8(ascii: "]") else { throw fail("expected , or ] in an array") }
                at += 1
                return
            }
        }

        mutating func object(depth: Int) throws(Failure) {
            guard depth <= maximumDepth else { throw fail("nested deeper than \(maximumDepth) levels") }
            at += 1
            var names = Set<[UInt8]>()
            skipSpace()
            if at < end, bytes[at] == UInt8(ascii: "}") { at += 1; return }
            while true {
                skipSpace()
                guard at < end, bytes[at] == UInt8(ascii: "\"") else { throw fail("expected a name in quotes in an object") }
                let nameStart = at
                let name = try string(keep: true)
                guard names.insert(name).inserted else {
                    at = nameStart
                    let shown = String(decoding: bytes[(nameStart + 1)..<min(nameStart + 41, end)].prefix { $0 != UInt8(ascii: "\"") }, as: UTF8.self)
                    throw fail("the name \"\(shown)\" appears twice in one object")
                }
                skipSpace()
                guard at < end, bytes[at] == UInt8(ascii: ":") else { throw fail("expected : after a name") }
                at += 1
                skipSpace()
                let valueStart = at
                try value(depth: depth + 1)
                if collectMembers, depth == 1 {
                    members.append((Self.plain(name), valueStart..<at))
                }
                skipSpace()
                guard at < end else { throw fail("the text ends inside an object") }
                if bytes[at] == UInt8(ascii: ",") { at += 1; continue }
                guard bytes[at] == UInt8(ascii: "}") else { throw fail("expected , or } in an object") }
                at += 1
                return
            }
        }

        /// A name's comparison form back to plain ASCII where it was (the members' names are only
        /// looked up as ASCII words such as "items").
        static func plain(_ name: [UInt8]) -> [UInt8] {
            var out: [UInt8] = []
            var i = 0
            while i < name.count {
                if name[i] == UInt8(ascii: "\\"), i + 1 < name.count, name[i + 1] == UInt8(ascii: "\\") { out.append(name[i]); i += 2; continue }
                if name[i] == UInt8(ascii: "\\"), i + 3 < name.count, name[i + 1] == UInt8(ascii: "u") {
                    let unit = UInt16(name[i + 2]) << 8 | UInt16(name[i + 3])
                    if unit < 0x80 { out.append(UInt8(unit)) } else { out += name[i..<i + 4] }
                    i += 4
                    continue
                }
                out.append(name[i])
                i += 1
            }
            return out
        }
    }
}
