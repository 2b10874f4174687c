import ExtractionModel
/// The text atoms of a PowerPoint 97+ `PowerPoint Document` stream ([MS-PPT] 2.3): a tree of
/// records, each with an 8-byte header (version/instance, type, length); containers have
/// version 0xF. Text lives in `TextCharsAtom` (0x0FA0, UTF-16LE) and `TextBytesAtom` (0x0FA8,
/// Latin-1) records, with `\r` between paragraphs. Master slides and handouts are skipped, and a
/// text block seen before (the slide list and the slide drawing both hold it) is not repeated.
enum PowerPointText {
    static let maxRecords = 1_000_000
    static let maxDepth = 32

    static func read(_ stream: [UInt8], into text: inout TextBuffer) {
        var state = State()
        walk(stream, from: 0, to: stream.count, depth: 0, state: &state, into: &text)
    }

    struct State {
        var visited = 0
        /// Text blocks already added: a slide's text is stored both in the slide list and in the
        /// slide's drawing, so repeats are dropped.
        var seen = Set<String>()
    }

    private static func walk(_ s: [UInt8], from: Int, to end: Int, depth: Int, state: inout State, into text: inout TextBuffer) {
        guard depth < maxDepth else { return }
        var i = from
        while i + 8 <= end, state.visited < maxRecords, !text.isFull {
            guard let verInst = s.ole16(i), let type = s.ole16(i + 2), let length = s.ole32(i + 4) else { return }
            state.visited += 1
            let body = i + 8
            let bodyEnd = min(end, body + length)
            if verInst & 0x000F == 0x000F {
                // Masters and handouts hold placeholder prompts ("Click to edit Master title style").
                guard type != 0x03F8, type != 0x0FC9, type != 0x03F9 else {
                    i = body + length
                    continue
                }
                walk(s, from: body, to: bodyEnd, depth: depth + 1, state: &state, into: &text)
            } else if type == 0x0FA0 {
                var units: [UInt16] = []
                units.reserveCapacity((bodyEnd - body) / 2)
                var k = body
                while k + 1 < bodyEnd {
                    units.append(UInt16(s[k]) | UInt16(s[k + 1]) << 8)
                    k += 2
                }
                add(String(decoding: units, as: UTF16.self), &state, into: &text)
            } else if type == 0x0FA8 {
                var scalars = String.UnicodeScalarView()
                for b in s[body..<bodyEnd] { scalars.append(Unicode.Scalar(b)) }   // Latin-1: UTF-16 with a zero high byte
                add(String(scalars), &state, into: &text)
            }
            guard length >= 0, body + length > i else { return }
            i = body + length
        }
    }

    private static func add(_ s: String, _ state: inout State, into text: inout TextBuffer) {
        guard state.seen.insert(s).inserted else { return }
        if state.seen.count > 100_000 { state.seen.removeAll() }
        // Paragraphs are separated by \r, vertical tabs are soft line breaks.
        for (n, paragraph) in s.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\r" || $0 == "\u{0B}" }).enumerated() {
            if n > 0 { text.breakLine() }
            text.append(paragraph)
        }
        text.breakLine()
    }
}
