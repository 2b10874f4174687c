/// A text cut into units (sentences, or lines for text without sentences) and the words that
/// score them: the first two steps of `ExtractiveSummarizer`.
///
/// Works on an array of Unicode scalars (the analysed prefix), so every step is one linear pass;
/// words are hashed (FNV-1a over their lowercased scalars) rather than made into `String`s.
struct TextUnits {
    /// One sentence or line: where it is, and what selection needs to know.
    struct Unit: Hashable {
        /// Where it is in the analysed text.
        var range: Range<Int>
        /// In Unicode scalars, with whitespace collapsed (see `text(of:)`): never fewer than its
        /// characters, so units that fit by this measure fit the summary's limit.
        var length: Int
        var isCJK: Bool
        var startsCJK: Bool
        var endsCJK: Bool
        /// At least a third of it is letters, and little of it is garbage.
        var isMostlyText: Bool
        /// Holds a letter or digit, and little garbage.
        var isReadable: Bool
        /// Where its words are in `TextUnits.words`.
        var words: Range<Int>
    }

    private let s: [Unicode.Scalar]
    /// The hashes of every unit's words, unit after unit.
    private var words: [UInt64] = []
    private var wordIsStop: [Bool] = []

    init(_ scalars: [Unicode.Scalar]) { s = scalars }

    // MARK: Splitting

    /// The units, in the text's order.
    mutating func split() -> [Unit] {
        let lineMode = Self.looksLineBased(s)
        var ranges: [Range<Int>] = []
        var start = 0
        var lineStart = 0
        var i = 0
        let n = s.count
        func close(_ end: Int) {
            if end > start { ranges.append(start..<end) }
        }
        while i < n {
            let c = s[i]
            if c == "\n" || c == "\r" || c == "\u{2028}" || c == "\u{2029}" {
                var j = i + 1
                var breaks = 1
                while j < n, s[j] == " " || s[j] == "\t" || Self.isLineBreak(s[j]) {
                    // \r\n is one break.
                    if Self.isLineBreak(s[j]) && !(s[j] == "\n" && s[j - 1] == "\r") { breaks += 1 }
                    j += 1
                }
                let shortLine = i - lineStart < 40
                if breaks >= 2 || c == "\u{2029}" || lineMode || shortLine || (j < n && Self.startsListItem(s, at: j)) {
                    close(i)
                    start = j
                }
                lineStart = j
                i = j
                continue
            }
            if Self.isCJKTerminator(c) {
                var j = i + 1
                while j < n, Self.isCJKTerminator(s[j]) || Self.isClosing(s[j]) { j += 1 }
                close(j)
                start = j
                i = j
                continue
            }
            if c == "." || c == "!" || c == "?" || c == "…" {
                var j = i + 1
                while j < n, s[j] == "." || s[j] == "!" || s[j] == "?" || Self.isClosing(s[j]) { j += 1 }
                guard j == n || Self.isSpace(s[j]) else { i = j; continue }
                var k = j
                while k < n, s[k] == " " || s[k] == "\t" { k += 1 }
                if c == "." && (k < n && s[k].properties.isLowercase || isAbbreviation(before: i)) {
                    i = j
                    continue
                }
                close(j)
                start = k
                i = k
                continue
            }
            i += 1
        }
        close(n)
        return ranges.compactMap { unit($0) }
    }

    /// Few sentence ends for many lines: code, CSV, lists, where each line stands on its own.
    static func looksLineBased(_ s: [Unicode.Scalar]) -> Bool {
        var lines = 0, ends = 0
        var lineHasText = false
        for (i, c) in s.enumerated() {
            if c == "\n" {
                if lineHasText { lines += 1 }
                lineHasText = false
            } else if !isSpace(c) {
                lineHasText = true
                if isCJKTerminator(c) {
                    ends += 1
                } else if c == "." || c == "!" || c == "?", i + 1 == s.count || isSpace(s[i + 1]) {
                    ends += 1
                }
            }
        }
        if lineHasText { lines += 1 }
        return lines >= 4 && ends * 4 < lines
    }

    /// The word before `s[dot]` is an initial (`J.`) or a common abbreviation (`e.g.`, `Dr.`, `z.B.`).
    private func isAbbreviation(before dot: Int) -> Bool {
        var j = dot
        while j > 0, s[j - 1].properties.isAlphabetic { j -= 1 }
        let length = dot - j
        if length == 1 { return true }
        guard length > 0, length <= 4 else { return false }
        var word = ""
        for c in s[j..<dot] { word.unicodeScalars.append(Self.lowercased(c)) }
        return Self.abbreviations.contains(word)
    }

    static let abbreviations: Set<String> = [
        "mr", "mrs", "ms", "dr", "prof", "st", "vs", "fig", "no", "nr", "ca", "bzw", "usw", "vgl",
        "jr", "sr", "inc", "ltd", "co", "eg", "ie", "cf", "al", "approx", "dept", "abb", "evtl", "ggf", "inkl",
        "mio", "mrd", "tel", "str", "hr", "fr", "mme", "mlle", "sra", "vol", "pp", "ed", "eds",
    ]

    /// A unit from a range of the text, or nil when it holds nothing but space and markup.
    /// Its words are appended to `words`; its text is made only if it is chosen (`text(of:)`).
    private mutating func unit(_ range: Range<Int>) -> Unit? {
        var length = 0
        var pendingSpace = false
        var letters = 0, digits = 0, garbage = 0, cjk = 0, visible = 0
        var firstCJK: Bool?
        var lastCJK = false
        var leading = true
        let wordStart = words.count
        var hash: UInt64 = Self.fnvBasis
        var wordLength = 0
        var wordIsKana = false
        func endWord() {
            if wordLength > 0 {
                words.append(hash)
                wordIsStop.append(wordIsKana || wordLength == 1 && !lastCJK || Self.stopwords.contains(hash))
            }
            hash = Self.fnvBasis
            wordLength = 0
            wordIsKana = false
        }
        /// White space or a control character: the word ends, and a space comes before the
        /// next visible character (a control character is also garbage).
        @inline(__always) func space(garbage isGarbage: Bool) {
            endWord()
            if isGarbage { garbage += 1 }
            if visible > 0 { pendingSpace = true }
        }
        /// A visible character, unless it is markup at the start of a line (`#`, `>`, `-`):
        /// counted, with the space before it.
        @inline(__always) func counts(_ c: Unicode.Scalar) -> Bool {
            if leading && Self.isLineMarkup(c) { return false }
            leading = false
            visible += 1
            length += pendingSpace ? 2 : 1
            pendingSpace = false
            return true
        }
        for i in range {
            let c = s[i]
            let v = c.value
            if v < 0x80 {
                // ASCII, most text: no Unicode property lookups.
                if v <= 0x20 || v == 0x7F {
                    space(garbage: v != 0x20 && v != 0x09 && v != 0x0A && v != 0x0D && v != 0x0B && v != 0x0C)
                    continue
                }
                guard counts(c) else { continue }
                lastCJK = false
                if firstCJK == nil { firstCJK = false }
                let lower = v | 0x20
                if lower >= 0x61 && lower <= 0x7A {
                    letters += 1
                    if wordLength > 0 && wordIsKana { endWord() }
                    hash = Self.fnv(hash, Unicode.Scalar(UInt8(lower)))
                    wordLength += 1
                } else {
                    endWord()
                    if v >= 0x30 && v <= 0x39 { digits += 1 }
                }
                continue
            }
            if Self.isSpace(c) || c.properties.generalCategory == .control {
                space(garbage: !Self.isSpace(c))
                continue
            }
            guard counts(c) else { continue }
            let category = c.properties.generalCategory
            if category == .privateUse || category == .unassigned || category == .surrogate || c == "\u{FFFD}" {
                garbage += 1
                endWord()
                continue
            }
            let isCJK = Self.isCJK(c) || Self.isCJKTerminator(c)
            if firstCJK == nil { firstCJK = isCJK }
            lastCJK = isCJK
            if isCJK { cjk += 1 }
            if Self.isIdeograph(c) {
                // No spaces in CJK text: each ideograph is a word; a run of kana is one.
                endWord()
                letters += 1
                hash = Self.fnv(hash, c)
                wordLength = 1
                lastCJK = true
                endWord()
            } else if c.properties.isAlphabetic {
                let kana = Self.isHiragana(c)
                if wordLength > 0 && kana != wordIsKana { endWord() }
                letters += 1
                hash = Self.fnv(hash, Self.lowercased(c))
                wordLength += 1
                wordIsKana = kana
            } else {
                endWord()
                if c.properties.numericType != nil { digits += 1 }
            }
        }
        endWord()
        guard visible > 0 else { return nil }
        let clean = garbage * 4 < visible
        return Unit(range: range, length: length, isCJK: cjk * 2 >= visible, startsCJK: firstCJK ?? false,
                    endsCJK: lastCJK, isMostlyText: clean && letters * 3 >= visible,
                    isReadable: clean && letters + digits > 0, words: wordStart..<words.count)
    }

    /// A unit's text as a summary prints it: markup in front of the line dropped, every run of
    /// space, line breaks and control characters one space. `unit.length` scalars long.
    func text(of unit: Unit) -> String {
        var text = ""
        var pendingSpace = false
        var leading = true
        for i in unit.range {
            let c = s[i]
            if Self.isSpace(c) || c.properties.generalCategory == .control {
                if !leading { pendingSpace = true }
                continue
            }
            if leading && Self.isLineMarkup(c) { continue }
            leading = false
            if pendingSpace { text.unicodeScalars.append(" ") }
            pendingSpace = false
            text.unicodeScalars.append(c)
        }
        return text
    }

    /// Whether two units have the same words in the same order (a repeated line or sentence).
    func sameWords(_ a: Unit, _ b: Unit) -> Bool {
        a.words.count == b.words.count && a.length == b.length && words[a.words].elementsEqual(words[b.words])
    }

    /// Markup in front of a line (`# `, `- `, `* `, `> `, `• `), not part of the sentence.
    static func isLineMarkup(_ c: Unicode.Scalar) -> Bool {
        c == "#" || c == "-" || c == "*" || c == ">" || c == "•" || c == "+" || c == "|"
    }

    // MARK: Scoring

    /// One score per unit (see `ExtractiveSummarizer`).
    func scores(of units: [Unit]) -> [Double] {
        var counts: [UInt64: Int] = [:]
        counts.reserveCapacity(words.count / 2)
        for w in words { counts[w, default: 0] += 1 }
        var seen = Set<UInt64>()
        return units.enumerated().map { index, unit in
            seen.removeAll(keepingCapacity: true)
            var sum = 0.0
            for i in unit.words where seen.insert(words[i]).inserted {
                let weight = Double(counts[words[i], default: 1] - 1).squareRoot()
                sum += wordIsStop[i] ? weight / 10 : weight
            }
            let n = Double(max(1, unit.words.count))
            let position = 1 + 0.2 * (1 - Double(index) / Double(units.count))
            // The small constant lets position decide between units of no recurring word.
            return (sum / n.squareRoot() + 0.01) * position
        }
    }

    // MARK: Characters

    static let fnvBasis: UInt64 = 0xcbf2_9ce4_8422_2325

    static func fnv(_ h: UInt64, _ c: Unicode.Scalar) -> UInt64 {
        var h = h
        var v = c.value
        for _ in 0..<3 {
            h = (h ^ UInt64(v & 0xFF)) &* 0x100_0000_01b3
            v >>= 8
        }
        return h
    }

    static func hash(_ word: String) -> UInt64 {
        word.unicodeScalars.reduce(fnvBasis) { fnv($0, lowercased($1)) }
    }

    static func lowercased(_ c: Unicode.Scalar) -> Unicode.Scalar {
        if c.value < 0x80 {
            return c.value >= 0x41 && c.value <= 0x5A ? Unicode.Scalar(c.value + 0x20)! : c
        }
        guard c.properties.changesWhenLowercased else { return c }
        // A one-to-one mapping only (`İ` lowercases to two scalars: kept as it is).
        let lower = c.properties.lowercaseMapping.unicodeScalars
        return lower.count == 1 ? lower.first! : c
    }

    static func isSpace(_ c: Unicode.Scalar) -> Bool {
        c == " " || c == "\t" || isLineBreak(c) || c == "\u{A0}" || c == "\u{3000}" || c == "\u{0B}" || c == "\u{0C}"
    }

    static func isLineBreak(_ c: Unicode.Scalar) -> Bool {
        c == "\n" || c == "\r" || c == "\u{2028}" || c == "\u{2029}"
    }

    static func isCJKTerminator(_ c: Unicode.Scalar) -> Bool {
        c == "。" || c == "！" || c == "？" || c == "｡"
    }

    /// Closing quotes and brackets that stay with the sentence they end.
    static func isClosing(_ c: Unicode.Scalar) -> Bool {
        c == "\"" || c == "'" || c == ")" || c == "]" || c == "”" || c == "’" || c == "»" || c == "«"
            || c == "」" || c == "』" || c == "）" || c == "】" || c == "〉" || c == "》"
    }

    /// A line that starts a list item (`- `, `* `, `• `, `1. `, `2) `) begins a unit.
    static func startsListItem(_ s: [Unicode.Scalar], at i: Int) -> Bool {
        let c = s[i]
        if (c == "-" || c == "*" || c == "•" || c == "+" || c == "#" || c == ">" || c == "|") { return true }
        var j = i
        while j < s.count, s[j].value >= 0x30 && s[j].value <= 0x39 { j += 1 }
        return j > i && j + 1 < s.count && (s[j] == "." || s[j] == ")") && s[j + 1] == " "
    }

    static func isIdeograph(_ c: Unicode.Scalar) -> Bool {
        let v = c.value
        return (0x4E00...0x9FFF).contains(v) || (0x3400...0x4DBF).contains(v) || (0x20000...0x2FA1F).contains(v)
            || (0xF900...0xFAFF).contains(v)
    }

    static func isHiragana(_ c: Unicode.Scalar) -> Bool { (0x3040...0x309F).contains(c.value) }

    /// Scripts written without spaces between words (and Hangul, whose sentences are as dense).
    static func isCJK(_ c: Unicode.Scalar) -> Bool {
        let v = c.value
        return isIdeograph(c) || (0x3040...0x30FF).contains(v) || (0xAC00...0xD7AF).contains(v)
            || (0x3000...0x303F).contains(v) || (0xFF00...0xFFEF).contains(v)
    }
}
