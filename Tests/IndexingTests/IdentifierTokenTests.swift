import Attributes
import Foundation
import GRDB
@testable import Indexing
import TestSupport
import Testing

/// Issue 24: identifiers (`x86_64`, `_mm_subs_epi8`, `snake_case`) are indexed whole, beside
/// their parts (CFTS5CJK/fts5_cjk.c): a query for the whole finds only the identifier, the parts
/// still find it as before, and the whole sits at its first part's position.
@Suite("Identifiers whole and in parts")
struct IdentifierTokenTests {
    static func matches(_ store: IndexStore, _ pattern: String) throws -> [String] {
        try store.read { db in
            try String.fetchAll(db, sql: """
                SELECT name FROM items_fts WHERE items_fts MATCH ? ORDER BY rowid
                """, arguments: [pattern])
        }
    }

    @Test("the whole identifier is a term of its own; the parts still form a phrase")
    func wholeAndParts() throws {
        let t = try TestIndex()
        try t.store.indexSearchableItems([
            item("/d/a.txt", text: "call x86_64 now, then _mm_subs_epi8 and my snake_case name"),
            item("/d/b.txt", text: "x86 64 apart; snake case; mm subs epi8"),
            item("/d/c.txt", text: "an x86 machine"),
        ])
        #expect(try Self.matches(t.store, "\"x86_64\"") == ["a.txt"])
        #expect(try Self.matches(t.store, "\"x86 64\"") == ["a.txt", "b.txt"])
        #expect(try Self.matches(t.store, "x86") == ["a.txt", "b.txt", "c.txt"])
        // The parts keep their positions: a phrase across the identifier matches.
        #expect(try Self.matches(t.store, "\"call x86 64 now\"") == ["a.txt"])
        // The whole sits at the first part's position.
        #expect(try Self.matches(t.store, "\"call x86_64\"") == ["a.txt"])
        // Leading underscores are not part of the term; runs of three parts and more join.
        #expect(try Self.matches(t.store, "\"_mm_subs_epi8\"") == ["a.txt"])
        #expect(try Self.matches(t.store, "\"mm_subs_epi8\"") == ["a.txt"])
        #expect(try Self.matches(t.store, "\"snake_case\"") == ["a.txt"])
        #expect(try Self.matches(t.store, "\"my_snake_case\"").isEmpty)   // a space stands between my and snake
        #expect(try Self.matches(t.store, "\"x86_6\"*") == ["a.txt"])
    }

    @Test("a snippet marks the identifier whole")
    func snippet() throws {
        let t = try TestIndex()
        try t.store.indexSearchableItems([item("/d/a.txt", text: "we call x86_64 now")])
        let s = try SnippetFunctionTests.snippet(t.store, "\"x86_64\"", tokens: 5)
        #expect(s == ["we call [x86_64] now"], "\(s)")
    }

    @Test("long runs and long parts are indexed without loss")
    func limits() throws {
        let t = try TestIndex()
        let many = (1...40).map { "p\($0)" }.joined(separator: "_")
        let long = String(repeating: "a", count: 300) + "_b"
        try t.store.indexSearchableItems([item("/d/a.txt", text: "x " + many + " y " + long + " z")])
        // Every part is still a term, at consecutive positions.
        #expect(try Self.matches(t.store, "\"p1 p2 p3\"") == ["a.txt"])
        #expect(try Self.matches(t.store, "\"p39 p40 y\"") == ["a.txt"])
        #expect(try Self.matches(t.store, "\"\(String(repeating: "a", count: 300)) b z\"") == ["a.txt"])
        // The first 16 parts are one identifier.
        #expect(try Self.matches(t.store, "\"" + (1...16).map { "p\($0)" }.joined(separator: "_") + "\"") == ["a.txt"])
    }
}
