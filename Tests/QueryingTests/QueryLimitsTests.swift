import Attributes
import Foundation
import Indexing
@testable import Querying
import TestSupport
import Testing

/// Issue 11: queries are bounded. Each limit refuses the first query past it with an error that
/// names the limit, and accepts everything up to it; long chains stay shallow and fast.
@Suite("Query limits: length, nesting, terms, time (issue 11)")
struct QueryLimitsTests {
    let limits = QueryLimits()

    /// The limit a query went past, or nil when it parsed.
    func exceeded(_ query: String, limits: QueryLimits = QueryLimits()) -> QueryLimits.Kind? {
        do {
            _ = try ShortQueryParser.parse(query, limits: limits)
            return nil
        } catch {
            if case .syntax(let e) = error { return e.exceededLimit }
            return nil
        }
    }

    @Test("issue 11: nesting past the limit is a clear error in both forms, at the limit it parses")
    func depth() throws {
        let d = limits.maximumDepth
        let deep = String(repeating: "(", count: 10_000) + "a" + String(repeating: ")", count: 10_000)
        #expect(exceeded(deep) == .depth)
        #expect(throws: QuerySyntaxError.self) { try QueryParser.parse(String(repeating: "(", count: 10_000) + "a == 1" + String(repeating: ")", count: 10_000)) }
        #expect(exceeded(String(repeating: "!", count: 50_000) + "a") == .depth)
        #expect(exceeded(String(repeating: "!", count: 50_000) + "kMDItemFSName == \"a\"") == .depth)
        #expect(exceeded(String(repeating: "-", count: 50_000) + "a") == .depth)
        do {
            _ = try QueryParser.parse(String(repeating: "!", count: d + 1) + "a == 1")
            Issue.record("parsed past the depth limit")
        } catch {
            #expect(error.exceededLimit == .depth)
            #expect(error.message.contains("the limit is \(d)"), "\(error.message)")
        }
        // Exactly at the limit: fine, in both forms.
        #expect(exceeded(String(repeating: "(", count: d) + "a" + String(repeating: ")", count: d)) == nil)
        #expect(exceeded(String(repeating: "!", count: d) + "kMDItemFSName == \"a\"") == nil)
        #expect(exceeded(String(repeating: "!", count: d + 1) + "kMDItemFSName == \"a\"") == .depth)
    }

    @Test("issue 11: more terms than the limit is a clear error; as many as the limit parse")
    func terms() throws {
        let n = limits.maximumTerms
        let words = (1...n).map { "w\($0)" }
        #expect(exceeded(words.joined(separator: " ")) == nil)
        #expect(exceeded((words + ["one-more"]).joined(separator: " ")) == .terms)
        let spotlight = (1...n).map { "kMDItemFSName == \"f\($0)\"" }
        #expect(exceeded(spotlight.joined(separator: " || ")) == nil)
        #expect(exceeded((spotlight + ["kMDItemFSName == \"x\""]).joined(separator: " || ")) == .terms)
        // --literal counts words too.
        #expect(throws: QueryError.self) { try ShortQueryParser.parse((words + ["x"]).joined(separator: " "), literal: true) }
        do {
            _ = try ShortQueryParser.parse((words + ["x"]).joined(separator: " "))
        } catch {
            #expect(error.description.contains("the limit is \(n)"), "\(error)")
        }
    }

    @Test("issue 11: a query longer than the limit is refused with its length and the limit")
    func length() throws {
        let long = String(repeating: "a ", count: limits.maximumLength / 2 + 1)
        #expect(exceeded(long) == .length)
        do {
            _ = try ShortQueryParser.parse(long)
        } catch {
            #expect(error.description.contains("\(long.utf8.count) bytes long; the limit is \(limits.maximumLength) bytes"), "\(error)")
        }
        #expect(exceeded("a", limits: QueryLimits(maximumLength: 1)) == nil)
        #expect(exceeded("ab", limits: QueryLimits(maximumLength: 1)) == .length)
    }

    @Test("issue 11: a chain of 4,000 || parses into a shallow tree and compiles in well under a second")
    func longChainsAreShallow() throws {
        let chain = (1...4000).map { "kMDItemFSName == \"f\($0)\"" }.joined(separator: " || ")
        let e = try QueryParser.parse(chain)
        func height(_ e: QueryExpression) -> Int {
            switch e {
            case .and(let a, let b), .or(let a, let b): 1 + max(height(a), height(b))
            case .not(let a): 1 + height(a)
            default: 1
            }
        }
        #expect(height(e) <= 13)
        let start = ContinuousClock.now
        let parsed = try ShortQueryParser.parse(chain)
        #expect(ContinuousClock.now - start < .seconds(1))
        guard case .or(let parts) = parsed.predicate else { Issue.record("not an OR: \(parsed.predicate)"); return }
        #expect(parts.count == 4000)
    }

    @Test("issue 11, fuzz finding: 4,000 Spotlight terms inside a short-form query parse in linear time")
    func mixedChainIsLinear() throws {
        let chain = (1...4000).map { "kMDItemFSName == \"n\($0).txt\"" }.joined(separator: " || ") + " zz"
        let start = ContinuousClock.now
        let parsed = try ShortQueryParser.parse(chain)
        let took = ContinuousClock.now - start
        // Splitting the 120 KB query into scalars again for each of the 4,000 terms copied
        // 480 million scalars; shared, parsing takes a few milliseconds per thousand terms.
        #expect(took < .seconds(1), "\(took)")
        guard case .and(let parts) = parsed.predicate else { Issue.record("\(parsed.predicate)"); return }
        #expect(parts.count == 2)
    }

    @Test("issue 11: repeated words become one full-text phrase (bm25 was quadratic in repeats)")
    func repeatsMerged() throws {
        let parsed = try ShortQueryParser.parse(Array(repeating: "NOT", count: 1000).joined(separator: " "))
        let pattern = try #require(parsed.predicate.splittingText().pattern)
        #expect(pattern.fts5 == "\"not\" AND \"not\"*")
        #expect(SearchPattern(groups: [[try #require(.init("a"))], [try #require(.init("a"))], [try #require(.init("b")), try #require(.init("b"))]])?.fts5
                == "\"a\" AND \"b\"")
    }

    @Test("issue 11: 3,000 ORed comparisons run through SQLite (balanced SQL), finding the right items")
    func bigOrRuns() throws {
        var items: [SearchableItem] = []
        for i in 1...30 { items.append(doc("/r/f\(i).txt", text: "body \(i)")) }
        let f = try QueryFixture(items)
        // Case-insensitive, so each stays a condition of its own (LIKE) in the balanced tree.
        let query = (1...3000).map { "kMDItemFSName == \"f\($0).txt\"c" }.joined(separator: " || ")
        let parsed = try ShortQueryParser.parse(query)
        let found = try f.engine.run(QuerySpec(predicate: parsed.predicate))
        #expect(found.count == 30)
        let sql = try #require(f.engine.select(QuerySpec(predicate: parsed.predicate)).sql)
        #expect(sql.count > 3000 * 10)
        // Exact names ORed are one IN list, and names and words ORed one MATCH each (SQLite's
        // compiler is quadratic in subqueries: see `SQLBuilder.joined`).
        for (text, oneOf) in [((1...3000).map { "kMDItemFSName == \"f\($0).txt\"" }.joined(separator: " || "), "IN ("),
                              ((1...3000).map { "name:f\($0).txt" }.joined(separator: " OR "), "MATCH ?"),
                              ((1...3000).map { "w\($0)" }.joined(separator: " OR ") + " OR body", "MATCH ?")] {
            let p = try ShortQueryParser.parse(text).predicate
            #expect(try f.engine.run(QuerySpec(predicate: p)).count == 30)
            let merged = try #require(f.engine.select(QuerySpec(predicate: p)).sql)
            #expect(merged.components(separatedBy: oneOf).count - 1 == 1, "\(merged.prefix(400))")
        }
    }

    @Test("issue 11: the time limit stops a running statement with an error naming the limit")
    func timeLimit() throws {
        var items: [SearchableItem] = []
        for i in 1...200 { items.append(doc("/r/file-\(i).txt", text: "lorem ipsum \(i)")) }
        let f = try QueryFixture(items)
        // Thousands of wildcard matches per row, each a call into Swift: seconds of work.
        let query = (1...4000).map { "kMDItemFSName == \"*z\($0)?q*\"" }.joined(separator: " || ")
        let parsed = try ShortQueryParser.parse(query)
        let start = ContinuousClock.now
        do {
            _ = try f.engine.run(QuerySpec(predicate: parsed.predicate, deadline: QueryDeadline(seconds: 0.05)))
            Issue.record("the query ended within 0.05 s: it is not expensive enough to test the limit")
        } catch {
            guard case .timeLimit(let seconds) = error else { Issue.record("\(error)"); return }
            #expect(seconds == 0.05)
            #expect(error.description.contains("time limit of 0.05 s"), "\(error)")
        }
        #expect(ContinuousClock.now - start < .seconds(2))
        // A cheap query with a deadline runs as before.
        let cheap = try ShortQueryParser.parse("lorem")
        #expect(try f.engine.run(QuerySpec(predicate: cheap.predicate, deadline: QueryDeadline(seconds: 10))).count == 200)
    }
}
