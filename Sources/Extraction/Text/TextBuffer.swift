import ExtractionModel
/// Collects the visible text of a document: runs of white space become one space, block
/// boundaries become one newline, and collection stops at a byte cap (on a character boundary).
///
/// For example:
/// ```swift
/// var t = TextBuffer(cap: 100)
/// t.append("  Hello\n  world ")
/// t.breakLine()
/// t.append("Next")
/// t.result   // ("Hello world\nNext", false)
/// ```
///
/// It works on UTF-8 bytes: white space is ASCII white space and U+00A0 (`&nbsp;`), and a cut at
/// the cap never splits a character's bytes. (Iterating `Character`s was the single largest cost
/// of extracting an HTML page.)
struct TextBuffer {
    let cap: Int
    private var bytes: [UInt8] = []
    private var pendingSpace = false
    private var pendingBreak = false
    private(set) var isFull = false

    init(cap: Int) {
        self.cap = cap
        bytes.reserveCapacity(min(cap, 16 * 1024))
    }

    /// Adds a run of text, collapsing its white space.
    mutating func append(_ s: some StringProtocol) {
        guard !isFull else { return }
        var utf8 = s.utf8.makeIterator()
        var pending: UInt8? = nil
        while let b = pending ?? utf8.next() {
            pending = nil
            if b == 0x20 || b == 0x0A || b == 0x09 || b == 0x0D || b == 0x0C || b == 0x0B {
                pendingSpace = true
                continue
            }
            if b == 0xC2 {   // U+00A0 NO-BREAK SPACE is C2 A0
                let next = utf8.next()
                if next == 0xA0 { pendingSpace = true; continue }
                pending = next
            }
            if !bytes.isEmpty {
                if pendingBreak { add(0x0A) } else if pendingSpace { add(0x20) }
            }
            pendingBreak = false
            pendingSpace = false
            add(b)
            if let p = pending, b == 0xC2 { add(p); pending = nil }
            if isFull { return }
        }
    }

    /// Marks a block boundary (paragraph, heading, list item, table cell ...).
    mutating func breakLine() { pendingBreak = true }

    /// Marks a word boundary (between adjacent text nodes that are not one word).
    mutating func space() { pendingSpace = true }

    private mutating func add(_ b: UInt8) {
        guard !isFull else { return }
        if bytes.count >= cap {
            isFull = true
            // Drop a character cut in the middle (continuation bytes are 10xxxxxx).
            var end = bytes.count
            while end > 0, bytes[end - 1] & 0xC0 == 0x80 { end -= 1 }
            if end > 0, bytes[end - 1] >= 0xC0 {
                let lead = bytes[end - 1]
                let length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2
                if bytes.count - (end - 1) < length { bytes.removeSubrange((end - 1)...) }
            }
            return
        }
        bytes.append(b)
    }

    var result: (text: String, truncated: Bool) {
        var out = bytes
        if !isFull {   // a character cut by the cap before the next byte arrived
            var end = out.count
            while end > 0, out[end - 1] & 0xC0 == 0x80 { end -= 1 }
            if end > 0, out[end - 1] >= 0xC0 {
                let lead = out[end - 1]
                let length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2
                if out.count - (end - 1) < length { out.removeSubrange((end - 1)...) }
            }
        }
        return (String(decoding: out, as: UTF8.self), isFull)
    }
}
