import Attributes
import Foundation
import GRDB
@testable import Indexing
import SystemPackage
import TestSupport
import Testing

/// Types stored once per distinct set (issue 41, v22): an item names its set of types
/// (`items.type_tree`, rows in `type_trees`). Queries read the view `item_types`, which must
/// give exactly the rows the table gave before.
@Suite("Type trees: each set of types stored once, named by its items")
struct TypeTreeTests {
    /// Every (item name, type) pair the view gives.
    static func pairs(_ store: IndexStore) throws -> Set<String> {
        try store.read { db in
            Set(try Row.fetchAll(db, sql: "SELECT items.name, t.type FROM item_types t JOIN items ON items.id = t.item_id")
                .map { "\($0["name"] as String) \($0["type"] as String)" })
        }
    }

    static func expected(_ items: [SearchableItem]) -> Set<String> {
        Set(items.flatMap { i in
            let types = i.attributes.contentTypeTree.isEmpty ? i.attributes.contentType.map { [$0] } ?? [] : i.attributes.contentTypeTree
            return types.map { "\(i.attributes.string(.name) ?? "") \($0.rawValue)" }
        })
    }

    static func count(_ store: IndexStore, _ sql: String) throws -> Int {
        try store.read { db in try Int.fetchOne(db, sql: sql) ?? -1 }
    }

    /// A donated item of `type` whose tree is its app's own.
    static func custom(_ path: String, type: ContentType, tree: [ContentType]) -> SearchableItem {
        var i = item(path, type: type)
        i.attributes.contentTypeTree = tree
        return i
    }

    @Test("items with the same types share one tree; a changed item names another; deleted items take nothing with them")
    func sharedAndOwn() throws {
        let t = try TestIndex()
        let script: ContentType = "public.python-script"
        let custom = Self.custom("/d/app.py", type: script, tree: [script, "com.example.notebook-cell"])
        var untyped = item("/d/untyped")
        untyped.attributes.contentType = nil
        untyped.attributes.contentTypeTree = []
        let items = [item("/d/a.py", type: script), item("/d/b.py", type: script), item("/d/c.txt"), custom, untyped]
        try t.store.indexSearchableItems(items)
        #expect(try Self.pairs(t.store) == Self.expected(items))
        #expect(try Self.count(t.store, "SELECT count(*) FROM type_tree_keys") == 3, "a.py and b.py share their set")
        #expect(try Self.count(t.store, "SELECT count(*) FROM items WHERE type_tree IS NULL") == 1)
        #expect(try Self.count(t.store, "SELECT count(*) FROM item_types WHERE type = 'com.example.notebook-cell'") == 1)
        #expect(try Self.count(t.store, "SELECT count(*) FROM item_types WHERE type = 'public.python-script'") == 3)

        // Rewritten with the common set, the donated item names it; a crawled item given a set
        // of its own names a new one.
        let conforming = item("/d/app.py", type: script)
        let diverging = Self.custom("/d/a.py", type: script, tree: [script])
        try t.store.indexSearchableItems([conforming, diverging])
        let now = [items[1], items[2], conforming, diverging, untyped]
        #expect(try Self.pairs(t.store) == Self.expected(now))
        #expect(try Self.count(t.store, "SELECT count(*) FROM item_types WHERE type = 'com.example.notebook-cell'") == 0)

        // Deleted items take no type with them from the others.
        try t.store.deleteItems(identifiers: [ItemIdentifier("/d/a.py")])
        try t.store.indexSearchableItems([item("/d/d.py", type: script)])
        #expect(try Self.pairs(t.store) == Self.expected([items[1], items[2], conforming, untyped, item("/d/d.py", type: script)]))
        try t.store.deleteAllItems()
        #expect(try Self.pairs(t.store).isEmpty)
    }

    @Test("an index of v21 (a row per item and type) is migrated: the view gives every row it had, each set stored once")
    func migrationFromV21() throws {
        let rows: [(Int, String?, [String])] = [
            (1, "public.html", ["public.html", "public.text", "public.data", "public.item", "public.content"]),
            (2, "public.html", ["public.html", "public.text", "public.data", "public.item", "public.content"]),
            (3, "public.html", ["public.html", "com.example.own"]),
            (4, "public.png", ["public.png", "public.image", "public.data", "public.item"]),
            (5, nil, []),
            (6, "public.folder", []),
            (7, nil, ["com.example.untyped"]),
        ]
        let before = Set(rows.flatMap { id, _, types in types.map { "\(id) \($0)" } })
        let older = try OlderIndex(upTo: "v21-url-scheme") { db in
            for (id, type, types) in rows {
                try db.execute(sql: """
                    INSERT INTO items(id, path, domain, name, content_type, attributes, indexed_at) VALUES (?, ?, '/d', ?, ?, '{}', 0)
                    """, arguments: [id, Data("/d/\(id)".utf8), "\(id)", type])
                for t in types {
                    try db.execute(sql: "INSERT INTO item_types(type, item_id) VALUES (?, ?)", arguments: [t, id])
                }
            }
        }
        let store = try IndexStore(location: older.location)
        let after = try store.read { db in
            Set(try Row.fetchAll(db, sql: "SELECT item_id, type FROM item_types").map { "\($0["item_id"] as Int64) \($0["type"] as String)" })
        }
        #expect(after == before)
        #expect(try Self.count(store, "SELECT count(*) FROM type_tree_keys") == 4, "items 1 and 2 share theirs")
        let none = try store.read { db in try Int64.fetchAll(db, sql: "SELECT id FROM items WHERE type_tree IS NULL ORDER BY id") }
        #expect(none == [5, 6])
        // `kind:`-style lookups through the view still find both kinds of item.
        #expect(try Self.count(store, "SELECT count(*) FROM items WHERE id IN (SELECT item_id FROM item_types WHERE type = 'public.text')") == 2)
        #expect(try Self.count(store, "SELECT count(*) FROM items WHERE EXISTS (SELECT 1 FROM item_types WHERE type = 'com.example.own' AND item_types.item_id = items.id)") == 1)
    }
}
