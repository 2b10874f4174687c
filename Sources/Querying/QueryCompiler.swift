import Attributes
import Foundation

/// Turns a parsed Spotlight expression into an `ItemPredicate`: names resolved (ours and
/// `kMDItem…`), values checked against the attribute's type, `$time` read against the clock.
///
/// Choices where Spotlight's documentation is silent or Linux differs:
/// - `kMDItemTextContent` and `*` always ignore case and diacritics and match words, because
///   they are answered by the full-text index: `== "budg*"` is a prefix search, a leading `*`
///   adds nothing (words are matched from their start), several words are a phrase. A wildcard
///   inside a word (`"re?ort"`, `"an*al"`) is honoured by reading the stored text (slower).
/// - `==` with a `$time` that names a period (`$time.today`, `$time.this_month`,
///   `$time.iso(2026-01-31)`) means "within that period"; with `$time.now` it is the instant.
/// - `!=` matches only items that have the attribute.
package struct QueryCompiler: Sendable {
    package var clock: QueryClock

    package init(clock: QueryClock = QueryClock()) { self.clock = clock }

    package func compile(_ e: QueryExpression) throws(QueryError) -> ItemPredicate {
        switch e {
        case .and(let a, let b): return .and([try compile(a), try compile(b)]).simplified
        case .or(let a, let b): return .or([try compile(a), try compile(b)]).simplified
        case .not(let a): return .not(try compile(a)).simplified
        case .comparison(let attribute, let op, let value, let modifiers):
            return try comparison(try key(attribute), name: attribute, op, value, modifiers)
        case .inRange(let attribute, let low, let high):
            let k = try key(attribute)
            let lower = try comparison(k, name: attribute, .greaterOrEqual, low, [])
            let upper = try comparison(k, name: attribute, .lessOrEqual, high, [])
            return .and([lower, upper]).simplified
        }
    }

    func key(_ name: String) throws(QueryError) -> AttributeKey {
        if name == "*" { return .anyText }
        do { return try AttributeNames.resolve(name) } catch { throw .unknownAttribute(error) }
    }

    /// One comparison, typed. `name` is the attribute as the user wrote it, for messages.
    func comparison(_ key: AttributeKey, name: String, _ op: ComparisonOperator, _ value: QueryValue,
                    _ modifiers: QueryModifiers) throws(QueryError) -> ItemPredicate {
        if key == .anyText || key == .textContent {
            return try fullText(key, name: name, op, value, modifiers)
        }
        switch key.valueType ?? .string {
        case .string, .strings:
            let text: String
            switch value {
            case .string(let s): text = s
            case .number(let n): text = Self.format(n)
            case .time: throw .badValue(attribute: name, value: Self.describe(value), reason: "is a date, but \(name) holds text")
            }
            if key == .contentTypeTree, op == .equal, modifiers.isEmpty, !text.contains("*"), !text.contains("?") {
                return .conformsTo(ContentType.forQuery(text))
            }
            return .compare(AttributeComparison(key, op, .text(TextPattern(text, modifiers))))
        case .integer, .double:
            let n: Double
            switch value {
            case .number(let v): n = v
            case .string(let s):
                guard let v = Double(s.trimmingCharacters(in: .whitespaces)) else {
                    throw .badValue(attribute: name, value: s, reason: "is not a number, and \(name) holds numbers")
                }
                n = v
            case .time: throw .badValue(attribute: name, value: Self.describe(value), reason: "is a date, and \(name) holds numbers")
            }
            return .compare(AttributeComparison(key, op, .number(n)))
        case .bool:
            let b: Bool
            switch value {
            case .number(let v) where v == 0 || v == 1: b = v == 1
            case .string(let s) where Self.bool(s) != nil: b = Self.bool(s)!
            default: throw .badValue(attribute: name, value: Self.describe(value), reason: "is not true or false (or 1 or 0), and \(name) is a yes/no attribute")
            }
            return .compare(AttributeComparison(key, op, .bool(b)))
        case .date:
            let instant: Date
            var period: TimeSpan?
            switch value {
            case .time(let t):
                guard let r = QueryValues.resolve(t, clock) else {
                    throw .badValue(attribute: name, value: Self.describe(value), reason: "is not a date: write $time.iso(2026-01-31) or $time.iso(2026-01-31T09:30:00Z)")
                }
                instant = r.instant
                period = r.period
            case .string(let s):
                guard let span = QueryValues.date(s, clock) else {
                    throw .badValue(attribute: name, value: s, reason: "is not a date: write 2026-01-31, 2026-01-31T09:30:00Z or $time.today(-7)")
                }
                instant = span.start!
                period = span
            case .number:
                throw .badValue(attribute: name, value: Self.describe(value), reason: "is a number, and \(name) holds dates: write $time.iso(2026-01-31) or \"2026-01-31\"")
            }
            return Self.dateCondition(key, op, instant: instant, period: period)
        }
    }

    /// A date comparison; `==`/`!=` with a period mean within/outside it; `<` is before the
    /// period starts, `>` after it ends, `<=`/`>=` include it.
    static func dateCondition(_ key: AttributeKey, _ op: ComparisonOperator, instant: Date, period: TimeSpan?) -> ItemPredicate {
        guard let period, let start = period.start, let end = period.end else {
            return .compare(AttributeComparison(key, op, .date(instant)))
        }
        let within = ItemPredicate.and([.compare(AttributeComparison(key, .greaterOrEqual, .date(start))),
                                        .compare(AttributeComparison(key, .less, .date(end)))])
        switch op {
        case .equal: return within
        case .notEqual: return .and([.compare(AttributeComparison(key, .notEqual, .date(start))), .not(within)])
        case .less: return .compare(AttributeComparison(key, .less, .date(start)))
        case .lessOrEqual: return .compare(AttributeComparison(key, .less, .date(end)))
        case .greater: return .compare(AttributeComparison(key, .greaterOrEqual, .date(end)))
        case .greaterOrEqual: return .compare(AttributeComparison(key, .greaterOrEqual, .date(start)))
        }
    }

    /// `*` and `kMDItemTextContent`: the full-text index when the value is words with at most a
    /// trailing `*`; the stored text otherwise.
    func fullText(_ key: AttributeKey, name: String, _ op: ComparisonOperator, _ value: QueryValue,
                  _ modifiers: QueryModifiers) throws(QueryError) -> ItemPredicate {
        let text: String
        switch value {
        case .string(let s): text = s
        case .number(let n): text = Self.format(n)
        case .time: throw .badValue(attribute: name, value: Self.describe(value), reason: "is a date, but \(name) is text")
        }
        guard op == .equal || op == .notEqual else {
            throw .badValue(attribute: name, value: text, reason: "cannot be compared with \(op.rawValue): text is matched with == or !=")
        }
        let column: SearchPattern.Column? = key == .textContent ? .text : nil
        let predicate: ItemPredicate
        if let term = Self.ftsTerm(text), let pattern = SearchPattern(groups: [[term]], column: column) {
            predicate = .text(pattern)
        } else if SearchPattern.tokens(text.replacing("*", with: "").replacing("?", with: "")).isEmpty {
            throw .nothingToSearch(text)
        } else {
            // A wildcard inside a word: the stored text is read and matched anywhere.
            let pattern = TextPattern("*" + text + "*", [.caseInsensitive, .diacriticInsensitive])
            predicate = .compare(AttributeComparison(key, .equal, .text(pattern)))
        }
        if op == .equal { return predicate }
        // `!=` matches only items that have the attribute: for the text, items with a text.
        guard key == .textContent else { return .not(predicate) }
        let hasText = ItemPredicate.compare(AttributeComparison(.textContent, .equal, .text(TextPattern("*", [.caseInsensitive]))))
        return .and([hasText, .not(predicate)])
    }

    /// The FTS5 term for a value that is words with an optional trailing `*` (a phrase, or a
    /// prefix phrase); nil when a wildcard sits elsewhere.
    static func ftsTerm(_ text: String) -> SearchPattern.Term? {
        var body = Substring(text)
        var prefix = false
        while body.hasSuffix("*") && !body.hasSuffix("\\*") { body.removeLast(); prefix = true }
        // The index holds words, so matching starts at a word: a leading star adds nothing.
        while body.hasPrefix("*") { body.removeFirst() }
        guard !body.contains("*"), !body.contains("?") else { return nil }
        return SearchPattern.Term(String(body).replacing("\\", with: ""), prefix: prefix)
    }

    static func bool(_ s: String) -> Bool? {
        switch s.lowercased() {
        case "true", "yes", "1": true
        case "false", "no", "0": false
        default: nil
        }
    }

    package static func format(_ n: Double) -> String {
        n == n.rounded() && abs(n) < 1e15 ? String(Int64(n)) : String(n)
    }

    static func describe(_ v: QueryValue) -> String {
        switch v {
        case .string(let s): s
        case .number(let n): format(n)
        case .time(let t): "$time." + describe(t)
        }
    }

    /// A `$time` value as it is written in a query (`today(-7)`, not Swift's `today(days: -7)`).
    static func describe(_ t: TimeExpression) -> String {
        func call(_ name: String, _ n: Int) -> String { n == 0 ? name : "\(name)(\(n))" }
        switch t {
        case .now(let seconds): return seconds == 0 ? "now" : "now(\(format(seconds)))"
        case .today(let days): return call("today", days)
        case .yesterday: return "yesterday"
        case .thisWeek(let n): return call("this_week", n)
        case .thisMonth(let n): return call("this_month", n)
        case .thisYear(let n): return call("this_year", n)
        case .iso(let text): return "iso(\(text))"
        }
    }
}
