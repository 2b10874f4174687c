import Attributes
import Foundation
import GRDB
@testable import Indexing
import SystemPackage
import TestSupport
import Testing

/// Issue 14, "Half the index": the text is stored once, compressed, in `item_texts`, and
/// `items_fts` is an external-content table over it. These catch the classic mistakes of that
/// design: text that does not come back as it went in, words of an old version left in the index
/// (an external-content table must be told a row's old values), and snippets that cannot read
/// the content.
@Suite("IndexStore: compressed text and the external-content full-text table")
struct CompactTextTests {
    static let long = String(repeating: "The quick brown fox jumps over the lazy dog near the riverbank. ", count: 40)
    static let cjk = String(repeating: "東京都は日本の首都です。ひらがなとカタカナ、한국어 문장도 있습니다。", count: 20)

    /// Rows of `items_fts` that match `pattern`.
    static func matches(_ store: IndexStore, _ pattern: String) throws -> [Int64] {
        try store.read { db in
            try Int64.fetchAll(db, sql: "SELECT rowid FROM items_fts WHERE items_fts MATCH ? ORDER BY rowid", arguments: [pattern])
        }
    }

    static func integrityCheck(_ store: IndexStore) throws {
        // For an external-content table this compares the index with the text read through the view.
        try store.write { db in try db.execute(sql: "INSERT INTO items_fts(items_fts) VALUES('integrity-check')") }
    }

    @Test("texts packed before the writer (issue 23) are stored byte for byte as fsindex_zip stores them, indexed, and taken out again on update and delete")
    func packedBeforehand() throws {
        let t = try TestIndex()
        let texts: [String: String] = [
            "/d/long.txt": Self.long, "/d/cjk.txt": Self.cjk, "/d/short.txt": "tiny text",
            "/d/random.txt": String((0..<3000).map { _ in Character(UnicodeScalar(UInt8.random(in: 32...126))) }),
            "/d/nul.txt": String(repeating: "kea\u{0}parrot ", count: 40),
        ]
        // The same items twice: packed by the caller under /p, by the writer under /w.
        func entries(_ prefix: String, packed: Bool) -> [IndexEntry] {
            texts.map { path, text in
                // Summarized with the text, as the crawl's entries are: then a compressed text
                // leaves the attributes when packed (issue 41).
                var e = IndexEntry(item: item(prefix + path, domain: prefix, text: text), summarized: packed)
                if packed { e.packText() }
                return e
            }
        }
        let packed = entries("/p", packed: true)
        #expect(packed.allSatisfy { $0.packedText != nil })
        for e in packed {
            let shed = if case .compressed? = e.packedText { true } else { false }
            #expect((e.item.attributes.textContent == nil) == shed, "\(e.item.uniqueIdentifier)")
        }
        #expect(packed.contains { $0.item.attributes.textContent == nil }, "the long texts were shed")
        try t.store.index(packed + entries("/w", packed: false))
        let stored = try t.store.read { db in
            try Dictionary(uniqueKeysWithValues: Row.fetchAll(db, sql: """
                SELECT items.path, quote(item_texts.text) AS q FROM items JOIN item_texts ON item_texts.id = items.id
                """).map { (String(decoding: $0["path"] as Data, as: UTF8.self), $0["q"] as String) })
        }
        for path in texts.keys {
            #expect(stored["/p" + path] != nil && stored["/p" + path] == stored["/w" + path], "\(path)")
            let got = try #require(try t.store.item(ItemIdentifier("/p" + path)))
            #expect(got.attributes.textContent == AttributeValue.replacingNUL(texts[path]!), "\(path)")
        }
        #expect(try Self.matches(t.store, "riverbank").count == 2)
        #expect(try Self.matches(t.store, "parrot").count == 2, "a NUL became a space in the packed text too")
        try Self.integrityCheck(t.store)
        // A new version of a packed item, then its deletion: its old words leave the index.
        var changed = IndexEntry(item: item("/p/d/long.txt", domain: "/p", text: String(repeating: "Volcanoes erupt lava. ", count: 30)))
        changed.packText()
        try t.store.index([changed])
        #expect(try Self.matches(t.store, "riverbank").count == 1)
        #expect(try Self.matches(t.store, "volcanoes").count == 1)
        try Self.integrityCheck(t.store)
        try t.store.index([], deleting: [ItemIdentifier("/p/d/long.txt"), ItemIdentifier("/p/d/cjk.txt")])
        #expect(try Self.matches(t.store, "volcanoes").isEmpty)
        try Self.integrityCheck(t.store)
    }

    @Test("every text comes back as it went in: long, CJK, short, odd characters, empty")
    func roundTrip() throws {
        let t = try TestIndex()
        let texts: [String: String] = [
            "/d/long.txt": Self.long,
            "/d/cjk.txt": Self.cjk,
            "/d/short.txt": "tiny text",
            // (No NUL: GRDB reads a text up to its first NUL, as it did before compression.)
            "/d/odd.txt": "odd \u{FFFD} e\u{301}\u{1F600} \r\n\t" + String(repeating: "\u{7F}\u{85}\u{2028}ÿ", count: 60),
            "/d/random.txt": String((0..<3000).map { _ in Character(UnicodeScalar(UInt8.random(in: 32...126))) }),
            "/d/empty.txt": "",
        ]
        try t.store.indexSearchableItems(texts.map { item($0.key, text: $0.value) } + [item("/d/none.txt")])
        for (path, text) in texts {
            let got = try #require(try t.store.item(ItemIdentifier(path)))
            #expect(got.attributes.textContent == text, "\(path)")
        }
        #expect(try t.store.item(ItemIdentifier("/d/none.txt"))?.attributes.textContent == nil)
        // Long texts are stored compressed (a BLOB), short ones as they are.
        let kinds = try t.store.read { db in
            try Dictionary(uniqueKeysWithValues: Row.fetchAll(db, sql: """
                SELECT items.name, typeof(item_texts.text) AS k, length(item_texts.text) AS n
                FROM items JOIN item_texts ON item_texts.id = items.id
                """).map { ($0["name"] as String, ($0["k"] as String, $0["n"] as Int?)) })
        }
        #expect(kinds["long.txt"]?.0 == "blob")
        #expect((kinds["long.txt"]?.1 ?? .max) < Self.long.utf8.count / 5)
        #expect(kinds["cjk.txt"]?.0 == "blob")
        #expect(kinds["short.txt"]?.0 == "text")
        #expect(kinds["none.txt"]?.0 == "null")
        try Self.integrityCheck(t.store)
    }

    @Test("the SQL functions: NULL, numbers and short texts pass through, a foreign blob is an error")
    func functions() throws {
        let t = try TestIndex()
        let db = t.store.reader
        #expect(try db.read { try Bool.fetchOne($0, sql: "SELECT fsindex_zip(NULL) IS NULL") } == true)
        #expect(try db.read { try Int.fetchOne($0, sql: "SELECT fsindex_unzip(fsindex_zip(42))") } == 42)
        #expect(try db.read { try String.fetchOne($0, sql: "SELECT fsindex_unzip(fsindex_zip('abc'))") } == "abc")
        #expect(try db.read { try String.fetchOne($0, sql: "SELECT fsindex_unzip(fsindex_zip(?))", arguments: [Self.long]) } == Self.long)
        for bad in ["SELECT fsindex_unzip(x'0102030405060708')", "SELECT fsindex_unzip(x'01')", "SELECT fsindex_zip(x'01')"] {
            #expect(throws: DatabaseError.self, "\(bad)") { try db.read { try Row.fetchOne($0, sql: bad) } }
        }
    }

    @Test("zstd frames (issue 41) are what new texts become; an older index's zlib stream still reads; a frame that is not ours is an error")
    func formats() throws {
        let t = try TestIndex()
        let db = t.store.reader
        // New texts: the length, then a zstd frame (its magic number 28 B5 2F FD).
        let blob = try #require(try db.read { try Data.fetchOne($0, sql: "SELECT fsindex_zip(?)", arguments: [Self.long]) })
        #expect(Array(blob.prefix(8)) == [UInt8(Self.long.utf8.count & 0xFF), UInt8(Self.long.utf8.count >> 8 & 0xFF), 0, 0, 0x28, 0xB5, 0x2F, 0xFD])
        // An index written before issue 41: the same header, then zlib at level 6.
        let zlib = "40010000789ce5ccd10d80200c05c055de040ee012cc00f62534296268a3e8f47e3886ff974b261cd05d38e9a8dd048f6981c7606ebe22aa3a82337065c7d6db31e84e41b93f9903c69306d7b920fdec7b0182f774bd"
        let old = String(repeating: "Older indexes hold zlib streams: this text was compressed by zlib at level six. ", count: 4)
        #expect(try db.read { try String.fetchOne($0, sql: "SELECT fsindex_unzip(x'\(zlib)')") } == old)
        // Not ours: a header that claims more or less than the frame holds, a cut frame, bytes
        // after the frame, and a frame that names a dictionary.
        let hex = blob.map { String(format: "%02x", $0) }.joined()
        let body = String(hex.dropFirst(8))
        let claims = ["ffffff00", "10000000", String(format: "%02x%02x0000", (Self.long.utf8.count + 1) & 0xFF, (Self.long.utf8.count + 1) >> 8)]
        var bad = claims.map { "x'\($0)\(body)'" }
        bad.append("x'\(hex.dropLast(6))'")
        bad.append("x'\(hex)00'")
        // Frame header with a dictionary ID: descriptor 0x01 (1-byte ID), no window byte for a
        // single segment... made by setting the descriptor's dictionary-ID flag on our frame.
        var withDictionary = Array(blob)
        withDictionary[8] |= 0x01
        withDictionary.insert(0x07, at: 9 + ((withDictionary[8] & 0x20) == 0 ? 1 : 0))
        bad.append("x'\(withDictionary.map { String(format: "%02x", $0) }.joined())'")
        for literal in bad {
            #expect(throws: DatabaseError.self, "\(literal.prefix(40))") { try db.read { try Row.fetchOne($0, sql: "SELECT fsindex_unzip(\(literal))") } }
        }
        #expect(try db.read { try String.fetchOne($0, sql: "SELECT fsindex_unzip(x'\(hex)')") } == Self.long)
    }

    @Test("snippets, phrases, prefixes and CJK words work on the external-content table")
    func searchOnCompressedText() throws {
        let t = try TestIndex()
        try t.store.indexSearchableItems([item("/d/a.txt", text: Self.long + " zebrafish"), item("/d/b.txt", text: Self.cjk)])
        #expect(try Self.matches(t.store, "\"lazy dog\"").count == 1)
        #expect(try Self.matches(t.store, "\"dog lazy\"").isEmpty)
        #expect(try Self.matches(t.store, "zebra*").count == 1)
        #expect(try Self.matches(t.store, "首都").count == 1)
        #expect(try Self.matches(t.store, "\"한국어\"").count == 1)
        let (snippet, highlighted) = try t.store.read { db in
            let row = try #require(try Row.fetchOne(db, sql: """
                SELECT snippet(items_fts, 3, '[', ']', '…', 6) AS s, highlight(items_fts, 3, '<', '>') AS h
                FROM items_fts WHERE items_fts MATCH ?
                """, arguments: ["zebrafish"]))
            return (row["s"] as String, row["h"] as String)
        }
        #expect(snippet.contains("[zebrafish]"))
        #expect(highlighted.hasSuffix("<zebrafish>"))
        let cjkSnippet = try t.store.read { db in
            try String.fetchOne(db, sql: "SELECT snippet(items_fts, 3, '[', ']', '…', 6) FROM items_fts WHERE items_fts MATCH '首都'")
        }
        #expect(cjkSnippet?.contains("[首都]") == true)
    }

    @Test("a rewritten, renamed, summarized or deleted item leaves none of its old words in the index")
    func oldWordsLeave() throws {
        let t = try TestIndex()
        try t.store.indexSearchableItems([item("/d/a.txt", title: "Aardvark", text: Self.long + " oldword"),
                                          item("/d/b.txt", text: "keepword " + Self.long)])
        #expect(try Self.matches(t.store, "oldword").count == 1)
        try t.store.indexSearchableItems([item("/d/a.txt", title: "Badger", text: Self.long + " newword")])
        #expect(try Self.matches(t.store, "oldword").isEmpty)
        #expect(try Self.matches(t.store, "aardvark").isEmpty)
        #expect(try Self.matches(t.store, "newword").count == 1)
        #expect(try Self.matches(t.store, "badger").count == 1)
        try Self.integrityCheck(t.store)

        try t.store.deleteItems(identifiers: [ItemIdentifier("/d/a.txt")])
        #expect(try Self.matches(t.store, "newword").isEmpty)
        #expect(try Self.matches(t.store, "badger").isEmpty)
        #expect(try Self.matches(t.store, "keepword").count == 1)
        try Self.integrityCheck(t.store)

        try t.store.deleteItems(domains: ["/d"])
        #expect(try Self.matches(t.store, "keepword").isEmpty)
        try t.store.indexSearchableItems([item("/d/c.txt", text: "lastword " + Self.long)])
        try t.store.deleteAllItems()
        #expect(try Self.matches(t.store, "lastword").isEmpty)
        #expect(try t.store.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM item_texts") } == 0)
        try Self.integrityCheck(t.store)
        try t.store.optimize()
        try Self.integrityCheck(t.store)
    }

    @Test("an index of v10 (text in the full-text table) is migrated: every text kept and searchable")
    func migrationFromV10() throws {
        let texts = [Self.long + " alphaone", Self.cjk, "short betatwo", "", Self.long + " gammathree"]
        let older = try OlderIndex(upTo: "v10-cjk") { db in
            for (i, text) in texts.enumerated() {
                try db.execute(sql: """
                    INSERT INTO items(id, path, domain, name, attributes, indexed_at) VALUES (?, ?, '/d', ?, '{"title":"T"}', 0)
                    """, arguments: [i + 1, Data("/d/\(i).txt".utf8), "\(i).txt"])
                try db.execute(sql: "INSERT INTO items_fts(rowid, name, title, other, text) VALUES (?, ?, 'T', NULL, ?)",
                               arguments: [i + 1, "\(i).txt", text])
            }
        }
        let store = try IndexStore(location: older.location)
        for (i, text) in texts.enumerated() {
            #expect(try store.item(ItemIdentifier("/d/\(i).txt"))?.attributes.textContent == text)
        }
        #expect(try Self.matches(store, "alphaone") == [1])
        #expect(try Self.matches(store, "東京") == [2])
        #expect(try Self.matches(store, "betatwo") == [3])
        #expect(try Self.matches(store, "\"lazy dog\"") == [1, 5])
        #expect(try Self.matches(store, "gamma*") == [5])
        #expect(try store.read { db in try Int.fetchOne(db, sql: "PRAGMA auto_vacuum") } == 2)
        try Self.integrityCheck(store)
        // Its items are then rewritten and deleted like any other.
        try store.indexSearchableItems([item("/d/0.txt", text: "replaced")])
        #expect(try Self.matches(store, "alphaone").isEmpty)
        try store.deleteItems(identifiers: [ItemIdentifier("/d/4.txt")])
        #expect(try Self.matches(store, "gammathree").isEmpty)
        try Self.integrityCheck(store)
    }
}
