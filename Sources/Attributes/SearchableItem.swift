import FoundationEssentials
import MemberwiseInit

/// An item in the index, after Core Spotlight's `CSSearchableItem`, carried over to files.
///
/// `uniqueIdentifier` is the file's absolute path *as bytes*: not every Linux file name is UTF-8,
/// and Swift `String` equality would merge NFC and NFD spellings that are two files on disk.
@MemberwiseInit
package struct SearchableItem: Sendable, Hashable {
    package var uniqueIdentifier: ItemIdentifier
    /// The name of the root the file was found under.
    package var domainIdentifier: String
    package var attributes: AttributeSet
    /// After this instant the item is purged and never returned.
    package var expirationDate: Date? = nil
    /// A donated item's picture (Core Spotlight's `thumbnailData`): PNG or JPEG bytes, kept
    /// apart from the attributes (issue 27). Files have theirs in the freedesktop cache instead.
    package var thumbnailData: [UInt8]? = nil
}

/// A unique identifier: the raw bytes of an absolute path, compared byte for byte.
package struct ItemIdentifier: Sendable, Hashable, Comparable, CustomStringConvertible {
    package var bytes: [UInt8]
    package init(bytes: [UInt8]) { self.bytes = bytes }
    package init(_ string: String) { self.bytes = Array(string.utf8) }

    package static func < (a: Self, b: Self) -> Bool { a.bytes.lexicographicallyPrecedes(b.bytes) }

    /// A lossy rendering for display (invalid UTF-8 becomes U+FFFD). Never use it to open the file.
    package var description: String { String(decoding: bytes, as: UTF8.self) }

    /// An item an app donated: `DOMAIN:ID`. It never starts with `/`, so it is never confused
    /// with a file's path (nor with an item inside a file, `PATH NUL KEY`).
    package static func donated(domain: String, id: String) -> ItemIdentifier {
        ItemIdentifier(bytes: Array(domain.utf8) + [UInt8(ascii: ":")] + Array(id.utf8))
    }

    /// Whether an app donated the item (it is no file: nothing on disk to check).
    package var isDonated: Bool { bytes.first != UInt8(ascii: "/") }

    /// A donated item's domain and identifier.
    package var donatedParts: (domain: String, id: String)? {
        guard isDonated, let colon = bytes.firstIndex(of: UInt8(ascii: ":")) else { return nil }
        return (String(decoding: bytes[..<colon], as: UTF8.self), String(decoding: bytes[(colon + 1)...], as: UTF8.self))
    }

    /// The last path component's bytes.
    package var nameBytes: [UInt8] {
        guard let slash = bytes.lastIndex(of: UInt8(ascii: "/")) else { return bytes }
        return Array(bytes[(slash + 1)...])
    }
}

/// Small helpers for byte strings that carry file names.
package enum ByteString {
    /// Whether the bytes are valid UTF-8.
    package static func isValidUTF8(_ bytes: [UInt8]) -> Bool {
        String(validating: bytes, as: UTF8.self) != nil
    }

    /// A readable rendering: valid UTF-8 as is, other bytes as `\xNN`, so that two different
    /// names never print the same. Control characters are escaped when `escapeControls` is set:
    /// C0 and DEL as `\n`, `\t`, `\r` or `\xNN`, and C1 (U+0080–U+009F, which some terminals
    /// take as commands, U+009B as CSI) as their two bytes `\xC2\xNN`.
    package static func escaped(_ bytes: [UInt8], escapeControls: Bool = false) -> String {
        var out = ""
        var i = 0
        while i < bytes.count {
            let len = utf8SequenceLength(bytes, i)
            if len > 0 {
                let s = String(decoding: bytes[i..<(i + len)], as: UTF8.self)
                if escapeControls, len == 1, bytes[i] < 0x20 || bytes[i] == 0x7f {
                    switch bytes[i] {
                    case 0x0a: out += "\\n"
                    case 0x09: out += "\\t"
                    case 0x0d: out += "\\r"
                    default: out += "\\x" + hex(bytes[i])
                    }
                } else if escapeControls, len == 2, bytes[i] == 0xC2, bytes[i + 1] < 0xA0 {
                    out += "\\xC2\\x" + hex(bytes[i + 1])
                } else {
                    out += s
                }
                i += len
            } else {
                out += "\\x" + hex(bytes[i])
                i += 1
            }
        }
        return out
    }

    private static func hex(_ b: UInt8) -> String {
        let d = Array("0123456789ABCDEF")
        return String([d[Int(b >> 4)], d[Int(b & 15)]])
    }

    /// The value of an ASCII hex digit (`0`–`9`, `a`–`f`, `A`–`F`), or nil: for the readers of
    /// `%XX` (URLs, the recently-used list) and `\'XX` (RTF), one copy where there were three.
    package static func hexDigit(_ b: UInt8) -> UInt8? {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): b - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): b - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): b - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// Length of the valid UTF-8 sequence starting at `i`, or 0 when the byte there starts none.
    private static func utf8SequenceLength(_ b: [UInt8], _ i: Int) -> Int {
        let c = b[i]
        let need: Int
        switch c {
        case 0x00...0x7F: return 1
        case 0xC2...0xDF: need = 2
        case 0xE0...0xEF: need = 3
        case 0xF0...0xF4: need = 4
        default: return 0
        }
        guard i + need <= b.count else { return 0 }
        for j in 1..<need where b[i + j] & 0xC0 != 0x80 { return 0 }
        if need == 3 {
            if c == 0xE0 && b[i + 1] < 0xA0 { return 0 }
            if c == 0xED && b[i + 1] > 0x9F { return 0 }
        }
        if need == 4 {
            if c == 0xF0 && b[i + 1] < 0x90 { return 0 }
            if c == 0xF4 && b[i + 1] > 0x8F { return 0 }
        }
        return need
    }
}
