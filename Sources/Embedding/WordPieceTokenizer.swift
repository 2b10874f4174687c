/// BERT's tokenizer (uncased WordPiece), as all-MiniLM-L6-v2 was trained with it: the text
/// cleaned, lowercased and stripped of accents, split at spaces and punctuation (each CJK
/// ideograph a word), then each word into the longest pieces of the vocabulary, `##` marking a
/// piece inside a word. A word no piece covers is `[UNK]`, as is a word over 100 characters.
///
/// A key design decision: written here rather than bound from Hugging Face's `tokenizers`
/// (Rust, not in Debian). The test checks its ids against that library's for the same sentences.
package struct WordPieceTokenizer: Sendable {
    private let ids: [String: Int32]
    package let classID: Int32, separatorID: Int32, unknownID: Int32

    /// The vocabulary of `vocab.txt`: one piece a line, its id the line's number.
    package init(vocabulary text: String) throws(EmbeddingError) {
        var ids: [String: Int32] = [:]
        var n: Int32 = 0
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let piece = line.hasSuffix("\r") ? String(line.dropLast()) : String(line)
            if !piece.isEmpty, ids[piece] == nil { ids[piece] = n }
            n += 1
        }
        guard let cls = ids["[CLS]"], let sep = ids["[SEP]"], let unk = ids["[UNK]"] else {
            throw .malformed(file: "vocab.txt", reason: "it lacks [CLS], [SEP] or [UNK]")
        }
        self.ids = ids
        classID = cls; separatorID = sep; unknownID = unk
    }

    package var count: Int { ids.count }

    /// `[CLS]`, the pieces of `text`, `[SEP]`: at most `maximum` ids in all, the pieces cut.
    package func encode(_ text: String, maximum: Int = 128) -> [Int32] {
        var out: [Int32] = [classID]
        let room = max(0, maximum - 2)
        for word in Self.words(text) {
            if out.count - 1 >= room { break }
            for id in pieces(word) {
                guard out.count - 1 < room else { break }
                out.append(id)
            }
        }
        out.append(separatorID)
        return out
    }

    /// The longest-match-first split of one word into vocabulary pieces.
    func pieces(_ word: [Unicode.Scalar]) -> [Int32] {
        guard word.count <= 100 else { return [unknownID] }
        var result: [Int32] = []
        var start = 0
        while start < word.count {
            var end = word.count
            var found: Int32?
            while start < end {
                var piece = String(String.UnicodeScalarView(word[start..<end]))
                if start > 0 { piece = "##" + piece }
                if let id = ids[piece] { found = id; break }
                end -= 1
            }
            guard let id = found else { return [unknownID] }
            result.append(id)
            start = end
        }
        return result
    }

    /// BERT's basic tokenizer: the words of `text`, cleaned, lowercased, without accents, a
    /// punctuation mark or a CJK ideograph each a word of its own.
    static func words(_ text: String) -> [[Unicode.Scalar]] {
        var words: [[Unicode.Scalar]] = []
        var current: [Unicode.Scalar] = []
        func flush() { if !current.isEmpty { words.append(current); current = [] } }
        for scalar in text.lowercased().unicodeScalars {
            let v = scalar.value
            if v == 0 || v == 0xFFFD { continue }
            let properties = scalar.properties
            if isWhitespace(scalar) { flush(); continue }
            if properties.generalCategory == .control || properties.generalCategory == .format { continue }
            if isCJK(v) || isPunctuation(scalar) { flush(); words.append([scalar]); continue }
            for s in decomposed(scalar) where s.properties.generalCategory != .nonspacingMark {
                current.append(s)
            }
        }
        flush()
        return words
    }

    static func isWhitespace(_ s: Unicode.Scalar) -> Bool {
        s == " " || s == "\t" || s == "\n" || s == "\r" || s.properties.generalCategory == .spaceSeparator
    }

    /// ASCII's symbols count as punctuation, as in BERT (`$`, `^`, `` ` ``), beside Unicode's P*.
    static func isPunctuation(_ s: Unicode.Scalar) -> Bool {
        let v = s.value
        if (33...47).contains(v) || (58...64).contains(v) || (91...96).contains(v) || (123...126).contains(v) { return true }
        switch s.properties.generalCategory {
        case .connectorPunctuation, .dashPunctuation, .openPunctuation, .closePunctuation,
             .initialPunctuation, .finalPunctuation, .otherPunctuation: return true
        default: return false
        }
    }

    static func isCJK(_ v: UInt32) -> Bool {
        (0x4E00...0x9FFF).contains(v) || (0x3400...0x4DBF).contains(v) || (0x20000...0x2A6DF).contains(v)
            || (0x2A700...0x2B73F).contains(v) || (0x2B740...0x2B81F).contains(v) || (0x2B820...0x2CEAF).contains(v)
            || (0xF900...0xFAFF).contains(v) || (0x2F800...0x2FA1F).contains(v)
    }

    /// A letter of Latin-1 and Latin Extended-A without its accent (`é` → `e`), as NFD and
    /// dropping the marks would give; any other scalar as it is, and a combining mark typed
    /// apart is dropped by the caller. Foundation's NFD would link ICU into every front end for
    /// the letters an English model knows anyway.
    static func decomposed(_ s: Unicode.Scalar) -> [Unicode.Scalar] {
        let v = s.value
        guard v >= 0xC0, v < 0x180 else { return [s] }
        return [latinBases[Int(v - 0xC0)]]
    }

    private static let latinBases = Array("AAAAAAÆCEEEEIIIIÐNOOOOO×ØUUUUYÞßaaaaaaæceeeeiiiiðnooooo÷øuuuuyþyAaAaAaCcCcCcCcDdĐđEeEeEeEeEeGgGgGgGgHhĦħIiIiIiIiIıĲĳJjKkĸLlLlLlĿŀŁłNnNnNnŉŊŋOoOoOoŒœRrRrRrSsSsSsSsTtTtŦŧUuUuUuUuUuUuWwYyYZzZzZzſ".unicodeScalars)
}
