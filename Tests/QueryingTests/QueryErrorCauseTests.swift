import LocalIndex
import Foundation
import Indexing
import Querying
import Testing
import TestSupport

/// A `QueryError` says what to do in words of ours and keeps the error underneath as a value,
/// so that a program can tell causes apart without parsing messages.
@Suite("Query errors keep their cause")
struct QueryErrorCauseTests {
    @Test("a file that is not a database: the message names the fix, the cause is the store's IndexError")
    func unreadableIndex() throws {
        let tree = try TemporaryTree(prefix: "fsindex-cause")
        try tree.create("index/index.sqlite", contents: String(repeating: "not a database ", count: 400))
        let location = IndexLocation(directory: tree.path("index"))
        do {
            _ = try QueryPipeline.open(location: location)
            Issue.record("a garbage index file was opened")
        } catch {
            guard case .index(let message, let cause) = error else { Issue.record("\(error)"); return }
            #expect(message.contains("damaged") && message.contains("fsindex erase"), "\(message)")
            guard let stored = cause as? IndexError, case .corrupt = stored else {
                Issue.record("the cause was lost: \(String(describing: cause))"); return
            }
            #expect(message == stored.description)
        }
    }
}
