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
struct TextBuffer {
    let cap: Int
    private var text = ""
    private var bytes = 0
    private var pendingSpace = false
    private var pendingBreak = false
    private(set) var isFull = false

    init(cap: Int) {
        self.cap = cap
        text.reserveCapacity(min(cap, 64 * 1024))
    }

    /// Adds a run of text, collapsing its white space.
    mutating func append(_ s: some StringProtocol) {
        guard !isFull else { return }
        for ch in s {
            if ch.isWhitespace {
                pendingSpace = true
                continue
            }
            if !text.isEmpty {
                if pendingBreak { add("\n") } else if pendingSpace { add(" ") }
            }
            pendingBreak = false
            pendingSpace = false
            add(ch)
            if isFull { return }
        }
    }

    /// Marks a block boundary (paragraph, heading, list item, table cell ...).
    mutating func breakLine() { pendingBreak = true }

    /// Marks a word boundary (between adjacent text nodes that are not one word).
    mutating func space() { pendingSpace = true }

    private mutating func add(_ ch: Character) {
        let n = ch.utf8.count
        if bytes + n > cap {
            isFull = true
            return
        }
        text.append(ch)
        bytes += n
    }

    var result: (text: String, truncated: Bool) { (text, isFull) }
}
