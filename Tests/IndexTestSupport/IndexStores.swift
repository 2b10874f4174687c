import Indexing
import SystemPackage
import TestSupport

extension TemporaryTree {
    /// A fresh index (created as it is opened) in the folder `folder` of this tree, kept as long
    /// as the tree: the one way the tests of the index and the stages above it open a new store.
    /// A test that reopens an existing index, or opens it read-only, says so with `IndexStore`
    /// itself.
    package func makeIndexStore(_ folder: String = "index", maxPageCount: Int? = nil) throws(IndexError) -> IndexStore {
        try IndexStore(location: IndexLocation(directory: path(folder)), maxPageCount: maxPageCount)
    }
}
