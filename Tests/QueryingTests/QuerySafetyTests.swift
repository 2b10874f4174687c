import Attributes
import Foundation
import Indexing
@testable import Querying
import TestSupport
import Testing

/// A store with one item that has every attribute (values a test query can match) and one with
/// almost none.
private func aliasFixture(now: Date) throws -> QueryFixture {
    var full = AttributeSet()
    for (key, type) in AttributeKey.types {
        switch type {
        case .string: full[key] = .string("xylophone \(key.rawValue)")
        case .strings: full[key] = .strings(["first", "xylophone \(key.rawValue)"])
        case .integer: full[key] = .integer(5)
        case .double: full[key] = .double(5.5)
        case .date: full[key] = .date(now.addingTimeInterval(-86400))
        case .bool: full[key] = .bool(true)
        }
    }
    full[.name] = .string("xylophone.txt")
    full[.path] = .string("/r/xylophone.txt")
    full.textContent = "a xylophone plays"
    var empty = AttributeSet()
    empty[.name] = .string("empty.txt")
    return try QueryFixture([
        SearchableItem(uniqueIdentifier: ItemIdentifier("/r/xylophone.txt"), domainIdentifier: "/r", attributes: full),
        SearchableItem(uniqueIdentifier: ItemIdentifier("/r/empty.txt"), domainIdentifier: "/r", attributes: empty),
    ])
}

@Suite("Query language: aliases, documented queries, safety")
struct QuerySafetyTests {
    let now = Date(timeIntervalSince1970: 1_790_000_000)

    func run(_ f: QueryFixture, _ query: String) throws -> [String] {
        let parsed = try ShortQueryParser.parse(query, clock: QueryClock(now: now))
        return try f.engine.run(QuerySpec(predicate: parsed.predicate, now: now)).map(\.identifier.description).sorted()
    }

    @Test("every kMDItem alias (and our own name) finds the item that has the attribute, and not the one without")
    func everyAlias() throws {
        let f = try aliasFixture(now: now)
        var names = Array(AttributeNames.spotlight.keys)
        names += AttributeKey.types.keys.map(\.rawValue)
        for name in names.sorted() {
            let key = try AttributeNames.resolve(name)
            // These two are columns the store fills from the item itself (its domain and the
            // extractor that read it), not from the attribute set this fixture sets.
            if key == .domainIdentifier || key == .extractor { continue }
            let query: String = switch key.valueType! {
            case .string, .strings: "\(name) == \"*XYLO*\"c"
            case .integer, .double: "\(name) > 1 && \(name) < 6"
            case .date: "\(name) >= $time.today(-30)"
            case .bool: "\(name) == 1"
            }
            #expect(try run(f, query) == ["/r/xylophone.txt"], "\(query)")
        }
    }

    @Test("mdfind queries from Spotlight's documentation run unchanged")
    func documented() throws {
        var pdf = AttributeSet()
        pdf[.name] = .string("Keynote by Steve.pdf")
        pdf[.displayName] = .string("Quarterly Report")
        pdf[.authors] = .strings(["Steve Jobs"])
        pdf.contentType = .pdf
        pdf.contentTypeTree = ContentType.pdf.tree
        pdf[.pageCount] = .integer(12)
        pdf[.fsContentChangeDate] = .date(now.addingTimeInterval(-2 * 86400))
        pdf.textContent = "the budget for next year"
        var other = AttributeSet()
        other[.name] = .string("notes.txt")
        other[.pageCount] = .integer(3)
        other[.fsContentChangeDate] = .date(now.addingTimeInterval(-60 * 86400))
        other[.fileSize] = .integer(5000)
        let f = try QueryFixture([
            SearchableItem(uniqueIdentifier: ItemIdentifier("/r/a.pdf"), domainIdentifier: "/r", attributes: pdf),
            SearchableItem(uniqueIdentifier: ItemIdentifier("/r/notes.txt"), domainIdentifier: "/r", attributes: other),
        ])
        #expect(try run(f, #"kMDItemAuthors == "Steve Jobs""#) == ["/r/a.pdf"])
        #expect(try run(f, #"kMDItemContentType == "com.adobe.pdf" && kMDItemNumberOfPages > 10"#) == ["/r/a.pdf"])
        #expect(try run(f, #"kMDItemDisplayName == "*report*"cd"#) == ["/r/a.pdf"])
        #expect(try run(f, "kMDItemFSContentChangeDate >= $time.today(-7)") == ["/r/a.pdf"])
        #expect(try run(f, "InRange(kMDItemFSSize, 1000, 20000)") == ["/r/notes.txt"])
        #expect(try run(f, #"* == "budget"wc"#) == ["/r/a.pdf"])
        #expect(try run(f, #"kMDItemTextContent == "budg*"cd"#) == ["/r/a.pdf"])
        #expect(try run(f, #"kMDItemContentTypeTree == "public.content" && kMDItemFSName == "*.pdf"c"#) == ["/r/a.pdf"])
        #expect(try run(f, #"kMDItemAuthors == "steve*"cd || kMDItemNumberOfPages < 5"#) == ["/r/a.pdf", "/r/notes.txt"])
        #expect(try run(f, #"!(kMDItemAuthors == "Steve Jobs")"#) == ["/r/notes.txt"])
    }

    @Test("ranking: a newer file beats an older one with equal text; a recently used one beats an unused one")
    func recencyAndUsage() throws {
        func item(_ path: String, modifiedDaysAgo: Double, usedDaysAgo: Double) -> SearchableItem {
            var a = AttributeSet()
            a[.name] = .string(String(path.split(separator: "/").last!))
            a.textContent = "quarterly budget figures"
            a[.fsContentChangeDate] = .date(now.addingTimeInterval(-modifiedDaysAgo * 86400))
            a[.lastUsedDate] = .date(now.addingTimeInterval(-usedDaysAgo * 86400))
            return SearchableItem(uniqueIdentifier: ItemIdentifier(path), domainIdentifier: "/r", attributes: a)
        }
        let f = try QueryFixture([
            item("/r/a-old.txt", modifiedDaysAgo: 300, usedDaysAgo: 300),
            item("/r/b-new.txt", modifiedDaysAgo: 1, usedDaysAgo: 300),
            item("/r/c-used.txt", modifiedDaysAgo: 300, usedDaysAgo: 1),
        ])
        func order(_ weights: RankingWeights) throws -> [String] {
            let p = try ShortQueryParser.parse("budget", clock: QueryClock(now: now))
            return try f.engine.run(QuerySpec(predicate: p.predicate, now: now, ranking: weights)).map(\.identifier.description)
        }
        #expect(try order(RankingWeights()) == ["/r/b-new.txt", "/r/c-used.txt", "/r/a-old.txt"])
        #expect(try order(RankingWeights(recency: 0, usage: 1)) == ["/r/c-used.txt", "/r/a-old.txt", "/r/b-new.txt"])
        // Without boosts, equal text ties and the path decides.
        #expect(try order(RankingWeights(recency: 0, usage: 0)) == ["/r/a-old.txt", "/r/b-new.txt", "/r/c-used.txt"])
    }

    @Test("ranking: a much better text match still beats a newer file")
    func textOutweighsRecency() throws {
        var old = AttributeSet()
        old[.name] = .string("budget.txt")
        old.textContent = "budget"
        old[.fsContentChangeDate] = .date(now.addingTimeInterval(-400 * 86400))
        var new = AttributeSet()
        new[.name] = .string("notes.txt")
        new.textContent = "a long text that mentions the budget once among many other words of no interest at all"
        new[.fsContentChangeDate] = .date(now)
        let f = try QueryFixture([
            SearchableItem(uniqueIdentifier: ItemIdentifier("/r/budget.txt"), domainIdentifier: "/r", attributes: old),
            SearchableItem(uniqueIdentifier: ItemIdentifier("/r/notes.txt"), domainIdentifier: "/r", attributes: new),
        ])
        let p = try ShortQueryParser.parse("budget", clock: QueryClock(now: now))
        let spec = QuerySpec(predicate: p.predicate, now: now, exactNameHint: nil)
        #expect(try f.engine.run(spec).map(\.identifier.description) == ["/r/budget.txt", "/r/notes.txt"])
    }

    /// Random queries drawn from both grammars, well-formed and not: each either parses and
    /// runs, or fails as a query error; none crashes and none reaches SQLite as an error.
    @Test("random queries from the grammar never crash and never produce an SQL error")
    func randomQueries() throws {
        let f = try aliasFixture(now: now)
        var rng = SplitMix64(seed: 0x5EED_F5F1)
        let attributes = Array(AttributeNames.spotlight.keys).sorted() + ["*", "pixelWidth", "title", "kMDItemNope", "a.b", "InRange"]
        let fields = ["name", "ext", "kind", "author", "title", "from", "to", "dir", "modified", "created", "size",
                      "width", "pages", "encrypted", "authors", "keywords", "nope", "textContent", "contentTypeTree"]
        let words = ["budget", "xylophone", "é", "naïve", "日本", "a", "-", "*", "x*", "?", "\"", "'", "(", ")", "\\",
                     "OR", "AND", "NOT", "NEAR", "col:val", "%", "_", "''", "\u{0}", "🙂", "1e309", "--", "..", ">"]
        let values = ["1", "-2.5", "1e3", ">10", "<=3", "1..5", "..9", "10MB", "abc", "2026-01-15", "2026-13-01", "2026-01..2026-03",
                      "today", "yesterday", "this_week", "<7d", ">2w", "*.pdf", "pdf,png", "image", "\"two words\"", "~/x",
                      "/tmp", "yes", "maybe", "\"", "*", "?x", "x\\*", "", "1..", "..", "$time.now"]
        let spotValues = ["\"x*\"c", "\"é\"cd", "\"?\"w", "'y'", "5", "-1e2", "$time.now", "$time.today(-3)", "$time.iso(2026-01-01)",
                          "$time.iso(bad)", "$time.this_month", "\"\\*\"", "\"unclosed", "abc", "$time.nope"]
        let ops = ["==", "!=", "<", ">", "<=", ">=", "="]
        func term(_ depth: Int) -> String {
            switch rng.next(10) {
            case 0, 1: return words[rng.next(words.count)]
            case 2: return "\"" + words[rng.next(words.count)] + " " + words[rng.next(words.count)] + "\""
            case 3: return "-" + words[rng.next(words.count)]
            case 4, 5: return fields[rng.next(fields.count)] + ":" + values[rng.next(values.count)]
            case 6, 7: return attributes[rng.next(attributes.count)] + " " + ops[rng.next(ops.count)] + " " + spotValues[rng.next(spotValues.count)]
            case 8: return "InRange(\(attributes[rng.next(attributes.count)]), \(spotValues[rng.next(spotValues.count)]), \(spotValues[rng.next(spotValues.count)]))"
            default:
                guard depth < 3 else { return words[rng.next(words.count)] }
                let inner = (0...rng.next(3)).map { _ in term(depth + 1) }
                let glue = [" ", " && ", " || ", " OR "][rng.next(4)]
                return (rng.next(3) == 0 ? "!" : "") + "(" + inner.joined(separator: glue) + ")"
            }
        }
        var parsed = 0
        for _ in 0..<1500 {
            let n = rng.next(4) + 1
            let glue = [" ", " && ", " || ", " OR "]
            let q = (0..<n).map { _ in term(0) }.reduce("") { $0.isEmpty ? $1 : $0 + glue[rng.next(glue.count)] + $1 }
            let p: ParsedQuery
            do { p = try ShortQueryParser.parse(q, clock: QueryClock(now: now)) } catch {
                if case .index = error { Issue.record("parse of \(q) reached the index: \(error)") }
                continue
            }
            parsed += 1
            do {
                _ = try f.engine.run(QuerySpec(predicate: p.predicate, now: now, snippet: true))
                _ = try f.engine.count(QuerySpec(predicate: p.predicate, now: now))
                _ = try f.engine.groupCounts(QuerySpec(predicate: p.predicate, now: now), by: GroupKey(.authors))
            } catch {
                Issue.record("\(q) → \(p.predicate) failed in SQL: \(error)")
            }
        }
        #expect(parsed > 150, "the generator should produce many valid queries (\(parsed))")
    }

    /// Queries drawn from the valid grammar only: every one must parse, compile and run.
    @Test("random well-formed queries all parse and run")
    func randomValidQueries() throws {
        let f = try aliasFixture(now: now)
        var rng = SplitMix64(seed: 0xC0FFEE)
        let byType = Dictionary(grouping: AttributeNames.spotlight.keys.sorted(), by: { AttributeNames.spotlight[$0]!.valueType! })
        let words = ["budget", "xylophone", "naïve", "日本語", "x*", "plays", "rep*", "stdio.h", "e-mail"]
        let fieldTerms = ["name:xylo", "name:*.txt", "ext:txt", "ext:pdf,png", "kind:image", "kind:text,pdf", "author:ada",
                          "title:\"two words\"", "from:bob", "to:carol", "dir:/r", "dir:src", "modified:2026-01-15",
                          "modified:2026-01..2026-03", "modified:>2026-01", "created:today", "modified:<7d", "modified:>2w",
                          "created:this_year", "size:>10MB", "size:<1k", "size:10KiB..2M", "width:>1000", "pages:1..5",
                          "encrypted:yes", "keywords:first", "pixelWidth:>=5", "contentTypeTree:public.text", "lang:en",
                          "recordingDate:2026", "used:yesterday", "duration:<300"]
        func spotlight() -> String {
            let types: [AttributeValueType] = [.string, .strings, .integer, .double, .date, .bool]
            let type = types[rng.next(types.count)]
            guard let names = byType[type] ?? byType[.string] else { return "kMDItemFSName == \"x\"" }
            let name = names[rng.next(names.count)]
            let op = ["==", "!=", "<", ">", "<=", ">="][rng.next(6)]
            switch type {
            case .string, .strings:
                var v = ["\"x*\"c", "\"*é*\"cd", "\"xylophone\"w", "\"a?c\"", "\"\\*\"", "\"first\""][rng.next(6)]
                // A literal star alone is no word for the full-text index to search: an error by design.
                if name == "kMDItemTextContent" && v == "\"\\*\"" { v = "\"first\"" }
                return "\(name) \(["==", "!="][rng.next(2)]) \(v)"
            case .integer, .double: return "\(name) \(op) \(rng.next(100))"
            case .date:
                let v = ["$time.now", "$time.today(-3)", "$time.yesterday", "$time.this_week(-1)", "$time.this_month",
                         "$time.this_year", "$time.iso(2026-01-01)", "$time.iso(2026-01-01T10:00:00Z)", "$time.now(-3600)"][rng.next(9)]
                return "\(name) \(op) \(v)"
            case .bool: return "\(name) == \(rng.next(2))"
            }
        }
        func term(_ depth: Int) -> String {
            switch rng.next(8) {
            case 0, 1: return words[rng.next(words.count)]
            case 2: return "\"" + words[rng.next(4)] + " " + words[rng.next(4)] + "\""
            case 3: return "-" + words[rng.next(4)]
            case 4: return fieldTerms[rng.next(fieldTerms.count)]
            case 5, 6: return spotlight()
            default:
                guard depth < 2 else { return spotlight() }
                if rng.next(2) == 0 {
                    return "(" + spotlight() + [" && ", " || "][rng.next(2)] + spotlight() + ")"
                }
                return "(" + term(depth + 1) + [" ", " OR "][rng.next(2)] + term(depth + 1) + ")"
            }
        }
        for _ in 0..<1000 {
            let q = (0...rng.next(3)).map { _ in term(0) }.joined(separator: [" ", " OR ", " && "][rng.next(3)])
            do {
                let p = try ShortQueryParser.parse(q, clock: QueryClock(now: now))
                _ = try f.engine.run(QuerySpec(predicate: p.predicate, now: now, snippet: true))
                _ = try f.engine.count(QuerySpec(predicate: p.predicate, now: now))
            } catch {
                Issue.record("\(q): \(error)")
            }
        }
    }

    @Test("field:value matches the starts of words, ignoring case and accents; a wildcard makes it a glob")
    func fieldWords() throws {
        func item(_ path: String, authors: [String], title: String) -> SearchableItem {
            var a = AttributeSet()
            a[.name] = .string(String(path.split(separator: "/").last!))
            a[.authors] = .strings(authors)
            a.title = title
            return SearchableItem(uniqueIdentifier: ItemIdentifier(path), domainIdentifier: "/r", attributes: a)
        }
        let f = try QueryFixture([
            item("/r/a", authors: ["Emily Brontë"], title: "Annual report 2026"),
            item("/r/b", authors: ["Jacob Bobson", "Ada"], title: "Reports"),
            item("/r/c", authors: ["kebob maker"], title: "misreported"),
        ])
        #expect(try run(f, "author:bron") == ["/r/a"])
        #expect(try run(f, "author:BOB") == ["/r/b"])
        #expect(try run(f, "author:*bob*") == ["/r/b", "/r/c"])
        #expect(try run(f, "author:\"jacob bob\"") == ["/r/b"])
        #expect(try run(f, "title:\"annual rep\"") == ["/r/a"])
        #expect(try run(f, "title:report") == ["/r/a", "/r/b"])
        #expect(try run(f, "title:ort") == [])
        #expect(try run(f, #"kMDItemTitle == "*report*"cd"#) == ["/r/a", "/r/b", "/r/c"])
        #expect(try run(f, #"kMDItemAuthors == "bob*"cdw"#) == ["/r/b"])
        #expect(try run(f, #"kMDItemAuthors == "BRONTE"w"#) == [])   // without d, ë is not e
        #expect(try run(f, #"kMDItemAuthors == "bronte"cdw"#) == ["/r/a"])
    }

    @Test("an index error never carries SQLite's own text")
    func indexErrorsAreOurs() {
        let e = IndexError.database(path: "/x", code: 1, message: "fts5: syntax error near \"secret\"")
        let m = QueryEngine.message(for: e)
        #expect(!m.contains("syntax error") && !m.contains("secret"))
        #expect(QueryEngine.message(for: IndexError.database(path: "/x", code: 5, message: "database is locked")).contains("locked by another process"))
    }
}
