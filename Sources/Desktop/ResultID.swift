import Foundation

/// A result's id on the bus: D-Bus strings must be UTF-8 without NUL, and a file name is bytes.
///
/// A path (or a donated item's `DOMAIN:ID`) that is valid UTF-8 without control characters is
/// its own id, which makes the ids readable in `gdbus` and KRunner's logs; any other identifier
/// is `b64:` and its bytes in base64. A path never starts with `b64:` (it starts with `/`), and
/// a domain is letters, digits, `.`, `_` and `-`, so the two forms cannot be confused.
///
/// For example: `/home/ada/report.pdf` → `/home/ada/report.pdf`; `/home/ada/caf\xE9` →
/// `b64:L2hvbWUvYWRhL2NhZuk=`.
package enum ResultID {
    static let prefix = "b64:"

    package static func encode(_ identifier: [UInt8]) -> String {
        if let text = String(validating: identifier, as: UTF8.self),
           !text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7f }),
           !text.hasPrefix(prefix) {
            return text
        }
        return prefix + Data(identifier).base64EncodedString()
    }

    /// The identifier's bytes, or nil for text that is no id of ours.
    package static func decode(_ id: String) -> [UInt8]? {
        if id.hasPrefix(prefix) {
            guard let data = Data(base64Encoded: String(id.dropFirst(prefix.count))), !data.isEmpty else { return nil }
            return Array(data)
        }
        guard !id.isEmpty else { return nil }
        return Array(id.utf8)
    }
}
