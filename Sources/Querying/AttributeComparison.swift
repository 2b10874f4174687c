import Attributes
import Foundation

/// One attribute compared with one value, checked against the attribute's type: the leaf of
/// every query that is not plain words.
///
/// For example, `kMDItemPixelWidth > 2000` becomes
/// `AttributeComparison(key: .pixelWidth, op: .greater, operand: .number(2000))`, and
/// `title:report` becomes `(key: .title, op: .equal, operand: .text(TextPattern("*report*", [.c, .d])))`.
public struct AttributeComparison: Sendable, Hashable {
    public var key: AttributeKey
    public var op: ComparisonOperator
    public var operand: Operand

    public enum Operand: Sendable, Hashable {
        case text(TextPattern)
        case number(Double)
        case date(Date)
        case bool(Bool)
    }

    public init(_ key: AttributeKey, _ op: ComparisonOperator, _ operand: Operand) {
        self.key = key
        self.op = op
        self.operand = operand
    }
}

/// A string value with Spotlight's wildcards (`*` any run, `?` one character, `\*` a star) and
/// modifiers, matched against whole attribute values (or, with `w`, against their words).
public struct TextPattern: Sendable, Hashable, CustomStringConvertible {
    /// The pattern as written, wildcards and `\` escapes kept.
    public var raw: String
    public var modifiers: QueryModifiers

    public init(_ raw: String, _ modifiers: QueryModifiers = []) {
        self.raw = raw
        self.modifiers = modifiers
    }

    public var description: String {
        var m = ""
        if modifiers.contains(.caseInsensitive) { m += "c" }
        if modifiers.contains(.diacriticInsensitive) { m += "d" }
        if modifiers.contains(.wordBased) { m += "w" }
        return "\"" + raw + "\"" + m
    }

    enum Piece: Hashable { case literal(Character), any, one }

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

    /// Whether the pattern has no wildcard at all.
    public var isLiteral: Bool { !pieces.contains { $0 == .any || $0 == .one } }

    /// The literal text (escapes resolved), when the pattern has no wildcard.
    public var literalText: String? {
        let p = pieces
        guard !p.contains(where: { $0 == .any || $0 == .one }) else { return nil }
        return String(p.compactMap { if case .literal(let c) = $0 { return c } else { return nil } })
    }
}

/// Matches values against a `TextPattern`; the engine calls it from SQL (`fs_match`).
///
/// Folding for `c` and `d` is Foundation's (`straße` ~ `STRASSE`, `é` ~ `e`), applied to both the
/// pattern and the value, so the two always agree.
struct TextMatcher {
    let pieces: [TextPattern.Piece]
    let options: String.CompareOptions
    let wordBased: Bool

    init(_ pattern: TextPattern) {
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
    }

    func fold(_ s: String) -> [Character] {
        Array(options.isEmpty ? s : s.folding(options: options, locale: nil))
    }

    /// Whether `value` matches: the whole value, or with `w` a run of its words (a pattern
    /// ending in `*` may end inside a word: `"rep*"w` matches "annual report").
    func matches(_ value: String) -> Bool {
        let chars = fold(value)
        if !wordBased { return Self.glob(pieces[...], chars[...]) }
        var starts: [Int] = []
        var ends: [Int] = []
        for i in chars.indices {
            let isWord = chars[i].isLetter || chars[i].isNumber
            let prevWord = i > 0 && (chars[i - 1].isLetter || chars[i - 1].isNumber)
            let nextWord = i + 1 < chars.count && (chars[i + 1].isLetter || chars[i + 1].isNumber)
            if isWord && !prevWord { starts.append(i) }
            if isWord && !nextWord { ends.append(i + 1) }
        }
        if starts.count > 256 {
            // A long value: any substring, rather than every run of words (quadratic).
            return Self.glob([.any] + pieces + [.any], chars[...])
        }
        for s in starts {
            for e in ends where e > s {
                if Self.glob(pieces[...], chars[s..<e]) { return true }
            }
        }
        return false
    }

    /// Three-way comparison of the folded value with the folded pattern text (for `<` and `>`).
    func compare(_ value: String, _ other: String) -> Int {
        let a = String(fold(value)), b = String(fold(other))
        return a < b ? -1 : (a == b ? 0 : 1)
    }

    /// Glob matching with backtracking on the last `*` only: linear in practice, never exponential.
    static func glob(_ p: ArraySlice<TextPattern.Piece>, _ s: ArraySlice<Character>) -> Bool {
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
