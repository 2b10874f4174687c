import Attributes
import GRDB
import Foundation
import IndexTestSupport
@testable import Indexing
import SystemPackage
import TestSupport

/// A fresh index in a temporary folder (like GRDBTestCase), kept alive with its tree.
struct TestIndex {
    let tree: TemporaryTree
    let store: IndexStore
    init(maxPageCount: Int? = nil) throws {
        tree = try TemporaryTree(prefix: "fsindex-index")
        store = try tree.makeIndexStore(maxPageCount: maxPageCount)
    }
}

func item(_ path: String, domain: String = "/d", title: String? = nil, text: String? = nil,
          type: ContentType = .plainText, expires: Date? = nil) -> SearchableItem {
    makeItem(path, domain: domain, title: title, text: text, type: type, expires: expires)
}

/// An index as an older fsindex left it: its database migrated up to `migration` only, and the
/// rows `fill` writes; an `IndexStore` opened on `location` then runs the migrations after it.
struct OlderIndex {
    let tree: TemporaryTree
    let location: IndexLocation

    init(upTo migration: String, _ fill: (Database) throws -> Void) throws {
        tree = try TemporaryTree(prefix: "fsindex-index")
        location = IndexLocation(directory: tree.path("index"))
        try location.prepare()
        var config = Configuration()
        config.prepareDatabase { db in try IndexStore.registerTokenizer(db) }
        let queue = try DatabaseQueue(path: location.databasePath.string, configuration: config)
        try Schema.migrator.migrate(queue, upTo: migration)
        try queue.write(fill)
    }
}
