import FoundationEssentials

extension AttributeSet {
    /// The set as the JSON object `JSONEncoder` makes of it (the stored form of an item's
    /// attributes), written directly.
    ///
    /// Why: `JSONEncoder` through `Codable` cost about half of writing an item to the index
    /// (names-first pass of fsindexd, 111,246 files: 22 % of the daemon's CPU). The text is the
    /// same but for the order of the keys (sorted here; `JSONEncoder`'s is its dictionary's) and
    /// decodes to the same set: strings escaped as `JSONEncoder` escapes them (`/` as `\/`),
    /// integral doubles without `.0`, dates as `AttributeValue.iso8601`. A value `JSONEncoder`
    /// refuses (a double that is not finite) is left to it, so it fails the same way.
    package func jsonText() throws -> String {
        var out: [UInt8] = []
        out.reserveCapacity(48 * values.count + 2)
        out.append(UInt8(ascii: "{"))
        for (n, key) in keys.enumerated() {
            if n > 0 { out.append(UInt8(ascii: ",")) }
            Self.appendJSONString(key.rawValue, to: &out)
            out.append(UInt8(ascii: ":"))
            switch values[key]! {
            case .string(let s):
                Self.appendJSONString(s, to: &out)
            case .strings(let a):
                out.append(UInt8(ascii: "["))
                for (i, s) in a.enumerated() {
                    if i > 0 { out.append(UInt8(ascii: ",")) }
                    Self.appendJSONString(s, to: &out)
                }
                out.append(UInt8(ascii: "]"))
            case .integer(let i):
                out.append(contentsOf: String(i).utf8)
            case .double(let d):
                guard d.isFinite else { return String(decoding: try JSONEncoder().encode(self), as: UTF8.self) }
                var text = d.description
                if text.hasSuffix(".0") { text.removeLast(2) }
                out.append(contentsOf: text.utf8)
            case .bool(let b):
                out.append(contentsOf: (b ? "true" : "false").utf8)
            case .date(let d):
                Self.appendJSONString(AttributeValue.iso8601(d), to: &out)
            }
        }
        out.append(UInt8(ascii: "}"))
        return String(decoding: out, as: UTF8.self)
    }

    /// `s` as a JSON string, escaped as swift-foundation's `JSONEncoder` escapes it.
    package static func appendJSONString(_ s: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "\""): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case UInt8(ascii: "/"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "/")])
            case 0x08: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
            case 0x0C: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
            case 0x0A: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0x00..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                                        hex[Int(b >> 4)], hex[Int(b & 0xF)]])
            default: out.append(b)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
