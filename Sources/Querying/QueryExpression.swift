/// A query in Spotlight's expression language (what `mdfind` takes), parsed but not yet checked
/// against the attribute table or compiled to an `ItemPredicate` (`QueryCompiler` does that).
///
/// For example, `kMDItemContentType == "public.image" && kMDItemPixelWidth > 2000` parses to
/// `.and(.comparison("kMDItemContentType", .equal, .string("public.image"), []),
///       .comparison("kMDItemPixelWidth", .greater, .number(2000), []))`.
package indirect enum QueryExpression: Sendable, Hashable {
    /// `attribute op value[modifiers]`; the attribute `*` means any text attribute.
    case comparison(attribute: String, op: ComparisonOperator, value: QueryValue, modifiers: QueryModifiers)
    /// `InRange(attribute, low, high)`, both ends included.
    case inRange(attribute: String, low: QueryValue, high: QueryValue)
    case and(QueryExpression, QueryExpression)
    case or(QueryExpression, QueryExpression)
    case not(QueryExpression)
}

package enum ComparisonOperator: String, Sendable, Hashable, CaseIterable {
    case equal = "==", notEqual = "!=", less = "<", greater = ">", lessOrEqual = "<=", greaterOrEqual = ">="
}

/// The letters after a quoted value: `c` case-insensitive, `d` diacritic-insensitive, `w` word-based.
package struct QueryModifiers: OptionSet, Sendable, Hashable {
    package let rawValue: UInt8
    package init(rawValue: UInt8) { self.rawValue = rawValue }
    package static let caseInsensitive = QueryModifiers(rawValue: 1)
    package static let diacriticInsensitive = QueryModifiers(rawValue: 2)
    package static let wordBased = QueryModifiers(rawValue: 4)
}

package enum QueryValue: Sendable, Hashable {
    /// A quoted string; `*` and `?` in it are wildcards (kept as typed; `\*` is a literal star).
    case string(String)
    case number(Double)
    /// `$time.now`, `$time.today(-1)`, ... (resolved against a clock when compiled).
    case time(TimeExpression)
}

/// Spotlight's `$time` values.
package enum TimeExpression: Sendable, Hashable {
    /// `$time.now`, or `$time.now(N)`: N seconds from now.
    case now(offsetSeconds: Double)
    /// `$time.today(N)`: midnight N days from today (`$time.today` is N = 0).
    case today(days: Int)
    /// `$time.yesterday`: midnight of yesterday.
    case yesterday
    /// `$time.this_week(N)`, `$time.this_month(N)`, `$time.this_year(N)`: the start of the week,
    /// month or year N periods away.
    case thisWeek(Int), thisMonth(Int), thisYear(Int)
    /// `$time.iso(2026-01-01T10:00:00Z)`: the date as written.
    case iso(String)
}

/// A query that is not valid Spotlight syntax, with the place and what was expected there.
package struct QuerySyntaxError: Error, Sendable, Hashable, CustomStringConvertible {
    package var query: String
    /// Offset in Unicode scalars from the start of the query.
    package var position: Int
    package var message: String
    /// The `QueryLimits` limit the query went past, if that is the error.
    package var exceededLimit: QueryLimits.Kind?

    package init(query: String, position: Int, message: String) {
        self.query = query
        self.position = position
        self.message = message
    }

    /// The message, the query, and a caret under the position. A long query is shown as the 60
    /// characters either side of the position, so that the message stays readable.
    package var description: String {
        // A query too long to show is not shown.
        if exceededLimit == .length { return message }
        let scalars = Array(query.unicodeScalars)
        let position = min(max(0, self.position), scalars.count)
        let from = max(0, position - 60), to = min(scalars.count, position + 60)
        let head = from > 0 ? "…" : "", tail = to < scalars.count ? "…" : ""
        let shown = head + String(String.UnicodeScalarView(scalars[from..<to])) + tail
        let caret = String(repeating: " ", count: position - from + (from > 0 ? 1 : 0)) + "^"
        return "\(message)\n  \(shown)\n  \(caret)"
    }
}
