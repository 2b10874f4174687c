/// `file://` URIs for files, as MCP resources name them: every byte that is not unreserved is
/// percent-encoded, so any file name (bytes that are not UTF-8 included) has exactly one URI and
/// comes back from it unchanged.
package enum ResourceURI {
    package static func uri(_ path: [UInt8]) -> String {
        var out = "file://"
        for b in path {
            if (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || [0x2D, 0x2E, 0x5F, 0x7E, 0x2F].contains(b) {
                out.unicodeScalars.append(Unicode.Scalar(b))
            } else {
                out += "%" + String(b >> 4, radix: 16, uppercase: true) + String(b & 0xF, radix: 16, uppercase: true)
            }
        }
        return out
    }

    /// The path of a `file://` URI (`file:///x` or `file://localhost/x`), with `.` and `..`
    /// taken lexically (`ScopeSet.normalized`): the scopes are checked on the path it names.
    static func path(_ uri: String) throws(AgentError) -> [UInt8] {
        var rest = Substring(uri)
        guard rest.hasPrefix("file://") else { throw .badArgument(name: "uri", reason: "must be a file:// URI") }
        rest = rest.dropFirst(7)
        if rest.hasPrefix("localhost/") { rest = rest.dropFirst(9) }
        guard rest.hasPrefix("/") else { throw .badArgument(name: "uri", reason: "must be file:///ABSOLUTE-PATH (this server's files are local)") }
        var bytes: [UInt8] = []
        var it = Array(rest.utf8)[...]
        while let b = it.popFirst() {
            guard b == 0x25 else { bytes.append(b); continue }
            guard it.count >= 2, let v = UInt8(String(decoding: it.prefix(2), as: UTF8.self), radix: 16) else {
                throw .badArgument(name: "uri", reason: "has a % not followed by two hex digits")
            }
            bytes.append(v)
            it = it.dropFirst(2)
        }
        guard !bytes.contains(0) else { throw .badArgument(name: "uri", reason: "must not contain %00") }
        return ScopeSet.normalized(bytes)
    }
}
