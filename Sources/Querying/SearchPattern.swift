/// A full-text pattern that is valid FTS5 syntax by construction: the one sanitizer through which
/// user text reaches `MATCH`.
///
/// Each word is cut into tokens the way FTS5's `unicode61` tokenizer does (runs of letters and
/// digits), and becomes a quoted phrase of those tokens, so `stdio.h` looks for the phrase
/// "stdio h" and no character of the user's can be FTS5 syntax. A term may be a prefix.
///
/// The pattern is a conjunction of groups, each group a disjunction of terms, which is what the
/// short query form can say (`a OR b c` is `("a" OR "b") AND "c"`); exclusions (`-word`) are
/// kept outside, as `NOT` around another pattern, because FTS5's `NOT` is binary.
///
/// For example: `SearchPattern(words: ["annual", "rep"])` gives `"annual" AND "rep"*`.
package struct SearchPattern: Sendable, Hashable, CustomStringConvertible {
    /// One quoted phrase of tokens, possibly a prefix (`"annual rep"*`).
    ///
    /// A word with identifiers (`x86_64`, `repeat_n`) has two forms, and matches either: the
    /// identifiers whole (`"x86_64"`, one token the index holds beside the parts, see
    /// CFTS5CJK) or the parts (`"x86 64"`). An item with the identifier itself matches both, so
    /// it ranks above one that only has the parts in a row (issue 24).
    package struct Term: Sendable, Hashable {
        package var tokens: [String]
        /// The tokens with each identifier whole (`["std", "iter", "repeat_n"]`); nil when the
        /// word has no identifier.
        package var whole: [String]?
        package var prefix: Bool

        /// Returns nil when `text` holds no token.
        package init?(_ text: String, prefix: Bool = false) {
            let (t, whole) = SearchPattern.forms(text)
            guard !t.isEmpty else { return nil }
            tokens = t
            self.whole = whole
            self.prefix = prefix
        }

        var fts5: String {
            let star = prefix ? "*" : ""
            let parts = "\"" + tokens.joined(separator: " ") + "\"" + star
            guard let whole else { return parts }
            return "(\"" + whole.joined(separator: " ") + "\"" + star + " OR " + parts + ")"
        }
    }

    /// The full-text columns a pattern may be limited to.
    package enum Column: String, Sendable, Hashable {
        case name, title, other, text
    }

    /// All groups must match; within a group, any term. Never holds the same group twice, nor
    /// a group the same term twice (see `deduplicated`).
    package private(set) var groups: [[Term]]
    /// Only this column, or any column when nil.
    package var column: Column?
    /// Any group may match, not all: a question's words asked as any of them (issue 43), ranked
    /// by how many of the groups a row holds (`fsindex_rank`'s coordination).
    package var anyGroup = false
    /// With `anyGroup`: a row must also hold one of these groups (indexes into `groups`),
    /// a question's rarer words (`QueryEngine.essentialSplit`). FTS5 then walks their matches
    /// only, and seeks the commoner words' lists to those rows, instead of merging every match
    /// of every word. Empty: any group will do.
    package var requiredGroups: [Int] = []

    /// Returns nil when the words hold no searchable token at all (only punctuation).
    package init?(words: [String], prefixLast: Bool = true) {
        let terms = words.compactMap { Term($0) }
        guard !terms.isEmpty else { return nil }
        var groups = terms.map { [$0] }
        if prefixLast { groups[groups.count - 1][0].prefix = true }
        self.groups = Self.deduplicated(groups)
    }

    /// Returns nil when there is no term (or an empty group, which could never match).
    package init?(groups: [[Term]], column: Column? = nil) {
        guard !groups.isEmpty, groups.allSatisfy({ !$0.isEmpty }) else { return nil }
        self.groups = Self.deduplicated(groups)
        self.column = column
    }

    /// This pattern and `other` together (both must match); nil when they cover different columns.
    package func adding(_ other: SearchPattern) -> SearchPattern? {
        guard column == other.column else { return nil }
        var out = self
        out.groups = Self.deduplicated(groups + other.groups)
        return out
    }

    /// The groups with repeats removed, first occurrences kept in order: `a AND a` matches what
    /// `a` matches, and costs far more. FTS5's bm25 (and snippet) merge the positions of every
    /// phrase for every matching row, scanning all phrases for each position found, which is
    /// quadratic in the number of phrases when they repeat: `NOT NOT NOT …` (1,000 words, each
    /// the phrase "not") took over 15 s; without the repeats it is two phrases and 20 ms.
    static func deduplicated(_ groups: [[Term]]) -> [[Term]] {
        var seenGroups = Set<[Term]>()
        var out: [[Term]] = []
        for group in groups {
            var seen = Set<Term>()
            let unique = group.filter { seen.insert($0).inserted }
            if seenGroups.insert(unique).inserted { out.append(unique) }
        }
        return out
    }

    /// The tokens of one word, lowercased, as FTS5 `unicode61` would see them.
    package static func tokens(_ word: String) -> [String] { forms(word).parts }

    /// The tokens of one word (`parts`), and the same with every run of tokens joined only by
    /// underscores made one token, `_`-joined, as the index's tokenizer keeps identifiers whole
    /// (`whole`, nil when there is no such run): `_mm_subs_epi8` is `mm subs epi8` and
    /// `mm_subs_epi8`.
    static func forms(_ word: String) -> (parts: [String], whole: [String]?) {
        var parts: [String] = [], whole: [String] = []
        var current = "", separator = "", joined = false
        func endToken() {
            let token = current.lowercased()
            current = ""
            if !parts.isEmpty, !separator.isEmpty, separator.allSatisfy({ $0 == "_" }), let last = whole.last,
               Self.wholeFits(last, token) {
                whole[whole.count - 1] = last + "_" + token
                joined = true
            } else {
                whole.append(token)
            }
            parts.append(token)
            separator = ""
        }
        for ch in word {
            if ch.isLetter || ch.isNumber {
                current.append(ch)
            } else {
                if !current.isEmpty { endToken() }
                if !parts.isEmpty { separator.append(ch) }
            }
        }
        if !current.isEmpty { endToken() }
        // A phrase cannot say that an identifier covers several positions of the document (its
        // whole token sits at its first part's), so only a word whose identifier comes last
        // (`x86_64`, `core::arch::x86_64`) has the whole form; `foo_bar.h` is found by its parts.
        guard joined, whole.dropLast().allSatisfy({ !$0.contains("_") }) else { return (parts, nil) }
        return (parts, whole)
    }

    /// The tokenizer's limits on a whole identifier (MAX_PARTS, MAX_WHOLE in fts5_cjk.c).
    private static func wholeFits(_ joined: String, _ next: String) -> Bool {
        joined.utf8.count + 1 + next.utf8.count <= 256 && joined.utf8.count(where: { $0 == UInt8(ascii: "_") }) + 2 <= 16
    }

    /// Which query word each phrase of `fts5` belongs to, and how many positions of a document
    /// it covers, for `fsindex_rank`: "group:span …", one per phrase in the order they appear
    /// (a term with identifiers is two phrases, the whole first; both cover all the parts).
    package var rankLayout: String { rankLayout(documentCounts: [:]) }

    /// The layout with the items each one-word phrase is in, where `documentCounts` has them
    /// ("group:span:items"): `fsindex_rank` then need not count them. A prefix (`rust*`) is
    /// given its whole word's count, a lower bound that weighs it a little higher than counting
    /// every completion would.
    ///
    /// `top`: for an any-word pattern, only the `top` best rows need their score; the others
    /// may get 1.0 (after every real score, ≤ 0), which the caller must drop (`TopKRanking`).
    func rankLayout(documentCounts: [String: Int], top: Int? = nil) -> String {
        var out: [String] = anyGroup ? ["coord"] + (top.map { ["top", String($0)] } ?? []) : []
        // The required groups' phrases come first in `fts5`, and only narrow the rows.
        let skipped = requiredPhrases.reduce(0) { $0 + ($1.whole == nil ? 1 : 2) }
        if skipped > 0 { out += ["skip", String(skipped)] }
        func phrase(_ g: Int, _ term: Term, _ tokens: [String]) {
            var entry = "\(g):\(term.tokens.count)"
            if tokens.count == 1, let n = documentCounts[tokens[0]] { entry += ":\(n)" }
            out.append(entry)
        }
        for (g, group) in groups.enumerated() {
            for term in group {
                if let whole = term.whole { phrase(g, term, whole) }
                phrase(g, term, term.tokens)
            }
        }
        return out.joined(separator: " ")
    }

    /// The last word made whole (no prefix) when the pattern has several words and the last is
    /// one prefix term of one token that `common` lists (see `ResultQuery.counted`).
    mutating func completeLastWord(common: [String: Int]) {
        guard groups.count >= 2, let last = groups.last, last.count == 1, last[0].prefix,
              last[0].tokens.count == 1, last[0].whole == nil, common[last[0].tokens[0]] != nil else { return }
        var term = last[0]
        term.prefix = false
        groups[groups.count - 1] = [term]
    }

    /// The words whose item counts `rankLayout(documentCounts:)` can use: those of one-word
    /// phrases.
    var countableTerms: Set<String> {
        var out = Set<String>()
        for group in groups {
            for term in group {
                if let whole = term.whole, whole.count == 1 { out.insert(whole[0]) }
                if term.tokens.count == 1 { out.insert(term.tokens[0]) }
            }
        }
        return out
    }

    /// The terms of `requiredGroups` that exist, in order (an any-word pattern's only).
    private var requiredPhrases: [Term] {
        anyGroup ? requiredGroups.filter { groups.indices.contains($0) }.flatMap { groups[$0] } : []
    }

    /// The FTS5 query text.
    package var fts5: String {
        var body = groups.map { g in
            g.count == 1 ? g[0].fts5 : "(" + g.map(\.fts5).joined(separator: " OR ") + ")"
        }.joined(separator: anyGroup ? " OR " : " AND ")
        let required = requiredPhrases
        if !required.isEmpty {
            body = "(" + required.map(\.fts5).joined(separator: " OR ") + ") AND (" + body + ")"
        }
        guard let column else { return body }
        return "{\(column.rawValue)} : (\(body))"
    }

    package var description: String { fts5 }
}
