import ExtractionModel

/// Decides a regular file's type and charset from its name and first bytes: from the name's
/// glob and shared-mime-info's magic when they agree, from libmagic when they leave it open.
///
/// A key design decision: libmagic's rules were 15.7 % of a whole crawl's CPU (issue 14's
/// profile), though for nearly every file they only confirm what the name says. So libmagic's
/// rules run only when
/// - the name has no glob (`README`, `data.bin`: the bytes alone can say what it is),
/// - shared-mime-info's best rule for the bytes is not the glob's type or one of its
///   ancestors (a PNG named `.txt`, a `.c` file that is a shell script),
/// - or no rule matches and the bytes are not text of a textual glob (a `.pyc` of a Python
///   version shared-mime-info does not know, a `.so` that is not ELF).
/// Otherwise the glob's type is taken, which is what `TypeDetector` makes of libmagic's answer
/// whenever that answer is the glob's type, an ancestor of it, or no type at all (text). The
/// charset still comes from libmagic, but from its encoding check alone (`MagicDatabase.charset`,
/// 7.7 µs against 274 µs per file), so it is the same as before.
///
/// Checked on the 111,174 files of the bench corpus against libmagic on every file
/// (`ContentTypingCorpusTests`): the differences are listed in that test's comment.
///
/// For example:
/// ```swift
/// let typing = try ContentTyping()
/// let a = typing.type(name: Array("logo.png".utf8), bytes: pngBytes, fileSize: 4096)
/// a.detection.contentType   // public.png
/// a.usedLibmagic            // false
/// ```
package final class ContentTyping {
    /// A regular file's type, its charset as libmagic names it (nil for an empty or unreadable
    /// file), and whether libmagic's rules had to run.
    package struct Answer: Hashable {
        package var detection: TypeDetection
        package var charset: String?
        package var usedLibmagic: Bool
    }

    private let magic: MagicDatabase
    package let detector: TypeDetector
    private let rules: SharedMIMEMagic

    package init(detector: TypeDetector = TypeDetector(database: .shared), rules: SharedMIMEMagic = .shared) throws(ExtractionError) {
        magic = try MagicDatabase()
        self.detector = detector
        self.rules = rules
    }

    /// The type of a regular file named `name` (the last path component's bytes) whose first
    /// bytes (at most `MagicDatabase.bytesMax` are looked at) are `bytes`. `isEmpty` is whether
    /// the file has no bytes (an unreadable file has no `bytes` but may not be empty).
    package func type(name: [UInt8], bytes: [UInt8], fileSize: Int64, isEmpty: Bool) -> Answer {
        guard !bytes.isEmpty, let glob = detector.globType(forName: name), let charset = magic.charset(bytes),
              confirms(glob, bytes, isText: charset != "binary")
        else { return typeByLibmagic(name: name, bytes: bytes, fileSize: fileSize, isEmpty: isEmpty) }
        let detection = detector.detect(name: name, magic: (glob, charset), isEmpty: false)
        return Answer(detection: detection, charset: charset, usedLibmagic: false)
    }

    /// Whether the bytes confirm the name's type: shared-mime-info's best rules for them name
    /// the glob's type or an ancestor of it; or no rule matches and they are text of a textual
    /// type.
    func confirms(_ glob: String, _ bytes: [UInt8], isText: Bool) -> Bool {
        let best = rules.bestMatches(bytes)
        if best.isEmpty { return isText && detector.isTextual(glob) }
        return best.contains { detector.database.isSubtype(glob, of: $0) }
    }

    /// The type as libmagic's rules and the name decide it (`TypeDetector`'s rules), the way
    /// every file was typed before `type(name:bytes:fileSize:isEmpty:)` asked shared-mime-info
    /// first; the comparison on the bench corpus runs both.
    package func typeByLibmagic(name: [UInt8], bytes: [UInt8], fileSize: Int64, isEmpty: Bool) -> Answer {
        var sniffed = bytes.isEmpty ? nil : magic.identify(bytes, fileSize: fileSize)
        if let s = sniffed, s.mimeType == "text/plain", !(detector.globType(forName: name).map(detector.isTextual) ?? false) {
            sniffed = (TextSniffer.mimeType(bytes), s.charset)   // the name does not say which text
        }
        let detection = detector.detect(name: name, magic: sniffed, isEmpty: isEmpty)
        return Answer(detection: detection, charset: sniffed?.charset, usedLibmagic: !bytes.isEmpty)
    }
}
