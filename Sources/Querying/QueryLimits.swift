import MemberwiseInit
/// How big a query may be: bounds that no query a person (or a reasonable script) writes comes
/// near, and that keep every stage after the parser bounded in stack, memory and time.
///
/// A key design decision: the parsers, the compiler, `ItemPredicate.simplified`, the SQL builder
/// and `--explain`'s printer all recurse over the query's tree, so a query nested 10,000 levels
/// deep (`((((…))))`, `!!!!…x`) would overflow the stack (SIGSEGV) long before SQLite saw it.
/// Rather than make five recursive walks iterative, the parsers refuse such trees up front, with
/// an error that names the limit, and everything downstream may rely on a shallow tree.
///
/// The limits:
/// - `maximumLength`, 131,072 bytes of UTF-8: Linux passes no single argument longer than this
///   (`MAX_ARG_STRLEN`), so a query typed or scripted as one argument always fits; longer text
///   can only come from joining many arguments, and is almost certainly not a query.
/// - `maximumDepth`, 100 levels of parentheses and negations (`(`, `!`, `-`): readable queries
///   nest two or three levels; Spotlight saved searches rarely more than five.
/// - `maximumTerms`, 4,096 words, phrases, comparisons and `field:value` terms: a script that ORs
///   together a few thousand file names still fits; each term costs SQL (up to four bound
///   values, well under SQLite's 32,766) and full-text work for every matching row.
///
/// For example, `QueryParser.parse(String(repeating: "(", count: 10_000) + …)` throws
/// "the query nests deeper than 100 levels (parentheses and negations); the limit is 100".
@MemberwiseInit
package struct QueryLimits: Sendable, Hashable {
    package var maximumLength: Int = 131_072
    package var maximumDepth: Int = 100
    package var maximumTerms: Int = 4_096

    /// Which limit a query went past.
    package enum Kind: String, Sendable, Hashable {
        case length, depth, terms
    }

    /// The error for a query longer than `maximumLength` (in UTF-8 bytes).
    func lengthError(_ query: String) -> QuerySyntaxError? {
        let bytes = query.utf8.count
        guard bytes > maximumLength else { return nil }
        var e = QuerySyntaxError(query: "", position: 0,
                                 message: "the query is \(bytes) bytes long; the limit is \(maximumLength) bytes: split it into several queries")
        e.exceededLimit = .length
        return e
    }

    /// The error for a query nesting deeper than `maximumDepth`, at `position`.
    func depthError(_ query: String, at position: Int) -> QuerySyntaxError {
        var e = QuerySyntaxError(query: query, position: position,
                                 message: "the query nests deeper than \(maximumDepth) levels (parentheses and negations such as ! and -); the limit is \(maximumDepth)")
        e.exceededLimit = .depth
        return e
    }

    /// The error for a query with more than `maximumTerms` terms, at the first one too many.
    func termsError(_ query: String, at position: Int) -> QuerySyntaxError {
        var e = QuerySyntaxError(query: query, position: position,
                                 message: "the query has more than \(maximumTerms) terms (words, phrases, comparisons, field:value); the limit is \(maximumTerms): split it into several queries")
        e.exceededLimit = .terms
        return e
    }
}

/// Counts a parser's nesting and terms against `QueryLimits`.
struct LimitCounter {
    let limits: QueryLimits
    private(set) var depth = 0
    private(set) var terms = 0

    init(_ limits: QueryLimits, depth: Int = 0, terms: Int = 0) {
        self.limits = limits
        self.depth = depth
        self.terms = terms
    }

    /// One level deeper (a `(` or a negation) at `position`; throws past the limit.
    mutating func enter(_ query: String, at position: Int) throws(QuerySyntaxError) {
        depth += 1
        if depth > limits.maximumDepth { throw limits.depthError(query, at: position) }
    }

    mutating func leave() { depth -= 1 }

    /// One more term at `position`; throws past the limit.
    mutating func term(_ query: String, at position: Int) throws(QuerySyntaxError) {
        terms += 1
        if terms > limits.maximumTerms { throw limits.termsError(query, at: position) }
    }
}
