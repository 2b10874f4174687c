/// A full-text pattern that is valid FTS5 syntax by construction: the one sanitizer through which
/// user text reaches `MATCH`.
///
/// Each word is cut into tokens the way FTS5's `unicode61` tokenizer does (runs of letters and
/// digits), and becomes a quoted phrase of those tokens, so `stdio.h` looks for the phrase
/// "stdio h" and no character of the user's can be FTS5 syntax. The last word may be a prefix.
///
/// For example: `SearchPattern(words: ["annual", "rep"])` gives `"annual" AND "rep"*`.
public struct SearchPattern: Sendable, Hashable, CustomStringConvertible {
    /// The phrases (each a list of tokens) that must all match.
    public let phrases: [[String]]
    public let prefixLast: Bool

    /// Returns nil when the words hold no searchable token at all (only punctuation).
    public init?(words: [String], prefixLast: Bool = true) {
        let phrases = words.map(Self.tokens).filter { !$0.isEmpty }
        guard !phrases.isEmpty else { return nil }
        self.phrases = phrases
        self.prefixLast = prefixLast
    }

    /// The tokens of one word, lowercased, as FTS5 `unicode61` would see them.
    public static func tokens(_ word: String) -> [String] {
        var out: [String] = []
        var current = ""
        for ch in word {
            if ch.isLetter || ch.isNumber {
                current.append(ch)
            } else if !current.isEmpty {
                out.append(current.lowercased())
                current = ""
            }
        }
        if !current.isEmpty { out.append(current.lowercased()) }
        return out
    }

    /// The FTS5 query text.
    public var fts5: String {
        phrases.enumerated().map { i, tokens in
            let phrase = "\"" + tokens.joined(separator: " ") + "\""
            return (prefixLast && i == phrases.count - 1) ? phrase + "*" : phrase
        }.joined(separator: " AND ")
    }

    public var description: String { fts5 }
}
