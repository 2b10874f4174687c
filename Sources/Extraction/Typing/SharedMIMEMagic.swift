import ExtractionModel
import SystemCalls
import Glibc

/// shared-mime-info's content rules (`mime/magic`), the signatures every freedesktop desktop
/// sniffs files with, matched against bytes in memory.
///
/// It lets `ContentTyping` confirm what a file's name says without libmagic: a `.png` whose
/// bytes start with PNG's signature is a PNG, whatever libmagic's thousands of rules would add.
/// A key design decision: only the compiled `magic` file is read (the format of the shared MIME
/// info specification: `[priority:type]` sections of `indent>offset=value&mask~word+range`
/// lines, values as big-endian 16-bit length and raw bytes), once per process, before a worker
/// installs its sandbox; a section with a line it cannot read is left out whole, so a rule
/// is never matched with a part missing.
///
/// For example:
/// ```swift
/// let magic = SharedMIMEMagic.shared
/// magic.matches(Array("%PDF-1.7\n".utf8))   // [(priority: 50, type: "application/pdf"), ...]
/// ```
///
/// Cost: about 14 µs per file on `/usr/share/doc` (release build, the first 64 KiB; the rules
/// that search a range for a text such as `<html` make most of it); loading is under 1 ms.
package struct SharedMIMEMagic: Sendable {
    /// One `[priority:type]` section: the type matches when any of its top-level lines does.
    struct Entry: Sendable {
        var priority: Int
        var type: String
        var lines: [Line]
    }

    /// One `indent>offset=value&mask~word+range` line.
    struct Line: Sendable {
        var indent: Int
        var offset: Int
        var value: [UInt8]
        var mask: [UInt8]?
        var range: Int
    }

    /// The sections, highest priority first (the file's own order within a priority).
    private(set) var entries: [Entry] = []
    /// The files read.
    package private(set) var sources: [String] = []

    /// The rules of the process's MIME database folders (`MIMEDatabase.shared`), loaded on first use.
    package static let shared = SharedMIMEMagic(paths: MIMEDatabase.shared.magicPaths)

    package var isEmpty: Bool { entries.isEmpty }

    /// Reads each of the compiled `magic` files (the first holds the most important folder's;
    /// a type ruled in an earlier file is not ruled again by a later one).
    package init(paths: [String]) {
        var ruled = Set<String>()
        for path in paths {
            guard case .success(let bytes) = SystemCall.readFile(path, limit: 16 << 20) else { continue }
            let parsed = Self.parse(bytes).filter { !ruled.contains($0.type) }
            guard !parsed.isEmpty else { continue }
            sources.append(path)
            ruled.formUnion(parsed.map(\.type))
            entries += parsed
        }
        entries = entries.enumerated().sorted { a, b in
            a.element.priority != b.element.priority ? a.element.priority > b.element.priority : a.offset < b.offset
        }.map(\.element)
    }

    /// Rules given directly (tests).
    init(entries: [Entry]) {
        self.entries = entries.sorted { $0.priority > $1.priority }
    }

    /// Every type whose rules match `bytes`, highest priority first.
    package func matches(_ bytes: [UInt8]) -> [(priority: Int, type: String)] {
        bytes.withUnsafeBufferPointer { data in
            entries.filter { Self.matches($0.lines[...], indent: 0, data) }.map { ($0.priority, $0.type) }
        }
    }

    /// The types of the highest priority whose rules match `bytes` (several when they tie),
    /// or none. Stops at the first priority that matches, as xdgmime does.
    package func bestMatches(_ bytes: [UInt8]) -> [String] {
        bytes.withUnsafeBufferPointer { data in
            var found: [String] = []
            var priority = Int.min
            for entry in entries {
                if !found.isEmpty, entry.priority < priority { break }
                if Self.matches(entry.lines[...], indent: 0, data) {
                    found.append(entry.type)
                    priority = entry.priority
                }
            }
            return found
        }
    }

    // MARK: Matching

    /// Whether a line at `indent` matches, and then one of the lines nested below it does (or
    /// it has none), as GLib's xdgmime reads the specification.
    static func matches(_ lines: ArraySlice<Line>, indent: Int, _ data: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = lines.startIndex
        while i < lines.endIndex, lines[i].indent == indent {
            let next = i + 1
            if matches(lines[i], data) {
                if next == lines.endIndex || lines[next].indent <= indent { return true }
                if matches(lines[next...], indent: indent + 1, data) { return true }
            }
            i = next
            while i < lines.endIndex, lines[i].indent > indent { i += 1 }
        }
        return false
    }

    /// Whether `line.value` (under its mask) is found at one of its offsets.
    static func matches(_ line: Line, _ data: UnsafeBufferPointer<UInt8>) -> Bool {
        let n = line.value.count
        guard n > 0, line.offset < data.count else { return false }
        let last = min(line.offset + line.range, data.count - n + 1)
        guard line.offset < last else { return false }
        return line.value.withUnsafeBufferPointer { value in
            let first = value[0]
            if let mask = line.mask {
                return mask.withUnsafeBufferPointer { mask in
                    for start in line.offset..<last {
                        var k = 0
                        while k < n, data[start + k] & mask[k] == value[k] & mask[k] { k += 1 }
                        if k == n { return true }
                    }
                    return false
                }
            }
            // memchr finds the first byte of a value searched for in a long range (3,001 bytes
            // for QML, 18,722 for DTS-HD) many times faster than a byte loop.
            let base = data.baseAddress!
            var start = line.offset
            while start < last {
                guard let hit = memchr(base + start, Int32(first), last - start) else { return false }
                let at = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                var k = 1
                while k < n, data[at + k] == value[k] { k += 1 }
                if k == n { return true }
                start = at + 1
            }
            return false
        }
    }

    // MARK: Parsing

    /// The sections of a compiled `magic` file; nil-free: a section with a malformed line is
    /// dropped, and reading goes on at the next section.
    static func parse(_ bytes: [UInt8]) -> [Entry] {
        let header = Array("MIME-Magic\0\n".utf8)
        guard bytes.count >= header.count, Array(bytes[0..<header.count]) == header else { return [] }
        var entries: [Entry] = []
        var i = header.count
        while i < bytes.count {
            guard bytes[i] == UInt8(ascii: "["), let close = bytes[i...].firstIndex(of: UInt8(ascii: "]")),
                  close + 1 < bytes.count, bytes[close + 1] == UInt8(ascii: "\n") else { return entries }
            let head = String(decoding: bytes[(i + 1)..<close], as: UTF8.self)
            let parts = head.split(separator: ":", maxSplits: 1)
            i = close + 2
            var lines: [Line] = []
            var valid = parts.count == 2 && Int(parts[0]) != nil
            while i < bytes.count, bytes[i] != UInt8(ascii: "[") {
                if let (line, end) = parseLine(bytes, at: i) {
                    lines.append(line)
                    i = end
                } else {
                    valid = false
                    // Skip to the next section: a line may hold any byte, so look for "\n[".
                    while i < bytes.count, !(bytes[i] == UInt8(ascii: "[") && i > 0 && bytes[i - 1] == UInt8(ascii: "\n")) { i += 1 }
                }
            }
            if valid, !lines.isEmpty, lines[0].indent == 0, let priority = Int(parts[0]) {
                entries.append(Entry(priority: priority, type: parts[1].lowercased(), lines: lines))
            }
        }
        return entries
    }

    /// One line starting at `i`, and the index after its newline; nil if it is malformed or
    /// uses an extension this reader does not know.
    static func parseLine(_ b: [UInt8], at start: Int) -> (Line, Int)? {
        var i = start
        func number() -> Int? {
            var v = 0
            var digits = 0
            while i < b.count, b[i] >= 0x30, b[i] <= 0x39, digits < 9 {
                v = v * 10 + Int(b[i] - 0x30)
                i += 1
                digits += 1
            }
            return digits > 0 ? v : nil
        }
        let indent = b[i] == UInt8(ascii: ">") ? 0 : number()
        guard let indent, i < b.count, b[i] == UInt8(ascii: ">") else { return nil }
        i += 1
        guard let offset = number(), i + 3 <= b.count, b[i] == UInt8(ascii: "=") else { return nil }
        let length = Int(b[i + 1]) << 8 | Int(b[i + 2])
        i += 3
        guard length > 0, i + length <= b.count else { return nil }
        var value = Array(b[i..<(i + length)])
        i += length
        var mask: [UInt8]?
        var word = 1
        var range = 1
        while i < b.count, b[i] != UInt8(ascii: "\n") {
            let c = b[i]
            i += 1
            switch c {
            case UInt8(ascii: "&"):
                guard i + length <= b.count else { return nil }
                mask = Array(b[i..<(i + length)])
                i += length
            case UInt8(ascii: "~"):
                guard let w = number() else { return nil }
                word = w
            case UInt8(ascii: "+"):
                guard let r = number(), r > 0 else { return nil }
                range = r
            default:
                return nil
            }
        }
        guard i < b.count else { return nil }
        // Words of 2 or 4 bytes are written big-endian: in memory (little-endian) they are swapped.
        if word == 2 || word == 4, length % word == 0 {
            value = swapped(value, word: word)
            mask = mask.map { swapped($0, word: word) }
        }
        return (Line(indent: indent, offset: offset, value: value, mask: mask, range: range), i + 1)
    }

    static func swapped(_ bytes: [UInt8], word: Int) -> [UInt8] {
        var out = bytes
        for w in stride(from: 0, to: bytes.count, by: word) {
            for k in 0..<word { out[w + k] = bytes[w + word - 1 - k] }
        }
        return out
    }
}
