import Attributes
import Foundation
import IndexTestSupport
import Indexing
import Querying
import SystemPackage
import TestSupport
import Testing

struct QueryFixture {
    let tree: TemporaryTree
    let store: IndexStore
    let engine: QueryEngine

    init(_ items: [SearchableItem]) throws {
        tree = try TemporaryTree(prefix: "fsindex-query")
        store = try tree.makeIndexStore()
        try store.indexSearchableItems(items)
        engine = QueryEngine(store: store)
    }

    func paths(_ words: [String], name: String? = nil, onlyIn: [String] = [], limit: Int? = nil) throws -> [String] {
        var parts: [ItemPredicate] = []
        if !words.isEmpty { parts.append(.text(try #require(SearchPattern(words: words)))) }
        if let name { parts.append(.nameContains(name)) }
        let spec = QuerySpec(predicate: parts.count == 1 ? parts[0] : .and(parts),
                             onlyIn: onlyIn.map { Array($0.utf8) }, limit: limit, exactNameHint: name ?? words.joined(separator: " "))
        return try engine.run(spec).map(\.identifier.description)
    }
}

func doc(_ path: String, title: String? = nil, text: String? = nil, type: ContentType = .plainText,
         expires: Date? = nil) -> SearchableItem {
    makeItem(path, domain: "/r", title: title, text: text, type: type, expires: expires)
}

@Suite("QueryEngine")
struct QueryEngineTests {
    @Test("all words must match, in name or text; the last word is a prefix")
    func allWordsPrefixLast() throws {
        let f = try QueryFixture([
            doc("/r/a.txt", text: "the quarterly budget report"),
            doc("/r/b.txt", text: "budget only"),
            doc("/r/report-budget.txt", text: "nothing here"),
            doc("/r/c.txt", text: "reporting budget"),
        ])
        #expect(Set(try f.paths(["budget", "report"])) == ["/r/a.txt", "/r/report-budget.txt", "/r/c.txt"])
        #expect(Set(try f.paths(["report", "budget"])) == ["/r/a.txt", "/r/report-budget.txt"])
        #expect(try f.paths(["nonexistentword"]).isEmpty)
    }

    @Test("diacritics and case are ignored")
    func diacritics() throws {
        let f = try QueryFixture([doc("/r/a.txt", text: "Crème brûlée recipe")])
        #expect(try f.paths(["creme", "BRULEE"]) == ["/r/a.txt"])
    }

    @Test("a name match ranks above a body match, an exact name first")
    func ranking() throws {
        let f = try QueryFixture([
            doc("/r/notes.txt", text: "see the invoice for details " + String(repeating: "filler ", count: 5)),
            doc("/r/invoice-2026.pdf", text: "amount due"),
            doc("/r/invoice", text: "exact name"),
        ])
        let got = try f.paths(["invoice"])
        #expect(got == ["/r/invoice", "/r/invoice-2026.pdf", "/r/notes.txt"])
    }

    @Test("--name matches a substring of names only, case-insensitively")
    func nameOnly() throws {
        let f = try QueryFixture([
            doc("/r/IMG_20240101_holiday.jpg", type: .jpeg),
            doc("/r/notes.txt", text: "holiday plans"),
            doc("/r/ho", text: "short"),
            doc("/r/50%_off\"deal\".txt"),
        ])
        #expect(try f.paths([], name: "olida") == ["/r/IMG_20240101_holiday.jpg"])
        #expect(try f.paths([], name: "HOLIDAY") == ["/r/IMG_20240101_holiday.jpg"])
        #expect(Set(try f.paths([], name: "ho")) == ["/r/IMG_20240101_holiday.jpg", "/r/ho"])
        #expect(try f.paths([], name: "100%").isEmpty)
        // Quotes, % and _ are literal characters, through the trigram index and through LIKE.
        #expect(try f.paths([], name: "%_off\"d") == ["/r/50%_off\"deal\".txt"])
        #expect(try f.paths([], name: "%_") == ["/r/50%_off\"deal\".txt"])
        #expect(try f.paths([], name: "0%").count == 1)
    }

    @Test("--onlyin keeps results inside the folders, not siblings with the same prefix")
    func onlyIn() throws {
        let f = try QueryFixture([
            doc("/r/a/x.txt", text: "word"), doc("/r/ab/y.txt", text: "word"), doc("/r/b/z.txt", text: "word"),
        ])
        #expect(try f.paths(["word"], onlyIn: ["/r/a"]) == ["/r/a/x.txt"])
        #expect(Set(try f.paths(["word"], onlyIn: ["/r/a/", "/r/b"])) == ["/r/a/x.txt", "/r/b/z.txt"])
    }

    @Test("count, limit, type conformance and expiration")
    func countLimitTypes() throws {
        let f = try QueryFixture([
            doc("/r/1.jpg", text: "sunset", type: .jpeg), doc("/r/2.png", text: "sunset", type: .png),
            doc("/r/3.txt", text: "sunset"), doc("/r/4.txt", text: "sunset", expires: Date().addingTimeInterval(-5)),
        ])
        let words = ItemPredicate.text(try #require(SearchPattern(words: ["sunset"])))
        #expect(try f.engine.count(QuerySpec(predicate: words)) == 3)
        #expect(try f.engine.run(QuerySpec(predicate: words, limit: 2)).count == 2)
        let images = try f.engine.run(QuerySpec(predicate: .and([words, .conformsTo(.image)])))
        #expect(Set(images.map(\.identifier.description)) == ["/r/1.jpg", "/r/2.png"])
        let notImages = try f.engine.run(QuerySpec(predicate: .and([words, .not(.conformsTo(.image))])))
        #expect(notImages.map(\.identifier.description) == ["/r/3.txt"])
    }
}

@Suite("SearchPattern")
struct SearchPatternTests {
    @Test("user text becomes quoted phrases; FTS5 syntax in it is inert")
    func sanitizer() throws {
        #expect(SearchPattern(words: ["annual", "rep"])?.fts5 == "\"annual\" AND \"rep\"*")
        #expect(SearchPattern(words: ["stdio.h"])?.fts5 == "\"stdio h\"*")
        #expect(SearchPattern(words: ["\"unbalanced", "NOT", "a*", "(x)", "col:val"], prefixLast: false)?.fts5
                == "\"unbalanced\" AND \"not\" AND \"a\" AND \"x\" AND \"col val\"")
        #expect(SearchPattern(words: ["!!!", "---"]) == nil)
    }

    @Test("hostile words never produce an SQL or FTS5 error")
    func hostile() throws {
        let f = try QueryFixture([doc("/r/a.txt", text: "plain")])
        for w in ["\"", "'", "*", "NEAR(", "AND", "OR", "NOT", "^", ":", "a\"b", "'; DROP TABLE items; --", "{x}", "\u{0}"] {
            if let p = SearchPattern(words: [w]) {
                _ = try f.engine.run(QuerySpec(predicate: .text(p)))
            }
            _ = try f.engine.run(QuerySpec(predicate: .nameContains(w)))
        }
        #expect(try f.store.count() == 1)
    }
}
