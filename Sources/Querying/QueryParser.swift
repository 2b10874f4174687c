
/// Parses Spotlight's query expressions (`mdfind`'s syntax).
///
/// Grammar, loosest binding first:
/// ```
/// expression := and ("||" and)*
/// and        := unary ("&&" unary)*
/// unary      := "!" unary | "(" expression ")" | inRange | comparison
/// inRange    := "InRange" "(" attribute "," value "," value ")"
/// comparison := attribute operator value modifiers?
/// value      := "quoted" | 'quoted' | number | $time.name[(argument)]
/// ```
///
/// Queries past `QueryLimits` (length, nesting, terms) are refused with a syntax error that
/// names the limit, so the recursion here and in every later stage stays shallow.
package struct QueryParser {
    private let scalars: [Unicode.Scalar]
    private let query: String
    private var i = 0
    private var counter: LimitCounter

    package init(_ query: String, limits: QueryLimits = QueryLimits()) {
        self.init(query, scalars: Array(query.unicodeScalars), counter: LimitCounter(limits))
    }

    /// With the scalars already split (shared, not copied): the short form's parser calls
    /// `parseTerm` once per Spotlight term, and splitting the whole query for each made a query
    /// of 3,000 terms quadratic.
    private init(_ query: String, scalars: [Unicode.Scalar], counter: LimitCounter) {
        self.query = query
        self.scalars = scalars
        self.counter = counter
    }

    package static func parse(_ query: String, limits: QueryLimits = QueryLimits()) throws(QuerySyntaxError) -> QueryExpression {
        if let e = limits.lengthError(query) { throw e }
        var p = QueryParser(query, limits: limits)
        p.skipSpace()
        guard p.i < p.scalars.count else { throw p.error("the query is empty: expected an attribute, \"(\" or \"!\"") }
        let e = try p.expression()
        p.skipSpace()
        guard p.i == p.scalars.count else { throw p.error("expected \"&&\", \"||\" or the end of the query") }
        return e
    }

    /// Parses one term (a comparison, `InRange(…)`, `!term` or a parenthesized expression)
    /// that starts `offset` scalars into `query`, for queries that mix Spotlight's expressions
    /// with the short form; returns it and the offset just after it.
    package static func parseTerm(_ query: String, at offset: Int) throws(QuerySyntaxError) -> (QueryExpression, end: Int) {
        var counter = LimitCounter(QueryLimits())
        return try parseTerm(query, scalars: Array(query.unicodeScalars), at: offset, counter: &counter)
    }

    /// `parseTerm` inside another parser, which has already counted `counter`'s depth and
    /// terms; the term's own are added to them.
    static func parseTerm(_ query: String, scalars: [Unicode.Scalar], at offset: Int,
                          counter: inout LimitCounter) throws(QuerySyntaxError) -> (QueryExpression, end: Int) {
        var p = QueryParser(query, scalars: scalars, counter: counter)
        p.i = offset
        let e = try p.unary()
        counter = p.counter
        return (e, p.i)
    }

    /// Whether a Spotlight term starts `offset` scalars into `scalars`: `InRange(`, or an
    /// attribute name (or `*`) followed by a comparison operator.
    package static func termStarts(in scalars: [Unicode.Scalar], at offset: Int) -> Bool {
        var k = offset
        func word() -> String {
            var out = ""
            while k < scalars.count, scalars[k].properties.isAlphabetic || ("0"..."9").contains(scalars[k]) || scalars[k] == "_" || scalars[k] == "." {
                out.unicodeScalars.append(scalars[k]); k += 1
            }
            return out
        }
        if k < scalars.count, scalars[k] == "*" { k += 1 } else {
            let name = word()
            guard let first = name.unicodeScalars.first, first.properties.isAlphabetic || first == "_" else { return false }
            if name == "InRange" {
                while k < scalars.count, scalars[k].properties.isWhitespace { k += 1 }
                return k < scalars.count && scalars[k] == "("
            }
        }
        while k < scalars.count, scalars[k].properties.isWhitespace { k += 1 }
        guard k < scalars.count else { return false }
        return ["=", "!", "<", ">"].contains(scalars[k]) && !(scalars[k] == "!" && (k + 1 >= scalars.count || scalars[k + 1] != "="))
    }

    // MARK: Grammar

    private mutating func expression() throws(QuerySyntaxError) -> QueryExpression {
        var operands = [try conjunction()]
        while take("||") { operands.append(try conjunction()) }
        return Self.balanced(operands[...], QueryExpression.or)
    }

    private mutating func conjunction() throws(QuerySyntaxError) -> QueryExpression {
        var operands = [try unary()]
        while take("&&") { operands.append(try unary()) }
        return Self.balanced(operands[...], QueryExpression.and)
    }

    /// A chain `a || b || c …` as a balanced tree rather than a left-deep one: the same
    /// meaning (both operators are associative), but thousands of operands nest only
    /// log2(n) deep, so compiling it recurses a dozen levels, not thousands.
    private static func balanced(_ xs: ArraySlice<QueryExpression>,
                                 _ join: (QueryExpression, QueryExpression) -> QueryExpression) -> QueryExpression {
        if xs.count == 1 { return xs[xs.startIndex] }
        let mid = xs.startIndex + xs.count / 2
        return join(balanced(xs[..<mid], join), balanced(xs[mid...], join))
    }

    private mutating func unary() throws(QuerySyntaxError) -> QueryExpression {
        skipSpace()
        if peek("!") && !peek("!=") {
            try counter.enter(query, at: i)
            defer { counter.leave() }
            i += 1
            return .not(try unary())
        }
        if peek("(") {
            try counter.enter(query, at: i)
            defer { counter.leave() }
            i += 1
            let e = try expression()
            guard take(")") else { throw error("expected \")\" to close the \"(\"") }
            return e
        }
        let start = i
        try counter.term(query, at: i)
        let name = attribute()
        guard !name.isEmpty else { throw error("expected an attribute name (such as kMDItemFSName or *), \"(\" or \"!\"") }
        if name == "InRange" {
            skipSpace()
            if take("(") { return try inRange() }
        }
        skipSpace()
        guard let op = comparisonOperator() else {
            i = start + name.unicodeScalars.count
            skipSpace()
            throw error("expected an operator (==, !=, <, >, <=, >=) after \(name)")
        }
        let value = try self.value()
        let modifiers = try self.modifiers(after: value)
        return .comparison(attribute: name, op: op, value: value, modifiers: modifiers)
    }

    private mutating func inRange() throws(QuerySyntaxError) -> QueryExpression {
        skipSpace()
        let name = attribute()
        guard !name.isEmpty else { throw error("expected an attribute name in InRange(attribute, low, high)") }
        guard take(",") else { throw error("expected \",\" after the attribute in InRange(attribute, low, high)") }
        let low = try value()
        guard take(",") else { throw error("expected \",\" after the low end in InRange(attribute, low, high)") }
        let high = try value()
        guard take(")") else { throw error("expected \")\" to close InRange(attribute, low, high)") }
        return .inRange(attribute: name, low: low, high: high)
    }

    private mutating func value() throws(QuerySyntaxError) -> QueryValue {
        skipSpace()
        guard i < scalars.count else { throw error("expected a value: a quoted string, a number or $time…") }
        let c = scalars[i]
        if c == "\"" || c == "'" { return .string(try quoted(c)) }
        if c == "$" { return .time(try time()) }
        if c == "-" || c == "+" || c == "." || ("0"..."9").contains(c) {
            let start = i
            i += 1
            while i < scalars.count, ("0"..."9").contains(scalars[i]) || scalars[i] == "." || scalars[i] == "e" || scalars[i] == "E"
                    || ((scalars[i] == "-" || scalars[i] == "+") && (scalars[i - 1] == "e" || scalars[i - 1] == "E")) {
                i += 1
            }
            let text = String(String.UnicodeScalarView(scalars[start..<i]))
            guard let n = Double(text) else {
                i = start
                throw error("\"\(text)\" is not a number")
            }
            return .number(n)
        }
        throw error("expected a value: a quoted string, a number or $time…")
    }

    private mutating func quoted(_ quote: Unicode.Scalar) throws(QuerySyntaxError) -> String {
        let start = i
        i += 1
        var out = String.UnicodeScalarView()
        while i < scalars.count {
            let c = scalars[i]
            if c == quote { i += 1; return String(out) }
            if c == "\\", i + 1 < scalars.count {
                let next = scalars[i + 1]
                // A backslash keeps wildcards literal (`\*`), so it stays for the compiler.
                if next == "*" || next == "?" || next == "\\" { out.append("\\") }
                out.append(next)
                i += 2
                continue
            }
            out.append(c)
            i += 1
        }
        i = start
        throw error("this quote is never closed")
    }

    private mutating func modifiers(after value: QueryValue) throws(QuerySyntaxError) -> QueryModifiers {
        guard case .string = value else { return [] }
        var m: QueryModifiers = []
        while i < scalars.count {
            switch scalars[i] {
            case "c": m.insert(.caseInsensitive)
            case "d": m.insert(.diacriticInsensitive)
            case "w": m.insert(.wordBased)
            default:
                if scalars[i].properties.isAlphabetic { throw error("unknown modifier \"\(scalars[i])\": the modifiers are c, d and w") }
                return m
            }
            i += 1
        }
        return m
    }

    private mutating func time() throws(QuerySyntaxError) -> TimeExpression {
        let start = i
        guard take("$time.") else { throw error("expected $time.now, $time.today, $time.yesterday, $time.this_week, $time.this_month, $time.this_year or $time.iso") }
        var name = ""
        while i < scalars.count, scalars[i].properties.isAlphabetic || scalars[i] == "_" { name.unicodeScalars.append(scalars[i]); i += 1 }
        var argument: String?
        if i < scalars.count, scalars[i] == "(" {
            let open = i
            i += 1
            var text = String.UnicodeScalarView()
            while i < scalars.count, scalars[i] != ")" { text.append(scalars[i]); i += 1 }
            guard i < scalars.count else {
                i = open
                throw error("expected \")\" to close the argument of $time.\(name)")
            }
            i += 1
            argument = String(text).trimmingCharacters(" ")
        }
        func number() throws(QuerySyntaxError) -> Double {
            guard let a = argument, !a.isEmpty else { return 0 }
            guard let n = Double(a) else {
                throw QuerySyntaxError(query: query, position: start, message: "$time.\(name) takes a number, not \"\(a)\"")
            }
            // Whole days, weeks, months or years (or seconds for now) within ten thousand years:
            // NaN, infinities and huge values would not fit the calendar's integers.
            guard n.isFinite, abs(n) <= 315_576_000_000 else {
                throw QuerySyntaxError(query: query, position: start, message: "$time.\(name) takes a finite number no larger than 315576000000, not \"\(a)\"")
            }
            return n
        }
        switch name {
        case "now": return .now(offsetSeconds: try number())
        case "today": return .today(days: Int(try number()))
        case "yesterday": return .yesterday
        case "this_week": return .thisWeek(Int(try number()))
        case "this_month": return .thisMonth(Int(try number()))
        case "this_year": return .thisYear(Int(try number()))
        case "iso":
            guard let a = argument, !a.isEmpty else {
                throw QuerySyntaxError(query: query, position: start, message: "$time.iso needs a date: $time.iso(2026-01-31)")
            }
            return .iso(a)
        default:
            throw QuerySyntaxError(query: query, position: start + 6,
                                   message: "unknown $time.\(name): use now, today, yesterday, this_week, this_month, this_year or iso")
        }
    }

    // MARK: Tokens

    /// An attribute name: letters, digits, `_` and `.`, or `*` alone. (Not `:`, which is the
    /// short form's `field:value`.)
    private mutating func attribute() -> String {
        skipSpace()
        if peek("*") { i += 1; return "*" }
        var out = ""
        while i < scalars.count {
            let c = scalars[i]
            guard c.properties.isAlphabetic || ("0"..."9").contains(c) || c == "_" || c == "." else { break }
            out.unicodeScalars.append(c)
            i += 1
        }
        return out
    }

    private mutating func comparisonOperator() -> ComparisonOperator? {
        for op in [ComparisonOperator.equal, .notEqual, .lessOrEqual, .greaterOrEqual, .less, .greater] where take(op.rawValue) {
            return op
        }
        if take("=") { return .equal }   // mdfind accepts a single "=" too
        return nil
    }

    private mutating func skipSpace() {
        while i < scalars.count, scalars[i].properties.isWhitespace { i += 1 }
    }

    private func peek(_ s: String) -> Bool {
        var k = i
        for c in s.unicodeScalars {
            guard k < scalars.count, scalars[k] == c else { return false }
            k += 1
        }
        return true
    }

    private mutating func take(_ s: String) -> Bool {
        skipSpace()
        guard peek(s) else { return false }
        i += s.unicodeScalars.count
        return true
    }

    private func error(_ message: String) -> QuerySyntaxError {
        QuerySyntaxError(query: query, position: i, message: message)
    }
}

extension String {
    fileprivate func trimmingCharacters(_ c: Character) -> String {
        var s = Substring(self)
        while s.first == c { s.removeFirst() }
        while s.last == c { s.removeLast() }
        return String(s)
    }
}
