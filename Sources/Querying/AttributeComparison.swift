import Attributes
import Foundation

/// One attribute compared with one value, checked against the attribute's type: the leaf of
/// every query that is not plain words.
///
/// For example, `kMDItemPixelWidth > 2000` becomes
/// `AttributeComparison(key: .pixelWidth, op: .greater, operand: .number(2000))`, and
/// `title:report` becomes `(key: .title, op: .equal, operand: .text(TextPattern("*report*", [.c, .d])))`.
package struct AttributeComparison: Sendable, Hashable {
    package var key: AttributeKey
    package var op: ComparisonOperator
    package var operand: Operand

    package enum Operand: Sendable, Hashable {
        case text(TextPattern)
        case number(Double)
        case date(Date)
        case bool(Bool)
    }

    package init(_ key: AttributeKey, _ op: ComparisonOperator, _ operand: Operand) {
        self.key = key
        self.op = op
        self.operand = operand
    }
}

/// A string value with Spotlight's wildcards (`*` any run, `?` one character, `\*` a star) and
/// modifiers, matched against whole attribute values (or, with `w`, against their words).
package struct TextPattern: Sendable, Hashable, CustomStringConvertible {
    /// The pattern as written, wildcards and `\` escapes kept.
    package var raw: String
    package var modifiers: QueryModifiers

    package init(_ raw: String, _ modifiers: QueryModifiers = []) {
        self.raw = raw
        self.modifiers = modifiers
    }

    /// `text` as it must be written in a pattern to match itself: Spotlight's wildcards and the
    /// backslash escaped. Part of the pattern's own language, so that the parsers build
    /// patterns without knowing how any backend matches them.
    package static func literal(_ text: String) -> String {
        var out = ""
        for c in text {
            if c == "*" || c == "?" || c == "\\" { out.append("\\") }
            out.append(c)
        }
        return out
    }

    package var description: String {
        var m = ""
        if modifiers.contains(.caseInsensitive) { m += "c" }
        if modifiers.contains(.diacriticInsensitive) { m += "d" }
        if modifiers.contains(.wordBased) { m += "w" }
        return "\"" + raw + "\"" + m
    }

    typealias Piece = GlobPiece<Character>

    /// The pattern as pieces, escapes resolved.
    var pieces: [Piece] {
        var out: [Piece] = []
        var escaped = false
        for c in raw {
            if escaped { out.append(.literal(c)); escaped = false; continue }
            switch c {
            case "\\": escaped = true
            case "*": if out.last != .any { out.append(.any) }
            case "?": out.append(.one)
            default: out.append(.literal(c))
            }
        }
        if escaped { out.append(.literal("\\")) }
        return out
    }

    /// The ASCII letters and digits the pattern starts with (up to a wildcard or anything
    /// else), when there are some: every match with `w` starts with a word beginning so.
    var leadingASCIIWord: String? {
        var out = ""
        for piece in pieces {
            guard case .literal(let c) = piece, c.isASCII, c.isLetter || c.isNumber else { break }
            out.append(c)
        }
        return out.isEmpty ? nil : out
    }

    /// The literal text (escapes resolved), when the pattern has no wildcard.
    package var literalText: String? {
        let p = pieces
        guard !p.contains(where: { $0 == .any || $0 == .one }) else { return nil }
        return String(p.compactMap { if case .literal(let c) = $0 { return c } else { return nil } })
    }
}

/// One element of a glob: a literal (a character, or a byte on the ASCII fast path), `*` or `?`.
enum GlobPiece<Element: Hashable & Sendable>: Hashable, Sendable {
    case literal(Element), any, one
}

/// Matches values against a `TextPattern`; the engine calls it from SQL (`fs_match`), once per
/// row, so the common case (an ASCII value and pattern) runs on bytes without Foundation.
///
/// Folding for `c` and `d` is Foundation's (`straße` ~ `STRASSE`, `é` ~ `e`), applied to both the
/// pattern and the value, so the two always agree; on ASCII text it is lowercasing alone.
package struct TextMatcher: Sendable {
    let pieces: [TextPattern.Piece]
    /// The pattern as bytes, when every literal is ASCII.
    let asciiPieces: [GlobPiece<UInt8>]?
    let options: String.CompareOptions
    let wordBased: Bool

    package init(_ pattern: TextPattern) {
        var options: String.CompareOptions = []
        if pattern.modifiers.contains(.caseInsensitive) { options.insert(.caseInsensitive) }
        if pattern.modifiers.contains(.diacriticInsensitive) { options.insert(.diacriticInsensitive) }
        self.options = options
        wordBased = pattern.modifiers.contains(.wordBased)
        var folded: [TextPattern.Piece] = []
        for piece in pattern.pieces {
            guard case .literal(let c) = piece, !options.isEmpty else { folded.append(piece); continue }
            // A letter that folds to several (ß → ss) is matched as those letters.
            for f in String(c).folding(options: options, locale: nil) { folded.append(.literal(f)) }
        }
        pieces = folded
        var ascii: [GlobPiece<UInt8>]? = []
        for piece in folded {
            switch piece {
            case .any: ascii?.append(.any)
            case .one: ascii?.append(.one)
            case .literal(let c):
                if let b = c.asciiValue { ascii?.append(.literal(b)) } else { ascii = nil }
            }
        }
        asciiPieces = ascii
    }

    /// Whether `value` matches: the whole value, or with `w` a run of its words (a pattern
    /// ending in `*` may end inside a word: `"rep*"w` matches "annual report").
    package func matches(_ value: String) -> Bool {
        if let asciiPieces, value.utf8.allSatisfy({ $0 < 0x80 }) {
            let lower = options.contains(.caseInsensitive)
            let bytes = value.utf8.map { lower && $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }
            return Self.matches(asciiPieces, bytes, wordBased: wordBased) { b in
                (b >= 48 && b <= 57) || (b >= 65 && b <= 90) || (b >= 97 && b <= 122)
            }
        }
        let chars = Array(options.isEmpty ? value : value.folding(options: options, locale: nil))
        return Self.matches(pieces, chars, wordBased: wordBased) { $0.isLetter || $0.isNumber }
    }

    static func matches<E: Hashable & Sendable>(_ pieces: [GlobPiece<E>], _ chars: [E], wordBased: Bool, isWord: (E) -> Bool) -> Bool {
        if !wordBased { return glob(pieces[...], chars[...]) }
        var starts: [Int] = []
        var ends: [Int] = []
        for i in chars.indices {
            let word = isWord(chars[i])
            let prevWord = i > 0 && isWord(chars[i - 1])
            let nextWord = i + 1 < chars.count && isWord(chars[i + 1])
            if word && !prevWord { starts.append(i) }
            if word && !nextWord { ends.append(i + 1) }
        }
        if starts.count > 256 {
            // A long value: any substring, rather than every run of words (quadratic).
            return glob([.any] + pieces + [.any], chars[...])
        }
        for s in starts {
            for e in ends where e > s {
                if glob(pieces[...], chars[s..<e]) { return true }
            }
        }
        return false
    }

    /// Three-way comparison of the folded value with the folded pattern text (for `<` and `>`).
    package func compare(_ value: String, _ other: String) -> Int {
        let a = options.isEmpty ? value : value.folding(options: options, locale: nil)
        let b = options.isEmpty ? other : other.folding(options: options, locale: nil)
        return a < b ? -1 : (a == b ? 0 : 1)
    }

    /// Glob matching with backtracking on the last `*` only: linear in practice, never exponential.
    static func glob<E: Hashable & Sendable>(_ p: ArraySlice<GlobPiece<E>>, _ s: ArraySlice<E>) -> Bool {
        var pi = p.startIndex, si = s.startIndex
        var star: Int?
        var mark = si
        while si < s.endIndex {
            if pi < p.endIndex {
                switch p[pi] {
                case .any:
                    star = pi
                    mark = si
                    pi += 1
                    continue
                case .one:
                    pi += 1; si += 1
                    continue
                case .literal(let c) where c == s[si]:
                    pi += 1; si += 1
                    continue
                default: break
                }
            }
            guard let st = star else { return false }
            pi = st + 1
            mark += 1
            si = mark
        }
        while pi < p.endIndex, p[pi] == .any { pi += 1 }
        return pi == p.endIndex
    }
}
