import ExtractionModel
/// Finds where a message (or each message of an mbox) holds more header lines and MIME
/// boundaries than GMime can be let build objects for, before GMime parses it.
///
/// GMime builds an object of about 0.5 KB per header and 1.3 KB per MIME part, so a 7 MB
/// message of empty parts would take more than a gigabyte. This scan counts, per message, the
/// lines of header blocks (the message's own, and those after each line starting with `--`) and
/// those `--` lines; past `limit`, the rest of the message is excluded from parsing, up to the
/// next mbox `From ` line. It over-counts a little (a `-- ` signature opens a "header block"),
/// which only matters for bodies of hundreds of thousands of such lines.
///
/// For example, a message of 200,000 `--x` parts with `limit` 150,000 gives one excluded range
/// starting at the 150,001st counted line and running to the end of the file.
package struct MailStructureScanner {
    let mailbox: Bool
    let limit: Int
    /// Byte ranges not to parse: from a line start to the next `From ` line (nil: to the end).
    package private(set) var excluded: [(start: Int64, end: Int64?)] = []
    /// True once nothing more can change the result (a single message already cut).
    package private(set) var done = false

    private var count = 0
    private var inHeader = true
    private var skipping = false
    private var lineStart: Int64 = 0
    private var lineLength = 0
    private var head: UInt64 = 0

    /// "From " packed little-endian, as `head` holds a line's first five bytes.
    private static let fromLine: UInt64 = 0x20_6D_6F_72_46
    private static let dashes: UInt64 = 0x2D_2D

    package init(mailbox: Bool, limit: Int) {
        self.mailbox = mailbox
        self.limit = limit
    }

    /// Feeds the next bytes of the file, which start at `offset`.
    package mutating func feed(_ chunk: UnsafeBufferPointer<UInt8>, at offset: Int64) {
        guard !done else { return }
        for i in 0..<chunk.count {
            let b = chunk[i]
            if b == 0x0A {
                endLine()
                if done { return }
                lineStart = offset + Int64(i) + 1
                lineLength = 0
                head = 0
            } else {
                if lineLength < 5 { head |= UInt64(b) << (8 * UInt64(lineLength)) }
                lineLength += 1
            }
        }
    }

    private mutating func endLine() {
        let empty = lineLength == 0 || (lineLength == 1 && head == 0x0D)
        if mailbox, lineLength >= 5, head == Self.fromLine {
            if skipping, let last = excluded.indices.last {
                excluded[last].end = lineStart
                skipping = false
            }
            count = 0
            inHeader = true
            return
        }
        if skipping { return }
        if inHeader {
            if empty { inHeader = false } else { count += 1 }
        } else if lineLength >= 2, head & 0xFFFF == Self.dashes {
            count += 1
            inHeader = true
        }
        if count > limit {
            excluded.append((lineStart, nil))
            skipping = true
            if !mailbox { done = true }
        }
    }
}
