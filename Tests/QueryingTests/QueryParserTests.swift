import TestSupport
import Testing
@testable import Querying

@Suite("Spotlight query expressions: parsing")
struct QueryParserTests {
    func parse(_ q: String) throws -> QueryExpression { try QueryParser.parse(q) }

    @Test("mdfind queries from Spotlight's documentation parse unchanged")
    func documented() throws {
        #expect(try parse(#"kMDItemAuthors == "Steve Jobs""#)
                == .comparison(attribute: "kMDItemAuthors", op: .equal, value: .string("Steve Jobs"), modifiers: []))
        #expect(try parse(#"kMDItemContentType == "com.adobe.pdf" && kMDItemNumberOfPages > 10"#)
                == .and(.comparison(attribute: "kMDItemContentType", op: .equal, value: .string("com.adobe.pdf"), modifiers: []),
                        .comparison(attribute: "kMDItemNumberOfPages", op: .greater, value: .number(10), modifiers: [])))
        #expect(try parse(#"kMDItemDisplayName == "*report*"cd"#)
                == .comparison(attribute: "kMDItemDisplayName", op: .equal, value: .string("*report*"),
                               modifiers: [.caseInsensitive, .diacriticInsensitive]))
        #expect(try parse("kMDItemFSContentChangeDate >= $time.today(-7)")
                == .comparison(attribute: "kMDItemFSContentChangeDate", op: .greaterOrEqual, value: .time(.today(days: -7)), modifiers: []))
        #expect(try parse("InRange(kMDItemFSSize, 1000, 20000)")
                == .inRange(attribute: "kMDItemFSSize", low: .number(1000), high: .number(20000)))
        #expect(try parse(#"* == "budget"wc"#)
                == .comparison(attribute: "*", op: .equal, value: .string("budget"), modifiers: [.wordBased, .caseInsensitive]))
    }

    @Test("&& binds tighter than ||; ! and parentheses")
    func precedence() throws {
        let a = QueryExpression.comparison(attribute: "a", op: .equal, value: .number(1), modifiers: [])
        let b = QueryExpression.comparison(attribute: "b", op: .equal, value: .number(2), modifiers: [])
        let c = QueryExpression.comparison(attribute: "c", op: .less, value: .number(3), modifiers: [])
        #expect(try parse("a == 1 || b == 2 && c < 3") == .or(a, .and(b, c)))
        #expect(try parse("(a == 1 || b == 2) && c < 3") == .and(.or(a, b), c))
        #expect(try parse("!(a == 1) && !b == 2") == .and(.not(a), .not(b)))
        #expect(try parse("a != 1") == .comparison(attribute: "a", op: .notEqual, value: .number(1), modifiers: []))
    }

    @Test("every $time form")
    func times() throws {
        let cases: [(String, TimeExpression)] = [
            ("$time.now", .now(offsetSeconds: 0)), ("$time.now(-3600)", .now(offsetSeconds: -3600)),
            ("$time.today", .today(days: 0)), ("$time.yesterday", .yesterday), ("$time.this_week(-1)", .thisWeek(-1)),
            ("$time.this_month", .thisMonth(0)), ("$time.this_year(-2)", .thisYear(-2)),
            ("$time.iso(2026-01-31T10:00:00Z)", .iso("2026-01-31T10:00:00Z")),
        ]
        for (text, expected) in cases {
            #expect(try parse("kMDItemContentCreationDate > \(text)")
                    == .comparison(attribute: "kMDItemContentCreationDate", op: .greater, value: .time(expected), modifiers: []), "\(text)")
        }
    }

    @Test("escaped wildcards stay escaped for the compiler; other escapes are the character")
    func escapes() throws {
        #expect(try parse(#"kMDItemFSName == "a\*b\"c""#)
                == .comparison(attribute: "kMDItemFSName", op: .equal, value: .string(#"a\*b"c"#), modifiers: []))
    }

    /// (query, caret position, words of the message)
    static let bad: [(String, Int, String)] = [
        ("", 0, "empty"),
        ("kMDItemFSName", 13, "expected an operator"),
        (#"kMDItemFSName == "open"#, 17, "never closed"),
        (#"kMDItemFSName == "a" &&"#, 23, "expected an attribute"),
        ("(a == 1", 7, "expected \")\""),
        ("a == 1 b == 2", 7, "expected \"&&\""),
        ("a == abc", 5, "expected a value"),
        (#"a == "x"q"#, 8, "unknown modifier"),
        ("a > $time.tomorrow", 10, "unknown $time.tomorrow"),
        ("a > $time.today(x)", 4, "takes a number"),
        ("InRange(a, 1)", 12, "expected \",\""),
    ]

    @Test("a bad query says where and what was expected", arguments: bad)
    func errors(query: String, position: Int, words: String) {
        do {
            _ = try QueryParser.parse(query)
            Issue.record("\(query) should not parse")
        } catch {
            #expect(error.position == position, "\(query): \(error.description)")
            #expect(error.message.contains(words), "\(query): \(error.message)")
            #expect(error.description.hasSuffix("\n  " + String(repeating: " ", count: position) + "^"))
        }
    }

    /// Every random query either parses, and then the expression written back out (fully
    /// parenthesized) parses to the same expression, or is refused with a syntax error that has
    /// a message and a position inside the query, shown with the caret under it. Few strings of
    /// this alphabet are queries (5 of the 5,000), so random expressions are also written out and
    /// must parse back to themselves: every operator, modifier, escape, number and $time form.
    @Test("random queries from the grammar's alphabet never crash the parser")
    func noCrash() {
        let pieces = ["a", "kMDItemFSName", "*", "==", "!=", "<", ">=", "&&", "||", "!", "(", ")", "\"x*\"", "'y'", "cdw",
                      "1", "-2.5e3", "$time.now", "$time.today(-1)", "InRange", ",", " ", "\\", "\"", "$", "é"]
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        var parsed = 0, refused = 0
        for _ in 0..<5000 {
            var q = ""
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            for k in 0..<Int(seed >> 60) + 1 {
                q += pieces[Int((seed >> UInt64(k * 5 % 59)) % UInt64(pieces.count))]
            }
            do {
                let e = try QueryParser.parse(q)
                parsed += 1
                let written = Self.write(e)
                #expect((try? QueryParser.parse(written)) == e, "\(q) parsed, but its writing \(written) does not parse back to it")
            } catch {
                refused += 1
                #expect(!error.message.isEmpty, "\(q): an error without a message")
                #expect((0...q.unicodeScalars.count).contains(error.position), "\(q): position \(error.position) outside the query")
                #expect(error.description.hasPrefix(error.message) && error.description.hasSuffix("^"), "\(q): \(error.description)")
            }
        }
        #expect(parsed > 0 && refused > 0, "parsed \(parsed), refused \(refused)")

        var rng = SplitMix64(seed: 0x0DD_BA11)
        for _ in 0..<2000 {
            let e = Self.randomExpression(&rng, depth: 0)
            let written = Self.write(e)
            #expect((try? QueryParser.parse(written)) == e, "\(written) does not parse back to \(e)")
        }
    }

    /// A random expression as the parser builds them (the written form's parentheses give each
    /// `&&` and `||` exactly two operands, so the parser's balancing leaves the tree as it is).
    static func randomExpression(_ rng: inout SplitMix64, depth: Int) -> QueryExpression {
        func pick<T>(_ xs: [T]) -> T { xs[rng.next(xs.count)] }
        func value() -> QueryValue {
            switch rng.next(3) {
            case 0:
                // Backslashes only as the parser keeps them: before *, ? and another backslash.
                let pieces = ["a", "x*", "?", "\\*", "\\?", "\\\\", "\"", "'", "é", " ", "日本", "&&", ")"]
                return .string((0..<rng.next(4)).map { _ in pick(pieces) }.joined())
            case 1: return .number(pick([0, 1, 42, -2.5e3, 0.125, 1e300, -7]))
            default:
                let n = rng.next(7) - 3
                return .time(pick([.now(offsetSeconds: Double(n) * 3600), .today(days: n), .yesterday, .thisWeek(n),
                                   .thisMonth(n), .thisYear(n), .iso("2026-01-31T10:00:00Z")]))
            }
        }
        let attribute = pick(["kMDItemFSName", "kMDItemContentType", "*", "a", "InRange", "kMDItemPixelWidth"])
        switch depth < 3 ? rng.next(6) : rng.next(2) {
        case 0:
            let v = value()
            var m: QueryModifiers = []
            if case .string = v { m = QueryModifiers(rawValue: UInt8(rng.next(8))) }
            return .comparison(attribute: attribute, op: pick(ComparisonOperator.allCases), value: v, modifiers: m)
        case 1: return .inRange(attribute: attribute, low: value(), high: value())
        case 2: return .and(randomExpression(&rng, depth: depth + 1), randomExpression(&rng, depth: depth + 1))
        case 3: return .or(randomExpression(&rng, depth: depth + 1), randomExpression(&rng, depth: depth + 1))
        default: return .not(randomExpression(&rng, depth: depth + 1))
        }
    }

    /// An expression in Spotlight's syntax, every `&&`, `||` and `!` in parentheses, so that it
    /// parses back to the same tree.
    static func write(_ e: QueryExpression) -> String {
        switch e {
        case .comparison(let attribute, let op, let value, let modifiers):
            var m = ""
            if modifiers.contains(.caseInsensitive) { m += "c" }
            if modifiers.contains(.diacriticInsensitive) { m += "d" }
            if modifiers.contains(.wordBased) { m += "w" }
            return "\(attribute) \(op.rawValue) \(write(value))\(m)"
        case .inRange(let attribute, let low, let high): return "InRange(\(attribute), \(write(low)), \(write(high)))"
        case .and(let l, let r): return "(\(write(l)) && \(write(r)))"
        case .or(let l, let r): return "(\(write(l)) || \(write(r)))"
        case .not(let x): return "!(\(write(x)))"
        }
    }

    static func write(_ v: QueryValue) -> String {
        switch v {
        case .string(let s):
            // The parser keeps a backslash before *, ? and \ (for the compiler) and drops it
            // before anything else: write those pairs as they are, and escape the quote.
            var out = "\"", rest = Substring(s).unicodeScalars
            while let c = rest.popFirst() {
                if c == "\\", let next = rest.first, next == "*" || next == "?" || next == "\\" {
                    out.unicodeScalars.append(c); out.unicodeScalars.append(rest.removeFirst())
                } else if c == "\"" || c == "\\" {
                    out += "\\" + String(c)
                } else {
                    out.unicodeScalars.append(c)
                }
            }
            return out + "\""
        case .number(let n): return n.isFinite ? "\(n)" : (n < 0 ? "-1e999" : "1e999")
        case .time(let t):
            switch t {
            case .now(let seconds): return "$time.now(\(seconds))"
            case .today(let days): return "$time.today(\(days))"
            case .yesterday: return "$time.yesterday"
            case .thisWeek(let n): return "$time.this_week(\(n))"
            case .thisMonth(let n): return "$time.this_month(\(n))"
            case .thisYear(let n): return "$time.this_year(\(n))"
            case .iso(let date): return "$time.iso(\(date))"
            }
        }
    }
}
