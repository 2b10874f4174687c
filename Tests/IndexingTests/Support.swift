import Attributes
import Foundation
import IndexTestSupport
import Indexing
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
