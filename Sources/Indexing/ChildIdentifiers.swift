import Attributes

/// Items inside a file (the messages of an mbox) are identified by the file's path, a NUL byte
/// and the child's key (`/mail/inbox.mbox NUL message/3`). A path never holds a NUL, so the
/// child sorts right after its file, is deleted and moved with it by prefix, and cannot be
/// confused with any file. This is the one place that spelling is written.
extension ItemIdentifier {
    /// The identifier of the item `key` inside the file at `file`.
    package static func child(of file: [UInt8], key: String) -> ItemIdentifier {
        ItemIdentifier(bytes: file + [0] + Array(key.utf8))
    }

    /// The file's path and, for an item inside a file, its key.
    package var fileAndKey: (file: [UInt8], key: String?) {
        Self.split(bytes)
    }

    /// The file's path and child key of identifier bytes.
    package static func split(_ bytes: [UInt8]) -> (file: [UInt8], key: String?) {
        guard let nul = bytes.firstIndex(of: 0) else { return (bytes, nil) }
        return (Array(bytes[..<nul]), String(decoding: bytes[(nul + 1)...], as: UTF8.self))
    }

    /// The identifier bytes of every item inside the file at `file` lie in `lower ..< upper`
    /// (`file NUL` up to `file \u{1}`), so one range query finds them all.
    package static func childRange(of file: [UInt8]) -> (lower: [UInt8], upper: [UInt8]) {
        (file + [0], file + [1])
    }
}
