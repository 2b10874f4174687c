/// A path's `file://` URI, its bytes percent-encoded as GLib's `g_filename_to_uri` does (RFC
/// 3986's unreserved characters, `/` and the sub-delimiters GLib keeps stay; everything else,
/// including bytes that are not UTF-8, becomes `%XX`).
///
/// For example: `/home/ada/my report.pdf` → `file:///home/ada/my%20report.pdf`.
public enum FileURI {
    public static func of(_ path: [UInt8]) -> String {
        var out = "file://"
        for b in path {
            if isKept(b) { out.unicodeScalars.append(Unicode.Scalar(b)) } else { out += "%" + hex(b) }
        }
        return out
    }

    static func isKept(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "/"),
             UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("), UInt8(ascii: ")"),
             UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "="), UInt8(ascii: ":"),
             UInt8(ascii: "@"): true
        default: false
        }
    }

    static func hex(_ b: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(b >> 4)], digits[Int(b & 15)]])
    }
}
