import Attributes
import Foundation
import GRDB
import Indexing
import Querying
import TestSupport
import Testing

/// Issue 24: known-item search. A title that is exactly the query comes first, identifiers
/// tell `x86` from `x86_64`, a description that holds the words in order beats a long index page
/// that mentions them all, and words close together beat the same words far apart. Each case
/// is one the plain bm25() of FTS5 got wrong.
@Suite("Relevance")
struct RelevanceTests {
    static let filler = String(repeating: "implementations traits functions modules structs and other items ", count: 12)

    static func page(_ path: String, title: String, description: String? = nil, text: String) -> SearchableItem {
        var item = doc(path, title: title, text: text, type: .html)
        if let description { item.attributes[.contentDescription] = .string(description) }
        return item
    }

    @Test("a title equal to the query ranks first, above shorter siblings that mention every word")
    func exactTitle() throws {
        let f = try QueryFixture([
            Self.page("/r/std/iter/struct.Repeat.html", title: "Repeat in std::iter - Rust",
                      text: "An iterator that repeats an element endlessly. " + Self.filler + Self.filler),
            Self.page("/r/std/iter/fn.repeat_n.html", title: "repeat_n in std::iter - Rust",
                      text: "Creates a new iterator that repeats a single element. Repeat in std iter."),
            Self.page("/r/std/iter/fn.repeat.html", title: "repeat in std::iter - Rust",
                      text: "Creates a new iterator that endlessly repeats a single element."),
            Self.page("/r/std/iter/struct.RepeatN.html", title: "RepeatN in std::iter - Rust",
                      text: "An iterator that repeats an element an exact number of times. Repeat in std iter Rust."),
        ])
        let got = try f.paths(["Repeat", "in", "std", "iter", "Rust"])
        // Both pages titled exactly so (case aside) come before the others.
        #expect(Set(got.prefix(2)) == ["/r/std/iter/struct.Repeat.html", "/r/std/iter/fn.repeat.html"], "\(got)")
    }

    @Test("an identifier tells x86 from x86_64, and the whole identifier ranks above its parts apart")
    func identifiers() throws {
        let body = "This type is the same as the __m128 type defined by Intel, representing a 128-bit SIMD register. "
        let f = try QueryFixture([
            Self.page("/r/x86_64/struct.__m128.html", title: "__m128 in core::arch::x86_64 - Rust", text: body + "x86 register"),
            Self.page("/r/x86/struct.__m128.html", title: "__m128 in core::arch::x86 - Rust", text: body + Self.filler),
            doc("/r/notes.txt", text: "x86 64 and more x86 64 notes"),
        ])
        let x86 = try f.paths(["m128", "in", "core", "arch", "x86", "Rust"])
        #expect(x86.first == "/r/x86/struct.__m128.html", "\(x86)")
        let x64 = try f.paths(["m128", "in", "core", "arch", "x86_64", "Rust"])
        #expect(x64 == ["/r/x86_64/struct.__m128.html"], "\(x64)")
        // The identifier alone: the page holding it whole first, the parts in a row after.
        let whole = try f.paths(["x86_64"])
        #expect(whole == ["/r/x86_64/struct.__m128.html", "/r/notes.txt"], "\(whole)")
    }

    @Test("a description holding the words in order beats an index page that lists them all")
    func inOrderDescription() throws {
        let sentence = "An iterator produced by calling extract_if on BTreeSet."
        let f = try QueryFixture([
            Self.page("/r/btree_set/index.html", title: "std::collections::btree_set - Rust",
                      text: "Structs. Iter: An iterator over the items of a BTreeSet. " + sentence
                        + " IntoIter: An owning iterator over the items of a BTreeSet. Range: An iterator over a sub-range of items in a BTreeSet. "
                        + "Difference, Intersection, Union: lazy iterators producing elements of a BTreeSet."),
            Self.page("/r/btree_set/struct.ExtractIf.html", title: "ExtractIf in std::collections::btree_set - Rust",
                      description: sentence,
                      text: sentence + " " + Self.filler + Self.filler + Self.filler + Self.filler + "calling the closure on every element of the BTreeSet produced by the iterator."),
        ])
        let got = try f.paths(["An", "iterator", "produced", "by", "calling", "extract_if", "on", "BTreeSet"])
        #expect(got.first == "/r/btree_set/struct.ExtractIf.html", "\(got)")
    }

    @Test("a first heading equal to the query ranks its page above pages that mention the words")
    func heading() throws {
        var headed = doc("/r/guide/start.html", title: "Documentation", text: "Getting started with the build. " + Self.filler, type: .html)
        headed.attributes[.headline] = .string("Getting started with the build")
        let f = try QueryFixture([
            headed,
            doc("/r/guide/faq.html", title: "FAQ", text: "Getting help. The build is started with make; getting started is easy.", type: .html),
        ])
        let got = try f.paths(["getting", "started", "with", "the", "build"])
        #expect(got.first == "/r/guide/start.html", "\(got)")
    }

    @Test("words close together in the text rank above the same words far apart")
    func proximity() throws {
        let f = try QueryFixture([
            doc("/r/far.txt", text: "copy " + Self.filler + " files " + Self.filler + " directories"),
            doc("/r/near.txt", text: Self.filler + " copy files and directories " + Self.filler),
        ])
        let got = try f.paths(["copy", "files", "directories"])
        #expect(got == ["/r/near.txt", "/r/far.txt"], "\(got)")
    }

    @Test("the stored item counts of common words rank as counting them would, are what the ranking reads, and make a common last word whole")
    func termCounts() throws {
        var items = (0..<(IndexStore.commonTermMinimum + 50)).map { doc("/r/common\($0).txt", text: "common words in a page \($0)") }
        items.append(doc("/r/rare.txt", text: "common words beside a rare kestrel"))
        items.append(doc("/r/rare2.txt", text: "a kestrel alone"))
        items.append(doc("/r/place.txt", text: "words commonplace"))
        let f = try QueryFixture(items)
        #expect(try f.paths(["words", "common"]).contains("/r/place.txt"))
        func scores() throws -> [String: Double] {
            let spec = QuerySpec(predicate: .text(try #require(SearchPattern(words: ["common", "kestrel"], prefixLast: false))), limit: 10)
            return Dictionary(uniqueKeysWithValues: try f.engine.run(spec).map { ($0.identifier.description, $0.score) })
        }
        let counted = try scores()
        try f.store.optimize()
        let db = try DatabaseQueue(path: f.tree.path("index/index.sqlite").string)
        let stored = try db.read { try Row.fetchAll($0, sql: "SELECT term, docs FROM term_docs ORDER BY term") }
        // Only the common words are stored, with their counts.
        #expect(stored.map { $0["term"] as String } == ["a", "common", "in", "page", "txt", "words"], "\(stored)")
        #expect(stored.first { $0["term"] == "common" }?["docs"] == IndexStore.commonTermMinimum + 51)
        let fromStore = try scores()
        #expect(fromStore.keys.sorted() == counted.keys.sorted())
        for (k, v) in counted { #expect(abs((fromStore[k] ?? 0) - v) < 1e-9, "\(k): \(fromStore[k] ?? 0) against \(v)") }
        // The last of several words is whole when it is a common word itself; a word still being
        // typed, and a query of one word, keep the prefix.
        #expect(try !f.paths(["words", "common"]).contains("/r/place.txt"))
        #expect(try f.paths(["words", "commonp"]) == ["/r/place.txt"])
        #expect(try f.paths(["common"]).contains("/r/place.txt"))
        // The ranking reads them: a wrong count (a rare word) changes the scores (the best is
        // the most negative).
        try db.write { try $0.execute(sql: "UPDATE term_docs SET docs = 1 WHERE term = 'common'") }
        let wrong = try scores()
        #expect(wrong["/r/rare.txt"]! < counted["/r/rare.txt"]! - 0.1, "\(wrong) \(counted)")
    }

    @Test("the query's words with identifiers have both forms; the layout names each phrase's word")
    func patternForms() throws {
        let p = try #require(SearchPattern(words: ["core::arch::x86_64", "foo_bar.h", "plain"], prefixLast: false))
        #expect(p.fts5 == "(\"core arch x86_64\" OR \"core arch x86 64\") AND \"foo bar h\" AND \"plain\"")
        #expect(p.rankLayout == "0:4 0:4 1:3 2:1")
    }
}
