import Attributes
import Foundation
import GRDB
@testable import Indexing
import TestSupport
import Testing

/// Issue 22: `fsfind --snippet a` ran into the time limit because FTS5's snippet() is quadratic in
/// a row's matches. `fsindex_snippet` (CFTS5CJK/fts5_snippet.c) answers the same question in one
/// pass; these check what it shows, and that a row of 60,000 matches costs what a short one does.
@Suite("fsindex_snippet: snippets in linear time")
struct SnippetFunctionTests {
    static func snippet(_ store: IndexStore, _ pattern: String, column: Int = -1, tokens: Int = 6) throws -> [String] {
        try store.read { db in
            try String.fetchAll(db, sql: """
                SELECT fsindex_snippet(items_fts, ?, '[', ']', '…', ?) FROM items_fts WHERE items_fts MATCH ? ORDER BY rowid
                """, arguments: [column, tokens, pattern])
        }
    }

    @Test("the window holds the most distinct words, centred, with the matches marked and … where text was left out")
    func window() throws {
        let t = try TestIndex()
        let filler = String(repeating: "lorem ipsum dolor sit amet ", count: 20)
        try t.store.indexSearchableItems([
            item("/d/a.txt", text: filler + "the heron stood still " + filler + "a heron and a kingfisher fished together " + filler),
            item("/d/b.txt", text: "kingfisher at the very start of the text"),
            item("/d/c.txt", text: "ends with the word kingfisher"),
        ])
        let a = try Self.snippet(t.store, "heron kingfisher")
        // Both words in one window beats the lone heron that comes first.
        #expect(a == ["…a [heron] and a [kingfisher] fished…"], "\(a)")
        let alone = try Self.snippet(t.store, "kingfisher NOT heron")
        #expect(alone == ["[kingfisher] at the very start of…", "ends with the word [kingfisher]"], "\(alone)")
        // A phrase is marked whole; a prefix marks each word it matched.
        let phrase = try Self.snippet(t.store, "\"the heron stood\"", tokens: 5)
        #expect(phrase == ["…amet [the] [heron] [stood] still…"], "\(phrase)")
        let prefix = try Self.snippet(t.store, "kingf*", tokens: 3)
        #expect(prefix.last == "…the word [kingfisher]", "\(prefix)")
    }

    @Test("the column with the best window is chosen, or the one asked for; no match shows the column's start")
    func columns() throws {
        let t = try TestIndex()
        try t.store.indexSearchableItems([item("/d/osprey-notes.txt", title: "Osprey season", text: "Nothing about birds here at all.")])
        #expect(try Self.snippet(t.store, "osprey season") == ["[Osprey] [season]"])
        // Column 3 is the text: no match there, so its first words.
        #expect(try Self.snippet(t.store, "osprey", column: 3, tokens: 3) == ["Nothing about birds…"])
    }

    @Test("CJK bigrams with their colocated characters are cut on character boundaries")
    func cjk() throws {
        let t = try TestIndex()
        try t.store.indexSearchableItems([item("/d/cjk.txt", text: "東京都は日本の首都です。")])
        let s = try Self.snippet(t.store, "首都", tokens: 4)
        #expect(s.count == 1 && s[0].contains("[首都]") && !s[0].contains("首首"), "\(s)")
        #expect(s[0].unicodeScalars.allSatisfy { $0 != "\u{FFFD}" })
    }

    @Test("a row with 60,000 matches of a one-letter prefix costs no more than a short one")
    func linear() throws {
        let t = try TestIndex()
        let many = String(repeating: "a ab abc about above ", count: 12_000)
        try t.store.indexSearchableItems([item("/d/many.txt", text: many), item("/d/few.txt", text: "a single apple")])
        let clock = ContinuousClock()
        var shown: [String] = []
        let elapsed = try clock.measure { shown = try Self.snippet(t.store, "a*", tokens: 12) }
        #expect(shown.count == 2 && shown[0].hasPrefix("[a] [ab] [abc]"), "\(shown)")
        // FTS5's snippet() needs minutes for this row (60,000² window scores); one pass needs
        // milliseconds. The bound only tells the two apart, on any machine.
        #expect(elapsed < .seconds(5), "\(elapsed)")
    }
}
